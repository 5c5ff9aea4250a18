// SPDX-License-Identifier: GPL-2.0-only
/* scaling_test.c: cli/scaling.c without the daemon: kfleet test's --vcpus
 * list (what is refused and said), and the scaling tables from an
 * /api/compare answer's "comparisons" as the CLI reads them back (cells
 * of two vCPU counts give a table, one count or two arches none). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "cli/scaling.h"

static void test_vcpus_list(void **state)
{
	int v[CLI_VCPUS_MAX];
	size_t n;

	(void)state;
	assert_int_equal(cli_vcpus_list("test", "1,16,96", v, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(v[0], 1);
	assert_int_equal(v[2], 96);
	assert_int_equal(cli_vcpus_list("test", "4", v, &n), 0);
	assert_int_equal(n, 1);
	/* refused: not numbers, out of range, empty parts, twice, too many */
	assert_int_equal(cli_vcpus_list("test", "1,x", v, &n), -1);
	assert_int_equal(cli_vcpus_list("test", "0", v, &n), -1);
	assert_int_equal(cli_vcpus_list("test", "4097", v, &n), -1);
	assert_int_equal(cli_vcpus_list("test", "1,", v, &n), -1);
	assert_int_equal(cli_vcpus_list("test", "", v, &n), -1);
	assert_int_equal(cli_vcpus_list("test", "2,2", v, &n), -1);
	assert_int_equal(cli_vcpus_list("test", "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", v, &n),
			 -1);
}

static const double b[] = { 100, 101, 99, 100.5, 99.5 };
static const double p[] = { 80, 81, 79, 80.5, 79.5 };

/* A report's JSON as /api/compare gives it */
static json_t *report_json(const char *arch, int vcpus)
{
	struct cmp_cell c = { (char *)arch, vcpus, 1024, "tcg", "local", NULL, 1, NULL };
	struct cmp_report r;
	char err[128];
	json_t *j;

	assert_int_equal(cmp_report_init(&r, "bench", "kernel 1", "kernel 2", &c, &c, err,
					 sizeof(err)), 0);
	assert_int_equal(cmp_report_add(&r, "ops", "M/s", 1, b, 5, p, 5), 0);
	j = cmp_report_json(&r);
	cmp_report_release(&r);
	assert_non_null(j);
	return j;
}

static void test_render(void **state)
{
	json_t *a = json_array();
	struct buf out = BUF_INIT(0);

	(void)state;
	json_array_append_new(a, report_json("x86_64", 1));
	assert_int_equal(cli_scaling_render(a, 0, &out), 0);
	assert_int_equal(out.len, 0);            /* one count: no scaling */
	json_array_append_new(a, report_json("arm64", 2));
	assert_int_equal(cli_scaling_render(a, 0, &out), 0);
	assert_int_equal(out.len, 0);            /* two cells, but of two arches */
	json_array_append_new(a, report_json("x86_64", 4));
	assert_int_equal(cli_scaling_render(a, 0, &out), 0);
	assert_non_null(strstr(buf_str(&out), "scaling: bench: kernel 1 vs kernel 2\n"
			       "x86_64, 1024 MiB, tcg, host local, vCPUs 1, 4\n"));
	assert_non_null(strstr(buf_str(&out), "    4  5  100.0    80.00  -20.0%  worse\n"));
	buf_reset(&out);
	assert_int_equal(cli_scaling_render(a, 1, &out), 0);
	assert_non_null(strstr(buf_str(&out), "| 4 | 5 | 100.0 | 80.00 | -20.0% | worse |\n"));
	/* a malformed comparison is an error, not a crash */
	json_array_append_new(a, json_pack("{s:s}", "job", "x"));
	buf_reset(&out);
	assert_int_equal(cli_scaling_render(a, 0, &out), -1);
	buf_release(&out);
	json_decref(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vcpus_list),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
