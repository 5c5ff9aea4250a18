// SPDX-License-Identifier: GPL-2.0-only
/* cancel_test.c: unit tests for db/cancel.c, a user's cancel: queued runs
 * end canceled and are never claimed; a running run is marked, ends as
 * canceled whatever its worker reports (an infrastructure failure is not
 * retried) and after a restart's recovery; a finished run is left as it
 * is; a request's runs and a submission's (its builds not started, its
 * state) go together; a deciding request queues no more rounds; every
 * cancel may be repeated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "db/db.h"
#include "t/unit/db/dbtest.h"

/* run id's "state outcome" */
static void want_run(struct db *db, int64_t id, const char *want)
{
	char sql[128], *got;

	snprintf(sql, sizeof(sql), "SELECT state || ' ' || coalesce(outcome, '-') FROM runs"
		 " WHERE id = %lld", (long long)id);
	got = dbt_sql_text(db, sql);
	if (strcmp(got, want))
		fail_msg("run %lld: '%s', want '%s'", (long long)id, got, want);
	free(got);
}

static void want_counts(const struct db_cancel *c, int canceled, int stopping, int already,
			int ended)
{
	if (c->canceled != canceled || c->stopping != stopping || c->already != already ||
	    c->ended != ended)
		fail_msg("canceled %d stopping %d already %d ended %d, want %d %d %d %d",
			 c->canceled, c->stopping, c->already, c->ended, canceled, stopping,
			 already, ended);
}

static void test_queued_run(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct run r;
	int64_t a, b;

	dbt_host(f->db, "local");
	a = dbt_insert_run(f->db, "sleep 600", 2);
	b = dbt_insert_run(f->db, "true", 2);
	assert_int_equal(db_run_cancel(f->db, a, "canceled by the user", &c), 1);
	want_counts(&c, 1, 0, 0, 0);
	assert_false(db_cancel_nothing(&c));
	want_run(f->db, a, "done canceled");
	dbt_get(f->db, a, &r);
	assert_string_equal(r.detail, "canceled by the user");
	assert_true(r.ended_at > 0);
	assert_int_equal(r.attempt, 0);         /* it never started */
	run_release(&r);
	/* never claimed: the next claim is the run after it */
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.id, b);
	run_release(&r);
	/* again: nothing more, not an error */
	assert_int_equal(db_run_cancel(f->db, a, "again", &c), 1);
	want_counts(&c, 0, 0, 1, 0);
	assert_false(db_cancel_nothing(&c));
	want_run(f->db, a, "done canceled");
	/* no such run */
	assert_int_equal(db_run_cancel(f->db, 99999, "x", &c), 0);
}

static void test_running_run(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct run r;
	int64_t id;

	dbt_host(f->db, "local");
	id = dbt_insert_run(f->db, "sleep 600", 3);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_cancel_asked(f->db, id), 0);
	assert_int_equal(db_run_cancel(f->db, id, "canceled by the user", &c), 1);
	want_counts(&c, 0, 1, 0, 0);
	/* still running: its worker stops it */
	want_run(f->db, id, "running -");
	assert_int_equal(db_run_cancel_asked(f->db, id), 1);
	assert_int_equal(db_run_cancel(f->db, id, "again", &c), 1);
	want_counts(&c, 0, 0, 1, 0);
	/* the worker saw the guest die first: an infrastructure failure,
	 * which would be retried, ends as canceled instead */
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_INFRA, "QEMU died", NULL, 0, 0), 0);
	want_run(f->db, id, "done canceled");
	dbt_get(f->db, id, &r);
	assert_string_equal(r.detail,
			    "canceled by the user while it ran (it was ending as infra: QEMU died)");
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT outcome = 'canceled' FROM attempts"), 1);
	/* done now: canceled before */
	assert_int_equal(db_run_cancel(f->db, id, "again", &c), 1);
	want_counts(&c, 0, 0, 1, 0);
}

static void test_running_run_worker_says(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct run r;
	int64_t id;

	dbt_host(f->db, "local");
	id = dbt_insert_run(f->db, "sleep 600", 1);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_cancel(f->db, id, "canceled by the user", &c), 1);
	/* the worker's own words are kept */
	assert_int_equal(db_run_finish(f->db, id, RUN_OUT_CANCELED,
				       "canceled by the user while it ran", NULL, 0, 0), 0);
	dbt_get(f->db, id, &r);
	assert_int_equal(r.outcome, RUN_OUT_CANCELED);
	assert_string_equal(r.detail, "canceled by the user while it ran");
	run_release(&r);
}

static void test_recover(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct run r;
	char **doms = NULL;
	size_t n = 0;
	int64_t id, other;

	dbt_host(f->db, "local");
	id = dbt_insert_run(f->db, "sleep 600", 3);
	other = dbt_insert_run(f->db, "sleep 600", 3);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	run_release(&r);
	assert_int_equal(db_run_cancel(f->db, id, "canceled by the user", &c), 1);
	/* kfleetd died before the worker stopped it: canceled, not retried;
	 * the other run in flight is retried as before */
	assert_int_equal(db_recover(f->db, &doms, &n), 0);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++)
		free(doms[i]);
	free(doms);
	want_run(f->db, id, "done canceled");
	want_run(f->db, other, "queued -");
}

static void test_finished_run(void **state)
{
	struct dbt *f = *state;
	struct run_request req = dbt_req("/boot/vmlinuz-a", DBT_SHA_A, NULL, 1);
	struct db_cancel c;
	struct run r;
	int64_t id;

	dbt_host(f->db, "local");
	id = dbt_run_done(f->db, "local", &req, RUN_OUT_FAILED);
	assert_int_equal(db_run_cancel(f->db, id, "canceled by the user", &c), 1);
	want_counts(&c, 0, 0, 0, 1);
	assert_true(db_cancel_nothing(&c));
	want_run(f->db, id, "done failed");
	dbt_get(f->db, id, &r);
	assert_null(r.detail);
	run_release(&r);
}

/* A request of base and patched, 3 a side; one ran and passed, one runs */
static int64_t request_of_six(struct dbt *f, int64_t *running, const struct request_mode *m)
{
	struct run_request base = dbt_req("/boot/vmlinuz-a", DBT_SHA_A, "churn", 2);
	struct run_request patched = dbt_req("/boot/vmlinuz-b", DBT_SHA_B, "churn", 2);
	struct run r;
	int64_t id;

	dbt_host(f->db, "local");
	assert_int_equal(db_request_insert_mode(f->db, &base, &patched, 3, m, &id), 0);
	dbt_claim_finish(f->db, "local", 0, RUN_OUT_PASSED);
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	*running = r.id;
	run_release(&r);
	return id;
}

static void test_request(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct run r;
	int64_t id, running, other;

	id = request_of_six(f, &running, NULL);
	other = dbt_insert_run(f->db, "true", 1);   /* not the request's */
	assert_int_equal(db_request_cancel(f->db, id, "canceled by the user", &c), 1);
	want_counts(&c, 4, 1, 0, 1);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM runs WHERE request_id = 1"
				     " AND outcome = 'canceled'"), 4);
	want_run(f->db, running, "running -");
	assert_int_equal(db_run_cancel_asked(f->db, running), 1);
	/* none of it is claimed; the run beside it is */
	assert_int_equal(db_run_claim(f->db, "local", &r), 1);
	assert_int_equal(r.id, other);
	run_release(&r);
	assert_int_equal(db_request_cancel(f->db, id, "again", &c), 1);
	want_counts(&c, 0, 0, 5, 1);
	assert_int_equal(db_request_cancel(f->db, 999, "x", &c), 0);
}

static void test_request_deciding(void **state)
{
	struct dbt *f = *state;
	struct request_mode m = { .until_decided = 1, .max_runs = 20 };
	struct db_cancel c;
	struct request q;
	int64_t id, running;

	id = request_of_six(f, &running, &m);
	assert_int_equal(db_request_cancel(f->db, id, "canceled by the user", &c), 1);
	assert_int_equal(db_request_get(f->db, id, &q), 1);
	assert_string_equal(q.decided, "canceled");
	assert_string_equal(q.stop_reason, "canceled by the user");
	request_release(&q);
	/* no round comes after it */
	assert_int_equal(db_request_round_add(f->db, id, 1, 2, "uncertain"), 0);
}

static void test_request_all_ended(void **state)
{
	struct dbt *f = *state;
	struct run_request base = dbt_req("/boot/vmlinuz-a", DBT_SHA_A, "churn", 2);
	struct run_request patched = dbt_req("/boot/vmlinuz-b", DBT_SHA_B, "churn", 2);
	struct db_cancel c;
	int64_t id;

	dbt_host(f->db, "local");
	assert_int_equal(db_request_insert(f->db, &base, &patched, 1, &id), 0);
	dbt_claim_finish(f->db, "local", 0, RUN_OUT_PASSED);
	dbt_claim_finish(f->db, "local", 0, RUN_OUT_CRASH);
	assert_int_equal(db_request_cancel(f->db, id, "canceled by the user", &c), 1);
	want_counts(&c, 0, 0, 0, 2);
	assert_true(db_cancel_nothing(&c));
}

static int64_t submission(struct dbt *f)
{
	struct submission s;

	memset(&s, 0, sizeof(s));
	s.tree = "linux";
	s.arches = "x86_64";
	s.config = "tinyconfig";
	s.jobs = "churn";
	s.repeats = 2;
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	return s.id;
}

static char *sub_state(struct dbt *f, int64_t id)
{
	char sql[160];

	snprintf(sql, sizeof(sql), "SELECT state || ' ' || coalesce(outcome, '-') || ' ' ||"
		 " coalesce(detail, '-') FROM submissions WHERE id = %lld", (long long)id);
	return dbt_sql_text(f->db, sql);
}

static void test_submission_building(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct submission s;
	int64_t queued, building;
	char *st;

	building = submission(f);
	queued = submission(f);
	assert_int_equal(db_submission_next(f->db, &s), 1);
	assert_int_equal(s.id, building);
	db_row_release(db_submission_fields, &s, sizeof(s));
	assert_int_equal(db_submission_canceled(f->db, building), 0);
	assert_int_equal(db_submission_cancel(f->db, building, "canceled by the user", &c), 1);
	assert_int_equal(c.sub_now, 1);
	assert_false(db_cancel_nothing(&c));
	assert_int_equal(db_submission_canceled(f->db, building), 1);
	st = sub_state(f, building);
	assert_string_equal(st, "failed canceled canceled by the user");
	free(st);
	/* the builder's end of the build in flight does not undo it */
	assert_int_equal(db_submission_end(f->db, building, "testing", NULL, NULL, NULL), 0);
	st = sub_state(f, building);
	assert_string_equal(st, "failed canceled canceled by the user");
	free(st);
	/* the builder takes the next one */
	assert_int_equal(db_submission_next(f->db, &s), 1);
	assert_int_equal(s.id, queued);
	db_row_release(db_submission_fields, &s, sizeof(s));
	/* and a queued one is canceled the same way; again is harmless */
	assert_int_equal(db_submission_cancel(f->db, queued, "canceled by the user", &c), 1);
	assert_int_equal(c.sub_now, 1);
	assert_int_equal(db_submission_cancel(f->db, queued, "again", &c), 1);
	assert_int_equal(c.sub_now, 0);
	assert_int_equal(c.sub_before, 1);
	assert_false(db_cancel_nothing(&c));
	assert_int_equal(db_submission_next(f->db, &s), 0);
	assert_int_equal(db_submission_cancel(f->db, 999, "x", &c), 0);
}

static void test_submission_testing(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct submission s;
	int64_t sid, rid, running, plain;
	char *st;

	sid = submission(f);
	rid = request_of_six(f, &running, NULL);
	plain = dbt_insert_run(f->db, "true", 1);
	assert_int_equal(db_submission_next(f->db, &s), 1);
	db_row_release(db_submission_fields, &s, sizeof(s));
	assert_int_equal(db_submission_link_request(f->db, sid, rid), 0);
	assert_int_equal(db_submission_link_run(f->db, sid, plain), 0);
	assert_int_equal(db_submission_end(f->db, sid, "testing", NULL, "arm64: no jobs", NULL), 0);
	assert_int_equal(db_submission_cancel(f->db, sid, "canceled by the user", &c), 1);
	want_counts(&c, 5, 1, 0, 1);
	assert_int_equal(c.sub_now, 0);
	want_run(f->db, plain, "done canceled");
	st = sub_state(f, sid);
	assert_string_equal(st, "testing canceled arm64: no jobs; canceled by the user");
	free(st);
	assert_int_equal(db_submission_cancel(f->db, sid, "again", &c), 1);
	want_counts(&c, 0, 0, 6, 1);
	assert_int_equal(c.sub_before, 1);
	st = sub_state(f, sid);
	assert_string_equal(st, "testing canceled arm64: no jobs; canceled by the user");
	free(st);
}

static void test_submission_ended(void **state)
{
	struct dbt *f = *state;
	struct db_cancel c;
	struct submission s;
	int64_t sid;
	char *st;

	sid = submission(f);
	assert_int_equal(db_submission_next(f->db, &s), 1);
	db_row_release(db_submission_fields, &s, sizeof(s));
	assert_int_equal(db_submission_end(f->db, sid, "failed", "build-failed", "x86_64: oops",
					   NULL), 0);
	assert_int_equal(db_submission_cancel(f->db, sid, "canceled by the user", &c), 1);
	assert_true(db_cancel_nothing(&c));
	st = sub_state(f, sid);
	assert_string_equal(st, "failed build-failed x86_64: oops");
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_queued_run, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_running_run, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_running_run_worker_says, dbt_setup,
						dbt_teardown),
		cmocka_unit_test_setup_teardown(test_recover, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_finished_run, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_request, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_request_deciding, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_request_all_ended, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_submission_building, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_submission_testing, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_submission_ended, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
