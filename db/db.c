// SPDX-License-Identifier: GPL-2.0-only
/* db.c: opening the database (WAL, pragmas, the schema migrated to
 * DB_SCHEMA_VERSION, the instance id), the words of a run's state and
 * outcome, and the statement and transaction helpers every table's file
 * uses (dbint.h). The queries live in a file per table: runs.c, results.c,
 * requests.c, hosts.c, kernels.c, trees.c, submissions.c, builds.c, and
 * trend_data.c for the trend pages; rows become structs in row.c. */
#include "db/db.h"
#include "db/dbint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

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
	/* up to date, the common case: a read, which a writer elsewhere
	 * (holding the lock for long) does not hold up */
	if (pragma_int(db, "PRAGMA user_version", &version) == 0 && version == DB_SCHEMA_VERSION)
		return 0;
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
	if (sqlite3_prepare_v2(db->sql, "SELECT value FROM meta WHERE key = 'instance'", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	/* made already (a read), or now */
	if (sqlite3_step(st) != SQLITE_ROW) {
		sqlite3_reset(st);
		if (exec(db, sql) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_reset(st);
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
	sqlite3_busy_timeout(db->sql, DB_BUSY_MS);
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

int db_busy(struct db *db)
{
	int c = sqlite3_errcode(db->sql) & 0xff;

	return c == SQLITE_BUSY || c == SQLITE_LOCKED;
}

int db_full(struct db *db)
{
	return (sqlite3_errcode(db->sql) & 0xff) == SQLITE_FULL;
}

int db_quick_check(struct db *db, char **err)
{
	sqlite3_stmt *st;
	int rc;

	*err = NULL;
	if (sqlite3_prepare_v2(db->sql, "PRAGMA quick_check(3)", -1, &st, NULL) != SQLITE_OK) {
		*err = strdup(sqlite3_errmsg(db->sql));
		return -1;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && !strcmp((const char *)sqlite3_column_text(st, 0), "ok")) {
		sqlite3_finalize(st);
		return 0;
	}
	if (asprintf(err, "%s", rc == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) :
		     sqlite3_errmsg(db->sql)) < 0)
		*err = NULL;
	sqlite3_finalize(st);
	return -1;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_close_v2(db->sql);
	free(db);
}

/* --- statements and transactions ----------------------------------------- */

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

void dbi_bind_args(sqlite3_stmt *st, const struct dbi_arg *a, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int i = (int)k + 1;

		switch (a[k].type) {
		case DBI_ARG_INT:
			sqlite3_bind_int64(st, i, a[k].i);
			break;
		case DBI_ARG_OPT:
			if (a[k].i)
				sqlite3_bind_int64(st, i, a[k].i);
			else
				sqlite3_bind_null(st, i);
			break;
		case DBI_ARG_REAL:
			sqlite3_bind_double(st, i, a[k].d);
			break;
		case DBI_ARG_TEXT:
			dbi_bind_text(st, i, a[k].s);
			break;
		case DBI_ARG_NULL:
			sqlite3_bind_null(st, i);
			break;
		}
	}
}

sqlite3_stmt *dbi_stmt_(struct db *db, const char *sql, const struct dbi_arg *a, size_t n)
{
	sqlite3_stmt *st = dbi_prep(db, sql);

	if (st)
		dbi_bind_args(st, a, n);
	return st;
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

int dbi_row_ints(sqlite3_stmt *st, int64_t *v, int n)
{
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	for (int i = 0; rc == SQLITE_ROW && i < n; i++)
		v[i] = sqlite3_column_int64(st, i);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int dbi_begin(struct db *db)
{
	return exec(db, "BEGIN IMMEDIATE");
}

int dbi_commit(struct db *db)
{
	return exec(db, "COMMIT");
}

void dbi_rollback(struct db *db)
{
	exec(db, "ROLLBACK");
}

int db_read_begin(struct db *db)
{
	return exec(db, "BEGIN DEFERRED");
}

void db_read_end(struct db *db)
{
	exec(db, "COMMIT");
}
