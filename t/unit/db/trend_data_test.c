// SPDX-License-Identifier: GPL-2.0-only
/* trend_data_test.c: unit tests for db/trend_data.c: a job's runs on
 * kernels built from a tree's commits make series (a metric's, or
 * results'), whose values come per commit oldest first (an unknown
 * commit order first), each run's the median of its samples, newest run
 * first; and whose results come per commit, run and path. */
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

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"
#define C3 "3333333333333333333333333333333333333333"

/* Registers the kernel built from commit (order -1: unknown) as path */
static void built(struct db *db, const char *commit, int64_t order, const char *path,
		  const char *sha)
{
	struct build_row b = {
		.key = (char *)path, .tree = "linux", .commit_id = (char *)commit,
		.arch = "x86_64", .config = "tinyconfig", .config_hash = "c0",
		.toolchain = "gcc-12", .dir = "/b",
	};
	int64_t id;

	assert_int_equal(db_build_start(db, &b, &id), 0);
	assert_int_equal(db_build_done(db, id, path, sha, "6.1.0", NULL, 10, order), 0);
}

/* A run of bench on path that ended with o, with these samples of "ops" */
static int64_t bench_run(struct db *db, const char *path, const char *sha, enum run_outcome o,
			 const double *ops, size_t n)
{
	struct run_request req = dbt_req(path, sha, "bench", 2);
	struct sample_row smp[4];
	int64_t id = dbt_run_done(db, "h1", &req, o);

	for (size_t i = 0; i < n; i++)
		smp[i] = (struct sample_row){ "ops", "ops/s", ops[i], (int)i };
	assert_int_equal(db_run_store_results(db, id, NULL, 0, smp, n), 0);
	return id;
}

struct fleet {
	int64_t a, b, c2pass, c2fail, c3;   /* runs */
};

static void fill(struct db *db, struct fleet *x)
{
	static const double va[] = { 10, 30, 20 }, vb[] = { 40 }, vc[] = { 50, 60 },
		vd[] = { 99 }, ve[] = { 5 };
	struct result_row pass = { "t:x", "pass", NULL }, fail = { "t:x", "fail", NULL };

	dbt_host(db, "h1");
	built(db, C1, 10, "/k/1", DBT_SHA_A);
	built(db, C2, 20, "/k/2", DBT_SHA_A);
	built(db, C3, -1, "/k/3", DBT_SHA_A);
	x->a = bench_run(db, "/k/1", DBT_SHA_A, RUN_OUT_PASSED, va, 3);
	x->b = bench_run(db, "/k/1", DBT_SHA_A, RUN_OUT_PASSED, vb, 1);
	x->c2pass = bench_run(db, "/k/2", DBT_SHA_A, RUN_OUT_PASSED, vc, 2);
	x->c2fail = bench_run(db, "/k/2", DBT_SHA_A, RUN_OUT_FAILED, vd, 1);
	x->c3 = bench_run(db, "/k/3", DBT_SHA_A, RUN_OUT_PASSED, ve, 1);
	/* results replace the samples of their store: store both again */
	assert_int_equal(db_run_store_results(db, x->a, &pass, 1,
					      &(struct sample_row){ "ops", "ops/s", 20, 0 }, 1), 0);
	assert_int_equal(db_run_store_results(db, x->c2fail, &fail, 1, NULL, 0), 0);
	/* a run on a kernel that is no tree's does not count */
	{
		struct run_request other = dbt_req("/k/plain", DBT_SHA_B, "bench", 2);

		dbt_run_done(db, "h1", &other, RUN_OUT_PASSED);
	}
}

static void test_series(void **state)
{
	struct dbt *f = *state;
	struct dbq_trend_series *v;
	struct fleet x;
	size_t n;
	int trunc = -1;

	fill(f->db, &x);
	assert_int_equal(dbq_trend_series(f->db, NULL, NULL, NULL, 0, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 1);
	assert_int_equal(trunc, 0);
	assert_string_equal(v[0].tree, "linux");
	assert_string_equal(v[0].job, "bench");
	assert_string_equal(v[0].metric, "ops");
	assert_string_equal(v[0].arch, "x86_64");
	assert_int_equal(v[0].vcpus, 2);
	assert_int_equal(v[0].commits, 3);
	assert_int_equal(v[0].runs, 4);      /* passed runs with the metric */
	assert_true(v[0].last_ms > 0);
	dbq_trend_series_free(v, n);

	assert_int_equal(dbq_trend_series(f->db, "linux", "bench", NULL, 1, 100, &v, &n,
					  &trunc), 0);
	assert_int_equal(n, 1);
	assert_null(v[0].metric);
	assert_int_equal(v[0].commits, 2);
	assert_int_equal(v[0].runs, 2);
	dbq_trend_series_free(v, n);

	assert_int_equal(dbq_trend_series(f->db, "other", NULL, NULL, 0, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 0);
	assert_int_equal(dbq_trend_series(f->db, NULL, NULL, "lat", 0, 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 0);
	assert_int_equal(dbq_trend_series(f->db, NULL, NULL, NULL, 0, 0, &v, &n, &trunc), 0);
	assert_int_equal(n, 0);
	assert_int_equal(trunc, 1);
	dbq_trend_series_free(v, n);
}

static void test_values(void **state)
{
	struct dbt *f = *state;
	struct dbq_trend_values tv;
	struct fleet x;

	fill(f->db, &x);
	assert_int_equal(dbq_trend_values(f->db, "linux", "bench", "ops", "x86_64", 2, &tv), 0);
	assert_int_equal(tv.n, 3);
	assert_string_equal(tv.unit, "ops/s");
	assert_int_equal(tv.commits_dropped, 0);
	assert_int_equal(tv.runs_dropped, 0);
	assert_int_equal(tv.rows_truncated, 0);
	/* unknown order first */
	assert_string_equal(tv.c[0].commit, C3);
	assert_int_equal(tv.c[0].order, -1);
	assert_int_equal(tv.c[0].n, 1);
	assert_true(tv.c[0].v[0] == 5);
	assert_string_equal(tv.c[1].commit, C1);
	assert_int_equal(tv.c[1].order, 10);
	assert_int_equal(tv.c[1].n, 2);
	assert_int_equal(tv.c[1].run_ids[0], x.b);   /* newest first */
	assert_true(tv.c[1].v[0] == 40);
	assert_int_equal(tv.c[1].run_ids[1], x.a);
	assert_true(tv.c[1].v[1] == 20);
	assert_string_equal(tv.c[2].commit, C2);
	assert_int_equal(tv.c[2].n, 1);              /* the failed run is not a value */
	assert_int_equal(tv.c[2].run_ids[0], x.c2pass);
	assert_true(tv.c[2].v[0] == 55);             /* the median of 50 and 60 */
	dbq_trend_values_release(&tv);
	assert_null(tv.c);

	assert_int_equal(dbq_trend_values(f->db, "linux", "bench", "ops", "x86_64", 4, &tv), 0);
	assert_int_equal(tv.n, 0);
	dbq_trend_values_release(&tv);
}

static void test_results(void **state)
{
	struct dbt *f = *state;
	struct dbq_trend_result *v;
	struct fleet x;
	size_t n;
	int trunc = -1;

	fill(f->db, &x);
	assert_int_equal(dbq_trend_results(f->db, "linux", "bench", "x86_64", 2, &v, &n,
					   &trunc), 0);
	assert_int_equal(trunc, 0);
	assert_int_equal(n, 5);
	assert_string_equal(v[0].commit, C3);
	assert_int_equal(v[0].order, -1);
	assert_int_equal(v[0].run_id, x.c3);
	assert_null(v[0].path);                      /* a run that stored no results */
	assert_null(v[0].status);
	assert_string_equal(v[1].commit, C1);
	assert_int_equal(v[1].run_id, x.a);
	assert_string_equal(v[1].path, "t:x");
	assert_string_equal(v[1].status, "pass");
	assert_int_equal(v[2].run_id, x.b);
	assert_null(v[2].path);
	assert_string_equal(v[3].commit, C2);
	assert_int_equal(v[3].order, 20);
	assert_int_equal(v[3].run_id, x.c2pass);
	assert_int_equal(v[4].run_id, x.c2fail);     /* failed runs count for results */
	assert_string_equal(v[4].status, "fail");
	dbq_trend_results_free(v, n);

	assert_int_equal(dbq_trend_results(f->db, "linux", "other", "x86_64", 2, &v, &n,
					   &trunc), 0);
	assert_int_equal(n, 0);
	dbq_trend_results_free(v, n);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
		T(test_series),
		T(test_values),
		T(test_results),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
