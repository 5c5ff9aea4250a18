#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/rootfs.sh: what a job on a root disk costs against the same command
# in the initramfs. Two kfleetds, one slot each, on this machine's libvirtd:
# "stream" as shipped (the agent sends the results directory as an archive
# on its channel before the guest stops) and "disk" with results_stream = 0
# (the results are copied out of the stopped guest's overlay by libguestfs,
# as before). Three kinds of run alternate, one at a time: the command in
# the initramfs with no root disk ("plain", on the stream daemon), and the
# same command on a Debian root disk (coreutils) leaving a text file and
# 100 kB in its results directory, on each daemon. Prints the medians of
# queued-to-stored and of boot (started to agent hello), and each kind's
# ratio to plain.
# Usage: bench/rootfs.sh [N]   (default 3)
set -e
N=${1:-3}
B=${B:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
T=$(mktemp -d /tmp/kfleet-bench.XXXXXX)
chmod 755 "$T"
PIDS=
trap 'kill $PIDS 2>/dev/null; rm -rf "$T"' EXIT

CMD='mkdir -p "$R/sub"; echo hello > "$R/a.txt"; head -c 100000 /dev/zero > "$R/sub/zeros.bin"; uname -r; nproc'
mkdir -p "$T/jobs"
cat > "$T/jobs/bench-plain.job" <<EOJ
[job]
name = bench-plain
kind = stress
command = R=/tmp/out; $CMD
EOJ
cat > "$T/jobs/bench-rootfs.job" <<EOJ
[job]
name = bench-rootfs
kind = stress
rootfs = coreutils
results = /srv/out
command = R=\$KFLEET_RESULTS; $CMD
EOJ

# start NAME EXTRA-RUN-CONFIG: a kfleetd with its own state; sets PORT_NAME
start() {
	mkdir -p "$T/$1"
	cat > "$T/$1/kfleetd.ini" <<EOC
[daemon]
state_dir = $T/$1/var
listen = 127.0.0.1:0
job_dirs = $T/jobs
[host local]
uri = qemu:///system
slots = 1
[run]
$2
EOC
	"$TOP/$B/bin/kfleetd" -c "$T/$1/kfleetd.ini" >"$T/$1/log" 2>&1 &
	PIDS="$PIDS $!"
	for _ in $(seq 1 300); do
		p=$(sed -n 's|.*kfleetd ready: http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/$1/log")
		[ -n "$p" ] && { eval "PORT_$1=$p"; return 0; }
		sleep 0.1
	done
	cat "$T/$1/log"
	exit 1
}
start stream ""
start disk "results_stream = 0"

# once NAME JOB: one run to its end; prints "total boot" in ms
once() {
	eval "p=\$PORT_$1"
	id=$("$TOP/$B/bin/kfleet" --url "http://127.0.0.1:$p" --token-file "$T/$1/var/token" \
		run --kernel "$KERNEL" --job "$2" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
	dbf="$T/$1/var/kfleet.db"
	while [ "$(sqlite3 "$dbf" "select state from runs where id = $id")" != done ]; do sleep 0.1; done
	[ "$(sqlite3 "$dbf" "select outcome from runs where id = $id")" = passed ] ||
		{ echo "$1: run $id of $2 did not pass" >&2; exit 1; }
	dir=$(sqlite3 "$dbf" "select run_dir from runs where id = $id")
	[ "$2" = bench-plain ] || [ "$(stat -c %s "$dir/results/sub/zeros.bin")" = 100000 ] ||
		{ echo "$1: run $id: results missing" >&2; exit 1; }
	sqlite3 -separator ' ' "$dbf" \
		"select ended_at - queued_at, booted_at - started_at from runs where id = $id"
}
med() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# first runs build the initramfs archives and the root image
once stream bench-plain >/dev/null
once stream bench-rootfs >/dev/null
once disk bench-rootfs >/dev/null
for i in $(seq 1 "$N"); do
	once stream bench-plain >> "$T/k.plain"
	once stream bench-rootfs >> "$T/k.stream"
	once disk bench-rootfs >> "$T/k.disk"
done
pt=$(cut -d" " -f1 "$T/k.plain" | med); pb=$(cut -d" " -f2 "$T/k.plain" | med)
printf '%-24s | %10s %6s | %10s %6s\n' "kind (n=$N)" "total ms" "/plain" "boot ms" "/plain"
for k in plain stream disk; do
	t=$(cut -d' ' -f1 "$T/k.$k" | med); b=$(cut -d' ' -f2 "$T/k.$k" | med)
	case $k in
	plain) what="initramfs, no disk";;
	stream) what="root disk, streamed";;
	disk) what="root disk, disk copy";;
	esac
	printf '%-24s | %10s %6.2f | %10s %6.2f\n' "$what" "$t" "$(echo "$t / $pt" | bc -l)" \
		"$b" "$(echo "$b / $pb" | bc -l)"
done
