// SPDX-License-Identifier: GPL-2.0-only
/* neighbours_test.c: a run's quiet record (db/neighbours.c) from start to
 * end, and the claim's wait for cores (db/runs.c): a run of a job to pin
 * is not claimed while fewer cores than its vCPUs are free, the runs
 * behind it are. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <limits.h>
#include <cmocka.h>

#include "t/unit/db/dbtest.h"

static void test_record(void **state)
{
	struct dbt *f = *state;
	struct run_request a = dbt_req("/k", DBT_SHA_A, "getpgid-rate", 1);
	struct run_quiet q;
	int64_t id = 0;

	dbt_host(f->db, "h1");
	assert_int_equal(db_run_insert(f->db, &a, &id), 0);
	assert_int_equal(db_quiet_get(f->db, id, &q), 0);
	assert_int_equal(db_quiet_begin(f->db, id, 1, "pinned", "1", NULL, "avoid", 0.5), 0);
	assert_int_equal(db_quiet_get(f->db, id, &q), 1);
	assert_string_equal(q.pin, "pinned");
	assert_string_equal(q.cores, "1");
	assert_null(q.why);
	assert_int_equal(q.has_load_start, 1);
	assert_true(q.load_start == 0.5);
	assert_int_equal(q.has_load_end, 0);
	assert_int_equal(q.ended, 0);
	db_quiet_release(&q);
	assert_int_equal(db_quiet_end(f->db, id, "12:1 13:16", "5 6:paused", -1), 0);
	assert_int_equal(db_quiet_get(f->db, id, &q), 1);
	assert_string_equal(q.runs, "12:1 13:16");
	assert_string_equal(q.builds, "5 6:paused");
	assert_int_equal(q.has_load_end, 0);   /* not known: NULL, not 0 */
	assert_int_equal(q.ended, 1);
	db_quiet_release(&q);
	/* a second attempt starts afresh */
	assert_int_equal(db_quiet_begin(f->db, id, 2, "unpinned", NULL, "why", "pause", -1), 0);
	assert_int_equal(db_quiet_get(f->db, id, &q), 1);
	assert_int_equal(q.attempt, 2);
	assert_null(q.runs);
	assert_int_equal(q.has_load_start, 0);
	assert_string_equal(q.why, "why");
	db_quiet_release(&q);
}

static void test_claim_waits(void **state)
{
	struct dbt *f = *state;
	struct run_request bench = dbt_req("/k", DBT_SHA_A, "getpgid-rate", 1);
	struct run_request wide = dbt_req("/k", DBT_SHA_A, "getpgid-rate", 4);
	struct run_request plain = dbt_req("/k", DBT_SHA_A, NULL, 1);
	struct claim_fit fit = { INT_MAX, INT_MAX, INT_MAX, 0, 0, ",getpgid-rate,", 1, 0, 0, 0, 0, 0 };
	int64_t b = 0, w = 0, p = 0;
	struct run r;

	dbt_host(f->db, "h1");
	assert_int_equal(db_run_insert(f->db, &bench, &b), 0);
	assert_int_equal(db_run_insert(f->db, &wide, &w), 0);
	assert_int_equal(db_run_insert(f->db, &plain, &p), 0);
	/* no core free: the benchmark waits; one wider than the host's cores
	 * to pin cannot wait for them and is taken (it runs unpinned) */
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 1);
	assert_int_equal(r.id, w);
	run_release(&r);
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 1);
	assert_int_equal(r.id, p);
	run_release(&r);
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 0);
	/* its core free: taken */
	fit.pin_free = 1;
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 1);
	assert_int_equal(r.id, b);
	run_release(&r);
}

static void test_claim_all(void **state)
{
	struct dbt *f = *state;
	struct run_request plain = dbt_req("/k", DBT_SHA_A, NULL, 2);
	struct claim_fit fit = { INT_MAX, INT_MAX, INT_MAX, 0, 0, "*", 3, 1, 0, 0, 0, 0 };
	int64_t p = 0;
	struct run r;

	dbt_host(f->db, "h1");
	assert_int_equal(db_run_insert(f->db, &plain, &p), 0);
	/* pin = yes: a plain command waits too */
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 0);
	fit.pin_jobs = NULL;
	assert_int_equal(db_run_claim_fit(f->db, "h1", &fit, &r), 1);
	run_release(&r);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_record),
		T(test_claim_waits),
		T(test_claim_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
