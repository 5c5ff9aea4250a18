#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/packing.sh: fleet throughput on this host, side by side in one run
# (real guests, x86_64, `true` as the command):
#  - N 1-vCPU runs queued at once, packed by the host's CPUs ([host] cpus =
#    auto, 8 slots so that slots do not bind), against the ideal makespan
#    for the host's CPUs and memory: ceil(N / k) times a run's time, k the
#    runs both allow at once. A run's time is taken two ways: its median
#    within the batch (what the runs took as they were packed, so the ratio
#    is what the scheduling lost) and alone, before (what the host gives
#    one run; under load from elsewhere the two differ);
#  - mixed sizes, two 16-vCPU and ten 1-vCPU runs, against their ideal (a
#    16-vCPU run has the host to itself, the small ones go k at a time);
#  - a 16-vCPU run's wait behind two running 1-vCPU runs with nothing more
#    queued, and behind a stream of 1-vCPU runs (two kept queued), with
#    [run] reserve_after = R and with it off (0) for STREAM_S seconds.
# OVERCOMMIT=1 adds the N runs with CPUs not counted (cpus = 0: 8 slots
# alone, 8 guests on the host's CPUs at once).
# Needs libvirtd (sh .ci/libvirtd.sh) and a built tree (make). Run it alone.
# Usage: bench/packing.sh [N] [R]   (defaults 20 and 15)
set -e
N=${1:-20}
R=${2:-15}
STREAM_S=${STREAM_S:-180}     # how long the stream runs with reserve_after off
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
. "$(dirname "$0")/lib.sh"
trap 'exit 1' INT TERM        # lib.sh's EXIT trap stops kfleetd

# daemon SLOTS CPUS RESERVE: (re)starts kfleetd on the same state directory
daemon() {
	[ -z "$PID" ] || { kill "$PID"; wait "$PID" 2>/dev/null || true; PID=; }
	: > "$T/log"
	BENCH_SLOTS=$1 bench_daemon "cpus = $2" "
[run]
reserve_after = $3"
}
# q VCPUS: queues a run, prints its id
q() { kf run --kernel "$KERNEL" --vcpus "$1" -- true 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
# wait_done FIRST: until every run from FIRST on is done; all must pass
wait_done() {
	while [ "$(db "select count(*) from runs where id >= $1 and state != 'done'")" != 0 ]; do
		sleep 0.2
	done
	bad=$(db "select count(*) from runs where id >= $1 and outcome != 'passed'")
	[ "$bad" = 0 ] || { echo "$bad runs from $1 on did not pass" >&2; db "select id, outcome, detail from runs where id >= $1 and outcome != 'passed'" >&2; exit 1; }
}
# alone VCPUS K: K runs one after another, the median of started to ended (ms)
alone() {
	: > "$T/alone"
	for _ in $(seq 1 "$2"); do
		id=$(q "$1")
		wait_done "$id"
		db "select ended_at - started_at from runs where id = $id" >> "$T/alone"
	done
	imed < "$T/alone"
}
# batch SPEC...: queues runs of these vCPUs at once; prints the makespan
# (first queued to last ended, ms), the median time of its 1-vCPU and of
# its 16-vCPU runs (0: none) and the most runs that went at once
batch() {
	first=
	for v in "$@"; do
		id=$(q "$v")
		[ -n "$first" ] || first=$id
	done
	wait_done "$first"
	echo "$(db "select max(ended_at) - min(queued_at) from runs where id >= $first")" \
	     "$(db "select ended_at - started_at from runs where id >= $first and vcpus = 1" | imed)" \
	     "$(db "select ended_at - started_at from runs where id >= $first and vcpus = 16" | imed)" \
	     "$(db "select max(n) from (select r.id, (select count(*) from runs o where o.id >= $first and o.started_at <= r.started_at and o.ended_at > r.started_at) as n from runs r where r.id >= $first)")"
}
# big_wait STREAM: a 16-vCPU run queued behind two running 1-vCPU runs;
# with STREAM (seconds) more 1-vCPU runs keep coming, two kept queued, so
# that one is there whenever a CPU frees, until the big run starts or
# STREAM s pass. Prints its wait (ms)
# or "-" when it had not started by the stream's end
big_wait() {
	a=$(q 1); q 1 >/dev/null
	while [ "$(db "select count(*) from runs where id >= $a and state = 'running'")" != 2 ]; do sleep 0.1; done
	big=$(q 16)
	t0=$(date +%s)
	while [ "$1" -gt 0 ] && [ "$(db "select state from runs where id = $big")" = queued ] &&
	      [ $(($(date +%s) - t0)) -lt "$1" ]; do
		[ "$(db "select count(*) from runs where id >= $a and state = 'queued' and vcpus = 1")" -ge 2 ] || q 1 >/dev/null
		sleep 0.3
	done
	# with a stream: had it started when the stream ended?
	starved=0
	[ "$1" = 0 ] || [ "$(db "select state from runs where id = $big")" != queued ] || starved=1
	wait_done "$a"
	if [ "$starved" = 1 ]; then
		echo "-"
	else
		db "select started_at - queued_at from runs where id = $big"
	fi
}
imed() { med | awk '{ printf "%d\n", $1 }'; }   # the median, whole ms
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

daemon 1 auto 0
q 1 >/dev/null; wait_done 1          # the initramfs, cached
t1=$(alone 1 3)
t16=$(alone 16 2)
cpus=$(nproc)
mem_mb=$(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo)
k=$(( (mem_mb - 512) / 512 )); [ "$k" -lt "$cpus" ] || k=$cpus

daemon 8 auto 0
set -- $(batch $(seq 1 "$N" | sed 's/.*/1/'))
packed=$1 packed_run=$2 packed_most=$4
if [ -n "$OVERCOMMIT" ]; then
	daemon 8 0 0
	set -- $(batch $(seq 1 "$N" | sed 's/.*/1/'))
	over=$1 over_run=$2 over_most=$4
fi
daemon 8 auto "$R"
set -- $(batch 16 1 1 1 1 16 1 1 1 1 1 1)
mixed=$1 mixed_run=$2 mixed_run16=$3 mixed_most=$4
w_alone=$(big_wait 0)
w_reserve=$(big_wait 600)
daemon 8 auto 0
w_off=$(big_wait "$STREAM_S")

rounds=$(( (N + k - 1) / k ))
# ideal SMALL BIG: the ideal makespan with these run times
ideal_n() { echo $(( rounds * $1 )); }
ideal_m() { echo $(( 2 * $2 + (10 + k - 1) / k * $1 )); }
row() { printf '%-34s %9s %9s %6s %9s %6s %5s\n' "$@"; }
echo "host: $cpus CPUs, $mem_mb MiB; runs of 'true' on $(basename "$KERNEL"), accel $(db "select accel from runs where id = 1"), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "a run alone (started to ended, median): 1 vCPU $t1 ms (of 3), 16 vCPUs $t16 ms (of 2)"
echo "k = $k runs of 1 vCPU at once by CPUs and memory (512 MiB each); a 16-vCPU run takes the host"
echo
row "" "makespan" "ideal" "ratio" "ideal" "ratio" "most"
row "" "ms" "(packed)" "" "(alone)" "" ""
row "$N x 1 vCPU, cpus = auto" "$packed" "$(ideal_n "$packed_run")" "$(ratio "$packed" "$(ideal_n "$packed_run")")" \
	"$(ideal_n "$t1")" "$(ratio "$packed" "$(ideal_n "$t1")")" "$packed_most"
[ -z "$OVERCOMMIT" ] ||
row "$N x 1 vCPU, cpus = 0, 8 slots" "$over" "$(ideal_n "$over_run")" "$(ratio "$over" "$(ideal_n "$over_run")")" \
	"$(ideal_n "$t1")" "$(ratio "$over" "$(ideal_n "$t1")")" "$over_most"
row "2 x 16 + 10 x 1 vCPU, cpus = auto" "$mixed" "$(ideal_m "$mixed_run" "$mixed_run16")" \
	"$(ratio "$mixed" "$(ideal_m "$mixed_run" "$mixed_run16")")" "$(ideal_m "$t1" "$t16")" \
	"$(ratio "$mixed" "$(ideal_m "$t1" "$t16")")" "$mixed_most"
echo "(ideal (packed): from the runs' median times in the batch: 1 vCPU $packed_run ms, and in the"
echo " mixed batch $mixed_run ms and 16 vCPUs $mixed_run16 ms; most: the most runs going at once)"
echo
echo "a 16-vCPU run queued behind two running 1-vCPU runs, its wait (queued to started):"
printf '  %-52s %s\n' "nothing more queued" "$w_alone ms"
printf '  %-52s %s\n' "a stream of 1-vCPU runs, reserve_after = $R s" "$w_reserve ms"
if [ "$w_off" = "-" ]; then
	printf '  %-52s %s\n' "the same stream, reserve_after = 0 (never)" "not started in the stream's $STREAM_S s"
else
	printf '  %-52s %s\n' "the same stream, reserve_after = 0 (never)" "$w_off ms"
fi
