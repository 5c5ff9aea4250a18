// SPDX-License-Identifier: GPL-2.0-only
/* migrate.c: the schema, as numbered steps. db_open() runs every step above
 * the file's PRAGMA user_version, each in its own transaction. A step, once
 * released, never changes: new needs get a new step at the end. */
#include "db/db.h"
#include "db/dbint.h"

const char *const db_migrations[] = {
	/* 1: hosts, kernels, runs (the queue), attempts, results, samples */
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE hosts ("
	"  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, uri TEXT NOT NULL,"
	"  accel TEXT, qemu_version TEXT, libvirt_version TEXT,"
	"  max_vcpus INTEGER, memory_kb INTEGER, updated_at INTEGER NOT NULL);"
	"CREATE TABLE kernels ("
	"  id INTEGER PRIMARY KEY,"
	"  source TEXT NOT NULL CHECK (source IN ('imported','built')),"
	"  path TEXT NOT NULL, arch TEXT NOT NULL, sha256 TEXT NOT NULL,"
	"  tree TEXT, commit_id TEXT, config_hash TEXT, release TEXT,"
	"  created_at INTEGER NOT NULL, UNIQUE (path, sha256));"
	"CREATE TABLE runs ("
	"  id INTEGER PRIMARY KEY,"
	"  kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  request_id INTEGER, job TEXT,"
	"  arch TEXT NOT NULL, vcpus INTEGER NOT NULL CHECK (vcpus > 0),"
	"  memory_mb INTEGER NOT NULL CHECK (memory_mb > 0),"
	"  timeout_s INTEGER NOT NULL CHECK (timeout_s > 0), command TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('queued','running','done')),"
	"  outcome TEXT, detail TEXT, splat TEXT,"
	"  attempt INTEGER NOT NULL DEFAULT 0, max_attempts INTEGER NOT NULL DEFAULT 2,"
	"  host_id INTEGER REFERENCES hosts(id), accel TEXT, machine TEXT,"
	"  qemu_version TEXT, libvirt_version TEXT, domain TEXT,"
	"  queued_at INTEGER NOT NULL, started_at INTEGER, booted_at INTEGER, ended_at INTEGER,"
	"  exit_code INTEGER, guest_release TEXT, guest_nproc INTEGER, guest_mem_kb INTEGER,"
	"  run_dir TEXT);"
	"CREATE INDEX runs_state ON runs (state, id);"
	"CREATE TABLE attempts ("
	"  run_id INTEGER NOT NULL REFERENCES runs(id), n INTEGER NOT NULL,"
	"  host_id INTEGER REFERENCES hosts(id), domain TEXT,"
	"  started_at INTEGER NOT NULL, ended_at INTEGER, outcome TEXT, detail TEXT,"
	"  PRIMARY KEY (run_id, n));"
	"CREATE TABLE results ("
	"  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  path TEXT NOT NULL,"
	"  status TEXT NOT NULL CHECK (status IN"
	"    ('pass','fail','skip','xfail','error','timeout','missing')),"
	"  duration_ms INTEGER, detail TEXT);"
	"CREATE INDEX results_run ON results (run_id, path);"
	"CREATE TABLE samples ("
	"  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id),"
	"  metric TEXT NOT NULL, value REAL NOT NULL, unit TEXT,"
	"  seq INTEGER NOT NULL DEFAULT 0);"
	"CREATE INDEX samples_run ON samples (run_id, metric);",
	/* 2: whether a host is in placement, and why not */
	"ALTER TABLE hosts ADD COLUMN healthy INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE hosts ADD COLUMN health_detail TEXT;",
	/* 3: guest CPU topology (sockets:cores:threads) and NUMA nodes */
	"ALTER TABLE runs ADD COLUMN topology TEXT;"
	"ALTER TABLE runs ADD COLUMN numa_nodes INTEGER NOT NULL DEFAULT 1;",
	/* 4: requests: a base and a patched kernel, repeats interleaved */
	"CREATE TABLE requests ("
	"  id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL,"
	"  base_kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  patched_kernel_id INTEGER NOT NULL REFERENCES kernels(id),"
	"  job TEXT, repeats INTEGER NOT NULL);"
	"CREATE INDEX runs_request ON runs (request_id, id);"
	"CREATE INDEX runs_kernel_job ON runs (kernel_id, job, state);",
	/* 5: kernel trees, submissions of a series (or a commit) to build and
	 * test, builds (content-addressed artifacts) and what links them */
	"CREATE TABLE trees ("
	"  id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, url TEXT NOT NULL, branch TEXT,"
	"  state TEXT NOT NULL CHECK (state IN ('new','ready','error')),"
	"  detail TEXT, head TEXT, fetch_wanted INTEGER NOT NULL DEFAULT 1,"
	"  added_at INTEGER NOT NULL, fetched_at INTEGER);"
	"CREATE TABLE submissions ("
	"  id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, tree TEXT NOT NULL,"
	"  series_name TEXT, series_subject TEXT, series_json TEXT,"
	"  series_count INTEGER NOT NULL DEFAULT 0, mbox_path TEXT,"
	"  base_spec TEXT, base_commit TEXT, base_why TEXT, patched_commit TEXT,"
	"  arches TEXT NOT NULL, config TEXT NOT NULL, fragments TEXT, jobs TEXT, vcpus TEXT,"
	"  repeats INTEGER NOT NULL DEFAULT 1, memory_mb INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL CHECK (state IN ('queued','building','testing','done','failed')),"
	"  outcome TEXT, detail TEXT, apply_log TEXT, started_at INTEGER, ended_at INTEGER);"
	"CREATE INDEX submissions_state ON submissions (state, id);"
	"CREATE TABLE builds ("
	"  id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, tree TEXT NOT NULL,"
	"  commit_id TEXT NOT NULL, arch TEXT NOT NULL, config TEXT NOT NULL,"
	"  config_hash TEXT NOT NULL, toolchain TEXT NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN ('building','done','failed')),"
	"  detail TEXT, errors TEXT, dropped TEXT, dir TEXT NOT NULL, release TEXT,"
	"  kernel_id INTEGER REFERENCES kernels(id),"
	"  started_at INTEGER NOT NULL, ended_at INTEGER, ms INTEGER);"
	"CREATE TABLE submission_builds ("
	"  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
	"  side TEXT NOT NULL CHECK (side IN ('base','patched')), arch TEXT NOT NULL,"
	"  build_id INTEGER NOT NULL REFERENCES builds(id), reused INTEGER NOT NULL,"
	"  PRIMARY KEY (submission_id, side, arch));"
	"CREATE TABLE applies ("
	"  tree TEXT NOT NULL, base_commit TEXT NOT NULL, series_hash TEXT NOT NULL,"
	"  commit_id TEXT NOT NULL, PRIMARY KEY (tree, base_commit, series_hash));"
	"ALTER TABLE requests ADD COLUMN submission_id INTEGER REFERENCES submissions(id);"
	"ALTER TABLE kernels ADD COLUMN commit_order INTEGER;"   /* git rev-list --count */
	"ALTER TABLE runs ADD COLUMN submission_id INTEGER REFERENCES submissions(id);"
	"CREATE INDEX kernels_tree ON kernels (tree, commit_order);"
	"CREATE INDEX requests_submission ON requests (submission_id);",
	/* 6: what the pages read at a busy fleet's scale without scanning
	 * every run: runs of one kind, newest first (the queue's medians),
	 * a submission's plain runs, and the runs per host and state, kept
	 * by triggers (the status page's counts, the hosts page) */
	"CREATE INDEX runs_kind ON runs (job, arch, vcpus, state);"
	"CREATE INDEX runs_kind_command ON runs (command, arch, vcpus, state) WHERE job IS NULL;"
	"CREATE INDEX runs_submission ON runs (submission_id) WHERE submission_id IS NOT NULL;"
	"CREATE TABLE run_counts ("
	"  host_id INTEGER NOT NULL,"   /* 0: none */
	"  state TEXT NOT NULL, n INTEGER NOT NULL,"
	"  PRIMARY KEY (host_id, state)) WITHOUT ROWID;"
	"INSERT INTO run_counts SELECT coalesce(host_id, 0), state, count(*) FROM runs"
	"  GROUP BY 1, 2;"
	"CREATE TRIGGER runs_count_insert AFTER INSERT ON runs BEGIN"
	"  INSERT INTO run_counts VALUES (coalesce(new.host_id, 0), new.state, 1)"
	"    ON CONFLICT (host_id, state) DO UPDATE SET n = n + 1;"
	"END;"
	"CREATE TRIGGER runs_count_delete AFTER DELETE ON runs BEGIN"
	"  UPDATE run_counts SET n = n - 1"
	"    WHERE host_id = coalesce(old.host_id, 0) AND state = old.state;"
	"END;"
	"CREATE TRIGGER runs_count_update AFTER UPDATE OF state, host_id ON runs"
	"  WHEN old.state IS NOT new.state OR old.host_id IS NOT new.host_id BEGIN"
	"  UPDATE run_counts SET n = n - 1"
	"    WHERE host_id = coalesce(old.host_id, 0) AND state = old.state;"
	"  INSERT INTO run_counts VALUES (coalesce(new.host_id, 0), new.state, 1)"
	"    ON CONFLICT (host_id, state) DO UPDATE SET n = n + 1;"
	"END;",
	/* 7: the guest's CPU model, next to accel and machine: results from
	 * different CPU models are not the same measurement */
	"ALTER TABLE runs ADD COLUMN cpu_model TEXT;",
	/* 8: a submission may test a kernel built elsewhere (a distro's, or
	 * one built by hand): its file, with the tree only for the selftests */
	"ALTER TABLE submissions ADD COLUMN kernel TEXT;",
	/* 9: bisections: the range fixed by commit ids, the cell and the
	 * symptom; each tested commit a step with its answer and why, and the
	 * submissions (one per batch of runs) that built and ran it */
	"CREATE TABLE bisections ("
	"  id INTEGER PRIMARY KEY, created_at INTEGER NOT NULL, tree TEXT NOT NULL,"
	"  good TEXT NOT NULL, bad TEXT NOT NULL, good_spec TEXT, bad_spec TEXT,"
	"  job TEXT NOT NULL,"
	"  kind TEXT NOT NULL CHECK (kind IN ('job','test','crash','metric')), target TEXT,"
	"  higher_better INTEGER, arch TEXT NOT NULL, vcpus INTEGER NOT NULL,"
	"  memory_mb INTEGER NOT NULL DEFAULT 0, config TEXT, fragments TEXT,"
	"  repeats INTEGER NOT NULL, first_parent INTEGER NOT NULL DEFAULT 0,"
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('ends','bisecting','verifying','done','failed','canceled')),"
	"  culprit TEXT, candidates TEXT, verdict TEXT, detail TEXT, revert TEXT,"
	"  change_pct REAL, error REAL, log TEXT, ended_at INTEGER);"
	"CREATE INDEX bisections_state ON bisections (state, id);"
	"CREATE TABLE bisection_steps ("
	"  id INTEGER PRIMARY KEY,"
	"  bisection_id INTEGER NOT NULL REFERENCES bisections(id), n INTEGER NOT NULL,"
	"  commit_id TEXT NOT NULL, subject TEXT, author TEXT,"
	"  role TEXT NOT NULL CHECK (role IN ('good','bad','step','parent','revert')),"
	"  answer TEXT CHECK (answer IN ('good','bad','skip')), why TEXT, error REAL,"
	"  commits_left INTEGER, commit_order INTEGER,"   /* git rev-list --count */
	"  created_at INTEGER NOT NULL, decided_at INTEGER,"
	"  UNIQUE (bisection_id, n));"
	"CREATE TABLE bisection_submissions ("
	"  step_id INTEGER NOT NULL REFERENCES bisection_steps(id),"
	"  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
	"  PRIMARY KEY (step_id, submission_id));",
	/* 10: a bisection builds the next step's two possible commits while a
	 * step's runs are in the guests: build-only submissions, built after
	 * every other queued one, and which bisection asked for them */
	"ALTER TABLE submissions ADD COLUMN speculative INTEGER NOT NULL DEFAULT 0;"
	"CREATE TABLE bisection_speculations ("
	"  bisection_id INTEGER NOT NULL REFERENCES bisections(id),"
	"  submission_id INTEGER NOT NULL REFERENCES submissions(id),"
	"  commit_id TEXT NOT NULL,"
	"  PRIMARY KEY (bisection_id, submission_id));",
	/* 11: flaky tests in quarantine, per test path and cell (job, arch,
	 * vCPUs): since when and why (analysis/flaky.h), the counts of the
	 * newest window as last measured, and when it was released (NULL:
	 * still in quarantine). One open row per test and cell. And the
	 * failing results of a run, indexed apart. */
	"CREATE TABLE quarantine ("
	"  id INTEGER PRIMARY KEY, path TEXT NOT NULL, job TEXT NOT NULL,"
	"  arch TEXT NOT NULL, vcpus INTEGER NOT NULL,"
	"  since INTEGER NOT NULL, since_run_id INTEGER, reason TEXT NOT NULL,"
	"  runs INTEGER NOT NULL, fails INTEGER NOT NULL, flips INTEGER NOT NULL,"
	"  chances INTEGER NOT NULL, last_run_id INTEGER, updated_at INTEGER NOT NULL,"
	"  released_at INTEGER, released_why TEXT);"
	"CREATE UNIQUE INDEX quarantine_open ON quarantine (job, arch, vcpus, path)"
	"  WHERE released_at IS NULL;"
	"CREATE INDEX quarantine_since ON quarantine (since);"
	/* the failing rows of a run, few among many passes: what the window
	 * of a concluded run looks for first (db_flaky_window) */
	"CREATE INDEX results_failed ON results (run_id, path)"
	"  WHERE status IN ('fail', 'error', 'timeout');",
	/* 12: quiet measurements: a run's pinning to host cores of its own and
	 * what else ran on its host from its start to its end (other runs,
	 * builds, the load), for the run page and the comparisons' warning */
	"CREATE TABLE run_neighbours ("
	"  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,"
	"  attempt INTEGER NOT NULL, pin TEXT NOT NULL, cores TEXT, why TEXT,"
	"  builds_mode TEXT, runs TEXT, builds TEXT, load_start REAL, load_end REAL,"
	"  ended INTEGER NOT NULL DEFAULT 0);",
	/* 13: requests run until decided (orchestrator/decided.c): the cap of
	 * runs per side, the margin asked for (NULL: the job's), the rounds
	 * queued so far and, once it stopped, why; each round's runs and why
	 * it was queued; a submission passes the mode to its requests */
	"ALTER TABLE requests ADD COLUMN until_decided INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE requests ADD COLUMN max_runs INTEGER;"
	"ALTER TABLE requests ADD COLUMN margin REAL;"
	"ALTER TABLE requests ADD COLUMN rounds INTEGER NOT NULL DEFAULT 1;"
	"ALTER TABLE requests ADD COLUMN decided TEXT CHECK (decided IN"
	"  ('deciding','decided','cap','failing','canceled'));"
	"ALTER TABLE requests ADD COLUMN stop_reason TEXT;"
	"ALTER TABLE requests ADD COLUMN decided_at INTEGER;"
	"CREATE INDEX requests_deciding ON requests (id) WHERE decided = 'deciding';"
	"CREATE TABLE request_rounds ("
	"  request_id INTEGER NOT NULL REFERENCES requests(id), n INTEGER NOT NULL,"
	"  pairs INTEGER NOT NULL, queued_at INTEGER NOT NULL, why TEXT NOT NULL,"
	"  PRIMARY KEY (request_id, n));"
	"ALTER TABLE submissions ADD COLUMN until_decided INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE submissions ADD COLUMN max_runs INTEGER;"
	"ALTER TABLE submissions ADD COLUMN margin REAL;",
	/* 12: files the storage pass pruned from the state directory
	 * (orchestrator/storage.c): a run's file (dir its attempt's directory,
	 * name under it) or a shared cache file (run_id NULL), its size, when
	 * and why (the budget, or the retention of keep_days). The run's rows
	 * stay; this says what is gone from its directory. */
	"CREATE TABLE pruned_files ("
	"  id INTEGER PRIMARY KEY, run_id INTEGER REFERENCES runs(id),"
	"  dir TEXT NOT NULL, name TEXT NOT NULL, bytes INTEGER NOT NULL,"
	"  pruned_at INTEGER NOT NULL,"
	"  why TEXT NOT NULL CHECK (why IN ('budget', 'retention')));"
	"CREATE INDEX pruned_files_run ON pruned_files (run_id) WHERE run_id IS NOT NULL;",
	/* 15: watches (watch/): a patchwork project followed,
	 * its spec (the config's or `kfleet watch add`'s keys, as JSON), the
	 * position reached (the newest series id and date taken) and what its
	 * polls saw; each series version seen (one row per message-id and
	 * version, whatever became of it) with its submission and what was
	 * reported; each check posted; and the watch's recent errors */
	"CREATE TABLE watches ("
	"  name TEXT PRIMARY KEY, source TEXT NOT NULL CHECK (source IN ('config','cli')),"
	"  spec TEXT NOT NULL, created_at INTEGER NOT NULL,"
	"  position INTEGER NOT NULL DEFAULT 0, position_date TEXT NOT NULL,"
	"  last_poll_at INTEGER, last_ok_at INTEGER, next_poll_at INTEGER NOT NULL DEFAULT 0,"
	"  polls INTEGER NOT NULL DEFAULT 0, found INTEGER NOT NULL DEFAULT 0,"
	"  queued INTEGER NOT NULL DEFAULT 0, errors INTEGER NOT NULL DEFAULT 0,"
	"  failing INTEGER NOT NULL DEFAULT 0, last_error TEXT, last_error_at INTEGER);"
	"CREATE TABLE watch_series ("
	"  id INTEGER PRIMARY KEY, watch TEXT NOT NULL, remote_id INTEGER NOT NULL,"
	"  msgid TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL,"
	"  subject TEXT, submitter TEXT, web_url TEXT, mbox_url TEXT NOT NULL,"
	"  patches TEXT NOT NULL, seen_at INTEGER NOT NULL,"
	"  state TEXT NOT NULL CHECK (state IN"
	"    ('new','queued','skipped','error','superseded','reported')),"
	"  detail TEXT, tree TEXT, base TEXT, tries INTEGER NOT NULL DEFAULT 0,"
	"  next_try_at INTEGER NOT NULL DEFAULT 0,"
	"  submission_id INTEGER REFERENCES submissions(id), superseded_by INTEGER,"
	"  pending_posted INTEGER NOT NULL DEFAULT 0, verdict TEXT, verdict_detail TEXT,"
	"  reported_at INTEGER, mail_path TEXT, mail_sent_at INTEGER, mail_error TEXT,"
	"  mail_tries INTEGER NOT NULL DEFAULT 0,"
	"  UNIQUE (watch, msgid, version));"
	"CREATE INDEX watch_series_open ON watch_series (watch, state)"
	"  WHERE state IN ('new','queued','superseded');"
	"CREATE TABLE watch_checks ("
	"  id INTEGER PRIMARY KEY, series_id INTEGER NOT NULL REFERENCES watch_series(id),"
	"  patch_id INTEGER NOT NULL, state TEXT NOT NULL, description TEXT,"
	"  target_url TEXT, posted_at INTEGER NOT NULL, http_status INTEGER, error TEXT);"
	"CREATE TABLE watch_log ("
	"  id INTEGER PRIMARY KEY, watch TEXT NOT NULL, at INTEGER NOT NULL,"
	"  level TEXT NOT NULL, text TEXT NOT NULL);"
	"CREATE INDEX watch_log_watch ON watch_log (watch, id);",
	/* 16: where a running run is (orchestrator/run.c's stages): preparing
	 * its guest, booting, running the command, storing its results; and
	 * since when. NULL once it is queued again or done. */
	"ALTER TABLE runs ADD COLUMN phase TEXT"
	"  CHECK (phase IN ('preparing','booting','running','storing'));"
	"ALTER TABLE runs ADD COLUMN phase_at INTEGER;",
	/* 17: a watch's KCIDB export of each series it reported
	 * (watch/kcidb.c): when it was written or POSTed, where
	 * (the file, or NULL for a POST), the last error and the tries, the
	 * next one after kcidb_next_at */
	"ALTER TABLE watch_series ADD COLUMN kcidb_at INTEGER;"
	"ALTER TABLE watch_series ADD COLUMN kcidb_path TEXT;"
	"ALTER TABLE watch_series ADD COLUMN kcidb_error TEXT;"
	"ALTER TABLE watch_series ADD COLUMN kcidb_tries INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE watch_series ADD COLUMN kcidb_next_at INTEGER NOT NULL DEFAULT 0;",
	/* 18: the fair queue (orchestrator/fairq.c): whom a run is for, the
	 * watch whose series it tests or NULL for a person's, set when it is
	 * queued (a submission a watch made says which, and passes it to its
	 * runs); the runs of each watch by state and start, for its running
	 * count and its turn; the watches' runs so far filled in */
	"ALTER TABLE submissions ADD COLUMN watch TEXT;"
	"ALTER TABLE runs ADD COLUMN watch TEXT;"
	"UPDATE submissions SET watch = (SELECT ws.watch FROM watch_series ws"
	"  WHERE ws.submission_id = submissions.id ORDER BY ws.id LIMIT 1);"
	/* by the indexes of a submission's runs and a request's: a busy
	 * fleet's million runs are not read one by one */
	"UPDATE runs SET watch = (SELECT s.watch FROM submissions s WHERE s.id = runs.submission_id)"
	"  WHERE submission_id IS NOT NULL"
	"  AND submission_id IN (SELECT id FROM submissions WHERE watch IS NOT NULL);"
	"UPDATE runs SET watch = (SELECT s.watch FROM requests q JOIN submissions s"
	"  ON s.id = q.submission_id WHERE q.id = runs.request_id)"
	"  WHERE request_id IN (SELECT q.id FROM requests q JOIN submissions s"
	"  ON s.id = q.submission_id WHERE s.watch IS NOT NULL);"
	"CREATE INDEX runs_watch ON runs (watch, state, started_at) WHERE watch IS NOT NULL;",
	/* 19: what the pages read at a busy fleet's scale (issue 16): a run's
	 * results in the order its page and JSON give them (those that did
	 * not pass first: DB_RESULT_RANK), a page at a time without sorting
	 * them all, and their counts per status from the index alone; the
	 * done runs by end and a kernel's builds (a KCIDB export since a
	 * time, db/kcidb.c); a watch's newest series, a series' checks and the
	 * series of a submission (the watch pages) */
	"CREATE INDEX results_run_order ON results (run_id, (" DB_RESULT_RANK "), path, status);"
	"CREATE INDEX runs_ended ON runs (coalesce(ended_at, 0)) WHERE state = 'done';"
	"CREATE INDEX builds_kernel ON builds (kernel_id);"
	"CREATE INDEX watch_checks_series ON watch_checks (series_id);"
	"CREATE INDEX watch_series_watch ON watch_series (watch, id);"
	"CREATE INDEX watch_series_submission ON watch_series (submission_id)"
	"  WHERE submission_id IS NOT NULL;",
	/* 20: the guest setup a run booted with, next to its CPU model
	 * ([host] boot: "default", or "fast: " and what that was, e.g.
	 * "fast: qboot loglevel=5 nokaslr tsc=reliable"): a fast boot's guest
	 * is not the same measurement as a default one's. NULL for runs from
	 * before. */
	"ALTER TABLE runs ADD COLUMN boot TEXT;",
	/* 21: a number any change to what the watch pages and the KCIDB
	 * export read makes grow (web/cache.c keeps those answers by it and
	 * the count of done runs): a write to the watch tables, submissions,
	 * their builds, requests and trees, a host's name, and a done run
	 * changed or deleted. Not runs while they run, results or samples,
	 * which are written before their run is done, nor a host's health. */
#define KEPT_BUMP " BEGIN UPDATE stamps SET n = n + 1 WHERE name = 'kept'; END;"
#define KEPT_ON(t) \
	"CREATE TRIGGER " t "_kept_insert AFTER INSERT ON " t KEPT_BUMP \
	"CREATE TRIGGER " t "_kept_update AFTER UPDATE ON " t KEPT_BUMP \
	"CREATE TRIGGER " t "_kept_delete AFTER DELETE ON " t KEPT_BUMP
	"CREATE TABLE stamps (name TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;"
	"INSERT INTO stamps VALUES ('kept', 0);"
	KEPT_ON("watches") KEPT_ON("watch_series") KEPT_ON("watch_checks") KEPT_ON("watch_log")
	KEPT_ON("submissions") KEPT_ON("submission_builds") KEPT_ON("builds")
	KEPT_ON("requests") KEPT_ON("trees")
	"CREATE TRIGGER hosts_kept_update AFTER UPDATE OF name ON hosts" KEPT_BUMP
	"CREATE TRIGGER hosts_kept_delete AFTER DELETE ON hosts" KEPT_BUMP
	"CREATE TRIGGER runs_kept_update AFTER UPDATE ON runs WHEN old.state = 'done'" KEPT_BUMP
	"CREATE TRIGGER runs_kept_delete AFTER DELETE ON runs WHEN old.state = 'done'" KEPT_BUMP,
#undef KEPT_ON
#undef KEPT_BUMP
	/* 22: a running run a user canceled (db/cancel.c): when it was asked
	 * to stop. Its worker destroys its guest, and it ends as canceled
	 * whatever the worker or a restart's recovery says. */
	"ALTER TABLE runs ADD COLUMN cancel_at INTEGER;",
};

const int db_migration_count = (int)(sizeof(db_migrations) / sizeof(db_migrations[0]));
