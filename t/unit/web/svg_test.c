// SPDX-License-Identifier: GPL-2.0-only
/* svg_test.c: unit tests for web/svg.c: the strip plot (a row per series,
 * a dot per finite value, a median mark, labels and units escaped, nothing
 * to draw refused) and the trend chart (a point per commit with runs, the
 * band, a marker at a change point, commits as short ids, the metric's name
 * escaped, a trend without values refused). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/trend.h"
#include "common/buf.h"
#include "web/svg.h"

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_strip(void **state)
{
	static const double base[] = { 10, 11, NAN, 12 };
	static const double patched[] = { 20, 21 };
	struct svg_series s[2] = {
		{ "base", base, 4, 11 },
		{ "<patched>", patched, 2, NAN },
	};
	struct buf b = BUF_INIT(0);

	assert_int_equal(svg_strip(&b, "ops & more", "1/s", s, 2), 0);
	assert_int_equal(strncmp(buf_str(&b), "<svg class=\"strip\"", 18), 0);
	assert_non_null(strstr(buf_str(&b), "aria-label=\"ops &amp; more\""));
	assert_non_null(strstr(buf_str(&b), "<title>ops &amp; more</title>"));
	/* five finite values, one median (the other is NAN) */
	assert_int_equal(count(buf_str(&b), "<circle class=\"dot\""), 5);
	assert_int_equal(count(buf_str(&b), "<line class=\"median\""), 1);
	assert_non_null(strstr(buf_str(&b), "<title>base median: 11 1/s</title>"));
	assert_non_null(strstr(buf_str(&b), "&lt;patched&gt;: 21 1/s"));
	assert_null(strstr(buf_str(&b), "<patched>"));
	assert_string_equal(buf_str(&b) + b.len - 7, "</svg>\n");
	buf_release(&b);
}

static void test_strip_nothing(void **state)
{
	static const double none[] = { NAN, INFINITY };
	struct svg_series s = { "base", none, 2, NAN };
	struct buf b = BUF_INIT(0);

	assert_int_equal(svg_strip(&b, NULL, NULL, &s, 1), -1);
	assert_int_equal(b.len, 0);
	assert_int_equal(svg_strip(&b, NULL, NULL, &s, 0), -1);
	buf_release(&b);
}

/* 12 commits, a step of +50% after the 6th, 3 runs each */
static void trend_of_step(struct trend *t)
{
	static double v[12][3];
	static char ids[12][41];
	struct trend_point_in in[12];
	char err[256];

	for (int i = 0; i < 12; i++) {
		for (int j = 0; j < 3; j++)
			v[i][j] = (i < 6 ? 100 : 150) + j - 1;
		snprintf(ids[i], sizeof(ids[i]), "%040x", 0xabc000 + i);
		in[i] = (struct trend_point_in){ ids[i], 100 + i, v[i], 3 };
	}
	assert_int_equal(trend_build(t, in, 12, 0, err, sizeof(err)), 0);
}

static void test_trend(void **state)
{
	struct trend t;
	struct buf b = BUF_INIT(0);

	trend_of_step(&t);
	assert_true(t.nc >= 1);
	assert_int_equal(svg_trend(&b, &t, "lat<1>", "ns"), 0);
	assert_int_equal(strncmp(buf_str(&b), "<svg class=\"trend\"", 18), 0);
	assert_non_null(strstr(buf_str(&b), "aria-label=\"lat&lt;1&gt; across commits\""));
	assert_int_equal(count(buf_str(&b), "<circle class=\"point\""), 12);
	assert_int_equal(count(buf_str(&b), "<circle class=\"run\""), 36);
	assert_int_equal(count(buf_str(&b), "<polygon class=\"band\""), 1);
	/* lower is better: the step up is worse */
	assert_non_null(strstr(buf_str(&b), "<g class=\"change worse\""));
	assert_non_null(strstr(buf_str(&b), "+50.0% worse</text>"));
	/* commits as 12 hex digits */
	assert_non_null(strstr(buf_str(&b), ">000000000000</text>"));
	assert_null(strstr(buf_str(&b), "0000000000000000"));
	assert_non_null(strstr(buf_str(&b), "<text x=\"4\" y=\"16\" font-size=\"11\" fill=\"#555\">ns"));
	assert_string_equal(buf_str(&b) + b.len - 7, "</svg>\n");
	buf_release(&b);
	trend_release(&t);
}

static void test_trend_nothing(void **state)
{
	struct trend_point_in in[2] = { { "a", 1, NULL, 0 }, { "b", 2, NULL, 0 } };
	struct trend t;
	struct buf b = BUF_INIT(0);
	char err[256];

	assert_int_equal(trend_build(&t, in, 2, 1, err, sizeof(err)), 0);
	assert_int_equal(svg_trend(&b, &t, "ops", NULL), -1);
	assert_int_equal(b.len, 0);
	trend_release(&t);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip),
		cmocka_unit_test(test_strip_nothing),
		cmocka_unit_test(test_trend),
		cmocka_unit_test(test_trend_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
