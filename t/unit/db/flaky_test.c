// SPDX-License-Identifier: GPL-2.0-only
/* flaky_test.c: unit tests for db/flaky.c: a run's window holds the tests
 * that failed in the cell's newest runs (and those in quarantine), not the
 * ones that always passed, nor other cells' runs nor infra runs; a
 * quarantine opens once per test and cell, updates its counts, is
 * released, and can open again; the listing and a test's history. */
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

/* A done run of job j (vcpus 1) on kernel path k with these results:
 * flip (status fl) and steady (pass) */
static int64_t run_with(struct db *db, const char *k, const char *sha, int vcpus,
			const char *fl, enum run_outcome o)
{
	struct run_request a = dbt_req(k, sha, "flip-demo", vcpus);
	struct result_row res[] = { { "flip", (char *)fl, NULL }, { "steady", "pass", NULL } };
	int64_t id = dbt_run_done(db, "h1", &a, o);

	assert_int_equal(db_run_store_results(db, id, res, 2, NULL, 0), 0);
	return id;
}

static void test_window(void **state)
{
	struct dbt *f = *state;
	struct db_flaky_cell cell = { "flip-demo", "x86_64", 1 };
	struct db_flaky_result *v;
	size_t n;
	int trunc;
	int64_t r1, r2, r3, other;

	dbt_host(f->db, "h1");
	r1 = run_with(f->db, "/k/a", DBT_SHA_A, 1, "pass", RUN_OUT_PASSED);
	/* nothing failed yet: nothing to look at */
	assert_int_equal(db_flaky_window(f->db, &cell, r1, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 0);
	r2 = run_with(f->db, "/k/a", DBT_SHA_A, 1, "fail", RUN_OUT_FAILED);
	run_with(f->db, "/k/a", DBT_SHA_A, 1, "fail", RUN_OUT_INFRA);   /* does not count */
	other = run_with(f->db, "/k/a", DBT_SHA_A, 2, "fail", RUN_OUT_FAILED);  /* other cell */
	r3 = run_with(f->db, "/k/b", DBT_SHA_B, 1, "pass", RUN_OUT_PASSED);
	assert_int_equal(db_flaky_window(f->db, &cell, r3, 100, &v, &n, &trunc), 0);
	assert_int_equal(trunc, 0);
	/* flip only (steady never failed), its three counted runs by id */
	assert_int_equal(n, 3);
	assert_string_equal(v[0].path, "flip");
	assert_int_equal(v[0].run_id, r1);
	assert_string_equal(v[0].status, "pass");
	assert_int_equal(v[1].run_id, r2);
	assert_string_equal(v[1].status, "fail");
	assert_int_equal(v[2].run_id, r3);
	assert_true(v[2].kernel_id != v[0].kernel_id);
	db_flaky_results_free(v, n);
	/* per kernel: a passed and failed it (the infra run left out), b
	 * passed it */
	{
		int runs, fails;
		int64_t ka = dbt_sql_int(f->db, "SELECT kernel_id FROM runs WHERE id = 1");

		assert_int_equal(dbq_flaky_kernel_counts(f->db, &cell, ka, "flip", &runs, &fails), 0);
		assert_int_equal(runs, 2);
		assert_int_equal(fails, 1);
		assert_int_equal(dbq_flaky_kernel_counts(f->db, &cell, ka + 1, "flip", &runs, &fails), 0);
		assert_int_equal(runs, 1);
		assert_int_equal(fails, 0);
		assert_int_equal(dbq_flaky_kernel_counts(f->db, &cell, ka, "nosuch", &runs, &fails), 0);
		assert_int_equal(runs, 0);
	}
	/* scan 1: the newest run alone, which did not fail it */
	assert_int_equal(db_flaky_window(f->db, &cell, r3, 1, &v, &n, &trunc), 0);
	assert_int_equal(n, 0);
	/* the other cell sees its own run only */
	cell.vcpus = 2;
	assert_int_equal(db_flaky_window(f->db, &cell, other, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 1);
	assert_int_equal(v[0].run_id, other);
	db_flaky_results_free(v, n);
}

static void test_quarantine(void **state)
{
	struct dbt *f = *state;
	struct db_flaky_cell cell = { "flip-demo", "x86_64", 1 };
	struct db_quarantine_op op = { "steady", 0, "2 flips", 4, 2, 2, 3 };
	struct db_quarantine *q;
	struct db_flaky_result *v;
	struct dbq_flaky_point *p;
	char **paths;
	size_t n;
	int trunc;
	int64_t r1, r2;

	dbt_host(f->db, "h1");
	r1 = run_with(f->db, "/k/a", DBT_SHA_A, 1, "pass", RUN_OUT_PASSED);
	r2 = run_with(f->db, "/k/a", DBT_SHA_A, 1, "skip", RUN_OUT_PASSED);
	assert_int_equal(db_quarantine_apply(f->db, &cell, r1, &op, 1), 0);
	/* again: the open row's counts change, no second row */
	op.runs = 5;
	assert_int_equal(db_quarantine_apply(f->db, &cell, r2, &op, 1), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM quarantine"), 1);
	assert_int_equal(db_quarantined_paths(f->db, &cell, &paths, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(paths[0], "steady");
	db_paths_free(paths, n);
	/* a test in quarantine is in the window although it never failed */
	assert_int_equal(db_flaky_window(f->db, &cell, r2, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].path, "steady");
	db_flaky_results_free(v, n);
	assert_int_equal(db_quarantine_list(f->db, 0, 10, &q, &n, &trunc), 0);
	assert_int_equal(n, 1);
	assert_string_equal(q[0].path, "steady");
	assert_int_equal(q[0].since_run_id, r1);
	assert_int_equal(q[0].last_run_id, r2);
	assert_int_equal(q[0].runs, 5);
	assert_int_equal(q[0].flips, 2);
	assert_int_equal(q[0].chances, 3);
	assert_string_equal(q[0].reason, "2 flips");
	assert_int_equal(q[0].released_at, 0);
	db_rows_free(db_quarantine_fields, q, sizeof(*q), n);
	/* released: out of the open listing, still in the full one */
	op.release = 1;
	op.reason = "no flip in the last 30 runs";
	assert_int_equal(db_quarantine_apply(f->db, &cell, r2, &op, 1), 0);
	assert_int_equal(db_quarantined_paths(f->db, &cell, &paths, &n), 0);
	assert_int_equal(n, 0);
	db_paths_free(paths, n);
	assert_int_equal(db_quarantine_list(f->db, 0, 10, &q, &n, &trunc), 0);
	assert_int_equal(n, 0);
	db_rows_free(db_quarantine_fields, q, sizeof(*q), n);
	assert_int_equal(db_quarantine_list(f->db, 1, 10, &q, &n, &trunc), 0);
	assert_int_equal(n, 1);
	assert_true(q[0].released_at > 0);
	assert_string_equal(q[0].released_why, "no flip in the last 30 runs");
	db_rows_free(db_quarantine_fields, q, sizeof(*q), n);
	/* and quarantined again: a second row */
	op.release = 0;
	assert_int_equal(db_quarantine_apply(f->db, &cell, r2, &op, 1), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM quarantine"), 2);
	/* history: flip passed in r1, r2 skipped it (no verdict) */
	assert_int_equal(dbq_flaky_history(f->db, &cell, "flip", 30, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].run_id, r1);
	assert_int_equal(p[0].failed, 0);
	free(p);
	assert_int_equal(dbq_flaky_history(f->db, &cell, "steady", 1, &p, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(p[0].run_id, r2);   /* the newest one */
	free(p);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
		T(test_window),
		T(test_quarantine),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
