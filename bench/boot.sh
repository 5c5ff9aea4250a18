#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/boot.sh: guest boot and kfleet's overhead per arch and vCPU count.
# For each arch and size it runs, interleaved, N kfleet runs and N bare QEMU
# boots of the very same kernel and initrd (bench/bare-qemu.py), and prints
# the medians of boot-to-agent-hello and of the whole run (kfleet: queued
# to result stored; bare: QEMU start to exit), and kfleet/bare ratios.
# Usage: bench/boot.sh [N] [VCPUS...]   (default: 3, then 1 16 96)
# ARCHES="x86_64 arm64" by default. 96 vCPUs under TCG take minutes each.
# FIRMWARE=qboot gives kfleet's x86_64 guests QEMU's qboot.rom ([host]
# firmware = qboot) while the bare side keeps QEMU's default (SeaBIOS):
# the ratio is then kfleet's fastest setup against bare default QEMU.
# BOOT=fast gives kfleet's guests [host] boot = fast (qboot on x86_64 and
# GUEST_FAST_ARGS on the command line), the bare side again QEMU's
# defaults. BARE_CGROUP=DIR starts bare QEMU in the cgroup DIR (made and
# removed here): libvirt's guests run in its /machine cgroup, which on
# cgroup v1 weighs as much as one task of the host's root, so on a loaded
# host they get less CPU than a bare QEMU beside the load does;
# BARE_CGROUP=/sys/fs/cgroup/cpu/machine/kfleet-bare puts both sides there.
# Under the table, where a kfleet run's time went (medians, ms): queued to
# claimed, then each stage of its "timings" file (orchestrator/run.c:
# prepare = disk, initrd, upload, XML; create = virDomainCreateXML; boot =
# to the agent's hello; command; stop = the exit frame to the guest gone,
# or to its poweroff when the run is concluded then (run.c, off_ends);
# conclude = results and outcome) and the rest to the outcome stored.
set -e
N=${1:-3}; [ $# -gt 0 ] && shift
SIZES=${*:-1 16 96}
ARCHES=${ARCHES:-x86_64 arm64}
X86_KERNEL=${X86_KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
ARM_KERNEL=${ARM_KERNEL:-/opt/kfleet/arm64/vmlinuz}
CMD='uname -r; nproc'
. "$(dirname "$0")/lib.sh"
if [ -n "$BARE_CGROUP" ]; then
	mkdir -p "$BARE_CGROUP"
	trap 'kill $PID 2>/dev/null; rmdir "$BARE_CGROUP"; rm -rf "$T"' EXIT
	export BARE_CGROUP
fi
# the bare side boots the run's whole initrd, which a run keeps only so
bench_daemon "firmware = ${FIRMWARE:-seabios}
boot = ${BOOT:-default}
[run]
boot_timeout = 900
[storage]
keep_initrd = yes"

printf '%-7s %5s | %12s %12s %6s | %12s %12s %6s\n' arch vcpus "kfleet hello" "bare hello" ratio "kfleet run" "bare run" ratio
for arch in $ARCHES; do
	kernel=$X86_KERNEL; [ "$arch" = arm64 ] && kernel=$ARM_KERNEL
	for v in $SIZES; do
		mem=$((512 + v * 16))
		: > "$T/kh"; : > "$T/bh"; : > "$T/kr"; : > "$T/br"; : > "$T/tm"
		for i in $(seq 1 "$N"); do
			id=$(kf run --arch "$arch" --kernel "$kernel" --vcpus "$v" --memory "$mem" \
				--timeout 900 -- "$CMD" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
			while [ "$(db "select state from runs where id = $id")" != done ]; do sleep 0.1; done
			[ "$(db "select outcome from runs where id = $id")" = passed ] ||
				{ echo "run $id: $(db "select outcome || ': ' || detail from runs where id = $id")" >&2; exit 1; }
			db "select booted_at - started_at from runs where id = $id" >> "$T/kh"
			db "select ended_at - queued_at from runs where id = $id" >> "$T/kr"
			rd=$(db "select run_dir from runs where id = $id")
			{ db "select 'queue ' || (started_at - queued_at) || char(10) || 'span ' ||
				(ended_at - started_at) from runs where id = $id"
			  cat "$rd/timings"; } | awk -v i="$i" '{ v[$1] = $2 } $1 != "span" && $1 != "queue" { s += $2 }
				END { for (k in v) if (k != "span") print i, k, v[k]; print i, "store", v["span"] - s }' >> "$T/tm"
			set -- $(python3 "$TOP/bench/bare-qemu.py" "$arch" "$kernel" \
				"$(db "select run_dir from runs where id = $id")/initrd.img" "$v" "$mem")
			echo "$1" >> "$T/bh"; echo "$2" >> "$T/br"
		done
		kh=$(med < "$T/kh"); bh=$(med < "$T/bh"); kr=$(med < "$T/kr"); br=$(med < "$T/br")
		printf '%-7s %5s | %9s ms %9s ms %6.2f | %9s ms %9s ms %6.2f\n' "$arch" "$v" \
			"$kh" "$bh" "$(awk "BEGIN { print $kh / $bh }")" "$kr" "$br" "$(awk "BEGIN { print $kr / $br }")"
		line=""
		for st in queue prepare create boot command stop conclude store; do
			line="$line $st $(awk -v s="$st" '$2 == s { print $3 }' "$T/tm" | med)"
		done
		echo "$arch $v" >> "$T/breakdown"; echo "   $line" >> "$T/breakdown"
	done
done
echo "where a kfleet run's time went, medians in ms (bare QEMU: its hello above is its boot):"
cat "$T/breakdown"
echo "median of $N, interleaved; $(db "select accel from hosts") on this host; kfleet's x86_64 firmware ${FIRMWARE:-seabios}, boot ${BOOT:-default}; bare QEMU's its defaults${BARE_CGROUP:+, in cgroup $BARE_CGROUP}"
