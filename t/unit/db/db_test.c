/* db_test.c: unit tests for db/db.c and db/migrate.c, the SQLite store.
 * Each test gets a fresh database file in its own temporary directory and
 * checks the schema and pragmas, the queue (insert, list, claim, finish,
 * infra retries, recovery after a crash), two workers claiming at once
 * from two threads, and a database newer than the program being refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <pthread.h>
#include <sqlite3.h>

#include "common/util.h"
#include "db/db.h"
#include "t/unit/testutil.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

struct fixture {
	char dir[128];
	char *path;          /* dir/kfleet.db */
	struct db *db;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *err = NULL;

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "db");
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

static int teardown(void **state)
{
	struct fixture *f = *state;

	db_close(f->db);
	tu_rmrf(f->dir);
	free(f->path);
	free(f);
	return 0;
}

static struct db *open_ok(const char *path)
{
	char *err = NULL;
	struct db *db = db_open(path, &err);

	if (!db)
		fail_msg("db_open '%s': %s", path, err ? err : "?");
	assert_null(err);
	return db;
}

static void add_host(struct db *db, const char *name)
{
	assert_int_equal(db_host_upsert(db, name, "test:///default", "tcg", "8.2.0", "9.0.0",
					16, 8 << 20), 0);
}

static int64_t insert_run(struct db *db, const char *command, int max_attempts)
{
	struct run_request req = {
		.kernel_path = "/boot/vmlinuz-6.1.0-test",
		.kernel_sha256 = SHA_A,
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

static long long sql_int(struct db *db, const char *sql)
{
	sqlite3_stmt *st;
	long long v;

	if (sqlite3_prepare_v2(db_sqlite(db), sql, -1, &st, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, db_errmsg(db));
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static char *sql_text(struct db *db, const char *sql)
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

static void expect_domain(struct db *db, const struct run *r)
{
	char want[64];

	snprintf(want, sizeof(want), "kf-%s-%lld", db_instance(db), (long long)r->id);
	assert_non_null(r->domain);
	assert_string_equal(r->domain, want);
}

static void get_ok(struct db *db, int64_t id, struct run *r)
{
	assert_int_equal(db_run_get(db, id, r), 1);
	assert_int_equal(r->id, id);
}

/* --- opening and the schema ----------------------------------------------- */

static void test_open_creates_schema(void **state)
{
	struct fixture *f = *state;
	static const char *const tables[] = {
		"meta", "hosts", "kernels", "runs", "attempts", "results", "samples",
	};
	const char *inst = db_instance(f->db);
	char *mode, sql[128];

	assert_int_equal(sql_int(f->db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	mode = sql_text(f->db, "PRAGMA journal_mode");
	assert_string_equal(mode, "wal");
	free(mode);
	assert_int_equal(sql_int(f->db, "PRAGMA foreign_keys"), 1);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
			 tables[i]);
		if (sql_int(f->db, sql) != 1)
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
	assert_int_equal(sql_int(f->db, "SELECT count(*) FROM meta WHERE key = 'instance'"), 1);
}

static void test_reopen_keeps_data(void **state)
{
	struct fixture *f = *state;
	char inst[32];
	struct db *db2;
	struct run r;
	int64_t id;

	snprintf(inst, sizeof(inst), "%s", db_instance(f->db));
	add_host(f->db, "local");
	id = insert_run(f->db, "uname -r", 2);
	db_close(f->db);
	f->db = open_ok(f->path);
	assert_string_equal(db_instance(f->db), inst);
	assert_int_equal(sql_int(f->db, "PRAGMA user_version"), DB_SCHEMA_VERSION);
	assert_int_equal(sql_int(f->db, "SELECT count(*) FROM hosts"), 1);
	get_ok(f->db, id, &r);
	assert_string_equal(r.command, "uname -r");
	run_release(&r);
	/* a second connection at the same time sees the same instance and data */
	db2 = open_ok(f->path);
	assert_string_equal(db_instance(db2), inst);
	get_ok(db2, id, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	run_release(&r);
	db_close(db2);
	/* a different file is a different instance (the id is random) */
	{
		char *other = tu_path(f->dir, "other.db");

		db2 = open_ok(other);
		assert_string_not_equal(db_instance(db2), inst);
		db_close(db2);
		free(other);
	}
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *f = *state;
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

static void test_open_errors(void **state)
{
	struct fixture *f = *state;
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
	struct fixture *f = *state;
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

/* --- hosts and kernels ---------------------------------------------------- */

static void test_host_upsert(void **state)
{
	struct fixture *f = *state;
	char *uri;

	add_host(f->db, "local");
	assert_int_equal(db_host_upsert(f->db, "local", "qemu:///system", "kvm", "9.0.0", "10.0.0",
					64, 1 << 30), 0);
	assert_int_equal(sql_int(f->db, "SELECT count(*) FROM hosts"), 1);
	uri = sql_text(f->db, "SELECT uri || ' ' || accel || ' ' || max_vcpus FROM hosts");
	assert_string_equal(uri, "qemu:///system kvm 64");
	free(uri);
	add_host(f->db, "big");
	assert_int_equal(sql_int(f->db, "SELECT count(*) FROM hosts"), 2);
}

static void test_kernel_import_dedup(void **state)
{
	struct fixture *f = *state;
	int64_t a = 0, a2 = 0, b = 0, c = 0;

	assert_int_equal(db_kernel_import(f->db, "/k/bzImage", "x86_64", SHA_A, &a), 0);
	assert_true(a > 0);
	assert_int_equal(db_kernel_import(f->db, "/k/bzImage", "x86_64", SHA_A, &a2), 0);
	assert_int_equal(a2, a);
	/* same path, new contents: a new kernel */
	assert_int_equal(db_kernel_import(f->db, "/k/bzImage", "x86_64", SHA_B, &b), 0);
	assert_int_not_equal(b, a);
	/* same contents elsewhere: also a new kernel */
	assert_int_equal(db_kernel_import(f->db, "/k/other", "x86_64", SHA_A, &c), 0);
	assert_int_not_equal(c, a);
	assert_int_not_equal(c, b);
	assert_int_equal(sql_int(f->db, "SELECT count(*) FROM kernels"), 3);
	/* runs on the same kernel share its row */
	{
		int64_t r1 = insert_run(f->db, "true", 2), r2 = insert_run(f->db, "false", 2);
		struct run x, y;

		get_ok(f->db, r1, &x);
		get_ok(f->db, r2, &y);
		assert_int_equal(x.kernel_id, y.kernel_id);
		assert_string_equal(x.kernel_path, "/boot/vmlinuz-6.1.0-test");
		run_release(&x);
		run_release(&y);
		assert_int_equal(sql_int(f->db, "SELECT count(*) FROM kernels"), 4);
	}
}

/* --- runs: insert, get, list, counts -------------------------------------- */

static void test_insert_get(void **state)
{
	struct fixture *f = *state;
	int64_t before = now_ms(), id, id2;
	struct run r;

	id = insert_run(f->db, "echo 'hi' && uname -a", 3);
	get_ok(f->db, id, &r);
	assert_string_equal(r.kernel_path, "/boot/vmlinuz-6.1.0-test");
	assert_string_equal(r.arch, "x86_64");
	assert_int_equal(r.vcpus, 2);
	assert_int_equal(r.memory_mb, 512);
	assert_int_equal(r.timeout_s, 60);
	assert_string_equal(r.command, "echo 'hi' && uname -a");
	assert_int_equal(r.state, RUN_QUEUED);
	assert_int_equal(r.outcome, RUN_OUT_NONE);
	assert_int_equal(r.attempt, 0);
	assert_int_equal(r.max_attempts, 3);
	assert_true(r.queued_at >= before && r.queued_at <= now_ms());
	assert_int_equal(r.started_at, 0);
	assert_int_equal(r.ended_at, 0);
	assert_int_equal(r.has_exit_code, 0);
	assert_null(r.host);
	assert_null(r.domain);
	assert_null(r.detail);
	assert_null(r.splat);
	run_release(&r);
	assert_null(r.command);   /* run_release clears */

	/* max_attempts 0 means the default, 2 */
	id2 = insert_run(f->db, "true", 0);
	assert_true(id2 > id);
	get_ok(f->db, id2, &r);
	assert_int_equal(r.max_attempts, 2);
	run_release(&r);

	assert_int_equal(db_run_get(f->db, id2 + 100, &r), 0);

	/* a request the schema refuses leaves nothing behind */
	{
		struct run_request bad = {
			.kernel_path = "/k", .kernel_sha256 = SHA_B, .arch = "x86_64",
			.vcpus = 0, .memory_mb = 64, .timeout_s = 1, .command = "true",
		};
		int64_t x = -5;

		assert_int_equal(db_run_insert(f->db, &bad, &x), -1);
		assert_int_equal(sql_int(f->db, "SELECT count(*) FROM runs"), 2);
		assert_int_equal(sql_int(f->db, "SELECT count(*) FROM kernels WHERE path = '/k'"),
				 0);
		/* and the connection is usable afterwards (no transaction left open) */
		insert_run(f->db, "after", 1);
		assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);
	}
}

static void test_list(void **state)
{
	struct fixture *f = *state;
	int64_t ids[5];
	struct run *v;
	size_t n;

	for (int i = 0; i < 5; i++) {
		char cmd[16];

		snprintf(cmd, sizeof(cmd), "cmd %d", i);
		ids[i] = insert_run(f->db, cmd, 2);
	}
	assert_int_equal(db_run_list(f->db, 10, 0, &v, &n), 0);
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++) {
		char cmd[16];

		snprintf(cmd, sizeof(cmd), "cmd %zu", 4 - i);
		assert_int_equal(v[i].id, ids[4 - i]);       /* newest first */
		assert_string_equal(v[i].command, cmd);
	}
	run_list_free(v, n);

	assert_int_equal(db_run_list(f->db, 2, 0, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, ids[4]);
	assert_int_equal(v[1].id, ids[3]);
	run_list_free(v, n);

	/* the next page: older than the last one shown */
	assert_int_equal(db_run_list(f->db, 2, ids[3], &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, ids[2]);
	assert_int_equal(v[1].id, ids[1]);
	run_list_free(v, n);

	assert_int_equal(db_run_list(f->db, 10, ids[1], &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].id, ids[0]);
	run_list_free(v, n);

	assert_int_equal(db_run_list(f->db, 10, ids[0], &v, &n), 0);
	assert_int_equal(n, 0);
	run_list_free(v, n);

	assert_int_equal(db_run_list(f->db, 0, 0, &v, &n), 0);
	assert_int_equal(n, 0);
	run_list_free(v, n);
}

static void test_counts(void **state)
{
	struct fixture *f = *state;
	int64_t c[RUN_STATE_COUNT];
	struct run r;

	assert_int_equal(db_run_counts(f->db, c), 0);
	assert_int_equal(c[RUN_QUEUED], 0);
	assert_int_equal(c[RUN_RUNNING], 0);
	assert_int_equal(c[RUN_DONE], 0);
	add_host(f->db, "local");
	for (int i = 0; i < 4; i++)
		insert_run(f->db, "true", 2);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(db_run_finish(f->db, r.id, RUN_OUT_PASSED, NULL, NULL, 1, 0), 0);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_counts(f->db, c), 0);
	assert_int_equal(c[RUN_QUEUED], 2);
	assert_int_equal(c[RUN_RUNNING], 1);
	assert_int_equal(c[RUN_DONE], 1);
}

/* --- claims --------------------------------------------------------------- */

static void test_claim_order(void **state)
{
	struct fixture *f = *state;
	int64_t a, b, c, t0 = now_ms();
	struct attempt *at;
	struct run r;
	size_t n;

	add_host(f->db, "local");
	add_host(f->db, "other");
	a = insert_run(f->db, "first", 2);
	b = insert_run(f->db, "second", 2);
	c = insert_run(f->db, "third", 2);

	memset(&r, 0x5a, sizeof(r));
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.id, a);
	assert_int_equal(r.state, RUN_RUNNING);
	assert_int_equal(r.attempt, 1);
	assert_string_equal(r.host, "local");
	assert_string_equal(r.command, "first");
	assert_true(r.started_at >= t0);
	expect_domain(f->db, &r);
	run_release(&r);
	/* the attempt row is open */
	assert_int_equal(db_attempt_list(f->db, a, &at, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(at[0].n, 1);
	assert_string_equal(at[0].host, "local");
	assert_int_equal(at[0].outcome, RUN_OUT_NONE);
	assert_true(at[0].started_at >= t0);
	assert_int_equal(at[0].ended_at, 0);
	attempt_list_free(at, n);

	assert_int_equal(db_run_claim(f->db, "other", &r), 1);
	assert_int_equal(r.id, b);
	assert_string_equal(r.host, "other");
	expect_domain(f->db, &r);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.id, c);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 0);
	assert_int_equal(db_run_claim(f->db, "local", &r), 0);
	/* what was claimed stays claimed */
	get_ok(f->db, a, &r);
	assert_int_equal(r.state, RUN_RUNNING);
	run_release(&r);
}

static void test_claim_unknown_host(void **state)
{
	struct fixture *f = *state;
	struct attempt *at;
	struct run r;
	int64_t id;
	size_t n;

	/* empty queue: nothing to claim, whatever the host */
	assert_int_equal(db_run_claim(f->db, "nohost", &r), 0);
	id = insert_run(f->db, "true", 2);
	assert_int_equal(db_run_claim(f->db, "nohost", &r), -1);
	/* rolled back: still queued, no attempt, no transaction left open */
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);
	get_ok(f->db, id, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	assert_int_equal(r.attempt, 0);
	assert_null(r.domain);
	run_release(&r);
	assert_int_equal(db_attempt_list(f->db, id, &at, &n), 0);
	assert_int_equal(n, 0);
	attempt_list_free(at, n);
	/* once the host is known the claim works */
	add_host(f->db, "nohost");
	assert_int_equal(db_run_claim(f->db, "nohost", &r), 1);
	assert_int_equal(r.id, id);
	assert_int_equal(r.attempt, 1);
	run_release(&r);
}

enum { RACE_RUNS = 50 };

struct claimer {
	const char *path;
	int *claimed;            /* per run index, incremented atomically */
	int64_t first_id;
	int n, errors;
	pthread_barrier_t *bar;
};

static void *claim_thread(void *arg)
{
	struct claimer *c = arg;
	char *err = NULL;
	struct db *db = db_open(c->path, &err);
	struct run r;
	int rc;

	if (!db) {
		free(err);
		c->errors++;
		pthread_barrier_wait(c->bar);
		return NULL;
	}
	pthread_barrier_wait(c->bar);
	while ((rc = db_run_claim(db, "local", &r)) == 1) {
		int64_t i = r.id - c->first_id;

		if (i >= 0 && i < RACE_RUNS)
			__atomic_fetch_add(&c->claimed[i], 1, __ATOMIC_SEQ_CST);
		else
			c->errors++;
		c->n++;
		if (db_run_finish(db, r.id, RUN_OUT_PASSED, "ok", NULL, 1, 0) < 0)
			c->errors++;
		run_release(&r);
	}
	if (rc < 0)
		c->errors++;
	db_close(db);
	return NULL;
}

static void test_concurrent_claims(void **state)
{
	struct fixture *f = *state;
	int claimed[RACE_RUNS] = { 0 };
	struct claimer c[2];
	pthread_t t[2];
	pthread_barrier_t bar;
	int64_t counts[RUN_STATE_COUNT], first = 0;

	add_host(f->db, "local");
	for (int i = 0; i < RACE_RUNS; i++) {
		int64_t id = insert_run(f->db, "true", 2);

		if (i == 0)
			first = id;
		assert_int_equal(id, first + i);
	}
	pthread_barrier_init(&bar, NULL, 2);
	for (int i = 0; i < 2; i++) {
		c[i] = (struct claimer){ .path = f->path, .claimed = claimed, .first_id = first,
					 .bar = &bar };
		assert_int_equal(pthread_create(&t[i], NULL, claim_thread, &c[i]), 0);
	}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	pthread_barrier_destroy(&bar);
	assert_int_equal(c[0].errors, 0);
	assert_int_equal(c[1].errors, 0);
	assert_int_equal(c[0].n + c[1].n, RACE_RUNS);
	for (int i = 0; i < RACE_RUNS; i++)
		if (claimed[i] != 1)
			fail_msg("run %lld claimed %d times", (long long)(first + i), claimed[i]);
	assert_int_equal(db_run_counts(f->db, counts), 0);
	assert_int_equal(counts[RUN_DONE], RACE_RUNS);
	assert_int_equal(counts[RUN_QUEUED], 0);
	assert_int_equal(counts[RUN_RUNNING], 0);
	/* exactly one attempt each */
	assert_int_equal(sql_int(f->db, "SELECT count(*) FROM attempts"), RACE_RUNS);
	assert_int_equal(sql_int(f->db, "SELECT max(n) FROM attempts"), 1);
}

/* --- finishing ------------------------------------------------------------ */

static void test_finish_passed(void **state)
{
	struct fixture *f = *state;
	struct attempt *at;
	struct run r;
	int64_t id, id2;
	size_t n;

	add_host(f->db, "local");
	id = insert_run(f->db, "true", 2);
	id2 = insert_run(f->db, "false", 2);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_started(f->db, id, "tcg", "pc-q35-7.2", "7.2.0", "9.0.0",
					 "/var/runs/1"), 0);
	assert_int_equal(db_run_booted(f->db, id, 1700000000123LL, "6.1.0-21-amd64", 2, 493000), 0);
	/* finishing a run that is not running is refused */
	assert_int_equal(db_run_finish(f->db, id2, RUN_OUT_PASSED, NULL, NULL, 1, 0), -1);
	assert_int_equal(db_run_finish(f->db, 99999, RUN_OUT_PASSED, NULL, NULL, 1, 0), -1);
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);

	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_PASSED, "command exited with code 0",
				       NULL, 1, 0), 0);
	get_ok(f->db, id, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_PASSED);
	assert_string_equal(r.detail, "command exited with code 0");
	assert_int_equal(r.has_exit_code, 1);
	assert_int_equal(r.exit_code, 0);
	assert_true(r.ended_at >= r.started_at && r.ended_at > 0);
	assert_string_equal(r.accel, "tcg");
	assert_string_equal(r.machine, "pc-q35-7.2");
	assert_string_equal(r.qemu_version, "7.2.0");
	assert_string_equal(r.libvirt_version, "9.0.0");
	assert_string_equal(r.run_dir, "/var/runs/1");
	assert_int_equal(r.booted_at, 1700000000123LL);
	assert_string_equal(r.guest_release, "6.1.0-21-amd64");
	assert_int_equal(r.guest_nproc, 2);
	assert_int_equal(r.guest_mem_kb, 493000);
	assert_int_equal(r.attempt, 1);
	run_release(&r);
	/* once done, it cannot be finished again */
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_FAILED, NULL, NULL, 1, 1), -1);
	assert_int_equal(db_attempt_list(f->db, id, &at, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(at[0].outcome, RUN_OUT_PASSED);
	assert_string_equal(at[0].detail, "command exited with code 0");
	assert_true(at[0].ended_at > 0);
	attempt_list_free(at, n);

	/* a failure with an exit code and a crash splat */
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.id, id2);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id2, RUN_OUT_CRASH, "kernel panic: x",
				       "Kernel panic - not syncing: x\nCall Trace:\n", 0, 0), 0);
	get_ok(f->db, id2, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_CRASH);
	assert_int_equal(r.has_exit_code, 0);
	assert_string_equal(r.splat, "Kernel panic - not syncing: x\nCall Trace:\n");
	run_release(&r);
}

static void test_finish_infra_retries(void **state)
{
	struct fixture *f = *state;
	struct attempt *at;
	struct run r;
	char *dom1;
	int64_t id;
	size_t n;

	add_host(f->db, "local");
	add_host(f->db, "other");
	id = insert_run(f->db, "true", 2);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.attempt, 1);
	dom1 = strdup(r.domain);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "libvirt: connection reset",
				       NULL, 0, 0), 0);
	/* back in the queue with the reason, the attempt kept */
	get_ok(f->db, id, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	assert_int_equal(r.outcome, RUN_OUT_NONE);
	assert_int_equal(r.attempt, 1);
	assert_int_equal(r.ended_at, 0);
	assert_string_equal(r.detail, "libvirt: connection reset");
	run_release(&r);
	assert_int_equal(db_attempt_list(f->db, id, &at, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(at[0].n, 1);
	assert_int_equal(at[0].outcome, RUN_OUT_INFRA);
	assert_string_equal(at[0].detail, "libvirt: connection reset");
	assert_true(at[0].ended_at > 0);
	attempt_list_free(at, n);

	/* the second attempt, maybe elsewhere */
	assert_int_equal(db_run_claim(f->db, "other", &r), 1);
	assert_int_equal(r.id, id);
	assert_int_equal(r.attempt, 2);
	assert_string_equal(r.host, "other");
	assert_string_equal(r.domain, dom1);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "qemu died", NULL, 0, 0), 0);
	/* max_attempts 2 reached: done as infra */
	get_ok(f->db, id, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_INFRA);
	assert_int_equal(r.attempt, 2);
	assert_string_equal(r.detail, "qemu died");
	assert_true(r.ended_at > 0);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 0);
	assert_int_equal(db_attempt_list(f->db, id, &at, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(at[0].n, 1);
	assert_string_equal(at[0].host, "local");
	assert_int_equal(at[1].n, 2);
	assert_string_equal(at[1].host, "other");
	assert_int_equal(at[1].outcome, RUN_OUT_INFRA);
	assert_string_equal(at[1].detail, "qemu died");
	attempt_list_free(at, n);
	free(dom1);

	/* with one attempt allowed, infra ends it at once; other outcomes never retry */
	id = insert_run(f->db, "true", 1);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "x", NULL, 0, 0), 0);
	get_ok(f->db, id, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_INFRA);
	run_release(&r);
	id = insert_run(f->db, "true", 5);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_NO_BOOT, "no hello", NULL, 0, 0), 0);
	get_ok(f->db, id, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_NO_BOOT);
	run_release(&r);
}

/* --- recovery ------------------------------------------------------------- */

static void test_recover(void **state)
{
	struct fixture *f = *state;
	int64_t a, b, c;
	char **doms;
	struct attempt *at;
	struct run r;
	char want[64];
	size_t n;

	add_host(f->db, "local");
	a = insert_run(f->db, "a", 2);
	b = insert_run(f->db, "b", 1);
	c = insert_run(f->db, "c", 2);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	/* the daemon dies: a new connection recovers */
	db_close(f->db);
	f->db = open_ok(f->path);
	assert_int_equal(db_recover(f->db, &doms, &n), 0);
	assert_int_equal(n, 2);
	snprintf(want, sizeof(want), "kf-%s-%lld", db_instance(f->db), (long long)a);
	assert_string_equal(doms[0], want);
	snprintf(want, sizeof(want), "kf-%s-%lld", db_instance(f->db), (long long)b);
	assert_string_equal(doms[1], want);
	for (size_t i = 0; i < n; i++)
		free(doms[i]);
	free(doms);

	/* a had attempts left: queued again */
	get_ok(f->db, a, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	assert_string_equal(r.detail, "kfleetd restarted while the run was in flight");
	run_release(&r);
	assert_int_equal(db_attempt_list(f->db, a, &at, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(at[0].outcome, RUN_OUT_INFRA);
	assert_string_equal(at[0].detail, "kfleetd restarted while the run was in flight");
	assert_true(at[0].ended_at > 0);
	attempt_list_free(at, n);
	/* b had not: done as infra */
	get_ok(f->db, b, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_INFRA);
	run_release(&r);
	/* c was never claimed: untouched */
	get_ok(f->db, c, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	assert_int_equal(r.attempt, 0);
	assert_null(r.detail);
	run_release(&r);

	/* nothing left to recover */
	assert_int_equal(db_recover(f->db, &doms, &n), 0);
	assert_int_equal(n, 0);
	free(doms);

	/* a's second attempt is the oldest queued */
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.id, a);
	assert_int_equal(r.attempt, 2);
	run_release(&r);
	assert_int_equal(db_attempt_list(f->db, a, &at, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(at[0].outcome, RUN_OUT_INFRA);
	assert_int_equal(at[1].outcome, RUN_OUT_NONE);
	attempt_list_free(at, n);
}

static void test_attempt_list_empty(void **state)
{
	struct fixture *f = *state;
	struct attempt *at = (struct attempt *)1;
	size_t n = 7;

	assert_int_equal(db_attempt_list(f->db, 12345, &at, &n), 0);
	assert_int_equal(n, 0);
	attempt_list_free(at, n);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_open_creates_schema),
		T(test_reopen_keeps_data),
		T(test_newer_schema_refused),
		T(test_open_errors),
		T(test_concurrent_open_new_file),
		cmocka_unit_test(test_state_and_outcome_names),
		T(test_host_upsert),
		T(test_kernel_import_dedup),
		T(test_insert_get),
		T(test_list),
		T(test_counts),
		T(test_claim_order),
		T(test_claim_unknown_host),
		T(test_concurrent_claims),
		T(test_finish_passed),
		T(test_finish_infra_retries),
		T(test_recover),
		T(test_attempt_list_empty),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
