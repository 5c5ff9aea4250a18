#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Two host entries for one machine (here both qemu:///system; a local URI
# and an ssh one to the same box would be the same): their guests share
# the machine's cores, so pinned benchmarks of either entry are handed
# cores from one map. Two 1-vCPU benchmarks at once, one on each entry:
# on a machine with one core to pin (2 cores, 1 kept for the host) one is
# pinned and the other runs unpinned saying why, never both on that core.
. "$(dirname "$0")/lib.sh"

SLOTS=1 kf_config ""
sed -i 's|^\[run\]$|[host other]\nuri = qemu:///system\nslots = 1\n\n[run]|' "$T/kfleetd.ini"
check "kfleetd starts with two host entries on this machine" kf_start
q() { kf run "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
a=$(q --job getpgid-rate --kernel "$KERNEL")
b=$(q --job getpgid-rate --kernel "$KERNEL")
check "two benchmarks queued" test -n "$a" -a -n "$b"
for id in $a $b; do kf_wait_state "$id" done 300 || break; done
nb() { db "select $2 from run_neighbours where run_id = $1"; }
check "both passed" equals "$(kf_field "$a" outcome) $(kf_field "$b" outcome)" "passed passed"
check "...one on each host entry" equals "$(db "select count(distinct host_id) from runs where id in ($a, $b)")" 2
check "...at the same time (each the other's neighbour)" contains "$(nb "$a" runs)" "$b:"
pins=$(db "select group_concat(pin, ' ') from (select pin from run_neighbours where run_id in ($a, $b) order by pin)")
if [ "$(nproc)" -le 2 ]; then
	check "one core to pin: one pinned, the other not" equals "$pins" "pinned unpinned"
	check "...the other says its cores were taken" contains "$(db "select why from run_neighbours where run_id in ($a, $b) and pin = 'unpinned'")" "of the host's 1 cores to pin are free"
else
	check "two pinned runs of one machine do not share a core" test "$(db "select count(distinct cores) from run_neighbours where run_id in ($a, $b) and pin = 'pinned'")" -eq "$(db "select count(*) from run_neighbours where run_id in ($a, $b) and pin = 'pinned'")"
fi
kf_stop
kf_done
