/* SPDX-License-Identifier: GPL-2.0-only */
/* dbtest.h: what the db/ unit tests share: a fresh database in its own
 * temporary directory per test, and runs put through the queue (inserted,
 * claimed, finished) the way the workers do. Include after <cmocka.h>. */
#ifndef KF_DBTEST_H
#define KF_DBTEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "db/db.h"
#include "t/unit/testutil.h"

#define DBT_SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define DBT_SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct dbt {
	char dir[128];
	char *path;          /* dir/kfleet.db */
	struct db *db;
};

static inline int dbt_setup(void **state)
{
	struct dbt *f = calloc(1, sizeof(*f));
	char *err = NULL;

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "dbt");
	f->path = tu_path(f->dir, "kfleet.db");
	f->db = db_open(f->path, &err);
	if (!f->db) {
		fprintf(stderr, "db_open: %s\n", err ? err : "?");
		free(err);
		return -1;
	}
	*state = f;
	return 0;
}

static inline int dbt_teardown(void **state)
{
	struct dbt *f = *state;

	db_close(f->db);
	tu_rmrf(f->dir);
	free(f->path);
	free(f);
	return 0;
}

/* A second connection to path, which must open */
static inline struct db *dbt_open(const char *path)
{
	char *err = NULL;
	struct db *db = db_open(path, &err);

	if (!db)
		fail_msg("db_open '%s': %s", path, err ? err : "?");
	assert_null(err);
	return db;
}

static inline void dbt_host(struct db *db, const char *name)
{
	assert_int_equal(db_host_upsert(db, name, "test:///default", "tcg", "8.2.0", "9.0.0",
					16, 8 << 20), 0);
}

/* A plain request for a run of job (or command) on x86_64 */
static inline struct run_request dbt_req(const char *kernel, const char *sha, const char *job,
					 int vcpus)
{
	struct run_request r = {
		.kernel_path = kernel, .kernel_sha256 = sha, .arch = "x86_64", .vcpus = vcpus,
		.memory_mb = 512, .timeout_s = 60, .command = job ? job : "true", .job = job,
		.max_attempts = 1,
	};

	return r;
}

/* Claims the oldest queued run on host, which must be want (0: any), and
 * finishes it with o; returns its id */
static inline int64_t dbt_claim_finish(struct db *db, const char *host, int64_t want,
				       enum run_outcome o)
{
	struct run r;
	int64_t id;

	assert_int_equal(db_run_claim(db, host, &r), 1);
	if (want)
		assert_int_equal(r.id, want);
	id = r.id;
	run_release(&r);
	assert_int_equal(db_run_finish(db, id, o, NULL, NULL, 1, o == RUN_OUT_PASSED ? 0 : 1),
			 0);
	return id;
}

/* Inserts a run of req and takes it through claim and finish on host */
static inline int64_t dbt_run_done(struct db *db, const char *host,
				   const struct run_request *req, enum run_outcome o)
{
	int64_t id = 0;

	assert_int_equal(db_run_insert(db, req, &id), 0);
	return dbt_claim_finish(db, host, id, o);
}

/* An integer the SQL returns (one row, one column) */
static inline int64_t dbt_sql_int(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, db_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

/* The text the SQL returns (one row, one column); caller frees */
static inline char *dbt_sql_text(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	char *s;

	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, db_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	s = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s;
}

/* Queues a run of command on a test kernel; returns its id */
static inline int64_t dbt_insert_run(struct db *db, const char *command, int max_attempts)
{
	struct run_request req = {
		.kernel_path = "/boot/vmlinuz-6.1.0-test",
		.kernel_sha256 = DBT_SHA_A,
		.arch = "x86_64",
		.vcpus = 2,
		.memory_mb = 512,
		.timeout_s = 60,
		.command = command,
		.max_attempts = max_attempts,
	};
	int64_t id = 0;

	assert_int_equal(db_run_insert(db, &req, &id), 0);
	assert_true(id > 0);
	return id;
}

/* db_run_get() that must find run id */
static inline void dbt_get(struct db *db, int64_t id, struct run *r)
{
	assert_int_equal(db_run_get(db, id, r), 1);
	assert_int_equal(r->id, id);
}

#endif
