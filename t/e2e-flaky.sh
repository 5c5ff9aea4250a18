#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Flaky tests end to end, in real guests: a job whose subtest 'flip' fails
# by the run's id (t/data/jobs-flaky/flip-demo.job: runs 2, 6, 10, ...).
# A request (base and patched, two repeats) sees it pass and fail on the
# patched kernel: "flaky (1 of 2 failed)", never a new failure. Four more
# runs of the patched kernel flip it twice more: the daemon quarantines it
# (>= 2 flips on the same kernel in its newest 20 runs), `kfleet flaky`,
# /api/flaky and /flaky list it with its history. A second request of one
# repeat fails it on patched only, which alone would read as a new failure:
# the patched kernel's other runs make it flaky (3 of 7 failed on the
# patched kernel), and its failure is not counted ("1 quarantined failures
# not counted", exit 0). 10 short runs.
. "$(dirname "$0")/lib.sh"

# matches TEXT ERE: a line of TEXT matches
matches() { printf '%s\n' "$1" | grep -qE "$2" && return 0; echo "  expected a line matching '$2' in: $1" >&2; return 1; }
# pyjson PATH PYTHON: asserts on the JSON of GET PATH, as j
pyjson() {
	curl -sf "$KF_URL$1" > "$T/api.json" || { echo "  GET $1 failed" >&2; return 1; }
	python3 -c "import json, sys; j = json.load(open(sys.argv[1])); $2" "$T/api.json"
}
t0=$(date +%s)

kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/t/data/jobs-flaky|" "$T/kfleetd.ini"
check "kfleetd starts with the flip-demo job" kf_start
cp "$KERNEL" "$T/patched-vmlinuz"

# request 1: runs 1..4, base 1 and 3 pass flip, patched 2 fails and 4 passes
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job flip-demo --repeat 2 --wait 2>&1); rc=$?
check "request 1: flip passed and failed on patched: flaky (1 of 2 failed)" contains "$out" "flaky (1 of 2 failed) flip"
check "request 1: ... not a new failure" lacks "$out" "new failure "
check "request 1: the subtests line counts it flaky" contains "$out" "0 new failures, 0 fixed, 0 still failing, 1 flaky"
check "request 1: its failing run fails the request (not in quarantine yet)" equals "$rc" 1
check "request 1: one flip is not a quarantine" equals "$(db "select count(*) from quarantine")" 0
check "request 1: the JSON says flaky with its counts" pyjson /api/requests/1 '
s = {t["path"]: t for t in j["passfail"]["subtests"]}
f = s["flip"]
assert f["class"] == "flaky" and f["label"] == "flaky (1 of 2 failed)", f
assert f["patched"]["fail"] == 1 and f["patched"]["pass"] == 1 and f["base"]["fail"] == 0, f
assert j["passfail"]["classes"]["new-failure"] == 0, j["passfail"]["classes"]
assert s["steady"]["class"] == "pass"'
page=$(curl -sf "$KF_URL/requests/1")
check "request 1: the page says flaky (1 of 2 failed)" contains "$page" '<td>flip</td><td class="flaky">flaky (1 of 2 failed)</td>'

# runs 5..8 of the patched kernel: 5 P, 6 F, 7 P, 8 P; with 2 F, 4 P before,
# three flips on that kernel: quarantined
out=$(kf run --repeat 4 --job flip-demo --kernel "$T/patched-vmlinuz" --wait 2>&1)
check "four more runs, one of them failed" equals "$(printf '%s\n' "$out" | grep -c 'failed')" 1
check "the daemon quarantined flip, not steady" equals \
	"$(db "select group_concat(path || ' ' || job || ' ' || arch || ' ' || vcpus || ' ' || coalesce(released_at, 'open'), ',') from quarantine")" \
	"flip flip-demo x86_64 1 open"
check "... after a run of the patched kernel" equals "$(db "select since_run_id between 5 and 8 from quarantine")" 1
check "... and logged why" grep -q "test 'flip' of job 'flip-demo' (x86_64, 1 vCPUs) quarantined: 2 flips" "$T/kfleetd.log"
out=$(kf flaky 2>&1)
check "kfleet flaky: the test, job, cell, flip rate and k of n" matches "$out" '^flip +flip-demo +x86_64, 1 vCPU +50% \(3/6\) +2 of 8 +[0-9]{4}-'
check "kfleet flaky: the count and the rule" contains "$out" "1 test in quarantine (2 flips in a test's newest 20 runs on the same kernel put it there, 30 runs without a flip release it)"
kf flaky --json > "$T/flaky.json" 2>&1
check "kfleet flaky --json" python3 -c 'import json, sys; q = json.load(open(sys.argv[1]))["flaky"][0]; assert (q["path"], q["flips"], q["chances"], q["failed"], q["runs"]) == ("flip", 3, 6, 2, 8), q' "$T/flaky.json"
check "GET /api/flaky: the quarantine with its rule" pyjson /api/flaky '
q = j["flaky"]
assert len(q) == 1 and q[0]["path"] == "flip" and q[0]["job"] == "flip-demo", q
assert q[0]["cell"] == "x86_64, 1 vCPU" and abs(q[0]["flip_rate"] - 0.5) < 1e-9, q
assert q[0]["released_at"] is None and q[0]["since"] > 0, q
assert j["rule"]["window"] == 20 and j["rule"]["min_flips"] == 2 and j["rule"]["release_runs"] == 30'
page=$(curl -sf "$KF_URL/flaky")
check "/flaky: the test in quarantine" contains "$page" "<tr><td>flip</td><td><a href=\"/jobs/flip-demo\">"
check "/flaky: its history on the patched kernel, oldest first" contains "$page" \
	"kernel 2 (patched-vmlinuz): <code><a class=\"fail\" href=\"/runs/2\" title=\"run 2\">F</a><a class=\"pass\" href=\"/runs/4\" title=\"run 4\">P</a><a class=\"pass\" href=\"/runs/5\" title=\"run 5\">P</a><a class=\"fail\" href=\"/runs/6\" title=\"run 6\">F</a>"
check "/flaky: and on the base kernel" contains "$page" "kernel 1 ($(basename "$KERNEL")): <code><a class=\"pass\" href=\"/runs/1\""
check "the status page links to /flaky" contains "$(curl -sf "$KF_URL/")" '<a href="/flaky">flaky</a>'

# request 2: runs 9 and 10, patched 10 fails flip, which is in quarantine now
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job flip-demo --repeat 1 --wait 2>&1); rc=$?
check "request 2: its failure is not counted" contains "$out" "1 quarantined failures not counted"
check "request 2: the run failed only by a test in quarantine" contains "$out" "failed (only tests in quarantine failed: not counted)"
check "request 2: the request passes (exit 0)" equals "$rc" 0
check "request 2: flaky by the patched kernel's other runs, quarantined" contains "$out" \
	"flaky (3 of 7 failed on the patched kernel), quarantined flip"
check "request 2: ... not a new failure" lacks "$out" "new failure "
check "request 2: the JSON" pyjson /api/requests/2 '
assert j["passfail"]["quarantined"] == {"tests": 1, "failures": 1}, j["passfail"]["quarantined"]
f = [t for t in j["passfail"]["subtests"] if t["path"] == "flip"][0]
assert f["quarantined"] is True and f["class"] == "flaky", f
assert [r["quarantined_only"] for r in j["runs"]] == [False, True], j["runs"]'
check "request 2: the page says so" contains "$(curl -sf "$KF_URL/requests/2")" "1 quarantined failure not counted"
check "the quarantine's counts follow the new runs" equals "$(db "select flips || ' ' || chances || ' ' || fails || ' ' || runs from quarantine")" "4 8 3 10"
echo "# e2e-flaky: $(( $(date +%s) - t0 )) s"
kf_done
