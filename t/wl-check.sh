#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# wl-check.sh: boots a workload program (guest/workloads/) in a bare QEMU guest
# under TCG, without kfleetd: an initramfs of busybox, the given programs in
# /w and an /init that mounts proc, sys, dev, tmp and debugfs (not tracefs:
# the programs mount it), loads the given modules and runs the command.
# Prints the command's output and its exit status ("wl-check: exit N").
#   t/wl-check.sh ARCH BINDIR 'COMMAND' [MODULE.ko ...]
#   e.g. t/wl-check.sh x86_64 /tmp/wl-build/x86_64 '/w/sock-filter-churn -s 5'
# Environment: KERNEL, BUSYBOX, SMP (2), MEM (1024 MiB), TIMEOUT (300 s),
# ACCEL (tcg,thread=multi), QEMU_OPTS (more qemu options).
set -eu

[ $# -ge 3 ] || { echo "usage: $0 ARCH BINDIR COMMAND [MODULE.ko ...]" >&2; exit 2; }
arch=$1 bindir=$2 cmd=$3
shift 3
case $arch in
x86_64)
	: "${KERNEL:=$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}"
	: "${BUSYBOX:=/bin/busybox}"
	qemu="qemu-system-x86_64 -M q35" console=ttyS0 ;;
arm64)
	: "${KERNEL:=/opt/kfleet/arm64/vmlinuz}"
	: "${BUSYBOX:=/opt/kfleet/arm64/busybox}"
	qemu="qemu-system-aarch64 -M virt,gic-version=3 -cpu cortex-a57" console=ttyAMA0 ;;
*)
	echo "wl-check: arch '$arch' is not x86_64 or arm64" >&2; exit 2 ;;
esac

tmp=$(mktemp -d /tmp/wl-check.XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
root=$tmp/root
mkdir -p "$root/bin" "$root/w" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/lib/modules"
cp "$BUSYBOX" "$root/bin/busybox"
cp "$bindir"/* "$root/w/"
for m in "$@"; do cp "$m" "$root/lib/modules/"; done
printf '%s\n' "$cmd" > "$root/cmd"
cat > "$root/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug
for m in /lib/modules/*.ko; do [ -e "$m" ] && insmod "$m"; done
echo "wl-check: begin"
sh /cmd
echo "wl-check: exit $?"
poweroff -f
EOF
chmod +x "$root/init"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$tmp/initrd"

# shellcheck disable=SC2086
timeout "${TIMEOUT:-300}" $qemu ${QEMU_OPTS:-} -accel "${ACCEL:-tcg,thread=multi}" -smp "${SMP:-2}" -m "${MEM:-1024}" \
	-kernel "$KERNEL" -initrd "$tmp/initrd" -append "console=$console panic=-1 quiet" \
	-nographic -no-reboot < /dev/null > "$tmp/console" 2>&1 || true
tr -d '\r' < "$tmp/console" | sed -n '/wl-check: begin/,/^wl-check: exit/p' | sed 's/.*wl-check: begin/wl-check: begin/'
grep -q '^wl-check: exit' "$tmp/console" || { echo "wl-check: no exit status; console:";
	tr -d '\r' < "$tmp/console" | tail -n 40; exit 1; }
