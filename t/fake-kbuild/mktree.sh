#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# mktree.sh DIR: makes at DIR (new or empty) a small git repository that
# behaves like a Linux 6.1 tree for the calls kfleet makes (configure with
# make tinyconfig/defconfig/olddefconfig and scripts/kconfig/merge_config.sh,
# build, modules_install, kernelrelease), in well under a second, from the
# template in t/fake-kbuild/tree (its Makefile says what it imitates).
# The repository: branch master, two commits with a fixed author, committer
# and dates (the same hashes on every host), lightweight tag v6.1 on master.
# DIR/.fake-kernel (untracked, excluded) names the real kernel images the
# fake build copies as bzImage/Image: "x86_64 /boot/vmlinuz-NEWEST" and,
# if it exists, "arm64 /opt/kfleet/arm64/vmlinuz".
# Prints DIR's absolute path.
set -e
if [ $# -ne 1 ]; then
	echo "usage: $0 DIR" >&2
	exit 2
fi
dir=$1
here=$(cd "$(dirname "$0")" && pwd)
if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
	echo "mktree.sh: '$dir' exists and is not empty" >&2
	exit 1
fi
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
cp -R "$here/tree/." "$dir/"
cd "$dir"
find . -type f -exec chmod 644 {} +
chmod 755 scripts/setlocalversion scripts/fake-kernel.sh scripts/kconfig/*.sh

export GIT_AUTHOR_NAME="Fake Kbuild" GIT_AUTHOR_EMAIL="fake-kbuild@kfleet.invalid"
export GIT_COMMITTER_NAME="Fake Kbuild" GIT_COMMITTER_EMAIL="fake-kbuild@kfleet.invalid"
export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
g() { git -c core.autocrlf=false -c commit.gpgsign=false -c core.hooksPath=/dev/null "$@"; }

g init -q -b master .
printf '.fake-kernel\n' >> .git/info/exclude
g add -A -- . ':!Documentation'
GIT_AUTHOR_DATE="1670792400 +0000" GIT_COMMITTER_DATE="1670792400 +0000" \
	g commit -q -m "Linux 6.1 (fake kbuild tree)" \
	-m "The fake kernel tree of kfleet's tests: t/fake-kbuild/mktree.sh."
g add -A
GIT_AUTHOR_DATE="1670796000 +0000" GIT_COMMITTER_DATE="1670796000 +0000" \
	g commit -q -m "Documentation: describe getpgid in the fake tree" \
	-m "Gives test series a documentation-only file to patch." \
	-m "Signed-off-by: Fake Kbuild <fake-kbuild@kfleet.invalid>"
g tag v6.1

k=$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)
{
	[ -n "$k" ] && echo "x86_64 $k"
	[ -f /opt/kfleet/arm64/vmlinuz ] && echo "arm64 /opt/kfleet/arm64/vmlinuz"
	true
} > .fake-kernel
[ -s .fake-kernel ] || echo "mktree.sh: warning: no /boot/vmlinuz-* found: set FAKE_KERNEL for bzImage" >&2
echo "$dir"
