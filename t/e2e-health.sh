#!/bin/sh
# Health beyond a live connection: when the state directory has less room
# than min_free_disk, hosts leave placement with the reason shown (a full
# disk would fail every run as infra), queued runs wait, and they run once
# there is room again.
. "$(dirname "$0")/lib.sh"

kf_config ""
sed -i "s|^log_level = info$|log_level = info\nmin_free_disk = 1000000G|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
id=$(kf run --kernel "$KERNEL" -- 'echo room' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "a run is queued" test -n "$id"
for _ in $(seq 1 50); do
	[ "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" = 0 ] && break
	sleep 0.2
done
check "the host is out of placement, and says why" contains \
	"$(sqlite3 "$T/var/kfleet.db" "select healthy || ' ' || health_detail from hosts where name = 'local'")" \
	"0 disk: "
check "...on the hosts page" contains "$(curl -sf "$KF_URL/hosts")" "less than min_free_disk"
sleep 3
check "the run waits" equals "$(kf_field "$id" state)" queued
kf_stop
sed -i "s|^min_free_disk = 1000000G$|min_free_disk = 1M|" "$T/kfleetd.ini"
check "kfleetd restarts with room" kf_start
check "the run runs" kf_wait_state "$id" done 120
check "...and passes" equals "$(kf_field "$id" outcome)" passed
check "the host is back in placement" equals "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" 1
kf_done
