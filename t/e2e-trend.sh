#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Trends end to end: six commits on a clone of the fake kernel tree
# (t/fake-kbuild), each built and run three times with metrics-demo (kfleet
# submit --base COMMIT --repeat 3). The fake kernel never changes, so the
# stored samples are rewritten: 'ops' drops 30% from the fourth commit on,
# and a subtest starts failing at the fifth. `kfleet trend`, /api/trend and
# the /trends pages (in headless Chromium) must find exactly that.
. "$(dirname "$0")/lib.sh"

sub_id() { sed -n 's/^submission \([0-9]*\) queued.*/\1/p'; }
count() { printf '%s' "$2" | grep -o -F -- "$1" | wc -l | tr -d ' '; }
# matches TEXT ERE: a line of TEXT matches
matches() {
	printf '%s\n' "$1" | grep -q -E -- "$2" && return 0
	echo "  expected a line matching '$2' in: $(printf '%s' "$1" | head -c 800)" >&2
	return 1
}

# the tree: the fake one, cloned, six commits that change only comments
sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
git clone -q "$T/tree" "$T/clone"
export GIT_AUTHOR_NAME="Trend Test" GIT_AUTHOR_EMAIL="trend@kfleet.invalid"
export GIT_COMMITTER_NAME="Trend Test" GIT_COMMITTER_EMAIL="trend@kfleet.invalid"
for i in 1 2 3 4 5 6; do
	f=src/sys.c
	[ $((i % 2)) -eq 0 ] && f=Documentation/fake/getpgid.rst
	printf '%s trend test change %d\n' "$([ $f = src/sys.c ] && echo '/*' || echo '..')" "$i" >> "$T/clone/$f"
	[ $f = src/sys.c ] && printf ' */\n' >> "$T/clone/$f"
	git -C "$T/clone" -c commit.gpgsign=false commit -q -a -m "trend: change $i"
done
commits=$(git -C "$T/clone" rev-list --reverse HEAD~6..HEAD)
c4=$(echo "$commits" | sed -n 4p)
c5=$(echo "$commits" | sed -n 5p)
s4=$(printf %.12s "$c4")

kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
kf tree add fk "$T/clone" >/dev/null 2>&1
for _ in $(seq 1 50); do [ "$(db "select state from trees where name = 'fk'")" = ready ] && break; sleep 0.2; done
check "the clone is a tree" equals "$(db "select state from trees where name = 'fk'")" ready

# each commit built and run three times; builds in turn, runs as slots free
subs=
for c in $commits; do
	out=$(kf submit --tree fk --base "$c" --job metrics-demo --repeat 3 --wait 2>&1)
	s=$(printf '%s\n' "$out" | sub_id)
	[ -n "$s" ] || echo "  submit of $c: $out" >&2
	subs="$subs${subs:+,}${s:-0}"
done
check "six submissions of 3 runs each" equals "$(db "select count(*) from runs where submission_id in ($subs)")" 18
for _ in $(seq 1 900); do
	[ "$(db "select count(*) from runs where submission_id in ($subs) and state != 'done'")" = 0 ] && break
	sleep 0.2
done
check "...every run passed" equals "$(db "select group_concat(distinct outcome) from runs where submission_id in ($subs)")" passed
check "...on six kernels in commit order" equals "$(db "select count(distinct k.commit_id) || ' ' || min(k.commit_order) || ' ' || max(k.commit_order) from runs r join kernels k on k.id = r.kernel_id where r.submission_id in ($subs)")" "6 3 8"

# the samples rewritten: +-1% per run, and 'ops' 30% lower from commit 4 on;
# results: demo/steady passes everywhere, demo/broken fails from commit 5 on
after4="select r.id from runs r join kernels k on k.id = r.kernel_id where r.submission_id in ($subs) and k.commit_order >= 6"
db "update samples set value = value * (1 + ((run_id % 5) - 2) / 200.0)
	* (case when run_id in ($after4) then 0.7 else 1 end)
	where metric = 'ops' and run_id in (select id from runs where submission_id in ($subs))"
db "insert into results (run_id, path, status) select r.id, 'demo/steady', 'pass' from runs r where r.submission_id in ($subs);
	insert into results (run_id, path, status) select r.id, 'demo/broken',
	case when k.commit_order >= 7 then 'fail' else 'pass' end
	from runs r join kernels k on k.id = r.kernel_id where r.submission_id in ($subs)"

# the CLI
out=$(kf trend --tree fk --job metrics-demo --metric ops 2>&1)
check "kfleet trend prints the six commits" equals "$(printf '%s\n' "$out" | grep -c -E '^[0-9a-f]{12} ')" 6
check "...exactly one change point" equals "$(count "step at " "$out")" 1
check "...at commit 4, worse" contains "$out" "step at $s4: "
check "...said in words" matches "$out" "^  step at $s4: 12[0-9.]* -> 8[0-9.]* M/s \\(-(29|30|31)%\\), worse, p=[0-9.e-]+\$"
check "...marked in the table" matches "$out" "^$s4 .*<- step -[0-9.]+% worse\$"
check "...and the subtest that broke at commit 5" contains "$out" "regression at $(printf %.12s "$c5"): demo/broken (passed 3/3 -> 0/3)"
out=$(kf trend --tree fk --job metrics-demo 2>&1)
check "without --metric: the job's first" matches "$out" "^ops \\(M/s\\) of job metrics-demo on tree fk"
check "...and the cell picked is said" matches "$out" "^picked: arch and vCPUs: x86_64, [0-9]+ vCPUs?, the cell with the most runs"
out=$(kf trend --tree fk --job metrics-demo --metric lat_p99 2>&1)
check "an unchanged metric has no change point" contains "$out" "no change points"
out=$(kf trend --tree fk --job nosuch 2>&1)
check "a job without runs is a clear error" contains "$out" "404: tree 'fk', job 'nosuch': no runs with metrics or results"
out=$(kf trend --job metrics-demo 2>&1)
check "...and no tree is usage" contains "$out" "usage: kfleet trend"

# the JSON
j=$(curl -sf "$KF_URL/api/trend?tree=fk&job=metrics-demo&metric=ops")
changes=$(printf '%s' "$j" | sed 's/.*"changes":\[\([^]]*\)\].*/\1/')
check "/api/trend: one change point" equals "$(count '"verdict":' "$changes")" 1
check "...at index 3, commit 4, worse" matches "$changes" "\"index\":3,.*\"commit\":\"$c4\".*\"verdict\":\"worse\""
check "...six points of three runs" equals "$(count '"n":3,' "$j")" 6
check "...the regression at commit 5" matches "$j" "\"events\":\\[\\{\"path\":\"demo/broken\",\"index\":4,\"commit\":\"$c5\",\"kind\":\"regression\"\\}\\]"
check "a bad vcpus is refused" contains "$(curl -s "$KF_URL/api/trend?tree=fk&job=metrics-demo&vcpus=lots")" "vcpus 'lots': not a number"
check "a trend needs a tree and a job" contains "$(curl -s "$KF_URL/api/trend?job=metrics-demo")" "tree and job are needed"

# the pages in a browser
check "chromium is installed" test -x "$CHROMIUM"
page=$(kf_dom "/trends")
check "/trends lists the series with a link to its chart" contains "$page" "/trends/view?tree=fk&amp;job=metrics-demo&amp;metric=ops&amp;arch="
page=$(kf_dom "/trends/view?tree=fk&job=metrics-demo&metric=ops")
check "/trends/view draws the SVG chart" contains "$page" '<svg class="trend"'
check "...with a point per commit" equals "$(count 'class="point"' "$page")" 6
check "...one change marker, worse" equals "$(count '<g class="change worse">' "$page")" 1
check "...labelled with its change" matches "$page" ">-(29|30|31)\\.[0-9]% worse</text>"
check "...the change point table names commit 4" matches "$page" "<tr class=\"change worse\"><td><code title=\"$c4\">$s4</code>"
check "...and the pass-rate regression" contains "$page" "demo/broken"
check "an unknown page under /trends is 404" equals "$(curl -s -o /dev/null -w '%{http_code}' "$KF_URL/trends/nope")" 404
kf_done
