#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/bisect-sim.sh [TRIALS]: the bisection's decision rules
# (analysis/bisect.c) against known truth, by simulation (bench/bisect_sim.c):
# how often a bisection of 256 commits, 10% of them unbuildable, names the
# culprit, a candidate list holding it, or a wrong commit, against the error
# the rules claimed, for flaky tests and metric regressions.
set -e
cd "$(dirname "$0")/.."
out=$(mktemp -d /tmp/kfleet-bisect-sim.XXXXXX)
trap 'rm -rf "$out"' EXIT
cc -std=c17 -D_GNU_SOURCE -O2 -I. -o "$out/sim" bench/bisect_sim.c analysis/bisect.c \
	analysis/stats.c analysis/verdict.c $(pkg-config --cflags jansson) -lm
"$out/sim" "${1:-2000}"
