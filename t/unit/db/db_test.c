// SPDX-License-Identifier: GPL-2.0-only
/* db_test.c: unit tests for db/db.c and db/migrate.c: opening a new file
 * (the schema and pragmas), reopening it (the same instance and data),
 * a database newer than the program being refused, errors on opening,
 * several threads opening a new file at once, and the names of run states
 * and outcomes. The queue's tests are in runs_test.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>

#include "t/unit/db/dbtest.h"

/* --- opening and the schema ----------------------------------------------- */

static void test_open_creates_schema(void **state)
{
	struct dbt *f = *state;
	static const char *const tables[] = {
		"meta", "hosts", "kernels", "runs", "attempts", "results", "samples",
	};
	const char *inst = db_instance(f->db);
	char *mode, sql[128];

	assert_int_equal(dbt_sql_int(f->db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	mode = dbt_sql_text(f->db, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	assert_int_equal(dbt_sql_int(f->db, "PRAGMA foreign_keys"), 1);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
			 tables[i]);
		if (dbt_sql_int(f->db, sql) != 1)
			fail_msg("table '%s' missing", tables[i]);
	}
	/* foreign keys are enforced, not just declared */
	assert_int_not_equal(sqlite3_exec(db_sqlite(f->db),
		"INSERT INTO runs (kernel_id, arch, vcpus, memory_mb, timeout_s, command, state,"
		" queued_at) VALUES (999, 'x86_64', 1, 64, 1, 'true', 'queued', 1)",
		NULL, NULL, NULL), SQLITE_OK);
	/* the instance: 8 lowercase hex digits */
	assert_non_null(inst);
	assert_int_equal(strlen(inst), 8);
	assert_int_equal(strspn(inst, "0123456789abcdef"), 8);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM meta WHERE key = 'instance'"), 1);
}

static void test_reopen_keeps_data(void **state)
{
	struct dbt *f = *state;
	char inst[32];
	struct db *db2;
	struct run r;
	int64_t id;

	snprintf(inst, sizeof(inst), "%s", db_instance(f->db));
	dbt_host(f->db, "local");
	id = dbt_insert_run(f->db, "uname -r", 2);
	db_close(f->db);
	f->db = dbt_open(f->path);
	assert_string_equal(db_instance(f->db), inst);
	assert_int_equal(dbt_sql_int(f->db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM hosts"), 1);
	dbt_get(f->db, id, &r);
	assert_string_equal(r.command, "uname -r");
	run_release(&r);
	/* a second connection at the same time sees the same instance and data */
	db2 = dbt_open(f->path);
	assert_string_equal(db_instance(db2), inst);
	dbt_get(db2, id, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	run_release(&r);
	db_close(db2);
	/* a different file is a different instance (the id is random) */
	{
		char *other = tu_path(f->dir, "other.db");

		db2 = dbt_open(other);
		assert_string_not_equal(db_instance(db2), inst);
		db_close(db2);
		free(other);
	}
}

static void test_newer_schema_refused(void **state)
{
	struct dbt *f = *state;
	char *err = NULL;
	struct db *db;
	char sql[64], want[64], mine[16];

	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", DB_SCHEMA_VERSION + 1);
	snprintf(want, sizeof(want), "schema version %d is newer", DB_SCHEMA_VERSION + 1);
	snprintf(mine, sizeof(mine), "(%d)", DB_SCHEMA_VERSION);
	assert_int_equal(sqlite3_exec(db_sqlite(f->db), sql, NULL, NULL, NULL), SQLITE_OK);
	db_close(f->db);
	f->db = NULL;
	db = db_open(f->path, &err);
	assert_null(db);
	assert_non_null(err);
	/* names the file and both versions */
	assert_non_null(strstr(err, f->path));
	assert_non_null(strstr(err, want));
	assert_non_null(strstr(err, mine));
	free(err);
	/* the file was left alone */
	{
		sqlite3 *s;
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_open(f->path, &s), SQLITE_OK);
		assert_int_equal(sqlite3_prepare_v2(s, "PRAGMA user_version", -1, &st, NULL),
				 SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(st, 0), DB_SCHEMA_VERSION + 1);
		sqlite3_finalize(st);
		sqlite3_close(s);
	}
}

/* Schema 18 on a file of 17: the runs of a watch's submission, plain or
 * of its requests, are for that watch; a person's are for nobody */
/* Schema step 21 undone: its triggers (on other tables: dropping stamps
 * leaves them) and the table */
static void drop_kept_stamp(sqlite3 *s)
{
	sqlite3_stmt *st;
	char *sql = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&sql, &len);

	assert_non_null(f);
	assert_int_equal(sqlite3_prepare_v2(s, "SELECT name FROM sqlite_master WHERE type ="
					    " 'trigger' AND name LIKE '%\\_kept\\_%' ESCAPE '\\'",
					    -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW)
		fprintf(f, "DROP TRIGGER %s;", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	fputs("DROP TABLE stamps;", f);
	fclose(f);
	assert_int_equal(sqlite3_exec(s, sql, NULL, NULL, NULL), SQLITE_OK);
	free(sql);
}

/* What makes db_kept_stamp() grow (schema step 21): a write to the watch
 * tables, a build, a done run changed or deleted, a host renamed; not a
 * run that starts or ends (the count of done runs says that), nor a
 * host's health */
static void test_kept_stamp(void **state)
{
	struct dbt *f = *state;
	sqlite3 *s = db_sqlite(f->db);
	int64_t a, b, id = dbt_insert_run(f->db, "stamped", 1);
	char sql[256];
	static const struct {
		const char *sql;
		int grows;
	} steps[] = {
		{ "UPDATE runs SET state = 'running', started_at = 5 WHERE id = ?", 0 },
		{ "UPDATE runs SET phase = 'booting' WHERE id = ?", 0 },
		{ "UPDATE runs SET state = 'done', outcome = 'passed', ended_at = 9 WHERE id = ?", 0 },
		{ "UPDATE runs SET detail = 'changed after its end' WHERE id = ?", 1 },
		{ "INSERT INTO hosts (name, uri, updated_at) VALUES ('h?', 'test:///default', 1)", 0 },
		{ "UPDATE hosts SET healthy = 0, health_detail = 'down' WHERE name = 'h?'", 0 },
		{ "UPDATE hosts SET name = 'h2?' WHERE name = 'h?'", 1 },
		{ "INSERT INTO watch_log (watch, at, level, text) VALUES ('w', 1, 'info', '?')", 1 },
		{ "INSERT INTO builds (key, tree, commit_id, arch, config, config_hash, toolchain,"
		  " state, dir, started_at) VALUES ('k?', 't', 'c', 'x86_64', 'tinyconfig', 'h',"
		  " 'gcc', 'building', '/d', 1)", 1 },
		{ "UPDATE builds SET state = 'failed' WHERE key = 'k?'", 1 },
		{ "DELETE FROM runs WHERE id = ?", 1 },
	};

	assert_int_equal(db_kept_stamp(f->db, &a), 0);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		size_t n = 0;

		for (const char *p = steps[i].sql; *p && n < sizeof(sql) - 24; p++)   /* ? is id */
			n += *p == '?' ? (size_t)sprintf(sql + n, "%lld", (long long)id) :
			     (size_t)sprintf(sql + n, "%c", *p);
		if (sqlite3_exec(s, sql, NULL, NULL, NULL) != SQLITE_OK)
			fail_msg("%s: %s", sql, sqlite3_errmsg(s));
		assert_int_equal(db_kept_stamp(f->db, &b), 0);
		if ((b > a) != steps[i].grows)
			fail_msg("%s: the stamp went from %lld to %lld", sql, (long long)a,
				 (long long)b);
		a = b;
	}
}

static void test_migrate_watch_runs(void **state)
{
	struct dbt *f = *state;
	sqlite3 *s = db_sqlite(f->db);
	int64_t mine, plain, req;

	mine = dbt_insert_run(f->db, "mine", 1);
	plain = dbt_insert_run(f->db, "plain", 1);
	req = dbt_insert_run(f->db, "of a request", 1);
	/* as schema 17 had it: a watch's series, its submission and links
	 * (and none of the later steps' indexes, columns, tables and
	 * triggers) */
	drop_kept_stamp(s);
	assert_int_equal(sqlite3_exec(s,
		"DROP INDEX results_run_order; DROP INDEX runs_ended; DROP INDEX builds_kernel;"
		"DROP INDEX watch_checks_series; DROP INDEX watch_series_watch;"
		"DROP INDEX watch_series_submission; ALTER TABLE runs DROP COLUMN boot;"
		"ALTER TABLE runs DROP COLUMN cancel_at;"
		"DROP INDEX runs_watch;"
		"ALTER TABLE runs DROP COLUMN watch;"
		"ALTER TABLE submissions DROP COLUMN watch;"
		"INSERT INTO submissions (id, created_at, tree, arches, config, state)"
		"  VALUES (7, 1, 't', 'x86_64', 'tinyconfig', 'testing'),"
		"         (8, 1, 't', 'x86_64', 'tinyconfig', 'testing');"
		"INSERT INTO watch_series (watch, remote_id, msgid, version, name, mbox_url, patches,"
		"  seen_at, state, submission_id) VALUES ('net', 1, 'm', 1, 'x', 'u', '[]', 1,"
		"  'queued', 7);"
		"INSERT INTO requests (id, created_at, base_kernel_id, patched_kernel_id, repeats,"
		"  submission_id) VALUES (3, 1, 1, 1, 1, 7);"
		"UPDATE runs SET submission_id = 7 WHERE command = 'plain';"
		"UPDATE runs SET request_id = 3 WHERE command = 'of a request';"
		"PRAGMA user_version = 17;", NULL, NULL, NULL), SQLITE_OK);
	db_close(f->db);
	f->db = dbt_open(f->path);
	assert_int_equal(dbt_sql_int(f->db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM submissions"
				     " WHERE id = 7 AND watch = 'net'"), 1);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM submissions"
				     " WHERE id = 8 AND watch IS NULL"), 1);
	{
		char sql[128];

		snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs WHERE watch = 'net'"
			 " AND id IN (%lld, %lld)", (long long)plain, (long long)req);
		assert_int_equal(dbt_sql_int(f->db, sql), 2);
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM runs WHERE watch IS NULL"
			 " AND id = %lld", (long long)mine);
		assert_int_equal(dbt_sql_int(f->db, sql), 1);
	}
}

static void test_open_errors(void **state)
{
	struct dbt *f = *state;
	char *junk = tu_path(f->dir, "junk.db"), *nodir = tu_path(f->dir, "no/such/dir/x.db");
	char *err = NULL;
	char garbage[4096];

	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (char)(i * 31 + 7);
	tu_write(junk, garbage, sizeof(garbage), 0);
	assert_null(db_open(junk, &err));
	assert_non_null(err);
	assert_non_null(strstr(err, junk));
	free(err);
	err = NULL;
	assert_null(db_open(nodir, &err));
	assert_non_null(err);
	assert_non_null(strstr(err, nodir));
	free(err);
	free(junk);
	free(nodir);
}

/* Two programs (kfleetd and the CLI, or two daemons) opening one new file at
 * the same moment must both get a working database. */
struct opener {
	const char *path;
	pthread_barrier_t *bar;
	char *err;
	int ok;
	char instance[32];
};

static void *open_thread(void *arg)
{
	struct opener *o = arg;
	struct db *db;

	pthread_barrier_wait(o->bar);
	db = db_open(o->path, &o->err);
	if (db) {
		o->ok = 1;
		snprintf(o->instance, sizeof(o->instance), "%s", db_instance(db));
		db_close(db);
	}
	return NULL;
}

static void test_concurrent_open_new_file(void **state)
{
	struct dbt *f = *state;
	enum { THREADS = 4, ROUNDS = 10 };

	for (int round = 0; round < ROUNDS; round++) {
		struct opener o[THREADS];
		pthread_t t[THREADS];
		pthread_barrier_t bar;
		char name[32], *path;

		snprintf(name, sizeof(name), "race-%d.db", round);
		path = tu_path(f->dir, name);
		pthread_barrier_init(&bar, NULL, THREADS);
		memset(o, 0, sizeof(o));
		for (int i = 0; i < THREADS; i++) {
			o[i].path = path;
			o[i].bar = &bar;
			assert_int_equal(pthread_create(&t[i], NULL, open_thread, &o[i]), 0);
		}
		for (int i = 0; i < THREADS; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&bar);
		free(path);
		{
			char why[512] = "";
			int bad = -1;

			for (int i = 0; i < THREADS; i++) {
				if (!o[i].ok && bad < 0) {
					bad = i;
					snprintf(why, sizeof(why), "%s", o[i].err ? o[i].err : "?");
				}
				free(o[i].err);
			}
			if (bad >= 0)
				fail_msg("round %d: opener %d failed: %s", round, bad, why);
		}
		for (int i = 0; i < THREADS; i++)
			assert_string_equal(o[i].instance, o[0].instance);
	}
}

/* --- names ---------------------------------------------------------------- */

static void test_state_and_outcome_names(void **state)
{
	enum run_state s;
	enum run_outcome o;

	(void)state;
	for (int i = 0; i < RUN_STATE_COUNT; i++) {
		assert_int_equal(run_state_parse(run_state_name((enum run_state)i), &s), 0);
		assert_int_equal(s, i);
	}
	for (int i = 0; i < RUN_OUT_COUNT; i++) {
		assert_int_equal(run_outcome_parse(run_outcome_name((enum run_outcome)i), &o), 0);
		assert_int_equal(o, i);
	}
	assert_string_equal(run_state_name(RUN_QUEUED), "queued");
	assert_string_equal(run_outcome_name(RUN_OUT_NO_BOOT), "no-boot");
	assert_string_equal(run_outcome_name(RUN_OUT_CONSOLE_FLOOD), "console-flood");
	assert_string_equal(run_state_name(RUN_STATE_COUNT), "?");
	assert_string_equal(run_outcome_name((enum run_outcome)-1), "?");
	assert_int_equal(run_state_parse("Queued", &s), -1);
	assert_int_equal(run_state_parse(NULL, &s), -1);
	assert_int_equal(run_outcome_parse("", &o), -1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
		T(test_open_creates_schema),
		T(test_reopen_keeps_data),
		T(test_newer_schema_refused),
		T(test_migrate_watch_runs),
		T(test_kept_stamp),
		T(test_open_errors),
		T(test_concurrent_open_new_file),
		cmocka_unit_test(test_state_and_outcome_names),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
