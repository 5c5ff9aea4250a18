// SPDX-License-Identifier: GPL-2.0-only
/* bisect_test.c: a bisection's record (db/bisections.c) and how a step's
 * runs are read for the rules (bisect/evidence.c): a bisection inserted
 * and read back, steps in order with an answer that is never changed
 * once given, a step's runs with the test's status and the metric's mean,
 * queued runs canceled with the bisection; and the symptom, clean and
 * "other" counts for a job, a test, a crash and a metric. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <math.h>
#include <sqlite3.h>

#include "bisect/bisect.h"
#include "db/bisections.h"
#include "db/db.h"
#include "t/unit/testutil.h"

#define G40 "1111111111111111111111111111111111111111"
#define B40 "2222222222222222222222222222222222222222"
#define M40 "3333333333333333333333333333333333333333"

struct fixture {
	char dir[128];
	char *path;
	struct db *db;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *err = NULL;

	tu_tmpdir(f->dir, sizeof(f->dir), "dbbisect");
	f->path = tu_path(f->dir, "kfleet.db");
	f->db = db_open(f->path, &err);
	if (!f->db) {
		fprintf(stderr, "db_open: %s\n", err ? err : "?");
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

static void sql(struct fixture *f, const char *q)
{
	sqlite3 *s;

	assert_int_equal(sqlite3_open(f->path, &s), SQLITE_OK);
	sqlite3_busy_timeout(s, 5000);
	assert_int_equal(sqlite3_exec(s, q, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
}

static int64_t new_bisection(struct fixture *f, const char *kind, const char *target)
{
	struct bisection b = { .tree = "linux", .good = G40, .bad = B40, .good_spec = "v6.1",
			       .bad_spec = "HEAD", .job = "j", .kind = (char *)kind,
			       .target = (char *)target, .higher_better = 1, .arch = "x86_64",
			       .vcpus = 2, .repeats = 5 };

	assert_int_equal(db_bisection_insert(f->db, &b), 0);
	assert_true(b.id > 0);
	return b.id;
}

static void test_insert_get_end(void **state)
{
	struct fixture *f = *state;
	int64_t id = new_bisection(f, "metric", "ops");
	struct bisection b, *rows;
	size_t n;

	assert_int_equal(db_bisection_get(f->db, id, &b), 1);
	assert_string_equal(b.state, "ends");
	assert_string_equal(b.kind, "metric");
	assert_string_equal(b.target, "ops");
	assert_string_equal(b.bad_spec, "HEAD");
	assert_int_equal(b.higher_better, 1);
	assert_int_equal(b.repeats, 5);
	assert_true(isnan(b.change_pct) && isnan(b.error));
	assert_null(b.culprit);
	db_bisection_release(&b);
	assert_int_equal(db_bisection_get(f->db, id + 1, &b), 0);

	assert_int_equal(db_bisection_set_change(f->db, id, -12.5), 0);
	/* the culprit found: verifying, not ended */
	assert_int_equal(db_bisection_end(f->db, id, "verifying", M40, NULL, NULL, "checking",
					  0.004), 0);
	assert_int_equal(db_bisection_list(f->db, 1, 10, &rows, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(rows[0].culprit, M40);
	assert_true(rows[0].ended_at == 0);
	assert_true(fabs(rows[0].change_pct + 12.5) < 1e-9);
	db_bisection_free_rows(rows, n);
	assert_int_equal(db_bisection_end(f->db, id, "done", M40, NULL, "verified", "found",
					  0.004), 0);
	assert_int_equal(db_bisection_list(f->db, 1, 10, &rows, &n), 0);
	assert_int_equal(n, 0);
	db_bisection_free_rows(rows, n);
	assert_int_equal(db_bisection_get(f->db, id, &b), 1);
	assert_string_equal(b.verdict, "verified");
	assert_true(b.ended_at > 0);
	assert_true(fabs(b.error - 0.004) < 1e-12);
	db_bisection_release(&b);
}

static void test_steps_decided_once(void **state)
{
	struct fixture *f = *state;
	int64_t id = new_bisection(f, "job", NULL), s0, s1;
	struct bisection_step *st;
	size_t n;

	assert_int_equal(db_bisection_step_add(f->db, id, 0, G40, "Linux 6.1", "A <a@b>", "good",
					       -1, 5, &s0), 0);
	assert_int_equal(db_bisection_step_add(f->db, id, 1, M40, "mm: x", NULL, "step", 7,
					       -1, &s1), 0);
	/* a second step 1 is refused */
	assert_int_equal(db_bisection_step_add(f->db, id, 1, B40, NULL, NULL, "step", 3, -1, &s1), -1);
	assert_int_equal(db_bisection_step_decide(f->db, s1, "bad", "the symptom in 1 of 1 runs",
						  NAN), 0);
	/* decided: a later answer does not replace it */
	assert_int_equal(db_bisection_step_decide(f->db, s1, "good", "later", 0.5), 0);
	assert_int_equal(db_bisection_steps(f->db, id, &st, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(st[0].role, "good");
	assert_string_equal(st[0].author, "A <a@b>");
	assert_null(st[0].answer);
	assert_int_equal(st[0].commits_left, -1);
	assert_int_equal(st[0].commit_order, 5);
	assert_int_equal(st[1].commit_order, -1);
	assert_string_equal(st[1].answer, "bad");
	assert_string_equal(st[1].why, "the symptom in 1 of 1 runs");
	assert_true(isnan(st[1].error));
	assert_int_equal(st[1].commits_left, 7);
	assert_true(st[1].decided_at > 0);
	db_bisection_steps_free(st, n);
}

/* A submission with three runs: passed with the test passing and ops
 * 10 and 20, failed with the test failing, and one still queued */
static void test_step_runs_and_cancel(void **state)
{
	struct fixture *f = *state;
	int64_t id = new_bisection(f, "test", "t/a"), s0;
	struct bisection_run *r;
	size_t n;

	assert_int_equal(db_bisection_step_add(f->db, id, 0, G40, NULL, NULL, "good", -1, -1, &s0), 0);
	sql(f, "INSERT INTO kernels (id, source, path, arch, sha256, created_at)"
	       " VALUES (1, 'built', '/k', 'x86_64', 'ab', 1);"
	       "INSERT INTO submissions (id, created_at, tree, arches, config, state)"
	       " VALUES (7, 1, 'linux', 'x86_64', 'tinyconfig', 'testing');"
	       "INSERT INTO runs (id, kernel_id, arch, vcpus, memory_mb, timeout_s, command, state,"
	       " outcome, queued_at, submission_id) VALUES"
	       " (1, 1, 'x86_64', 2, 512, 60, 'c', 'done', 'passed', 1, 7),"
	       " (2, 1, 'x86_64', 2, 512, 60, 'c', 'done', 'failed', 1, 7),"
	       " (3, 1, 'x86_64', 2, 512, 60, 'c', 'queued', NULL, 1, 7);"
	       "INSERT INTO results (run_id, path, status) VALUES (1, 't/a', 'pass'),"
	       " (1, 't/b', 'fail'), (2, 't/a', 'fail');"
	       "INSERT INTO samples (run_id, metric, value) VALUES (1, 'ops', 10), (1, 'ops', 20);");
	assert_int_equal(db_bisection_step_link(f->db, s0, 7), 0);
	assert_int_equal(db_bisection_step_link(f->db, s0, 7), 0);   /* once */
	assert_int_equal(db_bisection_step_runs(f->db, s0, "t/a", "ops", &r, &n), 0);
	assert_int_equal(n, 3);
	assert_true(r[0].done && !strcmp(r[0].outcome, "passed"));
	assert_string_equal(r[0].test_status, "pass");
	assert_true(r[0].have_value && fabs(r[0].value - 15) < 1e-9);
	assert_string_equal(r[1].test_status, "fail");
	assert_false(r[1].have_value);
	assert_false(r[2].done);
	assert_null(r[2].test_status);
	db_bisection_runs_free(r, n);
	/* canceling the bisection cancels its queued run, not the ended ones */
	assert_int_equal(db_bisection_cancel_runs(f->db, id), 1);
	assert_int_equal(db_bisection_step_runs(f->db, s0, NULL, NULL, &r, &n), 0);
	assert_true(r[2].done && !strcmp(r[2].outcome, "canceled"));
	assert_string_equal(r[0].outcome, "passed");
	db_bisection_runs_free(r, n);
}

/* A revert is a series' submission: its runs are a request's, and only
 * those of the patched kernel (bad with the revert) count for the step */
static void test_revert_runs_are_the_patched_kernels(void **state)
{
	struct fixture *f = *state;
	int64_t id = new_bisection(f, "job", NULL), s0;
	struct bisection_run *r;
	size_t n;

	assert_int_equal(db_bisection_step_add(f->db, id, 0, B40, NULL, NULL, "revert", -1, -1,
					       &s0), 0);
	sql(f, "INSERT INTO kernels (id, source, path, arch, sha256, created_at) VALUES"
	       " (1, 'built', '/bad', 'x86_64', 'ab', 1), (2, 'built', '/rev', 'x86_64', 'cd', 1);"
	       "INSERT INTO submissions (id, created_at, tree, arches, config, state)"
	       " VALUES (9, 1, 'linux', 'x86_64', 'tinyconfig', 'testing');"
	       "INSERT INTO requests (id, created_at, base_kernel_id, patched_kernel_id, repeats,"
	       " submission_id) VALUES (4, 1, 1, 2, 2, 9);"
	       "INSERT INTO runs (id, kernel_id, request_id, arch, vcpus, memory_mb, timeout_s,"
	       " command, state, outcome, queued_at) VALUES"
	       " (11, 1, 4, 'x86_64', 2, 512, 60, 'c', 'done', 'failed', 1),"
	       " (12, 2, 4, 'x86_64', 2, 512, 60, 'c', 'done', 'passed', 1),"
	       " (13, 1, 4, 'x86_64', 2, 512, 60, 'c', 'queued', NULL, 1),"
	       " (14, 2, 4, 'x86_64', 2, 512, 60, 'c', 'queued', NULL, 1);");
	assert_int_equal(db_bisection_step_link(f->db, s0, 9), 0);
	assert_int_equal(db_bisection_step_runs(f->db, s0, NULL, NULL, &r, &n), 0);
	assert_int_equal(n, 2);
	assert_true(r[0].run_id == 12 && r[1].run_id == 14);
	assert_int_equal(r[0].submission_id, 9);
	db_bisection_runs_free(r, n);
	/* a cancel takes both queued runs of the request */
	assert_int_equal(db_bisection_cancel_runs(f->db, id), 2);
}

/* Builds ahead: after every other queued submission, and the one the
 * answer does not need is not built if it has not started */
static void test_speculative_builds(void **state)
{
	struct fixture *f = *state;
	int64_t id = new_bisection(f, "job", NULL), other = new_bisection(f, "job", NULL);
	struct submission s = { .tree = "linux", .arches = "x86_64", .config = "tinyconfig",
				 .jobs = "j" }, got;
	int64_t spec_a, spec_b, real;

	s.speculative = 1;
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	spec_a = s.id;
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	spec_b = s.id;
	s.speculative = 0;
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	real = s.id;
	assert_int_equal(db_bisection_spec_add(f->db, id, spec_a, M40), 0);
	assert_int_equal(db_bisection_spec_add(f->db, id, spec_b, B40), 0);
	assert_int_equal(db_bisection_spec_has(f->db, id, M40), 1);
	assert_int_equal(db_bisection_spec_has(f->db, other, M40), 0);
	/* the later, real one is built first */
	assert_int_equal(db_submission_next(f->db, &got), 1);
	assert_true(got.id == real && got.speculative == 0);
	db_row_release(db_submission_fields, &got, sizeof(got));
	/* the step went to A: B is not built; A still is */
	assert_int_equal(db_bisection_spec_drop(f->db, id, M40), 1);
	assert_int_equal(db_bisection_spec_drop(f->db, id, M40), 0);
	assert_int_equal(db_submission_end(f->db, real, "done", NULL, NULL, NULL), 0);
	assert_int_equal(db_submission_next(f->db, &got), 1);
	assert_true(got.id == spec_a && got.speculative == 1);
	db_row_release(db_submission_fields, &got, sizeof(got));
	assert_int_equal(db_submission_get(f->db, spec_b, &got), 1);
	assert_string_equal(got.state, "done");
	db_row_release(db_submission_fields, &got, sizeof(got));
	/* one that started building is not dropped, even when the bisection ends */
	sql(f, "UPDATE bisections SET state = 'done'");
	assert_int_equal(db_bisection_spec_drop(f->db, 0, NULL), 0);
}

static void test_evidence(void **state)
{
	struct bisection_run runs[] = {
		{ .done = 1, .outcome = "passed", .test_status = "pass", .have_value = 1, .value = 5 },
		{ .done = 1, .outcome = "failed", .test_status = "fail" },
		{ .done = 1, .outcome = "failed", .test_status = "pass" },   /* another test failed */
		{ .done = 1, .outcome = "no-boot" },
		{ .done = 1, .outcome = "crash", .splat = "BUG: x" },
		{ .done = 1, .outcome = "canceled" },
		{ .done = 0 },
	};
	size_t n = sizeof(runs) / sizeof(runs[0]);
	struct bisect_evidence e;
	struct buf b = BUF_INIT(0);

	(void)state;
	/* the job failing: the two failed runs are the symptom */
	assert_int_equal(bisect_evidence_read(BISECT_KIND_JOB, NULL, runs, n, &e), 0);
	assert_int_equal(e.pf.runs, 5);
	assert_int_equal(e.pf.seen, 2);
	assert_int_equal(e.pf.other, 2);
	assert_int_equal(e.pending, 1);
	bisect_evidence_describe(BISECT_KIND_JOB, &e, &b);
	assert_string_equal(buf_str(&b), "5 runs: symptom in 2, 2 failed otherwise (1 not ended)");
	bisect_evidence_release(&e);
	/* one test: only its own failure; a run without it says nothing */
	assert_int_equal(bisect_evidence_read(BISECT_KIND_TEST, NULL, runs, n, &e), 0);
	assert_int_equal(e.pf.seen, 1);
	assert_int_equal(e.pf.other, 2);
	assert_int_equal(e.pf.runs - e.pf.seen - e.pf.other, 2);
	bisect_evidence_release(&e);
	/* a crash: a failed or passed run is clean, a no-boot is not */
	assert_int_equal(bisect_evidence_read(BISECT_KIND_CRASH, NULL, runs, n, &e), 0);
	assert_int_equal(e.pf.seen, 1);
	assert_int_equal(e.pf.other, 1);
	bisect_evidence_release(&e);
	/* a crash with a signature: another crash is a failure for another reason */
	assert_int_equal(bisect_evidence_read(BISECT_KIND_CRASH, "WARNING in fake_fn", runs, n, &e), 0);
	assert_int_equal(e.pf.seen, 0);
	assert_int_equal(e.pf.other, 2);
	assert_string_equal(e.other_crash, "BUG: x");
	buf_reset(&b);
	bisect_evidence_describe(BISECT_KIND_CRASH, &e, &b);
	assert_string_equal(buf_str(&b), "5 runs: symptom in 0, 2 failed otherwise (a crash with "
			    "another signature: BUG: x) (1 not ended)");
	bisect_evidence_release(&e);
	assert_int_equal(bisect_evidence_read(BISECT_KIND_CRASH, "BUG: x", runs, n, &e), 0);
	assert_int_equal(e.pf.seen, 1);
	bisect_evidence_release(&e);
	/* a metric: the one passed run with a value */
	assert_int_equal(bisect_evidence_read(BISECT_KIND_METRIC, NULL, runs, n, &e), 0);
	assert_int_equal(e.nv, 1);
	assert_true(e.v[0] == 5);
	assert_int_equal(e.other, 4);
	bisect_evidence_release(&e);
	buf_release(&b);
	assert_string_equal(bisect_kind_name(BISECT_KIND_METRIC), "metric");
	{
		/* the bad end's signature: the title most of its crashes have */
		struct bisection_run c[] = {
			{ .done = 1, .outcome = "crash", .splat = "WARNING: CPU: 0 PID: 1 at a.c:1 g+0x1/0x2\n" },
			{ .done = 1, .outcome = "crash", .splat = "WARNING: CPU: 1 PID: 9 at a.c:3 f+0x1/0x2\n" },
			{ .done = 1, .outcome = "passed" },
			{ .done = 1, .outcome = "crash", .splat = "WARNING: CPU: 0 PID: 4 at a.c:3 f+0x5/0x9\n" },
		};
		char t[CRASH_TITLE_MAX];

		assert_int_equal(bisect_crash_signature(c, 4, t, sizeof(t)), 0);
		assert_string_equal(t, "WARNING in f");
		assert_int_equal(bisect_crash_signature(c + 2, 1, t, sizeof(t)), -1);
	}
	{
		enum bisect_kind k;

		assert_int_equal(bisect_kind_parse("crash", &k), 0);
		assert_int_equal(k, BISECT_KIND_CRASH);
		assert_int_equal(bisect_kind_parse("slow", &k), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_insert_get_end, setup, teardown),
		cmocka_unit_test_setup_teardown(test_steps_decided_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_step_runs_and_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_speculative_builds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_revert_runs_are_the_patched_kernels, setup,
						teardown),
		cmocka_unit_test(test_evidence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
