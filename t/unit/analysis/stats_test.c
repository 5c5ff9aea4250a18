// SPDX-License-Identifier: GPL-2.0-only
/* stats_test.c: unit tests for analysis/stats.c: summaries (median, sample
 * stddev, nearest-rank p99), Mann-Whitney U p-values against scipy's
 * mannwhitneyu (its documented example, and values checked by enumerating
 * every split for the exact case and by scipy's asymptotic formula for the
 * rest), the bootstrap interval of the ratio of medians, and Student's t
 * distribution (the BH adjustment is verdict_test.c's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "t/unit/testutil.h"

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static void test_summary(void **state)
{
	const double v[] = { 5, 1, 4, 2, 3 };
	const double e[] = { 10, 20 };
	double big[200];
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 5, &s), 0);
	assert_int_equal(s.n, 5);
	NEAR(s.median, 3, 0);
	NEAR(s.mean, 3, 1e-12);
	NEAR(s.stddev, sqrt(2.5), 1e-12);   /* sample: sum of squares 10 / (n - 1) */
	NEAR(s.min, 1, 0);
	NEAR(s.max, 5, 0);
	NEAR(s.p99, 5, 0);                  /* nearest rank ceil(4.95) = 5th */
	NEAR(stats_cv(&s), sqrt(2.5) / 3, 1e-12);

	assert_int_equal(stats_summarize(e, 2, &s), 0);
	NEAR(s.median, 15, 0);             /* even n: mean of the middle two */

	for (int i = 0; i < 200; i++)
		big[i] = 200 - i;              /* 1..200, reversed */
	assert_int_equal(stats_summarize(big, 200, &s), 0);
	NEAR(s.p99, 198, 0);               /* ceil(0.99 * 200) = 198th smallest */
	NEAR(s.median, 100.5, 0);

	assert_int_equal(stats_summarize(v, 1, &s), 0);
	NEAR(s.stddev, 0, 0);
	assert_true(isnan(stats_cv(&s)));
}

static void test_summary_bad(void **state)
{
	const double v[] = { 1, NAN, 3 }, w[] = { 1, INFINITY };
	struct stats_summary s;

	(void)state;
	assert_int_equal(stats_summarize(v, 0, &s), -1);
	assert_int_equal(stats_summarize(NULL, 3, &s), -1);
	assert_int_equal(stats_summarize(v, 3, &s), -1);
	assert_int_equal(stats_summarize(w, 2, &s), -1);
}

static void test_mw_exact(void **state)
{
	const double x[] = { 1, 2, 3, 4, 5 }, y[] = { 6, 7, 8, 9, 10 };
	/* scipy.stats.mannwhitneyu documentation's example: U 17, p 0.1111 */
	const double males[] = { 19, 22, 16, 29, 24 }, females[] = { 20, 11, 17, 12 };
	const double a[] = { 3.1, 4.7, 2.2, 5.9, 6.3, 1.8, 7.4, 4.1 };
	const double b[] = { 8.2, 6.6, 9.1, 7.7, 5.4, 10.3 };
	struct stats_mw mw;

	(void)state;
	assert_int_equal(stats_mann_whitney(x, 5, y, 5, &mw), 0);
	assert_true(mw.exact);
	assert_false(mw.ties);
	NEAR(mw.u, 0, 0);
	NEAR(mw.p, 2.0 / 252, 1e-12);      /* 0.00794 */
	assert_int_equal(stats_mann_whitney(y, 5, x, 5, &mw), 0);
	NEAR(mw.u, 25, 0);
	NEAR(mw.p, 2.0 / 252, 1e-12);      /* two-sided: symmetric */

	assert_int_equal(stats_mann_whitney(males, 5, females, 4, &mw), 0);
	assert_true(mw.exact);
	NEAR(mw.u, 17, 0);
	NEAR(mw.p, 1.0 / 9, 1e-12);        /* 0.1111111111111111 */

	assert_int_equal(stats_mann_whitney(a, 8, b, 6, &mw), 0);
	assert_true(mw.exact);
	NEAR(mw.u, 4, 0);
	NEAR(mw.p, 0.007992007992007992, 1e-12);   /* 24 of 3003 splits, times 2 */

	/* identical samples: p 1 */
	assert_int_equal(stats_mann_whitney(x, 5, x, 5, &mw), 0);
	assert_true(mw.ties);
	NEAR(mw.p, 1, 1e-12);
}

static void test_mw_largest_exact(void **state)
{
	double x[20], y[20];
	struct stats_mw mw;

	(void)state;
	for (int i = 0; i < 20; i++) {
		x[i] = i;
		y[i] = i + 100;
	}
	assert_int_equal(stats_mann_whitney(x, 20, y, 20, &mw), 0);
	assert_true(mw.exact);
	/* the most extreme of C(40, 20) orderings, both tails */
	NEAR(mw.p, 2.0 / 137846528820.0, 1e-22);
}

static void test_mw_normal(void **state)
{
	const double t1[] = { 1, 2, 2, 3, 4 }, t2[] = { 2, 3, 4, 5, 5 };
	const double same[] = { 7, 7, 7 };
	double x[25], y[25];
	struct stats_mw mw;

	(void)state;
	/* ties: normal approximation with tie and continuity correction, as
	 * scipy's method="asymptotic" */
	assert_int_equal(stats_mann_whitney(t1, 5, t2, 5, &mw), 0);
	assert_false(mw.exact);
	assert_true(mw.ties);
	NEAR(mw.u, 5, 0);
	NEAR(mw.p, 0.13509906945732136, 1e-9);

	/* above STATS_EXACT_MAX */
	for (int i = 0; i < 25; i++) {
		x[i] = i;
		y[i] = i + 7.5;
	}
	assert_int_equal(stats_mann_whitney(x, 25, y, 25, &mw), 0);
	assert_false(mw.exact);
	NEAR(mw.u, 153, 0);
	NEAR(mw.p, 0.002035157807278383, 1e-9);

	/* every value tied: no evidence either way */
	assert_int_equal(stats_mann_whitney(same, 3, same, 3, &mw), 0);
	NEAR(mw.p, 1, 0);
	assert_int_equal(stats_mann_whitney(same, 0, same, 3, &mw), -1);
}

static void test_bootstrap(void **state)
{
	const double c100[] = { 100, 100, 100, 100, 100 }, c110[] = { 110, 110, 110, 110, 110 };
	const double base[] = { 100, 101, 99, 102, 98, 100, 101, 99, 100, 100 };
	double up[10], flat[10], lo, hi, lo2, hi2;
	const double zero[] = { 0, 0, 1 };

	(void)state;
	assert_int_equal(stats_bootstrap_ratio(c100, 5, c110, 5, 2000, STATS_SEED, &lo, &hi), 0);
	NEAR(lo, 1.1, 1e-12);
	NEAR(hi, 1.1, 1e-12);

	for (int i = 0; i < 10; i++) {
		up[i] = base[i] * 1.2;
		flat[i] = base[(i + 3) % 10] + 0.1;
	}
	/* a 20% increase: the interval excludes 1 */
	assert_int_equal(stats_bootstrap_ratio(base, 10, up, 10, 2000, STATS_SEED, &lo, &hi), 0);
	assert_true(lo > 1.15 && hi < 1.25);
	/* the same values shuffled and barely moved: the interval holds 1 */
	assert_int_equal(stats_bootstrap_ratio(base, 10, flat, 10, 2000, STATS_SEED, &lo, &hi),
			 0);
	assert_true(lo <= 1 && hi >= 1);
	assert_true(lo > 0.98 && hi < 1.02);
	/* a fixed seed: the same interval every time */
	assert_int_equal(stats_bootstrap_ratio(base, 10, flat, 10, 2000, STATS_SEED, &lo2, &hi2),
			 0);
	assert_true(lo == lo2 && hi == hi2);

	/* base medians of 0: no ratio */
	assert_int_equal(stats_bootstrap_ratio(zero, 3, c100, 5, 2000, STATS_SEED, &lo, &hi), -1);
	assert_int_equal(stats_bootstrap_ratio(c100, 5, c110, 5, 0, STATS_SEED, &lo, &hi), -1);
}

/* Student's t against tables, and tails checked by numeric integration */
static void test_t_dist(void **state)
{
	(void)state;
	NEAR(stats_t_quantile(0.995, 8), 3.355387, 1e-6);
	NEAR(stats_t_quantile(0.975, 4), 2.776445, 1e-6);
	NEAR(stats_t_quantile(0.95, 18), 1.734064, 1e-6);
	NEAR(stats_t_quantile(0.025, 4), -2.776445, 1e-6);
	NEAR(stats_t_quantile(0.975, 1e6), 1.959966, 1e-5);
	NEAR(2 * stats_t_cdf(-2.306004, 8), 0.05, 1e-6);
	NEAR(stats_t_cdf(0, 3), 0.5, 1e-12);
	NEAR(stats_t_cdf(1, 1), 0.75, 1e-9);   /* Cauchy */
	NEAR(stats_t_cdf(-12.8, 7), 2.059319e-6, 1e-11);   /* by numeric integration */
	NEAR(stats_t_cdf(3.5, 2.5), 0.973827, 1e-6);   /* df need not be whole */
	assert_true(isnan(stats_t_cdf(1, 0)));
	assert_true(isnan(stats_t_quantile(1, 5)));
	assert_true(isnan(stats_t_quantile(0.5, -1)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_t_dist),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_summary_bad),
		cmocka_unit_test(test_mw_exact),
		cmocka_unit_test(test_mw_largest_exact),
		cmocka_unit_test(test_mw_normal),
		cmocka_unit_test(test_bootstrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
