#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The host goes away: libvirtd is killed while a run is in flight and
# started again. The run ends as an infrastructure failure, the host
# leaves placement and rejoins when libvirtd answers, the guest left
# running (QEMU outlives libvirtd) is destroyed, and the retry passes.
. "$(dirname "$0")/lib.sh"

SLOTS=1 kf_config
check "kfleetd starts" kf_start
id=$(kf run --kernel "$KERNEL" -- 'sleep 15; echo after-the-storm' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
for _ in $(seq 1 300); do [ -n "$(kf_field "$id" booted_at)" ] && break; sleep 0.2; done
check "run $id is in flight" equals "$(kf_field "$id" state)" running
dom=$(kf_field "$id" domain)

pkill -x libvirtd
for _ in $(seq 1 50); do pgrep -x libvirtd >/dev/null || break; sleep 0.2; done
check "libvirtd is gone" sh -c "! pgrep -x libvirtd >/dev/null"
for _ in $(seq 1 100); do
	[ "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" = 0 ] && break
	sleep 0.2
done
check "the host is out of placement" equals "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" 0
check "...and says why" sh -c "[ -n \"\$(sqlite3 '$T/var/kfleet.db' \"select health_detail from hosts where name = 'local'\")\" ]"
sh "$TOP/.ci/libvirtd.sh"
kf_wait_state "$id" done 240
check "the host is back in placement" equals "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" 1
check "attempt 1: infra, the connection was lost" contains \
	"$(sqlite3 "$T/var/kfleet.db" "select outcome || ': ' || detail from attempts where run_id = $id and n = 1")" \
	"infra: lost the connection to host 'local'"
check "attempt 2 passed" equals "$(kf_field "$id" "outcome || ' ' || attempt")" "passed 2"
check "output of the retry" equals "$(cat "$(kf_field "$id" run_dir)/output.txt")" after-the-storm
check "no domain of this test is left" kf_no_domains
kf_done
