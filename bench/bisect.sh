#!/bin/sh
# bench/bisect.sh [N] [CULPRIT]: one bisection of a failing test over N
# commits (default 32) of the fake kbuild tree (t/fake-kbuild), the culprit
# at CULPRIT (default 2N/3), real guests under this machine's libvirtd, and
# what it cost: build rounds against ceil(log2 N) + 1, runs per step, the
# wall time, and the share of it spent building, booting guests and with
# runs waiting in the queue. Needs the binaries (make) and libvirtd.
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
BENCH_SLOTS=2 bench_daemon "" "job_dirs = $T/jobs"
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
boot=$(db "select coalesce(sum(booted_at - started_at), 0) from runs where booted_at is not null")
wait=$(db "select coalesce(sum(started_at - queued_at), 0) from runs where started_at is not null")
bound=$(awk -v n="$N" 'BEGIN { r = 0; while (2 ^ r < n) r++; print r + 1 }')
echo "bisection of $N commits, culprit $C: $(db "select state || ' ' || coalesce(verdict, '') from bisections where id = $id")"
echo "culprit found: $(db "select culprit = '$(git -C "$T/tree" rev-parse bench-culprit)' from bisections where id = $id" | sed 's/1/yes/;s/0/NO/')"
printf '%-28s %s\n' "build rounds (commits built)" "$rounds (bound ceil(log2 N) + 1 = $bound, plus the two ends)"
printf '%-28s %s\n' "steps" "$steps"
printf '%-28s %s\n' "runs" "$runs ($(awk -v r="$runs" -v s="$((steps + 2))" 'BEGIN { printf "%.1f", r / s }') per tested commit)"
printf '%-28s %s ms\n' "wall time" "$wall"
printf '%-28s %s%%\n' "share building" "$(awk -v a="$build" -v w="$wall" 'BEGIN { printf "%.0f", 100 * a / w }')"
printf '%-28s %s%% (summed over 2 slots)\n' "share booting" "$(awk -v a="$boot" -v w="$wall" 'BEGIN { printf "%.0f", 100 * a / w }')"
printf '%-28s %s%% (summed over runs)\n' "share queued" "$(awk -v a="$wait" -v w="$wall" 'BEGIN { printf "%.0f", 100 * a / w }')"
