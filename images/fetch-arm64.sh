#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Provides the arm64 guest pieces from Debian's arm64 packages (no emulation,
# nothing installed through dpkg) in $KFLEET_ARM64_DIR (/opt/kfleet/arm64):
#   busybox              static arm64 busybox (busybox-static:arm64)
#   vmlinuz              the kernel Image (uncompressed, "ARM\x64" at 0x38)
#   lib/modules/RELEASE/ the kernel package's modules, with modules.dep
#   release              RELEASE (uname -r of that kernel)
#   packages             the package versions these came from
# Idempotent: does nothing when the packages apt offers are the ones already
# there. Runs as root (dpkg --add-architecture, apt-get update). Called at the
# end of .ci/deps.sh. Prints one line saying what it has.
set -eu
umask 022
DEST=${KFLEET_ARM64_DIR:-/opt/kfleet/arm64}
export DEBIAN_FRONTEND=noninteractive
PATH=$PATH:/usr/sbin:/sbin

die() { echo "fetch-arm64: $*" >&2; exit 1; }

updated=0
apt_update() {
	[ "$updated" = 1 ] && return 0
	apt-get update -qq >/dev/null || die "apt-get update failed"
	updated=1
}

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	dpkg --add-architecture arm64
	apt_update
fi

# The kernel package that linux-image-arm64:arm64 points at, e.g.
# linux-image-6.1.0-57-arm64. No candidate means the lists have no arm64
# indexes yet (architecture added by hand, lists cleaned): update once.
kpkg() {
	apt-cache depends linux-image-arm64:arm64 2>/dev/null |
		sed -n 's/^ *|\{0,1\}Depends: \(linux-image-[0-9][^:]*-arm64\)\(:arm64\)\{0,1\}$/\1/p' | head -n 1
}
# Candidate versions of the kernel and busybox packages, one apt-cache call
# (each costs ~1 s where apt keeps no package cache): sets KVER, BVER.
candidates() {
	eval "$(apt-cache policy "$KPKG:arm64" busybox-static:arm64 2>/dev/null | awk '
		/^[^ ]/ { p = ($1 ~ /^busybox-static/) ? "BVER" : "KVER" }
		/^ *Candidate: / { printf "%s=\"%s\"\n", p, $2 }')"
}
resolve() {
	KVER='' BVER=''
	KPKG=$(kpkg)
	[ -n "$KPKG" ] && candidates
	if [ -z "$KPKG" ] || [ -z "$KVER" ] || [ "$KVER" = "(none)" ]; then
		apt_update
		KPKG=$(kpkg)
		[ -n "$KPKG" ] && candidates
	fi
	[ -n "$KPKG" ] || die "no arm64 kernel package: apt-cache depends linux-image-arm64:arm64 names none"
	{ [ -n "$KVER" ] && [ "$KVER" != "(none)" ] && [ -n "$BVER" ] && [ "$BVER" != "(none)" ]; } ||
		die "no candidate for $KPKG:arm64 ($KVER) or busybox-static:arm64 ($BVER)"
}
resolve
WANT="$KPKG:arm64 $KVER
busybox-static:arm64 $BVER"

summary() {
	echo "arm64 guest: $DEST: kernel $(cat "$DEST/release") ($KPKG $KVER), busybox $BVER, $(du -sh "$DEST" | cut -f1)"
}

if [ -f "$DEST/packages" ] && [ "$(cat "$DEST/packages")" = "$WANT" ] &&
	[ -s "$DEST/vmlinuz" ] && [ -s "$DEST/busybox" ] && [ -s "$DEST/release" ] &&
	[ -f "$DEST/lib/modules/$(cat "$DEST/release")/modules.dep" ]; then
	summary
	exit 0
fi

command -v depmod >/dev/null || die "depmod not found (Debian package kmod)"
mkdir -p "$(dirname "$DEST")"
# Work next to DEST (same file system) so the final step is two renames.
TMP=$(mktemp -d "$DEST.tmp.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM HUP
mkdir "$TMP/deb" "$TMP/x" "$TMP/new"
chmod 755 "$TMP" "$TMP/deb"
# apt-get download drops privileges to _apt; let it write there.
id _apt >/dev/null 2>&1 && chown _apt "$TMP/deb"

download() {
	(cd "$TMP/deb" && apt-get download -qq "$KPKG:arm64=$KVER" "busybox-static:arm64=$BVER" >/dev/null 2>"$TMP/apt.err")
}
if ! download; then
	# Stale lists can name versions the mirror no longer has: update, retry.
	[ "$updated" = 1 ] && { cat "$TMP/apt.err" >&2; die "apt-get download failed"; }
	apt_update
	resolve
	rm -f "$TMP"/deb/*.deb
	download || { cat "$TMP/apt.err" >&2; die "apt-get download failed"; }
fi
WANT="$KPKG:arm64 $KVER
busybox-static:arm64 $BVER"
for d in "$TMP"/deb/*.deb; do
	dpkg-deb -x "$d" "$TMP/x"
done

X=$TMP/x
N=$TMP/new
# busybox-static ships /bin/busybox (/usr/bin after a usrmerge in the package)
for b in "$X/bin/busybox" "$X/usr/bin/busybox"; do
	[ -f "$b" ] && { cp "$b" "$N/busybox"; break; }
done
[ -f "$N/busybox" ] || die "no busybox in busybox-static:arm64 $BVER"
# ELF, 64-bit, little endian, e_machine 183 (EM_AARCH64)
if [ "$(od -An -tx1 -j0 -N6 "$N/busybox" | tr -d ' \n')" != 7f454c460201 ] ||
	[ "$(od -An -tu2 -j18 -N2 "$N/busybox" | tr -d ' ')" != 183 ]; then
	die "busybox from busybox-static:arm64 is not an arm64 ELF"
fi

MODROOT=
for m in "$X"/lib/modules/* "$X"/usr/lib/modules/*; do
	[ -d "$m" ] && { MODROOT=$m; break; }
done
[ -n "$MODROOT" ] || die "no modules tree in $KPKG"
REL=$(basename "$MODROOT")
K=
for k in "$X/boot/vmlinuz-$REL" "$X/usr/lib/linux/vmlinuz-$REL"; do
	[ -f "$k" ] && { K=$k; break; }
done
[ -n "$K" ] || die "no vmlinuz-$REL in $KPKG"
# arm64 Image header: magic "ARM\x64" at offset 0x38
[ "$(od -An -tx1 -j56 -N4 "$K" | tr -d ' \n')" = 41524d64 ] ||
	die "$K is not an uncompressed arm64 Image (no ARM\\x64 magic at 0x38)"
cp "$K" "$N/vmlinuz"
mkdir -p "$N/lib/modules"
mv "$MODROOT" "$N/lib/modules/$REL"
[ -f "$X/boot/System.map-$REL" ] && sysmap="-F $X/boot/System.map-$REL" || sysmap=
# shellcheck disable=SC2086
depmod -a -b "$N" $sysmap "$REL" || die "depmod failed for $REL"
[ -s "$N/lib/modules/$REL/modules.dep" ] || die "depmod wrote no modules.dep"
echo "$REL" >"$N/release"
echo "$WANT" >"$N/packages"
chmod -R u=rwX,go=rX "$N"

# Replace the old tree (if any) with the new one.
[ -e "$DEST" ] && mv "$DEST" "$TMP/old"
mv "$N" "$DEST"
chmod 755 "$DEST"
summary
