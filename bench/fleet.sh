#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/fleet.sh [HOSTS] [QUEUED] [DECISIONS] [RUNS]: the placement and the
# fair queue at fleet scale, by simulation (bench/fleet_sim.c): simulated
# hosts (default 100: a fifth big KVM hosts, the rest small TCG ones) and
# queued runs in a real database; first the time of one placement decision
# (what a worker does per run: the claim's limits, the queue's classes from
# SQLite, the fair queue's pick, the claim) with QUEUED runs waiting (default
# 100000, DECISIONS of them timed, default 200), then a simulated fleet
# running RUNS runs (default 5000) to the end: its makespan against the
# ideal, and the decisions' time as the queue drains.
set -e
cd "$(dirname "$0")/.."
B=${B:-build}
out=$(mktemp -d /tmp/kfleet-fleet-sim.XXXXXX)
trap 'rm -rf "$out"' EXIT
make -s -j2 B="$B" "$B/libkfleet.a" >/dev/null
PKGS="libvirt libmicrohttpd jansson libcurl inih libarchive sqlite3 libcrypto zlib libguestfs libxml-2.0"
cc -std=c17 -D_GNU_SOURCE -O2 -I. $(pkg-config --cflags $PKGS) -o "$out/sim" \
	bench/fleet_sim.c "$B/libkfleet.a" $(pkg-config --libs $PKGS) -lpthread -lm
start=$(date +%s)
"$out/sim" "${1:-100}" "${2:-100000}" "${3:-200}" "${4:-5000}" "$out"
echo "$(( $(date +%s) - start )) s"
