// SPDX-License-Identifier: GPL-2.0-only
/* compare_test.c: unit tests for analysis/compare.c and render.c: verdicts
 * on constructed data (a clear change either way and its direction, no
 * change, too few runs; cmp_decide()'s own rules are verdict_test.c's),
 * the noisy flag, refusal of different cells, and
 * the rendered table, markdown and JSON against golden files under
 * t/data/analysis/ (REGENERATE=1 rewrites them), also after a JSON round
 * trip as the CLI does it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/analysis.h"
#include "t/unit/testutil.h"

/* ten runs around 100 with about 1% spread */
static const double base10[] = { 100, 101, 99, 102, 98, 100, 101, 99, 100.5, 99.5 };

static struct cmp_cell cell_x86 = { "x86_64", 2, 1024, "tcg", "h1", NULL, 1, NULL };

static void scaled(double *out, const double *in, size_t n, double f, double add)
{
	for (size_t i = 0; i < n; i++)
		out[i] = in[i] * f + add;
}

static void report(struct cmp_report *r)
{
	char err[256];

	assert_int_equal(cmp_report_init(r, "sock-filter-churn", "kernel 3", "kernel 4",
					 &cell_x86, &cell_x86, err, sizeof(err)), 0);
}

static void test_direction(void **state)
{
	double up[10];
	struct cmp_report r;

	(void)state;
	scaled(up, base10, 10, 1.2, 0);
	report(&r);
	assert_int_equal(cmp_report_add(&r, "ops", "1/s", 1, base10, 10, up, 10), 0);
	assert_int_equal(cmp_report_add(&r, "latency", "us", 0, base10, 10, up, 10), 0);
	assert_int_equal(cmp_report_add(&r, "other", NULL, -1, base10, 10, up, 10), 0);
	assert_int_equal(cmp_report_add(&r, "ops_down", "1/s", 1, up, 10, base10, 10), 0);
	assert_int_equal(r.v[0].verdict, CMP_BETTER);
	assert_int_equal(r.v[1].verdict, CMP_WORSE);
	assert_int_equal(r.v[2].verdict, CMP_CHANGED);
	assert_int_equal(r.v[3].verdict, CMP_WORSE);
	assert_true(fabs(r.v[0].change_pct - 20) < 1e-9);
	assert_true(r.v[0].p < 0.001);
	assert_false(r.v[0].p_exact);   /* base10 has ties: the normal approximation */
	assert_true(r.v[0].have_ci && r.v[0].ci_lo > 1);
	assert_int_equal(r.v[0].runs_needed, 0);
	assert_false(r.v[0].noisy);
	cmp_report_release(&r);
}

static void test_negative_base(void **state)
{
	double neg[10], less[10];
	struct cmp_report r;

	(void)state;
	/* -100 -> -120: the ratio is 1.2 but the value went down */
	scaled(neg, base10, 10, -1, 0);
	scaled(less, base10, 10, -1.2, 0);
	report(&r);
	assert_int_equal(cmp_report_add(&r, "offset", "ns", 1, neg, 10, less, 10), 0);
	assert_int_equal(r.v[0].verdict, CMP_WORSE);
	assert_true(fabs(r.v[0].change_pct + 20) < 1e-9);
	cmp_report_release(&r);
}

static void test_no_change(void **state)
{
	double same[10];
	struct cmp_report r;

	(void)state;
	/* the same values in another order, moved by 0.1% */
	for (int i = 0; i < 10; i++)
		same[i] = base10[(i + 3) % 10] * 1.001;
	report(&r);
	assert_int_equal(cmp_report_add(&r, "ops", "1/s", 1, base10, 10, same, 10), 0);
	assert_int_equal(r.v[0].verdict, CMP_NO_CHANGE);
	assert_true(r.v[0].p >= 0.05);
	assert_true(r.v[0].ci_lo >= 0.98 && r.v[0].ci_hi <= 1.02);
	assert_int_equal(r.v[0].runs_needed, 0);
	cmp_report_release(&r);
}

static void test_uncertain(void **state)
{
	const double b[] = { 100, 120, 90 }, p[] = { 110, 95, 125 };
	const double nb[] = { 100, 140, 70, 120, 80, 130, 75 }, np[] = { 110, 90, 135, 85,
								       125, 140, 95 };
	struct cmp_report r;

	(void)state;
	report(&r);
	/* three runs a side, 15% spread: neither a change nor none is shown */
	assert_int_equal(cmp_report_add(&r, "few", "1/s", 1, b, 3, p, 3), 0);
	assert_int_equal(r.v[0].verdict, CMP_UNCERTAIN);
	assert_true(r.v[0].runs_needed >= CMP_MIN_N);
	assert_true(r.v[0].runs_needed <= CMP_RUNS_CAP);
	assert_true(r.v[0].noisy);
	/* seven runs a side, p >= 0.05, but the base is noisy: still uncertain */
	assert_int_equal(cmp_report_add(&r, "noisy", "1/s", 1, nb, 7, np, 7), 0);
	assert_true(r.v[1].noisy);
	assert_true(r.v[1].base_cv > CMP_NOISE_CV);
	assert_true(r.v[1].p >= 0.05);
	assert_int_equal(r.v[1].verdict, CMP_UNCERTAIN);
	assert_true(r.v[1].runs_needed > 7);
	cmp_report_release(&r);
}

static void test_noisy_flag(void **state)
{
	double wide[10], up[10];
	struct cmp_report r;

	(void)state;
	/* about 20% spread on the base side only; patched clearly higher */
	for (int i = 0; i < 10; i++)
		wide[i] = 100 + (base10[i] - 100) * 20;
	scaled(up, base10, 10, 2, 0);
	report(&r);
	assert_int_equal(cmp_report_add(&r, "ops", "1/s", 1, wide, 10, up, 10), 0);
	assert_true(r.v[0].noisy);
	assert_int_equal(r.v[0].verdict, CMP_BETTER);
	/* a quiet base is not noisy however much the patched side varies */
	assert_int_equal(cmp_report_add(&r, "ops2", "1/s", 1, base10, 10, wide, 10), 0);
	assert_false(r.v[1].noisy);
	cmp_report_release(&r);
}

static void test_cells(void **state)
{
	struct cmp_cell a = { "x86_64", 2, 1024, "tcg", NULL, NULL, 1, NULL };
	struct cmp_cell b = { "x86_64", 16, 1024, "kvm", "", NULL, 1, NULL };
	struct cmp_cell c = { "x86_64", 2, 1024, "tcg", "", NULL, 0, NULL };
	struct cmp_report r;
	char err[256];

	(void)state;
	assert_int_equal(cmp_report_init(&r, "j", "a", "b", &a, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "cells differ: vcpus 2 vs 16, accel 'tcg' vs 'kvm'");
	cmp_report_release(&r);
	b = a;
	b.host = "h2";
	assert_int_equal(cmp_report_init(&r, "j", "a", "b", &a, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "cells differ: host '' vs 'h2'");
	cmp_report_release(&r);
	b = a;
	b.topology = "2:1:1";
	b.numa_nodes = 2;
	assert_int_equal(cmp_report_init(&r, "j", "a", "b", &a, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "cells differ: topology '' vs '2:1:1', NUMA nodes 1 vs 2");
	cmp_report_release(&r);
	/* another guest setup: fast runs are not default runs */
	b = a;
	b.boot = "fast: qboot pvh loglevel=5 nokaslr tsc=reliable";
	assert_false(cmp_cell_same(&a, &b));
	assert_int_equal(cmp_report_init(&r, "j", "a", "b", &a, &b, err, sizeof(err)), -1);
	assert_string_equal(err, "cells differ: boot 'default' vs 'fast: qboot pvh loglevel=5 "
			    "nokaslr tsc=reliable'");
	cmp_report_release(&r);
	/* NULL and "" are both "not known"; 0 and 1 NUMA nodes are one node; a
	 * setup not recorded (runs from before schema 20) is the default */
	assert_true(cmp_cell_same(&a, &c));
	c.boot = "default";
	assert_true(cmp_cell_same(&a, &c));
	assert_int_equal(cmp_report_init(&r, "j", "a", "b", &a, &c, err, sizeof(err)), 0);
	cmp_report_release(&r);
}

static void test_bad_input(void **state)
{
	const double v[] = { 1, NAN };
	struct cmp_report r;

	(void)state;
	report(&r);
	assert_int_equal(cmp_report_add(&r, "x", NULL, 1, base10, 0, base10, 10), -1);
	assert_int_equal(cmp_report_add(&r, "x", NULL, 1, v, 2, base10, 10), -1);
	assert_int_equal(r.n, 0);
	/* a base median of 0: no ratio, no percentage, no crash */
	{
		const double z[] = { 0, 0, 0, 0, 0 }, one[] = { 1, 1, 1, 1, 1 };

		assert_int_equal(cmp_report_add(&r, "zero", NULL, 1, z, 5, one, 5), 0);
		assert_false(r.v[0].have_ci);
		assert_true(isnan(r.v[0].change_pct));
		assert_int_equal(r.v[0].verdict, CMP_UNCERTAIN);
	}
	cmp_report_release(&r);
}

/* The report the golden files show: one metric of each verdict, and one
 * with an outlying run */
static void golden_report(struct cmp_report *r)
{
	double up[10], down[10], same[10];
	const double b[] = { 100, 120, 90 }, p[] = { 110, 95, 125 };

	scaled(up, base10, 10, 1843.2, 0);
	scaled(down, base10, 10, 1843.2 * 0.93, 0);
	for (int i = 0; i < 10; i++)
		same[i] = base10[(i + 3) % 10] * 0.183 * 1.001;
	report(r);
	assert_int_equal(cmp_report_add(r, "sockets_per_sec", "1/s", 1, up, 10, down, 10), 0);
	scaled(up, base10, 10, 0.183, 0);
	assert_int_equal(cmp_report_add(r, "attach_latency", "ms", 0, up, 10, same, 10), 0);
	scaled(up, base10, 10, 18.2, 0);
	scaled(down, base10, 10, 18.2 * 0.8, 0);
	assert_int_equal(cmp_report_add(r, "setsockopt_p99", "µs", 0, up, 10, down, 9), 0);
	assert_int_equal(cmp_report_add(r, "forks", NULL, 1, b, 3, p, 3), 0);
	{
		/* one base run 1.5x: named, left out, and the 9% drop still shows */
		const double ob[] = { 101.2, 97.9, 150.6, 100.4, 102.8 };
		const double op[] = { 91.8, 89.6, 92.5, 90.1, 93.4 };
		const int64_t rb[] = { 11, 13, 15, 17, 19 }, rp[] = { 12, 14, 16, 18, 20 };
		struct cmp_metric_in in = { .name = "wakeups", .unit = "1/s", .higher_better = 1,
					    .v = { ob, op }, .run = { rb, rp }, .n = { 5, 5 } };

		assert_int_equal(cmp_report_add_metric(r, &in), 0);
	}
	cmp_report_note(r, "metric 'drops': no patched samples");
}

static void test_render(void **state)
{
	struct cmp_report r, back;
	struct buf b = BUF_INIT(0);
	json_t *j;
	char *s, err[256];

	(void)state;
	golden_report(&r);
	assert_int_equal(cmp_render_text(&r, CMP_COL_DEFAULT, &b), 0);
	tu_golden("analysis/report.txt", b.data, b.len);
	buf_reset(&b);
	assert_int_equal(cmp_render_text(&r, CMP_COL_ALL, &b), 0);
	tu_golden("analysis/report-all.txt", b.data, b.len);
	buf_reset(&b);
	assert_int_equal(cmp_render_markdown(&r, CMP_COL_DEFAULT, &b), 0);
	tu_golden("analysis/report.md", b.data, b.len);
	buf_reset(&b);

	j = cmp_report_json(&r);
	assert_non_null(j);
	s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	assert_non_null(s);
	tu_golden("analysis/report.json", s, strlen(s));
	free(s);

	/* what the CLI gets renders the same */
	assert_int_equal(cmp_report_from_json(j, &back, err, sizeof(err)), 0);
	assert_int_equal(cmp_render_text(&back, CMP_COL_ALL, &b), 0);
	tu_golden("analysis/report-all.txt", b.data, b.len);
	buf_reset(&b);
	cmp_report_release(&back);
	json_decref(j);

	/* not a report */
	j = json_pack("{s:i}", "cell", 1);
	assert_int_equal(cmp_report_from_json(j, &back, err, sizeof(err)), -1);
	assert_string_equal(err, "not a comparison: no cell or metrics");
	cmp_report_release(&back);
	json_decref(j);

	buf_release(&b);
	cmp_report_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direction),
		cmocka_unit_test(test_negative_base),
		cmocka_unit_test(test_no_change),
		cmocka_unit_test(test_uncertain),
		cmocka_unit_test(test_noisy_flag),
		cmocka_unit_test(test_cells),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
