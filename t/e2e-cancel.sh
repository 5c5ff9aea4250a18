#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kfleet cancel on real guests, on a host with one slot: a request of 30
# long runs queued behind a running one is canceled (all 30 at once, none
# started after); the running run is canceled mid-sleep together with a
# queued one (its guest destroyed within seconds, its outcome canceled);
# the run queued after them then starts and passes. A finished run cannot
# be canceled (an error saying how it ended, nothing changed); canceling
# again is harmless; the daemon stays healthy and leaves no guest. And
# submissions of a fake-kbuild series: one testing, its queued runs
# canceled; one canceled while it builds, the rest of its builds not made.
# tier: quick (builds no real kernel, under a minute: make check-quick)
. "$(dirname "$0")/lib.sh"

# wait_db SECONDS SQL VALUE
wait_db() {
	for _ in $(seq 1 $(( $1 * 20 ))); do
		[ "$(db "$2")" = "$3" ] && return 0
		sleep 0.05
	done
	echo "  after $1 s, '$2' gives '$(db "$2")', not '$3'" >&2
	return 1
}
sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
sh "$TOP/t/fake-kbuild/mkseries.sh" "$T/tree" "$T/series" >/dev/null
SLOTS=1 kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts with one slot" kf_start
check "kfleet cancel --help prints its usage" contains "$(kf cancel --help)" "usage: kfleet cancel RUN-ID..."
kf cancel >/dev/null 2>&1; rc=$?
check "kfleet cancel without ids: a usage error" equals "$rc" 2

queue() { kf run --kernel "$KERNEL" --timeout 600 -- "$1" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
first=$(queue 'echo first-started; sleep 600')
req=$(curl -sf -H "Authorization: Bearer $(cat "$T/var/token")" \
	-d "{\"kernel\": \"$KERNEL\", \"patched\": \"$KERNEL\", \"command\": \"sleep 600\", \"repeat\": 15}" \
	"$KF_URL/api/requests" | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
also=$(queue 'echo also; sleep 600')
after=$(queue 'echo after-the-cancel')
check "a run, a request of 30 runs and two more runs queued" test -n "$first" -a -n "$req" -a -n "$also" -a -n "$after"
check "...the request's 30 runs queued" equals "$(sqlite3 "$T/var/kfleet.db" "select count(*) from runs where request_id = $req and state = 'queued'")" 30

# while the first run boots: a submission built and testing, its runs
# queued behind the others, canceled
kf tree add fake "$T/tree" >/dev/null 2>&1
wait_db 30 "select state from trees where name = 'fake'" ready
s1=$(kf submit --tree fake --mbox "$T/series/good.mbox" --arch x86_64 --job metrics-demo --repeat 2 2>&1 | sed -n 's/^submission \([0-9]*\) queued.*/\1/p')
check "a submission is built, its 4 runs queued" wait_db 60 "select count(*) from runs where state = 'queued' and request_id in (select id from requests where submission_id = 0$s1)" 4
out=$(kf cancel --submission "$s1" 2>&1); rc=$?
check "cancel --submission of a testing one: taken" equals "$rc" 0
check "...its 4 queued runs canceled" contains "$out" "submission $s1: 4 queued runs canceled, 0 running stopping"
check "...all of them" equals "$(db "select group_concat(distinct state || ' ' || outcome) from runs where request_id in (select id from requests where submission_id = $s1)")" "done canceled"
check "...its page says canceled" contains "$(curl -sf "$KF_URL/submissions/$s1")" '<span class="canceled">canceled</span></h1>'
# another, canceled while it builds (its x86_64 kernels are the first's;
# arm64's are built, one at a time)
s2=$(kf submit --tree fake --mbox "$T/series/good.mbox" --arch x86_64,arm64 --job metrics-demo 2>&1 | sed -n 's/^submission \([0-9]*\) queued.*/\1/p')
wait_db 30 "select state from submissions where id = 0$s2" building
out=$(kf cancel --submission "$s2" 2>&1); rc=$?
check "cancel --submission while it builds: taken" sh -c "[ $rc = 0 ] && echo '$out' | grep -q 'submission $s2: canceled, its builds not started dropped'"
check "...the builder stops after the build in flight" wait_db 30 "select count(*) from submissions where id = $s2 and state = 'failed' and outcome = 'canceled'" 1
check "...and says so" sh -c "for _ in \$(seq 1 100); do grep -q 'submission $s2: canceled by the user: no more of its builds' '$T/kfleetd.log' && exit 0; sleep 0.1; done; exit 1"
check "...not all its 4 builds made, no request queued" equals "$(db "select (select count(*) < 4 from submission_builds where submission_id = $s2) || ' ' || (select count(*) from requests where submission_id = $s2)")" "1 0"
check "...and it stays canceled" equals "$(db "select state || ' ' || outcome from submissions where id = $s2")" "failed canceled"

# the first run mid-sleep: its command has started
for _ in $(seq 1 600); do
	kf logs --output "$first" 2>/dev/null | grep -q first-started && break
	sleep 0.2
done
check "the first run is running its command" equals "$(kf_field "$first" "state || ' ' || (booted_at > 0)")" "running 1"

out=$(kf cancel --request "$req" 2>&1); rc=$?
check "cancel --request: taken" equals "$rc" 0
check "...saying what it did" contains "$out" "request $req: 30 queued runs canceled, 0 running stopping"
check "...every run of it canceled, none ever started" equals "$(sqlite3 "$T/var/kfleet.db" "select count(*) from runs where request_id = $req and state = 'done' and outcome = 'canceled' and started_at is null and attempt = 0")" 30

dom=$(kf_field "$first" domain)
t0=$(date +%s)
out=$(kf cancel "$first" "$also" 2>&1); rc=$?
check "cancel of two runs, one running and one queued: taken" equals "$rc" 0
check "...the running one stopping, the queued one canceled" has "$out" "run $first: stopping" "run $also: canceled"
check "...the queued one at once" kf_outcome "$also" canceled
check "the running run's guest is gone within 10 s" kf_no_domains "$dom"
kf_wait_state "$first" done 10
check "...its outcome canceled" kf_outcome "$first" canceled
check "...within 10 s of the cancel" test $(( $(date +%s) - t0 )) -le 10
check "...saying so" contains "$(kf_field "$first" detail)" "canceled by the user while it ran"
check "...its output up to the cancel kept" contains "$(kf logs --output "$first")" first-started
check "...tried once, never queued again" equals "$(kf_field "$first" "attempt || ' ' || (select count(*) from attempts where run_id = $first)")" "1 1"

# the run queued after them is the next to start, and passes
kf_wait_state "$after" done 180
check "the run queued after the canceled ones runs and passes" kf_outcome "$after" passed
check "...and none of the request's runs ever started" equals "$(sqlite3 "$T/var/kfleet.db" "select count(*) from runs where request_id = $req and (started_at is not null or outcome != 'canceled')")" 0

# a finished run: a clear error, nothing changed
out=$(kf cancel "$after" 2>&1); rc=$?
check "cancel of a finished run: refused" equals "$rc" 2
check "...saying it is done and how" contains "$out" "409: run $after: nothing to cancel: it is done already (passed)"
check "...and it is still passed" kf_outcome "$after" passed
check "...the API answers 409" equals "$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $(cat "$T/var/token")" "$KF_URL/api/runs/$after/cancel")" 409
check "...and without the token 401" equals "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$KF_URL/api/runs/$first/cancel")" 401

# again: harmless
out=$(kf cancel "$first" 2>&1); rc=$?
check "cancel again: taken, nothing more" sh -c "[ $rc = 0 ] && echo '$out' | grep -q 'run $first: canceled already'"
out=$(kf cancel --request "$req" 2>&1); rc=$?
check "cancel --request again: taken, nothing more" sh -c "[ $rc = 0 ] && echo '$out' | grep -q '0 queued runs canceled, 0 running stopping, 30 canceled before'"
out=$(kf cancel 999999 2>&1); rc=$?
check "cancel of a run that does not exist: an error naming it" sh -c "[ $rc = 2 ] && echo '$out' | grep -q 'run 999999: no such run'"

check "kfleetd is healthy" sh -c "kill -0 $KF_PID && curl -sf '$KF_URL/api/health' | grep -q true"
check "the status page shows the canceled runs as such" contains "$(curl -sf "$KF_URL/")" "<td class=\"canceled\">canceled</td>"
check "no guest of this kfleetd is left" kf_no_domains
kf_stop
kf_done
