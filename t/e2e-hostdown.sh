#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Hosts that cannot be reached at start: one refuses the connection (ssh
# to port 1), one accepts it and never answers (a listener of the test's
# own), one has no sshd yet. kfleetd starts all the same within their
# connect_timeout, shows each down with why and since when, serves runs
# on the local host, connects the third in the background once its sshd
# answers (and again when its session is cut), and stops without waiting
# for the one that hangs.
. "$(dirname "$0")/lib.sh"

KEY=/root/.ssh/kfleet-ci
LISTENER=
SSHD_PID=
hostdown_cleanup() {
	[ -n "$LISTENER" ] && kill "$LISTENER" 2>/dev/null
	[ -n "$SSHD_PID" ] && kill "$SSHD_PID" 2>/dev/null
	kf_cleanup
}
trap hostdown_cleanup EXIT

check "sshd answers (for its key)" sh "$TOP/.ci/sshd.sh"
# a port that accepts and never answers, and a free one for a later sshd
python3 - "$T/silent.port" <<'EOP' &
import os, socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(s.getsockname()[1]))
os.rename(sys.argv[1] + ".tmp", sys.argv[1])
held = []
while True:
    held.append(s.accept()[0])
EOP
LISTENER=$!
for _ in $(seq 1 100); do [ -s "$T/silent.port" ] && break; sleep 0.1; done
SILENT=$(cat "$T/silent.port")
LATER=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check "a listener that never answers" test -n "$SILENT" -a -n "$LATER"

kf_config ""
for h in refused:1 silent:$SILENT later:$LATER; do
	printf '\n[host %s]\nuri = qemu+ssh://root@127.0.0.1:%s/system?keyfile=%s&no_verify=1&no_tty=1\n' \
		"${h%%:*}" "${h#*:}" "$KEY"
	printf 'slots = 1\naccel = tcg\ntransfer = files\nconnect_timeout = 3\n'
done >> "$T/kfleetd.ini"
check "kfleetd -n takes the config" "$BIN/kfleetd" -n -c "$T/kfleetd.ini"
check "kfleetd -nv prints connect_timeout" contains "$("$BIN/kfleetd" -nv -c "$T/kfleetd.ini")" \
	"connect_timeout = 3"
t0=$(date +%s)
check "kfleetd starts with three hosts down" kf_start
check "...within their connect_timeout, not hanging on the silent one" \
	test $(( $(date +%s) - t0 )) -lt 20
hosts=$(curl -s "$KF_URL/api/hosts")
# one host's JSON object
host() { printf '%s' "$hosts" | python3 -c 'import json, sys
for h in json.load(sys.stdin)["hosts"]:
    if h["name"] == sys.argv[1]: print(h["healthy"], h["health_detail"])' "$1"; }
check "the local host is healthy" equals "$(host local)" "True None"
check "the refused host is down, since when and why" has "$(host refused)" \
	"False unreachable since " "UTC: host 'refused'" "Connection refused"
check "the silent host is down: no answer in connect_timeout" has "$(host silent)" \
	"False unreachable since " "no answer within 3 s (connect_timeout)"
check "the hosts page says so" has "$(curl -s "$KF_URL/hosts")" \
	"out of placement: unreachable since" "no answer within 3 s"
out=$(kf hosts)
echo "$out" | sed 's/^/  | /'
check "kfleet hosts: the local host healthy, its slots and accel" contains "$out" "$(printf '%-12s %-8s' local healthy)"
check "...the refused one DOWN, with why and since when" has "$(echo "$out" | sed -n '/^refused /,/^[a-z]/p')" \
	"refused      DOWN" "    unreachable since " "Connection refused"
check "...the silent one DOWN: no answer in connect_timeout" has "$(echo "$out" | sed -n '/^silent /,/^[a-z]/p')" \
	"silent       DOWN" "no answer within 3 s (connect_timeout)"
check "...the local one's accel and why, and its machine" has "$(echo "$out" | sed -n '/^local /,/^[a-z]/p')" \
	"    accel: " "    machine $(hostname)"
check "kfleet hosts --json: the live fields" equals "$(kf hosts --json | python3 -c 'import json, sys
h = {x["name"]: x for x in json.load(sys.stdin)["hosts"]}
print(h["local"]["live"]["slots"], h["refused"]["live"]["slots"], h["refused"]["live"]["connected"], h["refused"]["live"]["down_since"] is not None)')" "2 1 False True"

id=$(kf run --kernel "$KERNEL" -- 'echo served-here' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "a run is queued" test -n "$id"
check "...runs" kf_wait_state "$id" done 120
check "...passes" kf_outcome "$id" passed
check "...on the local host" equals "$(kf_field "$id" "(select name from hosts where id = host_id)")" local

# the third host's sshd starts: it is connected in the background
/usr/sbin/sshd -p "$LATER" -o ListenAddress=127.0.0.1 -o PermitRootLogin=prohibit-password \
	-o PasswordAuthentication=no -o PidFile="$T/sshd.pid"
for _ in $(seq 1 50); do [ -s "$T/sshd.pid" ] && break; sleep 0.1; done
SSHD_PID=$(cat "$T/sshd.pid" 2>/dev/null)
for _ in $(seq 1 150); do
	hosts=$(curl -s "$KF_URL/api/hosts")
	[ "$(host later)" = "True None" ] && break
	sleep 0.2
done
check "the third host joins once its sshd answers" equals "$(host later)" "True None"
check "...and the log says so" grep -q "host 'later' (qemu+ssh://root@127.0.0.1:$LATER/system.*): x86_64 tcg" \
	"$T/kfleetd.log"
hosts=$(curl -s "$KF_URL/api/hosts")
check "the silent one is still down" contains "$(host silent)" "False unreachable since "

# its ssh session ends (the sshd's children: the far side of the
# connection): the connection is lost, and made again
for p in $(pgrep -P "$SSHD_PID"); do kill "$p"; done
for _ in $(seq 1 150); do
	grep -q "host 'later': connected again" "$T/kfleetd.log" && break
	sleep 0.2
done
check "the third host's lost connection is said" \
	grep -q "host 'later': out of placement: unreachable since .*: the connection was lost" "$T/kfleetd.log"
check "...and it is connected again" grep -q "host 'later': connected again" "$T/kfleetd.log"
for _ in $(seq 1 50); do
	hosts=$(curl -s "$KF_URL/api/hosts")
	[ "$(host later)" = "True None" ] && break
	sleep 0.2
done
check "...back in placement" equals "$(host later)" "True None"

t0=$(date +%s)
kf_stop
check "kfleetd stops at once, not waiting for the silent host" test $(( $(date +%s) - t0 )) -lt 10
kf_done
