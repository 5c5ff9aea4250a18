#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/decided.sh [TRIALS]: the until-decided loop (analysis/decided.c
# driving analysis/verdict.c) against known truth, by simulation
# (bench/decided_sim.c): how often it ends decided, the verdicts it ends
# on, the runs a side it takes, and beside it one look at the cap's runs.
# The loop looks after every round, and each look is a test at 1%: its
# A/A false alarms are above one look's, by the figures it prints.
set -e
cd "$(dirname "$0")/.."
B=${B:-build}
out=$(mktemp -d /tmp/kfleet-decided-sim.XXXXXX)
trap 'rm -rf "$out"' EXIT
make -s -j2 B="$B" "$B/libkfleet.a" >/dev/null
cc -std=c17 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags jansson) -o "$out/sim" \
	bench/decided_sim.c "$B/libkfleet.a" $(pkg-config --libs jansson) -lm
start=$(date +%s)
"$out/sim" "${1:-1000}"
echo "$(( $(date +%s) - start )) s"
