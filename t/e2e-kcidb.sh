#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# KCIDB export end to end: a patchwork watch (t/data/patchwork/server.py)
# takes a series of the fake-kbuild tree, builds base and patched and runs
# a job with metrics on real guests; its KCIDB export is POSTed to a
# KCIDB-shaped receiver on loopback (t/data/kcidb/sink.py) that answers
# 500 first (the error shown on /api/watches, then retried), and a lore
# watch with no jobs writes its export to report_dir. Every export, and
# `kfleet export kcidb` of everything, is checked against kcidb-io's
# schema v4.5 (t/data/kcidb/schema-v4.5.json) with Debian's
# python3-jsonschema; a second export has the same ids, --since narrows
# it, and a bad --since is refused with what and where. The export is
# what another CI can match: ids ORIGIN:INSTANCE:..., every link under
# [daemon] public_url, the patchset hash by KCIDB's own recipe on the
# patch files, the checkout's log_url a plain-text git am log, and the
# POST carries kcidb_token_file's Bearer token (the receiver refuses
# anything else).
# tier: quick (builds no real kernel, under a minute: make check-quick)
. "$(dirname "$0")/lib.sh"

pw() { curl -sf -X POST -H 'Content-Type: application/json' -d "$2" "$PW$1"; }
SCHEMA=$TOP/t/data/kcidb/schema-v4.5.json
validate() { /usr/bin/python3 "$TOP/t/data/kcidb/validate.py" "$SCHEMA" "$@"; }
# ids FILE: every id of the report, one a line, sorted
ids() { /usr/bin/python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('\n'.join(sorted(o['id'] for k in ('checkouts','builds','tests') for o in r.get(k, []))))" "$1"; }
# count FILE KIND
count() { /usr/bin/python3 -c "import json,sys; print(len(json.load(open(sys.argv[1])).get(sys.argv[2], [])))" "$1" "$2"; }

sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
sh "$TOP/t/fake-kbuild/mkseries.sh" "$T/tree" "$T/series" >/dev/null
sed -e 's/\.1700000000\.git\./.1300000000.git./g' "$T/series/with-reply.mbox" > "$T/series/lore.mbox"

python3 "$TOP/t/data/patchwork/server.py" "$T/pw.port" secret-token 2> "$T/pw.log" &
PW_PID=$!
mkdir -p "$T/sink"
echo 1 > "$T/sink/fail"
/usr/bin/python3 "$TOP/t/data/kcidb/sink.py" "$T/sink.port" "$T/sink" 2> "$T/sink.log" &
SINK_PID=$!
trap 'kill $PW_PID $SINK_PID 2>/dev/null; kf_cleanup' EXIT
for _ in $(seq 1 50); do [ -s "$T/pw.port" ] && [ -s "$T/sink.port" ] && break; sleep 0.1; done
PW=http://127.0.0.1:$(cat "$T/pw.port")
SINK=http://127.0.0.1:$(cat "$T/sink.port")

SLOTS=1 kf_config "
[watch pw]
patchwork = $PW
project = fake
tags = fake-next=fake
jobs = metrics-demo
arches = x86_64
repeat = 1
interval = 2
timeout = 3
kcidb = $SINK/submit
kcidb_token_file = $T/kcidb.token

[watch lore]
lore = $PW/lore/fakelist
tree = fake
interval = 2
timeout = 3
report_dir = $T/mail-lore
kcidb = file"
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-e2e\nkcidb_origin = kfleet_e2e\npublic_url = https://kfleet.example.org:8443/ci/|" "$T/kfleetd.ini"
# the receiver takes only this token, as kcidb-ng's REST API would
echo "kcidb-e2e-$$-token" > "$T/kcidb.token"
cp "$T/kcidb.token" "$T/sink/token"
PUB=https://kfleet.example.org:8443/ci

cp "$T/kfleetd.ini" "$T/bad.ini"
printf '\n[watch bad]\npatchwork = %s\nproject = x\ntree = fake\nkcidb = ftp://nowhere\n' "$PW" >> "$T/bad.ini"
sed -i 's|^public_url = .*|public_url = https://user@kfleet.example.org/|' "$T/bad.ini"
sed -i 's/^kcidb_origin = kfleet_e2e$/kcidb_origin = Not-An-Origin/' "$T/bad.ini"
out=$("$BIN/kfleetd" -n -c "$T/bad.ini" 2>&1)
check "kfleetd -n: a bad kcidb value names its line" contains "$out" "bad.ini:$(grep -n '^kcidb = ftp' "$T/bad.ini" | cut -d: -f1): [watch bad]: kcidb: 'ftp://nowhere' is not file, a directory (absolute) or an http(s) URL"
check "...and a bad origin its own" contains "$out" "bad.ini:$(grep -n '^kcidb_origin' "$T/bad.ini" | cut -d: -f1): kcidb_origin: 'Not-An-Origin' is not 1 to 64 of a-z 0-9 _"
check "...a public_url with a user in it its own" contains "$out" "bad.ini:$(grep -n '^public_url' "$T/bad.ini" | cut -d: -f1): public_url: 'https://user@kfleet.example.org/': byte 13 (0x40) is not allowed in it"
cp "$T/kfleetd.ini" "$T/bad2.ini"
printf '\n[watch bad2]\npatchwork = %s\nproject = x\ntree = fake\nreport_dir = /tmp\nkcidb = file\nkcidb_token_file = %s\n' "$PW" "$T/kcidb.token" >> "$T/bad2.ini"
out=$("$BIN/kfleetd" -n -c "$T/bad2.ini" 2>&1)
check "...and a Bearer token for a KCIDB file is refused" contains "$out" "[watch bad2]: kcidb_token_file: only with kcidb = an http(s) URL"

check "kfleetd starts" kf_start
kf tree add fake "$T/tree" >/dev/null 2>&1
wait_for 30 "select state from trees where name = 'fake'" ready
pw /control/post "{\"mbox\": \"$T/series/good.mbox\", \"project\": \"fake\", \"version\": 2}" >/dev/null
pw /control/lore "{\"mbox\": \"$T/series/lore.mbox\", \"list\": \"fakelist\"}" >/dev/null

# the lore watch's series: built, no jobs, reported, its export a file
check "a lore series with no jobs is reported" wait_for 120 "select state from watch_series where watch = 'lore'" reported
check "...and its KCIDB export written to report_dir" wait_for 30 "select kcidb_path like '$T/mail-lore/lore-m%-v2.kcidb.json' from watch_series where watch = 'lore'" 1
lore_file=$(db "select kcidb_path from watch_series where watch = 'lore'")
check "...and its reply mail links the submission under public_url" grep -q "$PUB/submissions/$(db "select submission_id from watch_series where watch = 'lore'")" "$(db "select mail_path from watch_series where watch = 'lore'")"
out=$(validate "$lore_file" 2>&1)
check "...valid against kcidb-io's schema v4.5: two checkouts, two builds, no tests" equals "$out" "ok: 2 checkouts, 2 builds, 0 tests"

# the patchwork watch's series: two runs, then a POST that fails once
check "the patchwork series is reported once its runs end" wait_for 300 "select state from watch_series where watch = 'pw'" reported
check "...its first KCIDB POST fails (the receiver says 500)" wait_for 30 "select kcidb_tries from watch_series where watch = 'pw'" 1
out=$(curl -sf "$KF_URL/api/watches")
check "...which /api/watches shows" contains "$out" "/submit': HTTP 500: sink told to fail"
out=$(curl -sf "$KF_URL/watches")
check "...and /watches" contains "$out" "KCIDB export not sent: "
check "...and the log says when it is tried again" wait_for 5 "select count(*) from watch_log where watch = 'pw' and text like '%KCIDB export not sent (again in 10 s)%HTTP 500%'" 1
check "...it is, and the receiver takes it" wait_for 40 "select kcidb_at is not null and kcidb_error is null from watch_series where watch = 'pw'" 1
check "...once" equals "$(curl -sf "$SINK/received")" 1
check "...with the Bearer token of kcidb_token_file" equals "$(sort -u "$T/sink/auth.log")" "Bearer $(cat "$T/kcidb.token")"
out=$(validate "$T/sink/1.json" 2>&1)
check "the POSTed report is valid against the schema" contains "$out" "ok: 2 checkouts, 2 builds, "
sub=$(db "select submission_id from watch_series where watch = 'pw'")
out=$(/usr/bin/python3 -c "
import json,sys
r = json.load(open(sys.argv[1]))
runs = [t for t in r['tests'] if t['id'].count('-') == 1]
ms = sorted(t['path'] + '=' + str(t['number']['value']) + ' ' + t['number']['unit'] for t in r['tests'] if 'number' in t)
print(len(runs), sorted(set(t['status'] for t in runs)), sorted(set(t['origin'] for t in r['tests'])), ms[:2],
      r['checkouts'][1]['id'].startswith('kfleet_e2e:' + sys.argv[2] + ':fake@'), len(r['checkouts'][1].get('patchset_hash', '')),
      runs[0]['environment']['misc']['accel'], runs[0]['log_url'].startswith(sys.argv[3] + '/runs/'))
" "$T/sink/1.json" "$(cat "$T/instance")" "$PUB")
check "...its tests: a run on each kernel, passed, their metrics as medians, the series' checkout (its id with the instance) with its patchset hash, links under public_url" equals "$out" "2 ['PASS'] ['kfleet_e2e'] ['metrics-demo.metrics.lat_p99=4.2 ms', 'metrics-demo.metrics.lat_p99=4.2 ms'] True 64 tcg True"
# every id carries the database's instance id: another install, or a new
# state directory, never gives build-1 again
check "...every id is ORIGIN:INSTANCE:..." equals "$(ids "$T/sink/1.json" | grep -vc "^kfleet_e2e:$(cat "$T/instance"):")" 0
# KCIDB's recipe on the patches as files: sha256sum *.patch | cut -c-64 |
# sha256sum; the mbox is format-patch's files one after the other, the
# cover letter (0/3) not a patch
mkdir -p "$T/patches"
awk -v d="$T/patches" '/^From [0-9a-f]{40} /{ n++ } { print > (d "/" sprintf("%04d", n - 1) ".patch") }' "$T/series/good.mbox"
want=$(cd "$T/patches" && rm -f 0000.patch && sha256sum *.patch | cut -c-64 | sha256sum | cut -c-64)
got=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checkouts'][1]['patchset_hash'])" "$T/sink/1.json")
check "...the patchset hash is KCIDB's recipe on the 3 patch files" sh -c "[ \$(ls '$T/patches' | wc -l) = 3 ] && [ '$got' = '$want' ]"
# the checkout's log_url: plain text, git am's output
lu=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['checkouts'][1]['log_url'])" "$T/sink/1.json")
check "...the checkout's log_url is under public_url" equals "$lu" "$PUB/submissions/$(db "select submission_id from watch_series where watch = 'pw'")/log"
ct=$(curl -s -o "$T/checkout.log" -w '%{content_type}' "$KF_URL${lu#"$PUB"}")
check "...and is a plain-text log" equals "$ct" "text/plain; charset=utf-8"
check "...with git am's output, patch by patch" has "$(cat "$T/checkout.log")" "base:    " "\$ git am -3" "Applying: "
# the pages answer to public_url's name (a reverse proxy), not to any other
check "a request for public_url's Host is served" equals "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: kfleet.example.org:8443' "$KF_URL/api/health")" 200
check "...one for another name is not" lacks "$(curl -s -o /dev/null -w '%{http_code}' -H 'Host: evil.example.org' "$KF_URL/api/health")" 200

# kfleet export kcidb: everything, twice; --since; bad input
out=$(kf export kcidb -o "$T/all.json" 2>&1)
check "kfleet export kcidb writes a file" contains "$out" "tests written to '$T/all.json'"
check "...valid against the schema" contains "$(validate "$T/all.json" 2>&1)" "ok: "
check "...both series' checkouts, builds and tests, once each" equals "$(ids "$T/all.json")" "$( (ids "$lore_file"; ids "$T/sink/1.json") | sort -u)"
kf export kcidb > "$T/all2.json"
check "...a second export has the same ids" equals "$(ids "$T/all2.json")" "$(ids "$T/all.json")"
check "...and is the same report" equals "$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1])) == json.load(open(sys.argv[2])))" "$T/all.json" "$T/all2.json")" True
kf export kcidb --since 1d > "$T/day.json"
check "--since 1d: all of it" equals "$(ids "$T/day.json")" "$(ids "$T/all.json")"
kf export kcidb --since "$(date -u -d tomorrow +%Y-%m-%d)" > "$T/none.json"
check "--since tomorrow: nothing" equals "$(count "$T/none.json" tests) $(count "$T/none.json" builds) $(count "$T/none.json" checkouts)" "0 0 0"
check "...still a valid report" contains "$(validate "$T/none.json" 2>&1)" "ok: 0 checkouts, 0 builds, 0 tests"
kf export kcidb --submission "$sub" > "$T/sub.json"
check "--submission: the watch's report" equals "$(ids "$T/sub.json")" "$(ids "$T/sink/1.json")"
out=$(kf export kcidb --since garbage 2>&1); rc=$?
check "--since garbage is refused" equals "$rc" 2
check "...saying what and where" contains "$out" "kfleet: export: 400: since: 'garbage' is not a date (YYYY-MM-DD[THH:MM:SS], UTC) or a time ago (30m, 12h, 7d)"
out=$(curl -s "$KF_URL/api/export/kcidb?submission=x%00y")
check "a bad ?submission= is a clear 400" contains "$out" "submission: 'x' is not a submission id"
out=$(kf export other 2>&1)
check "kfleet export of an unknown kind says so" contains "$out" "unknown kind 'other'"
check "kfleetd is still up" curl -sf "$KF_URL/api/health" -o /dev/null
kf_done
