#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/overhead.sh: what kfleet adds to a guest boot. For the same kernel,
# initramfs and command, it times N kfleet runs (queued to result stored,
# from the database's own timestamps) and N bare `virsh create` runs
# (create to the domain gone), interleaved, and prints both medians and
# their ratio. Needs libvirtd (sh .ci/libvirtd.sh) and a built tree (make).
# Usage: bench/overhead.sh [N]   (default 5)
set -e
N=${1:-5}
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
CMD='uname -a; nproc'
. "$(dirname "$0")/lib.sh"
ms() { date +%s%3N; }
# the bare side boots the run's whole initrd, which a run keeps only so
bench_daemon "" "[storage]
keep_initrd = yes"

kfleet_once() {
	id=$(kf run --kernel "$KERNEL" -- "$CMD" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
	while [ "$(db "select state from runs where id = $id")" != done ]; do sleep 0.05; done
	[ "$(db "select outcome from runs where id = $id")" = passed ] || { echo "run $id did not pass" >&2; exit 1; }
	db "select ended_at - queued_at from runs where id = $id"
}

# A first run builds the cached initramfs; its initrd and domain XML are
# what the bare runs boot, so both sides boot the very same files.
kfleet_once >/dev/null
dir=$(db "select run_dir from runs where id = 1")
cp "$dir/initrd.img" "$T/initrd.img"
sed -e "s|<name>.*</name>|<name>kfbench-$$</name>|" \
    -e "s|$dir/initrd.img|$T/initrd.img|" \
    -e "s|$dir/console.log|$T/console.log|" \
    -e "s|$dir/agent.log|$T/agent.log|" \
    -e "s|$dir/agent.sock|$T/agent.sock|" "$dir/domain.xml" > "$T/bare.xml"

# The agent's virtio port blocks until someone reads it: as kfleetd does,
# connect to QEMU's socket and drain it (into agent.log).
drain() {
	python3 - "$T/agent.sock" "$T/agent.log" <<'EOP'
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
for _ in range(3000):
    try:
        s.connect(sys.argv[1]); break
    except OSError:
        time.sleep(0.01)
data, acked = b"", False
with open(sys.argv[2], "wb") as f:
    while True:
        b = s.recv(65536)
        if not b:
            break
        f.write(b)
        data += b
        # as kfleet does: the agent waits up to 10 s for this before poweroff
        if not acked and b" exit " in data:
            s.sendall(b"ack\n")
            acked = True
EOP
}

bare_once() {
	rm -f "$T/console.log" "$T/agent.log" "$T/agent.sock"
	t0=$(ms)
	virsh -q -c qemu:///system create "$T/bare.xml" >/dev/null
	grep -q agent.sock "$T/bare.xml" && drain &
	while virsh -q -c qemu:///system domstate "kfbench-$$" >/dev/null 2>&1; do sleep 0.05; done
	t1=$(ms)
	grep -q 'code=0' "$T/console.log" || { echo "bare run did not finish its command" >&2; exit 1; }
	echo $((t1 - t0))
}

: > "$T/k"; : > "$T/v"
for i in $(seq 1 "$N"); do
	k=$(kfleet_once); v=$(bare_once)
	echo "$k" >> "$T/k"; echo "$v" >> "$T/v"
	printf 'round %d: kfleet %d ms, virsh create %d ms\n' "$i" "$k" "$v"
done
mk=$(med < "$T/k"); mv=$(med < "$T/v")
echo "kernel $KERNEL, accel $(db "select accel from runs where id = 1"), command '$CMD'"
echo "median of $N: kfleet run (queued -> stored) $mk ms; bare virsh create -> stopped $mv ms"
awk -v a="$mk" -v b="$mv" 'BEGIN { printf "overhead ratio kfleet / bare: %.2f\n", a / b }'
