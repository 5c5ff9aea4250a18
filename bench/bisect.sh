#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/bisect.sh [N] [CULPRIT]: one bisection of a failing test over N
# commits (default 32) of the fake kbuild tree (t/fake-kbuild), the culprit
# at CULPRIT (default 2N/3), real guests under this machine's libvirtd, and
# what it cost: build rounds against ceil(log2 N) + 1, runs per step, the
# wall time, and the share of it spent building, booting guests and with
# runs waiting in the queue. Needs the binaries (make) and libvirtd.
#   BUILD_S=S       each build takes S seconds more (the fake tree builds in
#                   one): BUILD_LOAD=idle sleeps (a host with CPUs to spare
#                   for builds), BUILD_LOAD=cpu keeps 2 CPUs busy (builds
#                   that compete with the guests, as on 2 cores)
#   SPECULATE=both  the bisection twice, builds ahead off then on ([build]
#                   speculate), side by side with their wall-time ratio;
#                   or no / yes for one of them (default: no)
set -e
N=${1:-32}
C=${2:-$((N * 2 / 3))}
. "$(dirname "$0")/lib.sh"
sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
(
	cd "$T/tree"
	export GIT_AUTHOR_NAME=B GIT_AUTHOR_EMAIL=b@kfleet.invalid GIT_COMMITTER_NAME=B \
		GIT_COMMITTER_EMAIL=b@kfleet.invalid GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
	st=tools/testing/selftests/size
	printf '#!/bin/sh\nexit 0\n' > $st/probe.sh
	chmod 755 $st/probe.sh
	# a longer build: before the boot image is copied, S seconds asleep or
	# with two CPUs busy
	if [ "${BUILD_S:-0}" -gt 0 ]; then
		if [ "${BUILD_LOAD:-idle}" = cpu ]; then
			w="@timeout $BUILD_S sh -c 'while :; do :; done' & timeout $BUILD_S sh -c 'while :; do :; done'; true"
		else
			w="@sleep $BUILD_S"
		fi
		awk -v w="$w" '{ print } /^\$\(bootimage-file\):/ { printf "\t%s\n", w }' Makefile > Makefile.new
		mv Makefile.new Makefile
	fi
	git add -A && git commit -qm "probe" && git tag bench-good
	i=1
	while [ $i -le "$N" ]; do
		echo "$i" > "Documentation/bench-$i.txt"
		[ $i -eq "$C" ] && printf '#!/bin/sh\nexit 1\n' > $st/probe.sh
		git add -A
		GIT_AUTHOR_DATE="$((1670800000 + i * 60)) +0000" \
		GIT_COMMITTER_DATE="$((1670800000 + i * 60)) +0000" git commit -qm "commit $i"
		[ $i -eq "$C" ] && git tag bench-culprit
		i=$((i + 1))
	done
)
mkdir -p "$T/jobs"
cp "$TOP/t/data/jobs-bisect/bisect-probe.job" "$T/jobs/"

# one bisection with builds ahead on or off, on a daemon of its own; sets
# wall and prints its table
bisect_once() {
	kill $PID 2>/dev/null && wait $PID 2>/dev/null
	rm -rf "$T/var"
	BENCH_SLOTS=2 bench_daemon "" "job_dirs = $T/jobs
[build]
speculate = $1"
	kf tree add bench "$T/tree" >/dev/null
	for _ in $(seq 1 100); do [ "$(db "select state from trees")" = ready ] && break; sleep 0.2; done
	t0=$(date +%s%3N)
	kf bisect --tree bench --good bench-good --bad master --job bisect-probe --test size/probe.sh \
		--vcpus 1 --repeat 1 --wait > "$T/out" 2>&1 || true
	t1=$(date +%s%3N)
	id=$(db "select max(id) from bisections")
	wall=$((t1 - t0))
	rounds=$(db "select count(distinct commit_id) from bisection_steps where bisection_id = $id and role in ('step','good','bad')")
	steps=$(db "select count(*) from bisection_steps where bisection_id = $id and role = 'step'")
	runs=$(db "select count(*) from runs where outcome != 'canceled'")
	build=$(db "select coalesce(sum(ms), 0) from builds")
	built=$(db "select count(*) from builds")
	ahead=$(db "select count(*) from submissions where speculative = 1 and outcome is null and detail like 'built ahead%'")
	used=$(db "select count(*) from bisection_speculations sp join bisection_steps st on st.bisection_id = sp.bisection_id and st.commit_id = sp.commit_id")
	boot=$(db "select coalesce(sum(booted_at - started_at), 0) from runs where booted_at is not null")
	wait=$(db "select coalesce(sum(started_at - queued_at), 0) from runs where started_at is not null")
	bound=$(awk -v n="$N" 'BEGIN { r = 0; while (2 ^ r < n) r++; print r + 1 }')
	echo "bisection of $N commits, culprit $C, builds ahead $1: $(db "select state || ' ' || coalesce(verdict, '') from bisections where id = $id")"
	echo "culprit found: $(db "select culprit = '$(git -C "$T/tree" rev-parse bench-culprit)' from bisections where id = $id" | sed 's/1/yes/;s/0/NO/')"
	printf '%-28s %s\n' "build rounds (commits built)" "$rounds (bound ceil(log2 N) + 1 = $bound, plus the two ends)"
	printf '%-28s %s\n' "builds" "$built ($ahead built ahead, $used of them tested)"
	printf '%-28s %s\n' "steps" "$steps"
	printf '%-28s %s\n' "runs" "$runs ($(awk -v r="$runs" -v s="$((steps + 2))" 'BEGIN { printf "%.1f", r / s }') per tested commit)"
	printf '%-28s %s ms\n' "wall time" "$wall"
	printf '%-28s %s%%\n' "share building" "$(awk -v a="$build" -v w="$wall" 'BEGIN { printf "%.0f", 100 * a / w }')"
	printf '%-28s %s%% (summed over 2 slots)\n' "share booting" "$(awk -v a="$boot" -v w="$wall" 'BEGIN { printf "%.0f", 100 * a / w }')"
	printf '%-28s %s%% (summed over runs)\n' "share queued" "$(awk -v a="$wait" -v w="$wall" 'BEGIN { printf "%.0f", 100 * a / w }')"
}

echo "builds: ${BUILD_S:-0} s more each ($([ "${BUILD_S:-0}" -gt 0 ] && echo "${BUILD_LOAD:-idle}" || echo none)), $(nproc) CPUs"
case ${SPECULATE:-no} in
both)
	bisect_once no
	w_off=$wall
	echo
	bisect_once yes
	echo
	echo "wall time, builds ahead on / off: $(awk -v a="$wall" -v b="$w_off" 'BEGIN { printf "%.2f", a / b }')"
	;;
yes|no) bisect_once "$SPECULATE" ;;
*) echo "SPECULATE: both, yes or no" >&2; exit 2 ;;
esac
