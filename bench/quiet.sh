#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/quiet.sh [N]: what quiet measurements buy. N runs (default 5) of a
# CPU-bound metric (getpgid-rate: getpgid() calls per second in a 1-vCPU
# guest, 3 s) on real guests under this machine's libvirtd, one run at a
# time, in four set-ups (five with PAUSE=1), each on a daemon of its own:
#   alone, unpinned          [quiet] pin = no, nothing beside
#   beside a build, share    pin = no, a build beside (builds = share)
#   beside a build, avoid    pin = auto: the guest on a core of its own,
#                            the build kept off it (builds = avoid)
#   beside a build, pause    (PAUSE=1) pin = auto, the build stopped while
#                            each run is in its guest
#   alone, pinned            pin = auto, nothing beside
# The build is a real one through kfleet's builder (sandboxed make of the
# fake kbuild tree, t/fake-kbuild) whose last step keeps 2 CPUs busy for
# HOG_S seconds (default 900: longer than the runs; the daemon's stop
# ends it), like a make -j2 of a kernel. Prints each set-up's median and
# CV, and the CVs' ratios to "alone, unpinned". Needs the binaries (make)
# and libvirtd.
set -e
N=${1:-5}
HOG_S=${HOG_S:-900}
. "$(dirname "$0")/lib.sh"
KERNEL=${KFLEET_TEST_KERNEL:-$(ls /boot/vmlinuz-* 2>/dev/null | sort -V | tail -n 1)}
sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
(
	cd "$T/tree"
	export GIT_AUTHOR_NAME=B GIT_AUTHOR_EMAIL=b@kfleet.invalid GIT_COMMITTER_NAME=B \
		GIT_COMMITTER_EMAIL=b@kfleet.invalid GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	# the hog: two busy loops before the boot image is copied
	w="@timeout $HOG_S sh -c 'while :; do :; done' & timeout $HOG_S sh -c 'while :; do :; done'; true"
	awk -v w="$w" '{ print } /^\$\(bootimage-file\):/ { printf "\t%s\n", w }' Makefile > Makefile.new
	mv Makefile.new Makefile
	git add -A && git commit -qm "hog"
)
hogs() { ps -eo args | grep -c "^sh -c while :; do :; done" || true; }

# one set-up: $1 label, $2 [quiet] section's lines, $3 build (yes/no);
# prints a row of the table
setup() {
	kill $PID 2>/dev/null && wait $PID 2>/dev/null || true
	for _ in $(seq 1 100); do [ "$(hogs)" -eq 0 ] && break; sleep 0.2; done
	rm -rf "$T/var"
	bench_daemon "" "[quiet]
$2"
	if [ "$3" = yes ]; then
		kf tree add bench "$T/tree" >/dev/null
		for _ in $(seq 1 100); do [ "$(db "select state from trees")" = ready ] && break; sleep 0.2; done
		kf submit --tree bench >/dev/null
		for _ in $(seq 1 600); do [ "$(hogs)" -ge 2 ] && break; sleep 0.2; done
		[ "$(hogs)" -ge 2 ] || { echo "$1: the build's hog did not start" >&2; tail "$T/log" >&2; exit 1; }
	fi
	kf run --job getpgid-rate --kernel "$KERNEL" --vcpus 1 --repeat "$N" >/dev/null
	for _ in $(seq 1 $((N * 300))); do
		[ "$(db "select count(*) from runs where state = 'done'")" -ge "$N" ] && break
		sleep 0.2
	done
	vals=$(db "select avg(s.value) from samples s join runs r on r.id = s.run_id
		   where r.outcome = 'passed' and s.metric = 'syscall-count' group by r.id")
	n=$(echo "$vals" | grep -c . || true)
	pinned=$(db "select count(*) from run_neighbours where pin = 'pinned'")
	beside=$(db "select count(*) from run_neighbours where builds is not null and builds not like '%:paused'")
	echo "$vals" | sort -n | awk -v label="$1" -v n="$n" -v p="$pinned" -v b="$beside" \
		-v cvs="$T/cvs" '
		{ v[NR] = $1; s += $1 } END {
			m = s / NR; for (i = 1; i <= NR; i++) ss += (v[i] - m) ^ 2
			sd = NR > 1 ? sqrt(ss / (NR - 1)) : 0
			med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%-24s %3d %7.3f %6.2f%% %7d %7d\n", label, n, med, 100 * sd / m, p, b
			printf "%s\t%.4f\n", label, 100 * sd / m >> cvs
		}'
}

echo "getpgid-rate (1 vCPU, 3 s, M/s), $N runs a set-up one at a time, $(nproc) host CPUs"
printf "%-24s %3s %7s %7s %7s %7s\n" "set-up" "n" "median" "CV" "pinned" "build"
{
	setup "alone, unpinned" "pin = no" no
	setup "beside a build, share" "pin = no
builds = share" yes
	setup "beside a build, avoid" "pin = auto
builds = avoid" yes
	[ -z "$PAUSE" ] || setup "beside a build, pause" "pin = auto
builds = pause" yes
	setup "alone, pinned" "pin = auto" no
}
awk -F '\t' 'NR == 1 { base = $2; printf "\nCV against \"%s\":", $1; next }
	{ printf " %s %.2fx;", $1, base ? $2 / base : 0 } END { printf "\n" }' "$T/cvs"
