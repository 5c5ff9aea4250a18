#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/hosts.sh: what reaching a host by upload costs against handing it
# files. Two kfleetds, one slot each, drive this machine's libvirtd: one as
# qemu:///system (files: paths in the domain XML, console and channel as
# files and a unix socket) and one as a remote host over SSH (qemu+ssh to
# 127.0.0.1:2222, .ci/sshd.sh: kernel, initrd and root image uploaded as
# storage volumes, console and channel as libvirt streams, the overlay
# downloaded for the copy-out). Runs alternate between them, one at a
# time, for a plain command and for the rootfs-probe job (root disk and
# results copy-out); prints the medians of queued-to-stored and of boot
# (started to agent hello) and the upload/files ratios.
# Usage: bench/hosts.sh [N]   (default 3)
set -e
N=${1:-3}
B=${B:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
T=$(mktemp -d /tmp/kfleet-bench.XXXXXX)
chmod 755 "$T"
POOL=kfleet-bench-$$
URI='qemu+ssh://root@127.0.0.1:2222/system?keyfile=/root/.ssh/kfleet-ci&no_verify=1'
PIDS=
cleanup() {
	kill $PIDS 2>/dev/null
	virsh -c qemu:///system pool-destroy $POOL >/dev/null 2>&1
	virsh -c qemu:///system pool-undefine $POOL >/dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
sh "$TOP/.ci/sshd.sh"

# start NAME URI: a kfleetd with its own state; sets PORT_NAME
start() {
	mkdir -p "$T/$1"
	cat > "$T/$1/kfleetd.ini" <<EOC
[daemon]
state_dir = $T/$1/var
listen = 127.0.0.1:0
job_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-rootfs
[host local]
uri = $2
slots = 1
pool = $POOL
pool_path = $T/pool
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
start files qemu:///system
start upload "$URI"

# once NAME ARGS...: one run to its end; prints "total boot" in ms
once() {
	n=$1; shift
	eval "p=\$PORT_$n"
	id=$("$TOP/$B/bin/kfleet" --url "http://127.0.0.1:$p" --token-file "$T/$n/var/token" \
		run --kernel "$KERNEL" "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
	dbf="$T/$n/var/kfleet.db"
	while [ "$(sqlite3 "$dbf" "select state from runs where id = $id")" != done ]; do sleep 0.1; done
	[ "$(sqlite3 "$dbf" "select outcome from runs where id = $id")" = passed ] ||
		{ echo "$n: run $id did not pass" >&2; exit 1; }
	sqlite3 -separator ' ' "$dbf" \
		"select ended_at - queued_at, booted_at - started_at from runs where id = $id"
}
med() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

# first runs build the initramfs, the root image and, by upload, fill the pool
for n in files upload; do once $n -- true >/dev/null; once $n --job rootfs-probe >/dev/null; done
for i in $(seq 1 "$N"); do
	for n in files upload; do
		once $n -- 'uname -r; nproc' >> "$T/$n.plain"
		once $n --job rootfs-probe >> "$T/$n.rootfs"
	done
done
printf '%-8s %-7s | %10s %10s %6s | %10s %10s %6s\n' kind "" "files" "upload" ratio "files" "upload" ratio
printf '%-8s %-7s | %29s | %29s\n' "" "" "queued to stored (ms)" "boot to hello (ms)"
for k in plain rootfs; do
	ft=$(cut -d' ' -f1 "$T/files.$k" | med); ut=$(cut -d' ' -f1 "$T/upload.$k" | med)
	fb=$(cut -d' ' -f2 "$T/files.$k" | med); ub=$(cut -d' ' -f2 "$T/upload.$k" | med)
	printf '%-8s %-7s | %10s %10s %6.2f | %10s %10s %6.2f\n' "$k" "n=$N" "$ft" "$ut" \
		"$(echo "$ut / $ft" | bc -l)" "$fb" "$ub" "$(echo "$ub / $fb" | bc -l)"
done
