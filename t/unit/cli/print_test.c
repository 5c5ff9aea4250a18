// SPDX-License-Identifier: GPL-2.0-only
/* print_test.c: unit tests for cli/print.c, what the kfleet commands share
 * to read an API answer (strings and integers with their defaults), to
 * print durations and lists and to check an option's number, and for
 * cli_compare_columns (cli/cmd_compare.c), the --columns parser, and
 * cli_margin_check, --margin's. */
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
#include "cli/cli.h"
#include "common/buf.h"
#include "t/unit/testutil.h"

static void test_jstr_jint(void **state)
{
	json_t *o = json_pack("{s:s, s:s, s:i, s:f, s:n}", "name", "kselftest", "empty", "",
			      "n", 42, "x", 1.5, "nul");

	assert_non_null(o);
	assert_string_equal(cli_jstr(o, "name", NULL), "kselftest");
	assert_string_equal(cli_jstr(o, "empty", "-"), "");
	assert_null(cli_jstr(o, "missing", NULL));
	assert_string_equal(cli_jstr(o, "n", "dflt"), "dflt");      /* not a string */
	assert_string_equal(cli_jstr(NULL, "name", "none"), "none");
	assert_string_equal(cli_jdash(o, "name"), "kselftest");
	assert_string_equal(cli_jdash(o, "empty"), "-");
	assert_string_equal(cli_jdash(o, "missing"), "-");
	assert_string_equal(cli_jdash(o, "nul"), "-");
	assert_int_equal(cli_jint(o, "n", -1), 42);
	assert_int_equal(cli_jint(o, "x", -1), -1);                  /* a real, not an integer */
	assert_int_equal(cli_jint(o, "name", 7), 7);
	assert_int_equal(cli_jint(o, "missing", 0), 0);
	assert_string_equal(cli_or_dash(NULL), "-");
	assert_string_equal(cli_or_dash(""), "-");
	assert_string_equal(cli_or_dash("a"), "a");
	json_decref(o);
}

static void test_fmt_duration(void **state)
{
	static const struct { long long ms; const char *want; } cases[] = {
		{ -1, "-" },
		{ 0, "0 ms" },
		{ 999, "999 ms" },
		{ 1000, "1.0 s" },
		{ 2550, "2.5 s" },
		{ 59999, "59.9 s" },
		{ 60000, "1 min 00 s" },
		{ 184000, "3 min 04 s" },
		{ 3600000, "1 h 00 min" },
		{ 7500000, "2 h 05 min" },
	};
	char out[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cli_fmt_duration(cases[i].ms, out);
		assert_string_equal(out, cases[i].want);
	}
}

static void test_join_strs(void **state)
{
	json_t *a = json_pack("[s, i, s]", "bpf", 3, "net");
	struct buf b = BUF_INIT(0);

	cli_join_strs(&b, a, ",");
	assert_string_equal(buf_str(&b), "bpf,?,net");
	buf_reset(&b);
	cli_join_strs(&b, json_object_get(a, "x"), " ");   /* not an array: nothing */
	assert_int_equal(b.len, 0);
	buf_release(&b);
	json_decref(a);
}

/* cli_parse_num with one argument set, for tu_run_captured */
static const char *num_arg;
static long long num_out;

static int run_parse_num(int argc, char **argv)
{
	return cli_parse_num("run", "--vcpus", num_arg, 1, 4096, &num_out);
}

static void test_parse_num(void **state)
{
	static const char *bad[] = { "0", "4097", "-1", "abc", "", "12x", " 3", "99999999999999999999" };
	char *out, *err;

	num_arg = "64";
	assert_int_equal(tu_run_captured(run_parse_num, NULL, 0, &out, &err), 0);
	assert_int_equal(num_out, 64);
	assert_string_equal(err, "");
	free(out);
	free(err);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char want[200];

		num_arg = bad[i];
		num_out = -7;
		assert_int_equal(tu_run_captured(run_parse_num, NULL, 0, &out, &err), -1);
		snprintf(want, sizeof(want),
			 "kfleet: run: --vcpus '%s': not a number from 1 to 4096\n", bad[i]);
		assert_string_equal(err, want);
		assert_string_equal(out, "");
		free(out);
		free(err);
	}
}

static void test_compare_columns(void **state)
{
	unsigned cols = 0;

	assert_int_equal(cli_compare_columns("avg", &cols), 0);
	assert_int_equal(cols, CMP_COL_MEAN);
	cols = 0;
	assert_int_equal(cli_compare_columns("p99,max,test", &cols), 0);
	assert_int_equal(cols, CMP_COL_P99 | CMP_COL_MAX | CMP_COL_TEST);
	cols = CMP_COL_DEFAULT;    /* the words add to what is there */
	assert_int_equal(cli_compare_columns("max", &cols), 0);
	assert_int_equal(cols, CMP_COL_DEFAULT | CMP_COL_MAX);
	cols = 0;
	assert_int_equal(cli_compare_columns("all", &cols), 0);
	assert_int_equal(cols, CMP_COL_ALL);
	cols = 0;
	assert_int_equal(cli_compare_columns("avg,,p99", &cols), 0);   /* empty words skipped */
	assert_int_equal(cols, CMP_COL_MEAN | CMP_COL_P99);
	assert_int_equal(cli_compare_columns("avg,median", &cols), -1);
	assert_int_equal(cli_compare_columns("AVG", &cols), -1);
}

static void test_margin_check(void **state)
{
	(void)state;
	assert_int_equal(cli_margin_check("compare", "3"), 0);
	assert_int_equal(cli_margin_check("compare", "2.5%"), 0);
	assert_int_equal(cli_margin_check("compare", "50"), 0);
	assert_int_equal(cli_margin_check("compare", "0"), -1);
	assert_int_equal(cli_margin_check("compare", "51"), -1);
	assert_int_equal(cli_margin_check("compare", "-1"), -1);
	assert_int_equal(cli_margin_check("compare", "3 %"), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_jstr_jint),
		cmocka_unit_test(test_fmt_duration),
		cmocka_unit_test(test_join_strs),
		cmocka_unit_test(test_parse_num),
		cmocka_unit_test(test_compare_columns),
		cmocka_unit_test(test_margin_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
