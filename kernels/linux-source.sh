#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kernels/linux-source.sh [DEST]: turns Debian's linux-source-6.1 package
# (/usr/src/linux-source-6.1.tar.xz) into a git repository kfleet can clone,
# worktree and apply series to, once. DEST defaults to
# $KFLEET_CACHE_DIR/trees/linux-source-6.1 (KFLEET_CACHE_DIR defaults to
# /var/cache/kfleet). The repository: branch master, one commit of the whole
# tarball (its .gitignore ignores "/*", so files are added with -f) with a
# fixed author, committer and date, so the same tarball gives the same
# commit id on every host, and the annotated tag v6.1-debian on it.
# Idempotent: a DEST that already has the tag is left alone. Prints DEST's
# absolute path on stdout; progress goes to stderr. Takes about 30 s.
set -e
tarball=${KFLEET_LINUX_SOURCE_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
dest=${1:-${KFLEET_CACHE_DIR:-/var/cache/kfleet}/trees/linux-source-6.1}
tag=v6.1-debian

if git -C "$dest" rev-parse -q --verify "refs/tags/$tag^{commit}" >/dev/null 2>&1; then
	(cd "$dest" && pwd)
	exit 0
fi
if [ ! -r "$tarball" ]; then
	echo "linux-source.sh: '$tarball' not found: install the Debian package linux-source-6.1 (apt-get install linux-source-6.1)" >&2
	exit 1
fi
if [ -e "$dest" ] && [ -n "$(ls -A "$dest" 2>/dev/null)" ]; then
	echo "linux-source.sh: '$dest' exists but has no tag $tag: remove it and run again" >&2
	exit 1
fi

mkdir -p "$(dirname "$dest")"
tmp=$(mktemp -d "$dest.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
echo "linux-source.sh: extracting $tarball" >&2
xz -T0 -dc "$tarball" | tar -x -C "$tmp" --strip-components=1 --no-same-owner
version=$(sed -n -e 's/^VERSION = //p' -e 's/^PATCHLEVEL = //p' -e 's/^SUBLEVEL = //p' "$tmp/Makefile" | paste -sd.)
debversion=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || true)

echo "linux-source.sh: committing linux $version to git" >&2
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME=kfleet GIT_AUTHOR_EMAIL=kfleet@kfleet.invalid
export GIT_COMMITTER_NAME=kfleet GIT_COMMITTER_EMAIL=kfleet@kfleet.invalid
export GIT_AUTHOR_DATE="1670792400 +0000" GIT_COMMITTER_DATE="1670792400 +0000"
g() { git -C "$tmp" -c core.autocrlf=false -c commit.gpgsign=false -c tag.gpgSign=false -c gc.auto=0 "$@"; }
g init -q -b master
g add -f -A
g commit -q -m "linux $version (Debian linux-source-6.1${debversion:+ $debversion})" \
	-m "Every file of $(basename "$tarball"), committed by kfleet's kernels/linux-source.sh."
g tag -a -m "linux $version as Debian's linux-source-6.1${debversion:+ $debversion} ships it" "$tag"

rm -rf "$dest" 2>/dev/null || true
mv "$tmp" "$dest"
trap - EXIT
(cd "$dest" && pwd)
