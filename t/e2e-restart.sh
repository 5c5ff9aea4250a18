#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kill -9 of kfleetd with runs queued and one in flight, then a restart: no
# run is lost, none runs twice, the in-flight run is an infrastructure
# failure retried once, and no domain is left behind. A SIGTERM requeues
# the run in flight; a database locked by another process for 25 s holds
# up neither reads nor the outcome; a state directory whose database is
# gone is refused.
. "$(dirname "$0")/lib.sh"

SLOTS=1 kf_config
check "kfleetd starts (one slot)" kf_start
id1=$(kf run --kernel "$KERNEL" -- 'sleep 30; echo first' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id2=$(kf run --kernel "$KERNEL" -- 'echo second' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id3=$(kf run --kernel "$KERNEL" -- 'echo third' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "three runs queued" test -n "$id1" -a -n "$id2" -a -n "$id3"

# wait until the first run's guest has booted, so it is really in flight
for _ in $(seq 1 300); do
	[ -n "$(kf_field "$id1" booted_at)" ] && break
	sleep 0.2
done
check "run $id1 is in flight" equals "$(kf_field "$id1" state)" running
dom=$(kf_field "$id1" domain)
check "its domain '$dom' is running" sh -c "virsh -c qemu:///system domstate '$dom' | grep -q running"
check "the others wait" equals "$(kf_field "$id2" state) $(kf_field "$id3" state)" "queued queued"

kf_kill9
check "kfleetd is gone, its guest is still there" sh -c "virsh -c qemu:///system domstate '$dom' | grep -q running"

kf_start
check "kfleetd restarts on the same state" test -n "$KF_URL"
check "the orphan domain is destroyed at start" sh -c "! virsh -c qemu:///system domstate '$dom' 2>/dev/null | grep -q running"
for id in $id1 $id2 $id3; do kf_wait_state "$id" done 240 || break; done
check "run $id1: attempt 1 infra, attempt 2 passed" equals \
	"$(sqlite3 "$T/var/kfleet.db" "select group_concat(n || ':' || outcome, ' ') from (select * from attempts where run_id = $id1 order by n)")" \
	"1:infra 2:passed"
check "run $id1: attempt 1 says why" contains \
	"$(sqlite3 "$T/var/kfleet.db" "select detail from attempts where run_id = $id1 and n = 1")" "restarted while the run was in flight"
check "run $id1: output of the retry" contains "$(kf show "$id1" 2>&1)" first
check "runs $id2 and $id3 ran exactly once and passed" equals \
	"$(sqlite3 "$T/var/kfleet.db" "select group_concat(run_id || ':' || n || ':' || outcome, ' ') from (select * from attempts where run_id in ($id2, $id3) order by run_id, n)")" \
	"$id2:1:passed $id3:1:passed"
check "no run lost: three runs, all done" equals "$(sqlite3 "$T/var/kfleet.db" "select count(*) from runs where state = 'done'")" 3
check "no domain of this test is left" kf_no_domains

# A clean stop (SIGTERM) with a run in flight also requeues it, and a
# daemon started again finishes it.
id4=$(kf run --kernel "$KERNEL" -- 'sleep 20; echo fourth' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
for _ in $(seq 1 300); do [ -n "$(kf_field "$id4" booted_at)" ] && break; sleep 0.2; done
dom=$(kf_field "$id4" domain)
kf_stop
check "SIGTERM: the guest in flight is destroyed" sh -c "! virsh -c qemu:///system domstate '$dom' 2>/dev/null | grep -q running"
check "SIGTERM: its run is queued again" equals "$(kf_field "$id4" state)" queued
kf_start
kf_wait_state "$id4" done 240
check "SIGTERM: after a restart it passes on attempt 2" equals "$(kf_field "$id4" "outcome || ' ' || attempt")" "passed 2"

# Another process holds the database's write lock for 25 s while a run
# ends: reads still answer at once, the outcome waits for the lock and is
# stored, the run does not stay "running"
id5=$(kf run --kernel "$KERNEL" -- 'sleep 4; echo fifth' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
for _ in $(seq 1 300); do [ -n "$(kf_field "$id5" booted_at)" ] && break; sleep 0.2; done
python3 -c "import sqlite3, sys, time
c = sqlite3.connect(sys.argv[1], isolation_level=None)
c.execute('BEGIN EXCLUSIVE'); c.execute('UPDATE meta SET value = value WHERE key = \'instance\'')
open(sys.argv[2], 'w').close(); time.sleep(25); c.execute('COMMIT')" "$T/var/kfleet.db" "$T/locked" &
lock=$!
for _ in $(seq 1 50); do [ -f "$T/locked" ] && break; sleep 0.1; done
t0=$(date +%s%3N)
check "lock: GET /api/runs answers while another process holds the lock" sh -c "curl -sf --max-time 5 '$KF_URL/api/runs' | grep -q '\"id\": *$id5'"
echo "  /api/runs under the lock: $(( $(date +%s%3N) - t0 )) ms"
wait $lock
kf_wait_state "$id5" done 120
check "lock: the run's outcome was stored after the lock went" kf_outcome "$id5" passed
check "lock: kfleetd said it waited for the lock" grep -q "run $id5: the database is locked by another process" "$T/kfleetd.log"

# The database gone, the runs' directories still there: kfleetd refuses to
# start a new database over them, and says how to start fresh
kf_stop
mv "$T/var/kfleet.db" "$T/kfleet.db.away"
rm -f "$T/var/kfleet.db-wal" "$T/var/kfleet.db-shm"
"$BIN/kfleetd" -c "$T/kfleetd.ini" > "$T/nodb.out" 2>&1
check "no database: kfleetd exits non-zero" test $? -ne 0
check "no database: it says why and how to start fresh" grep -q "run directories under runs/ but no kfleet.db.*to start fresh" "$T/nodb.out"
check "no database: none was made" test ! -e "$T/var/kfleet.db"
mv "$T/kfleet.db.away" "$T/var/kfleet.db"
kf_done
