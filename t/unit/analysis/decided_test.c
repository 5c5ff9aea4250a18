// SPDX-License-Identifier: GPL-2.0-only
/* decided_test.c: unit tests for analysis/decided.c (decided_next, the
 * "queue more or stop" rule of a request run until decided), fed with
 * verdicts the real decision (cmp_report_add, fixed seeds) gives: noisy
 * A/A at 2 runs a side asks for more up to the cap, then stops at it
 * naming the metric; identical steady values stop at once as no change;
 * a clear shift stops as worse; a round without samples, a cancel and no
 * metric at all stop with their reasons; and whole loops with known truth
 * (A/A at 1% noise, a 10% shift at 3%) end decided, right, within the cap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "analysis/decided.h"
#include "t/unit/testutil.h"

#define SIDE_MAX 64

static struct cmp_cell cell = { "x86_64", 1, 512, "tcg", NULL, NULL, 1, NULL };

/* n values around 100 * f with CV cv */
static void fill(uint64_t *rng, double *v, size_t n, double f, double cv)
{
	for (size_t i = 0; i < n; i++)
		v[i] = 100 * f * (1 + cv * stats_normal(rng));
}

/* The rule's answer for one metric "ops" (higher is better) over the
 * values given, with queued runs a side so far and the cap */
static void decide(const double *b, size_t nb, const double *p, size_t np, int round,
		   int queued, int new_samples, int cap, struct decided_out *out,
		   enum cmp_verdict *v)
{
	struct cmp_report r;
	struct decided_metric m;
	struct decided_in in = { .m = &m, .nm = 1, .queued = queued,
				 .samples = { (int)nb, (int)np }, .new_samples = new_samples,
				 .round = round, .cap = cap };
	char err[128];

	assert_int_equal(cmp_report_init(&r, "j", "a", "b", &cell, &cell, err, sizeof(err)), 0);
	assert_int_equal(cmp_report_add(&r, "ops", "1/s", 1, b, nb, p, np), 0);
	m = (struct decided_metric){ r.v[0].name, r.v[0].verdict, r.v[0].runs_needed };
	assert_int_equal(decided_next(&in, out), 0);
	*v = r.v[0].verdict;
	cmp_report_release(&r);
}

static void test_noisy_more_then_cap(void **state)
{
	uint64_t rng = 0x5eed1;
	double b[4], p[4];
	struct decided_out out;
	enum cmp_verdict v;

	/* 30% noise: 2 runs a side settle nothing */
	fill(&rng, b, 4, 1, 0.3);
	fill(&rng, p, 4, 1, 0.3);
	decide(b, 2, p, 2, 1, 2, 4, 4, &out, &v);
	assert_int_equal(v, CMP_UNCERTAIN);
	assert_int_equal(out.action, DECIDED_MORE);
	assert_int_equal(out.pairs, 2);   /* it needs many more: the cap leaves 2 */
	assert_non_null(strstr(out.reason, "round 2: metric ops uncertain at 2 runs a side"));
	/* the round ran: 4 a side, the cap */
	decide(b, 4, p, 4, 2, 4, 4, 4, &out, &v);
	assert_int_equal(v, CMP_UNCERTAIN);
	assert_int_equal(out.action, DECIDED_CAP);
	assert_string_equal(decided_state_name(out.action), "cap");
	assert_non_null(strstr(out.reason, "cap reached (4 a side): metric ops still uncertain"));
}

static void test_steady_decided(void **state)
{
	const double b[] = { 125, 125 }, p[] = { 125, 125 };
	struct decided_out out;
	enum cmp_verdict v;

	decide(b, 2, p, 2, 1, 2, 4, 20, &out, &v);
	assert_int_equal(v, CMP_NO_CHANGE);
	assert_int_equal(out.action, DECIDED_DONE);
	assert_int_equal(out.pairs, 0);
	assert_string_equal(out.reason,
			    "decided: every metric better/worse/no change: ops no change");
}

static void test_shift_decided(void **state)
{
	uint64_t rng = 0x5eed2;
	double b[5], p[5];
	struct decided_out out;
	enum cmp_verdict v;

	fill(&rng, b, 5, 1, 0.01);
	fill(&rng, p, 5, 0.7, 0.01);
	decide(b, 5, p, 5, 1, 5, 10, 20, &out, &v);
	assert_int_equal(v, CMP_WORSE);
	assert_int_equal(out.action, DECIDED_DONE);
	assert_non_null(strstr(out.reason, "ops worse"));
}

static void test_failing_canceled_none(void **state)
{
	uint64_t rng = 0x5eed3;
	double b[3], p[3];
	struct decided_out out;
	enum cmp_verdict v;
	struct decided_in in = { .samples = { 0, 2 }, .round = 1, .queued = 2, .cap = 20,
				 .failing = "2 base runs crashed" };

	/* a later round whose runs all failed: more of the same would not help */
	fill(&rng, b, 3, 1, 0.3);
	fill(&rng, p, 3, 1, 0.3);
	decide(b, 3, p, 3, 2, 6, 0, 20, &out, &v);
	assert_int_equal(v, CMP_UNCERTAIN);
	assert_int_equal(out.action, DECIDED_FAILING);
	assert_string_equal(out.reason, "runs failing: round 2 gave no samples");
	/* no metric on both sides */
	assert_int_equal(decided_next(&in, &out), 0);
	assert_int_equal(out.action, DECIDED_FAILING);
	assert_non_null(strstr(out.reason, "no metric with samples on both sides (0 base, 2 "
			       "patched runs gave samples); 2 base runs crashed"));
	in.canceled = 1;
	assert_int_equal(decided_next(&in, &out), 0);
	assert_int_equal(out.action, DECIDED_CANCELED);
	assert_string_equal(out.reason, "canceled");
	in.cap = 0;
	assert_int_equal(decided_next(&in, &out), -1);
}

static void test_two_metrics_most_demanding(void **state)
{
	struct decided_metric m[] = {
		{ "ops", CMP_UNCERTAIN, 7 }, { "lat", CMP_NO_CHANGE, 0 },
		{ "ops", CMP_UNCERTAIN, 12 },   /* another cell's */
	};
	struct decided_in in = { .m = m, .nm = 3, .queued = 5, .samples = { 4, 5 },
				 .new_samples = 9, .round = 1, .cap = 10 };
	struct decided_out out;

	assert_int_equal(decided_next(&in, &out), 0);
	assert_int_equal(out.action, DECIDED_MORE);
	/* 12 wanted, 4 on the short side, the cap leaves 5 */
	assert_int_equal(out.pairs, 5);
	assert_non_null(strstr(out.reason, "metric ops uncertain at 4 runs a side, 12 would"));
	in.cap = 30;
	assert_int_equal(decided_next(&in, &out), 0);
	assert_int_equal(out.pairs, 8);
}

/* Whole loops with known truth, as orchestrator/decided.c runs them:
 * start at 2 runs a side, add what the rule says, stop where it says */
static enum decided_action loop(uint64_t seed, double f, double cv, int cap, int *runs,
				enum cmp_verdict *v)
{
	uint64_t rng = seed;
	double b[SIDE_MAX], p[SIDE_MAX];
	int n = 2, round = 1, added = 4;
	struct decided_out out;

	fill(&rng, b, 2, 1, cv);
	fill(&rng, p, 2, f, cv);
	for (;;) {
		decide(b, (size_t)n, p, (size_t)n, round, n, added, cap, &out, v);
		if (out.action != DECIDED_MORE)
			break;
		assert_true(out.pairs >= 1 && n + out.pairs <= cap);
		fill(&rng, b + n, (size_t)out.pairs, 1, cv);
		fill(&rng, p + n, (size_t)out.pairs, f, cv);
		n += out.pairs;
		added = 2 * out.pairs;
		round++;
	}
	*runs = n;
	return out.action;
}

static void test_loops_known_truth(void **state)
{
	int decided_aa = 0, right_shift = 0, alarms = 0;

	for (uint64_t s = 1; s <= 20; s++) {
		enum cmp_verdict v;
		int runs;
		enum decided_action a = loop(0x1000 + s, 1, 0.01, 40, &runs, &v);

		assert_true(runs <= 40);
		/* each look is a test at 1%: a loop of looks calls A/A better or
		 * worse more often than one (here 1 in 20), which README says */
		alarms += v != CMP_NO_CHANGE && v != CMP_UNCERTAIN;
		decided_aa += a == DECIDED_DONE && v == CMP_NO_CHANGE;
		a = loop(0x2000 + s, 0.9, 0.03, 40, &runs, &v);
		assert_true(runs <= 40);
		right_shift += a == DECIDED_DONE && v == CMP_WORSE;
	}
	/* A/A at 1% noise shows +-2% within 40 runs; a 10% drop at 3% is seen */
	assert_true(alarms <= 1);
	assert_true(decided_aa >= 18);
	assert_true(right_shift >= 19);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noisy_more_then_cap),
		cmocka_unit_test(test_steady_decided),
		cmocka_unit_test(test_shift_decided),
		cmocka_unit_test(test_failing_canceled_none),
		cmocka_unit_test(test_two_metrics_most_demanding),
		cmocka_unit_test(test_loops_known_truth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
