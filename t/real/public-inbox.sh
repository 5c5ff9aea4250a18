# SPDX-License-Identifier: GPL-2.0-only
# t/real/public-inbox.sh: a real public-inbox (Debian's package: the
# archive lore.kernel.org runs) for kfleet's end-to-end tests, sourced
# after t/lib.sh: a v2 inbox under $T/pi, mail delivered by
# public-inbox-mda, served by public-inbox-httpd on a loopback port.
#   pi_real_ok                     0 when public-inbox is installed; else 1,
#                                  and $PI_REAL_WHY says why
#   pi_real_start NAME ADDRESS     the inbox and its server: $PI_URL/NAME
#   pi_real_mail ADDRESS MBOX...   delivers each mail of each mbox, in order
#   pi_real_stop                   stops the server (run at exit too)

PI_PID=

pi_real_ok() {
	PI_REAL_WHY=
	for c in public-inbox-init public-inbox-mda public-inbox-httpd; do
		command -v "$c" >/dev/null 2>&1 && continue
		PI_REAL_WHY="'$c' is not installed (Debian's public-inbox, .ci/deps.sh)"
		return 1
	done
}

# public-inbox reads its config and keeps state under these
pi_env() { PI_CONFIG="$T/pi/config" HOME="$T/pi/home" "$@"; }

pi_real_start() {
	mkdir -p "$T/pi/home"
	pi_env public-inbox-init -V2 "$1" "$T/pi/$1" "http://127.0.0.1/$1" "$2" >>"$T/pi/init.log" 2>&1 ||
		{ cat "$T/pi/init.log" >&2; return 1; }
	git config -f "$T/pi/config" publicinboxmda.spamcheck none
	port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	pi_env public-inbox-httpd -l "http://127.0.0.1:$port" >>"$T/pi/httpd.log" 2>&1 &
	PI_PID=$!
	trap 'pi_real_stop; pw_real_stop 2>/dev/null; kf_cleanup' EXIT
	PI_URL=http://127.0.0.1:$port
	for _ in $(seq 1 100); do
		curl -s -o /dev/null "$PI_URL/" && return 0
		kill -0 "$PI_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "public-inbox-httpd did not start:" >&2; tail -n 20 "$T/pi/httpd.log" >&2
	return 1
}

pi_real_mail() {
	a=$1; shift
	mkdir -p "$T/pi/mail"
	/usr/bin/python3 - "$T/pi/mail" "$@" <<'EOPY' || return 1
import mailbox, sys
n = 0
for path in sys.argv[2:]:
    for m in mailbox.mbox(path, create=False):
        n += 1
        open("%s/%04d.eml" % (sys.argv[1], n), "wb").write(m.as_bytes(unixfrom=False))
EOPY
	for f in "$T"/pi/mail/*.eml; do
		pi_env env ORIGINAL_RECIPIENT="$a" public-inbox-mda --no-precheck < "$f" >>"$T/pi/mda.log" 2>&1 ||
			{ tail -n 20 "$T/pi/mda.log" >&2; return 1; }
		rm -f "$f"
	done
}

pi_real_stop() {
	[ -n "$PI_PID" ] && kill "$PI_PID" 2>/dev/null && wait "$PI_PID" 2>/dev/null
	PI_PID=
}
