// SPDX-License-Identifier: GPL-2.0-only
/* trend_test.c: unit tests for analysis/trend.c on synthetic commits: a
 * clean step is found at its index with the direction the metric's sense
 * gives, one outlier point (in the middle or at either end) is not a step,
 * flat noisy data has none, two steps are both found, commits without runs
 * are stepped over; the per-commit summary and quantiles; pass-rate
 * regressions and fixes that hold, and a single failure that does not;
 * refused input and the JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/trend.h"
#include "t/unit/testutil.h"

#define RUNS 3
#define NPTS_MAX 64

/* commits c0, c1, ... with RUNS values each: level[i] times a small
 * deterministic wobble (+-1%) */
struct fixture {
	char names[NPTS_MAX][24];
	double v[NPTS_MAX][RUNS];
	struct trend_point_in in[NPTS_MAX];
	size_t n;
};

static void fill(struct fixture *f, const double *level, size_t n)
{
	static const double wobble[RUNS] = { -0.01, 0.004, 0.009 };

	assert_true(n <= NPTS_MAX);
	memset(f, 0, sizeof(*f));
	f->n = n;
	for (size_t i = 0; i < n; i++) {
		snprintf(f->names[i], sizeof(f->names[i]), "c%zu", i);
		for (size_t r = 0; r < RUNS; r++)
			f->v[i][r] = level[i] * (1 + wobble[(r + i) % RUNS]);
		f->in[i] = (struct trend_point_in){ f->names[i], (int64_t)i + 10, f->v[i], RUNS };
	}
}

static void build(struct trend *t, const struct fixture *f, int higher_better)
{
	char err[256] = "";

	if (trend_build(t, f->in, f->n, higher_better, err, sizeof(err)) < 0)
		fail_msg("trend_build: %s", err);
}

static void test_clean_step(void **state)
{
	double level[12];
	struct fixture f;
	struct trend t;

	(void)state;
	for (size_t i = 0; i < 12; i++)
		level[i] = i < 7 ? 100 : 80;
	fill(&f, level, 12);
	build(&t, &f, 1);
	assert_int_equal(t.nc, 1);
	assert_int_equal(t.c[0].index, 7);
	assert_int_equal(t.c[0].dir, TREND_WORSE);
	assert_true(fabs(t.c[0].before - 100) < 1.5);
	assert_true(fabs(t.c[0].after - 80) < 1.5);
	assert_true(t.c[0].change_pct < -18 && t.c[0].change_pct > -22);
	assert_true(t.c[0].p < TREND_ALPHA);
	assert_int_equal(t.c[0].n_before, 7 * RUNS);
	assert_int_equal(t.c[0].n_after, 5 * RUNS);
	trend_release(&t);
	/* the same step for a metric where lower is better, and unknown */
	build(&t, &f, 0);
	assert_int_equal(t.nc, 1);
	assert_int_equal(t.c[0].dir, TREND_BETTER);
	trend_release(&t);
	build(&t, &f, -1);
	assert_int_equal(t.nc, 1);
	assert_int_equal(t.c[0].dir, TREND_CHANGED);
	trend_release(&t);
}

static void test_step_near_the_end(void **state)
{
	double level[8] = { 50, 50, 50, 50, 50, 50, 60, 60 };
	struct fixture f;
	struct trend t;

	(void)state;
	/* two points after it are enough */
	fill(&f, level, 8);
	build(&t, &f, 1);
	assert_int_equal(t.nc, 1);
	assert_int_equal(t.c[0].index, 6);
	assert_int_equal(t.c[0].dir, TREND_BETTER);
	trend_release(&t);
	/* one is not */
	level[6] = 50;
	fill(&f, level, 8);
	build(&t, &f, 1);
	assert_int_equal(t.nc, 0);
	trend_release(&t);
}

static void test_outlier_is_not_a_step(void **state)
{
	static const size_t where[] = { 0, 1, 5, 10, 11 };
	double level[12];
	struct fixture f;
	struct trend t;

	(void)state;
	for (size_t w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
		for (size_t i = 0; i < 12; i++)
			level[i] = i == where[w] ? 40 : 100;
		fill(&f, level, 12);
		build(&t, &f, 1);
		if (t.nc)
			fail_msg("outlier at %zu: change point at %zu", where[w], t.c[0].index);
		/* the point itself is summarised as it is */
		assert_true(fabs(t.v[where[w]].median - 40) < 1);
		trend_release(&t);
	}
}

/* With many runs per commit, the last commit's outlier and the one before
 * it differ from the rest with a tiny p: only the rule that a step holds
 * (most points of each side on their side of the midpoint) keeps it out */
static void test_outlier_many_runs(void **state)
{
	static double v[12][10];
	struct trend_point_in in[12];
	static char names[12][8];
	struct trend t;
	char err[128];

	(void)state;
	for (size_t i = 0; i < 12; i++) {
		snprintf(names[i], sizeof(names[i]), "c%zu", i);
		for (size_t r = 0; r < 10; r++)
			v[i][r] = (i == 11 ? 40 : 100) + (double)r * 0.1;
		in[i] = (struct trend_point_in){ names[i], (int64_t)i, v[i], 10 };
	}
	assert_int_equal(trend_build(&t, in, 12, 1, err, sizeof(err)), 0);
	if (t.nc)
		fail_msg("change point at %zu (%+.1f%%, p %g)", t.c[0].index, t.c[0].change_pct,
			 t.c[0].p);
	trend_release(&t);
}

/* xorshift: the same noise on every host */
static double noise(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (double)(*s % 10001) / 10000.0 * 2 - 1;   /* -1 .. 1 */
}

static void test_flat_noisy(void **state)
{
	struct fixture f;
	struct trend t;

	(void)state;
	for (uint64_t seed = 1; seed <= 25; seed++) {
		uint64_t s = seed * 0x9e3779b97f4a7c15ULL;

		memset(&f, 0, sizeof(f));
		f.n = 40;
		for (size_t i = 0; i < f.n; i++) {
			snprintf(f.names[i], sizeof(f.names[i]), "c%zu", i);
			for (size_t r = 0; r < RUNS; r++)
				f.v[i][r] = 1000 * (1 + 0.05 * noise(&s));   /* +-5% */
			f.in[i] = (struct trend_point_in){ f.names[i], (int64_t)i, f.v[i], RUNS };
		}
		build(&t, &f, 1);
		if (t.nc)
			fail_msg("seed %llu: change point at %zu (%+.1f%%, p %g)",
				 (unsigned long long)seed, t.c[0].index, t.c[0].change_pct, t.c[0].p);
		trend_release(&t);
	}
}

static void test_small_shift_below_threshold(void **state)
{
	double level[12];
	struct fixture f;
	struct trend t;

	(void)state;
	/* 2% is significant with this little noise, but below the threshold */
	for (size_t i = 0; i < 12; i++)
		level[i] = i < 6 ? 100 : 98;
	fill(&f, level, 12);
	for (size_t i = 0; i < 12; i++)   /* no wobble: every run exact */
		for (size_t r = 0; r < RUNS; r++)
			f.v[i][r] = level[i] + (double)r * 0.01;
	build(&t, &f, 1);
	assert_int_equal(t.nc, 0);
	trend_release(&t);
}

static void test_two_steps(void **state)
{
	double level[15];
	struct fixture f;
	struct trend t;

	(void)state;
	for (size_t i = 0; i < 15; i++)
		level[i] = i < 5 ? 100 : i < 10 ? 120 : 90;
	fill(&f, level, 15);
	build(&t, &f, 1);
	assert_int_equal(t.nc, 2);
	assert_int_equal(t.c[0].index, 5);
	assert_int_equal(t.c[0].dir, TREND_BETTER);
	assert_true(t.c[0].change_pct > 18 && t.c[0].change_pct < 22);
	assert_int_equal(t.c[1].index, 10);
	assert_int_equal(t.c[1].dir, TREND_WORSE);
	assert_true(t.c[1].change_pct < -23 && t.c[1].change_pct > -27);
	/* each step's sides end at the other step */
	assert_int_equal(t.c[0].n_before, 5 * RUNS);
	assert_int_equal(t.c[0].n_after, 5 * RUNS);
	assert_int_equal(t.c[1].n_before, 5 * RUNS);
	trend_release(&t);
}

static void test_empty_points_stepped_over(void **state)
{
	double level[10] = { 10, 10, 10, 10, 10, 5, 5, 5, 5, 5 };
	struct fixture f;
	struct trend t;

	(void)state;
	fill(&f, level, 10);
	/* commits 3 and 6 have no passed runs (results only) */
	f.in[3].n = 0;
	f.in[3].v = NULL;
	f.in[6].n = 0;
	build(&t, &f, 0);
	assert_true(isnan(t.v[3].median));
	assert_int_equal(t.v[3].n, 0);
	assert_int_equal(t.nc, 1);
	assert_int_equal(t.c[0].index, 5);
	assert_int_equal(t.c[0].dir, TREND_BETTER);   /* lower is better */
	trend_release(&t);
}

static void test_summary(void **state)
{
	double v1[3] = { 3, 1, 2 }, v2[4] = { 10, 40, 20, 30 }, sorted[2] = { 1, 3 };
	struct trend_point_in in[2] = { { "a", 1, v1, 3 }, { "b", 2, v2, 4 } };
	struct trend t;
	char err[128];

	(void)state;
	assert_int_equal(trend_build(&t, in, 2, 1, err, sizeof(err)), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.v[0].commit, "a");
	assert_int_equal(t.v[1].order, 2);
	assert_true(t.v[0].median == 2 && t.v[0].p25 == 1.5 && t.v[0].p75 == 2.5);
	assert_true(t.v[0].min == 1 && t.v[0].max == 3);
	assert_true(t.v[1].median == 25 && t.v[1].p25 == 17.5 && t.v[1].p75 == 32.5);
	assert_true(t.v[1].v[0] == 10 && t.v[1].v[3] == 40);   /* sorted copy */
	assert_true(v2[1] == 40);                               /* input left alone */
	assert_int_equal(t.nc, 0);   /* two points cannot have a change point */
	trend_release(&t);
	assert_true(trend_quantile(sorted, 2, 0.5) == 2);
	assert_true(trend_quantile(sorted, 1, 0.75) == 1);
	assert_true(isnan(trend_quantile(sorted, 0, 0.5)));
}

static void test_bad_input(void **state)
{
	double v[TREND_RUNS_MAX + 1] = { 0 }, inf[2] = { 1, INFINITY };
	struct trend_point_in in[1] = { { "c0", 0, v, TREND_RUNS_MAX + 1 } };
	struct trend t;
	char err[128];

	(void)state;
	assert_int_equal(trend_build(&t, in, 1, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "runs, more than"));
	trend_release(&t);
	in[0] = (struct trend_point_in){ "c0", 0, inf, 2 };
	assert_int_equal(trend_build(&t, in, 1, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not finite"));
	trend_release(&t);
	in[0] = (struct trend_point_in){ NULL, 0, v, 1 };
	assert_int_equal(trend_build(&t, in, 1, 1, err, sizeof(err)), -1);
	trend_release(&t);
	assert_int_equal(trend_build(&t, in, TREND_POINTS_MAX + 1, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "commits, more than"));
	trend_release(&t);
}

/* ---- pass rates ---- */

/* 6 commits, 2 runs each (run ids point*10 + r); status of path at point */
struct pr {
	struct trend_result rows[256];
	size_t n;
};

static void add_path(struct pr *p, const char *path, const char *const st[6])
{
	for (size_t i = 0; i < 6; i++)
		for (int r = 0; r < 2; r++) {
			if (!st[i])
				continue;
			/* the second run of a "flaky" point passes */
			p->rows[p->n++] = (struct trend_result){ i, (int64_t)(i * 10 + (size_t)r),
				path, r && !strcmp(st[i], "flaky") ? "pass"
				: !strcmp(st[i], "flaky") ? "fail" : st[i] };
		}
}

static void passrate_trend(struct trend *t, struct pr *p)
{
	double level[6] = { 1, 1, 1, 1, 1, 1 };
	struct fixture f;
	char err[256] = "";

	fill(&f, level, 6);
	build(t, &f, 1);
	if (trend_passrate(t, p->rows, p->n, err, sizeof(err)) < 0)
		fail_msg("trend_passrate: %s", err);
}

static const struct trend_test *find_test(const struct trend *t, const char *path)
{
	for (size_t i = 0; i < t->ntests; i++)
		if (!strcmp(t->tests[i].path, path))
			return &t->tests[i];
	return NULL;
}

static void test_passrate(void **state)
{
	static const char *const regress[6] = { "pass", "pass", "pass", "fail", "error", "fail" };
	static const char *const once[6] = { "pass", "pass", "fail", "pass", "pass", "pass" };
	static const char *const fixed[6] = { "fail", "timeout", "pass", "pass", "xfail", "pass" };
	static const char *const good[6] = { "pass", "pass", "pass", "pass", "pass", "pass" };
	static const char *const last[6] = { "pass", "pass", "pass", "pass", "pass", "fail" };
	/* skipped where it broke: the next verdicts still hold */
	static const char *const gap[6] = { "pass", "pass", "skip", "flaky", "fail", "pass" };
	/* failing every other commit: flaky, never held */
	static const char *const alt[6] = { "pass", "fail", "pass", "fail", "pass", "fail" };
	struct pr *p = calloc(1, sizeof(*p));
	const struct trend_test *x;
	struct trend t;

	(void)state;
	assert_non_null(p);
	add_path(p, "net/regress", regress);
	add_path(p, "net/once", once);
	add_path(p, "net/fixed", fixed);
	add_path(p, "net/good", good);
	add_path(p, "net/last", last);
	add_path(p, "net/gap", gap);
	add_path(p, "net/alt", alt);
	/* a run of commit 1 that crashed before any output */
	p->rows[p->n++] = (struct trend_result){ 1, 99, NULL, NULL };
	passrate_trend(&t, p);
	assert_true(t.have_passrate);
	assert_int_equal(t.runs[0], 2);
	assert_int_equal(t.runs[1], 3);
	assert_int_equal(t.always_pass, 1);
	assert_int_equal(t.ntests, 6);
	assert_string_equal(t.tests[0].path, "net/alt");   /* by path */
	x = find_test(&t, "net/regress");
	assert_non_null(x);
	assert_int_equal(x->c[2].pass, 2);
	assert_int_equal(x->c[3].fail, 2);
	assert_int_equal(x->c[1].skip, 1);   /* the crashed run */
	x = find_test(&t, "net/gap");
	assert_int_equal(x->c[2].skip, 2);
	assert_int_equal(x->c[3].pass, 1);
	assert_int_equal(x->c[3].fail, 1);
	/* events: fixed at 2, regress at 3, gap at 3; once, last and alt none */
	assert_int_equal(t.nev, 3);
	assert_int_equal(t.ev[0].index, 2);
	assert_int_equal(t.ev[0].kind, TREND_FIX);
	assert_string_equal(t.tests[t.ev[0].test].path, "net/fixed");
	assert_int_equal(t.ev[1].index, 3);
	assert_int_equal(t.ev[2].index, 3);
	assert_int_equal(t.ev[1].kind, TREND_REGRESSION);
	assert_int_equal(t.ev[2].kind, TREND_REGRESSION);
	assert_string_equal(t.tests[t.ev[1].test].path, "net/gap");
	assert_string_equal(t.tests[t.ev[2].test].path, "net/regress");
	/* flips across commits: a regression is one, alternating is five of
	 * five; gap flipped on the kernel of commit 3 (pass and fail there) */
	x = find_test(&t, "net/regress");
	assert_int_equal(x->flips, 1);
	assert_int_equal(x->chances, 5);
	assert_int_equal(x->flaky_points, 0);
	x = find_test(&t, "net/alt");
	assert_int_equal(x->flips, 5);
	assert_int_equal(x->chances, 5);
	x = find_test(&t, "net/once");
	assert_int_equal(x->flips, 2);
	x = find_test(&t, "net/gap");
	assert_int_equal(x->chances, 4);     /* the skipped commit gave no verdict */
	assert_int_equal(x->flips, 2);       /* pass, pass, [skip], fail, fail, pass */
	assert_int_equal(x->flaky_points, 1);
	trend_release(&t);
	free(p);
}

static void test_passrate_bad_input(void **state)
{
	struct trend_result bad_status[1] = { { 0, 1, "a", "sort-of" } };
	struct trend_result bad_point[1] = { { 6, 1, "a", "pass" } };
	double level[6] = { 1, 1, 1, 1, 1, 1 };
	struct fixture f;
	struct trend t;
	char err[128];

	(void)state;
	fill(&f, level, 6);
	build(&t, &f, 1);
	assert_int_equal(trend_passrate(&t, bad_status, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'sort-of' is unknown"));
	assert_int_equal(trend_passrate(&t, bad_point, 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "point 6 of 6"));
	trend_release(&t);
}

static void test_json(void **state)
{
	static const char *const regress[6] = { "pass", "pass", "pass", "fail", "fail", "fail" };
	double level[12];
	struct fixture f;
	struct trend t;
	struct pr *p = calloc(1, sizeof(*p));
	json_t *j, *c, *pt;
	char err[128];

	(void)state;
	assert_non_null(p);
	for (size_t i = 0; i < 12; i++)
		level[i] = i < 4 ? 4.8 : 0.05;
	fill(&f, level, 12);
	f.in[11].n = 0;
	build(&t, &f, 1);
	add_path(p, "x/y", regress);
	assert_int_equal(trend_passrate(&t, p->rows, p->n, err, sizeof(err)), 0);
	j = trend_json(&t);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "better")), "higher");
	assert_int_equal(json_array_size(json_object_get(j, "points")), 12);
	pt = json_array_get(json_object_get(j, "points"), 11);
	assert_true(json_is_null(json_object_get(pt, "median")));
	assert_int_equal(json_integer_value(json_object_get(pt, "order")), 21);
	pt = json_array_get(json_object_get(j, "points"), 0);
	assert_int_equal(json_array_size(json_object_get(pt, "values")), RUNS);
	assert_int_equal(json_array_size(json_object_get(j, "changes")), 1);
	c = json_array_get(json_object_get(j, "changes"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "commit")), "c4");
	assert_string_equal(json_string_value(json_object_get(c, "verdict")), "worse");
	assert_true(json_real_value(json_object_get(c, "change_pct")) < -98);
	c = json_array_get(json_object_get(json_object_get(j, "passrate"), "events"), 0);
	assert_string_equal(json_string_value(json_object_get(c, "kind")), "regression");
	assert_string_equal(json_string_value(json_object_get(c, "commit")), "c3");
	c = json_array_get(json_object_get(json_object_get(j, "passrate"), "tests"), 0);
	assert_int_equal(json_integer_value(json_object_get(c, "flips")), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "chances")), 5);
	assert_true(json_real_value(json_object_get(c, "flip_rate")) == 0.2);
	assert_int_equal(json_integer_value(json_object_get(c, "flaky_points")), 0);
	json_decref(j);
	trend_release(&t);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_step),
		cmocka_unit_test(test_step_near_the_end),
		cmocka_unit_test(test_outlier_is_not_a_step),
		cmocka_unit_test(test_outlier_many_runs),
		cmocka_unit_test(test_flat_noisy),
		cmocka_unit_test(test_small_shift_below_threshold),
		cmocka_unit_test(test_two_steps),
		cmocka_unit_test(test_empty_points_stepped_over),
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_passrate),
		cmocka_unit_test(test_passrate_bad_input),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
