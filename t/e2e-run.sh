#!/bin/sh
# End to end on real guests: kfleetd boots the host's kernel under libvirt
# (qemu:///system) and runs commands; checks outcomes, output, the console
# and the status page for a pass, a failure, a timeout, a kernel panic,
# binary output past the cap, and a guest that floods its console.
. "$(dirname "$0")/lib.sh"

kf_config "output_max = 64K
console_max = 256K"
check "kfleetd starts with a fresh state directory" kf_start

# Queue everything first: the two slots run them side by side.
id_ok=$(kf run --kernel "$KERNEL" --vcpus 2 -- 'uname -r; nproc; echo kfleet-says-hi' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id_fail=$(kf run --kernel "$KERNEL" -- 'echo about to fail; exit 3' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id_to=$(kf run --kernel "$KERNEL" --timeout 3 -- 'echo sleeping; sleep 600' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id_panic=$(kf run --kernel "$KERNEL" -- 'echo c > /proc/sysrq-trigger' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id_bin=$(kf run --kernel "$KERNEL" -- 'head -c 200000 /dev/urandom' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
id_flood=$(kf run --kernel "$KERNEL" -- 'yes kfleet-flood-line > /dev/console' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "six runs queued with ids" test -n "$id_ok" -a -n "$id_fail" -a -n "$id_to" -a -n "$id_panic" -a -n "$id_bin" -a -n "$id_flood"

out=$(kf show "$id_ok" 2>&1)
check "queued run shows as queued or running" sh -c "echo '$out' | grep -Eq 'queued|running'"

for id in $id_ok $id_fail $id_to $id_panic $id_bin $id_flood; do
	kf_wait_state "$id" done 300 || break
done

# 1. a passing command: output, exit code, what the guest reported
out=$(kf show "$id_ok" 2>&1)
check "pass: outcome passed" equals "$(kf_field "$id_ok" outcome)" passed
check "pass: exit code 0 stored" equals "$(kf_field "$id_ok" exit_code)" 0
release=$(kf_field "$id_ok" guest_release)
check "pass: output has the guest's uname -r" contains "$out" "$release"
check "pass: uname -r is the booted kernel's" contains "$KERNEL" "$release"
check "pass: nproc in the guest is 2" equals "$(sed -n 2p "$(kf_field "$id_ok" run_dir)/output.txt")" 2
check "pass: output text" contains "$out" kfleet-says-hi
check "pass: accel and machine recorded" sh -c "[ -n '$(kf_field "$id_ok" accel)' ] && echo '$(kf_field "$id_ok" machine)' | grep -q q35"
check "pass: console log kept" grep -q "Run /init as init process" "$(kf_field "$id_ok" run_dir)/console.log"
check "pass: domain XML kept" grep -q "<vcpu>2</vcpu>" "$(kf_field "$id_ok" run_dir)/domain.xml"
check "pass: booted_at between started_at and ended_at" test "$(kf_field "$id_ok" "started_at <= booted_at and booted_at <= ended_at")" = 1

# 2. a failing command
kf show "$id_fail" >/dev/null 2>&1; rc=$?
check "fail: outcome failed with exit code 3" equals "$(kf_field "$id_fail" "outcome || ' ' || exit_code")" "failed 3"
out=$(kf run --kernel "$KERNEL" --wait -- 'exit 7' 2>&1); rc=$?
check "fail: kfleet run --wait exits 1 when the run did not pass" equals "$rc" 1
check "fail: --wait prints the outcome" contains "$out" "exited with code 7"

# 3. a command past its timeout
check "timeout: outcome timeout" equals "$(kf_field "$id_to" outcome)" timeout
check "timeout: output before the timeout kept" contains "$(kf show "$id_to" 2>&1)" sleeping

# 4. a kernel panic from the console
check "panic: outcome crash" equals "$(kf_field "$id_panic" outcome)" crash
check "panic: detail names the panic" contains "$(kf_field "$id_panic" detail)" "Kernel panic - not syncing: sysrq triggered crash"
check "panic: splat holds the call trace" contains "$(kf_field "$id_panic" splat)" "Call Trace"

# 5. binary output past the output cap
check "binary: outcome passed" equals "$(kf_field "$id_bin" outcome)" passed
check "binary: output cut at 64 KiB" equals "$(stat -c %s "$(kf_field "$id_bin" run_dir)/output.txt")" 65536
check "binary: detail says the output was cut" contains "$(kf_field "$id_bin" detail)" "output cut at 65536"
check "binary: JSON API serves it as valid JSON" sh -c "curl -sf '$KF_URL/api/runs/$id_bin' | python3 -m json.tool >/dev/null"

# 6. a console flood ends the run, with the console kept up to the cap
check "flood: outcome console-flood" equals "$(kf_field "$id_flood" outcome)" console-flood
size=$(stat -c %s "$(kf_field "$id_flood" run_dir)/console.log")
check "flood: console kept, cut near 256 KiB ($size bytes)" test "$size" -ge 262144 -a "$size" -le 263000
check "flood: console marks the cut" sh -c "tail -c 200 '$(kf_field "$id_flood" run_dir)/console.log' | grep -q 'console cut at 262144'"

# The status page and the API show the same
page=$(curl -sf "$KF_URL/")
check "page: lists the runs with outcomes" sh -c "echo '$page' | grep -q console-flood && echo '$page' | grep -q passed"
page=$(curl -sf "$KF_URL/runs/$id_ok")
check "page: run page shows the command's output" contains "$page" kfleet-says-hi
check "page: run page links the console" contains "$page" "/runs/$id_ok/console"
check "api: console served" sh -c "curl -sf '$KF_URL/runs/$id_ok/console' | grep -q 'Linux version'"
list=$(kf runs 2>&1)
check "cli: kfleet runs lists every run" sh -c "[ \$(echo '$list' | grep -Ec '^ *[0-9]+ +done') -ge 7 ]"

# Nothing left behind on the host
check "no domain of this test is left" sh -c "! virsh -c qemu:///system list --all --name | grep -q '^kf-$(cat "$T/instance")-'"
check "daemon still up" sh -c "curl -sf '$KF_URL/api/health' >/dev/null"
kf_done
