// SPDX-License-Identifier: GPL-2.0-only
/* requests_test.c: unit tests for db/requests.c: a request inserted with
 * its runs (base and patched alternating), read back, its progress as
 * runs end, its done runs' results in order and bounded (truncated), and
 * the submission it was made for; a request run until decided: listed
 * only once its runs are done, a round queued once (not twice from the
 * same state, as after a restart), its stop, and a submission's mode
 * passed to its requests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "db/query.h"
#include "t/unit/db/dbtest.h"

static void test_insert_get(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/base", DBT_SHA_A, "bench", 2);
	struct run_request b = dbt_req("/k/patched", DBT_SHA_B, "bench", 2);
	struct request q;
	struct run r;
	int64_t rid;

	assert_int_equal(db_request_insert(f->db, &a, &b, 3, &rid), 0);
	assert_int_equal(db_request_get(f->db, rid, &q), 1);
	assert_int_equal(q.id, rid);
	assert_true(q.created_at > 0);
	assert_int_not_equal(q.base_kernel_id, q.patched_kernel_id);
	assert_string_equal(q.job, "bench");
	assert_int_equal(q.repeats, 3);
	assert_int_equal(q.nruns, 6);
	for (size_t i = 0; i < q.nruns; i++) {
		assert_int_equal(db_run_get(f->db, q.run_ids[i], &r), 1);
		assert_int_equal(r.kernel_id, i % 2 ? q.patched_kernel_id : q.base_kernel_id);
		if (i)
			assert_true(q.run_ids[i] > q.run_ids[i - 1]);
		run_release(&r);
	}
	request_release(&q);
	assert_null(q.job);
	assert_null(q.run_ids);
	assert_int_equal(db_request_get(f->db, rid + 1, &q), 0);
	assert_int_equal(q.nruns, 0);
}

static void test_progress_results(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/base", DBT_SHA_A, "ktap", 2);
	struct run_request b = dbt_req("/k/patched", DBT_SHA_B, "ktap", 2);
	struct result_row res[] = {
		{ "net:b", "fail", "exit 1" }, { "net:a", "pass", NULL },
	};
	struct dbq_result *v;
	struct run r;
	int64_t rid, r1, r2;
	int runs = -1, done = -1, trunc = -1;
	size_t n;

	dbt_host(f->db, "h1");
	assert_int_equal(db_request_insert(f->db, &a, &b, 1, &rid), 0);
	assert_int_equal(dbq_request_progress(f->db, rid, &runs, &done), 0);
	assert_int_equal(runs, 2);
	assert_int_equal(done, 0);
	r1 = dbt_claim_finish(f->db, "h1", 0, RUN_OUT_FAILED);
	assert_int_equal(db_run_store_results(f->db, r1, res, 2, NULL, 0), 0);
	assert_int_equal(dbq_request_progress(f->db, rid, &runs, &done), 0);
	assert_int_equal(runs, 2);
	assert_int_equal(done, 1);

	/* the second run's results do not count until it is done */
	assert_int_equal(db_run_claim(f->db, "h1", &r), 1);
	r2 = r.id;
	run_release(&r);
	assert_int_equal(db_run_store_results(f->db, r2, res, 1, NULL, 0), 0);
	assert_int_equal(dbq_request_results(f->db, rid, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 2);
	assert_int_equal(trunc, 0);
	/* by run, then path */
	assert_int_equal(v[0].run_id, r1);
	assert_string_equal(v[0].path, "net:a");
	assert_string_equal(v[0].status, "pass");
	assert_string_equal(v[1].path, "net:b");
	assert_string_equal(v[1].status, "fail");
	dbq_results_free(v, n);

	assert_int_equal(db_run_finish(f->db, r2, RUN_OUT_PASSED, NULL, NULL, 1, 0), 0);
	assert_int_equal(dbq_request_results(f->db, rid, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[2].run_id, r2);
	dbq_results_free(v, n);
	assert_int_equal(dbq_request_results(f->db, rid, 2, &v, &n, &trunc), 0);
	assert_int_equal(n, 2);
	assert_int_equal(trunc, 1);
	dbq_results_free(v, n);
	assert_int_equal(dbq_request_results(f->db, rid, 3, &v, &n, &trunc), 0);
	assert_int_equal(n, 3);
	assert_int_equal(trunc, 0);
	dbq_results_free(v, n);
	assert_int_equal(dbq_request_progress(f->db, rid + 9, &runs, &done), 0);
	assert_int_equal(runs, 0);
}

/* The queue's progress of every request in one statement: the requests
 * with a run queued or running only, each with all its runs and those
 * done, by id */
static void test_queue_progress(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/base", DBT_SHA_A, "ktap", 2);
	struct run_request b = dbt_req("/k/patched", DBT_SHA_B, "ktap", 2);
	struct dbq_progress *p = NULL;
	int64_t r1, r2, r3;
	size_t n = 9;

	dbt_host(f->db, "h1");
	assert_int_equal(dbq_queue_progress(f->db, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
	assert_int_equal(db_request_insert(f->db, &a, &b, 1, &r1), 0);   /* 2 runs */
	assert_int_equal(db_request_insert(f->db, &a, &b, 2, &r2), 0);   /* 4 runs */
	assert_int_equal(db_request_insert(f->db, &a, &b, 1, &r3), 0);
	/* r1's two runs end: it leaves the queue's list; one of r2's ends,
	 * one runs (set here: which run a claim takes is the queue's) */
	{
		char sql[512];

		snprintf(sql, sizeof(sql), "UPDATE runs SET state = 'done', outcome = 'passed'"
			 " WHERE request_id = %lld OR id = (SELECT min(id) FROM runs WHERE"
			 " request_id = %lld); UPDATE runs SET state = 'running' WHERE id ="
			 " (SELECT max(id) FROM runs WHERE request_id = %lld)", (long long)r1,
			 (long long)r2, (long long)r2);
		assert_int_equal(sqlite3_exec(db_sqlite(f->db), sql, NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(dbq_queue_progress(f->db, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].request_id, r2);
	assert_int_equal(p[0].runs, 4);
	assert_int_equal(p[0].done, 1);
	assert_int_equal(p[1].request_id, r3);
	assert_int_equal(p[1].runs, 2);
	assert_int_equal(p[1].done, 0);
	free(p);
}

static void test_submission(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/base", DBT_SHA_A, "ktap", 2);
	struct submission s = { .tree = "linux", .arches = "x86_64", .config = "tinyconfig" };
	int64_t rid, sid = -1;

	assert_int_equal(db_request_insert(f->db, &a, &a, 1, &rid), 0);
	assert_int_equal(db_request_submission(f->db, rid, &sid), 0);
	assert_int_equal(sid, -1);
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	assert_int_equal(db_submission_link_request(f->db, s.id, rid), 0);
	assert_int_equal(db_request_submission(f->db, rid, &sid), 1);
	assert_int_equal(sid, s.id);
	assert_int_equal(db_request_submission(f->db, rid + 1, &sid), 0);
}

static void test_until_decided(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/base", DBT_SHA_A, "bench", 2);
	struct run_request b = dbt_req("/k/patched", DBT_SHA_B, "bench", 2);
	struct request_mode m = { 1, 4, 0.05 };
	struct submission s = { .tree = "linux", .arches = "x86_64", .config = "tinyconfig" };
	struct request_round *rv;
	struct request q;
	int64_t rid, pid, *ids;
	size_t n, nr;

	dbt_host(f->db, "h1");
	assert_int_equal(db_request_insert_mode(f->db, &a, &b, 1, &m, &rid), 0);
	assert_int_equal(db_request_insert(f->db, &a, &b, 1, &pid), 0);   /* plain */
	assert_int_equal(db_requests_deciding(f->db, 10, &ids, &n), 0);
	assert_int_equal(n, 0);   /* its runs are queued */
	free(ids);
	dbt_claim_finish(f->db, "h1", 0, RUN_OUT_PASSED);
	dbt_claim_finish(f->db, "h1", 0, RUN_OUT_PASSED);
	assert_int_equal(db_requests_deciding(f->db, 10, &ids, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(ids[0], rid);
	free(ids);
	assert_int_equal(db_request_round_add(f->db, rid, 1, 2, "more"), 1);
	/* the same state again (a restart before the answer was seen): no */
	assert_int_equal(db_request_round_add(f->db, rid, 1, 2, "more"), 0);
	assert_int_equal(db_request_get(f->db, rid, &q), 1);
	assert_int_equal(q.nruns, 6);
	assert_int_equal(q.rounds, 2);
	assert_int_equal(q.max_runs, 4);
	assert_true(q.margin > 0.049 && q.margin < 0.051);
	assert_string_equal(q.decided, "deciding");
	for (size_t i = 2; i < q.nruns; i++) {
		struct run r;

		assert_int_equal(db_run_get(f->db, q.run_ids[i], &r), 1);
		assert_int_equal(r.kernel_id, i % 2 ? q.patched_kernel_id : q.base_kernel_id);
		assert_int_equal(r.state, RUN_QUEUED);
		run_release(&r);
	}
	request_release(&q);
	assert_int_equal(db_request_rounds(f->db, rid, &rv, &nr), 0);
	assert_int_equal(nr, 2);
	assert_string_equal(rv[0].why, "the first round: 1 run a side");
	assert_int_equal(rv[1].pairs, 2);
	db_request_rounds_free(rv, nr);
	assert_int_equal(db_request_decided_end(f->db, rid, "cap", "cap reached"), 1);
	assert_int_equal(db_request_decided_end(f->db, rid, "cap", "again"), 0);
	assert_int_equal(db_request_round_add(f->db, rid, 2, 1, "more"), 0);
	assert_int_equal(db_request_get(f->db, rid, &q), 1);
	assert_string_equal(q.stop_reason, "cap reached");
	assert_true(q.decided_at > 0);
	request_release(&q);
	/* a submission's mode reaches the requests it made */
	assert_int_equal(db_submission_insert_mode(f->db, &s, &m), 0);
	assert_int_equal(db_request_insert(f->db, &a, &b, 1, &rid), 0);
	assert_int_equal(db_submission_link_request(f->db, s.id, rid), 0);
	assert_int_equal(db_requests_deciding(f->db, 10, &ids, &n), 0);
	free(ids);
	assert_int_equal(db_request_get(f->db, rid, &q), 1);
	assert_int_equal(q.until_decided, 1);
	assert_int_equal(q.max_runs, 4);
	assert_string_equal(q.decided, "deciding");
	request_release(&q);
	assert_int_equal(db_request_rounds(f->db, rid, &rv, &nr), 0);
	assert_int_equal(nr, 1);
	db_request_rounds_free(rv, nr);
	assert_int_equal(db_request_get(f->db, pid, &q), 1);
	assert_null(q.decided);
	request_release(&q);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
		T(test_insert_get),
		T(test_progress_results),
		T(test_queue_progress),
		T(test_submission),
		T(test_until_decided),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
