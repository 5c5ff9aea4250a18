#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The status pages in a real browser: a request of base and patched runs
# (kfleet test, two repeats) shows on /queue while it runs; when it is done,
# headless Chromium loads /, /queue, /hosts, /requests/ID and /runs/ID and
# the rendered DOM must hold the runs grid, the pass/fail per subtest (with
# classes made by editing stored results: a new failure, a flaky one with
# its "k of n failed"), the
# metric comparison and its strip plots; the job's page and API show its
# noise from those runs. SCREENSHOT=FILE keeps a picture of the request page.
. "$(dirname "$0")/lib.sh"

# before A B TEXT: A comes before B in TEXT
before() {
	a=$(printf '%s\n' "$3" | grep -n -m1 -F "$1" | cut -d: -f1)
	b=$(printf '%s\n' "$3" | grep -n -m1 -F "$2" | cut -d: -f1)
	[ -n "$a" ] && [ -n "$b" ] && [ "$a" -lt "$b" ] && return 0
	echo "  expected '$1' (line ${a:-none}) before '$2' (line ${b:-none})" >&2
	return 1
}
count() { printf '%s' "$2" | grep -o -F "$1" | wc -l; }
# line TEXT S1 S2...: one line of TEXT holds all of S1, S2...
line() {
	text=$1; shift
	printf '%s\n' "$text" | while IFS= read -r l; do
		ok=1
		for s in "$@"; do case "$l" in *"$s"*) ;; *) ok=0; break;; esac; done
		[ $ok = 1 ] && exit 7
	done
	[ $? = 7 ] && return 0
	echo "  expected one line with all of: $*" >&2
	return 1
}
# has TEXT S1 S2...: TEXT holds all of them

check "chromium is installed" test -x "$CHROMIUM"
kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/t/data/jobs-pages|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start

cp "$KERNEL" "$T/patched-vmlinuz"
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job pages-demo --repeat 2 2>&1)
rq=$(echo "$out" | sed -n 's/^request \([0-9]*\) queued.*/\1/p')
check "a request of four runs is queued" equals "$(db "select count(*) from runs where request_id = '$rq'")" 4
page=$(kf_dom /queue)
check "/queue: the request with its progress" contains "$page" "<a href=\"/requests/$rq\">request $rq</a>"
check "/queue: its runs, waiting or running" equals "$(count "href=\"/requests/$rq\">$rq<" "$page")" 4
check "/queue: no turnaround without finished runs of the job" contains "$page" "unknown"

for id in $(db "select id from runs where request_id = $rq order by id"); do
	kf_wait_state "$id" done 240 || break
done
check "all four runs passed" equals "$(db "select group_concat(outcome, ' ') from runs where request_id = $rq")" \
	"passed passed passed passed"
b1=$(db "select id from runs where request_id = $rq order by id limit 1 offset 0")
p1=$(db "select id from runs where request_id = $rq order by id limit 1 offset 1")
p2=$(db "select id from runs where request_id = $rq order by id limit 1 offset 3")
# The same kernel on both sides passes everything alike: make the classes
# by hand. beta fails on both patched runs (a new failure), alpha on one base
# run (flaky: the base passed it once too), delta is gone from a patched run.
db "update results set status = 'fail', detail = 'injected' where run_id in ($p1, $p2) and path = 'beta'"
db "update results set status = 'fail' where run_id = $b1 and path = 'alpha'"
db "delete from results where run_id = $p1 and path = 'delta'"

page=$(kf_dom /)
check "/: links to the queue and the hosts" has "$page" 'href="/queue"' 'href="/hosts"'
check "/: the request's runs are listed" contains "$page" "<a href=\"/runs/$p2\">$p2</a>"

page=$(kf_dom /queue)
check "/queue: nothing waiting once done" contains "$page" "nothing is running or waiting"

page=$(kf_dom /hosts)
check "/hosts: the host, healthy" line "$page" '<td>local</td><td class="passed">healthy</td>'
check "/hosts: its QEMU version" contains "$page" "$(db "select qemu_version from hosts where name = 'local'")"
check "/hosts: max vCPUs from libvirt" contains "$page" "<td class=\"num\">$(db "select max_vcpus from hosts where name = 'local'")</td>"

page=$(kf_dom "/requests/$rq")
check "/requests: done, with the job" has "$page" "<h1>request $rq: done</h1>" 'href="/jobs/pages-demo"'
check "/requests: both kernels, named and with their files" has "$page" \
	"<td>kernel 1 ($(basename "$KERNEL"))<br><span class=\"note\">$KERNEL</span>" \
	"<td>kernel 2 (patched-vmlinuz)<br><span class=\"note\">$T/patched-vmlinuz</span>"
check "/requests: the grid has two repeats" contains "$page" "<th>repeat 2</th>"
check "/requests: every run links to its page with its outcome" equals \
	"$(printf '%s' "$page" | grep -o 'href="/runs/[0-9]*">run [0-9]*</a> <span class="passed">passed' | wc -l)" 4
check "/requests: the patched row holds the patched runs" line "$page" '<tr class="patched">' \
	"href=\"/runs/$p1\"" "href=\"/runs/$p2\""
check "/requests: the class counts" contains "$page" \
	'<span class="new-failure">1 new failure</span> · <span class="flaky">1 flaky</span> · <span class="missing">1 missing</span> · <span class="skip">1 skip</span>'
check "/requests: beta is a new failure" contains "$page" \
	'<tr class="new-failure"><td>beta</td><td class="new-failure">new failure</td><td><span class="pass">2 pass</span></td><td><span class="fail">2 fail</span></td></tr>'
check "/requests: alpha is flaky, 1 of 2 failed" contains "$page" '<td>alpha</td><td class="flaky">flaky (1 of 2 failed)</td>'
check "/requests: delta is missing on one patched run" contains "$page" '<span class="missing">1 missing</span></td></tr>'
check "/requests: new failures first" before '<td>beta</td>' '<td>alpha</td>' "$page"
check "/requests: the comparison names both metrics" has "$page" \
	'<tr><td>ops</td><td>M/s</td><td>higher</td><td class="num">2 / 2</td>' \
	'<tr><td>lat_p99</td><td>ms</td><td>lower</td><td class="num">2 / 2</td>'
check "/requests: a strip plot per metric" equals "$(count '<svg class="strip"' "$page")" 2
check "/requests: a dot per run and metric" equals "$(count '<circle class="dot"' "$page")" 8
check "/requests: a median mark per side and metric" equals "$(count '<line class="median"' "$page")" 4
check "/requests: the text table for a commit message" contains "$page" "as text, for a commit message"

page=$(kf_dom "/runs/$p1")
check "/runs: links to its request" contains "$page" "<a href=\"/requests/$rq\">request $rq</a>"
page=$(kf_dom "/requests/999")
check "/requests: an unknown request is a 404 page" contains "$page" "request 999: no such request"

# pyjson PATH PYTHON [ARG...]: asserts on the JSON of GET PATH, as j (the
# ARGs from sys.argv[2])
pyjson() {
	path=$1 code=$2
	shift 2
	curl -sf "$KF_URL$path" > "$T/api.json" || { echo "  GET $path failed" >&2; return 1; }
	python3 -c "import json, sys; j = json.load(open(sys.argv[1])); $code" "$T/api.json" "$@"
}
check "API: the request's pass/fail classes" pyjson "/api/requests/$rq" '
c = j["passfail"]["classes"]
assert (c["new-failure"], c["flaky"], c["missing"], c["skip"], c["pass"]) == (1, 1, 1, 1, 0), c
assert j["passfail"]["subtests"][0]["path"] == "beta"
assert j["passfail"]["subtests"][0]["patched"]["fail"] == 2
assert j["passfail"]["subtests"][1]["label"] == "flaky (1 of 2 failed)", j["passfail"]["subtests"][1]
assert [r["side"] for r in j["runs"]] == ["base", "patched", "base", "patched"]
assert [m["name"] for m in j["comparisons"][0]["metrics"]] == ["lat_p99", "ops"]
assert j["done"] is True'
check "API: the queue, empty" pyjson /api/queue 'assert j["runs"] == [] and j["queued"] == 0, j'
check "API: the hosts" pyjson /api/hosts '
h = j["hosts"][0]
assert h["name"] == "local" and h["healthy"] is True and h["runs_done"] >= 4, h'

# The job's noise: its four runs, two a kernel, pooled within each kernel
# (the SD of the logs of each run's median), recomputed here from the
# database, and the runs a side from the same rule as the verdicts
check "API: the job's noise per metric, from the database" pyjson /api/jobs/pages-demo '
import math, sqlite3, statistics
db = sqlite3.connect(sys.argv[2])
runs = {}
for k, r, m, v in db.execute("select r.kernel_id, r.id, s.metric, s.value from runs r join samples s"
			     " on s.run_id = r.id where r.job = ? and r.outcome = ?", ("pages-demo", "passed")):
	runs.setdefault((m, k, r), []).append(v)
cal = {c["metric"]: c for c in j["calibration"]}
assert sorted(cal) == ["lat_p99", "ops"], cal
# kfleet takes z from the t distribution at 1e6 df: the normal z and
# its first Cornish-Fisher term (the next is below 1e-11). With the
# normal z alone, a count near an integer was one run off (301 against
# 300, once in CI)
z = statistics.NormalDist().inv_cdf(1 - 0.01 / 2)
z += (z ** 3 + z) / (4 * 1e6)
for m, c in cal.items():
	by_k = {}
	for (mm, k, r), v in runs.items():
		if mm == m:
			by_k.setdefault(k, []).append(math.log(statistics.median(v)))
	ss = sum((x - statistics.mean(xs)) ** 2 for xs in by_k.values() for x in xs)
	n = sum(len(xs) for xs in by_k.values())
	assert (c["runs"], c["kernels"], c["arch"]) == (4, 2, "x86_64"), c
	sd = math.sqrt(ss / (n - len(by_k)))
	assert abs(c["cv"] - sd) < 1e-9, (c, sd)
	for r in c["runs_needed"]:
		x = 2 * sd * sd * (z + 0.841621) ** 2 / math.log1p(r["change"]) ** 2
		# within rounding of an integer, either side of it is right
		want = {min(max(math.ceil(y) + 2, 5), 1000) for y in (x * (1 - 1e-8), x * (1 + 1e-8))}
		assert r["runs"] in want, (m, r, x, want)
	assert [r["change"] for r in c["runs_needed"]] == [0.02, 0.05, 0.1], c' "$T/var/kfleet.db"
page=$(kf_dom /jobs/pages-demo)
check "/jobs/NAME: the noise table, a row per metric and cell" has "$page" "<h2>noise</h2>" \
	"<th>runs a side for 5%</th>" "<tr><td>ops</td><td>M/s</td><td>x86_64</td>" \
	"<tr><td>lat_p99</td><td>ms</td><td>x86_64</td>"
check "/jobs/NAME: from four runs on two kernels" line "$page" "<td>ops</td>" "<td>4</td><td>2</td>"
out=$(kf jobs show pages-demo 2>&1)
check "kfleet jobs show: the noise" has "$out" "noise (the runs on one kernel" "KERNELS"
check "kfleet jobs show: a line per metric" line "$out" "ops" "x86_64" "  4       2"

shot=$T/request-page.png
timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --user-data-dir="$T/chromium" \
	--hide-scrollbars --window-size=1280,1600 --screenshot="$shot" "$KF_URL/requests/$rq" \
	>>"$T/chromium.log" 2>&1
check "a screenshot of the request page" python3 -c '
import sys; d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n" and len(d) > 20000, len(d)' "$shot"
[ -n "$SCREENSHOT" ] && cp "$shot" "$SCREENSHOT"
kf_done
