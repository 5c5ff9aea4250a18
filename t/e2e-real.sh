#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kfleet's watches against the REAL servers they meet, started on loopback.
# patchwork 3.1.3 (t/real/patchwork.sh: Django on SQLite, mails delivered
# by its own parsemail): a series is posted; kfleetd's [watch] finds it
# through patchwork's REST API, fetches its mbox (and the cover letter's:
# patchwork's series mbox lacks it, and with it the base-commit), builds it
# on the fake-kbuild tree on that base, runs one short job on x86_64
# 1-vCPU guests (base and patched, one run each), and posts its checks
# with the maintainer's token, which patchwork's own API then shows (a
# token of a user who is no maintainer is refused by patchwork: said once,
# with what to fix, and not sent again; the new token is used). 49
# more series make one full page of 50, read without asking for a page 2
# (a 404 on patchwork). The series' KCIDB export and `kfleet export kcidb`
# are checked by kcidb-io's own validator (t/real/kcidb-validate.py), for
# v4.5 and upgraded to the newest. public-inbox (Debian's,
# t/real/public-inbox.sh): a thread delivered by public-inbox-mda to a v2
# inbox served by public-inbox-httpd is taken by a lore watch from its
# Atom feed and built (no jobs: no guest): its cover letter first, its
# patches later (the watch waits for them); then 31 mails at once, more
# than the feed's 25, found through the inbox's search. A single patch and its v2 (no
# cover letter: patchwork names them by their tags) are one series; a
# patch dated 3 hours ago is found through patchwork's events.
# Where the vendored sources or packages are absent, their checks are
# skipped, saying so. (t/e2e-watch.sh keeps a stand-in only for the faults
# a real server cannot be made to give: garbage, a huge or slow answer.)
. "$(dirname "$0")/lib.sh"
. "$TOP/t/real/patchwork.sh"
. "$TOP/t/real/public-inbox.sh"

# pwj PATH PYTHON-EXPR: patchwork's own API answer to PATH, through python3 (as j)
pwj() { curl -sf "$PW_URL$1" | python3 -c "import json,sys; j=json.load(sys.stdin); $2"; }

PW_OK=yes
pw_real_ok || { PW_OK=; echo "# skip: the checks of real patchwork: $PW_REAL_WHY"; }

sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
sh "$TOP/t/fake-kbuild/mkseries.sh" "$T/tree" "$T/series" >/dev/null
base=$(sed -n 's/^base-commit: //p' "$T/series/good.mbox")
# the tree moves on after the series was written: its head is not the base
git -C "$T/tree" commit -q --allow-empty -m "fake: a commit after the series' base"
check "the tree's head is not the series' base" sh -c "test '$(git -C "$T/tree" rev-parse HEAD)' != '$base'"
# sent now, as a list delivers it (patchwork's since is on Date:)
now=$(date -u -R)
sed "s/^Date: .*/Date: $now/" "$T/series/good.mbox" > "$T/series/now.mbox"

# first the token of a user who is not a maintainer of the project:
# patchwork refuses it (403), kfleet says what to fix, once, and posts
# again only with a new token (token_file is read at each try)
echo secret-token-nobody > "$T/pw-token"
if [ -n "$PW_OK" ]; then
	t0=$(date +%s%N)
	check "real patchwork starts" pw_real_start fake fake.kfleet.invalid secret-token
	echo "# patchwork started in $((($(date +%s%N) - t0) / 1000000)) ms"
fi

PW_WATCH="
[watch pw]
patchwork = $PW_URL
project = fake
tags = fake-next=fake
jobs = metrics-demo
arches = x86_64
vcpus = 1
interval = 1
timeout = 10
token_file = $T/pw-token
report_dir = $T/mail
kcidb = file
link_base = http://kfleet.invalid"
SLOTS=1 kf_config "${PW_OK:+$PW_WATCH}"
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
kf tree add fake "$T/tree" >/dev/null 2>&1
wait_for 30 "select state from trees where name = 'fake'" ready

# pw_checks: the series through real patchwork
pw_checks() {
t0=$(date +%s%N)
check "the series is delivered to patchwork by parsemail" pw_real_mail fake.kfleet.invalid "$T/series/now.mbox"
echo "# 4 mails parsed in $((($(date +%s%N) - t0) / 1000000)) ms"
check "...and patchwork has it complete" equals "$(pwj /api/1.2/series/1/ "print(j['received_all'], j['version'], j['cover_letter']['msgid'])")" "True 2 <cover.1700000000.git.fake-dev@kfleet.invalid>"

check "the watch takes it from the real API and queues it" wait_for 30 "select remote_id || ' v' || version || ' ' || state from watch_series where watch = 'pw'" "1 v2 queued"
s=$(db "select submission_id from watch_series where watch = 'pw'")
check "...by its cover letter's message-id" equals "$(db "select msgid from watch_series where submission_id = $s")" "cover.1700000000.git.fake-dev@kfleet.invalid"
# the builder picks the base once it takes the submission
check "...on the base-commit its cover letter names, not the tree's head" wait_for 60 "select base_commit from submissions where id = $s" "$base"
patches=$(pwj /api/1.2/series/1/ "print(' '.join(str(p['id']) for p in j['patches']))")
refused="select count(*) from watch_log where watch = 'pw' and text like '%patchwork refused the watch''s token%'"
check "a token whose user is no maintainer: patchwork refuses it, the log says so" wait_for 30 "$refused" 1
check "...and what to fix" contains "$(db "select text from watch_log where watch = 'pw' and text like '%refused the watch''s token%'")" \
	"HTTP 403: {\"detail\":\"You do not have permission to perform this action.\"}): it must be the API token of a user who maintains project 'fake' on $PW_URL"
sleep 5   # 5 tries' worth (the watch's interval, 1 s)
check "...once: the refused token is not sent again" equals "$(grep -c '"POST /api/1.2/patches/[0-9]*/checks/ HTTP/1.1" 403' "$T/pw/server.log") $(db "$refused")" "1 1"
check "...and no check was taken" equals "$(pwj "/api/1.2/patches/$(echo $patches | cut -d' ' -f1)/checks/" "print(len(j))")" 0
echo secret-token > "$T/pw-token"
check "...its patches get a pending check each with the maintainer's new token, in patchwork's own API" wait_for 30 "select pending_posted from watch_series where submission_id = $s" 1
for p in $patches; do
	check "...patch $p: kfleet's pending check as patchwork keeps it" equals "$(pwj "/api/1.2/patches/$p/checks/" "print(' | '.join('%s %s %s %s %s' % (c['context'], c['state'], c['target_url'], c['description'], c['user']['username']) for c in j))")" "kfleet pending http://kfleet.invalid/submissions/$s queued as submission $s maintainer"
done
check "...and its check summary is pending" equals "$(pwj /api/1.2/patches/$(echo $patches | cut -d' ' -f1)/ "print(j['check'])")" pending

check "the series is built and run, and reported" wait_for 300 "select verdict is not null from watch_series where submission_id = $s" 1 &&
	equals "$(db "select verdict from watch_series where submission_id = $s")" success
check "...its two runs (base, patched), on x86_64 1-vCPU guests, passed" equals "$(db "select count(*) || ' ' || group_concat(distinct arch || ' ' || vcpus || ' ' || outcome) from runs where request_id in (select id from requests where submission_id = $s)")" "2 x86_64 1 passed"
for p in $patches; do
	check "...patch $p: pending, then success, in patchwork" equals "$(pwj "/api/1.2/patches/$p/checks/" "print(' '.join(c['state'] for c in j))")" "pending success"
done
p1=$(echo $patches | cut -d' ' -f1)
check "...the success says what ran and links the page" equals "$(pwj "/api/1.2/patches/$p1/checks/" "c=[c for c in j if c['state'] == 'success'][0]; print(c['description'], c['target_url'])")" "builds, and all 2 runs passed http://kfleet.invalid/submissions/$s"
check "...and patchwork's summary of the patch is success" equals "$(pwj "/api/1.2/patches/$p1/" "print(j['check'])")" success
mail=$(db "select mail_path from watch_series where submission_id = $s")
check "the reply mail is on the thread: In-Reply-To the cover letter" equals "$(grep '^In-Reply-To:' "$mail")" "In-Reply-To: <cover.1700000000.git.fake-dev@kfleet.invalid>"
check "...Re: the cover letter's subject" equals "$(grep '^Subject:' "$mail")" "Subject: Re: [PATCH fake-next v2 0/3] fake: count getpgid calls"

# paging: exactly one full page of series (50: this one and 49 more, of a
# tree no rule names) is one page; patchwork's Link: header names no next,
# and its page 2 would be a 404 {"detail": "Invalid page."}
python3 - "$T/series/many.mbox" "$now" <<'EOPY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 50):
        f.write("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                "Message-Id: <many-%d@kfleet.invalid>\nFrom: Fake Developer <fake-dev@kfleet.invalid>\n"
                "Date: %s\nSubject: [PATCH other-tree] notes: note %d\n\nA note.\n\n"
                "Signed-off-by: Fake Developer <fake-dev@kfleet.invalid>\n---\n"
                "diff --git a/notes/%d b/notes/%d\nnew file mode 100644\n--- /dev/null\n+++ b/notes/%d\n"
                "@@ -0,0 +1 @@\n+note %d\n-- \n2.39.5\n\n" % (i, sys.argv[2], i, i, i, i, i))
EOPY
polls=$(db "select polls from watches where name = 'pw'")
check "49 more series are delivered to patchwork" pw_real_mail fake.kfleet.invalid "$T/series/many.mbox"
check "...50 in all, one page of 50 whose Link: names no next page" equals "$(curl -sfi "$PW_URL/api/1.2/series/?project=fake&per_page=50&order=id" | python3 -c "import sys; t=sys.stdin.read(); print(t.count('\"received_all\"'), 'rel=\"next\"' in t)")" "50 False"
check "the watch sees all 50" wait_for 60 "select count(*) from watch_series where watch = 'pw'" 50
check "...the 49 skipped, saying why" equals "$(db "select count(*) from watch_series where watch = 'pw' and state = 'skipped' and detail like 'the subject matches no rule%'")" 49
# polled_clean N: 3 polls after the Nth, and no poll of the watch failed
polled_clean() {
	wait_for 30 "select polls >= $1 + 3 from watches where name = 'pw'" 1 &&
		equals "$(db "select failing || ' ' || errors || ' ' || coalesce(last_error, 'none') from watches where name = 'pw'")" "0 0 none"
}
check "...and polls on, no poll failing" polled_clean "$polls"
check "...patchwork was asked for page 1 of the project's series" contains "$(cat "$T/pw/server.log")" "GET /api/1.2/series/?project=fake&since="
check "...and never for a page 2" lacks "$(cat "$T/pw/server.log")" "page=2"

# a single patch (no cover letter) and its v2, delivered together:
# patchwork names the series by the patch, tags and all, so only the
# title after the tags says they are one series; v1 is superseded
python3 - "$T/series/single.mbox" "$now" <<'EOPY'
import sys
with open(sys.argv[1], "w") as f:
    for v, tag in ((1, ""), (2, " v2")):
        f.write("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                "Message-Id: <single-v%d@kfleet.invalid>\nFrom: Fake Developer <fake-dev@kfleet.invalid>\n"
                "Date: %s\nSubject: [PATCH fake-next%s] notes: a single note\n\nA note.\n\n"
                "Signed-off-by: Fake Developer <fake-dev@kfleet.invalid>\n---\n"
                "diff --git a/notes/single b/notes/single\nnew file mode 100644\n--- /dev/null\n+++ b/notes/single\n"
                "@@ -0,0 +1 @@\n+version %d\n-- \n2.39.5\n\n" % (v, sys.argv[2], tag, v))
EOPY
check "a single patch and its v2 are delivered to patchwork" pw_real_mail fake.kfleet.invalid "$T/series/single.mbox"
check "...which names their series apart, by their tags" equals "$(pwj "/api/1.2/series/?project=fake&per_page=100&order=-id" "print(' | '.join(sorted(x['name'] for x in j[:2])))")" "[fake-next,v2] notes: a single note | [fake-next] notes: a single note"
check "...the watch takes v2, and v1 is superseded by it" wait_for 60 "select group_concat(version || ' ' || state, ', ') from (select version, state from watch_series where watch = 'pw' and name like '%a single note' order by version)" "1 superseded, 2 queued"
check "...saying so" equals "$(db "select detail like 'superseded by v2 %' from watch_series where watch = 'pw' and name like '%a single note' and version = 1")" 1

# late mail: a patch whose Date: is 3 hours old (a delayed mail, a clock
# off) arrives now; patchwork's list filters since= on that Date:, its
# events on when patchwork received it
old=$(date -u -R -d '3 hours ago')
sed -e "s/^Date: .*/Date: $old/" -e 's/single-v1@/late@/' -e 's/a single note/a late note/' \
	-e 's/^+version 1$/+late/' -e 's|notes/single|notes/late|g' "$T/series/single.mbox" |
	awk '/^From 0000/{ n++ } n == 1' > "$T/series/late.mbox"
check "a patch dated 3 hours ago is delivered now" pw_real_mail fake.kfleet.invalid "$T/series/late.mbox"
check "...which the list since the position does not show" lacks "$(curl -sf "$PW_URL/api/1.2/series/?project=fake&since=$(date -u -d '20 minutes ago' +%Y-%m-%dT%H:%M:%S)")" "a late note"
check "...the watch takes it, from patchwork's series-completed event" wait_for 30 "select state in ('queued', 'reported') from watch_series where watch = 'pw' and name like '%a late note'" 1
late=$(db "select remote_id from watch_series where watch = 'pw' and name like '%a late note'")
check "...and says so" equals "$(db "select count(*) from watch_log where watch = 'pw' and text like 'series $late: found by patchwork''s series-completed event (its mail''s Date: %'")" 1
}
[ -z "$PW_OK" ] || pw_checks

# KCIDB: the watch's export of the series and kfleet export kcidb, checked
# by kcidb-io's own validator, for the version kfleet claims and after
# upgrade() to the newest (as KCIDB's ingester does)
KFLEET_KCIDB_IO=${KFLEET_KCIDB_IO:-$KFLEET_VENDOR/kcidb-io}
kcidb_io() { PYTHONPATH="$KFLEET_KCIDB_IO" /usr/bin/python3 "$TOP/t/real/kcidb-validate.py" "$@"; }
if [ -z "$PW_OK" ]; then
	echo "# skip: kcidb-io: its checks take the real patchwork watch's export"
elif [ ! -f "$KFLEET_KCIDB_IO/kcidb_io/__init__.py" ]; then
	echo "# skip: kcidb-io: no sources at '$KFLEET_KCIDB_IO' (set KFLEET_VENDOR or KFLEET_KCIDB_IO)"
else
	kfile=$(db "select kcidb_path from watch_series where submission_id = $s")
	check "the watch's KCIDB export is written" test -f "$kfile"
	check "...kcidb-io validates it, as v4.5 and upgraded to the newest" contains "$(kcidb_io "$kfile" 2>&1)" \
		"ok: $kfile: v4.5 (2 checkouts, 2 builds, "
	check "...its series' checkout names the cover letter's message-id, not patch 1's" equals "$(/usr/bin/python3 -c "import json,sys; print([c.get('message_id') for c in json.load(open(sys.argv[1]))['checkouts'] if c.get('patchset_hash')])" "$kfile")" "['cover.1700000000.git.fake-dev@kfleet.invalid']"
	check "...as does kfleet export kcidb of everything" contains "$(kf export kcidb -o "$T/all.json" >/dev/null 2>&1; kcidb_io "$T/all.json" 2>&1)" \
		"valid as v5.3 after upgrade"
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); del d['builds'][0]['origin']; json.dump(d, open(sys.argv[2], 'w'))" "$kfile" "$T/bad.json"
	check "...which refuses an export a build of which has no origin" sh -c "! kcidb_io_out=\$(PYTHONPATH='$KFLEET_KCIDB_IO' /usr/bin/python3 '$TOP/t/real/kcidb-validate.py' '$T/bad.json' 2>&1) && echo \"\$kcidb_io_out\" | grep -q \"'origin' is a required property\""
fi

# public-inbox: the thread (a series and a review reply, ids of their own)
# delivered to a real v2 inbox by public-inbox-mda; a lore watch reads
# public-inbox-httpd's Atom feed and the thread's mbox, as on lore
if ! pi_real_ok; then
	echo "# skip: the checks of real public-inbox: $PI_REAL_WHY"
else
	check "real public-inbox-httpd starts" pi_real_start fakelist fakelist@kfleet.invalid
	check "a lore watch is added" contains "$(kf watch add lore lore="$PI_URL/fakelist" tree=fake interval=1 timeout=10 report_dir="$T/mail-lore" 2>&1)" "watch 'lore': added"
	check "an empty inbox (its feed a 404) is polled, and no poll fails" wait_for 30 "select polls >= 2 and failing = 0 and errors = 0 from watches where name = 'lore'" 1
	# sent after the watch began: the feed's <updated> is the mail's Date:
	sleep 1
	sed -e 's/\.1700000000\.git\./.1300000000.git./g' -e "s/^Date: .*/Date: $(date -u -R)/" \
		"$T/series/with-reply.mbox" > "$T/series/lore.mbox"
	# as a list delivers it: the cover letter first, the patches later
	awk -v d="$T/series/lore" '/^From [0-9a-f]{40} /{ n++ } { print > (d "-" (n == 1 ? "cover" : "rest") ".mbox") }' "$T/series/lore.mbox"
	check "the cover letter is delivered by public-inbox-mda" pi_real_mail fakelist@kfleet.invalid "$T/series/lore-cover.mbox"
	check "...and public-inbox serves it in its feed" contains "$(curl -sf "$PI_URL/fakelist/new.atom")" "/fakelist/cover.1300000000.git.fake-dev@kfleet.invalid/"
	check "...the watch waits for its patches, its tries not counted" wait_for 30 "select state || ' ' || tries || ' ' || detail from watch_series where watch = 'lore'" \
		"new 0 waiting for its patches (up to an hour from when it was seen): $PI_URL/fakelist/cover.1300000000.git.fake-dev@kfleet.invalid/t.mbox.gz: patches 1/3, 2/3, 3/3 are missing"
	sleep 3   # 3 polls
	check "...still waiting, said once in the log" equals "$(db "select state || ' ' || tries from watch_series where watch = 'lore'") $(db "select count(*) from watch_log where watch = 'lore' and text like '%waiting for its patches%'")" "new 0 1"
	check "the patches and a reply are delivered" pi_real_mail fakelist@kfleet.invalid "$T/series/lore-rest.mbox"
	check "the lore watch takes the series from the feed" wait_for 30 "select msgid || ' v' || version || ' ' || state from watch_series where watch = 'lore'" "cover.1300000000.git.fake-dev@kfleet.invalid v2 queued"
	check "...built from the thread's mbox on its base-commit" wait_for 30 "select base_commit from submissions where id = (select submission_id from watch_series where watch = 'lore')" "$base"
	check "...and reported" wait_for 60 "select verdict || ': ' || verdict_detail from watch_series where watch = 'lore'" "success: applies and builds (no jobs to run)"
	check "...one row for the thread: the reply and the patches are not series" equals "$(db "select count(*) from watch_series where watch = 'lore'")" 1
	lmail=$(db "select mail_path from watch_series where watch = 'lore'")
	check "...its reply is written, on the thread" equals "$(grep '^In-Reply-To:' "$lmail")" "In-Reply-To: <cover.1300000000.git.fake-dev@kfleet.invalid>"

	# 31 mails between two polls (kfleetd stopped meanwhile): the feed's 25
	# newest are all patches, the cover letter is gone from it; the inbox's
	# search (?q=dt:POSITION..&x=A) gives it back
	kf_stop
	sleep 1
	python3 - "$T/series/big.mbox" "$(date -u -R)" <<'EOPY'
import sys
with open(sys.argv[1], "w") as f:
    for i in range(0, 31):
        subj = "[PATCH fake-next %02d/30] notes: %s" % (i, "thirty notes" if i == 0 else "note %d" % i)
        refs = "" if i == 0 else "In-Reply-To: <big-0@kfleet.invalid>\nReferences: <big-0@kfleet.invalid>\n"
        body = "Thirty notes in one series.\n" if i == 0 else (
            "A note.\n\nSigned-off-by: Fake Developer <fake-dev@kfleet.invalid>\n---\n"
            "diff --git a/notes/big-%d b/notes/big-%d\nnew file mode 100644\n--- /dev/null\n+++ b/notes/big-%d\n"
            "@@ -0,0 +1 @@\n+note %d\n" % (i, i, i, i))
        f.write("From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
                "Message-Id: <big-%d@kfleet.invalid>\nFrom: Fake Developer <fake-dev@kfleet.invalid>\n"
                "Date: %s\nSubject: %s\n%s\n%s-- \n2.39.5\n\n" % (i, sys.argv[2], subj, refs, body))
EOPY
	check "a series of 30 patches and a cover letter is delivered" pi_real_mail fakelist@kfleet.invalid "$T/series/big.mbox"
	check "...the feed holds 25 of its mails, not the cover letter" equals "$(curl -sf "$PI_URL/fakelist/new.atom" | grep -c '<entry>') $(curl -sf "$PI_URL/fakelist/new.atom" | grep -c '00/30\]')" "25 0"
	check "kfleetd starts again" kf_start
	check "...the lore watch finds the series through the inbox's search" wait_for 60 "select state in ('queued', 'reported') from watch_series where watch = 'lore' and msgid = 'big-0@kfleet.invalid'" 1
	check "...saying why it searched" wait_for 10 "select count(*) from watch_log where watch = 'lore' and text like '%the feed''s 25 messages all came after%the inbox''s search gave % since then'" 1
	check "...and its 30 patches are built" wait_for 120 "select verdict || ': ' || verdict_detail from watch_series where watch = 'lore' and msgid = 'big-0@kfleet.invalid'" "success: applies and builds (no jobs to run)"
fi

kf_done
