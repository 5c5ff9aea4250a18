// SPDX-License-Identifier: GPL-2.0-only
/* verdict_test.c: unit tests for analysis/verdict.c (cmp_decide) and the
 * report's correction across metrics (compare.c), with fixed seeds: a
 * clear 9% shift with an outlier at 5 runs is "worse" and the outlier is
 * named; A/A is not better or worse; a 1-CV shift at 5 runs is uncertain
 * with the runs that would settle it, not "no change"; tiny noise at 20
 * runs inside the margin is "no change"; Benjamini-Hochberg on a known
 * list; the correction turning a lone small p among ten metrics into
 * uncertain; margins; and an old report's JSON still read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "t/unit/testutil.h"

#define NEAR(a, b, eps) assert_true(fabs((a) - (b)) <= (eps))

static uint64_t rng;

/* n runs around 100 * f with CV cv, a share out of them 1.5x */
static void fill(double *v, size_t n, double f, double cv, double out)
{
	for (size_t i = 0; i < n; i++) {
		v[i] = 100 * f * (1 + cv * stats_normal(&rng));
		if (stats_unif(&rng) < out)
			v[i] *= 1.5;
	}
}

static struct cmp_cell cell = { "x86_64", 2, 1024, "kvm", NULL, NULL, 1, NULL };

static void test_worse_with_outlier(void **state)
{
	/* 3% noise, patched 9% lower, one base run 1.5x */
	const double b[] = { 101.2, 97.9, 150.6, 100.4, 102.8 };
	const double p[] = { 91.8, 89.6, 92.5, 90.1, 93.4 };
	unsigned char fb[5], fp[5];
	struct cmp_decision d;
	int worse = 0, nochange = 0;
	double x[5], y[5];

	(void)state;
	assert_int_equal(cmp_decide(b, 5, p, 5, 1, 0, 0, &d, fb, fp), 0);
	assert_int_equal(d.verdict, CMP_WORSE);
	assert_int_equal(d.outliers[0], 1);
	assert_int_equal(d.outliers[1], 0);
	assert_int_equal(fb[2], 1);
	assert_int_equal(fb[0] + fb[1] + fb[3] + fb[4] + fp[0] + fp[1] + fp[2] + fp[3] + fp[4], 0);
	assert_true(d.log_scale && d.tested);
	assert_true(d.p < CMP_ALPHA);
	assert_true(d.ratio > 0.89 && d.ratio < 0.93);
	assert_true(d.ci_hi < 1);
	assert_int_equal(d.runs_needed, 0);
	/* lower is better: the same runs are better */
	assert_int_equal(cmp_decide(b, 5, p, 5, 0, 0, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_BETTER);
	/* without the outlier step the wild run would hide it: the rule is
	 * what keeps it; and over seeded trials with 10% outliers the 3-CV
	 * shift at 5 runs is called worse mostly, never no change */
	rng = 0x1234567ULL;
	for (int i = 0; i < 400; i++) {
		fill(x, 5, 1, 0.03, 0.10);
		fill(y, 5, 0.91, 0.03, 0.10);
		assert_int_equal(cmp_decide(x, 5, y, 5, 1, 0, 0, &d, NULL, NULL), 0);
		worse += d.verdict == CMP_WORSE;
		nochange += d.verdict == CMP_NO_CHANGE;
		assert_int_not_equal(d.verdict, CMP_BETTER);
	}
	assert_true(worse >= 400 * 70 / 100);
	assert_int_equal(nochange, 0);
}

static void test_aa(void **state)
{
	double x[20], y[20];
	struct cmp_decision d;
	int alarms = 0;

	(void)state;
	rng = 0xa5a5a5a5ULL;
	fill(x, 5, 1, 0.03, 0);
	fill(y, 5, 1, 0.03, 0);
	assert_int_equal(cmp_decide(x, 5, y, 5, 1, 0, 0, &d, NULL, NULL), 0);
	assert_true(d.verdict == CMP_UNCERTAIN || d.verdict == CMP_NO_CHANGE);
	assert_true(d.p >= CMP_ALPHA);
	/* the rate over seeded trials, with outliers too: about alpha */
	for (int o = 0; o < 2; o++)
		for (int i = 0; i < 2000; i++) {
			fill(x, 5, 1, 0.03, o ? 0.10 : 0);
			fill(y, 5, 1, 0.03, o ? 0.10 : 0);
			assert_int_equal(cmp_decide(x, 5, y, 5, 1, 0, 0, &d, NULL, NULL), 0);
			alarms += d.verdict == CMP_BETTER || d.verdict == CMP_WORSE;
		}
	assert_true(alarms <= 4000 * 15 / 1000);   /* 1% expected, 1.5% allowed */
}

static void test_one_cv_uncertain(void **state)
{
	double x[5], y[5];
	struct cmp_decision d;
	int nochange = 0, uncertain = 0;

	(void)state;
	rng = 0x77ULL;
	fill(x, 5, 1, 0.03, 0);
	fill(y, 5, 0.97, 0.03, 0);
	assert_int_equal(cmp_decide(x, 5, y, 5, 1, 0, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_UNCERTAIN);
	assert_true(d.runs_needed > 5 && d.runs_needed < 200);
	assert_true(d.mdc > 0.03 && d.mdc < 0.15);   /* about 8% at 5 runs and 3% noise */
	for (int i = 0; i < 1000; i++) {
		fill(x, 5, 1, 0.03, 0);
		fill(y, 5, 0.97, 0.03, 0);
		assert_int_equal(cmp_decide(x, 5, y, 5, 1, 0, 0, &d, NULL, NULL), 0);
		nochange += d.verdict == CMP_NO_CHANGE;
		uncertain += d.verdict == CMP_UNCERTAIN;
		assert_int_not_equal(d.verdict, CMP_BETTER);
	}
	assert_true(nochange <= 10);   /* a change past the margin: rarely, if ever */
	assert_true(uncertain >= 800);
}

static void test_equivalence(void **state)
{
	double x[20], y[20];
	struct cmp_decision d;

	(void)state;
	rng = 0xe9ULL;
	/* 0.3% noise, 0.5% apart: inside +-2% */
	fill(x, 20, 1, 0.003, 0);
	fill(y, 20, 1.005, 0.003, 0);
	assert_int_equal(cmp_decide(x, 20, y, 20, 1, 0, 0, &d, NULL, NULL), 0);
	assert_true(d.ci_lo >= 0.98 && d.ci_hi <= 1.02);
	assert_true(d.verdict == CMP_NO_CHANGE || d.p < CMP_ALPHA);
	/* the same sides: no change */
	assert_int_equal(cmp_decide(x, 20, x, 20, 1, 0, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_NO_CHANGE);
	NEAR(d.ratio, 1, 1e-12);
	/* tiny noise, 1% apart, and a 0.5% margin: a real change past it */
	fill(y, 20, 1.01, 0.003, 0);
	assert_int_equal(cmp_decide(x, 20, y, 20, 1, 0.005, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_BETTER);
	/* runs that all give one value: exact */
	{
		const double a[] = { 125, 125, 125 }, c[] = { 125, 125, 125 };

		assert_int_equal(cmp_decide(a, 3, c, 3, 1, 0, 0, &d, NULL, NULL), 0);
		assert_int_equal(d.verdict, CMP_NO_CHANGE);
		assert_int_equal(d.runs_needed, 0);
	}
}

static void test_margin(void **state)
{
	double x[10], y[10];
	struct cmp_decision d;

	(void)state;
	rng = 0x3141ULL;
	fill(x, 10, 1, 0.02, 0);
	fill(y, 10, 1, 0.02, 0);
	/* 2% noise, 10 runs: +-2% is too tight to show, +-5% is not */
	assert_int_equal(cmp_decide(x, 10, y, 10, 1, 0.02, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_UNCERTAIN);
	assert_true(d.runs_needed > 10);
	assert_int_equal(cmp_decide(x, 10, y, 10, 1, 0.05, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_NO_CHANGE);
	NEAR(d.margin, 0.05, 0);
	/* out of range */
	assert_int_equal(cmp_decide(x, 10, y, 10, 1, -0.01, 0, &d, NULL, NULL), -1);
	assert_int_equal(cmp_decide(x, 10, y, 10, 1, 0.9, 0, &d, NULL, NULL), -1);
	assert_int_equal(cmp_decide(x, 10, y, 10, 1, 0.02, 0.7, &d, NULL, NULL), -1);
	assert_int_equal(cmp_decide(x, 0, y, 10, 1, 0.02, 0, &d, NULL, NULL), -1);
	/* one run a side: nothing to test */
	assert_int_equal(cmp_decide(x, 1, y, 1, 1, 0, 0, &d, NULL, NULL), 0);
	assert_int_equal(d.verdict, CMP_UNCERTAIN);
	assert_false(d.tested);
	assert_int_equal(d.runs_needed, CMP_MIN_N);
}

static void test_bh(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	const double p2[] = { 0.02, 0.021, 0.5 };
	double q[5];

	(void)state;
	assert_int_equal(stats_bh_adjust(p, 5, q), 0);
	NEAR(q[0], 0.02, 1e-12);
	NEAR(q[1], 0.04, 1e-12);
	NEAR(q[2], 0.04, 1e-12);
	NEAR(q[3], 0.02, 1e-12);
	assert_true(isnan(q[4]));
	/* a later, smaller ratio carries down */
	assert_int_equal(stats_bh_adjust(p2, 3, q), 0);
	NEAR(q[0], 0.0315, 1e-12);
	NEAR(q[1], 0.0315, 1e-12);
	NEAR(q[2], 0.5, 1e-12);
	/* capped at 1 */
	{
		const double one[] = { 0.9, 0.95 };

		assert_int_equal(stats_bh_adjust(one, 2, q), 0);
		NEAR(q[0], 0.95, 1e-12);
		NEAR(q[1], 0.95, 1e-12);
	}
}

/* ten runs around 100 with about 1% spread */
static const double base10[] = { 100, 101, 99, 102, 98, 100, 101, 99, 100.5, 99.5 };

static void test_report_correction(void **state)
{
	double up[10], same[10];
	struct cmp_report r;
	char err[128];

	(void)state;
	for (int i = 0; i < 10; i++) {
		up[i] = base10[(i + 1) % 10] * 1.02;
		same[i] = base10[(i + 3) % 10];
	}
	assert_int_equal(cmp_report_init(&r, "j", NULL, NULL, &cell, &cell, err, sizeof(err)), 0);
	assert_int_equal(cmp_report_add(&r, "ops", NULL, 1, base10, 10, up, 10), 0);
	/* alone: p between 0.001 and 0.01, better */
	assert_true(r.v[0].p > 0.001 && r.v[0].p < CMP_ALPHA);
	assert_int_equal(r.v[0].verdict, CMP_BETTER);
	NEAR(r.v[0].q, r.v[0].p, 1e-15);
	/* among nine metrics that did not move, its q is p * 10: not shown */
	for (int k = 0; k < 9; k++) {
		char name[16];

		snprintf(name, sizeof(name), "m%d", k);
		assert_int_equal(cmp_report_add(&r, name, NULL, 1, base10, 10, same, 10), 0);
	}
	NEAR(r.v[0].q, r.v[0].p * 10, 1e-12);
	assert_int_equal(r.v[0].verdict, CMP_UNCERTAIN);
	assert_true(r.v[0].runs_needed > 10);
	assert_true(r.corrected);
	cmp_report_release(&r);
}

static void test_outlier_ids(void **state)
{
	const double b[] = { 101.2, 97.9, 150.6, 100.4, 102.8 };
	const double p[] = { 91.8, 89.6, 92.5, 90.1, 93.4 };
	const int64_t rb[] = { 11, 13, 15, 17, 19 }, rp[] = { 12, 14, 16, 18, 20 };
	struct cmp_metric_in in = {
		.name = "ops", .unit = "1/s", .higher_better = 1, .margin = 0.03,
		.v = { b, p }, .run = { rb, rp }, .n = { 5, 5 },
	};
	struct cmp_report r, back;
	struct buf t = BUF_INIT(0);
	json_t *j, *o;
	char err[128];

	(void)state;
	assert_int_equal(cmp_report_init(&r, "j", NULL, NULL, &cell, &cell, err, sizeof(err)), 0);
	assert_int_equal(cmp_report_add_metric(&r, &in), 0);
	assert_int_equal(r.v[0].verdict, CMP_WORSE);
	assert_int_equal(r.v[0].noutliers[0], 1);
	assert_int_equal(r.v[0].outlier[0][0], 15);
	NEAR(r.v[0].margin, 0.03, 0);
	j = cmp_report_json(&r);
	o = json_object_get(json_array_get(json_object_get(j, "metrics"), 0), "outliers");
	assert_string_equal(json_string_value(json_object_get(o, "by")), "run");
	assert_int_equal(json_integer_value(json_array_get(json_object_get(o, "base"), 0)), 15);
	assert_int_equal(cmp_render_text(&r, CMP_COL_DEFAULT, &t), 0);
	assert_non_null(strstr(t.data, "outliers: ops: base run 15 (left out of the test)"));
	assert_non_null(strstr(t.data, "within +-3% (the margin)"));
	assert_int_equal(cmp_report_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(back.v[0].outlier[0][0], 15);
	assert_true(back.v[0].outlier_by_id);
	NEAR(back.v[0].margin, 0.03, 0);
	NEAR(back.v[0].mdc, r.v[0].mdc, 1e-9);
	/* a second metric with another margin: a margin column */
	in.margin = 0.05;
	in.name = "lat";
	in.run[0] = in.run[1] = NULL;
	assert_int_equal(cmp_report_add_metric(&r, &in), 0);
	buf_reset(&t);
	assert_int_equal(cmp_render_text(&r, CMP_COL_DEFAULT, &t), 0);
	assert_non_null(strstr(t.data, " margin "));
	assert_non_null(strstr(t.data, "outliers: lat: base run #3"));
	assert_int_equal(cmp_report_add_metric(&r, &(struct cmp_metric_in){ .name = "x",
		.margin = 0.7, .v = { b, p }, .n = { 5, 5 } }), -1);
	buf_release(&t);
	cmp_report_release(&back);
	cmp_report_release(&r);
	json_decref(j);
}

/* A report kept from before the margin, q and outliers (Mann-Whitney and a
 * bootstrap) still reads, its verdicts as they were */
static void test_old_json(void **state)
{
	struct cmp_report r;
	struct buf t = BUF_INIT(0);
	json_error_t je;
	json_t *j = json_load_file(TU_DATA "analysis/report-v1.json", 0, &je);
	char err[128];

	(void)state;
	assert_non_null(j);
	assert_int_equal(cmp_report_from_json(j, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 4);
	assert_false(r.corrected);
	assert_int_equal(r.v[0].verdict, CMP_WORSE);
	assert_int_equal(r.v[1].verdict, CMP_NO_CHANGE);
	assert_int_equal(r.v[3].verdict, CMP_UNCERTAIN);
	assert_int_equal(r.v[3].runs_needed, 38);
	assert_true(isnan(r.v[0].q) && isnan(r.v[0].margin) && isnan(r.v[0].mdc));
	assert_int_equal(r.v[0].noutliers[0] + r.v[0].noutliers[1], 0);
	assert_int_equal(cmp_render_text(&r, CMP_COL_ALL, &t), 0);
	assert_non_null(strstr(t.data, "as computed by an older kfleet"));
	assert_non_null(strstr(t.data, "uncertain (~38 runs, noisy base)"));
	buf_release(&t);
	cmp_report_release(&r);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_worse_with_outlier),
		cmocka_unit_test(test_aa),
		cmocka_unit_test(test_one_cv_uncertain),
		cmocka_unit_test(test_equivalence),
		cmocka_unit_test(test_margin),
		cmocka_unit_test(test_bh),
		cmocka_unit_test(test_report_correction),
		cmocka_unit_test(test_outlier_ids),
		cmocka_unit_test(test_old_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
