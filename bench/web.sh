#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# bench/web.sh: the status pages and the JSON API on a busy fleet's
# database. It fills a scratch state directory with synthetic data through
# the sqlite3 CLI (1M runs, 20M metric samples, 5M subtest results, hosts,
# kernels, requests, submissions and builds; the schema is kfleetd's own),
# starts kfleetd on it and loads each page with wrk, printing requests,
# p50, p95 and max per path and whether p95 is under 100 ms (and the time
# of one request alone, before the load).
# Needs libvirtd, wrk, sqlite3 and a built tree (make).
# Usage: bench/web.sh [-d SECONDS] [-c CONNECTIONS] [-b OLD-BUILD-DIR]
#   -b  measure kfleetd from OLD-BUILD-DIR first (say, a build of the last
#       release), then let this tree's kfleetd migrate the same database
#       and measure again: before and after side by side
# RUNS=N scales the data (samples and results follow); WEB_DB=FILE keeps
# the filled database there, or starts from it when it exists.
# The queued runs are riscv64, which the bench's own host cannot take, so
# kfleetd leaves them queued; a few runs are made running after it started
# (its start-up recovery would requeue them) and done again before it stops.
set -e
DUR=10
CONNS=8
OLD=
while getopts d:c:b: o; do
	case $o in
	d) DUR=$OPTARG ;;
	c) CONNS=$OPTARG ;;
	b) OLD=$(cd "$OPTARG" && pwd) ;;
	*) sed -n '10,15p' "$0" >&2; exit 2 ;;
	esac
done
RUNS=${RUNS:-1000000}
. "$(dirname "$0")/lib.sh"
trap 'kill $PID 2>/dev/null || true; rm -rf "$T"' EXIT
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
DB=$T/var/kfleet.db
sq() { sqlite3 -cmd '.timeout 30000' "$DB" "$@"; }
ms() { date +%s%3N; }

# start_daemon BUILD-DIR: bench_daemon with the kfleetd of that build
start_daemon() {
	_top=$TOP _b=$B
	TOP=$(dirname "$1") B=$(basename "$1")
	bench_daemon
	TOP=$_top B=$_b
}
stop_daemon() {
	kill "$PID"
	wait "$PID" 2>/dev/null || true
}
# Waits until kfleetd has used no CPU for 0.3 s: requests that wrk left
# behind (slow pages) would otherwise weigh on the next path's figures
cpu() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
wait_idle() {
	a=$(cpu)
	for _ in $(seq 1 1200); do
		sleep 0.3
		b=$(cpu)
		[ "$a" = "$b" ] && return 0
		a=$b
	done
}

NEW=$TOP/${B}
FIRST=${OLD:-$NEW}
start_daemon "$FIRST"   # creates the state directory and the schema
stop_daemon

NQUEUED=1500
NRUNNING=20
NREQ=3000
NOW=$(ms)
Q0=$((RUNS - NQUEUED))           # runs past Q0 are queued
R0=$((RUNS - NREQ * 10 - 500))   # request k has the runs R0+10(k-1)+1 .. R0+10k
BIG=$((RUNS - 99980))            # a run with many results and samples
RQ1=$(((Q0 - NRUNNING - 200 - R0) / 10))   # requests past it are riscv64 (in the queue)
REQ=$((NREQ - 150))              # a done request of bpf-trigger (k % 9 == 0)
REQ=$((REQ - REQ % 9))

fill() {
	sq >/dev/null <<EOF
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1000000;
PRAGMA temp_store = MEMORY;
PRAGMA foreign_keys = OFF;
BEGIN;
CREATE TEMP TABLE seq (n INTEGER PRIMARY KEY);
INSERT INTO seq WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 99999)
  SELECT n FROM c;
-- the jobs: six bench jobs with their metrics (jobs/defs), two selftest
-- suites and LTP with subtest results; id % 10 == 9 is a plain command
CREATE TEMP TABLE jobs (j INTEGER PRIMARY KEY, name TEXT, vcpus INTEGER);
INSERT INTO jobs VALUES (0, 'bpf-trigger', 2), (1, 'getpgid-rate', 1), (2, 'prog-pack-load', 2),
  (3, 'sock-filter-churn', 4), (4, 'tcx-attach', 2), (5, 'uprobe-fork', 4),
  (6, 'kselftest-net', 4), (7, 'kselftest-bpf', 4), (8, 'ltp-syscalls', 2);
CREATE TEMP TABLE jm (job TEXT, metric TEXT, unit TEXT, nseq INTEGER, base REAL,
  PRIMARY KEY (job, metric));
INSERT INTO jm VALUES
  ('bpf-trigger', 'syscall-count', 'M/s', 8, 12.5), ('bpf-trigger', 'kprobe', 'M/s', 8, 9.1),
  ('bpf-trigger', 'tp', 'M/s', 8, 10.2), ('bpf-trigger', 'rawtp', 'M/s', 8, 11.0),
  ('bpf-trigger', 'fentry', 'M/s', 8, 11.7), ('getpgid-rate', 'syscall-count', 'M/s', 36, 14.0),
  ('prog-pack-load', 'base.calls_per_s', 'calls/s', 18, 5.0e5),
  ('prog-pack-load', 'loaded.calls_per_s', 'calls/s', 18, 4.6e5),
  ('sock-filter-churn', 'sockets', NULL, 7, 1000), ('sock-filter-churn', 'sockets_per_s', '1/s', 7, 8.0e4),
  ('sock-filter-churn', 'setsockopt_avg', 'ns', 7, 900), ('sock-filter-churn', 'setsockopt_p99', 'ns', 7, 2400),
  ('sock-filter-churn', 'setsockopt_max', 'ns', 7, 9000),
  ('tcx-attach', 'first_link_ingress', 'us', 12, 35), ('tcx-attach', 'first_link_egress', 'us', 12, 36),
  ('tcx-attach', 'bulk_create_attach', 'ms', 12, 210),
  ('uprobe-fork', 'busy.fork_max', 'us', 12, 800), ('uprobe-fork', 'busy.attach_avg', 'us', 12, 45),
  ('uprobe-fork', 'idle.fork_max', 'us', 12, 300);

-- 'local' (id 1) is kfleetd's own host
INSERT INTO hosts (id, name, uri, accel, qemu_version, libvirt_version, max_vcpus, memory_kb,
  updated_at)
  SELECT 1 + n, printf('fleet-%02d', n), printf('qemu+ssh://fleet-%02d/system', n), 'kvm',
    '8.2.2', '10.0.0', 256, 268435456, $NOW FROM seq WHERE n BETWEEN 1 AND 20;
-- kernel n is riscv64 when n % 20 == 19, arm64 when n % 20 == 9
INSERT INTO kernels (id, source, path, arch, sha256, release, created_at)
  SELECT n, 'imported', printf('/srv/kernels/vmlinuz-6.%d.0-rc%d-%d', n / 200, n % 8, n),
    CASE n % 20 WHEN 19 THEN 'riscv64' WHEN 9 THEN 'arm64' ELSE 'x86_64' END,
    printf('%064x', n * 2654435761), printf('6.%d.0-rc%d', n / 200, n % 8),
    $NOW - 400 * 86400000 + n * 1000
  FROM seq WHERE n BETWEEN 1 AND 2000;
INSERT INTO trees (name, url, branch, state, head, fetch_wanted, added_at, fetched_at)
  VALUES ('linux', 'https://example.org/linux.git', 'master', 'ready', printf('%040x', 1), 0, $NOW, $NOW),
  ('net-next', 'https://example.org/net-next.git', 'main', 'ready', printf('%040x', 2), 0, $NOW, $NOW),
  ('bpf-next', 'https://example.org/bpf-next.git', 'master', 'ready', printf('%040x', 3), 0, $NOW, $NOW);

-- the runs: a year of them, one a ~30 s; r is the request a run is in
CREATE TEMP TABLE rk AS
  WITH RECURSIVE c(id) AS (SELECT 1 UNION ALL SELECT id + 1 FROM c WHERE id < $RUNS)
  SELECT id, CASE WHEN id > $R0 AND id <= $R0 + $NREQ * 10 THEN (id - $R0 - 1) / 10 + 1 END AS r,
    (id * 2654435761 >> 7) % 100 AS h FROM c;
INSERT INTO runs (id, kernel_id, request_id, job, arch, vcpus, memory_mb, timeout_s, command,
  state, outcome, detail, attempt, max_attempts, host_id, accel, machine, qemu_version,
  libvirt_version, domain, queued_at, started_at, booted_at, ended_at, exit_code,
  guest_release, guest_nproc, guest_mem_kb)
SELECT id, k, r, job,
  CASE k % 20 WHEN 19 THEN 'riscv64' WHEN 9 THEN 'arm64' ELSE 'x86_64' END,
  coalesce(jv, 1 << ((id / 7) % 4)), 512, 600,
  CASE WHEN job IS NULL THEN printf('uname -a; ./stress-%d --seconds 30', id % 50)
       ELSE 'kfleet-job ' || job END,
  CASE WHEN id > $Q0 THEN 'queued' ELSE 'done' END,
  CASE WHEN id > $Q0 THEN NULL WHEN h < 85 THEN 'passed' WHEN h < 92 THEN 'failed'
       WHEN h < 94 THEN 'crash' WHEN h < 95 THEN 'timeout' WHEN h < 96 THEN 'no-boot'
       WHEN h < 98 THEN 'infra' WHEN h < 99 THEN 'canceled' ELSE 'skipped' END,
  CASE WHEN id <= $Q0 AND h >= 85 THEN 'synthetic: not passed' END,
  id <= $Q0, 2, CASE WHEN id <= $Q0 THEN 2 + (id * 2654435761 >> 11) % 20 END,
  CASE WHEN id <= $Q0 THEN 'kvm' END, CASE WHEN id <= $Q0 THEN 'pc-q35-8.2' END,
  CASE WHEN id <= $Q0 THEN '8.2.2' END, CASE WHEN id <= $Q0 THEN '10.0.0' END,
  CASE WHEN id <= $Q0 THEN printf('kf-bench-%d', id) END,
  q, CASE WHEN id <= $Q0 THEN q + 5000 END, CASE WHEN id <= $Q0 THEN q + 9000 END,
  CASE WHEN id <= $Q0 THEN q + 35000 + (id * 37) % 570000 END,
  CASE WHEN id <= $Q0 AND h < 92 THEN h >= 85 END,
  CASE WHEN id <= $Q0 THEN '6.9.0' END, CASE WHEN id <= $Q0 THEN 2 END,
  CASE WHEN id <= $Q0 THEN 500000 END
FROM (SELECT id, r, h, $NOW - ($RUNS - id) * 31536 AS q,
  -- a request's kernels: base and patched alternate; riscv64 in the queue
  CASE WHEN r IS NOT NULL THEN
         CASE WHEN r > $RQ1 THEN 19 ELSE 3 END + 20 * (r % 98) + 20 * ((id - $R0 - 1) % 2)
       WHEN id > $Q0 THEN 19 + 20 * (id % 100)
       WHEN id % 400 = 0 THEN 1 WHEN id % 400 = 10 THEN 2
       ELSE 1 + (id * 7919) % 2000 END AS k,
  j.name AS job, j.vcpus AS jv
  FROM rk LEFT JOIN jobs j ON j.j = CASE WHEN r IS NOT NULL THEN r % 9 ELSE id % 10 END);

INSERT INTO attempts (run_id, n, host_id, domain, started_at, ended_at, outcome, detail)
  SELECT id, 1, host_id, domain, started_at, ended_at, outcome, detail FROM runs
  WHERE state = 'done';

-- samples: a bench job's metrics, 7 to 36 each, of its passed and failed runs
INSERT INTO samples (run_id, metric, value, unit, seq)
  SELECT r.id, jm.metric, jm.base * (1.0 + ((abs(random()) % 2001) - 1000) / 20000.0), jm.unit, s.n
  FROM runs r CROSS JOIN jm CROSS JOIN seq s
  WHERE jm.job = r.job AND s.n < jm.nseq AND r.state = 'done' AND r.outcome IN ('passed', 'failed');
-- results: 15 subtests a selftest run, one a bench run
INSERT INTO results (run_id, path, status, duration_ms, detail)
  SELECT r.id, CASE WHEN j.j < 6 THEN r.job ELSE printf('%s:test_%02d', r.job, s.n) END,
    CASE WHEN j.j < 6 THEN CASE r.outcome WHEN 'passed' THEN 'pass' ELSE 'fail' END
         WHEN abs(random()) % 100 < 3 THEN 'fail' WHEN abs(random()) % 100 < 5 THEN 'skip'
         ELSE 'pass' END, 100 + s.n * 7, NULL
  FROM runs r CROSS JOIN jobs j CROSS JOIN seq s
  WHERE j.name = r.job AND s.n < CASE WHEN j.j < 6 THEN 1 ELSE 15 END AND r.state = 'done'
    AND r.outcome NOT IN ('no-boot', 'infra', 'canceled');
-- the run with many: 10000 more results and 20000 more samples
INSERT INTO results (run_id, path, status, detail)
  SELECT $BIG, printf('bigsuite:case_%05d', n),
    CASE WHEN n % 37 = 0 THEN 'fail' WHEN n % 11 = 0 THEN 'skip' ELSE 'pass' END,
    CASE WHEN n % 37 = 0 THEN 'synthetic failure' END FROM seq WHERE n < 10000;
INSERT INTO samples (run_id, metric, value, unit, seq)
  SELECT $BIG, jm.metric, jm.base * (1.0 + ((abs(random()) % 2001) - 1000) / 20000.0), jm.unit, s.n
  FROM jm CROSS JOIN seq s WHERE jm.job = 'bpf-trigger' AND s.n >= 8 AND s.n < 4008;

-- requests: 5 repeats a side; submissions with three requests each and
-- their base and patched builds
INSERT INTO submissions (id, created_at, tree, series_name, series_subject, series_json,
  series_count, base_spec, base_commit, base_why, patched_commit, arches, config, jobs,
  vcpus, repeats, state, started_at, ended_at)
  SELECT n, $NOW - ($NREQ / 3 - n) * 3600000, 'bpf-next', 'A Developer <dev@example.org>',
    printf('[PATCH bpf-next v%d 0/3] bpf: series %d', 1 + n % 4, n),
    '{"patches":[{"index":1,"title":"bpf: one","author":"A Developer","files":2,"insertions":40,"deletions":3},{"index":2,"title":"bpf: two","author":"A Developer","files":1,"insertions":12,"deletions":1},{"index":3,"title":"selftests/bpf: three","author":"A Developer","files":3,"insertions":120,"deletions":0}]}',
    3, 'bpf-next/master', printf('%040x', n), 'the tree''s head', printf('%040x', n + 1000000),
    'x86_64', 'tinyconfig', 'bpf-trigger,kselftest-bpf,ltp-syscalls', '2', 5,
    'testing', $NOW - ($NREQ / 3 - n) * 3600000, $NOW - ($NREQ / 3 - n) * 3600000 + 600000
  FROM seq WHERE n BETWEEN 1 AND $NREQ / 3;
INSERT INTO requests (id, created_at, base_kernel_id, patched_kernel_id, job, repeats,
  submission_id)
  SELECT r.request_id, min(r.queued_at), min(r.kernel_id), max(r.kernel_id), r.job, 5,
    (r.request_id - 1) / 3 + 1
  FROM runs r WHERE r.request_id IS NOT NULL GROUP BY r.request_id;
INSERT INTO builds (id, key, tree, commit_id, arch, config, config_hash, toolchain, state, dir,
  release, kernel_id, started_at, ended_at, ms)
  SELECT 2 * s.id - 1 + sd.side, printf('%064x', 2 * s.id - 1 + sd.side), 'bpf-next',
    printf('%040x', s.id + sd.side * 1000000), 'x86_64', 'tinyconfig', printf('%016x', 7), 'gcc-12',
    'done', printf('/var/lib/kfleet/builds/%d', 2 * s.id - 1 + sd.side), '6.10.0',
    CASE sd.side WHEN 0 THEN q.base_kernel_id ELSE q.patched_kernel_id END,
    s.created_at, s.created_at + 300000, 300000
  FROM submissions s JOIN requests q ON q.id = 3 * s.id - 2
  CROSS JOIN (SELECT 0 AS side UNION ALL SELECT 1) AS sd ORDER BY 1;
INSERT INTO submission_builds (submission_id, side, arch, build_id, reused)
  SELECT (id + 1) / 2, CASE id % 2 WHEN 1 THEN 'base' ELSE 'patched' END, 'x86_64', id, 0
  FROM builds;
COMMIT;
EOF
}

# What the later pages read: the request kernels (n % 20 == 3) built from
# bpf-next, a commit each (trends); three watches of a patchwork project
# (added by kfleet watch add, next polled in a month) with a year of
# series, their checks and logs, the first watch's series
# linked to the submissions (KCIDB state too); tests in quarantine (flaky)
fill_more() {
	sq >/dev/null <<EOF
PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA cache_size = -1000000;
BEGIN;
CREATE TEMP TABLE seq (n INTEGER PRIMARY KEY);
INSERT INTO seq WITH RECURSIVE c(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM c WHERE n < 9999)
  SELECT n FROM c;
UPDATE kernels SET source = 'built', tree = 'bpf-next', commit_id = printf('%040x', 3000000 + id),
  commit_order = id WHERE id % 20 = 3;
INSERT INTO watches (name, source, spec, created_at, position, position_date, last_poll_at,
  last_ok_at, next_poll_at, polls, found, queued, errors, failing, last_error, last_error_at)
  SELECT printf('netdev-%d', n), 'cli',
    '{"patchwork":"https://patchwork.example.org","project":"netdevbpf","token":"secret","jobs":"kselftest-bpf"}',
    $NOW - 365 * 86400000, 3000, '2025-01-01T00:00:00', $NOW - 60000, $NOW - 60000, $NOW + 30 * 86400000,
    105120, 3000, 2900, 12, 0, 'patchwork: HTTP 502', $NOW - 86400000
  FROM seq WHERE n BETWEEN 1 AND 3;
INSERT INTO watch_series (id, watch, remote_id, msgid, version, name, subject, submitter, web_url,
  mbox_url, patches, seen_at, state, detail, tree, base, tries, submission_id, pending_posted,
  verdict, verdict_detail, reported_at, mail_path, mail_sent_at, kcidb_at, kcidb_path)
  SELECT 3000 * (w.n - 1) + s.n + 1, printf('netdev-%d', w.n), 800000 + 3000 * w.n + s.n,
    printf('<%d.%d@example.org>', w.n, s.n), 1 + s.n % 3, printf('bpf: series %d', s.n),
    printf('[PATCH bpf-next v%d 0/3] bpf: series %d', 1 + s.n % 3, s.n), 'A Developer <dev@example.org>',
    printf('https://patchwork.example.org/project/netdevbpf/list/?series=%d', s.n),
    printf('https://patchwork.example.org/series/%d/mbox/', s.n), '[1,2,3]',
    $NOW - (3000 - s.n) * 10512000, CASE WHEN s.n % 10 = 0 THEN 'skipped' ELSE 'reported' END,
    CASE WHEN s.n % 10 = 0 THEN 'no tag of the tree' END, 'bpf-next', 'bpf-next/master', 1,
    CASE WHEN w.n = 1 AND s.n < $NREQ / 3 THEN s.n + 1 END, 1,
    CASE WHEN s.n % 10 != 0 THEN CASE WHEN s.n % 7 = 0 THEN 'fail' ELSE 'success' END END,
    CASE WHEN s.n % 10 != 0 THEN 'synthetic' END, $NOW - (3000 - s.n) * 10512000 + 3600000,
    printf('/var/lib/kfleet/mail/%d-%d.eml', w.n, s.n), $NOW - (3000 - s.n) * 10512000 + 3600000,
    $NOW - (3000 - s.n) * 10512000 + 3600000, printf('/var/lib/kfleet/kcidb/%d-%d.json', w.n, s.n)
  FROM seq w CROSS JOIN seq s WHERE w.n BETWEEN 1 AND 3 AND s.n < 3000;
INSERT INTO watch_checks (series_id, patch_id, state, description, target_url, posted_at,
  http_status)
  SELECT ws.id, 5000000 + 4 * ws.id + p.n, CASE WHEN ws.verdict = 'fail' THEN 'fail' ELSE 'success' END,
    'kfleet: synthetic', 'http://kfleet.example.org/submissions/1', ws.reported_at, 201
  FROM watch_series ws CROSS JOIN seq p WHERE p.n < 4 AND ws.state = 'reported';
INSERT INTO watch_log (watch, at, level, text)
  SELECT printf('netdev-%d', w.n), $NOW - (200 - l.n) * 300000, CASE WHEN l.n % 17 = 0 THEN 'warn' ELSE 'info' END,
    printf('poll: %d new series', l.n % 3) FROM seq w CROSS JOIN seq l WHERE w.n BETWEEN 1 AND 3 AND l.n < 200;
INSERT INTO quarantine (path, job, arch, vcpus, since, since_run_id, reason, runs, fails, flips,
  chances, last_run_id, updated_at)
  SELECT printf('kselftest-net:test_%02d', n), 'kselftest-net', 'x86_64', 4, $NOW - n * 86400000,
    $Q0 - 1000 * n, 'flipped 4 times in 20 runs', 20, 6, 4, 19, $Q0 - 10, $NOW
  FROM seq WHERE n BETWEEN 1 AND 5;
COMMIT;
EOF
}

echo "filling $DB: $RUNS runs ($(df -h --output=avail "$T" | tail -n 1 | tr -d ' ') free)"
t0=$(ms)
if [ -n "$WEB_DB" ] && [ -f "$WEB_DB" ]; then
	cp "$WEB_DB" "$DB"
	rm -f "$DB-wal" "$DB-shm"
	echo "copied from $WEB_DB"
else
	fill
	fill_more
	[ -n "$WEB_DB" ] && cp "$DB" "$WEB_DB"
fi
# a database kept by an older bench/web.sh lacks what fill_more adds
if [ "$(sq 'SELECT count(*) FROM watches')" = 0 ]; then
	fill_more
	[ -n "$WEB_DB" ] && cp "$DB" "$WEB_DB"
fi
t1=$(ms)
sq "SELECT printf('filled in %.1f s: %d runs, %d samples, %d results, %d requests, %d submissions; %d MB',
	$((t1 - t0)) / 1000.0, (SELECT count(*) FROM runs), (SELECT count(*) FROM samples),
	(SELECT count(*) FROM results), (SELECT count(*) FROM requests),
	(SELECT count(*) FROM submissions), page_count * page_size / 1000000)
	FROM pragma_page_count, pragma_page_size"

A=1
B_K=2
JOB=bpf-trigger
SUB=$(sq "SELECT submission_id FROM requests WHERE id = $REQ")
RUNNING="SELECT id FROM runs WHERE id > $Q0 - $NRUNNING AND id <= $Q0"
BUILD=$(sq "SELECT build_id FROM submission_builds WHERE submission_id = $SUB AND side = 'patched'")
# the KCIDB export of the last hour's runs (about 115)
SINCE=$(sq "SELECT strftime('%Y-%m-%dT%H:%M:%S', max(ended_at) / 1000 - 3600, 'unixepoch') FROM runs")
TREND="tree=bpf-next&job=$JOB"
PATHS="/ /queue /hosts /runs/$BIG /runs/$BIG?page=40 /requests/$REQ /submissions/$SUB
/submissions /trees /builds/$BUILD /jobs /jobs/$JOB /trends /trends/view?$TREND /watches /flaky
/api/runs /api/runs/$BIG /api/runs/$BIG/results?offset=9000 /api/requests/$REQ
/api/submissions/$SUB /api/submissions /api/builds /api/compare?a=$A&b=$B_K&job=$JOB /api/queue
/api/hosts /api/jobs/$JOB /api/trend?$TREND /api/watches /api/flaky
/api/export/kcidb?since=$SINCE"

cat > "$T/report.lua" <<'EOF'
done = function(summary, latency, requests)
	local e = summary.errors
	io.write(string.format("WRK %d %d %d %d %d %d\n", summary.requests,
		latency:percentile(50), latency:percentile(95), latency.max, e.status,
		e.connect + e.read + e.write + e.timeout))
end
EOF

# measure LABEL: every path under wrk, one line each
measure() {
	lab=$1
	sq "UPDATE runs SET state = 'running', outcome = NULL, ended_at = NULL, exit_code = NULL
		WHERE id IN ($RUNNING)" >/dev/null
	printf '%-7s %-44s %8s %8s %8s %8s %8s  %s\n' "" path "1 req ms" requests "p50 ms" \
		"p95 ms" "max ms" "p95<=50"
	for p in $PATHS; do
		url="http://127.0.0.1:$port$p"
		set -- $(curl -s -o "$T/body" -w '%{http_code} %{time_total}' "$url")
		[ "$1" = 200 ] || { echo "$p: HTTP $1: $(head -c 300 "$T/body")" >&2; exit 1; }
		one=$2
		wrk -t2 -c"$CONNS" -d"${DUR}s" --timeout 60s -s "$T/report.lua" "$url" > "$T/wrk" 2>&1 ||
			{ cat "$T/wrk" >&2; exit 1; }
		set -- $(sed -n 's/^WRK //p' "$T/wrk")
		[ "$5" = 0 ] && [ "$6" = 0 ] || echo "$p: $5 non-2xx replies, $6 socket errors" >&2
		wait_idle
		awk -v l="$lab" -v d="$DUR" -v o="$one" -v p="$p" -v n="$1" -v a="$2" -v b="$3" -v m="$4" 'BEGIN {
			if (n == 0) {
				printf "%-7s %-44s %8.1f %8d  none in %d s    NO\n", l, p, o * 1000, n, d
				exit
			}
			printf "%-7s %-44s %8.1f %8d %8.1f %8.1f %8.1f  %s\n", l, p, o * 1000, n,
				a / 1000, b / 1000, m / 1000, b <= 50000 ? "yes" : "NO" }'
	done
	sq "UPDATE runs SET state = 'done', outcome = 'passed', ended_at = started_at + 60000,
		exit_code = 0 WHERE id IN ($RUNNING)" >/dev/null
}

run_once() {
	label=$1
	t0=$(ms)
	start_daemon "$2"
	echo "kfleetd $2 up in $(($(ms) - t0)) ms (schema $(sq 'PRAGMA user_version'))"
	[ "$(sq "SELECT count(*) FROM runs WHERE state = 'queued'")" = "$NQUEUED" ] ||
		{ echo "kfleetd took queued runs" >&2; exit 1; }
	measure "$label"
	stop_daemon
}

echo "wrk -t2 -c$CONNS -d${DUR}s per path; $(nproc) CPUs"
if [ -n "$OLD" ]; then
	run_once before "$OLD"
	run_once after "$NEW"
else
	run_once "" "$NEW"
fi
