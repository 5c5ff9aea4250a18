#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/chaos.sh [RUNS] [SECONDS]: RUNS short runs (default 50) on this
# machine's libvirtd with 2 slots while, every few seconds at random, kfleetd
# is killed with -9 and started again, another process holds the
# database's write lock for 10-20 s, or libvirtd is restarted; then, with
# the faults stopped and everything given time to end, it prints what
# happened to the runs: lost (queued but not in the database), duplicated
# (a run whose command ran to a pass twice), stuck (not ended) and the
# domains left behind. Each should be 0. Restarting libvirtd ends every
# guest on the machine: run it alone. Needs the binaries (make).
N=${1:-50}
SECS=${2:-300}
. "$(dirname "$0")/lib.sh"
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
BENCH_SLOTS=2 bench_daemon
ini=$T/kfleetd.ini
start() {
	"$TOP/$B/bin/kfleetd" -c "$ini" >>"$T/log" 2>&1 &
	PID=$!
	for _ in $(seq 1 300); do
		p=$(sed -n 's|.*kfleetd ready: http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/log" | tail -n 1)
		[ -n "$p" ] && [ "$(grep -c 'kfleetd ready' "$T/log")" -ge "$starts" ] && port=$p && return 0
		sleep 0.1
	done
	return 1
}
starts=1
i=1
while [ $i -le "$N" ]; do
	kf run --kernel "$KERNEL" --timeout 60 -- "sleep $((i % 3)); echo chaos-$i" 2>&1 |
		sed -n 's/^run \([0-9]*\) queued$/\1/p' >> "$T/ids"
	i=$((i + 1))
done
queued=$(wc -l < "$T/ids")
kills=0 locks=0 restarts=0
t0=$(date +%s)
while [ $(( $(date +%s) - t0 )) -lt "$SECS" ] &&
      [ "$(db "select count(*) from runs where state != 'done'" 2>/dev/null)" != 0 ]; do
	sleep $(( 4 + $(od -An -N1 -tu1 /dev/urandom) % 8 ))
	case $(( $(od -An -N1 -tu1 /dev/urandom) % 3 )) in
	0)	kill -9 "$PID" 2>/dev/null
		wait "$PID" 2>/dev/null
		starts=$((starts + 1))
		start || { echo "kfleetd did not start again" >&2; tail "$T/log" >&2; exit 1; }
		kills=$((kills + 1)) ;;
	1)	python3 -c "import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
c.execute('BEGIN EXCLUSIVE'); time.sleep(int(sys.argv[2])); c.execute('ROLLBACK')" \
			"$T/var/kfleet.db" $(( 10 + $(od -An -N1 -tu1 /dev/urandom) % 11 ))
		locks=$((locks + 1)) ;;
	2)	pkill -x libvirtd
		for _ in $(seq 1 50); do pgrep -x libvirtd >/dev/null || break; sleep 0.1; done
		sh "$TOP/.ci/libvirtd.sh" >/dev/null 2>&1
		restarts=$((restarts + 1)) ;;
	esac
done
# the faults stop: whatever is left gets time to end
for _ in $(seq 1 600); do
	[ "$(db "select count(*) from runs where state != 'done'")" = 0 ] && break
	sleep 1
done
inst=$(db "select value from meta where key = 'instance'")
lost=0
for id in $(cat "$T/ids"); do
	[ "$(db "select count(*) from runs where id = $id")" = 1 ] || lost=$((lost + 1))
done
stuck=$(db "select count(*) from runs where state != 'done'")
dup=0
for id in $(db "select id from runs"); do
	n=$(db "select count(*) from attempts where run_id = $id and outcome = 'passed'")
	[ "${n:-0}" -gt 1 ] && dup=$((dup + 1))
done
# a run is stored at its guest's poweroff; its domain goes a moment after
sleep 5
orphans=$(virsh -c qemu:///system list --all --name 2>/dev/null | grep -c "^kf-$inst-")
echo "chaos: $queued of $N runs queued, $SECS s of faults: $kills kill -9 and restarts of kfleetd, $locks database locks, $restarts libvirtd restarts"
echo "outcomes: $(db "select group_concat(outcome || ' ' || n, ', ') from (select outcome, count(*) n from runs group by outcome)")"
echo "retried (an attempt ended as infra): $(db "select count(distinct run_id) from attempts where outcome = 'infra'")"
printf '%-22s %s\n' "runs lost" "$lost" "runs duplicated" "$dup" "runs stuck" "$stuck" "domains left behind" "$orphans"
[ "$lost" = 0 ] && [ "$dup" = 0 ] && [ "$stuck" = 0 ] && [ "$orphans" = 0 ]
