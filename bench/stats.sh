#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/stats.sh [TRIALS]: the comparison's decision rule (analysis/verdict.c,
# the report's correction in analysis/compare.c) against known truth, by
# simulation (bench/stats_sim.c): per noise model (normal, lognormal, 10%
# outliers at 1.5x) and runs per side (3, 5, 10, 20) the A/A false alarms,
# "no change" on real shifts of 1, 2 and 3 CV and the power; then the chance
# of any false alarm in a 10-metric A/A report.
set -e
cd "$(dirname "$0")/.."
out=$(mktemp -d /tmp/kfleet-stats-sim.XXXXXX)
trap 'rm -rf "$out"' EXIT
make -s -j2 build/libkfleet.a >/dev/null
cc -std=c17 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags jansson) -o "$out/sim" \
	bench/stats_sim.c build/libkfleet.a $(pkg-config --libs jansson) -lm
"$out/sim" "${1:-2000}"
