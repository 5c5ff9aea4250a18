// SPDX-License-Identifier: GPL-2.0-only
/* bisect_test.c: the decision rules of a bisection (analysis/bisect.c) on
 * made-up results: runs needed for a flaky symptom, the ends' checks, a
 * step's good / bad / skip / more for a failing test and for a metric, the
 * path's error and the rounds bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/bisect.h"

static void test_runs_needed(void **state)
{
	(void)state;
	assert_int_equal(bisect_pf_runs_needed(1.0, 0.01), 1);
	/* the example: at 30%, 13 passing runs miss with chance < 1% */
	assert_int_equal(bisect_pf_runs_needed(0.3, 0.01), 13);
	assert_true(pow(0.7, 13) < 0.01 && pow(0.7, 12) >= 0.01);
	assert_int_equal(bisect_pf_runs_needed(0.5, 0.01), 7);
	assert_int_equal(bisect_pf_runs_needed(0.0, 0.01), BISECT_RUNS_MAX + 1);
	assert_int_equal(bisect_pf_runs_needed(0.01, 0.01), BISECT_RUNS_MAX + 1);
}

static void test_rate_leaves_out_other_failures(void **state)
{
	struct bisect_pf bad = { .runs = 12, .seen = 3, .other = 2 };

	(void)state;
	assert_true(fabs(bisect_pf_rate(&bad) - 0.3) < 1e-12);
}

static void test_pf_ends(void **state)
{
	struct bisect_pf good = { .runs = 5 }, bad = { .runs = 5, .seen = 5 };
	struct bisect_pf bad_passes = { .runs = 5 }, good_fails = { .runs = 5, .seen = 1 };
	struct bisect_pf noboot = { .runs = 3, .other = 3 };
	char why[200];

	(void)state;
	assert_int_equal(bisect_pf_check_ends(&good, &bad, why, sizeof(why)), 0);
	assert_int_equal(bisect_pf_check_ends(&good, &bad_passes, why, sizeof(why)), -1);
	assert_string_equal(why, "bad passed 5 of 5 runs: nothing to bisect");
	assert_int_equal(bisect_pf_check_ends(&good_fails, &bad, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "good shows the symptom too (1 of 5 runs)"));
	assert_int_equal(bisect_pf_check_ends(&good, &noboot, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "bad: none of 3 runs"));
}

static void test_pf_step(void **state)
{
	struct bisect_pf always = { .runs = 1, .seen = 1 }, flaky = { .runs = 40, .seen = 12 };
	struct bisect_pf s;
	char why[200];
	int more, need;
	double miss;

	(void)state;
	/* an always-reproducing symptom: one clean run decides */
	s = (struct bisect_pf){ .runs = 1 };
	assert_int_equal(bisect_pf_decide(&always, &s, 50, &more, &miss, why, sizeof(why)),
			 BISECT_GOOD);
	assert_true(miss == 0.0);
	s = (struct bisect_pf){ .runs = 1, .seen = 1 };
	assert_int_equal(bisect_pf_decide(&always, &s, 50, &more, &miss, why, sizeof(why)),
			 BISECT_BAD);
	/* flaky, 12 of 40 at the bad end: counted at the least rate those
	 * allow (about 20%), so more than 13 clean runs are needed */
	need = bisect_pf_runs_needed(bisect_pf_rate_low(&flaky), 0.01);
	assert_true(need > 13 && need < 30);
	s = (struct bisect_pf){ .runs = 5 };
	assert_int_equal(bisect_pf_decide(&flaky, &s, 50, &more, &miss, why, sizeof(why)),
			 BISECT_MORE);
	assert_int_equal(more, need - 5);
	s = (struct bisect_pf){ .runs = need };
	assert_int_equal(bisect_pf_decide(&flaky, &s, 50, &more, &miss, why, sizeof(why)),
			 BISECT_GOOD);
	assert_true(miss < 0.01 && miss > 0.005);
	/* one sighting is enough for bad, whatever the count */
	s = (struct bisect_pf){ .runs = 4, .seen = 1 };
	assert_int_equal(bisect_pf_decide(&flaky, &s, 50, &more, &miss, why, sizeof(why)),
			 BISECT_BAD);
	assert_string_equal(why, "the symptom in 1 of 4 runs");
	/* a commit that does not boot is skipped, not bad */
	s = (struct bisect_pf){ .runs = 2, .other = 2 };
	assert_int_equal(bisect_pf_decide(&flaky, &s, 50, &more, &miss, why, sizeof(why)),
			 BISECT_SKIP);
	assert_non_null(strstr(why, "2 of 2 runs failed for another reason"));
	/* a cap below what the rate needs: skip with the reason */
	s = (struct bisect_pf){ .runs = 5 };
	assert_int_equal(bisect_pf_decide(&flaky, &s, 10, &more, &miss, why, sizeof(why)),
			 BISECT_SKIP);
	assert_non_null(strstr(why, "clean runs would be needed"));
}

static void test_rate_low_and_end_runs(void **state)
{
	struct bisect_pf all = { .runs = 5, .seen = 5 }, few = { .runs = 10, .seen = 3 };
	struct bisect_pf many = { .runs = 40, .seen = 12 }, none = { .runs = 10 };
	double lo;

	(void)state;
	/* every run showed it: a symptom that always shows, one run a step */
	assert_true(bisect_pf_rate_low(&all) == 1.0);
	assert_int_equal(bisect_pf_end_runs(&all, 50), 0);
	/* 3 of 10: Wilson's lower end at 95% one-sided is about 0.127 */
	lo = bisect_pf_rate_low(&few);
	assert_true(lo > 0.12 && lo < 0.135);
	/* ... which needs about 34 runs a step: under a cap of 50 no more end
	 * runs, under a cap of 20 ten more */
	assert_int_equal(bisect_pf_end_runs(&few, 50), 0);
	assert_int_equal(bisect_pf_end_runs(&few, 20), 10);
	/* at BISECT_END_RUNS_MAX the end has had all it gets */
	assert_int_equal(bisect_pf_end_runs(&many, 5), 0);
	assert_true(bisect_pf_rate_low(&none) == 0.0);
	assert_int_equal(bisect_pf_end_runs(&none, 50), 0);
}

/* Normal-ish samples around m without a random source: m * (1 + d_i) */
static void fill(double *v, size_t n, double m)
{
	static const double d[] = { -0.012, 0.004, 0.009, -0.003, 0.0, 0.011, -0.007, 0.002,
				    -0.010, 0.006 };

	for (size_t i = 0; i < n; i++)
		v[i] = m * (1 + d[i % 10]);
}

static void test_metric_ends(void **state)
{
	double g[5], b[5], same[5];
	struct bisect_samples G = { g, 5 }, B = { b, 5 }, S = { same, 5 };
	double change;
	char why[200];

	(void)state;
	fill(g, 5, 100);
	fill(b, 5, 80);
	fill(same, 5, 100.1);
	/* higher is better and bad is 20% lower: a regression to bisect */
	assert_int_equal(bisect_metric_check_ends(&G, &B, 1, 0.01, &change, why, sizeof(why)), 0);
	assert_true(fabs(change + 20) < 0.5);
	/* ... but lower better: bad is the better one */
	assert_int_equal(bisect_metric_check_ends(&G, &B, 0, 0.01, &change, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "swap them"));
	assert_int_equal(bisect_metric_check_ends(&G, &S, 1, 0.01, &change, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "nothing to bisect"));
}

static void test_metric_step(void **state)
{
	double g[10], b[10], s1[10];
	struct bisect_samples G = { g, 10 }, B = { b, 10 }, S = { s1, 0 };
	char why[200];
	int more;
	double p;

	(void)state;
	fill(g, 10, 100);
	fill(b, 10, 80);
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_MORE);
	assert_int_equal(more, 10);
	fill(s1, 5, 80.2);
	S.n = 5;
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_BAD);
	assert_true(p == 0.01);   /* the level the answer rests on */
	fill(s1, 5, 99.9);
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_GOOD);
	/* halfway on logs (sqrt(100 * 80)): differs from both ends, another
	 * change (90 would be within half the regression of good: log 0.9 is
	 * -0.105, half of log 0.8 is -0.112) */
	fill(s1, 10, 89.4);
	S.n = 10;
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_SKIP);
	assert_non_null(strstr(why, "differs from both"));
	/* past bad: a change of another size too */
	fill(s1, 10, 60);
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_SKIP);
	assert_non_null(strstr(why, "differs from both"));
	/* the t test on logs with the ends' noise: two runs right at bad are
	 * enough, within half the regression (10%) of it */
	fill(s1, 2, 80);
	S.n = 2;
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_BAD);
	assert_non_null(strstr(why, "within half the regression"));
	/* two runs far apart (80, 100): neither end can be told (p = 0.017
	 * against each), and seeing the regression at the noise they show
	 * takes the rule's least, 5 runs: 3 more, then a skip at a cap of 2 */
	s1[0] = 80;
	s1[1] = 100;
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_MORE);
	assert_int_equal(more, 3);
	assert_non_null(strstr(why, "5 needed"));
	assert_true(p == 1.0);
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 2, &more, &p, why, sizeof(why)),
			 BISECT_SKIP);
	assert_non_null(strstr(why, "undecided after 2 runs"));
	assert_int_equal(more, 0);
}

/* the direction comes from the ends: a metric that went up is bisected
 * the same way */
static void test_metric_step_up(void **state)
{
	double g[10], b[10], s1[6];
	struct bisect_samples G = { g, 10 }, B = { b, 10 }, S = { s1, 6 };
	char why[200];
	int more;
	double p;

	(void)state;
	fill(g, 10, 50);
	fill(b, 10, 60);
	fill(s1, 6, 59.8);
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.005, 20, &more, &p, why, sizeof(why)),
			 BISECT_BAD);
	assert_true(p == 0.005);
	fill(s1, 6, 50.3);
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.005, 20, &more, &p, why, sizeof(why)),
			 BISECT_GOOD);
	assert_non_null(strstr(why, "sits with good"));
	/* no regression between the ends: nothing to decide by */
	assert_int_equal(bisect_metric_decide(&G, &G, &S, 0.005, 20, &more, &p, why, sizeof(why)),
			 BISECT_SKIP);
}

/* A regression of 97% (a getpgid() made 30 times slower, as
 * t/e2e-linux.sh bisects): the slow side's few calls a second are noisy
 * (CV 30%), so a step that sits with bad is 0.6-1.6 of it. Within half the
 * regression on logs (a factor 5.8) it is bad at once; half of it as a
 * fraction (0.485) would have kept it undecided to the cap. */
static void test_metric_step_large(void **state)
{
	double g[6] = { 101, 98, 103, 99, 100, 97 };
	double b[6] = { 3.1, 2.2, 4.0, 2.6, 3.5, 1.9 };
	double s1[6] = { 2.0, 3.9, 2.4, 4.4, 1.8, 3.0 };
	double s2[6] = { 99, 102, 96, 100, 104, 98 };
	struct bisect_samples G = { g, 6 }, B = { b, 6 }, S = { s1, 6 }, S2 = { s2, 6 };
	char why[240];
	int more;
	double p;

	(void)state;
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_BAD);
	assert_non_null(strstr(why, "sits with bad"));
	assert_int_equal(bisect_metric_decide(&G, &B, &S2, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_GOOD);
	/* at the middle on logs, 17 calls a second, 6 times slower than good
	 * and 6 times faster than bad: a change of another size (10 a second
	 * would sit with bad, 30 with good) */
	for (int i = 0; i < 6; i++)
		s1[i] *= 5.9;
	assert_int_equal(bisect_metric_decide(&G, &B, &S, 0.01, 20, &more, &p, why, sizeof(why)),
			 BISECT_SKIP);
	assert_non_null(strstr(why, "differs from both"));
}

static void test_path_and_rounds(void **state)
{
	double e[] = { 0.004, 0.0, 0.003 }, big[] = { 0.7, 0.6 };

	(void)state;
	assert_true(fabs(bisect_path_error(e, 3) - 0.007) < 1e-12);
	assert_true(bisect_path_error(big, 2) == 1.0);
	assert_int_equal(bisect_rounds_bound(1), 1);
	assert_int_equal(bisect_rounds_bound(2), 2);
	assert_int_equal(bisect_rounds_bound(24), 6);
	assert_int_equal(bisect_rounds_bound(1024), 11);
	assert_int_equal(bisect_rounds_bound(1025), 12);
	assert_string_equal(bisect_answer_name(BISECT_SKIP), "skip");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runs_needed),
		cmocka_unit_test(test_rate_leaves_out_other_failures),
		cmocka_unit_test(test_pf_ends),
		cmocka_unit_test(test_pf_step),
		cmocka_unit_test(test_rate_low_and_end_runs),
		cmocka_unit_test(test_metric_ends),
		cmocka_unit_test(test_metric_step),
		cmocka_unit_test(test_metric_step_up),
		cmocka_unit_test(test_metric_step_large),
		cmocka_unit_test(test_path_and_rounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
