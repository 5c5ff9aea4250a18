#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Bisections end to end on the fake kbuild tree (t/fake-kbuild/mkbisect.sh:
# ten commits after v6.1, one that does not build, a test that starts
# failing, one that starts failing in ~70% of runs, a metric that drops by
# 20%), with real guests: a failing test is bisected to its commit through
# a skip, checked by revert, and git's own `git bisect replay` of kfleet's
# log names the same commit; a metric regression is bisected, with kfleetd
# killed -9 in the middle and restarted, no decided step redone; a flaky
# test is bisected with the runs its rate needs; bad input is refused
# before anything is queued; a kernel crash is bisected by its signature,
# a commit with another crash skipped; a bisection is canceled.
. "$(dirname "$0")/lib.sh"

sh "$TOP/t/fake-kbuild/mkbisect.sh" "$T/tree" >/dev/null
rev() { git -C "$T/tree" rev-parse "$1"; }
# builds ahead on (the fake tree builds in a second: they cost nothing here)
SLOTS=2 kf_config "memory_mb = 256

[build]
speculate = yes"
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-bisect|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
kf tree add fake "$T/tree" >/dev/null 2>&1
for _ in $(seq 1 100); do [ "$(db "select state from trees where name = 'fake'")" = ready ] && break; sleep 0.2; done
check "the tree is cloned" equals "$(db "select state from trees where name = 'fake'")" ready

# bad input: each refused with what and where, nothing queued
bad() { kf bisect --tree fake --job bisect-probe --vcpus 1 "$@" 2>&1; }
check "an unknown tree is refused" contains "$(kf bisect --tree nope --good v6.1 --bad v6.1-end --job bisect-probe 2>&1)" "tree 'nope': no such tree"
check "a revision that does not exist is refused" contains "$(bad --good v6.0 --bad v6.1-end)" "good 'v6.0': no such revision in tree 'fake'"
check "good == bad is refused" contains "$(bad --good v6.1 --bad v6.1)" "good and bad are the same commit"
check "good after bad is refused" contains "$(bad --good v6.1-end --bad v6.1)" "is not an ancestor of bad"
check "an unknown job is refused" contains "$(kf bisect --tree fake --good v6.1 --bad v6.1-end --job nope 2>&1)" "job 'nope': no such job"
check "a metric the job does not report is refused" contains "$(kf bisect --tree fake --good v6.1 --bad v6.1-end --job bisect-metric --metric lat 2>&1)" "metric 'lat': job 'bisect-metric' does not report it (it reports: ops)"
check "a test and a metric at once are refused" contains "$(bad --good v6.1 --bad v6.1-end --test a --metric b)" "one at most"
check "...and nothing was queued" equals "$(db "select count(*) from submissions") $(db "select count(*) from runs")" "0 0"

# a failing test, through the commit that does not build
out=$(kf bisect --tree fake --good bisect-base --bad v6.1-end --job bisect-probe --test size/probe.sh --vcpus 1 --repeat 2 --wait 2>&1)
rc=$?
b1=$(db "select max(id) from bisections")
check "test: kfleet bisect --wait exits 0 (found and verified)" equals "$rc" 0
check "test: the culprit is the commit that broke the probe" equals "$(db "select culprit from bisections where id = $b1")" "$(rev culprit-test)"
check "test: verified by its revert on bad" equals "$(db "select verdict from bisections where id = $b1")" verified
check "test: the commit that does not build was skipped, not called bad" equals "$(db "select answer from bisection_steps where bisection_id = $b1 and commit_id = '$(rev nobuild)'")" skip
check "test: ...with the build's failure as the reason" contains "$(db "select why from bisection_steps where bisection_id = $b1 and commit_id = '$(rev nobuild)'")" "build-failed"
check "test: a line per step was printed" contains "$out" "step 1 of ~4: $(rev nobuild | cut -c1-12) \"src: a change that does not compile\" (4 commits left), 0 runs: skip: does not build"
check "test: while a step ran, where it was (its runs so far)" sh -c "printf '%s\n' \"\$0\" | grep -Eq '^  [0-9a-f]{12}: [0-9]+ runs? done$'" "$out"
check "test: the report names the first bad commit and its author" contains "$out" "first bad commit: $(rev culprit-test)
  \"mm: break the probe\"
  author: Fake Kbuild <fake-kbuild@kfleet.invalid>"
steps=$(db "select count(*) from bisection_steps where bisection_id = $b1 and role = 'step' and answer != 'skip'")
check "test: at most ceil(log2 10) + 1 decided steps" test "$steps" -le 5
kf bisection "$b1" --log > "$T/b1.log"
git clone -q "$T/tree" "$T/replay"
check "test: git bisect replay of the log names the same commit" sh -c "cd '$T/replay' && git bisect replay '$T/b1.log' | grep -q '^$(rev culprit-test) is the first bad commit'"
curl -s "$KF_URL/bisections/$b1" > "$T/page.html"
check "test: the page shows the culprit and the steps" sh -c "grep -q 'mm: break the probe' '$T/page.html' && grep -q 'does not compile' '$T/page.html'"
check "test: kfleet bisections lists it" contains "$(kf bisections 2>&1)" "size/probe.sh"
check "test: a step's kernel was built ahead, while the step before it ran, and reused" test "$(db "select count(*) from bisection_steps st where st.bisection_id = $b1 and st.role = 'step' and exists (select 1 from bisection_speculations sp join submissions s on s.id = sp.submission_id where sp.bisection_id = $b1 and sp.commit_id = st.commit_id and s.state = 'done' and s.ended_at <= st.created_at) and exists (select 1 from bisection_submissions bs join submission_builds sb on sb.submission_id = bs.submission_id where bs.step_id = st.id and sb.reused = 1)")" -ge 1
check "test: no build ahead is left queued" equals "$(db "select count(*) from submissions where speculative = 1 and state = 'queued' and id in (select submission_id from bisection_speculations where bisection_id = $b1)")" 0

# a metric regression; kfleetd killed -9 after the first decided step
kf bisect --tree fake --good bisect-base --bad culprit-test --job bisect-metric --metric ops --vcpus 1 --repeat 6 >/dev/null 2>&1
b2=$(db "select max(id) from bisections")
for _ in $(seq 1 4500); do
	[ "$(db "select count(*) from bisection_steps where bisection_id = $b2 and role = 'step' and answer is not null")" -ge 1 ] && break
	sleep 0.2
done
before=$(db "select group_concat(id || ':' || answer || ':' || decided_at, ' ') from bisection_steps where bisection_id = $b2 and answer is not null order by n")
check "metric: a step was decided before the kill" test -n "$before"
kf_kill9
check "kfleetd starts again" kf_start
for _ in $(seq 1 6000); do
	case $(db "select state from bisections where id = $b2") in done|failed|canceled) break;; esac
	sleep 0.2
done
check "metric: done after the restart" equals "$(db "select state from bisections where id = $b2")" done
check "metric: the culprit is the slower commit" equals "$(db "select culprit from bisections where id = $b2")" "$(rev culprit-metric)"
check "metric: verified by its revert" equals "$(db "select verdict from bisections where id = $b2")" verified
after=$(db "select group_concat(id || ':' || answer || ':' || decided_at, ' ') from bisection_steps where bisection_id = $b2 and id in (select id from bisection_steps where bisection_id = $b2 and answer is not null order by n limit $(echo "$before" | wc -w)) order by n")
check "metric: no decided step was redone" equals "$after" "$before"
check "metric: no commit was tested twice as a step" equals "$(db "select count(*) from (select commit_id from bisection_steps where bisection_id = $b2 and role = 'step' group by commit_id having count(*) > 1)")" 0
check "metric: the ends differ by about -20%" sh -c "'$BIN/kfleet' --url '$KF_URL' bisection '$b2' | grep -Eq 'the ends differ by -(1[5-9]|2[0-5])\.'"
check "metric: the JSON has a median per step" equals "$(kf bisection "$b2" --json | grep -c '"median": [0-9]')" "$(db "select count(*) from bisection_steps where bisection_id = $b2")"

# a flaky test (~70% of runs): more runs where "good" could be a miss
kf bisect --tree fake --good culprit-test --bad v6.1-end --job bisect-probe --test size/flaky.sh --vcpus 1 --repeat 10 --wait > "$T/b3.out" 2>&1
b3=$(db "select max(id) from bisections")
check "flaky: the culprit is the flaky commit" equals "$(db "select culprit from bisections where id = $b3")" "$(rev culprit-flaky)"
good_runs=$(db "select count(*) from runs r join bisection_submissions bs on bs.submission_id = r.submission_id join bisection_steps st on st.id = bs.step_id where st.bisection_id = $b3 and st.role = 'step' and st.answer = 'good' and r.outcome != 'canceled'")
check "flaky: a good step took more than one run" test "${good_runs:-0}" -gt 1
check "flaky: its reason gives the miss chance" contains "$(db "select why from bisection_steps where bisection_id = $b3 and role = 'step' and answer = 'good'")" "a miss has chance"

# a crash: the bad end's WARNING is the signature; a commit with a WARNING
# in another function is a failure for another reason, skipped
kf bisect --tree fake --good crash-base --bad crash-end --job bisect-crash --crash --vcpus 1 \
	--repeat 1 --wait > "$T/b5.out" 2>&1
rc=$?
b5=$(db "select max(id) from bisections")
sed 's/^/  | /' "$T/b5.out" | head -n 40
check "crash: exits 0, found and verified" equals "$rc" 0
check "crash: the signature is the bad end's" equals "$(db "select target from bisections where id = $b5")" "WARNING in fake_fn"
check "crash: the culprit is the commit with the WARNING in fake_fn" equals "$(db "select culprit from bisections where id = $b5")" "$(rev culprit-crash)"
check "crash: the commit with another WARNING was skipped, not called bad" equals "$(db "select answer from bisection_steps where bisection_id = $b5 and commit_id = '$(rev other-crash)'")" skip
check "crash: ...saying which crash it had" contains "$(db "select why from bisection_steps where bisection_id = $b5 and commit_id = '$(rev other-crash)'")" "another signature: WARNING in fake_other"
check "crash: the report names the signature" contains "$(cat "$T/b5.out")" 'the kernel crash "WARNING in fake_fn"'
check "crash: a signature with a control character is refused" contains "$(kf bisect --tree fake --good crash-base --bad crash-end --job bisect-crash --signature "$(printf 'a\tb')" 2>&1)" "signature: a control character at 1"

# canceled: its queued runs go
kf bisect --tree fake --good v6.1 --bad v6.1-end --job bisect-probe --vcpus 1 --repeat 10 >/dev/null 2>&1
b4=$(db "select max(id) from bisections")
out=$(kf bisection "$b4" --cancel 2>&1)
check "cancel: says so" contains "$out" "bisection $b4: canceled"
check "cancel: the state is canceled" equals "$(db "select state from bisections where id = $b4")" canceled
check "cancel: a second cancel is refused" contains "$(kf bisection "$b4" --cancel 2>&1)" "canceled already"
kf_stop
kf_done
