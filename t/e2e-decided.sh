#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Requests run until decided, on real guests: a noisy metric with --repeat
# 2 --until-decided --max-runs 4 gets a second round of interleaved pairs
# and stops at the cap naming the metric as uncertain, also across a
# kill -9 of kfleetd between the rounds (the round is not queued twice);
# a steady metric (identical kernels, the same output) stops after the
# first round as decided; the page, the API and `kfleet test --wait` say
# why it stopped. Bad options are refused with what is wrong.
# The noisy case is A/A with the same values on both sides (its job gives
# each pair of runs 900 or 100 in turn, by run id), so no look can call it
# better or worse: random noise here failed about 2% of runs of this test
# at the rule's 1% level per look (and did, once, in this session).
. "$(dirname "$0")/lib.sh"

# one guest at a time: under TCG on a loaded machine two at once can miss
# the kernel's early timer check (an IO-APIC panic), and this test wants
# its rounds to give samples
SLOTS=${SLOTS:-1}
kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/t/data/jobs-decided|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
cp "$KERNEL" "$T/patched-vmlinuz"
# wait_req ID EXPR WANT SECONDS: until the request's EXPR is WANT
wait_req() {
	for _ in $(seq 1 $(( $4 * 2 ))); do
		[ "$(db "select $2 from requests where id = $1")" = "$3" ] && return 0
		sleep 0.5
	done
	echo "  request $1: $2 is '$(db "select $2 from requests where id = $1")', not '$3' after $4 s" >&2
	return 1
}

# refused before anything is queued
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job noisy-demo --max-runs 4 2>&1)
check "--max-runs alone is refused" contains "$out" "--max-runs needs --until-decided"
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job noisy-demo --repeat 3 \
	--until-decided --max-runs 2 2>&1)
check "--max-runs below --repeat is refused" contains "$out" "--max-runs 2: less than --repeat 3"
out=$(curl -s -H "Authorization: Bearer $(cat "$T/var/token")" -d "{\"kernel\": \"$KERNEL\", \"patched\": \"$T/patched-vmlinuz\", \"job\": \"noisy-demo\", \"until_decided\": true, \"max_runs\": 101}" "$KF_URL/api/requests")
check "the API refuses a cap past 100" contains "$out" "max_runs 101: must be from 1 (the first round's runs, repeat) to 100"
out=$(curl -s -H "Authorization: Bearer $(cat "$T/var/token")" -d "{\"kernel\": \"$KERNEL\", \"patched\": \"$T/patched-vmlinuz\", \"job\": \"noisy-demo\", \"until_decided\": 1}" "$KF_URL/api/requests")
check "the API wants until_decided true or false" contains "$out" "field 'until_decided': expected true or false"
check "nothing was queued" equals "$(db "select count(*) from requests")" 0

# (1) noisy: round 1 (2 a side) is uncertain, round 2 brings it to the cap
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job noisy-demo --vcpus 1 \
	--repeat 2 --until-decided --max-runs 4 2>&1)
n=$(printf '%s\n' "$out" | sed -n 's/^request \([0-9]*\) queued.*/\1/p')
check "noisy: the request is queued until decided" contains "$out" "then more until decided"
check "noisy: deciding, at most 4 a side" equals "$(db "select decided || ' ' || max_runs || ' ' || rounds from requests where id = $n")" "deciding 4 1"
check "noisy: a second round is queued after the first" wait_req "$n" rounds 2 400
check "noisy: ... of 2 more pairs, interleaved" equals \
	"$(db "select group_concat(kernel_id = (select base_kernel_id from requests where id = $n), '') from (select kernel_id from runs where request_id = $n order by id)")" "10101010"
check "noisy: why the round was queued" contains "$(db "select why from request_rounds where request_id = $n and n = 2")" "metric ops uncertain at 2 runs a side"
kf_kill9
check "kfleetd starts again after a kill -9" kf_start
check "noisy: it stops at the cap" wait_req "$n" decided cap 500
check "noisy: the round was not queued twice" equals "$(db "select rounds || ' ' || (select count(*) from runs where request_id = $n) || ' ' || (select count(*) from request_rounds where request_id = $n) from requests where id = $n")" "2 8 2"
check "noisy: the reason names the metric" contains "$(db "select stop_reason from requests where id = $n")" "cap reached (4 a side): metric ops still uncertain"
api=$(curl -sf "$KF_URL/api/requests/$n")
check "noisy: the API gives the mode, rounds and the reason" sh -c 'printf "%s" "$1" | python3 -c "
import json, sys
d = json.load(sys.stdin)
u = d[\"decided\"]
assert d[\"done\"] is True, d[\"done\"]
assert u[\"mode\"] == \"until-decided\" and u[\"state\"] == \"cap\" and u[\"rounds\"] == 2, u
assert u[\"runs_per_side\"] == 4 and len(u[\"round_list\"]) == 2, u
assert u[\"stop_reason\"].startswith(\"cap reached (4 a side): metric ops\"), u
assert [m[\"verdict\"] for m in d[\"comparisons\"][0][\"metrics\"]] == [\"uncertain\"], d[\"comparisons\"]
"' sh "$api"
page=$(curl -sf "$KF_URL/requests/$n")
check "noisy: the page says why it stopped" contains "$page" "cap reached (4 a side): metric ops still uncertain"
check "noisy: ... and the mode" contains "$page" "until decided: more interleaved pairs while a metric is uncertain, at most 4 a side"

# (2) steady: the same value on both sides is no change after round 1
out=$(kf test --base "$KERNEL" --patched "$T/patched-vmlinuz" --job steady-demo --vcpus 1 \
	--repeat 2 --until-decided --wait 2>&1); rc=$?
s=$(printf '%s\n' "$out" | sed -n 's/^request \([0-9]*\) queued.*/\1/p')
check "steady: the request passes (exit 0)" equals "$rc" 0
check "steady: decided after the first round" equals "$(db "select decided || ' ' || rounds || ' ' || (select count(*) from runs where request_id = $s) from requests where id = $s")" "decided 1 4"
check "steady: --wait prints the stop reason" contains "$out" "stopped: decided: every metric better/worse/no change: ops no change"
check "steady: ... and the rounds" contains "$out" "until decided: 1 round, 2 runs a side (at most 20)"
check "steady: the table says no change" sh -c 'printf "%s\n" "$1" | grep -E "^ *ops " | grep -q "no change"' sh "$out"
check "steady: the page says it too" contains "$(curl -sf "$KF_URL/requests/$s")" "decided: every metric better/worse/no change: ops no change"
kf_done
