#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kfleetd is started, reloaded and stopped without pkill: its pid file holds
# its pid and keeps a second kfleetd off the state directory (refused,
# naming the pid; the first serves on); SIGHUP reads the config again and
# logs each change (log_level applied now, a [run] key at the next
# restart) and a summary; a broken config on SIGHUP is logged and changes
# nothing; `kfleet reload` prints the changes; the two calls need the
# token; `kfleet shutdown` stops it (process gone, pid file removed, exit
# 0); after a kill -9 it starts again over the stale pid file. A password
# in a host's URI is masked in what a reload prints and logs.
# tier: quick
. "$(dirname "$0")/lib.sh"

PIDFILE=$T/var/kfleetd.pid
# log_lines PATTERN: how many lines of the log hold PATTERN (fixed string)
log_lines() { grep -cF -- "$1" "$T/kfleetd.log"; }
# wait_log PATTERN N: until the log holds N lines with PATTERN (10 s)
wait_log() {
	for _ in $(seq 1 100); do
		[ "$(log_lines "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	echo "  the log has $(log_lines "$1") lines with '$1', not $2" >&2
	return 1
}
# status METHOD PATH [AUTH]: the HTTP status of a request
status() { curl -s -o /dev/null -w '%{http_code}' -X "$1" ${3:+-H "Authorization: Bearer $3"} "$KF_URL$2"; }
alive() { kill -0 "$1" 2>/dev/null; }
serves() { curl -sf --max-time 5 "$KF_URL/api/health" >/dev/null; }

kf_config ""
bt=$(sed -n 's/^boot_timeout = //p' "$T/kfleetd.ini")
check "kfleetd starts" kf_start
check "the pid file holds kfleetd's pid" equals "$(cat "$PIDFILE" 2>/dev/null)" "$KF_PID"
check "the ready line names the pid" contains "$(grep 'kfleetd ready' "$T/kfleetd.log")" "(pid $KF_PID, "

# a second kfleetd on the same state directory (its own port): refused
timeout 30 "$BIN/kfleetd" -c "$T/kfleetd.ini" > "$T/second.out" 2>&1
rc=$?
check "a second kfleetd on the same state exits 1" equals "$rc" 1
check "...saying which kfleetd holds it" contains "$(cat "$T/second.out")" \
	"is in use by another kfleetd, pid $KF_PID"
check "...before it opened the database" lacks "$(cat "$T/second.out")" "jobs:"
check "the first still serves" serves
check "...and still holds the pid file" equals "$(cat "$PIDFILE" 2>/dev/null)" "$KF_PID"

# the two calls need the token; refused, they leave the daemon as it was
check "POST /api/shutdown without the token: 401" equals "$(status POST /api/shutdown)" 401
check "POST /api/shutdown with a wrong token: 401" equals "$(status POST /api/shutdown wrong)" 401
check "POST /api/reload without the token: 401" equals "$(status POST /api/reload)" 401
check "GET /api/shutdown: 405" equals "$(status GET /api/shutdown "$(cat "$T/var/token")")" 405
sleep 1
check "...and kfleetd still serves" serves
check "...having re-read nothing" equals "$(log_lines 're-read')" 0

# SIGHUP: a key applied now, one at the next restart
debug_probe() { curl -s -o /dev/null -H "Host: probe-$1.invalid" "$KF_URL/api/health"; }
debug_probe before
sed -i 's/^log_level = info$/log_level = debug/; s/^boot_timeout = .*/boot_timeout = 77/' "$T/kfleetd.ini"
kill -HUP "$KF_PID"
check "SIGHUP: a summary is logged" wait_log "re-read: " 1
check "SIGHUP: log_level is applied now" contains "$(cat "$T/kfleetd.log")" \
	"reload: [daemon] log_level: 'info' -> 'debug', applied now"
check "SIGHUP: boot_timeout takes effect at the next restart" contains "$(cat "$T/kfleetd.log")" \
	"reload: [run] boot_timeout: '$bt' -> '77', takes effect at the next restart"
check "SIGHUP: the summary counts them" contains "$(cat "$T/kfleetd.log")" \
	"config '$T/kfleetd.ini' re-read: 2 keys changed, 1 applied, 1 at restart"
debug_probe after
check "the debug level is in force" wait_log "Host 'probe-after.invalid' refused" 1
check "...and was not before" equals "$(log_lines "Host 'probe-before.invalid' refused")" 0
check "kfleetd serves on" serves

# a broken config on SIGHUP: logged, nothing changed, kfleetd serves on
cp "$T/kfleetd.ini" "$T/good.ini"
printf '[run]\ntimeout = soon\n' >> "$T/kfleetd.ini"
kill -HUP "$KF_PID"
check "SIGHUP, broken config: the error is logged with its line" \
	wait_log "reload: $T/kfleetd.ini:" 1
check "...saying nothing changed" wait_log "has errors: kfleetd keeps the config it runs with, nothing changed" 1
check "...and kfleetd serves on" serves
check "...with its pid file" equals "$(cat "$PIDFILE" 2>/dev/null)" "$KF_PID"
check "...and no summary" equals "$(log_lines 're-read: ')" 1
out=$(kf reload 2>&1)
check "kfleet reload, broken config: exit 2" equals "$?" 2
check "...with the errors" has "$out" "409: config '$T/kfleetd.ini' has errors" "$T/kfleetd.ini:"

# kfleet reload: what changed, printed; the key waiting for a restart again
cp "$T/good.ini" "$T/kfleetd.ini"
sed -i 's/^log_level = debug$/log_level = info/' "$T/kfleetd.ini"
out=$(kf reload 2>&1)
check "kfleet reload: exit 0" equals "$?" 0
check "kfleet reload prints each change and the summary" has "$out" \
	"[daemon] log_level: 'debug' -> 'info', applied now" \
	"[run] boot_timeout: '$bt' -> '77', takes effect at the next restart" \
	"config '$T/kfleetd.ini' re-read: 2 keys changed, 1 applied, 1 at restart"
check "...logged too" wait_log "re-read: " 2
debug_probe info
sleep 0.5
check "the info level is back" equals "$(log_lines "Host 'probe-info.invalid' refused")" 0
sed -i "s/^boot_timeout = 77\$/boot_timeout = $bt/" "$T/kfleetd.ini"
check "kfleet reload of what runs: no change" contains "$(kf reload 2>&1)" \
	"config '$T/kfleetd.ini' re-read: no change"
check "kfleet reload --json" contains "$(kf reload --json 2>&1)" '"changed": 0'
# a host's URI with a password: masked in what is printed and logged
cp "$T/kfleetd.ini" "$T/good.ini"
printf '[host other]\nuri = qemu+ssh://kf:hunter2@192.0.2.1/system\n' >> "$T/kfleetd.ini"
out=$(kf reload 2>&1)
check "kfleet reload: a new host's keys, its password masked" has "$out" \
	"[host other] uri: (none) -> 'qemu+ssh://kf:***@192.0.2.1/system', takes effect at the next restart" \
	"[host other] slots: (none) -> '2'"
check "...not in the answer" lacks "$out$(kf reload --json 2>&1)" hunter2
check "...nor in the log" lacks "$(cat "$T/kfleetd.log")" hunter2
cp "$T/good.ini" "$T/kfleetd.ini"
check "the host taken out again: no change" contains "$(kf reload 2>&1)" "re-read: no change"
# to a less verbose level: its line and the summary are still logged
sed -i 's/^log_level = info$/log_level = warn/' "$T/kfleetd.ini"
kill -HUP "$KF_PID"
check "SIGHUP to log_level warn: its line is logged" \
	wait_log "reload: [daemon] log_level: 'info' -> 'warn', applied now" 1
check "...and the summary" wait_log "re-read: 1 key changed, 1 applied, 0 at restart" 1
sed -i 's/^log_level = warn$/log_level = info/' "$T/kfleetd.ini"
check "...and back to info" contains "$(kf reload 2>&1)" "log_level: 'warn' -> 'info', applied now"

# kfleet shutdown: the daemon gone, its pid file too, exit 0
pid=$KF_PID
out=$(kf shutdown 2>&1)
check "kfleet shutdown: exit 0" equals "$?" 0
check "...says it stopped" equals "$out" "kfleetd (pid $pid) stopped"
check "...the process is gone" sh -c "! kill -0 $pid 2>/dev/null || grep -q '^State:.*Z' /proc/$pid/status"
wait "$pid"
check "...kfleetd exited 0" equals "$?" 0
KF_PID=
check "...the pid file is removed" test ! -e "$PIDFILE"
check "...the log says how it stopped" has "$(cat "$T/kfleetd.log")" \
	"web: shutdown asked for" "signal 15: stopping"
check "kfleet shutdown with no daemon: exit 2" sh -c "! '$BIN/kfleet' --url '$KF_URL' --token-file '$T/var/token' shutdown 2>/dev/null"

# kill -9: the pid file stays, stale; kfleetd starts again over it
check "kfleetd starts again" kf_start
old=$KF_PID
kf_kill9
check "kill -9 leaves the pid file" equals "$(cat "$PIDFILE" 2>/dev/null)" "$old"
check "kfleetd starts over the stale pid file" kf_start
check "...which holds the new pid" equals "$(cat "$PIDFILE" 2>/dev/null)" "$KF_PID"
check "...not the old one" test "$KF_PID" != "$old"
check "SIGTERM still stops it, removing the pid file" sh -c "kill $KF_PID; for i in \$(seq 1 100); do [ -e '$PIDFILE' ] || exit 0; sleep 0.1; done; exit 1"
wait "$KF_PID" 2>/dev/null
KF_PID=
kf_done
