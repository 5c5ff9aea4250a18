#!/bin/sh
# make demo: kfleet's main job end to end with the embedded defaults.
# Starts libvirtd if nothing serves qemu:///system, starts kfleetd (state
# ./var, web on 127.0.0.1:8080) unless it already runs, then boots the
# newest kernel in /boot in a 2-vCPU guest and runs a command in it.
set -e
B=${B:-build}
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
[ -n "$KERNEL" ] || { echo "demo: no /boot/vmlinuz-*; install linux-image-amd64 or set KERNEL=" >&2; exit 1; }
sh .ci/libvirtd.sh
if ! curl -sf http://127.0.0.1:8080/api/health >/dev/null 2>&1; then
	mkdir -p var
	"$B/bin/kfleetd" -l var/kfleetd.log </dev/null >/dev/null 2>&1 &
	for _ in $(seq 1 100); do
		curl -sf http://127.0.0.1:8080/api/health >/dev/null 2>&1 && break
		sleep 0.2
	done
	echo "demo: kfleetd started (pid $!, log var/kfleetd.log)"
fi
"$B/bin/kfleet" run --wait --kernel "$KERNEL" --vcpus 2 -- 'uname -a; nproc; cat /proc/cmdline'
echo
echo "demo: the status page is at http://127.0.0.1:8080/ (kfleetd keeps running; stop it with: pkill -x kfleetd)"
