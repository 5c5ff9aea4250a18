#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/storage.sh: bytes a run leaves in the state directory. N runs of a
# job with programs (x86_64, 1 vCPU) with [storage] keep_initrd = yes (what
# kfleet kept before the manifest: each run's whole initrd), then N with
# the default (the manifest and the run's own part), on one state
# directory; prints the bytes per run directory of each (apparent size,
# du -sb) and their ratio, the shared cache they point into, then what a
# pass with a tiny budget frees and what stays per run.
# Usage: bench/storage.sh [N]   (default 5). Needs libvirtd and a built tree.
set -e
N=${1:-5}
KERNEL=${KERNEL:-$(ls /boot/vmlinuz-* | sort -V | tail -n 1)}
JOB=${JOB:-getpgid-rate}
. "$(dirname "$0")/lib.sh"

restart() {
	kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null || true
	bench_daemon "[storage]
$1"
}

# N runs of the job; prints their ids
runs() {
	ids=
	for _ in $(seq 1 "$N"); do
		id=$(kf run --kernel "$KERNEL" --vcpus 1 --job "$JOB" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
		[ -n "$id" ] || { echo "cannot queue a run of $JOB" >&2; exit 1; }
		while [ "$(db "select state from runs where id = $id")" != done ]; do sleep 0.2; done
		[ "$(db "select outcome from runs where id = $id")" = passed ] ||
			{ echo "run $id: $(db "select outcome || ': ' || detail from runs where id = $id")" >&2; exit 1; }
		ids="$ids $id"
	done
	echo "$ids"
}

# The mean bytes of the runs' directories (runs/ID, every attempt)
per_run() {
	t=0
	for id in $1; do
		d=$(dirname "$(db "select run_dir from runs where id = $id")")
		t=$((t + $(du -sb "$d" | cut -f1)))
	done
	echo $((t / N))
}

restart "keep_initrd = yes"
before=$(runs)
b=$(per_run "$before")
restart "keep_initrd = no"
after=$(runs)
a=$(per_run "$after")
cache=$(du -sb "$T/var/cache" | cut -f1)
printf 'runs of %s, %s each side (bytes per run directory, du -sb)\n' "$JOB" "$N"
printf '  whole initrd kept (keep_initrd = yes): %10d\n' "$b"
printf '  manifest + own part (the default):     %10d\n' "$a"
printf '  ratio:                                 %10.1f\n' "$(awk "BEGIN { print $b / $a }")"
printf '  shared cache (kept once, by content):  %10d\n' "$cache"

# A pass with a 1 KiB budget at start: the large files (64 KiB or more) of
# every concluded run, the leftover initrds, the cache no run holds
total0=$(du -sb "$T/var" | cut -f1)
restart "budget = 1K
large = 64K
interval = 3600"
for _ in $(seq 1 100); do grep -q 'storage: pruned' "$T/log" && break; sleep 0.1; done
freed=$(db "select coalesce(sum(bytes), 0) from pruned_files")
files=$(db "select count(*) from pruned_files")
total1=$(du -sb "$T/var" | cut -f1)
printf 'budget pass (budget = 1K, large = 64K)\n'
printf '  state directory before / after:        %10d / %d\n' "$total0" "$total1"
printf '  freed (pruned_files, %3d files):       %10d\n' "$files" "$freed"
printf '  bytes per run after, either side:      %10d / %d\n' "$(per_run "$before")" "$(per_run "$after")"
db "select name, count(*), sum(bytes) from pruned_files group by name order by 3 desc" |
	awk -F'|' '{ sub(/-[0-9a-f]+[.]cpio[.]gz$/, "-HASH.cpio.gz", $1)
		printf "    %-28s %4d files %12d bytes\n", $1, $2, $3 }'
