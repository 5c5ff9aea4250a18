// SPDX-License-Identifier: GPL-2.0-only
/* calib_test.c: a job's noise (analysis/calib.c) from made-up runs of
 * known noise (fixed seed): the pooled CV is the noise within a kernel,
 * however far the kernels' means lie apart, and the runs a side it gives
 * are cmp_decide()'s rule (verdict.c) at that noise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/calib.h"

#define KERNELS 6
#define RUNS    40   /* per kernel */

/* runs_needed of verdict.c for a change c at SD s, written out */
static int formula(double s, double c)
{
	double z = -stats_t_quantile(CMP_ALPHA / 2, 1e6), d = log1p(c);
	double n = ceil(2 * s * s * (z + 0.841621) * (z + 0.841621) / (d * d)) + 2;

	return n < CMP_MIN_N ? CMP_MIN_N : n > CMP_RUNS_CAP ? CMP_RUNS_CAP : (int)n;
}

/* lognormal runs of SD sigma on the log scale, kernel k's mean 100 * 1.3^k
 * (in the order the runs came: the kernels interleaved) */
static void make(double sigma, double *v, int64_t *kern, uint64_t *seed)
{
	for (int i = 0; i < KERNELS * RUNS; i++) {
		int k = i % KERNELS;

		kern[i] = 100 + k;
		v[i] = 100 * pow(1.3, k) * exp(sigma * stats_normal(seed));
	}
}

static void test_known_cv(void **state)
{
	static const double sigmas[] = { 0.01, 0.03, 0.10 };
	double v[KERNELS * RUNS];
	int64_t kern[KERNELS * RUNS];
	uint64_t seed = 0x6b666c656574ULL;
	struct calib_noise e;

	(void)state;
	for (size_t i = 0; i < sizeof(sigmas) / sizeof(sigmas[0]); i++) {
		make(sigmas[i], v, kern, &seed);
		assert_int_equal(calib_estimate(v, kern, KERNELS * RUNS, &e), 0);
		assert_int_equal(e.runs, KERNELS * RUNS);
		assert_int_equal(e.kernels, KERNELS);
		assert_true(e.df == KERNELS * RUNS - KERNELS);
		assert_int_equal(e.log_scale, 1);
		/* 234 df: the SD's own SD is about 4.6%; 15% is over 3 of those */
		if (fabs(e.cv / sigmas[i] - 1) > 0.15)
			fail_msg("sigma %g: estimated %g", sigmas[i], e.cv);
		for (int c = 0; c < CALIB_NCHANGES; c++) {
			assert_int_equal(e.runs_needed[c], formula(e.cv, calib_changes[c]));
			assert_int_equal(e.runs_needed[c],
					 cmp_runs_to_detect(e.cv, calib_changes[c], CMP_ALPHA, 1));
		}
		/* a bigger change needs fewer runs */
		assert_true(e.runs_needed[0] >= e.runs_needed[1]);
		assert_true(e.runs_needed[1] >= e.runs_needed[2]);
	}
	/* at 3% noise, 2% needs far more runs than 10%, which needs the least */
	make(0.03, v, kern, &seed);
	assert_int_equal(calib_estimate(v, kern, KERNELS * RUNS, &e), 0);
	assert_true(e.runs_needed[0] > 30 && e.runs_needed[0] < 80);
	assert_int_equal(e.runs_needed[2], CMP_MIN_N);
}

/* the kernels' differences are not noise: taken as one kernel, the same
 * runs look far noisier */
static void test_kernels_apart(void **state)
{
	double v[KERNELS * RUNS];
	int64_t kern[KERNELS * RUNS], one[KERNELS * RUNS];
	uint64_t seed = 42;
	struct calib_noise e, all;

	(void)state;
	make(0.02, v, kern, &seed);
	for (size_t i = 0; i < KERNELS * RUNS; i++)
		one[i] = 7;
	assert_int_equal(calib_estimate(v, kern, KERNELS * RUNS, &e), 0);
	assert_int_equal(calib_estimate(v, one, KERNELS * RUNS, &all), 0);
	assert_int_equal(all.kernels, 1);
	assert_true(fabs(e.cv / 0.02 - 1) < 0.15);
	assert_true(all.cv > 5 * e.cv);
}

static void test_edges(void **state)
{
	double v[] = { 10, 11, 12 }, neg[] = { -1, 1, 3, 5 }, bad[] = { 1, NAN };
	int64_t k3[] = { 1, 2, 3 }, k4[] = { 1, 1, 2, 2 }, k2[] = { 1, 1 };
	struct calib_noise e;

	(void)state;
	/* one run per kernel: no spread within one */
	assert_int_equal(calib_estimate(v, k3, 3, &e), 0);
	assert_true(isnan(e.cv));
	assert_int_equal(e.runs_needed[0], 0);
	assert_int_equal(e.kernels, 3);
	/* a value <= 0: over the median (2), as cmp_decide() would */
	assert_int_equal(calib_estimate(neg, k4, 4, &e), 0);
	assert_int_equal(e.log_scale, 0);
	/* -0.5, 0.5 and 1.5, 2.5: 0.25 from each run, over 2 df */
	assert_true(fabs(e.cv - sqrt(4 * 0.25 / 2)) < 1e-12);
	assert_int_equal(calib_estimate(bad, k2, 2, &e), -1);
	assert_int_equal(calib_estimate(v, k3, 0, &e), -1);
	/* the exposed rule's own checks */
	assert_int_equal(cmp_runs_to_detect(0, 0.05, CMP_ALPHA, 1), CMP_MIN_N);
	assert_int_equal(cmp_runs_to_detect(1, 0.02, CMP_ALPHA, 1), CMP_RUNS_CAP);
	assert_int_equal(cmp_runs_to_detect(-1, 0.02, CMP_ALPHA, 1), -1);
	assert_int_equal(cmp_runs_to_detect(0.1, 0, CMP_ALPHA, 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_cv),
		cmocka_unit_test(test_kernels_apart),
		cmocka_unit_test(test_edges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
