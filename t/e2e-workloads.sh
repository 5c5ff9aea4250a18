#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The five workloads that ship as jobs (jobs/defs), each in a real guest on
# the stock Debian 6.1 kernel: their programs reach the guest through the
# initrd, their METRIC lines become samples. tcx-attach skips on 6.1 (tcx
# needs 6.6) and says so; the stress jobs run on arm64 too.
. "$(dirname "$0")/lib.sh"
# the default guest setup (t/lib.sh, kf_boot)
BOOT=default

ARM_KERNEL=${KFLEET_TEST_ARM64_KERNEL:-/opt/kfleet/arm64/vmlinuz}
# the host's CPUs not counted (cpus = 0): the 2-vCPU runs overlap on its 2
# cores, as the neighbours' checks below want
QUIET_BUSY=wait CPUS=0 kf_config
check "kfleetd starts" kf_start
jobs=$(kf jobs 2>&1)
for j in sock-filter-churn bpf-trigger uprobe-fork prog-pack-load tcx-attach; do
	check "job $j ships" contains "$jobs" "$j"
done
q() { kf run "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
sfc=$(q --job sock-filter-churn --kernel "$KERNEL" --vcpus 2)
trig=$(q --job bpf-trigger --kernel "$KERNEL" --vcpus 2)
upf=$(q --job uprobe-fork --kernel "$KERNEL" --vcpus 2)
ppl=$(q --job prog-pack-load --kernel "$KERNEL" --vcpus 2)
tcx=$(q --job tcx-attach --kernel "$KERNEL")
asfc=$(q --job sock-filter-churn --arch arm64 --kernel "$ARM_KERNEL" --vcpus 2)
aupf=$(q --job uprobe-fork --arch arm64 --kernel "$ARM_KERNEL" --vcpus 2)
check "seven job runs queued" test -n "$sfc" -a -n "$trig" -a -n "$upf" -a -n "$ppl" -a -n "$tcx" -a -n "$asfc" -a -n "$aupf"
for id in $sfc $trig $upf $ppl $tcx $asfc $aupf; do kf_wait_state "$id" done 600 || break; done

# positive METRIC name of run: the sample is there and above zero
positive() { [ "$(db "select count(*) from samples where run_id = $1 and metric = '$2' and value > 0")" -ge 1 ]; }
for id in $sfc $trig $upf $ppl $asfc $aupf; do
	check "run $id ($(kf_field "$id" job), $(kf_field "$id" arch)) passed" kf_outcome "$id" passed
done
check "sock-filter-churn: sockets per second" positive "$sfc" sockets_per_s
check "sock-filter-churn: setsockopt p99" positive "$sfc" setsockopt_p99
check "bpf-trigger: baseline and kprobe rates" sh -c "$(command -v sqlite3) '$T/var/kfleet.db' \"select count(*) from samples where run_id = $trig and metric in ('syscall-count', 'kprobe', 'tp', 'rawtp') and value > 0\" | grep -qx 4"
check "uprobe-fork: longest fork while busy" positive "$upf" busy.fork_max
check "prog-pack-load: calls per second, base and loaded" sh -c "$(command -v sqlite3) '$T/var/kfleet.db' \"select count(*) from samples where run_id = $ppl and metric in ('base.calls_per_s', 'loaded.calls_per_s') and value > 0\" | grep -qx 2"
check "prog-pack-load: no PMU under TCG: the counter is absent, not zero" sh -c "[ \$($(command -v sqlite3) '$T/var/kfleet.db' \"select count(*) from samples where run_id = $ppl and metric like '%instructions%'\") = 0 ] || [ '$(kf_field "$ppl" accel)' = kvm ]"
check "tcx-attach: skipped on 6.1, saying why" contains "$(kf_field "$tcx" "outcome || ': ' || detail")" "skipped: SKIP: tcx unsupported by this kernel"
check "arm64 sock-filter-churn: sockets per second" positive "$asfc" sockets_per_s
check "arm64 uprobe-fork: longest fork while busy" positive "$aupf" busy.fork_max
# Quiet measurements: a 1-vCPU benchmark gets a host core of its own, the
# 2-vCPU ones only when the host has a core to spare beyond them (one is
# kept for the host); runs that overlapped name each other
nb() { db "select $2 from run_neighbours where run_id = $1"; }
check "tcx-attach (1 vCPU): pinned to a core of its own" equals "$(nb "$tcx" pin)" pinned
check "tcx-attach: its domain XML has the vCPU and emulator pinned" sh -c "grep -q \"<vcpupin vcpu='0' cpuset='$(nb "$tcx" cores)'/>\" '$(kf_field "$tcx" run_dir)/domain.xml' && grep -q '<emulatorpin ' '$(kf_field "$tcx" run_dir)/domain.xml'"
if [ "$(nproc)" -le 2 ]; then
	check "sock-filter-churn (2 vCPUs on $(nproc) cores): unpinned, saying why" contains "$(nb "$sfc" "pin || ': ' || why")" "unpinned: 2 vCPUs: the host has $(nproc) cores and keeps 1 for itself"
	check "its domain XML has no cputune" sh -c "! grep -q '<cputune>' '$(kf_field "$sfc" run_dir)/domain.xml'"
fi
check "every run has its neighbours recorded at its end" equals "$(db "select count(*) from run_neighbours where ended = 1")" 7
pair=$(db "select a.run_id || ' ' || b.run_id from run_neighbours a, run_neighbours b where a.run_id < b.run_id and (' ' || a.runs || ' ') like '% ' || b.run_id || ':%' limit 1")
check "overlapping runs are recorded as neighbours (runs $pair)" test -n "$pair"
check "... on both sides" contains " $(nb "${pair#* }" runs)" " ${pair% *}:"
check "the run's JSON has its neighbours" contains "$(curl -s "$KF_URL/api/runs/$tcx")" '"neighbours":{"attempt":1,"pin":"pinned"'

# A build beside a pinned benchmark: kept off its core (builds = avoid),
# and recorded as its neighbour. The fake tree's build sleeps 147 s (it need
# not end: the daemon's end ends it).
sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
(cd "$T/tree" && awk '{ print } /^\$\(bootimage-file\):/ { print "\t@sleep 147" }' Makefile > M && mv M Makefile &&
	GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@kfleet.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@kfleet.invalid \
	GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null git commit -qam "a slow build")
kf tree add fake "$T/tree" >/dev/null 2>&1
for _ in $(seq 1 100); do [ "$(db "select state from trees")" = ready ] && break; sleep 0.2; done
sub=$(kf submit --tree fake 2>&1 | sed -n 's/^submission \([0-9]*\) queued.*/\1/p')
sleeper() { ps -eo pid=,args= | awk '$2 == "sleep" && $3 == "147" { print $1; exit }'; }
for _ in $(seq 1 300); do [ -n "$(sleeper)" ] && break; sleep 0.2; done
check "the build (submission $sub) is running" test -n "$(sleeper)"
gp=$(q --job getpgid-rate --kernel "$KERNEL" --vcpus 1)
for _ in $(seq 1 300); do [ -n "$(kf_field "$gp" booted_at)" ] && break; sleep 0.2; done
core=$(nb "$gp" cores)
check "getpgid-rate beside the build: pinned" equals "$(nb "$gp" pin)" pinned
check "the build's processes are kept off core $core" sh -c "a=\$(grep Cpus_allowed_list /proc/$(sleeper)/status | awk '{ print \$2 }'); echo \"  allowed: \$a\" >&2; ! printf '%s\n' \"\$a\" | tr ',' '\n' | awk -F- -v c=$core '{ lo = \$1; hi = (NF > 1) ? \$2 : \$1; if (c >= lo && c <= hi) f = 1 } END { exit !f }'"
kf_wait_state "$gp" done 300
check "getpgid-rate passed" kf_outcome "$gp" passed
check "the build is recorded as its neighbour" contains " $(nb "$gp" builds) " " $sub "
check "the run page shows its neighbours" contains "$(curl -s "$KF_URL/runs/$gp")" "builds meanwhile (submissions)"
sleep 1
check "the build is back on every core once the run ended" sh -c "grep -q 'back on every core' '$T/kfleetd.log' && { [ -z \"\$(ps -eo pid=,args= | awk '\$2 == \"sleep\" && \$3 == \"147\"')\" ] || grep -q \"Cpus_allowed_list:.0-$(($(nproc) - 1))\$\" /proc/$(sleeper)/status; }"
kf_done
