#!/bin/sh
# The five workloads that ship as jobs (jobs/defs), each in a real guest on
# the stock Debian 6.1 kernel: their programs reach the guest through the
# initrd, their METRIC lines become samples. tcx-attach skips on 6.1 (tcx
# needs 6.6) and says so; the stress jobs run on arm64 too.
. "$(dirname "$0")/lib.sh"

ARM_KERNEL=${KFLEET_TEST_ARM64_KERNEL:-/opt/kfleet/arm64/vmlinuz}
kf_config
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

db() { sqlite3 "$T/var/kfleet.db" "$1"; }
# positive METRIC name of run: the sample is there and above zero
positive() { [ "$(db "select count(*) from samples where run_id = $1 and metric = '$2' and value > 0")" -ge 1 ]; }
for id in $sfc $trig $upf $ppl $asfc $aupf; do
	check "run $id ($(kf_field "$id" job), $(kf_field "$id" arch)) passed" equals "$(kf_field "$id" outcome)" passed
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
kf_done
