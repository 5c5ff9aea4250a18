/* db.c: opening the database and every query kfleet makes on runs, hosts
 * and kernels. The queue is the runs table: claims, finishes and recovery
 * are each one IMMEDIATE transaction, so two workers never take the same run
 * and a daemon killed at any point leaves a consistent file. */
#include "db/dbint.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/util.h"

static const char *const state_names[RUN_STATE_COUNT] = { "queued", "running", "done" };
static const char *const outcome_names[RUN_OUT_COUNT] = {
	"none", "passed", "failed", "timeout", "no-boot", "crash",
	"console-flood", "infra", "canceled", "skipped",
};

const char *run_state_name(enum run_state s)
{
	return (unsigned)s < RUN_STATE_COUNT ? state_names[s] : "?";
}

const char *run_outcome_name(enum run_outcome o)
{
	return (unsigned)o < RUN_OUT_COUNT ? outcome_names[o] : "?";
}

int run_state_parse(const char *s, enum run_state *out)
{
	for (int i = 0; s && i < RUN_STATE_COUNT; i++)
		if (!strcmp(s, state_names[i])) {
			*out = (enum run_state)i;
			return 0;
		}
	return -1;
}

int run_outcome_parse(const char *s, enum run_outcome *out)
{
	for (int i = 0; s && i < RUN_OUT_COUNT; i++)
		if (!strcmp(s, outcome_names[i])) {
			*out = (enum run_outcome)i;
			return 0;
		}
	return -1;
}

void run_release(struct run *r)
{
	if (!r)
		return;
	free(r->kernel_path);
	free(r->arch);
	free(r->command);
	free(r->job);
	free(r->topology);
	free(r->detail);
	free(r->splat);
	free(r->host);
	free(r->accel);
	free(r->machine);
	free(r->cpu_model);
	free(r->qemu_version);
	free(r->libvirt_version);
	free(r->domain);
	free(r->guest_release);
	free(r->run_dir);
	memset(r, 0, sizeof(*r));
}

void run_list_free(struct run *runs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_release(&runs[i]);
	free(runs);
}

struct sqlite3 *db_sqlite(struct db *db)
{
	return db->sql;
}

const char *db_errmsg(struct db *db)
{
	return sqlite3_errmsg(db->sql);
}

const char *db_instance(struct db *db)
{
	return db->instance;
}

static int exec(struct db *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int pragma_int(struct db *db, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int rc = -1;

	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		*out = sqlite3_column_int(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* Each step reads user_version inside its own IMMEDIATE transaction, so
 * two processes opening a new file at once never run a step twice. */
static int migrate(struct db *db, char **err)
{
	int version;
	char sql[64];

	if (db_migration_count != DB_SCHEMA_VERSION) {
		*err = strdup("db: schema steps and DB_SCHEMA_VERSION disagree");
		return -1;
	}
	for (;;) {
		if (exec(db, "BEGIN IMMEDIATE") < 0)
			goto sqlerr;
		if (pragma_int(db, "PRAGMA user_version", &version) < 0) {
			exec(db, "ROLLBACK");
			goto sqlerr;
		}
		if (version >= DB_SCHEMA_VERSION) {
			exec(db, "ROLLBACK");
			break;
		}
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", version + 1);
		if (exec(db, db_migrations[version]) < 0 || exec(db, sql) < 0) {
			char *msg = strdup(sqlite3_errmsg(db->sql));

			exec(db, "ROLLBACK");
			if (asprintf(err, "schema step %d: %s", version + 1, msg ? msg : "?") < 0)
				*err = NULL;
			free(msg);
			return -1;
		}
		if (exec(db, "COMMIT") < 0)
			goto sqlerr;
	}
	if (version > DB_SCHEMA_VERSION) {
		if (asprintf(err, "schema version %d is newer than this kfleet knows (%d)",
			     version, DB_SCHEMA_VERSION) < 0)
			*err = NULL;
		return -1;
	}
	return 0;
sqlerr:
	if (asprintf(err, "%s", sqlite3_errmsg(db->sql)) < 0)
		*err = NULL;
	return -1;
}

/* Switching a new file to WAL needs a moment with no other connection in
 * it; the busy handler does not cover it, so it is retried here. */
static int set_wal(struct db *db)
{
	for (int i = 0; i < 200; i++) {
		int rc = sqlite3_exec(db->sql, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);

		if (rc == SQLITE_OK)
			return 0;
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			return -1;
		usleep(10000);
	}
	return -1;
}

/* The instance id is made once, in its own transaction (INSERT OR IGNORE
 * makes two daemons racing on a new file agree). */
static int load_instance(struct db *db)
{
	unsigned char r[4];
	char id[9], sql[128];
	sqlite3_stmt *st;
	int rc = -1;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		return -1;
	snprintf(id, sizeof(id), "%02x%02x%02x%02x", r[0], r[1], r[2], r[3]);
	snprintf(sql, sizeof(sql),
		 "INSERT OR IGNORE INTO meta (key, value) VALUES ('instance', '%s')", id);
	if (exec(db, sql) < 0)
		return -1;
	if (sqlite3_prepare_v2(db->sql, "SELECT value FROM meta WHERE key = 'instance'", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(db->instance, sizeof(db->instance), "%s",
			 (const char *)sqlite3_column_text(st, 0));
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

struct db *db_open(const char *path, char **err)
{
	struct db *db = calloc(1, sizeof(*db));

	*err = NULL;
	if (!db) {
		*err = strdup("out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &db->sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_FULLMUTEX, NULL) != SQLITE_OK)
		goto sqlerr;
	sqlite3_busy_timeout(db->sql, 10000);
	if (set_wal(db) < 0 ||
	    exec(db, "PRAGMA foreign_keys = ON") < 0 ||
	    exec(db, "PRAGMA synchronous = NORMAL") < 0)
		goto sqlerr;
	if (migrate(db, err) < 0)
		goto fail;
	if (load_instance(db) < 0)
		goto sqlerr;
	return db;
sqlerr:
	if (asprintf(err, "database '%s': %s", path,
		     db->sql ? sqlite3_errmsg(db->sql) : "cannot open") < 0)
		*err = NULL;
fail:
	if (*err && strncmp(*err, "database", 8)) {
		char *e = *err;

		if (asprintf(err, "database '%s': %s", path, e) < 0)
			*err = NULL;
		free(e);
	}
	db_close(db);
	return NULL;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close_v2(db->sql);
	free(db);
}

/* --- small statement helpers ------------------------------------------- */

sqlite3_stmt *dbi_prep(struct db *db, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	return st;
}

void dbi_bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

void dbi_bind_time(sqlite3_stmt *st, int i, int64_t t)
{
	if (t)
		sqlite3_bind_int64(st, i, t);
	else
		sqlite3_bind_null(st, i);
}

char *dbi_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);

	return s ? strdup((const char *)s) : NULL;
}

/* Runs a statement that returns no rows and finalizes it. 0 / -1 */
int dbi_step_done(sqlite3_stmt *st)
{
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* v (alloc elements of size sz) grown to hold one more than n, doubling;
 * NULL when memory ran out (v is left as it was). Lists grow with the rows
 * that come rather than by their limit up front. */
static void *grow(void *v, size_t n, size_t *alloc, size_t sz)
{
	void *nv;
	size_t na;

	if (n < *alloc)
		return v;
	na = *alloc ? *alloc * 2 : 16;
	nv = realloc(v, na * sz);
	if (!nv)
		return NULL;
	*alloc = na;
	return nv;
}

/* --- hosts and kernels ---------------------------------------------------- */

int db_host_upsert(struct db *db, const char *name, const char *uri, const char *accel,
		   const char *qemu_version, const char *libvirt_version, int max_vcpus,
		   int64_t memory_kb)
{
	sqlite3_stmt *st = dbi_prep(db,
		"INSERT INTO hosts (name, uri, accel, qemu_version, libvirt_version,"
		" max_vcpus, memory_kb, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
		" ON CONFLICT (name) DO UPDATE SET uri = ?2, accel = ?3, qemu_version = ?4,"
		" libvirt_version = ?5, max_vcpus = ?6, memory_kb = ?7, updated_at = ?8");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, name);
	dbi_bind_text(st, 2, uri);
	dbi_bind_text(st, 3, accel);
	dbi_bind_text(st, 4, qemu_version);
	dbi_bind_text(st, 5, libvirt_version);
	sqlite3_bind_int(st, 6, max_vcpus);
	sqlite3_bind_int64(st, 7, memory_kb);
	sqlite3_bind_int64(st, 8, now_ms());
	return dbi_step_done(st);
}

int db_host_health(struct db *db, const char *name, int healthy, const char *detail)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE hosts SET healthy = ?2, health_detail = ?3,"
				" updated_at = ?4 WHERE name = ?1");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, name);
	sqlite3_bind_int(st, 2, healthy ? 1 : 0);
	dbi_bind_text(st, 3, detail);
	sqlite3_bind_int64(st, 4, now_ms());
	return dbi_step_done(st);
}

int db_kernel_import(struct db *db, const char *path, const char *arch,
		     const char *sha256, int64_t *id)
{
	sqlite3_stmt *st = dbi_prep(db,
		"INSERT INTO kernels (source, path, arch, sha256, created_at)"
		" VALUES ('imported', ?1, ?2, ?3, ?4)"
		" ON CONFLICT (path, sha256) DO UPDATE SET arch = arch RETURNING id");
	int rc = -1;

	if (!st)
		return -1;
	dbi_bind_text(st, 1, path);
	dbi_bind_text(st, 2, arch);
	dbi_bind_text(st, 3, sha256);
	sqlite3_bind_int64(st, 4, now_ms());
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

/* --- runs ----------------------------------------------------------------- */

#define RUN_COLUMNS \
	"r.id, r.kernel_id, k.path, r.arch, r.vcpus, r.memory_mb, r.timeout_s, r.command," \
	" r.state, r.outcome, r.detail, r.splat, r.attempt, r.max_attempts, h.name, r.accel," \
	" r.machine, r.qemu_version, r.libvirt_version, r.domain, r.queued_at, r.started_at," \
	" r.booted_at, r.ended_at, r.exit_code, r.guest_release, r.guest_nproc," \
	" r.guest_mem_kb, r.run_dir, r.job, r.topology, r.numa_nodes, r.cpu_model" \
	" FROM runs r JOIN kernels k ON k.id = r.kernel_id LEFT JOIN hosts h ON h.id = r.host_id"

static void run_from_row(sqlite3_stmt *st, struct run *r)
{
	const char *s;

	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->kernel_id = sqlite3_column_int64(st, 1);
	r->kernel_path = dbi_col_text(st, 2);
	r->arch = dbi_col_text(st, 3);
	r->vcpus = sqlite3_column_int(st, 4);
	r->memory_mb = sqlite3_column_int(st, 5);
	r->timeout_s = sqlite3_column_int(st, 6);
	r->command = dbi_col_text(st, 7);
	s = (const char *)sqlite3_column_text(st, 8);
	if (run_state_parse(s, &r->state) < 0)
		r->state = RUN_QUEUED;
	s = (const char *)sqlite3_column_text(st, 9);
	if (!s || run_outcome_parse(s, &r->outcome) < 0)
		r->outcome = RUN_OUT_NONE;
	r->detail = dbi_col_text(st, 10);
	r->splat = dbi_col_text(st, 11);
	r->attempt = sqlite3_column_int(st, 12);
	r->max_attempts = sqlite3_column_int(st, 13);
	r->host = dbi_col_text(st, 14);
	r->accel = dbi_col_text(st, 15);
	r->machine = dbi_col_text(st, 16);
	r->qemu_version = dbi_col_text(st, 17);
	r->libvirt_version = dbi_col_text(st, 18);
	r->domain = dbi_col_text(st, 19);
	r->queued_at = sqlite3_column_int64(st, 20);
	r->started_at = sqlite3_column_int64(st, 21);
	r->booted_at = sqlite3_column_int64(st, 22);
	r->ended_at = sqlite3_column_int64(st, 23);
	r->has_exit_code = sqlite3_column_type(st, 24) != SQLITE_NULL;
	r->exit_code = sqlite3_column_int(st, 24);
	r->guest_release = dbi_col_text(st, 25);
	r->guest_nproc = sqlite3_column_int(st, 26);
	r->guest_mem_kb = sqlite3_column_int64(st, 27);
	r->run_dir = dbi_col_text(st, 28);
	r->job = dbi_col_text(st, 29);
	r->topology = dbi_col_text(st, 30);
	r->numa_nodes = sqlite3_column_int(st, 31);
	r->cpu_model = dbi_col_text(st, 32);
}

/* Inserts one run inside the caller's transaction. */
static int run_insert_locked(struct db *db, const struct run_request *req, int64_t request_id,
			     int64_t *id)
{
	int64_t kid;
	sqlite3_stmt *st;

	if (db_kernel_import(db, req->kernel_path, req->arch, req->kernel_sha256, &kid) < 0)
		return -1;
	st = dbi_prep(db, "INSERT INTO runs (kernel_id, arch, vcpus, memory_mb, timeout_s, command,"
		      " state, max_attempts, queued_at, job, topology, numa_nodes, request_id)"
		      " VALUES (?, ?, ?, ?, ?, ?, 'queued', ?, ?, ?, ?, ?, ?)");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, kid);
	dbi_bind_text(st, 2, req->arch);
	sqlite3_bind_int(st, 3, req->vcpus);
	sqlite3_bind_int(st, 4, req->memory_mb);
	sqlite3_bind_int(st, 5, req->timeout_s);
	dbi_bind_text(st, 6, req->command);
	sqlite3_bind_int(st, 7, req->max_attempts > 0 ? req->max_attempts : 2);
	sqlite3_bind_int64(st, 8, now_ms());
	dbi_bind_text(st, 9, req->job);
	dbi_bind_text(st, 10, req->topology);
	sqlite3_bind_int(st, 11, req->numa_nodes > 0 ? req->numa_nodes : 1);
	if (request_id)
		sqlite3_bind_int64(st, 12, request_id);
	else
		sqlite3_bind_null(st, 12);
	if (dbi_step_done(st) < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_run_insert(struct db *db, const struct run_request *req, int64_t *id)
{
	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (run_insert_locked(db, req, 0, id) < 0) {
		exec(db, "ROLLBACK");
		return -1;
	}
	return exec(db, "COMMIT");
}

int db_run_import(struct db *db, const struct run_request *req, const char *outcome,
		  const char *detail, const char *run_dir, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t now = now_ms();

	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (run_insert_locked(db, req, 0, id) < 0)
		goto fail;
	/* done at once: no guest, the results came from elsewhere */
	st = dbi_prep(db, "UPDATE runs SET state = 'done', outcome = ?2, detail = ?3, accel = 'imported',"
		      " run_dir = ?4, started_at = ?5, ended_at = ?5, exit_code = 0 WHERE id = ?1");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, *id);
	dbi_bind_text(st, 2, outcome);
	dbi_bind_text(st, 3, detail);
	dbi_bind_text(st, 4, run_dir);
	sqlite3_bind_int64(st, 5, now);
	if (dbi_step_done(st) < 0)
		goto fail;
	return exec(db, "COMMIT");
fail:
	exec(db, "ROLLBACK");
	return -1;
}

int db_run_set_outcome(struct db *db, int64_t id, const char *outcome, const char *detail)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE runs SET outcome = ?, detail = ? WHERE id = ?");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, outcome);
	dbi_bind_text(st, 2, detail);
	sqlite3_bind_int64(st, 3, id);
	return dbi_step_done(st);
}

int db_request_insert(struct db *db, const struct run_request *base,
		      const struct run_request *patched, int repeats, int64_t *id)
{
	int64_t bk, pk, rid;
	sqlite3_stmt *st;

	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (db_kernel_import(db, base->kernel_path, base->arch, base->kernel_sha256, &bk) < 0 ||
	    db_kernel_import(db, patched->kernel_path, patched->arch, patched->kernel_sha256,
			     &pk) < 0)
		goto fail;
	st = dbi_prep(db, "INSERT INTO requests (created_at, base_kernel_id, patched_kernel_id, job,"
		      " repeats) VALUES (?, ?, ?, ?, ?)");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, now_ms());
	sqlite3_bind_int64(st, 2, bk);
	sqlite3_bind_int64(st, 3, pk);
	dbi_bind_text(st, 4, base->job);
	sqlite3_bind_int(st, 5, repeats);
	if (dbi_step_done(st) < 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(db->sql);
	/* base, patched, base, patched...: both sides see the same conditions */
	for (int i = 0; i < repeats; i++)
		if (run_insert_locked(db, base, *id, &rid) < 0 ||
		    run_insert_locked(db, patched, *id, &rid) < 0)
			goto fail;
	return exec(db, "COMMIT");
fail:
	exec(db, "ROLLBACK");
	return -1;
}

int db_request_get(struct db *db, int64_t id, struct request *r)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT id, created_at, base_kernel_id, patched_kernel_id,"
				" job, repeats FROM requests WHERE id = ?");
	int rc;

	memset(r, 0, sizeof(*r));
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc == SQLITE_DONE ? 0 : -1;
	}
	r->id = sqlite3_column_int64(st, 0);
	r->created_at = sqlite3_column_int64(st, 1);
	r->base_kernel_id = sqlite3_column_int64(st, 2);
	r->patched_kernel_id = sqlite3_column_int64(st, 3);
	r->job = dbi_col_text(st, 4);
	r->repeats = sqlite3_column_int(st, 5);
	sqlite3_finalize(st);
	st = dbi_prep(db, "SELECT id FROM runs WHERE request_id = ? ORDER BY id");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, id);
	r->run_ids = calloc((size_t)r->repeats * 2 + 1, sizeof(*r->run_ids));
	if (!r->run_ids) {
		sqlite3_finalize(st);
		goto fail;
	}
	while (sqlite3_step(st) == SQLITE_ROW && r->nruns < (size_t)r->repeats * 2)
		r->run_ids[r->nruns++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return 1;
fail:
	request_release(r);
	return -1;
}

void request_release(struct request *r)
{
	free(r->job);
	free(r->run_ids);
	memset(r, 0, sizeof(*r));
}

int db_run_get(struct db *db, int64_t id, struct run *r)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT " RUN_COLUMNS " WHERE r.id = ?");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		run_from_row(st, r);
		rc = 1;
	} else {
		rc = rc == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_run_list(struct db *db, int limit, int64_t before, struct run **runs, size_t *n)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT " RUN_COLUMNS
				" WHERE r.id < ? ORDER BY r.id DESC LIMIT ?");
	struct run *v = NULL;
	size_t cnt = 0, alloc = 0;
	int rc = SQLITE_DONE;

	*runs = NULL;
	*n = 0;
	if (!st)
		return -1;
	if (limit <= 0) {
		sqlite3_finalize(st);
		return limit == 0 ? 0 : -1;
	}
	sqlite3_bind_int64(st, 1, before > 0 ? before : INT64_MAX);
	sqlite3_bind_int(st, 2, limit);
	while (cnt < (size_t)limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run *nv = grow(v, cnt, &alloc, sizeof(*v));

		if (!nv) {
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		run_from_row(st, &v[cnt++]);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		run_list_free(v, cnt);
		return -1;
	}
	*runs = v;
	*n = cnt;
	return 0;
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

int db_run_claim(struct db *db, const char *host, struct run *r)
{
	struct claim_fit any = { INT_MAX, INT_MAX, INT_MAX, 0, 0 };

	return db_run_claim_fit(db, host, &any, r);
}

int db_run_claim_fit(struct db *db, const char *host, const struct claim_fit *fit,
		     struct run *r)
{
	sqlite3_stmt *st;
	int64_t id = 0, host_id = 0, now = now_ms();
	char domain[64];
	int rc = -1, attempt = 0;

	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	st = dbi_prep(db, "SELECT id, attempt FROM runs WHERE state = 'queued'"
		      " AND ((arch = 'x86_64' AND vcpus <= ?1 AND"
		      "       NOT (vcpus <= ?4 AND memory_mb <= ?5))"
		      "      OR (arch = 'arm64' AND vcpus <= ?2))"
		      " AND memory_mb <= ?3 ORDER BY id LIMIT 1");
	if (!st)
		goto out;
	sqlite3_bind_int(st, 1, fit->max_vcpus_x86_64);
	sqlite3_bind_int(st, 2, fit->max_vcpus_arm64);
	sqlite3_bind_int(st, 3, fit->max_memory_mb);
	sqlite3_bind_int(st, 4, fit->leave_vcpus);
	sqlite3_bind_int(st, 5, fit->leave_memory_mb);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		id = sqlite3_column_int64(st, 0);
		attempt = sqlite3_column_int(st, 1) + 1;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE) {
		rc = 0;
		goto out;
	}
	rc = -1;
	if (!id)
		goto out;
	st = dbi_prep(db, "SELECT id FROM hosts WHERE name = ?");
	if (!st)
		goto out;
	dbi_bind_text(st, 1, host);
	if (sqlite3_step(st) == SQLITE_ROW)
		host_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!host_id)
		goto out;
	snprintf(domain, sizeof(domain), "kf-%s-%lld", db->instance, (long long)id);
	st = dbi_prep(db, "UPDATE runs SET state = 'running', attempt = ?2, host_id = ?3,"
		      " domain = ?4, started_at = ?5, booted_at = NULL, ended_at = NULL,"
		      " outcome = NULL, exit_code = NULL, guest_release = NULL,"
		      " guest_nproc = NULL, guest_mem_kb = NULL, splat = NULL"
		      " WHERE id = ?1 AND state = 'queued'");
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, attempt);
	sqlite3_bind_int64(st, 3, host_id);
	dbi_bind_text(st, 4, domain);
	sqlite3_bind_int64(st, 5, now);
	if (dbi_step_done(st) < 0)
		goto out;
	st = dbi_prep(db, "INSERT INTO attempts (run_id, n, host_id, domain, started_at)"
		      " VALUES (?, ?, ?, ?, ?)");
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, attempt);
	sqlite3_bind_int64(st, 3, host_id);
	dbi_bind_text(st, 4, domain);
	sqlite3_bind_int64(st, 5, now);
	if (dbi_step_done(st) < 0)
		goto out;
	if (exec(db, "COMMIT") < 0)
		goto out;
	return db_run_get(db, id, r) == 1 ? 1 : -1;
out:
	exec(db, "ROLLBACK");
	return rc;
}

int db_run_cpu_model(struct db *db, int64_t id, const char *model)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE runs SET cpu_model = ?2 WHERE id = ?1");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	dbi_bind_text(st, 2, model);
	return dbi_step_done(st);
}

int db_run_started(struct db *db, int64_t id, const char *accel, const char *machine,
		   const char *qemu_version, const char *libvirt_version, const char *run_dir)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE runs SET accel = ?2, machine = ?3, qemu_version = ?4,"
				" libvirt_version = ?5, run_dir = ?6 WHERE id = ?1");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	dbi_bind_text(st, 2, accel);
	dbi_bind_text(st, 3, machine);
	dbi_bind_text(st, 4, qemu_version);
	dbi_bind_text(st, 5, libvirt_version);
	dbi_bind_text(st, 6, run_dir);
	return dbi_step_done(st);
}

int db_run_booted(struct db *db, int64_t id, int64_t at, const char *release, int nproc,
		  int64_t mem_kb)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE runs SET booted_at = ?2, guest_release = ?3,"
				" guest_nproc = ?4, guest_mem_kb = ?5 WHERE id = ?1");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	dbi_bind_time(st, 2, at);
	dbi_bind_text(st, 3, release);
	sqlite3_bind_int(st, 4, nproc);
	sqlite3_bind_int64(st, 5, mem_kb);
	return dbi_step_done(st);
}

/* The body of db_run_finish, inside the caller's transaction. */
static int finish_locked(struct db *db, int64_t id, enum run_outcome o, const char *detail,
			 const char *splat, int has_exit_code, int exit_code)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT attempt, max_attempts FROM runs"
				" WHERE id = ? AND state = 'running'");
	int attempt, max, requeue;
	int64_t now = now_ms();

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_finalize(st);
		return -1;
	}
	attempt = sqlite3_column_int(st, 0);
	max = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	requeue = o == RUN_OUT_INFRA && attempt < max;

	st = dbi_prep(db, "UPDATE attempts SET ended_at = ?3, outcome = ?4, detail = ?5"
		      " WHERE run_id = ?1 AND n = ?2");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, attempt);
	sqlite3_bind_int64(st, 3, now);
	dbi_bind_text(st, 4, run_outcome_name(o));
	dbi_bind_text(st, 5, detail);
	if (dbi_step_done(st) < 0)
		return -1;

	if (requeue)
		st = dbi_prep(db, "UPDATE runs SET state = 'queued', outcome = NULL, detail = ?2,"
			      " splat = NULL, exit_code = NULL, ended_at = NULL WHERE id = ?1");
	else
		st = dbi_prep(db, "UPDATE runs SET state = 'done', outcome = ?3, detail = ?2,"
			      " splat = ?4, exit_code = ?5, ended_at = ?6 WHERE id = ?1");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	dbi_bind_text(st, 2, detail);
	if (!requeue) {
		dbi_bind_text(st, 3, run_outcome_name(o));
		dbi_bind_text(st, 4, splat);
		if (has_exit_code)
			sqlite3_bind_int(st, 5, exit_code);
		else
			sqlite3_bind_null(st, 5);
		sqlite3_bind_int64(st, 6, now);
	}
	return dbi_step_done(st);
}

int db_run_finish(struct db *db, int64_t id, enum run_outcome o, const char *detail,
		  const char *splat, int has_exit_code, int exit_code)
{
	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	if (finish_locked(db, id, o, detail, splat, has_exit_code, exit_code) < 0) {
		exec(db, "ROLLBACK");
		return -1;
	}
	return exec(db, "COMMIT");
}

int db_recover(struct db *db, char ***domains, size_t *n)
{
	sqlite3_stmt *st;
	char **v = NULL;
	int64_t *ids = NULL;
	size_t cnt = 0;
	int rc = -1;

	*domains = NULL;
	*n = 0;
	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	st = dbi_prep(db, "SELECT id, domain FROM runs WHERE state = 'running' ORDER BY id");
	if (!st)
		goto out;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char **nv = realloc(v, (cnt + 1) * sizeof(*v));
		int64_t *ni = realloc(ids, (cnt + 1) * sizeof(*ids));

		if (nv)
			v = nv;
		if (ni)
			ids = ni;
		if (!nv || !ni) {
			sqlite3_finalize(st);
			goto out;
		}
		ids[cnt] = sqlite3_column_int64(st, 0);
		v[cnt] = dbi_col_text(st, 1);
		cnt++;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < cnt; i++)
		if (finish_locked(db, ids[i], RUN_OUT_INFRA,
				  "kfleetd restarted while the run was in flight", NULL, 0, 0) < 0)
			goto out;
	if (exec(db, "COMMIT") < 0)
		goto out;
	*domains = v;
	*n = cnt;
	v = NULL;
	cnt = 0;
	rc = 0;
out:
	if (rc < 0)
		exec(db, "ROLLBACK");
	for (size_t i = 0; i < cnt; i++)
		free(v[i]);
	free(v);
	free(ids);
	return rc;
}

int db_attempt_list(struct db *db, int64_t run_id, struct attempt **a, size_t *n)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT a.n, h.name, a.started_at, a.ended_at, a.outcome,"
				" a.detail FROM attempts a LEFT JOIN hosts h ON h.id = a.host_id"
				" WHERE a.run_id = ? ORDER BY a.n");
	struct attempt *v = NULL;
	size_t cnt = 0;
	int rc;

	*a = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct attempt *nv = realloc(v, (cnt + 1) * sizeof(*v));
		const char *o;

		if (!nv) {
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		memset(&v[cnt], 0, sizeof(v[cnt]));
		v[cnt].n = sqlite3_column_int(st, 0);
		v[cnt].host = dbi_col_text(st, 1);
		v[cnt].started_at = sqlite3_column_int64(st, 2);
		v[cnt].ended_at = sqlite3_column_int64(st, 3);
		o = (const char *)sqlite3_column_text(st, 4);
		if (!o || run_outcome_parse(o, &v[cnt].outcome) < 0)
			v[cnt].outcome = RUN_OUT_NONE;
		v[cnt].detail = dbi_col_text(st, 5);
		cnt++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		attempt_list_free(v, cnt);
		return -1;
	}
	*a = v;
	*n = cnt;
	return 0;
}

void attempt_list_free(struct attempt *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].host);
		free(a[i].detail);
	}
	free(a);
}

/* --- results and samples -------------------------------------------------- */

int db_run_store_results(struct db *db, int64_t run_id, const struct result_row *res,
			 size_t nres, const struct sample_row *smp, size_t nsmp)
{
	sqlite3_stmt *st = NULL;
	int rc = -1;

	if (exec(db, "BEGIN IMMEDIATE") < 0)
		return -1;
	st = dbi_prep(db, "DELETE FROM results WHERE run_id = ?");
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	if (dbi_step_done(st) < 0)
		goto out;
	st = dbi_prep(db, "DELETE FROM samples WHERE run_id = ?");
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, run_id);
	if (dbi_step_done(st) < 0)
		goto out;
	st = dbi_prep(db, "INSERT INTO results (run_id, path, status, detail) VALUES (?, ?, ?, ?)");
	if (!st)
		goto out;
	for (size_t i = 0; i < nres; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_id);
		dbi_bind_text(st, 2, res[i].path);
		dbi_bind_text(st, 3, res[i].status);
		dbi_bind_text(st, 4, res[i].detail);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out_st;
	}
	sqlite3_finalize(st);
	st = dbi_prep(db, "INSERT INTO samples (run_id, metric, value, unit, seq) VALUES (?, ?, ?, ?, ?)");
	if (!st)
		goto out;
	for (size_t i = 0; i < nsmp; i++) {
		sqlite3_reset(st);
		sqlite3_bind_int64(st, 1, run_id);
		dbi_bind_text(st, 2, smp[i].metric);
		sqlite3_bind_double(st, 3, smp[i].value);
		dbi_bind_text(st, 4, smp[i].unit);
		sqlite3_bind_int(st, 5, smp[i].seq);
		if (sqlite3_step(st) != SQLITE_DONE)
			goto out_st;
	}
	sqlite3_finalize(st);
	st = NULL;
	rc = exec(db, "COMMIT");
	goto out;
out_st:
	sqlite3_finalize(st);
out:
	if (rc < 0)
		exec(db, "ROLLBACK");
	return rc;
}

int db_run_results(struct db *db, int64_t run_id, int limit, struct result_row **rows,
		   size_t *n, int64_t counts[7])
{
	static const char *const order[] = { "pass", "fail", "skip", "xfail", "error",
					     "timeout", "missing" };
	sqlite3_stmt *st;
	struct result_row *v = NULL;
	size_t cnt = 0, alloc = 0;
	int rc = SQLITE_DONE;

	*rows = NULL;
	*n = 0;
	if (counts) {
		memset(counts, 0, 7 * sizeof(int64_t));
		st = dbi_prep(db, "SELECT status, count(*) FROM results WHERE run_id = ? GROUP BY status");
		if (!st)
			return -1;
		sqlite3_bind_int64(st, 1, run_id);
		while (sqlite3_step(st) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(st, 0);

			for (int i = 0; s && i < 7; i++)
				if (!strcmp(s, order[i]))
					counts[i] = sqlite3_column_int64(st, 1);
		}
		sqlite3_finalize(st);
	}
	if (limit <= 0)
		return 0;
	st = dbi_prep(db, "SELECT path, status, detail FROM results WHERE run_id = ?"
		      " ORDER BY CASE status WHEN 'pass' THEN 2 WHEN 'skip' THEN 1"
		      " WHEN 'xfail' THEN 1 ELSE 0 END, path, id LIMIT ?");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, limit);
	while (cnt < (size_t)limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct result_row *nv = grow(v, cnt, &alloc, sizeof(*v));

		if (!nv) {
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		v[cnt].path = dbi_col_text(st, 0);
		v[cnt].status = dbi_col_text(st, 1);
		v[cnt].detail = dbi_col_text(st, 2);
		cnt++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		result_rows_free(v, cnt);
		return -1;
	}
	*rows = v;
	*n = cnt;
	return 0;
}

void result_rows_free(struct result_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].path);
		free(rows[i].status);
		free(rows[i].detail);
	}
	free(rows);
}

int db_run_samples(struct db *db, int64_t run_id, int limit, struct sample_row **rows,
		   size_t *n)
{
	sqlite3_stmt *st;
	struct sample_row *v = NULL;
	size_t cnt = 0, alloc = 0;
	int rc = SQLITE_DONE;

	*rows = NULL;
	*n = 0;
	if (limit <= 0)
		return limit == 0 ? 0 : -1;
	st = dbi_prep(db, "SELECT metric, unit, value, seq FROM samples WHERE run_id = ?"
		      " ORDER BY metric, seq, id LIMIT ?");
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	sqlite3_bind_int(st, 2, limit);
	while (cnt < (size_t)limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sample_row *nv = grow(v, cnt, &alloc, sizeof(*v));

		if (!nv) {
			rc = SQLITE_NOMEM;
			break;
		}
		v = nv;
		v[cnt].metric = dbi_col_text(st, 0);
		v[cnt].unit = dbi_col_text(st, 1);
		v[cnt].value = sqlite3_column_double(st, 2);
		v[cnt].seq = sqlite3_column_int(st, 3);
		cnt++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE && rc != SQLITE_ROW) {
		sample_rows_free(v, cnt);
		return -1;
	}
	*rows = v;
	*n = cnt;
	return 0;
}

void sample_rows_free(struct sample_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].metric);
		free(rows[i].unit);
	}
	free(rows);
}
