#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Jobs end to end: kfleetd loads job files (a broken one is reported with
# file:line and left out), runs them in real guests, parses their output
# with the job's parser, stores every result and sample, and lets them
# decide the outcome: a failing subtest fails the run, exit 4 skips it.
. "$(dirname "$0")/lib.sh"

kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts with a broken job file among the good ones" kf_start
check "the broken job is reported with file:line" grep -q "broken.job:2: name: 'Broken Name'" "$T/kfleetd.log"
jobs=$(kf jobs 2>&1)
check "kfleet jobs lists the good jobs" sh -c "echo '$jobs' | grep -q ktap-demo && echo '$jobs' | grep -q metrics-demo && echo '$jobs' | grep -q skip-demo"
check "...and not the broken one" lacks "$jobs" "Broken"

q() { kf run "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
k=$(q --job ktap-demo --kernel "$KERNEL")
m=$(q --job metrics-demo --kernel "$KERNEL")
s=$(q --job skip-demo --arch arm64 --kernel /opt/kfleet/arm64/vmlinuz)
check "three job runs queued" test -n "$k" -a -n "$m" -a -n "$s"
out=$(kf run --job nosuch --kernel "$KERNEL" 2>&1)
check "an unknown job is refused" contains "$out" "job 'nosuch': no such job"
for id in $k $m $s; do kf_wait_state "$id" done 180 || break; done

check "ktap: three results stored" equals "$(db "select group_concat(path || ':' || status, ' ') from (select * from results where run_id = $k order by path)")" "alpha:pass beta:fail gamma:skip"
check "ktap: the failure's reason kept" equals "$(db "select detail from results where run_id = $k and path = 'beta'")" "it broke"
check "ktap: the run failed although the command exited 0" equals "$(kf_field "$k" "outcome || ' ' || exit_code")" "failed 0"
# a run's results a page at a time, in the run JSON's order (failures first)
page=$(curl -sf "$KF_URL/api/runs/$k/results?offset=1&limit=1")
check "results page: the second row" contains "$page" '"rows":[{"path":"gamma","status":"skip","detail":"not here"}]'
check "results page: ...the total" contains "$page" "\"total\":3,\"rows\""
check "results page: ...and the next page" contains "$page" "\"next\":\"/api/runs/$k/results?offset=2\""
check "results page: the last page has no next" contains "$(curl -sf "$KF_URL/api/runs/$k/results?offset=2")" '"rows":[{"path":"alpha","status":"pass","detail":null}],"next":null'
check "results page: a bad limit refused" equals "$(curl -s -o /dev/null -w '%{http_code}' "$KF_URL/api/runs/$k/results?limit=0")" 400
check "ktap: the detail names the first failure" contains "$(kf_field "$k" detail)" "1 of 3 results did not pass, the first: beta"
check "metrics: four samples" equals "$(db "select count(*) from samples where run_id = $m")" 4
check "metrics: ops in order with units" equals "$(db "select group_concat(value || unit, ' ') from (select * from samples where run_id = $m and metric = 'ops' order by seq)")" "120.0M/s 130.0M/s 125.0M/s"
check "metrics: the run passed" kf_outcome "$m" passed
check "skip: outcome skipped with the reason" equals "$(kf_field "$s" "outcome || ': ' || detail")" "skipped: SKIP: tcx unsupported by this kernel"
show=$(kf show "$k" 2>&1)
check "kfleet show lists the failing result" contains "$show" "beta"
check "the run page shows the results" contains "$(curl -sf "$KF_URL/runs/$k")" "it broke"
check "the API carries the samples" contains "$(curl -sf "$KF_URL/api/runs/$m")" '"metric":"ops"'
# A/A: the same kernel on both sides shows no change (the noise floor)
aa=""
for _ in 1 2 3 4 5 6; do aa="$aa $(q --job metrics-demo --kernel "$KERNEL")"; done
for id in $aa; do kf_wait_state "$id" done 180 || break; done
kid=$(kf_field "$m" kernel_id)
out=$(kf compare --kernels "$kid" "$kid" --job metrics-demo 2>&1)
check "compare A/A: a table with the metric" contains "$out" "ops"
check "compare A/A: no verdict of change" sh -c 'printf "%s\n" "$1" | grep -E "^ *ops " | grep -q "no change"' sh "$out"
check "compare A/A: JSON too" sh -c "curl -sf '$KF_URL/api/compare?a=$kid&b=$kid&job=metrics-demo' | python3 -m json.tool >/dev/null"
# the answer is kept until another run of the kernels ends
c1=$(curl -sf "$KF_URL/api/compare?a=$kid&b=$kid&job=metrics-demo&format=text")
c2=$(curl -sf "$KF_URL/api/compare?a=$kid&b=$kid&job=metrics-demo&format=text")
check "compare: asked again, the same answer" equals "$c2" "$c1"
one=$(q --job metrics-demo --kernel "$KERNEL")
kf_wait_state "$one" done 180
c3=$(curl -sf "$KF_URL/api/compare?a=$kid&b=$kid&job=metrics-demo&format=json")
check "compare: a run that ended since is counted" equals "$(printf '%s' "$c3" | python3 -c 'import json,sys; c=json.load(sys.stdin)["comparisons"][0]["metrics"][0]; print(c["base"]["n"] + c["patched"]["n"])')" 8
# A request: base and patched kernels (here the same image under two
# paths), repeats interleaved, then the before/after table
cp "$KERNEL" "$T/patched-vmlinuz"
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job metrics-demo --repeat 3 --wait 2>&1); rc=$?
check "test: the request passes (exit 0)" equals "$rc" 0
check "test: six runs, base and patched alternating" equals \
	"$(echo "$out" | sed -n 's/^  run [0-9]*  \([a-z]*\) .*/\1/p' | tr '\n' ' ')" "base patched base patched base patched "
check "test: the runs are interleaved in the queue" equals \
	"$(sqlite3 "$T/var/kfleet.db" "select group_concat(kernel_id, ' ') from (select kernel_id from runs where request_id = 1 order by id)")" \
	"$(sqlite3 "$T/var/kfleet.db" "select base_kernel_id || ' ' || patched_kernel_id || ' ' || base_kernel_id || ' ' || patched_kernel_id || ' ' || base_kernel_id || ' ' || patched_kernel_id from requests where id = 1")"
check "test: the before/after table names the metric" sh -c 'printf "%s\n" "$1" | grep -E "^ *ops " | grep -q "no change"' sh "$out"
# results from elsewhere: a kselftest log imported as a run of the kernel
out=$(kf import --kernel "$KERNEL" --parser ktap "$TOP/t/data/jobs/kselftest-run.log" 2>&1)
imp=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9]*\) imported$/\1/p')
check "import: a log becomes a finished run" equals "$(kf_field "$imp" "state || ' ' || accel")" "done imported"
check "import: every result is stored" equals "$(sqlite3 "$T/var/kfleet.db" "select count(*) from results where run_id = $imp")" 20
check "import: the failures fail it, named" contains "$(kf_field "$imp" "outcome || ': ' || detail")" "failed: 5 of 20 results did not pass"
check "import: the log is its output" contains "$(curl -sf "$KF_URL/runs/$imp/output")" "selftests: timers: posix_timers"
out=$(kf import --kernel "$KERNEL" --parser yaml "$TOP/t/data/jobs/kselftest-run.log" 2>&1)
check "import: an unknown parser is refused" contains "$out" "parser 'yaml': not ktap"
# --repeat: separate runs
out=$(kf run --repeat 2 --kernel "$KERNEL" --wait -- 'echo one' 2>&1); rc=$?
check "run --repeat 2: two runs, both passed" equals "$rc $(printf '%s\n' "$out" | grep -c 'queued$') $(printf '%s\n' "$out" | grep -c 'passed')" "0 2 2"
out=$(kf test --base "$KERNEL" --patched "$T/nope" --job metrics-demo 2>&1)
check "test: a missing patched kernel is refused" contains "$out" "kernel '$T/nope': No such file or directory"
kf_done
