#!/bin/sh
# fake-kernel.sh ARCH SRCTREE: prints the real, bootable kernel image the fake
# build copies to arch/*/boot/. The first of: $FAKE_KERNEL; the "ARCH PATH"
# line of SRCTREE/.fake-kernel (mktree.sh writes it, untracked, so that the
# tree's commits do not depend on the host); the same file next to the
# repository a worktree or clone came from; the newest /boot/vmlinuz-* for
# x86_64, /opt/kfleet/arm64/vmlinuz for arm64.
arch=$1 srctree=$2
if [ -n "$FAKE_KERNEL" ]; then
	echo "$FAKE_KERNEL"
	exit 0
fi
from_file() {
	[ -f "$1" ] && awk -v a="$arch" '$1 == a { print $2; exit }' "$1"
}
k=$(from_file "$srctree/.fake-kernel")
if [ -z "$k" ]; then
	common=$(cd "$srctree" && git rev-parse --path-format=absolute --git-common-dir 2>/dev/null)
	[ -n "$common" ] && k=$(from_file "$(dirname "$common")/.fake-kernel")
fi
if [ -z "$k" ]; then
	case $arch in
	x86_64) k=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1) ;;
	arm64) k=/opt/kfleet/arm64/vmlinuz ;;
	esac
fi
if [ -z "$k" ] || [ ! -r "$k" ]; then
	echo "fake-kbuild: no bootable $arch kernel to copy ('${k:-none}'): set FAKE_KERNEL or write $srctree/.fake-kernel" >&2
	exit 1
fi
echo "$k"
