// SPDX-License-Identifier: GPL-2.0-only
/* runs.c: the runs table, which is also the queue: a run is queued,
 * claimed by a worker for a host, started, booted and finished; each
 * claim, finish and the start-up recovery is one IMMEDIATE transaction,
 * so two workers never take the same run and a daemon killed at any point
 * leaves a consistent file. Also the attempts of a run, and what the
 * queue page reads (the waiting and running runs, how long runs take). */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"

#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

/* The order of RUN_COLUMNS */
static const struct db_field run_fields[] = {
	F(run, id, INT), F(run, kernel_id, INT), F(run, kernel_path, TEXT), F(run, arch, TEXT),
	F(run, vcpus, INT32), F(run, memory_mb, INT32), F(run, timeout_s, INT32),
	F(run, command, TEXT), F(run, state, STATE), F(run, outcome, OUTCOME),
	F(run, detail, TEXT), F(run, splat, TEXT), F(run, attempt, INT32),
	F(run, max_attempts, INT32), F(run, host, TEXT), F(run, accel, TEXT),
	F(run, machine, TEXT), F(run, qemu_version, TEXT), F(run, libvirt_version, TEXT),
	F(run, domain, TEXT), F(run, queued_at, TIME), F(run, started_at, TIME),
	F(run, booted_at, TIME), F(run, ended_at, TIME), F(run, has_exit_code, HAS),
	F(run, exit_code, INT32), F(run, guest_release, TEXT), F(run, guest_nproc, INT32),
	F(run, guest_mem_kb, INT), F(run, run_dir, TEXT), F(run, job, TEXT),
	F(run, topology, TEXT), F(run, numa_nodes, INT32), F(run, cpu_model, TEXT),
	F(run, watch, TEXT), F(run, boot, TEXT),
	{ NULL, 0, 0 },
};

#define RUN_COLUMNS \
	"r.id, r.kernel_id, k.path, r.arch, r.vcpus, r.memory_mb, r.timeout_s, r.command," \
	" r.state, r.outcome, r.detail, r.splat, r.attempt, r.max_attempts, h.name, r.accel," \
	" r.machine, r.qemu_version, r.libvirt_version, r.domain, r.queued_at, r.started_at," \
	" r.booted_at, r.ended_at, r.exit_code, r.guest_release, r.guest_nproc," \
	" r.guest_mem_kb, r.run_dir, r.job, r.topology, r.numa_nodes, r.cpu_model, r.watch," \
	" r.boot" \
	" FROM runs r JOIN kernels k ON k.id = r.kernel_id LEFT JOIN hosts h ON h.id = r.host_id"

static const struct db_field attempt_fields[] = {
	F(attempt, n, INT32), F(attempt, host, TEXT), F(attempt, started_at, TIME),
	F(attempt, ended_at, TIME), F(attempt, outcome, OUTCOME), F(attempt, detail, TEXT),
	{ NULL, 0, 0 },
};

static const struct db_field queue_fields[] = {
	F(dbq_queue_run, id, INT), F(dbq_queue_run, request_id, INT),
	F(dbq_queue_run, kernel_id, INT), F(dbq_queue_run, kernel_path, TEXT),
	F(dbq_queue_run, job, TEXT), F(dbq_queue_run, command, TEXT),
	F(dbq_queue_run, arch, TEXT), F(dbq_queue_run, vcpus, INT32),
	F(dbq_queue_run, host, TEXT), F(dbq_queue_run, state, STATE),
	F(dbq_queue_run, attempt, INT32), F(dbq_queue_run, queued_at, TIME),
	F(dbq_queue_run, started_at, TIME), F(dbq_queue_run, phase, TEXT),
	F(dbq_queue_run, phase_at, TIME), F(dbq_queue_run, watch, TEXT),
	F(dbq_queue_run, submission_id, INT), { NULL, 0, 0 },
};

void run_release(struct run *r)
{
	if (r)
		db_row_release(run_fields, r, sizeof(*r));
}

void run_list_free(struct run *runs, size_t n)
{
	db_rows_free(run_fields, runs, sizeof(*runs), n);
}

/* --- queueing ------------------------------------------------------------ */

int dbi_run_insert(struct db *db, const struct run_request *req, int64_t request_id,
		   int64_t *id)
{
	int64_t kid;

	if (db_kernel_import(db, req->kernel_path, req->arch, req->kernel_sha256, &kid) < 0)
		return -1;
	if (dbi_exec(db, "INSERT INTO runs (kernel_id, arch, vcpus, memory_mb, timeout_s, command,"
		     " state, max_attempts, queued_at, job, topology, numa_nodes, request_id, watch)"
		     " VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?, ?)",
		     DBI_INT(kid), DBI_TEXT(req->arch), DBI_INT(req->vcpus),
		     DBI_INT(req->memory_mb), DBI_INT(req->timeout_s), DBI_TEXT(req->command),
		     DBI_INT(req->max_attempts > 0 ? req->max_attempts : 2), DBI_INT(now_ms()),
		     DBI_TEXT(req->job), DBI_TEXT(req->topology),
		     DBI_INT(req->numa_nodes > 0 ? req->numa_nodes : 1), DBI_OPT(request_id),
		     DBI_TEXT(req->watch)) < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_run_insert(struct db *db, const struct run_request *req, int64_t *id)
{
	if (dbi_begin(db) < 0)
		return -1;
	if (dbi_run_insert(db, req, 0, id) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return dbi_commit(db);
}

int db_run_import(struct db *db, const struct run_request *req, const char *outcome,
		  const char *detail, const char *run_dir, int64_t *id)
{
	if (dbi_begin(db) < 0)
		return -1;
	/* done at once: no guest, the results came from elsewhere */
	if (dbi_run_insert(db, req, 0, id) < 0 ||
	    dbi_exec(db, "UPDATE runs SET state = 'done', outcome = ?2, detail = ?3,"
		     " accel = 'imported', run_dir = ?4, started_at = ?5, ended_at = ?5,"
		     " exit_code = 0 WHERE id = ?1", DBI_INT(*id), DBI_TEXT(outcome),
		     DBI_TEXT(detail), DBI_TEXT(run_dir), DBI_INT(now_ms())) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return dbi_commit(db);
}

int db_run_set_outcome(struct db *db, int64_t id, const char *outcome, const char *detail)
{
	return dbi_exec(db, "UPDATE runs SET outcome = ?, detail = ? WHERE id = ?",
			DBI_TEXT(outcome), DBI_TEXT(detail), DBI_INT(id));
}

/* --- reading runs ---------------------------------------------------------- */

int db_run_get(struct db *db, int64_t id, struct run *r)
{
	return dbi_row_one(dbi_stmt(db, "SELECT " RUN_COLUMNS " WHERE r.id = ?", DBI_INT(id)),
			   run_fields, r, sizeof(*r));
}

int db_run_list(struct db *db, int limit, int64_t before, struct run **runs, size_t *n)
{
	*runs = NULL;
	*n = 0;
	if (limit <= 0)
		return limit == 0 ? 0 : -1;
	return dbi_rows(dbi_stmt(db, "SELECT " RUN_COLUMNS
				 " WHERE r.id < ? ORDER BY r.id DESC LIMIT ?",
				 DBI_INT(before > 0 ? before : INT64_MAX), DBI_INT(limit)),
			run_fields, sizeof(**runs), (size_t)limit, runs, n, NULL);
}

int db_run_counts(struct db *db, int64_t counts[RUN_STATE_COUNT])
{
	/* kept by triggers (schema step 6): counting the runs themselves
	 * reads every one of them */
	sqlite3_stmt *st = dbi_prep(db, "SELECT state, sum(n) FROM run_counts GROUP BY state");
	int rc;

	memset(counts, 0, sizeof(int64_t) * RUN_STATE_COUNT);
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		enum run_state s;

		if (run_state_parse((const char *)sqlite3_column_text(st, 0), &s) == 0)
			counts[s] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int db_kept_stamp(struct db *db, int64_t *n)
{
	int64_t v[1];
	int rc = dbi_row_ints(dbi_prep(db, "SELECT n FROM stamps WHERE name = 'kept'"), v, 1);

	if (rc == 1)
		*n = v[0];
	return rc == 1 ? 0 : -1;
}

int db_attempt_list(struct db *db, int64_t run_id, struct attempt **a, size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT a.n, h.name, a.started_at, a.ended_at, a.outcome,"
				 " a.detail FROM attempts a LEFT JOIN hosts h ON h.id = a.host_id"
				 " WHERE a.run_id = ? ORDER BY a.n", DBI_INT(run_id)),
			attempt_fields, sizeof(**a), SIZE_MAX, a, n, NULL);
}

void attempt_list_free(struct attempt *a, size_t n)
{
	db_rows_free(attempt_fields, a, sizeof(*a), n);
}

/* --- claims ---------------------------------------------------------------- */

int db_run_claim(struct db *db, const char *host, struct run *r)
{
	struct claim_fit any = { INT_MAX, INT_MAX, INT_MAX, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };

	return db_run_claim_fit(db, host, &any, r);
}

/* Takes run id (attempt n) for host_id, inside the caller's transaction:
 * 1, 0 when it is no longer queued, -1 */
static int claim_locked(struct db *db, int64_t id, int64_t attempt, int64_t host_id)
{
	char domain[64];
	int64_t now = now_ms();

	snprintf(domain, sizeof(domain), "kf-%s-%lld", db->instance, (long long)id);
	if (dbi_exec(db, "UPDATE runs SET state = 'running', attempt = ?2, host_id = ?3,"
		     " domain = ?4, started_at = ?5, booted_at = NULL, ended_at = NULL,"
		     " outcome = NULL, exit_code = NULL, guest_release = NULL,"
		     " guest_nproc = NULL, guest_mem_kb = NULL, splat = NULL,"
		     " phase = 'preparing', phase_at = ?5"
		     " WHERE id = ?1 AND state = 'queued'", DBI_INT(id), DBI_INT(attempt),
		     DBI_INT(host_id), DBI_TEXT(domain), DBI_INT(now)) < 0)
		return -1;
	if (sqlite3_changes(db->sql) != 1)
		return 0;
	return dbi_exec(db, "INSERT INTO attempts (run_id, n, host_id, domain, started_at)"
			" VALUES (?, ?, ?, ?, ?)", DBI_INT(id), DBI_INT(attempt),
			DBI_INT(host_id), DBI_TEXT(domain), DBI_INT(now)) < 0 ? -1 : 1;
}

int db_run_claim_id(struct db *db, const char *host, int64_t id, struct run *r)
{
	int64_t attempt = 0, host_id = 0;
	int rc;

	if (dbi_begin(db) < 0)
		return -1;
	rc = dbi_row_ints(dbi_stmt(db, "SELECT attempt FROM runs WHERE id = ? AND state = 'queued'",
				   DBI_INT(id)), &attempt, 1);
	if (rc < 1)
		goto out;   /* 0: canceled, or taken, since it was chosen */
	rc = -1;
	if (dbi_row_ints(dbi_stmt(db, "SELECT id FROM hosts WHERE name = ?", DBI_TEXT(host)),
			 &host_id, 1) < 0 || !host_id)
		goto out;
	rc = claim_locked(db, id, (int)attempt + 1, host_id);
	if (rc < 1 || dbi_commit(db) < 0)
		goto out;
	return db_run_get(db, id, r) == 1 ? 1 : -1;
out:
	dbi_rollback(db);
	return rc > 0 ? -1 : rc;
}

/* Whether a queued run fits the host emptied of its runs: the arch and its
 * vCPU limit, the memory it has for guests, and not one to leave to an
 * idle KVM host (the parameters are claim_fit's, in db_queue_classes()'s
 * order) */
#define FITS_EMPTY \
	"(((arch = 'x86_64' AND vcpus <= ?1 AND NOT (vcpus <= ?4 AND memory_mb <= ?5))" \
	"  OR (arch = 'arm64' AND vcpus <= ?2)) AND memory_mb <= max(?11, ?3))"
/* ... and whether it fits now, beside the runs there: the memory and CPUs
 * they leave, and a run to pin waits for cores of its own */
#define FITS_NOW \
	"(memory_mb <= ?3 AND (?9 <= 0 OR min(vcpus, ?9) <= ?10)" \
	" AND NOT (?6 IS NOT NULL AND (?6 = '*' OR" \
	"      instr(?6, ',' || coalesce(job, '') || ',') > 0)" \
	"      AND vcpus <= ?7 AND vcpus > ?8))"

static const struct db_field class_fields[] = {
	F(queue_class, watch, TEXT), F(queue_class, fit_id, INT), F(queue_class, held_id, INT),
	F(queue_class, oldest_id, INT), F(queue_class, queued, INT32), { NULL, 0, 0 },
};

void queue_classes_free(struct queue_class *v, size_t n)
{
	db_rows_free(class_fields, v, sizeof(*v), n);
}

/* A watch's cap (from its stored spec), running runs and newest start */
static int class_watch(struct db *db, struct queue_class *c)
{
	int64_t v[4] = { 0, 0, 0, 0 };

	/* each max() one walk down runs_watch */
	if (dbi_row_ints(dbi_stmt(db, "SELECT"
		" (SELECT count(*) FROM runs WHERE watch = ?1 AND state = 'running'),"
		" (SELECT max(started_at) FROM runs WHERE watch = ?1 AND state = 'running'),"
		" (SELECT max(started_at) FROM runs WHERE watch = ?1 AND state = 'done'),"
		" (SELECT CAST(json_extract(spec, '$.max_running') AS INTEGER) FROM watches"
		"  WHERE name = ?1)", DBI_TEXT(c->watch)), v, 4) != 1)
		return -1;
	c->running = (int)v[0];
	c->last_start = v[1] > v[2] ? v[1] : v[2];
	c->max_running = v[3] > 0 && v[3] <= INT_MAX ? (int)v[3] : 0;
	return 0;
}

int db_queue_classes(struct db *db, const struct claim_fit *fit, struct queue_class **v,
		     size_t *n)
{
	*v = NULL;
	*n = 0;
	if (dbi_rows(dbi_stmt(db, "SELECT watch,"
		" min(CASE WHEN " FITS_EMPTY " AND " FITS_NOW " THEN id END),"
		" min(CASE WHEN " FITS_EMPTY " AND NOT " FITS_NOW " AND queued_at < ?12 THEN id END),"
		" min(id), count(*)"
		" FROM runs WHERE state = 'queued' GROUP BY watch ORDER BY watch IS NOT NULL, watch",
		DBI_INT(fit->max_vcpus_x86_64), DBI_INT(fit->max_vcpus_arm64),
		DBI_INT(fit->max_memory_mb), DBI_INT(fit->leave_vcpus),
		DBI_INT(fit->leave_memory_mb), DBI_TEXT(fit->pin_jobs), DBI_INT(fit->pin_max),
		DBI_INT(fit->pin_free), DBI_INT(fit->cpus), DBI_INT(fit->cpus_free),
		DBI_INT(fit->memory_total_mb), DBI_INT(fit->hold_before)),
		     class_fields, sizeof(**v), SIZE_MAX, v, n, NULL) < 0)
		return -1;
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].watch && class_watch(db, &(*v)[i]) < 0) {
			queue_classes_free(*v, *n);
			*v = NULL;
			*n = 0;
			return -1;
		}
	return 0;
}

int db_run_claim_fit(struct db *db, const char *host, const struct claim_fit *fit,
		     struct run *r)
{
	int rc = 0;

	/* a run taken meanwhile (by another connection's claim): the next one */
	for (int tries = 0; rc == 0 && tries < 100; tries++) {
		struct queue_class *v;
		size_t n;
		int64_t id = 0;

		if (db_queue_classes(db, fit, &v, &n) < 0)
			return -1;
		for (size_t i = 0; i < n; i++)
			if (v[i].fit_id && (!id || v[i].fit_id < id))
				id = v[i].fit_id;
		queue_classes_free(v, n);
		if (!id)
			return 0;
		rc = db_run_claim_id(db, host, id, r);
	}
	return rc;
}

/* --- a run's life in its guest ------------------------------------------- */

int db_run_cpu_model(struct db *db, int64_t id, const char *model)
{
	return dbi_exec(db, "UPDATE runs SET cpu_model = ?2 WHERE id = ?1", DBI_INT(id),
			DBI_TEXT(model));
}

int db_run_boot(struct db *db, int64_t id, const char *boot)
{
	return dbi_exec(db, "UPDATE runs SET boot = ?2 WHERE id = ?1", DBI_INT(id),
			DBI_TEXT(boot));
}

int db_run_started(struct db *db, int64_t id, const char *accel, const char *machine,
		   const char *qemu_version, const char *libvirt_version, const char *run_dir)
{
	return dbi_exec(db, "UPDATE runs SET accel = ?2, machine = ?3, qemu_version = ?4,"
			" libvirt_version = ?5, run_dir = ?6 WHERE id = ?1", DBI_INT(id),
			DBI_TEXT(accel), DBI_TEXT(machine), DBI_TEXT(qemu_version),
			DBI_TEXT(libvirt_version), DBI_TEXT(run_dir));
}

int db_run_booted(struct db *db, int64_t id, int64_t at, const char *release, int nproc,
		  int64_t mem_kb)
{
	return dbi_exec(db, "UPDATE runs SET booted_at = ?2, guest_release = ?3,"
			" guest_nproc = ?4, guest_mem_kb = ?5,"
			" phase = CASE state WHEN 'running' THEN 'running' END,"
			" phase_at = CASE state WHEN 'running' THEN coalesce(?2, ?6) END WHERE id = ?1",
			DBI_INT(id), DBI_OPT(at), DBI_TEXT(release), DBI_INT(nproc),
			DBI_INT(mem_kb), DBI_INT(now_ms()));
}

int db_run_phase(struct db *db, int64_t id, enum run_phase p)
{
	static const char *const names[] = { "preparing", "booting", "running", "storing" };

	int rc;

	if ((int)p < 0 || (size_t)p >= sizeof(names) / sizeof(names[0]))
		return -1;
	/* a hint for the queue page: not worth the run waiting on another
	 * process's lock (the outcome's store waits, and says so) */
	sqlite3_busy_timeout(db->sql, 0);
	rc = dbi_exec(db, "UPDATE runs SET phase = ?2, phase_at = ?3"
		      " WHERE id = ?1 AND state = 'running'", DBI_INT(id), DBI_TEXT(names[p]),
		      DBI_INT(now_ms()));
	sqlite3_busy_timeout(db->sql, DB_BUSY_MS);
	return rc;
}

/* The body of db_run_finish, inside the caller's transaction. */
static int finish_locked(struct db *db, int64_t id, enum run_outcome o, const char *detail,
			 const char *splat, int has_exit_code, int exit_code)
{
	int64_t v[3], now = now_ms();   /* attempt, max_attempts, asked to stop */
	char why[512];
	int requeue;

	if (dbi_row_ints(dbi_stmt(db, "SELECT attempt, max_attempts, cancel_at IS NOT NULL"
				  " FROM runs WHERE id = ? AND state = 'running'", DBI_INT(id)),
			 v, 3) != 1)
		return -1;
	/* a user's cancel: whatever the guest did meanwhile, never retried */
	if (v[2] && o != RUN_OUT_CANCELED) {
		snprintf(why, sizeof(why), "canceled by the user while it ran (it was ending as "
			 "%s%s%s)", run_outcome_name(o), detail ? ": " : "", detail ? detail : "");
		o = RUN_OUT_CANCELED;
		detail = why;
	}
	requeue = o == RUN_OUT_INFRA && (int)v[0] < (int)v[1];
	if (dbi_exec(db, "UPDATE attempts SET ended_at = ?3, outcome = ?4, detail = ?5"
		     " WHERE run_id = ?1 AND n = ?2", DBI_INT(id), DBI_INT((int)v[0]),
		     DBI_INT(now), DBI_TEXT(run_outcome_name(o)), DBI_TEXT(detail)) < 0)
		return -1;
	if (requeue)
		return dbi_exec(db, "UPDATE runs SET state = 'queued', outcome = NULL, detail = ?2,"
				" splat = NULL, exit_code = NULL, ended_at = NULL, phase = NULL,"
				" phase_at = NULL WHERE id = ?1",
				DBI_INT(id), DBI_TEXT(detail));
	return dbi_exec(db, "UPDATE runs SET state = 'done', outcome = ?3, detail = ?2,"
			" splat = ?4, exit_code = ?5, ended_at = ?6, phase = NULL, phase_at = NULL"
			" WHERE id = ?1",
			DBI_INT(id), DBI_TEXT(detail), DBI_TEXT(run_outcome_name(o)),
			DBI_TEXT(splat), has_exit_code ? DBI_INT(exit_code) : DBI_NULL,
			DBI_INT(now));
}

int db_run_finish(struct db *db, int64_t id, enum run_outcome o, const char *detail,
		  const char *splat, int has_exit_code, int exit_code)
{
	if (dbi_begin(db) < 0)
		return -1;
	if (finish_locked(db, id, o, detail, splat, has_exit_code, exit_code) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return dbi_commit(db);
}

/* A run left running */
struct in_flight {
	int64_t id;
	char *domain;
};
static const struct db_field in_flight_fields[] = {
	F(in_flight, id, INT), F(in_flight, domain, TEXT), { NULL, 0, 0 },
};

int db_recover(struct db *db, char ***domains, size_t *n)
{
	struct in_flight *v = NULL;
	size_t cnt = 0;
	int rc = -1;

	*domains = NULL;
	*n = 0;
	if (dbi_begin(db) < 0)
		return -1;
	if (dbi_rows(dbi_prep(db, "SELECT id, domain FROM runs WHERE state = 'running'"
			      " ORDER BY id"), in_flight_fields, sizeof(*v), SIZE_MAX, &v,
		     &cnt, NULL) < 0)
		goto out;
	for (size_t i = 0; i < cnt; i++)
		if (finish_locked(db, v[i].id, RUN_OUT_INFRA,
				  "kfleetd restarted while the run was in flight", NULL, 0, 0) < 0)
			goto out;
	if (cnt && !(*domains = calloc(cnt, sizeof(**domains))))
		goto out;
	if (dbi_commit(db) < 0) {
		free(*domains);
		*domains = NULL;
		goto out;
	}
	for (size_t i = 0; i < cnt; i++) {
		(*domains)[i] = v[i].domain;
		v[i].domain = NULL;
	}
	*n = cnt;
	rc = 0;
out:
	if (rc < 0)
		dbi_rollback(db);
	db_rows_free(in_flight_fields, v, sizeof(*v), cnt);
	return rc;
}

/* --- what the queue page reads (query.h) ---------------------------------- */

void dbq_queue_free(struct dbq_queue_run *v, size_t n)
{
	db_rows_free(queue_fields, v, sizeof(*v), n);
}

int dbq_queue(struct db *db, size_t max, struct dbq_queue_run **out, size_t *n)
{
	/* a watch's n-th queued run comes in the n-th round of turns */
	return dbi_rows(dbi_stmt(db,
		"SELECT r.id, r.request_id, r.kernel_id, k.path, r.job, r.command, r.arch,"
		" r.vcpus, h.name, r.state, r.attempt, r.queued_at, r.started_at, r.phase,"
		" r.phase_at, r.watch, coalesce(r.submission_id, q.submission_id),"
		" CASE WHEN r.state = 'queued' AND r.watch IS NOT NULL THEN"
		"   row_number() OVER (PARTITION BY r.state, r.watch ORDER BY r.id) END AS turn"
		" FROM runs r JOIN kernels k ON k.id = r.kernel_id"
		" LEFT JOIN hosts h ON h.id = r.host_id LEFT JOIN requests q ON q.id = r.request_id"
		" WHERE r.state IN ('queued', 'running')"
		" ORDER BY r.state = 'queued', CASE WHEN r.state = 'running' THEN r.started_at END,"
		" r.watch IS NOT NULL, turn, r.id LIMIT ?", DBI_INT((int64_t)max)),
		queue_fields, sizeof(**out), SIZE_MAX, out, n, NULL);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int dbq_median_duration(struct db *db, const char *job, const char *command,
			const char *arch, int vcpus, int64_t *median_ms, int *n)
{
	/* one statement per case, so that each walks its index (runs_kind,
	 * runs_kind_command) newest first and stops at the limit: an OR of
	 * the two made SQLite scan every done run of the table */
	sqlite3_stmt *st = dbi_stmt(db, job ?
		"SELECT ended_at - started_at FROM runs"
		" WHERE job = ?1 AND arch = ?3 AND vcpus = ?4 AND state = 'done'"
		" AND started_at > 0 AND ended_at >= started_at"
		" AND (outcome IS NULL OR outcome NOT IN ('infra', 'canceled'))"
		" ORDER BY id DESC LIMIT ?5" :
		"SELECT ended_at - started_at FROM runs"
		" WHERE job IS NULL AND command = ?2 AND arch = ?3 AND vcpus = ?4"
		" AND state = 'done' AND started_at > 0 AND ended_at >= started_at"
		" AND (outcome IS NULL OR outcome NOT IN ('infra', 'canceled'))"
		" ORDER BY id DESC LIMIT ?5", DBI_TEXT(job), DBI_TEXT(command), DBI_TEXT(arch),
		DBI_INT(vcpus), DBI_INT(DBQ_MEDIAN_RUNS));
	int64_t d[DBQ_MEDIAN_RUNS];
	int cnt = 0, s;

	*n = 0;
	if (!st)
		return -1;
	while ((s = sqlite3_step(st)) == SQLITE_ROW && cnt < DBQ_MEDIAN_RUNS)
		d[cnt++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE && s != SQLITE_ROW)
		return -1;
	*n = cnt;
	if (!cnt)
		return 0;
	qsort(d, (size_t)cnt, sizeof(d[0]), cmp_i64);
	*median_ms = cnt % 2 ? d[cnt / 2] : (d[cnt / 2 - 1] + d[cnt / 2]) / 2;
	return 1;
}

int dbq_run_request(struct db *db, int64_t run_id, int64_t *request_id)
{
	int64_t v = 0;
	int rc = dbi_row_ints(dbi_stmt(db, "SELECT request_id FROM runs WHERE id = ?",
				       DBI_INT(run_id)), &v, 1);

	if (rc == 1) {
		*request_id = v;
		rc = v > 0;
	}
	return rc;
}
