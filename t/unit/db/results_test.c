// SPDX-License-Identifier: GPL-2.0-only
/* results_test.c: unit tests for db/results.c: a run's results and
 * samples stored, replaced as a whole by a later store, read back with
 * the ones that did not pass first and the counts per status, bounded by
 * a limit; samples by metric and seq. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/db/dbtest.h"

static void test_results(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/a", DBT_SHA_A, "ktap", 2);
	struct result_row res[] = {
		{ "t:pass1", "pass", NULL }, { "t:skip", "skip", "no module" },
		{ "t:fail", "fail", "exit 1" }, { "t:pass0", "pass", NULL },
		{ "t:xfail", "xfail", NULL }, { "t:miss", "missing", NULL },
	};
	struct result_row *v;
	int64_t counts[7], id;
	size_t n;

	dbt_host(f->db, "h1");
	id = dbt_run_done(f->db, "h1", &a, RUN_OUT_FAILED);
	assert_int_equal(db_run_store_results(f->db, id, res, 6, NULL, 0), 0);
	assert_int_equal(db_run_results(f->db, id, 100, &v, &n, counts), 0);
	assert_int_equal(n, 6);
	/* fail, error, timeout, missing first, then skip and xfail, then pass */
	assert_string_equal(v[0].path, "t:fail");
	assert_string_equal(v[0].detail, "exit 1");
	assert_string_equal(v[1].path, "t:miss");
	assert_string_equal(v[2].path, "t:skip");
	assert_string_equal(v[2].status, "skip");
	assert_string_equal(v[2].detail, "no module");
	assert_string_equal(v[3].path, "t:xfail");
	assert_string_equal(v[4].path, "t:pass0");
	assert_string_equal(v[5].path, "t:pass1");
	assert_null(v[5].detail);
	result_rows_free(v, n);
	assert_int_equal(counts[0], 2);   /* pass */
	assert_int_equal(counts[1], 1);   /* fail */
	assert_int_equal(counts[2], 1);   /* skip */
	assert_int_equal(counts[3], 1);   /* xfail */
	assert_int_equal(counts[4], 0);   /* error */
	assert_int_equal(counts[5], 0);   /* timeout */
	assert_int_equal(counts[6], 1);   /* missing */

	/* a limit bounds the rows, not the counts */
	assert_int_equal(db_run_results(f->db, id, 2, &v, &n, counts), 0);
	assert_int_equal(n, 2);
	assert_int_equal(counts[0], 2);
	result_rows_free(v, n);
	assert_int_equal(db_run_results(f->db, id, 0, &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_null(v);
	/* pages of it: the same order, from an offset */
	assert_int_equal(db_run_results_at(f->db, id, 3, 2, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].path, "t:xfail");
	assert_string_equal(v[1].path, "t:pass0");
	result_rows_free(v, n);
	assert_int_equal(db_run_results_at(f->db, id, 5, 10, &v, &n, NULL), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "t:pass1");
	result_rows_free(v, n);
	assert_int_equal(db_run_results_at(f->db, id, 6, 10, &v, &n, NULL), 0);
	assert_int_equal(n, 0);
	assert_int_equal(db_run_results_at(f->db, id, -1, 10, &v, &n, NULL), -1);

	/* a later store replaces them */
	assert_int_equal(db_run_store_results(f->db, id, res + 3, 1, NULL, 0), 0);
	assert_int_equal(db_run_results(f->db, id, 100, &v, &n, counts), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].path, "t:pass0");
	assert_int_equal(counts[1], 0);
	result_rows_free(v, n);
}

static void test_samples(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k/a", DBT_SHA_A, "bench", 2);
	struct sample_row smp[] = {
		{ "ops", "ops/s", 1500.5, 1 }, { "lat", "us", 12.25, 0 },
		{ "ops", "ops/s", 1400.0, 0 }, { "count", NULL, 3, 0 },
	};
	struct result_row bad = { "x", "not-a-status", NULL };
	struct sample_row *v;
	int64_t id;
	size_t n;

	dbt_host(f->db, "h1");
	id = dbt_run_done(f->db, "h1", &a, RUN_OUT_PASSED);
	assert_int_equal(db_run_store_results(f->db, id, NULL, 0, smp, 4), 0);
	assert_int_equal(db_run_samples(f->db, id, 100, &v, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(v[0].metric, "count");
	assert_null(v[0].unit);
	assert_true(v[0].value == 3);
	assert_string_equal(v[1].metric, "lat");
	assert_string_equal(v[1].unit, "us");
	assert_true(v[1].value == 12.25);
	assert_string_equal(v[2].metric, "ops");
	assert_int_equal(v[2].seq, 0);
	assert_true(v[2].value == 1400.0);
	assert_int_equal(v[3].seq, 1);
	assert_true(v[3].value == 1500.5);
	sample_rows_free(v, n);
	assert_int_equal(db_run_sample_count(f->db, id), 4);
	assert_int_equal(db_run_samples_at(f->db, id, 2, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].metric, "ops");
	assert_int_equal(v[0].seq, 0);
	sample_rows_free(v, n);
	assert_int_equal(db_run_samples(f->db, id, 1, &v, &n), 0);
	assert_int_equal(n, 1);
	sample_rows_free(v, n);
	assert_int_equal(db_run_samples(f->db, id, -1, &v, &n), -1);

	/* a row the schema refuses rolls the whole store back */
	assert_int_equal(db_run_store_results(f->db, id, &bad, 1, NULL, 0), -1);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM samples"), 4);
	assert_int_equal(sqlite3_get_autocommit(db_sqlite(f->db)), 1);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
		T(test_results),
		T(test_samples),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
