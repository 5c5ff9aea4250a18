// SPDX-License-Identifier: GPL-2.0-only
/* runs_test.c: unit tests for db/runs.c, the queue: runs inserted, read
 * back column by column (an exit code there or not), listed and counted;
 * claims in order and by fit, two workers claiming at once from two
 * threads; finishing, infra retries, recovery after a crash; and the
 * queue page's reads: the waiting and running runs in claim order, the
 * median duration of runs of a kind, and the request a run belongs to. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <limits.h>
#include <pthread.h>

#include "common/util.h"
#include "db/query.h"
#include "t/unit/db/dbtest.h"

static void test_run_columns(void **state)
{
	struct dbt *f = *state;
	struct run_request req = dbt_req("/k/bzImage", DBT_SHA_A, "kselftest-net", 4);
	struct run r, *v;
	int64_t id, id2;
	size_t n;

	req.topology = "1:2:2";
	req.numa_nodes = 2;
	dbt_host(f->db, "h1");
	assert_int_equal(db_run_insert(f->db, &req, &id), 0);
	assert_int_equal(db_run_claim(f->db, "h1", &r), 1);
	assert_int_equal(r.id, id);
	assert_int_equal(r.state, RUN_RUNNING);
	assert_string_equal(r.host, "h1");
	run_release(&r);
	assert_int_equal(db_run_cpu_model(f->db, id, "qemu64"), 0);
	assert_int_equal(db_run_boot(f->db, id, "fast: qboot loglevel=5 nokaslr"), 0);
	assert_int_equal(db_run_started(f->db, id, "tcg", "pc-q35-7.2", "7.2.0", "9.0.0",
					"/runs/1"), 0);
	assert_int_equal(db_run_booted(f->db, id, 1234, "6.1.0-test", 4, 400000), 0);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_FAILED, "exit 3", "BUG: x", 1, 3), 0);

	assert_int_equal(db_run_get(f->db, id, &r), 1);
	assert_string_equal(r.kernel_path, "/k/bzImage");
	assert_string_equal(r.job, "kselftest-net");
	assert_string_equal(r.command, "kselftest-net");
	assert_string_equal(r.topology, "1:2:2");
	assert_int_equal(r.numa_nodes, 2);
	assert_int_equal(r.vcpus, 4);
	assert_int_equal(r.memory_mb, 512);
	assert_int_equal(r.timeout_s, 60);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_FAILED);
	assert_string_equal(r.detail, "exit 3");
	assert_string_equal(r.splat, "BUG: x");
	assert_int_equal(r.attempt, 1);
	assert_int_equal(r.max_attempts, 1);
	assert_string_equal(r.accel, "tcg");
	assert_string_equal(r.machine, "pc-q35-7.2");
	assert_string_equal(r.cpu_model, "qemu64");
	assert_string_equal(r.boot, "fast: qboot loglevel=5 nokaslr");
	assert_string_equal(r.qemu_version, "7.2.0");
	assert_string_equal(r.libvirt_version, "9.0.0");
	assert_string_equal(r.run_dir, "/runs/1");
	assert_int_equal(r.booted_at, 1234);
	assert_true(r.ended_at >= r.started_at && r.started_at > 0);
	assert_int_equal(r.has_exit_code, 1);
	assert_int_equal(r.exit_code, 3);
	assert_string_equal(r.guest_release, "6.1.0-test");
	assert_int_equal(r.guest_nproc, 4);
	assert_int_equal(r.guest_mem_kb, 400000);
	run_release(&r);

	/* an exit code of 0 is there; none is not */
	assert_int_equal(db_run_insert(f->db, &req, &id2), 0);
	assert_int_equal(db_run_claim(f->db, "h1", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id2, RUN_OUT_TIMEOUT, NULL, NULL, 0, 0), 0);
	assert_int_equal(db_run_list(f->db, 10, 0, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, id2);
	assert_int_equal(v[0].has_exit_code, 0);
	assert_int_equal(v[0].outcome, RUN_OUT_TIMEOUT);
	assert_null(v[0].detail);
	assert_int_equal(v[1].has_exit_code, 1);
	assert_int_equal(v[1].exit_code, 3);
	run_list_free(v, n);
	/* before and limit */
	assert_int_equal(db_run_list(f->db, 1, id2, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].id, id);
	run_list_free(v, n);
	assert_int_equal(db_run_list(f->db, 0, 0, &v, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(db_run_list(f->db, -1, 0, &v, &n), -1);
}

static void test_queue(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/a", DBT_SHA_A, "j", 2);
	struct run_request b = dbt_req("/k/b", DBT_SHA_B, NULL, 1);
	struct dbq_queue_run *v;
	struct run r;
	int64_t r1, r2, r3, r4;
	size_t n;

	dbt_host(f->db, "h1");
	assert_int_equal(db_run_insert(f->db, &a, &r1), 0);
	assert_int_equal(db_run_insert(f->db, &b, &r2), 0);
	assert_int_equal(db_run_insert(f->db, &a, &r3), 0);
	assert_int_equal(db_run_insert(f->db, &b, &r4), 0);
	dbt_claim_finish(f->db, "h1", r1, RUN_OUT_PASSED);   /* done: not listed */
	assert_int_equal(db_run_claim(f->db, "h1", &r), 1);  /* r2 runs */
	run_release(&r);

	assert_int_equal(dbq_queue(f->db, DBQ_QUEUE_MAX, &v, &n), 0);
	assert_int_equal(n, 3);
	/* the running one first, then the queued ones by id */
	assert_int_equal(v[0].id, r2);
	assert_int_equal(v[0].state, RUN_RUNNING);
	assert_string_equal(v[0].host, "h1");
	assert_int_equal(v[0].attempt, 1);
	assert_true(v[0].started_at > 0);
	assert_null(v[0].job);
	assert_string_equal(v[0].command, "true");
	assert_string_equal(v[0].kernel_path, "/k/b");
	assert_int_equal(v[0].vcpus, 1);
	assert_int_equal(v[1].id, r3);
	assert_int_equal(v[1].state, RUN_QUEUED);
	assert_null(v[1].host);
	assert_int_equal(v[1].attempt, 0);
	assert_int_equal(v[1].started_at, 0);
	assert_true(v[1].queued_at > 0);
	assert_string_equal(v[1].job, "j");
	assert_string_equal(v[1].arch, "x86_64");
	assert_int_equal(v[1].vcpus, 2);
	assert_int_equal(v[1].request_id, 0);
	assert_true(v[1].kernel_id > 0);
	assert_int_equal(v[2].id, r4);
	dbq_queue_free(v, n);

	assert_int_equal(dbq_queue(f->db, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].id, r2);
	dbq_queue_free(v, n);
}

/* Queued runs in the fair queue's order: people's, then the watches' in
 * turns (net's three older runs interleaved with bpf's two) */
static void test_queue_turns(void **state)
{
	struct dbt *f = *state;
	static const char *const who[] = { "net", "net", "net", NULL, "bpf", "bpf", NULL };
	static const int order[] = { 4, 7, 1, 5, 2, 6, 3 };   /* ids */
	struct dbq_queue_run *v;
	size_t n;

	for (size_t i = 0; i < 7; i++) {
		struct run_request req = dbt_req("/k", DBT_SHA_A, NULL, 1);
		int64_t id;

		req.watch = who[i];
		assert_int_equal(db_run_insert(f->db, &req, &id), 0);
	}
	assert_int_equal(dbq_queue(f->db, DBQ_QUEUE_MAX, &v, &n), 0);
	assert_int_equal(n, 7);
	for (size_t i = 0; i < 7; i++)
		assert_int_equal(v[i].id, order[i]);
	assert_null(v[0].watch);
	assert_string_equal(v[2].watch, "net");
	assert_string_equal(v[3].watch, "bpf");
	dbq_queue_free(v, n);
}

/* A running run's phase through its life, as the queue reads it: from
 * the claim to the end, and cleared when it is queued again */
static const char *queue_phase(struct db *db, int64_t id, int64_t *at)
{
	static char name[16];
	struct dbq_queue_run *v;
	size_t n;

	*at = -1;
	name[0] = 0;
	assert_int_equal(dbq_queue(db, DBQ_QUEUE_MAX, &v, &n), 0);
	for (size_t i = 0; i < n; i++)
		if (v[i].id == id) {
			snprintf(name, sizeof(name), "%s", v[i].phase ? v[i].phase : "none");
			*at = v[i].phase_at;
		}
	dbq_queue_free(v, n);
	return name;
}

static void test_phases(void **state)
{
	struct dbt *f = *state;
	struct run r;
	int64_t id, at, before;

	dbt_host(f->db, "local");
	id = dbt_insert_run(f->db, "true", 2);
	assert_string_equal(queue_phase(f->db, id, &at), "none");
	before = now_ms();
	/* not running: no phase is taken */
	assert_int_equal(db_run_phase(f->db, id, RUN_PHASE_BOOTING), 0);
	assert_string_equal(queue_phase(f->db, id, &at), "none");
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_string_equal(queue_phase(f->db, id, &at), "preparing");
	assert_true(at >= before);
	assert_int_equal(db_run_phase(f->db, id, RUN_PHASE_BOOTING), 0);
	assert_string_equal(queue_phase(f->db, id, &at), "booting");
	assert_int_equal(db_run_booted(f->db, id, 1700000000123LL, "6.1", 2, 1000), 0);
	assert_string_equal(queue_phase(f->db, id, &at), "running");
	assert_int_equal(at, 1700000000123LL);   /* since the hello */
	assert_int_equal(db_run_phase(f->db, id, RUN_PHASE_STORING), 0);
	assert_string_equal(queue_phase(f->db, id, &at), "storing");
	assert_int_equal(db_run_phase(f->db, id, (enum run_phase)7), -1);
	/* queued again after an infra attempt: no phase */
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "lost", NULL, 0, 0), 0);
	assert_string_equal(queue_phase(f->db, id, &at), "none");
	assert_int_equal(at, 0);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_string_equal(queue_phase(f->db, id, &at), "preparing");
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_PASSED, NULL, NULL, 1, 0), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM runs WHERE phase IS NULL"
				      " AND phase_at IS NULL"), 1);
}

/* Sets a done run's start and end so it took ms */
static void set_duration(struct db *db, int64_t id, int64_t ms)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "UPDATE runs SET started_at = 1000, ended_at = %lld"
		 " WHERE id = %lld", (long long)(1000 + ms), (long long)id);
	assert_int_equal(sqlite3_exec(db_sqlite(db), sql, NULL, NULL, NULL), SQLITE_OK);
}

static void test_median_duration(void **state)
{
	struct dbt *f = *state;
	struct run_request j = dbt_req("/k/a", DBT_SHA_A, "j", 2);
	struct run_request cmd = dbt_req("/k/a", DBT_SHA_A, NULL, 2);
	struct run_request other = dbt_req("/k/a", DBT_SHA_A, "j", 8);
	static const int64_t ms[] = { 100, 300, 200 };
	int64_t med = -1;
	int n = -1;

	dbt_host(f->db, "h1");
	assert_int_equal(dbq_median_duration(f->db, "j", NULL, "x86_64", 2, &med, &n), 0);
	assert_int_equal(n, 0);
	for (int i = 0; i < 3; i++)
		set_duration(f->db, dbt_run_done(f->db, "h1", &j, RUN_OUT_PASSED), ms[i]);
	/* infra and canceled runs, and other kinds, do not count */
	set_duration(f->db, dbt_run_done(f->db, "h1", &j, RUN_OUT_INFRA), 99999);
	set_duration(f->db, dbt_run_done(f->db, "h1", &other, RUN_OUT_PASSED), 99999);
	set_duration(f->db, dbt_run_done(f->db, "h1", &cmd, RUN_OUT_FAILED), 7000);
	assert_int_equal(dbq_median_duration(f->db, "j", NULL, "x86_64", 2, &med, &n), 1);
	assert_int_equal(n, 3);
	assert_int_equal(med, 200);
	set_duration(f->db, dbt_run_done(f->db, "h1", &j, RUN_OUT_FAILED), 400);
	assert_int_equal(dbq_median_duration(f->db, "j", NULL, "x86_64", 2, &med, &n), 1);
	assert_int_equal(n, 4);
	assert_int_equal(med, 250);
	/* a plain command by its command */
	assert_int_equal(dbq_median_duration(f->db, NULL, "true", "x86_64", 2, &med, &n), 1);
	assert_int_equal(n, 1);
	assert_int_equal(med, 7000);
	assert_int_equal(dbq_median_duration(f->db, "j", NULL, "arm64", 2, &med, &n), 0);
}

static void test_run_request(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/a", DBT_SHA_A, "j", 2);
	struct run_request b = dbt_req("/k/b", DBT_SHA_B, "j", 2);
	struct request q;
	int64_t rid, plain, got = -1;

	assert_int_equal(db_request_insert(f->db, &a, &b, 1, &rid), 0);
	assert_int_equal(db_run_insert(f->db, &a, &plain), 0);
	assert_int_equal(db_request_get(f->db, rid, &q), 1);
	assert_int_equal(q.nruns, 2);
	assert_int_equal(dbq_run_request(f->db, q.run_ids[1], &got), 1);
	assert_int_equal(got, rid);
	request_release(&q);
	assert_int_equal(dbq_run_request(f->db, plain, &got), 0);
	assert_int_equal(dbq_run_request(f->db, plain + 100, &got), 0);
}

static void test_recover_domains(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/a", DBT_SHA_A, "j", 2);
	struct run r;
	char **doms;
	size_t n;
	int64_t r1, r2, r3;

	dbt_host(f->db, "h1");
	assert_int_equal(db_run_insert(f->db, &a, &r1), 0);
	assert_int_equal(db_run_insert(f->db, &a, &r2), 0);
	assert_int_equal(db_run_insert(f->db, &a, &r3), 0);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(db_run_claim(f->db, "h1", &r), 1);
		run_release(&r);
	}
	assert_int_equal(db_recover(f->db, &doms, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		char want[64];

		snprintf(want, sizeof(want), "kf-%s-%lld", db_instance(f->db),
			 (long long)(i ? r2 : r1));
		assert_string_equal(doms[i], want);
		free(doms[i]);
	}
	free(doms);
	/* max_attempts 1: both are done as infra */
	assert_int_equal(db_run_get(f->db, r1, &r), 1);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_INFRA);
	run_release(&r);
	assert_int_equal(db_recover(f->db, &doms, &n), 0);
	assert_int_equal(n, 0);
	assert_null(doms);
}

static void expect_domain(struct db *db, const struct run *r)
{
	char want[64];

	snprintf(want, sizeof(want), "kf-%s-%lld", db_instance(db), (long long)r->id);
	assert_non_null(r->domain);
	assert_string_equal(r->domain, want);
}

/* --- runs: insert, get, list, counts -------------------------------------- */

static void test_insert_get(void **state)
{
	struct dbt *f = *state;
	int64_t before = now_ms(), id, id2;
	struct run r;

	id = dbt_insert_run(f->db, "echo 'hi' && uname -a", 3);
	dbt_get(f->db, id, &r);
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
	id2 = dbt_insert_run(f->db, "true", 0);
	assert_true(id2 > id);
	dbt_get(f->db, id2, &r);
	assert_int_equal(r.max_attempts, 2);
	run_release(&r);

	assert_int_equal(db_run_get(f->db, id2 + 100, &r), 0);

	/* a request the schema refuses leaves nothing behind */
	{
		struct run_request bad = {
			.kernel_path = "/k", .kernel_sha256 = DBT_SHA_B, .arch = "x86_64",
			.vcpus = 0, .memory_mb = 64, .timeout_s = 1, .command = "true",
		};
		int64_t x = -5;

		assert_int_equal(db_run_insert(f->db, &bad, &x), -1);
		assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM runs"), 2);
		assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM kernels WHERE path = '/k'"),
				 0);
		/* and the connection is usable afterwards (no transaction left open) */
		dbt_insert_run(f->db, "after", 1);
		assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);
	}
}

static void test_list(void **state)
{
	struct dbt *f = *state;
	int64_t ids[5];
	struct run *v;
	size_t n;

	for (int i = 0; i < 5; i++) {
		char cmd[16];

		snprintf(cmd, sizeof(cmd), "cmd %d", i);
		ids[i] = dbt_insert_run(f->db, cmd, 2);
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
	struct dbt *f = *state;
	int64_t c[RUN_STATE_COUNT];
	struct run r;

	assert_int_equal(db_run_counts(f->db, c), 0);
	assert_int_equal(c[RUN_QUEUED], 0);
	assert_int_equal(c[RUN_RUNNING], 0);
	assert_int_equal(c[RUN_DONE], 0);
	dbt_host(f->db, "local");
	for (int i = 0; i < 4; i++)
		dbt_insert_run(f->db, "true", 2);
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
	struct dbt *f = *state;
	int64_t a, b, c, t0 = now_ms();
	struct attempt *at;
	struct run r;
	size_t n;

	dbt_host(f->db, "local");
	dbt_host(f->db, "other");
	a = dbt_insert_run(f->db, "first", 2);
	b = dbt_insert_run(f->db, "second", 2);
	c = dbt_insert_run(f->db, "third", 2);

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
	dbt_get(f->db, a, &r);
	assert_int_equal(r.state, RUN_RUNNING);
	run_release(&r);
}

static void test_claim_unknown_host(void **state)
{
	struct dbt *f = *state;
	struct attempt *at;
	struct run r;
	int64_t id;
	size_t n;

	/* empty queue: nothing to claim, whatever the host */
	assert_int_equal(db_run_claim(f->db, "nohost", &r), 0);
	id = dbt_insert_run(f->db, "true", 2);
	assert_int_equal(db_run_claim(f->db, "nohost", &r), -1);
	/* rolled back: still queued, no attempt, no transaction left open */
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);
	dbt_get(f->db, id, &r);
	assert_int_equal(r.state, RUN_QUEUED);
	assert_int_equal(r.attempt, 0);
	assert_null(r.domain);
	run_release(&r);
	assert_int_equal(db_attempt_list(f->db, id, &at, &n), 0);
	assert_int_equal(n, 0);
	attempt_list_free(at, n);
	/* once the host is known the claim works */
	dbt_host(f->db, "nohost");
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
	struct dbt *f = *state;
	int claimed[RACE_RUNS] = { 0 };
	struct claimer c[2];
	pthread_t t[2];
	pthread_barrier_t bar;
	int64_t counts[RUN_STATE_COUNT], first = 0;

	dbt_host(f->db, "local");
	for (int i = 0; i < RACE_RUNS; i++) {
		int64_t id = dbt_insert_run(f->db, "true", 2);

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
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM attempts"), RACE_RUNS);
	assert_int_equal(dbt_sql_int(f->db, "SELECT max(n) FROM attempts"), 1);
}

/* --- finishing ------------------------------------------------------------ */

static void test_finish_passed(void **state)
{
	struct dbt *f = *state;
	struct attempt *at;
	struct run r;
	int64_t id, id2;
	size_t n;

	dbt_host(f->db, "local");
	id = dbt_insert_run(f->db, "true", 2);
	id2 = dbt_insert_run(f->db, "false", 2);
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
	dbt_get(f->db, id, &r);
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
	dbt_get(f->db, id2, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_CRASH);
	assert_int_equal(r.has_exit_code, 0);
	assert_string_equal(r.splat, "Kernel panic - not syncing: x\nCall Trace:\n");
	run_release(&r);
}

static void test_finish_infra_retries(void **state)
{
	struct dbt *f = *state;
	struct attempt *at;
	struct run r;
	char *dom1;
	int64_t id;
	size_t n;

	dbt_host(f->db, "local");
	dbt_host(f->db, "other");
	id = dbt_insert_run(f->db, "true", 2);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.attempt, 1);
	dom1 = strdup(r.domain);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "libvirt: connection reset",
				       NULL, 0, 0), 0);
	/* back in the queue with the reason, the attempt kept */
	dbt_get(f->db, id, &r);
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
	dbt_get(f->db, id, &r);
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
	id = dbt_insert_run(f->db, "true", 1);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "x", NULL, 0, 0), 0);
	dbt_get(f->db, id, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_INFRA);
	run_release(&r);
	id = dbt_insert_run(f->db, "true", 5);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_NO_BOOT, "no hello", NULL, 0, 0), 0);
	dbt_get(f->db, id, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_NO_BOOT);
	run_release(&r);
}

/* --- recovery ------------------------------------------------------------- */

static void test_recover(void **state)
{
	struct dbt *f = *state;
	int64_t a, b, c;
	char **doms;
	struct attempt *at;
	struct run r;
	char want[64];
	size_t n;

	dbt_host(f->db, "local");
	a = dbt_insert_run(f->db, "a", 2);
	b = dbt_insert_run(f->db, "b", 1);
	c = dbt_insert_run(f->db, "c", 2);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	/* the daemon dies: a new connection recovers */
	db_close(f->db);
	f->db = dbt_open(f->path);
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
	dbt_get(f->db, a, &r);
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
	dbt_get(f->db, b, &r);
	assert_int_equal(r.state, RUN_DONE);
	assert_int_equal(r.outcome, RUN_OUT_INFRA);
	run_release(&r);
	/* c was never claimed: untouched */
	dbt_get(f->db, c, &r);
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
	struct dbt *f = *state;
	struct attempt *at = (struct attempt *)1;
	size_t n = 7;

	assert_int_equal(db_attempt_list(f->db, 12345, &at, &n), 0);
	assert_int_equal(n, 0);
	attempt_list_free(at, n);
}
/* --- the fair queue's reads ------------------------------------------------ */

static int64_t queue_for(struct db *db, const char *watch, int vcpus, int mem_mb)
{
	struct run_request req = dbt_req("/k", DBT_SHA_A, NULL, vcpus);
	int64_t id = 0;

	req.watch = watch;
	req.memory_mb = mem_mb;
	assert_int_equal(db_run_insert(db, &req, &id), 0);
	return id;
}

static struct claim_fit fit_any(void)
{
	struct claim_fit fit = { INT_MAX, INT_MAX, INT_MAX, 0, 0, NULL, 0, 0, 0, 0, 0, 0 };

	return fit;
}

/* People's runs and each watch's, with the watch's cap (from its stored
 * spec), runs going and newest start; a run is for whom it was queued for */
static void test_classes(void **state)
{
	struct dbt *f = *state;
	struct claim_fit fit = fit_any();
	struct queue_class *v;
	int64_t p1, n1, n2, b1, p2;
	struct run r;
	size_t n;

	dbt_host(f->db, "h1");
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(n, 0);
	queue_classes_free(v, n);
	assert_int_equal(sqlite3_exec(db_sqlite(f->db), "INSERT INTO watches (name, source, spec,"
		" created_at, position_date) VALUES ('net', 'cli', '{\"max_running\": \"3\"}', 1,"
		" '2026-01-01'), ('bpf', 'cli', '{}', 1, '2026-01-01')", NULL, NULL, NULL), SQLITE_OK);
	n1 = queue_for(f->db, "net", 1, 512);
	p1 = queue_for(f->db, NULL, 1, 512);
	b1 = queue_for(f->db, "bpf", 1, 512);
	n2 = queue_for(f->db, "net", 1, 512);
	p2 = queue_for(f->db, NULL, 1, 512);
	dbt_get(f->db, n1, &r);
	assert_string_equal(r.watch, "net");
	run_release(&r);
	dbt_get(f->db, p1, &r);
	assert_null(r.watch);
	run_release(&r);
	/* one of net's goes */
	assert_int_equal(db_run_claim_id(f->db, "h1", n1, &r), 1);
	assert_int_equal(r.id, n1);
	assert_int_equal(r.state, RUN_RUNNING);
	assert_int_equal(r.attempt, 1);
	run_release(&r);
	/* ... only once */
	assert_int_equal(db_run_claim_id(f->db, "h1", n1, &r), 0);
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(n, 3);
	/* people first, then the watches by name */
	assert_null(v[0].watch);
	assert_int_equal(v[0].fit_id, p1);
	assert_int_equal(v[0].oldest_id, p1);
	assert_int_equal(v[0].queued, 2);
	assert_int_equal(v[0].held_id, 0);
	assert_string_equal(v[1].watch, "bpf");
	assert_int_equal(v[1].fit_id, b1);
	assert_int_equal(v[1].running, 0);
	assert_int_equal(v[1].last_start, 0);
	assert_int_equal(v[1].max_running, 0);
	assert_string_equal(v[2].watch, "net");
	assert_int_equal(v[2].fit_id, n2);
	assert_int_equal(v[2].queued, 1);
	assert_int_equal(v[2].running, 1);
	assert_int_equal(v[2].max_running, 3);
	assert_true(v[2].last_start == dbt_sql_int(f->db, "SELECT started_at FROM runs WHERE"
						   " id = 1"));
	queue_classes_free(v, n);
	/* once done, its start still counts for its turn */
	assert_int_equal(db_run_finish(f->db, n1, RUN_OUT_PASSED, NULL, NULL, 1, 0), 0);
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(v[2].running, 0);
	assert_true(v[2].last_start > 0);
	queue_classes_free(v, n);
	/* the FIFO claim takes the oldest, whoever it is for */
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 1);
	assert_int_equal(r.id, p1);
	run_release(&r);
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 1);
	assert_int_equal(r.id, b1);
	run_release(&r);
	(void)p2;
}

/* What fits a host now (its CPUs and memory left) and what waited long
 * enough for room it does not find */
static void test_classes_fit(void **state)
{
	struct dbt *f = *state;
	struct claim_fit fit = fit_any();
	struct queue_class *v;
	int64_t big, small, huge, fat;
	size_t n;

	big = queue_for(f->db, NULL, 16, 512);
	small = queue_for(f->db, NULL, 1, 512);
	huge = queue_for(f->db, NULL, 1, 8192);   /* more than the host ever has */
	fat = queue_for(f->db, NULL, 2, 2048);
	/* 4 CPUs, 3 free; 4 GiB for guests, 1 GiB free */
	fit.cpus = 4;
	fit.cpus_free = 3;
	fit.max_memory_mb = 1024;
	fit.memory_total_mb = 4096;
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].fit_id, small);    /* 16 vCPUs take all 4 CPUs */
	assert_int_equal(v[0].held_id, 0);       /* nobody waited long enough */
	assert_int_equal(v[0].oldest_id, big);
	assert_int_equal(v[0].queued, 4);
	queue_classes_free(v, n);
	/* all waited: the oldest that fits only an emptier host; never the
	 * one no emptying makes room for */
	fit.hold_before = now_ms() + 1000;
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(v[0].held_id, big);
	assert_int_equal(v[0].fit_id, small);
	queue_classes_free(v, n);
	assert_int_equal(sqlite3_exec(db_sqlite(f->db), "UPDATE runs SET state = 'done'"
				      " WHERE id IN (1, 2)", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(v[0].held_id, fat);     /* its memory is not free yet */
	assert_int_equal(v[0].fit_id, 0);
	queue_classes_free(v, n);
	/* CPUs not counted: the 2-vCPU run fits once the memory is free */
	fit.cpus = 0;
	fit.cpus_free = 0;
	fit.max_memory_mb = 4096;
	assert_int_equal(db_queue_classes(f->db, &fit, &v, &n), 0);
	assert_int_equal(v[0].fit_id, fat);
	assert_int_equal(v[0].held_id, 0);
	queue_classes_free(v, n);
	(void)huge;
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
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
		T(test_run_columns),
		T(test_queue),
		T(test_phases),
		T(test_median_duration),
		T(test_run_request),
		T(test_recover_domains),
		T(test_queue_turns),
		T(test_classes),
		T(test_classes_fit),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
