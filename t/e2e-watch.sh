#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Watches end to end against a patchwork-shaped REST server on loopback
# (t/data/patchwork/server.py): a [watch] section follows project 'fake';
# a v1 series is taken, built on the fake-kbuild tree and queued on real
# guests, and a v2 of it cancels v1's queued runs; kfleetd is killed in
# the middle and, restarted, takes the series posted while it was down
# once and nothing twice; checks are posted pending then final with the
# right token (the server keeps what it received), the reply mail is
# written; a second watch (kfleet watch add) meets bad answers (not JSON,
# huge, slow, a 404 mbox, a rejected token), each shown on /watches, and
# the daemon goes on. The watch's runs are its own in the fair queue, and
# /queue gives the series' times.
# The server here is kfleet's stand-in, kept for what real patchwork and
# public-inbox cannot be made to do: answer garbage, a huge or a slow
# answer, a 404 mbox, series posted at will while kfleetd is down. It
# serves the series mbox as patchwork does (patches only, the cover
# letter apart). The path against the real servers is t/e2e-real.sh.
. "$(dirname "$0")/lib.sh"

pw() { curl -sf -X POST -H 'Content-Type: application/json' -d "$2" "$PW$1"; }
# checks_of PYTHON-EXPR: the checks the server received, through python3
checks() { curl -sf "$PW/control/checks" | python3 -c "import json,sys; c=json.load(sys.stdin); $1"; }

sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
sh "$TOP/t/fake-kbuild/mkseries.sh" "$T/tree" "$T/series" >/dev/null
# v1 of good.mbox: the same patches, no version, message-ids of its own
sed -e 's/\[PATCH fake-next v2 /[PATCH fake-next /' -e 's/\.1700000000\.git\./.1600000000.git./g' \
	"$T/series/good.mbox" > "$T/series/v1.mbox"
# a series of a tree no rule names
sed -e 's/fake-next/other-tree/g' -e 's/\.1700000000\.git\./.1500000000.git./g' \
	"$T/series/good.mbox" > "$T/series/other.mbox"
# a thread on a lore list: a series and a review reply, ids of their own
sed -e 's/\.1700000000\.git\./.1300000000.git./g' "$T/series/with-reply.mbox" > "$T/series/lore.mbox"
# a series of its own (mkseries.sh gives every cover letter the same id)
sed -e 's/\.1700000000\.git\./.1400000000.git./g' "$T/series/broken-build.mbox" > "$T/series/gone.mbox"
sed -e 's/\.1700000000\.git\./.1200000000.git./g' "$T/series/conflict.mbox" > "$T/series/partial.mbox"

echo secret-token > "$T/pw-token"
python3 "$TOP/t/data/patchwork/server.py" "$T/pw.port" secret-token 2> "$T/pw.log" &
PW_PID=$!
trap 'kill $PW_PID 2>/dev/null; kf_cleanup' EXIT
for _ in $(seq 1 50); do [ -s "$T/pw.port" ] && break; sleep 0.1; done
PW=http://127.0.0.1:$(cat "$T/pw.port")
# the SMTP sink refuses mail until the test says otherwise
mkdir -p "$T/smtp"
touch "$T/smtp/refuse"
/usr/bin/python3 "$TOP/t/data/patchwork/smtp-sink.py" "$T/smtp.port" "$T/smtp" 2> "$T/smtp.log" &
SMTP_PID=$!
trap 'kill $PW_PID $SMTP_PID 2>/dev/null; kf_cleanup' EXIT
for _ in $(seq 1 50); do [ -s "$T/smtp.port" ] && break; sleep 0.1; done

SLOTS=1 kf_config "
[watch pw]
patchwork = $PW
project = fake
tags = fake-next=fake
subject = getpgid|strcmp
jobs = metrics-demo
arches = x86_64
repeat = 2
interval = 2
timeout = 3
token_file = $T/pw-token
report_dir = $T/mail
send = yes
smtp = smtp://127.0.0.1:$(cat "$T/smtp.port")
from = kfleet <kfleet@kfleet.invalid>
to = fake-list@kfleet.invalid
link_base = http://kfleet.invalid

[watch lore]
lore = $PW/lore/fakelist
tree = fake
interval = 2
timeout = 3
report_dir = $T/mail-lore"
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"

# the config is checked
cp "$T/kfleetd.ini" "$T/bad.ini"
printf '\n[watch bad]\npatchwork = ftp://nowhere\nproject = x\ntags = nothing\n' >> "$T/bad.ini"
out=$("$BIN/kfleetd" -n -c "$T/bad.ini" 2>&1)
check "kfleetd -n: a watch's bad URL names its line" contains "$out" "bad.ini:$(grep -n '^patchwork = ftp' "$T/bad.ini" | cut -d: -f1): [watch bad]: patchwork: 'ftp://nowhere' is not an http(s) URL"
check "...and its bad tag rule" contains "$out" "tags: 'nothing' is not TAG=TREE[:BRANCH]"
out=$("$BIN/kfleetd" -nv -c "$T/kfleetd.ini" 2>&1)
check "kfleetd -nv prints the watch back" contains "$out" "[watch pw]
patchwork = $PW"

check "kfleetd starts" kf_start
kf tree add fake "$T/tree" >/dev/null 2>&1
wait_for 30 "select state from trees where name = 'fake'" ready
check "the config's watch is stored" equals "$(db "select source || ' ' || position from watches where name = 'pw'")" "config 0"

# the CLI
out=$(kf watch add bad patchwork="$PW" project=bad tree=fake interval=1 timeout=2 token=wrong-token 2>&1)
check "kfleet watch add adds a watch" contains "$out" "watch 'bad': added"
out=$(kf watch add bad patchwork="$PW" project=bad tree=fake 2>&1)
check "...once: the name is taken" contains "$out" "watch 'bad': exists already"
out=$(kf watch add nope patchwork="$PW" project=x tree=fake colour=blue 2>&1)
check "...an unknown key is refused, by name" contains "$out" "unknown key 'colour'"
out=$(kf watch add nope patchwork="$PW" project=x 2>&1)
check "...a watch with no rule is refused" contains "$out" "needs tags (TAG=TREE[:BRANCH], ...) or a tree"
out=$(kf watch add nope patchwork="$PW" project=x tree=fake subject='(' 2>&1)
check "...so is a bad regex" contains "$out" "subject: '('"
out=$(kf watch rm pw 2>&1)
check "kfleet watch rm refuses the config's watch" contains "$out" "it is a [watch pw] section of the config"
out=$(kf watch list 2>&1)
check "kfleet watch list lists both" sh -c "printf '%s' '$out' | grep -q '^bad ' && printf '%s' '$out' | grep -q '^pw '"

# a lore list: the thread's series is taken once, its reply and patches are not series
pw /control/lore "{\"mbox\": \"$T/series/lore.mbox\", \"list\": \"fakelist\"}" >/dev/null
check "a lore watch takes the series of a thread" wait_for 30 "select msgid || ' v' || version || ' ' || state from watch_series where watch = 'lore'" "cover.1300000000.git.fake-dev@kfleet.invalid v2 queued"

# v1 is posted and taken
pw /control/post "{\"mbox\": \"$T/series/v1.mbox\", \"project\": \"fake\", \"version\": 1}" >/dev/null
check "v1 is taken and queued" wait_for 30 "select state from watch_series where watch = 'pw' and version = 1" queued
s1=$(db "select submission_id from watch_series where watch = 'pw' and version = 1")
check "...as a submission on the tree the tag names" equals "$(db "select tree || ' ' || coalesce(jobs, '') from submissions where id = $s1")" "fake metrics-demo"
check "...the rule that took it is kept" contains "$(db "select detail from watch_series where submission_id = $s1")" "tag 'fake-next': tree 'fake'"
check "...its patches get a pending check each" wait_for 30 "select pending_posted from watch_series where submission_id = $s1" 1
check "...which the server received, with the token" equals "$(checks "print(' '.join(x['state'] for x in c if not x.get('rejected')))")" "pending pending pending"
check "...linking the submission's page" equals "$(checks "print(c[0]['target_url'])")" "http://kfleet.invalid/submissions/$s1"
check "...context and description as patchwork takes them" equals "$(checks "print(c[0]['context'], '|', c[0]['description'], '|', c[0]['content_type'])")" "kfleet | queued as submission $s1 | application/json"

# v2 while v1 is queued: v1's queued work is canceled
wait_for 60 "select state from submissions where id = $s1" testing
pw /control/post "{\"mbox\": \"$T/series/good.mbox\", \"project\": \"fake\", \"version\": 2}" >/dev/null
check "v2 is taken" wait_for 30 "select state from watch_series where watch = 'pw' and version = 2" queued
s2=$(db "select submission_id from watch_series where watch = 'pw' and version = 2")
check "...v1 is superseded by it" equals "$(db "select state from watch_series where submission_id = $s1")" superseded
check "...v1's submission says so" contains "$(db "select detail from submissions where id = $s1")" "superseded by v2 (patchwork series 2, submission $s2) of watch 'pw'"
check "...its queued runs are canceled, saying why" sh -c "test $(db "select count(*) from runs where outcome = 'canceled' and detail like 'superseded by v2%' and request_id in (select id from requests where submission_id = $s1)") -ge 1"
check "...the v1 page shows it" contains "$(curl -sf "$KF_URL/submissions/$s1")" "superseded by v2"

# a restart in the middle: series posted while kfleetd is down are taken once
kf_kill9
pw /control/post "{\"mbox\": \"$T/series/other.mbox\", \"project\": \"fake\", \"version\": 2}" >/dev/null
pw /control/post "{\"mbox\": \"$T/series/conflict.mbox\", \"project\": \"fake\", \"version\": 1}" >/dev/null
# v2 posted again (patchwork makes a new series of a resend): the same message-id and version
pw /control/post "{\"mbox\": \"$T/series/good.mbox\", \"project\": \"fake\", \"version\": 2}" >/dev/null
nsubs=$(db "select count(*) from submissions")
check "kfleetd starts again" kf_start
check "the series posted while it was down are seen" wait_for 30 "select count(*) from watch_series where watch = 'pw'" 4
check "...one of another tree is skipped, saying why" contains "$(db "select state || ': ' || detail from watch_series where remote_id = 3")" "skipped: the subject matches no rule (no tag of: fake-next)"
check "...the one that does not apply is queued" wait_for 30 "select submission_id is not null from watch_series where remote_id = 4" 1
sleep 5
check "...nothing is taken twice" equals "$(db "select count(*) from submissions") $(db "select count(*) from watch_series where watch = 'pw'")" "$((nsubs + 1)) 4"
check "...a resend of v2 is not a new series" equals "$(db "select count(*) from watch_series where version = 2 and watch = 'pw' and msgid like 'cover.17%'")" 1
check "...and the watch's position is the newest series" wait_for 10 "select position from watches where name = 'pw'" 5

# reports
check "v1 is reported as superseded" wait_for 30 "select verdict from watch_series where submission_id = $s1" warning
check "a mail the SMTP server refuses is logged, to be sent again" wait_for 30 "select count(*) > 0 from watch_log where watch = 'pw' and text like '%reply mail not sent (again in 10 s)%said ''554 5.7.1 refused by the test''%'" 1
check "...and shown on /watches" contains "$(curl -sf "$KF_URL/watches")" "refused by the test"
rm "$T/smtp/refuse"
check "the series that does not apply is a warning with the reason" wait_for 60 "select verdict from watch_series where remote_id = 4" warning
check "...naming the patch" contains "$(db "select verdict_detail from watch_series where remote_id = 4")" "does not apply: does not apply on"
check "...patch 2/2" contains "$(checks "print([x['description'] for x in c if x.get('state') == 'warning' and 'apply' in x['description']][0])")" "patch 2/2, src/string.c"
check "v2 is tested on guests and reported" wait_for 200 "select verdict from watch_series where submission_id = $s2" success
check "...its runs passed" equals "$(db "select group_concat(distinct outcome) from runs where request_id in (select id from requests where submission_id = $s2)")" passed
check "...they were the watch's in the queue, not a person's" equals "$(db "select group_concat(distinct coalesce(watch, 'a person')) from runs where request_id in (select id from requests where submission_id = $s2)")" pw
check "...and /api/queue gives the series' times and turnaround" equals "$(curl -sf "$KF_URL/api/queue" | python3 -c "import json,sys; s=[x for x in json.load(sys.stdin)['series'] if x['submission'] == $s2][0]; print(s['watch'], s['version'], s['finished'], s['done'], s['queued_at'] <= s['started_at'] <= s['finished_at'], s['turnaround_ms'] == s['finished_at'] - s['queued_at'] > 0)")" "pw 2 True 4 True True"
check "...as does the /queue page" contains "$(curl -sf "$KF_URL/queue")" "<h2>watched series</h2>"
v2p=$(db "select patches from watch_series where submission_id = $s2")
check "...each v2 patch got pending, then success" equals "$(checks "p=json.loads('$v2p'); print(' '.join('%d:%s' % (x['patch'], x['state']) for x in c if x['patch'] in p and not x.get('rejected')))")" "$(python3 -c "p=$v2p; print(' '.join(['%d:pending' % i for i in p] + ['%d:success' % i for i in p]))")"
check "...the success says what ran and links the page" equals "$(checks "print([x for x in c if x.get('state') == 'success'][0]['description'], [x for x in c if x.get('state') == 'success'][0]['target_url'])")" "builds, and all 4 runs passed http://kfleet.invalid/submissions/$s2"
check "...the skipped series got no check" equals "$(checks "print(len([x for x in c if x['patch'] in json.loads('$(db "select patches from watch_series where remote_id = 3")')]))")" 0
check "the submission's page says where it was reported" contains "$(curl -sf "$KF_URL/submissions/$s2")" "patchwork series 2 v2 (reported"
mail=$T/mail/pw-2-v2.eml
check "the reply mail is written to report_dir" test -f "$mail"
check "...on the thread: In-Reply-To the cover letter" equals "$(grep '^In-Reply-To:' "$mail")" "In-Reply-To: <$(grep -m1 '^Message-Id:' "$T/series/good.mbox" | sed 's/^Message-Id: <\(.*\)>$/\1/')>"
check "...References it too" equals "$(grep '^References:' "$mail")" "References: <$(grep -m1 '^Message-Id:' "$T/series/good.mbox" | sed 's/^Message-Id: <\(.*\)>$/\1/')>"
check "...Re: the cover letter's subject" equals "$(grep '^Subject:' "$mail")" "Subject: Re: [PATCH fake-next v2 0/3] fake: count getpgid calls"
check "...to the author" equals "$(grep '^To:' "$mail")" "To: Fake Developer <fake-dev@kfleet.invalid>"
check "...with the runs per job" contains "$(cat "$mail")" "metrics-demo x86_64 1 vCPU: 4 runs, 4 passed"
check "...and the before/after table as kfleet prints it" sh -c "grep -q '^Before (base) and after (patched):' '$mail' && grep -q '^ops ' '$mail' && grep -q '^lat_p99 ' '$mail'"
check "once the server takes mail, every reply is sent, the refused one too" wait_for 60 "select count(*) from watch_series where watch = 'pw' and mail_sent_at is not null" 3
n=$(grep -l "In-Reply-To: <cover.1700000000" "$T"/smtp/*.eml | xargs grep -l "^Subject: Re: \[PATCH fake-next v2 0/3\]" | head -n 1)
check "the sink got v2's reply as written, byte for byte (CRLF lines)" sh -c "sed 's/\$/\r/' '$mail' | cmp -s - '$n'"
check "...from the watch's address, to the author and the list" equals "$(cat "${n%.eml}.json")" '{"mail_from": "kfleet@kfleet.invalid", "rcpt_tos": ["fake-dev@kfleet.invalid", "fake-list@kfleet.invalid"]}'
check "...Cc the list in its headers" equals "$(grep '^Cc:' "$mail")" "Cc: fake-list@kfleet.invalid"

# the lore watch's series: built (it names no jobs), reported by mail only
check "the lore series is reported" wait_for 60 "select verdict || ': ' || verdict_detail from watch_series where watch = 'lore'" "success: applies and builds (no jobs to run)"
check "...one row for the thread: the reply and the patches are not series" equals "$(db "select count(*) from watch_series where watch = 'lore'")" 1
lmail=$(db "select mail_path from watch_series where watch = 'lore'")
check "...its reply is written" equals "$(grep '^In-Reply-To:' "$lmail")" "In-Reply-To: <cover.1300000000.git.fake-dev@kfleet.invalid>"
check "...and not sent: the watch does not say send = yes" equals "$(db "select coalesce(mail_sent_at, 'no') from watch_series where watch = 'lore'") $(grep -l 'cover.1300000000' "$T"/smtp/*.eml 2>/dev/null | wc -l)" "no 0"

# bad answers on the second watch; the daemon and the first watch go on
pw /control/mode '{"project": "bad", "mode": "garbage"}' >/dev/null
check "an answer that is not JSON is an error of the watch" wait_for 30 "select last_error like '%not JSON%' from watches where name = 'bad'" 1
check "...shown on /watches" contains "$(curl -sf "$KF_URL/watches")" "not JSON"
check "...and its JSON" contains "$(curl -sf "$KF_URL/api/watches")" '"failing":'
pw /control/mode '{"project": "bad", "mode": "huge"}' >/dev/null
check "a huge answer is refused at the cap" wait_for 30 "select last_error like '%larger than 4 MiB%' from watches where name = 'bad'" 1
pw /control/mode '{"project": "bad", "mode": "slow"}' >/dev/null
check "a slow answer times out" wait_for 60 "select last_error like '%timed out%' from watches where name = 'bad'" 1
check "...backing off: the next poll is later each time" sh -c "test $(db "select failing from watches where name = 'bad'") -ge 3"
check "the daemon is alive" contains "$(curl -sf "$KF_URL/api/health")" "ok"
pw /control/mode '{"project": "bad", "mode": "ok"}' >/dev/null
pw /control/post "{\"mbox\": \"$T/series/conflict.mbox\", \"project\": \"bad\", \"version\": 1}" >/dev/null
pw /control/post "{\"mbox\": \"$T/series/gone.mbox\", \"project\": \"bad\", \"version\": 1, \"mbox_status\": 404}" >/dev/null
check "the watch recovers once answers are good" wait_for 90 "select failing from watches where name = 'bad'" 0
check "a series whose mbox is 404 is retried, saying why" wait_for 30 "select detail like 'try 1 failed: %HTTP 404%' from watch_series where watch = 'bad' and remote_id = 7" 1
check "a rejected token is logged" wait_for 60 "select count(*) > 0 from watch_log where watch = 'bad' and text like '%HTTP 401%Invalid token%'" 1
check "...the server saw the wrong token, and took no check" equals "$(checks "print(sorted(set(x['authorization'] for x in c if x.get('rejected'))), len([x for x in c if x['patch'] in json.loads('$(db "select patches from watch_series where watch = 'bad' and remote_id = 6")') and not x.get('rejected')]))")" "['Token wrong-token'] 0"
check "...and /watches says the check was not posted" contains "$(curl -sf "$KF_URL/watches")" "not posted: "
pw /control/post "{\"mbox\": \"$T/series/partial.mbox\", \"project\": \"bad\", \"version\": 1, \"received_all\": false}" >/dev/null
polls=$(db "select polls from watches where name = 'bad'")
check "a series whose patches are not all in is waited for" wait_for 30 "select polls >= $polls + 3 from watches where name = 'bad'" 1
check "...not taken, and the position does not pass it" equals "$(db "select count(*) from watch_series where remote_id = 8") $(db "select position < 8 from watches where name = 'bad'")" "0 1"
check "kfleet watch rm removes the CLI's watch" contains "$(kf watch rm bad 2>&1)" "watch 'bad': removed"
check "...and it is gone from the list" lacks "$(kf watch list 2>&1)" "bad "

kf_done
