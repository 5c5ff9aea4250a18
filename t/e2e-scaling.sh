#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Scaling end to end: kfleet test --vcpus 1,2 makes a request per vCPU
# count of metrics-demo on two copies of the host's kernel, real guests
# under libvirt; kfleet test prints each request's table and then the
# vCPUs-as-rows scaling table. The stored samples are then rewritten (ops
# doubles at 2 vCPUs on base, only x1.6 on patched) and the request page,
# in headless Chromium, must draw each metric against vCPUs with a point
# per side and count, the change at 2 vCPUs marked worse; a screenshot of
# the chart is taken (SCREENSHOT=docs/scaling-chart.png keeps it).
. "$(dirname "$0")/lib.sh"
# the default guest setup (t/lib.sh, kf_boot): its tables name the cell
BOOT=default

count() { printf '%s' "$2" | grep -o -F -- "$1" | wc -l | tr -d ' '; }
matches() {
	printf '%s\n' "$1" | grep -q -E -- "$2" && return 0
	echo "  expected a line matching '$2' in: $(printf '%s' "$1" | head -c 1500)" >&2
	return 1
}

check "chromium is installed" test -x "$CHROMIUM"
kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start

out=$(kf test --vcpus 1,x --base "$KERNEL" --patched "$KERNEL" --job metrics-demo 2>&1)
check "a bad --vcpus list is refused, saying what" contains "$out" "--vcpus '1,x': a list of up to 16 different numbers from 1 to 4096"
out=$(kf test --vcpus 2,2 --base "$KERNEL" --patched "$KERNEL" --job metrics-demo 2>&1)
check "...and so is a count given twice" contains "$out" "--vcpus '2,2'"

cp "$KERNEL" "$T/patched-vmlinuz"
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job metrics-demo \
	--repeat 2 --vcpus 1,2 --wait 2>&1)
r1=$(printf '%s\n' "$out" | sed -n 's/^request \([0-9]*\) queued.* (1 vCPU)$/\1/p')
r2=$(printf '%s\n' "$out" | sed -n 's/^request \([0-9]*\) queued.* (2 vCPUs)$/\1/p')
check "kfleet test --vcpus 1,2: a request per count" test -n "$r1" -a -n "$r2"
check "...of four runs each, at its count" equals \
	"$(db "select group_concat(n, ' ') from (select count(*) || 'x' || vcpus as n from runs where request_id in ($r1, $r2) group by request_id order by request_id)")" "4x1 4x2"
check "...all passed" equals "$(db "select group_concat(distinct outcome) from runs where request_id in ($r1, $r2)")" passed
check "...each request's table is its own cell" equals "$(count "x86_64, 1 vcpus," "$out") $(count "x86_64, 2 vcpus," "$out")" "1 1"
check "...then the scaling table" matches "$out" "^scaling: metrics-demo: kernel [0-9]+ .* vs kernel [0-9]+"
check "...of the cell but vCPUs" matches "$out" "^x86_64, [0-9]+ MiB, tcg, host local, vCPUs 1, 2\$"
check "...a table per metric" matches "$out" "^ops \\(M/s, higher is better\\)\$"
check "...with its header" matches "$out" "^vCPUs  n +base +patched +change  verdict\$"
check "...and a row per count (the same kernel: no change in the median)" matches "$out" "^    1  2  125\\.0 +125\\.0 +0\\.0%  "
check "...2 vCPUs too" matches "$out" "^    2  2  125\\.0 +125\\.0 +0\\.0%  "
md=$(kf compare --request "$r1" --markdown 2>&1)
check "kfleet compare --markdown: the scaling table for a cover letter" contains "$md" \
	"| vCPUs | n | base | patched | change | verdict |"
check "...a row per count" matches "$md" "^\\| 2 \\| 2 \\| 125\\.0 \\| 125\\.0 \\| 0\\.0% \\|"

# the samples rewritten: +-1% per run; at 2 vCPUs base doubles, patched x1.6
side="(select case when r.kernel_id = q.base_kernel_id then 0 else 1 end from runs r join requests q on q.id = r.request_id where r.id = samples.run_id)"
vc="(select vcpus from runs where id = samples.run_id)"
db "update samples set value = value * (1 + ((run_id % 3) - 1) / 100.0)
	* (case when $vc = 2 then (case when $side = 0 then 2.0 else 1.6 end) else 1 end)
	where metric = 'ops' and run_id in (select id from runs where request_id in ($r1, $r2))"
# a done request's answers are kept in kfleetd's memory until a run ends
# (web/routes.c): a rewrite behind its back is seen by a new kfleetd
kf_stop
check "kfleetd starts again" kf_start

page=$(kf_dom "/requests/$r2")
check "/requests/ID: a scaling section" contains "$page" '<h2 id="scaling">scaling: base vs patched by vCPUs</h2>'
check "...naming both requests" contains "$page" "<a href=\"/requests/$r1\">request $r1</a> (1 vCPU), <a href=\"/requests/$r2\">request $r2</a> (2 vCPUs)"
check "...a chart per metric" equals "$(count '<svg class="scaling"' "$page")" 2
check "...a base point per count and metric" equals "$(count '<circle class="point base"' "$page")" 4
check "...and a patched one" equals "$(count '<circle class="point patched"' "$page")" 4
check "...the x axis the counts" equals "$(count '<text class="vcpus"' "$page")" 4
check "...the change at 2 vCPUs on ops, -20%" matches "$page" ">-20\\.[0-9]%<title>2 vCPUs: -20\\.[0-9]%, (worse|uncertain)</title>"
check "...and lat_p99, not rewritten, unchanged at 2" contains "$page" ">0.0%<title>2 vCPUs: 0.0%,"
check "...the base doubling in its tooltip" matches "$page" "<title>base at 2 vCPUs: median 25[0-9]\\.[0-9] M/s"
check "...the table as text" matches "$page" "^    2  2  25[0-9]\\.[0-9] +200\\.0 +-20\\.[0-9]%  "
check "...and as markdown" contains "$page" "| vCPUs | n | base | patched | change | verdict |"
sc=$(curl -sf "$KF_URL/api/requests/$r2" | python3 -c '
import json, sys
s = json.load(sys.stdin)["scaling"]
g = s[0]
ops = [m for m in g["metrics"] if m["name"] == "ops"][0]
p2 = [p for p in ops["points"] if p["vcpus"] == 2][0]
print(len(s), g["vcpus"], [r["id"] for r in g["requests"]], ops["unit"], ops["better"],
      len(ops["points"]), p2["base_n"], p2["patched_n"], round(p2["base_median"]),
      round(p2["patched_median"]), round(p2["change_pct"]), p2["verdict"] in ("worse", "uncertain"))
' 2>&1)
check "/api/requests/ID: the scaling, by vCPUs, from both requests, ops at 2 vCPUs -20%" \
	matches "$sc" "^1 \\[1, 2\\] \\[$r1, $r2\\] M/s higher 2 2 2 25[0-9] 200 -20 True\$"
page1=$(kf_dom "/requests/$r1")
check "/requests/ID of the other count: the same section" equals "$(count '<svg class="scaling"' "$page1")" 2

# the chart alone, as the browser draws it
printf '%s' "$page" | tr '\n' '\001' | sed 's/.*\(<svg class="scaling".*\)/\1/; s/\(<\/svg>\).*/\1/' | tr '\001' '\n' > "$T/chart.svg"
check "the first chart is cut out of the page" contains "$(head -c 200 "$T/chart.svg")" "ops against vCPUs"
shot=$T/scaling-chart.png
timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
	--user-data-dir="$T/chromium" --hide-scrollbars --window-size=600,300 \
	--screenshot="$shot" "file://$T/chart.svg" >>"$T/chromium.log" 2>&1
check "a screenshot of the chart" python3 -c '
import sys; d = open(sys.argv[1], "rb").read()
assert d[:8] == b"\x89PNG\r\n\x1a\n" and len(d) > 8000, len(d)' "$shot"
[ -n "$SCREENSHOT" ] && cp "$shot" "$SCREENSHOT"
kf_done
