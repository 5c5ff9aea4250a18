#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/build.sh: what kfleet's build reuse buys on a real tree, Debian's
# linux-source-6.1 at tinyconfig plus kfleet's guest fragment. In one
# kfleetd with an empty ccache, it times (submit to built, from the
# database's own timestamps):
#   cold         the first build of the base commit
#   no change    the same commit submitted again (the artifact is reused)
#   series       the same one-file change as a series on the base (its
#                patched side): a series' build writes O= through an
#                overlay of the slot's, so this is what the overlay costs
#   one file     a child commit that changes one file (kernel/sys.c): the
#                same slot (O= directory), so make rebuilds little
#   new slot     the base commit again in a new slot (a config fragment
#                that changes no option: another config hash, the same
#                .config), which starts from the objects of the first
#                slot, one file away
#   new config   the base commit with a fragment that changes an option
#                (CONFIG_LOG_BUF_SHIFT): a new slot that must not start
#                from another config's objects, so only ccache helps
# and prints each with its ratio to the cold build. Needs libvirt only for
# kfleetd's start; no guest is booted. Usage: bench/build.sh [ARCH]; with
# B=DIR the binaries of the build directory DIR (another checkout's
# build/ to compare two versions in one sitting: bench/build-ab.sh).
set -e
ARCH=${1:-x86_64}
. "$(dirname "$0")/lib.sh"
tree=$(sh "$TOP/kernels/linux-source.sh")
# a clone of our own with one more commit on top of the base
git clone -q --local "$tree" "$T/linux"
sed -i 's|^SYSCALL_DEFINE1(getpgid, pid_t, pid)$|/* bench: one file changed */\n&|' "$T/linux/kernel/sys.c"
git -C "$T/linux" -c user.name=bench -c user.email=bench@localhost commit -q -am "bench: one file"
base=$(git -C "$T/linux" rev-parse HEAD~1)
child=$(git -C "$T/linux" rev-parse HEAD)
git -C "$T/linux" format-patch -q --stdout -1 HEAD > "$T/one.mbox"
bench_daemon
kf tree add linux "$T/linux" >/dev/null
# a fragment that sets what kfleet-guest already sets: a new slot, same kernel
printf 'CONFIG_PRINTK=y\n' > "$T/same.config"
# one that changes an option: a new slot and another kernel
printf 'CONFIG_LOG_BUF_SHIFT=18\n' > "$T/other.config"

build() {
	id=$(kf submit --tree linux --arch "$ARCH" "$@" 2>&1 | sed -n 's/^submission \([0-9]*\) queued.*/\1/p')
	[ -n "$id" ] || { echo "build.sh: submit failed" >&2; tail "$T/log" >&2; exit 1; }
	while :; do
		st=$(db "select state from submissions where id = $id")
		case $st in queued|building) sleep 0.5 ;; done) break ;;
		*) echo "build.sh: submission $id: $st: $(db "select detail from submissions where id = $id")" >&2; exit 1 ;;
		esac
	done
	db "select ended_at - started_at from submissions where id = $id"
}

cold=$(build --base "$base")
same=$(build --base "$base")
series=$(build --base "$base" --mbox "$T/one.mbox")
one=$(build --base "$child")
slot=$(build --base "$base" --fragment "$T/same.config")
cfg=$(build --base "$base" --fragment "$T/other.config")
seeded=$(grep -c "^### kfleet: slot seeded from" "$T"/var/builds/*/build.log | awk -F: '{n += $NF} END {print n}')
echo "build.sh: linux-source-6.1, tinyconfig + kfleet-guest, $ARCH, make -j$(nproc), $(nproc) CPUs; builds seeded from a sibling slot: $seeded"
printf '%-14s %10s %8s\n' "" "ms" "ratio"
for row in "cold:$cold" "no change:$same" "series:$series" "one file:$one" "new slot:$slot" "new config:$cfg"; do
	name=${row%%:*}; v=${row#*:}
	printf '%-14s %10d %8.3f\n' "$name" "$v" "$(echo "$v / $cold" | bc -l)"
done
