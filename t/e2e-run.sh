#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# End to end on real guests: kfleetd boots the host's kernel under libvirt
# (qemu:///system) and runs commands; checks outcomes, output, the console
# and the status page for a pass, a failure, a timeout, a kernel panic,
# binary output past the cap, and a guest that floods its console. Then
# storage: a concluded run keeps its initrd's manifest, not the initrd, and
# after a restart with a tiny [storage] budget the pass prunes the large
# files of concluded runs (page and API say so) but never a running run's.
. "$(dirname "$0")/lib.sh"
# the default guest setup (t/lib.sh, kf_boot)
BOOT=default

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
check "pass: outcome passed" kf_outcome "$id_ok" passed
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
tm=$(cat "$(kf_field "$id_ok" run_dir)/timings" 2>&1)
check "pass: where its time went, stage by stage" equals "$(printf '%s\n' "$tm" | cut -d' ' -f1 | tr '\n' ' ')" "prepare create boot command stop conclude "
# the stages add up to no more than the run's own start to end, and the
# boot is most of it (seconds under TCG)
check "...adding up to no more than the run took, the boot the most of it" python3 -c '
import sys
t = dict((k, int(v)) for k, v in (l.split() for l in sys.argv[1].splitlines()))
assert all(v >= 0 for v in t.values()), t
assert sum(t.values()) <= int(sys.argv[2]) + 50, (t, sys.argv[2])
assert t["boot"] == max(t.values()) and t["boot"] > 500, t' "$tm" "$(kf_field "$id_ok" "ended_at - started_at")"
# its outcome stored at the guest's poweroff, libvirt's teardown after it
check "pass: concluded at the guest's poweroff, before libvirt ended QEMU" \
	grep -q "run $id_ok: the guest powered off: concluded" "$T/kfleetd.log"
check "pass: ...and its domain gone soon after" kf_no_domains "$(kf_field "$id_ok" domain)"

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
check "binary: outcome passed" kf_outcome "$id_bin" passed
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

# 7. storage: the initrd of a concluded run is its manifest and its own part
dir=$(kf_field "$id_ok" run_dir)
check "storage: a concluded run keeps no whole initrd" test ! -e "$dir/initrd.img"
check "storage: its manifest and own part are kept" test -s "$dir/initrd.manifest" -a -s "$dir/initrd-run.cpio"
(cd "$dir" && awk '$1 == "part" { print $4 }' initrd.manifest | xargs cat) > "$T/initrd.again"
check "storage: the manifest's parts make the initrd the run booted again" equals \
	"$(sha256sum < "$T/initrd.again" | cut -d' ' -f1) $(stat -c %s "$T/initrd.again")" \
	"$(awk '$1 == "initrd" { print $2, $3 }' "$dir/initrd.manifest")"
# the shared parts' hashes are taken once per file, not per run: those of
# the last run, most of them kept from earlier runs, are still right
last=$(kf_field "$(sqlite3 "$T/var/kfleet.db" "select max(id) from runs where state = 'done'")" run_dir)
check "storage: every part's hash in a later run's manifest is its file's" sh -c "awk '\$1 == \"part\" && \$4 ~ /^\// { print \$2, \$4 }' '$last/initrd.manifest' | while read -r h f; do [ \"\$(sha256sum < \"\$f\" | cut -d' ' -f1)\" = \"\$h\" ] || exit 1; done && grep -q '^part .* /' '$last/initrd.manifest'"
page=$(curl -sf "$KF_URL/runs/$id_ok")
check "storage: the run page shows the manifest" contains "$page" "kept as the manifest of its parts"
check "storage: nothing pruned without a budget" equals "$(sqlite3 "$T/var/kfleet.db" 'select count(*) from pruned_files')" 0

# 8. a tiny budget: restarted, the pass at start prunes the concluded runs'
# large files (16 KiB or more) and the shared archives no run holds
kf_stop
kf_config "output_max = 64K
console_max = 256K
[storage]
budget = 1K
large = 16K
interval = 1"
check "kfleetd restarts with a 1 KiB budget" kf_start
# a run in flight while the passes go on (every second)
id_live=$(kf run --kernel "$KERNEL" --timeout 120 -- 'echo live-run; sleep 25; echo live-done' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
for _ in $(seq 1 300); do
	[ -n "$(kf_field "$id_live" booted_at)" ] && break
	sleep 1
done
sleep 4
ldir=$(kf_field "$id_live" run_dir)
db_q() { sqlite3 "$T/var/kfleet.db" "$1"; }
check "prune: the flood run's console pruned for the budget" equals \
	"$(db_q "select why from pruned_files where run_id = $id_flood and name = 'console.log'")" budget
check "prune: the binary run's output pruned" equals \
	"$(db_q "select count(*) from pruned_files where run_id = $id_bin and name = 'output.txt'")" 1
check "prune: the pruned file is gone" test ! -e "$(kf_field "$id_flood" run_dir)/console.log"
check "prune: small files stay (domain XML, manifest)" test -s "$(kf_field "$id_flood" run_dir)/domain.xml" -a -s "$(kf_field "$id_flood" run_dir)/initrd.manifest"
check "prune: outcome and detail stay in the database" equals "$(kf_field "$id_flood" outcome)" console-flood
check "prune: the passing run's exit code stays" equals "$(kf_field "$id_ok" exit_code)" 0
page=$(curl -sf "$KF_URL/runs/$id_flood")
check "prune: the run page says the console was pruned" contains "$page" "the console (256 KiB) was pruned at"
check "prune: the run page lists it" contains "$page" "<td>console.log</td>"
code=$(curl -s -o "$T/gone.html" -w '%{http_code}' "$KF_URL/runs/$id_flood/console")
check "prune: the console's link answers 410 and says pruned" sh -c "[ '$code' = 410 ] && grep -q 'was pruned' '$T/gone.html'"
check "prune: the API lists it with its size and why" sh -c "curl -sf '$KF_URL/api/runs/$id_flood' | python3 -c 'import json,sys; p=json.load(sys.stdin)[\"pruned\"]; assert any(x[\"file\"]==\"console.log\" and x[\"why\"]==\"budget\" and x[\"bytes\"]>=262144 for x in p), p'"
check "prune: the tail API says the console was pruned, and why" contains "$(curl -sf "$KF_URL/api/runs/$id_flood/tail")" '"pruned":{"at":'
check "prune: kfleet logs says so instead of showing nothing" contains "$(kf logs --console "$id_flood" 2>&1)" "[kfleet: the console ("
check "live: the run is still running" equals "$(kf_field "$id_live" state)" running
check "live: nothing of the running run pruned" equals "$(db_q "select count(*) from pruned_files where run_id = $id_live")" 0
check "live: its initrd and console are there" test -s "$ldir/initrd.img" -a -s "$ldir/console.log"
check "live: the cache files it holds are kept" sh -c "for f in \$(awk '\$1 == \"part\" && \$4 ~ /^\// { print \$4 }' '$ldir/initrd.manifest'); do test -s \$f || exit 1; done"
kf_wait_state "$id_live" done 200
check "live: it passed" kf_outcome "$id_live" passed
sleep 5
check "live: once concluded, its console is pruned too" equals \
	"$(db_q "select count(*) from pruned_files where run_id = $id_live and name = 'console.log'")" 1
check "live: its output (small) is kept" contains "$(cat "$ldir/output.txt")" live-done

# Nothing left behind on the host
check "no domain of this test is left" kf_no_domains
check "daemon still up" sh -c "curl -sf '$KF_URL/api/health' >/dev/null"
kf_done
