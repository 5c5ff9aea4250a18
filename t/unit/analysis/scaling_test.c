// SPDX-License-Identifier: GPL-2.0-only
/* scaling_test.c: analysis/scaling.c with fixed reports: grouping by cell
 * but vcpus, the vCPUs-as-rows text and markdown tables (exact lines), a
 * later report of a count standing for an earlier one, and the SVG chart
 * (a point per side and count, escaped names, a log axis past 4x). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/scaling.h"

static const double b1[] = { 100, 101, 99, 100.5, 99.5 };
static const double p1[] = { 100, 100.5, 99.5, 101, 99 };
static const double b2[] = { 200, 202, 198, 201, 199 };
static const double p2[] = { 150, 151, 149, 150.5, 149.5 };

static void report(struct cmp_report *r, const char *arch, int vcpus, const char *name,
		   const double *b, const double *p)
{
	struct cmp_cell c = { (char *)arch, vcpus, 1024, "tcg", "local", NULL, 1, NULL };
	char err[128];

	assert_int_equal(cmp_report_init(r, "bench", "kernel 1 (6.1)", "kernel 2", &c, &c, err,
					 sizeof(err)), 0);
	assert_int_equal(cmp_report_add(r, name, "M/s", 1, b, 5, p, 5), 0);
}

static void test_group(void **state)
{
	struct cmp_report r[3];
	const struct cmp_report *v[3] = { &r[0], &r[1], &r[2] };
	size_t g[3];

	(void)state;
	report(&r[0], "x86_64", 1, "ops", b1, p1);
	report(&r[1], "arm64", 1, "ops", b1, p1);
	report(&r[2], "x86_64", 2, "ops", b2, p2);
	assert_int_equal(scaling_group(v, 3, g), 2);
	assert_int_equal(g[0], 0);
	assert_int_equal(g[1], 1);
	assert_int_equal(g[2], 0);
	for (int i = 0; i < 3; i++)
		cmp_report_release(&r[i]);
}

static void test_text(void **state)
{
	struct cmp_report r[2];
	/* given out of order: rows still by vCPUs */
	const struct cmp_report *v[2] = { &r[1], &r[0] };
	struct scaling s;
	struct buf b = BUF_INIT(0);

	(void)state;
	report(&r[0], "x86_64", 1, "ops", b1, p1);
	report(&r[1], "x86_64", 16, "ops", b2, p2);
	assert_int_equal(scaling_build(&s, v, 2), 0);
	assert_int_equal(s.nv, 2);
	assert_int_equal(s.vcpus[0], 1);
	assert_int_equal(s.vcpus[1], 16);
	assert_int_equal(scaling_render_text(&s, &b), 0);
	assert_non_null(strstr(b.data, "scaling: bench: kernel 1 (6.1) vs kernel 2\n"
			       "x86_64, 1024 MiB, tcg, host local, vCPUs 1, 16\n\n"
			       "ops (M/s, higher is better)\n"
			       "vCPUs  n   base  patched  change  verdict\n"
			       "    1  5  100.0    100.0    0.0%  no change\n"
			       "   16  5  200.0    150.0  -25.0%  worse\n"));
	assert_null(strstr(b.data, " \n"));
	buf_reset(&b);
	assert_int_equal(scaling_render_markdown(&s, &b), 0);
	assert_non_null(strstr(b.data, "**scaling: bench: kernel 1 (6.1) vs kernel 2**  \n"));
	assert_non_null(strstr(b.data, "*ops (M/s, higher is better)*\n\n"
			       "| vCPUs | n | base | patched | change | verdict |\n"
			       "| ---: | ---: | ---: | ---: | ---: | :--- |\n"
			       "| 1 | 5 | 100.0 | 100.0 | 0.0% | no change |\n"
			       "| 16 | 5 | 200.0 | 150.0 | -25.0% | worse |\n"));
	buf_release(&b);
	scaling_release(&s);
	cmp_report_release(&r[0]);
	cmp_report_release(&r[1]);
}

static void test_later_wins(void **state)
{
	struct cmp_report r[3];
	const struct cmp_report *v[3] = { &r[0], &r[1], &r[2] };
	struct scaling s;

	(void)state;
	report(&r[0], "x86_64", 2, "ops", b1, p1);
	report(&r[1], "x86_64", 1, "ops", b1, p1);
	report(&r[2], "x86_64", 2, "ops", b2, p2);
	assert_int_equal(scaling_build(&s, v, 3), 0);
	assert_int_equal(s.nv, 2);
	assert_int_equal(s.nm, 1);
	assert_int_equal(s.m[0].n, 2);
	assert_ptr_equal(s.m[0].p[1].m, &r[2].v[0]);
	scaling_release(&s);
	for (int i = 0; i < 3; i++)
		cmp_report_release(&r[i]);
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static void test_svg(void **state)
{
	struct cmp_report r[3];
	const struct cmp_report *v[3] = { &r[0], &r[1], &r[2] };
	struct scaling s;
	struct buf b = BUF_INIT(0);

	(void)state;
	report(&r[0], "x86_64", 1, "a<b&\"c\"", b1, p1);
	report(&r[1], "x86_64", 4, "a<b&\"c\"", b2, p2);
	report(&r[2], "x86_64", 16, "a<b&\"c\"", b2, p1);
	assert_int_equal(scaling_build(&s, v, 3), 0);
	assert_int_equal(scaling_svg(&s, 0, &b), 0);
	assert_memory_equal(b.data, "<svg class=\"scaling\"", 20);
	assert_int_equal(count(b.data, "<circle class=\"point base\""), 3);
	assert_int_equal(count(b.data, "<circle class=\"point patched\""), 3);
	assert_int_equal(count(b.data, "class=\"whisker\""), 6);
	assert_int_equal(count(b.data, "<text class=\"vcpus\""), 3);
	/* 16x the least: a log axis, said so */
	assert_non_null(strstr(b.data, "vCPUs (log scale)"));
	assert_non_null(strstr(b.data, "a&lt;b&amp;&quot;c&quot; against vCPUs"));
	assert_null(strstr(b.data, "a<b"));
	assert_non_null(strstr(b.data, ">-25.0%<title>4 vCPUs: -25.0%, worse</title>"));
	assert_non_null(strstr(b.data, "<title>patched at 4 vCPUs: median 150.0 M/s, runs from "
			       "149.0 to 151.0, 5 runs</title>"));
	/* the legend has the kernel, not its parenthesis */
	assert_non_null(strstr(b.data, ">kernel 1 </text>"));
	assert_int_equal(count(b.data, "<svg"), 1);
	assert_non_null(strstr(b.data, "</svg>\n"));
	/* out of range, and a cap that cuts it */
	assert_int_equal(scaling_svg(&s, 1, &b), -1);
	buf_release(&b);
	{
		struct buf small = BUF_INIT(200);

		assert_int_equal(scaling_svg(&s, 0, &small), -1);
		buf_release(&small);
	}
	scaling_release(&s);
	for (int i = 0; i < 3; i++)
		cmp_report_release(&r[i]);
}

static void test_linear_and_empty(void **state)
{
	struct cmp_report r[2];
	const struct cmp_report *v[2] = { &r[0], &r[1] };
	struct scaling s;
	struct buf b = BUF_INIT(0);

	(void)state;
	assert_int_equal(scaling_build(&s, v, 0), -1);
	scaling_release(&s);
	report(&r[0], "x86_64", 1, "ops", b1, p1);
	report(&r[1], "x86_64", 2, "ops", b2, p2);
	assert_int_equal(scaling_build(&s, v, 2), 0);
	assert_int_equal(scaling_svg(&s, 0, &b), 0);
	assert_null(strstr(b.data, "log scale"));
	buf_release(&b);
	scaling_release(&s);
	cmp_report_release(&r[0]);
	cmp_report_release(&r[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_later_wins),
		cmocka_unit_test(test_svg),
		cmocka_unit_test(test_linear_and_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
