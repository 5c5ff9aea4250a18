#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The state directory fills in the middle of a run: a job writes more
# output than a 40 MiB tmpfs under the state directory holds. The run
# ends as an infrastructure failure naming the file and the error (not
# as a failure of the kernel: its output is not all on disk), its guest
# is stopped, the hosts leave placement saying why on /hosts and
# /api/hosts, and the run is queued again for its second attempt, which
# waits while the disk lacks min_free_disk. A file of the test's own
# (ballast) is removed once the hosts say so, as an operator makes room:
# the run's outcome waits for room to be stored, when the database's
# disk is full too.
. "$(dirname "$0")/lib.sh"

diskfull_cleanup() {
	if [ -n "$KF_PID" ]; then
		kill -9 "$KF_PID" 2>/dev/null
		wait "$KF_PID" 2>/dev/null
		KF_PID=
	fi
	# QEMU holds the run's files open: its guests go before the unmount
	if [ -f "$T/instance" ]; then
		for d in $(virsh -c qemu:///system list --all --name 2>/dev/null | grep "^kf-$(cat "$T/instance")-"); do
			virsh -c qemu:///system destroy "$d" >/dev/null 2>&1
		done
	fi
	umount "$T/var" 2>/dev/null || umount -l "$T/var" 2>/dev/null
	kf_cleanup
}
trap diskfull_cleanup EXIT

mkdir -p "$T/var"
# mode 0755: libvirt's QEMU (libvirt-qemu) reaches the run's files
check "a 40 MiB tmpfs as the state directory" mount -t tmpfs -o size=40m,mode=0755 kfleet-e2e "$T/var"
head -c 3M /dev/zero > "$T/var/ballast"
SLOTS=1 kf_config "max_attempts = 2
output_max = 256M"
sed -i "s|^log_level = info$|log_level = info\nmin_free_disk = 8M|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
id=$(kf run --kernel "$KERNEL" -- 'head -c 60000000 /dev/zero | tr "\0" x | fold -w 100; echo end' 2>&1 |
	sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "a run that writes 60 MB is queued" test -n "$id"

# local's health as /api/hosts gives it: "HEALTHY DETAIL"
health() { curl -s "$KF_URL/api/hosts" | python3 -c 'import json, sys
for h in json.load(sys.stdin)["hosts"]:
    if h["name"] == "local": print(h["healthy"], h["health_detail"])'; }
for _ in $(seq 1 600); do
	case "$(health)" in "False disk: "*) break;; esac
	sleep 0.2
done
h=$(health)
check "the host leaves placement, naming the file and the error" has "$h" \
	"False disk: runs/$id/a1/" ": No space left on device"
check "...on the hosts page too" has "$(curl -s "$KF_URL/hosts")" \
	"out of placement: disk: runs/$id/a1/" "No space left on device"
rm -f "$T/var/ballast"

attempt1() { sqlite3 "$T/var/kfleet.db" "select outcome || ' ' || detail from attempts where run_id = $id and n = 1"; }
for _ in $(seq 1 300); do
	[ -n "$(attempt1 | tr -d ' ')" ] && break
	sleep 0.2
done
a1=$(attempt1)
check "attempt 1 ended as an infrastructure failure, not a failure" has "$a1" \
	"infra runs/$id/a1/" ": No space left on device"
check "...its guest is stopped" kf_no_domains
check "...the log says which file" grep -q "run $id: runs/$id/a1/.*: No space left on device" "$T/kfleetd.log"
sleep 3
check "the run is queued again for its second attempt" equals \
	"$(kf_field "$id" "state || ' ' || (select count(*) from attempts where run_id = $id)")" "queued 1"
check "...which waits while the disk lacks min_free_disk" has "$(health)" "False disk: "
kf_stop
kf_done
