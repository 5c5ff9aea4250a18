# SPDX-License-Identifier: GPL-2.0-only
# t/lib.sh: the small library every end-to-end test sources. Each test gets
# its own state directory, database, token and port (from kfleetd's own
# choice of a free port), and cleans up its daemon when it ends.
# Usage: . "$(dirname "$0")/lib.sh"; then kf_start, kf ..., check ..., kf_done.

B=${B:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
BIN=$TOP/$B/bin
KERNEL=${KFLEET_TEST_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
T=$(mktemp -d /tmp/kfleet-t.XXXXXX)
chmod 755 "$T"
PASS=0
FAIL=0
KF_PID=
NAME=$(basename "$0" .sh)

T0=$(date +%s)
# kf_times: one line of where this test's time went, from the databases of
# the daemons it ran (t/run-e2e.sh adds them up at the end of the suite):
# "# times NAME WALL BUILDS BUILD_S RUNS BOOT_S GUEST_S", in seconds
kf_times() {
	nb=0 bs=0 nr=0 boot=0 guest=0
	for d in $(find "$T" -maxdepth 3 -name kfleet.db 2>/dev/null); do
		set -- $(sqlite3 -separator ' ' "file:$d?mode=ro" \
			"select count(*), coalesce(sum(ended_at - started_at), 0) / 1000 from builds where ended_at is not null" \
			"select count(*), coalesce(sum(booted_at - started_at), 0) / 1000, coalesce(sum(coalesce(ended_at, booted_at) - booted_at), 0) / 1000 from runs where booted_at is not null" 2>/dev/null | tr '\n' ' ')
		[ $# -eq 5 ] || continue
		nb=$((nb + $1)); bs=$((bs + $2)); nr=$((nr + $3)); boot=$((boot + $4)); guest=$((guest + $5))
	done
	echo "# times $NAME $(($(date +%s) - T0)) $nb $bs $nr $boot $guest"
}

kf_cleanup() {
	[ -n "$KF_PID" ] && kill -9 "$KF_PID" 2>/dev/null
	kf_times
	# a test that died must not leave its guests behind
	if [ -f "$T/instance" ]; then
		for d in $(virsh -c qemu:///system list --all --name 2>/dev/null | grep "^kf-$(cat "$T/instance")-"); do
			virsh -c qemu:///system destroy "$d" >/dev/null 2>&1
		done
	fi
	[ -n "$KEEP" ] || rm -rf "$T"
}
trap kf_cleanup EXIT

# check DESCRIPTION COMMAND...: one test case
check() {
	desc=$1; shift
	if "$@"; then
		PASS=$((PASS + 1)); echo "ok $((PASS + FAIL)) - $NAME: $desc"
	else
		FAIL=$((FAIL + 1)); echo "not ok $((PASS + FAIL)) - $NAME: $desc"
	fi
}

contains() { case "$1" in *"$2"*) return 0;; esac; echo "  expected to find '$2' in: $(printf '%s' "$1" | head -c 600)" >&2; return 1; }
lacks() { case "$1" in *"$2"*) echo "  did not expect '$2' in: $(printf '%s' "$1" | head -c 600)" >&2; return 1;; esac; return 0; }
# has TEXT S...: each S is in TEXT
has() { text=$1; shift; for s in "$@"; do contains "$text" "$s" || return 1; done; }
equals() { [ "$1" = "$2" ] && return 0; echo "  expected '$2', got '$1'" >&2; return 1; }

# The guests' setup, BOOT: "fast" unless a test says otherwise. Under TCG a
# stock x86_64 kernel entered at its PVH entry boots in ~2.6 s where its
# bzImage takes ~6.3 s (bench/README.md), and most of the suite's guests
# boot the host's kernel or the fake tree's copy of it. kernel_args =
# loglevel=7 after fast's loglevel=5 gives the console back its info lines,
# which tests read. BOOT=default for the tests of the default setup (run,
# guests, linux, workloads, upload, scaling), so both are covered.
kf_boot() {
	[ "${BOOT:-fast}" = fast ] && printf 'boot = fast\nkernel_args = loglevel=7\n'
}

# kf_config EXTRA: writes $T/kfleetd.ini with this test's state and port 0
kf_config() {
	cat > "$T/kfleetd.ini" <<EOC
[daemon]
state_dir = $T/var
listen = 127.0.0.1:0
log_level = info

[host local]
uri = qemu:///system
slots = ${SLOTS:-2}
cpus = ${CPUS:-auto}
$(kf_boot)

[run]
boot_timeout = ${BOOT_TIMEOUT:-120}
$1

# a benchmark whose cores are taken runs unpinned (and says so) rather than
# waiting: on a 2-core CI machine one core is pinnable, and the tests that
# do not look at pinning should not queue behind it (QUIET_BUSY=wait does)
[quiet]
busy = ${QUIET_BUSY:-share}
EOC
}

# kf_start: starts kfleetd on $T/kfleetd.ini and waits until it serves
kf_start() {
	[ -f "$T/kfleetd.ini" ] || kf_config
	"$BIN/kfleetd" -c "$T/kfleetd.ini" >>"$T/kfleetd.log" 2>&1 &
	KF_PID=$!
	# up to 60 s: it serves before its hosts' KVM probes answer, but a
	# loaded machine is slow to open libvirt and the database
	for _ in $(seq 1 600); do
		# the port of this start's ready line: counted first, so a restart
		# does not take the last start's port
		port=
		[ "$(grep -c 'kfleetd ready' "$T/kfleetd.log")" -ge "${KF_STARTS:-1}" ] &&
			port=$(sed -n 's|.*kfleetd ready: http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/kfleetd.log" | tail -n 1)
		if [ -n "$port" ]; then
			KF_URL=http://127.0.0.1:$port
			KF_STARTS=$(( ${KF_STARTS:-1} + 1 ))
			sqlite3 "$T/var/kfleet.db" "select value from meta where key='instance'" > "$T/instance"
			return 0
		fi
		kill -0 "$KF_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "kfleetd did not start:" >&2; cat "$T/kfleetd.log" >&2
	return 1
}

kf_kill9() { kill -9 "$KF_PID"; wait "$KF_PID" 2>/dev/null; KF_PID=; }
kf_stop() { kill "$KF_PID"; wait "$KF_PID" 2>/dev/null; KF_PID=; }

# kf ARGS: the CLI against this test's daemon
kf() { "$BIN/kfleet" --url "$KF_URL" --token-file "$T/var/token" "$@"; }

# kf_field ID FIELD: one field of a run as JSON (jq-free: sqlite does it)
kf_field() { sqlite3 "$T/var/kfleet.db" "select $2 from runs where id = $1"; }

# kf_outcome ID OUTCOME: run ID ended as OUTCOME; when not, says what it
# ended as and why: its detail, the kernel's report and the tails of its
# output and console, so that a failure on a machine nobody can log into
# (CI's) can still be read
kf_outcome() {
	_o=$(kf_field "$1" outcome)
	[ "$_o" = "$2" ] && return 0
	echo "  run $1: expected '$2', got '$_o': $(kf_field "$1" detail)" >&2
	kf_field "$1" "coalesce(splat, '')" | head -n 40 | sed '/^$/d; s/^/  | /' >&2
	_d=$(kf_field "$1" run_dir)
	for _f in output.txt:10 console.log:25; do
		[ -n "$_d" ] && [ -f "$_d/${_f%:*}" ] || continue
		echo "  run $1: the last lines of ${_f%:*}:" >&2
		tail -n "${_f#*:}" "$_d/${_f%:*}" | sed 's/^/  | /' >&2
	done
	return 1
}

# kf_no_domains [DOMAIN]: no domain of this test's kfleetd (or DOMAIN) is
# left, within 10 s (a run is stored at its guest's poweroff; libvirt ends
# the domain after it)
kf_no_domains() {
	_re="^kf-$(cat "$T/instance")-"
	[ -n "$1" ] && _re="^$1\$"
	for _ in $(seq 1 50); do
		virsh -c qemu:///system list --all --name 2>/dev/null | grep -q "$_re" || return 0
		sleep 0.2
	done
	return 1
}

# db SQL: the test daemon's database
db() { sqlite3 "$T/var/kfleet.db" "$1"; }
# wait_for SECONDS SQL EXPECTED: until the query gives EXPECTED
wait_for() {
	for _ in $(seq 1 $(( $1 * 5 ))); do
		[ "$(db "$2")" = "$3" ] && return 0
		sleep 0.2
	done
	echo "  after $1 s, '$2' gives '$(db "$2")', not '$3'" >&2
	return 1
}

# kf_wait_state ID STATE SECONDS
kf_wait_state() {
	for _ in $(seq 1 $(( $3 * 5 ))); do
		[ "$(kf_field "$1" state)" = "$2" ] && return 0
		sleep 0.2
	done
	echo "  run $1 did not reach state $2 in $3 s (it is $(kf_field "$1" state))" >&2
	return 1
}

# kf_dom PATH: the page at PATH as headless Chromium renders it (its DOM)
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
kf_dom() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--user-data-dir="$T/chromium" --dump-dom "$KF_URL$1" 2>>"$T/chromium.log"
}

kf_done() {
	echo "$NAME: $PASS passed, $FAIL failed"
	[ "$FAIL" -eq 0 ] || { echo "--- kfleetd.log ---"; tail -n 40 "$T/kfleetd.log"; }
	[ "$FAIL" -eq 0 ]
}
