// SPDX-License-Identifier: GPL-2.0-only
/* calib_test.c: unit tests for db/calib.c: a job's passed runs give one
 * value per run and metric (the median of its samples) with the run's
 * kernel, grouped by arch, vCPUs and metric; failed runs and other jobs
 * do not count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/db/dbtest.h"

/* A run of job on kernel path with vcpus that ended with o, with samples
 * of "ops" (and one of "lat" at 7) */
static int64_t run(struct db *db, const char *path, const char *job, int vcpus,
		   enum run_outcome o, const double *ops, size_t n)
{
	struct run_request req = dbt_req(path, DBT_SHA_A, job, vcpus);
	struct sample_row smp[5];
	int64_t id = dbt_run_done(db, "h1", &req, o);

	for (size_t i = 0; i < n; i++)
		smp[i] = (struct sample_row){ "ops", "ops/s", ops[i], (int)i };
	smp[n] = (struct sample_row){ "lat", "us", 7, (int)n };
	assert_int_equal(db_run_store_results(db, id, NULL, 0, smp, n + 1), 0);
	return id;
}

static void test_series(void **state)
{
	static const double a[] = { 10, 30, 20 }, b[] = { 40, 50 }, c[] = { 60 }, d[] = { 99 };
	struct dbt *f = *state;
	struct db_calib_series *v;
	size_t n;
	int trunc;

	dbt_host(f->db, "h1");
	run(f->db, "/k/1", "bench", 2, RUN_OUT_PASSED, a, 3);
	run(f->db, "/k/1", "bench", 2, RUN_OUT_PASSED, b, 2);
	run(f->db, "/k/2", "bench", 2, RUN_OUT_PASSED, c, 1);
	run(f->db, "/k/2", "bench", 2, RUN_OUT_FAILED, d, 1);
	run(f->db, "/k/2", "bench", 4, RUN_OUT_PASSED, c, 1);
	run(f->db, "/k/2", "other", 2, RUN_OUT_PASSED, d, 1);
	assert_int_equal(db_calib_series(f->db, "bench", &v, &n, &trunc), 0);
	assert_int_equal(trunc, 0);
	/* x86_64 2 lat, 2 ops, 4 lat, 4 ops */
	assert_int_equal(n, 4);
	assert_string_equal(v[0].metric, "lat");
	assert_int_equal(v[0].vcpus, 2);
	assert_int_equal(v[0].n, 3);
	assert_string_equal(v[1].metric, "ops");
	assert_string_equal(v[1].unit, "ops/s");
	assert_string_equal(v[1].arch, "x86_64");
	assert_int_equal(v[1].n, 3);
	assert_true(v[1].v[0] == 20 && v[1].v[1] == 45 && v[1].v[2] == 60);
	assert_true(v[1].kernel[0] == v[1].kernel[1]);
	assert_true(v[1].kernel[1] != v[1].kernel[2]);
	assert_int_equal(v[3].vcpus, 4);
	assert_int_equal(v[3].n, 1);
	db_calib_free(v, n);
	assert_int_equal(db_calib_series(f->db, "none", &v, &n, &trunc), 0);
	assert_int_equal(n, 0);
	db_calib_free(v, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_series, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
