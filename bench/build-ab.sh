#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/build-ab.sh OLD_BIN [ARCH]: bench/build.sh's rows for two sets of
# binaries side by side, interleaved: OLD_BIN (another checkout's
# build/bin, e.g. the commit before a change to the build sandbox) and
# this checkout's, each with a kfleetd and a state of its own, every row
# built by one and then the other (which goes first alternates), so that
# a machine whose load changes during the hour loads both alike. Prints
# each row's time for each side and new/old. A ratio near 1 means the
# change did not make builds slower; the machine's noise shows in the "no
# change" row, which builds nothing either way. AB_ROWS="cold,one file"
# builds only the rows named, AB_ONE_FILE=N the one-file row N times
# (each a child of the last). The rows:
#   cold         the first build of the base commit (empty ccache)
#   no change    the same commit again (the artifact is reused)
#   series       a one-file change as a series on the base (its patched
#                side, built through an overlay of the slot's O=)
#   one file     a child commit that changes that file (the same slot)
#   new slot     the base in a new slot (a fragment that changes nothing)
#   new config   the base with a fragment that changes an option
set -e
old=${1:?usage: bench/build-ab.sh OLD_BIN [ARCH]}
ARCH=${2:-x86_64}
TOP=$(cd "$(dirname "$0")/.." && pwd)
OLD_BIN=$(cd "$old" && pwd)
NEW_BIN=$TOP/${B:-build}/bin
W=$(mktemp -d /tmp/kfleet-ab.XXXXXX)
chmod 755 "$W"
trap 'kill $(cat "$W"/*/pid 2>/dev/null) 2>/dev/null; rm -rf "$W"' EXIT

tree=$(sh "$TOP/kernels/linux-source.sh")
git clone -q --local "$tree" "$W/linux"
sed -i 's|^SYSCALL_DEFINE1(getpgid, pid_t, pid)$|/* bench: one file changed */\n&|' "$W/linux/kernel/sys.c"
git -C "$W/linux" -c user.name=bench -c user.email=bench@localhost commit -q -am "bench: one file"
base=$(git -C "$W/linux" rev-parse HEAD~1)
child=$(git -C "$W/linux" rev-parse HEAD)
git -C "$W/linux" format-patch -q --stdout -1 HEAD > "$W/one.mbox"
# AB_ONE_FILE=N: the "one file" row N times, each a child of the last
# (the same slot, one file changed again), for more than one sample
more=""
for i in $(seq 2 "${AB_ONE_FILE:-1}"); do
	sed -i "s|^/\* bench: one file changed.*\*/$|/* bench: one file changed ($i) */|" "$W/linux/kernel/sys.c"
	git -C "$W/linux" -c user.name=bench -c user.email=bench@localhost commit -q -am "bench: one file ($i)"
	more="$more|one file $i:--base $(git -C "$W/linux" rev-parse HEAD)"
done
printf 'CONFIG_PRINTK=y\n' > "$W/same.config"
printf 'CONFIG_LOG_BUF_SHIFT=18\n' > "$W/other.config"

# start SIDE BIN: a kfleetd of SIDE's own (one slot, no guests needed)
start() {
	d=$W/$1
	mkdir -p "$d"
	echo "$2" > "$d/bin"
	printf '[daemon]\nstate_dir = %s/var\nlisten = 127.0.0.1:0\n[host local]\nuri = qemu:///system\nslots = 1\n' \
		"$d" > "$d/kfleetd.ini"
	"$2/kfleetd" -c "$d/kfleetd.ini" > "$d/log" 2>&1 &
	echo $! > "$d/pid"
	for _ in $(seq 1 300); do
		p=$(sed -n 's|.*kfleetd ready: http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$d/log")
		[ -n "$p" ] && { echo "$p" > "$d/port"; break; }
		sleep 0.1
	done
	[ -s "$d/port" ] || { cat "$d/log" >&2; exit 1; }
	"$2/kfleet" --url "http://127.0.0.1:$(cat "$d/port")" --token-file "$d/var/token" \
		tree add linux "$W/linux" > /dev/null
}
# build SIDE ARGS...: submits, waits, prints the submission's ms
build() {
	d=$W/$1; shift
	id=$("$(cat "$d/bin")/kfleet" --url "http://127.0.0.1:$(cat "$d/port")" --token-file "$d/var/token" \
		submit --tree linux --arch "$ARCH" "$@" 2>&1 | sed -n 's/^submission \([0-9]*\) queued.*/\1/p')
	[ -n "$id" ] || { echo "build-ab.sh: $1: submit failed" >&2; tail "$d/log" >&2; exit 1; }
	while :; do
		st=$(sqlite3 "$d/var/kfleet.db" "select state from submissions where id = $id")
		case $st in queued|building) sleep 0.5 ;; done) break ;;
		*) echo "build-ab.sh: submission $id: $st" >&2; exit 1 ;;
		esac
	done
	sqlite3 "$d/var/kfleet.db" "select ended_at - started_at from submissions where id = $id"
}

start old "$OLD_BIN"
start new "$NEW_BIN"
n=0
printf '%-12s %10s %10s %8s\n' "" "old ms" "new ms" "new/old"
rows="cold:--base $base|no change:--base $base|series:--base $base --mbox $W/one.mbox"
rows="$rows|one file:--base $child$more|new slot:--base $base --fragment $W/same.config"
rows="$rows|new config:--base $base --fragment $W/other.config"
# AB_ROWS=cold,one file: only the rows named (cold is always built first)
IFS='|'
for row in $rows; do
	unset IFS
	name=${row%%:*}; args=${row#*:}
	if [ -n "${AB_ROWS:-}" ] && [ "$name" != cold ]; then
		case ",$AB_ROWS," in *",${name%% [0-9]*},"*) ;; *) continue ;; esac
	fi
	n=$((n + 1))
	if [ $((n % 2)) -eq 1 ]; then
		o=$(build old $args); nw=$(build new $args)
	else
		nw=$(build new $args); o=$(build old $args)
	fi
	printf '%-12s %10d %10d %8.3f\n' "$name" "$o" "$nw" "$(echo "$nw / $o" | bc -l)"
done
echo "build-ab.sh: linux-source-6.1, tinyconfig + kfleet-guest, $ARCH, $(nproc) CPUs; old $OLD_BIN, new $NEW_BIN"
