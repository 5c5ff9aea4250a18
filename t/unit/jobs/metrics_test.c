// SPDX-License-Identifier: GPL-2.0-only
/* metrics_test.c: unit tests for metrics_parse() (jobs/metrics.c) on a
 * workload's output with good and malformed METRIC lines
 * (t/data/jobs/metrics.log) and on generated inputs: name bounds, number
 * forms, sequence numbers, NULs and invalid UTF-8, every cut, bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/testutil.h"
#include "t/unit/jobs/jobs_testutil.h"

static void parse_str(const char *in, struct job_samples *s)
{
	jt_parse_samples(metrics_parse, in, strlen(in), s, 0);
	jt_check_samples(s);
}

static void test_fixture(void **state)
{
	struct job_samples s;
	size_t n = 0;
	char *text = jt_fixture("metrics.log", &n);

	(void)state;
	jt_parse_samples(metrics_parse, text, n, &s, 0);
	jt_check_samples(&s);
	assert_int_equal(s.n, 9);
	jt_expect_sample(&s, "sockets_churned", 0, 1843200, "sockets");
	jt_expect_sample(&s, "sockets_churned", 1, 1843900, "sockets");
	jt_expect_sample(&s, "setsockopt_latency.p99", 0, 18.2, "us");
	jt_expect_sample(&s, "tcx/attach_first:ingress", 0, 0.183, "ms");
	jt_expect_sample(&s, "fork_longest", 0, -1.5e-3, "s");
	jt_expect_sample(&s, "unitless", 0, 42, NULL);
	jt_expect_sample(&s, "indented", 0, 7, "ops/s");
	assert_int_equal(jt_sample(&s, "sockets_churned", 1)->line, 19);
	/* each malformed METRIC line, with its line; other lines say nothing */
	assert_true(jt_has_note(&s.notes, 8, "without name=value"));
	assert_true(jt_has_note(&s.notes, 9, "value '' is not a decimal number"));
	assert_true(jt_has_note(&s.notes, 10, "value 'nan' is not a decimal number"));
	assert_true(jt_has_note(&s.notes, 11, "value '1e999' is out of range"));
	assert_true(jt_has_note(&s.notes, 12, "value '0x10' is not a decimal number"));
	assert_true(jt_has_note(&s.notes, 14, "text after the unit"));
	assert_true(jt_has_note(&s.notes, 15, "without name=value"));
	assert_int_equal(s.notes.n, 7);
	jt_golden_samples(&s, "metrics.out");
	job_samples_release(&s);
	free(text);
}

static void test_names(void **state)
{
	struct job_samples s;
	char in[512], name[200];

	(void)state;
	memset(name, 'n', 128);
	name[128] = '\0';
	snprintf(in, sizeof(in), "METRIC %s=1\nMETRIC %sx=2\n", name, name);
	parse_str(in, &s);
	assert_int_equal(s.n, 1);
	assert_int_equal(strlen(s.v[0].name), 128);
	assert_true(jt_has_note(&s.notes, 2, "is not [A-Za-z0-9_.:/-]{1,128}"));
	job_samples_release(&s);

	parse_str("METRIC Az09_.:/-=1\n"
		  "METRIC =1\n"
		  "METRIC a+b=1\n"
		  "METRIC \xc3\xa9t\xc3\xa9=1\n"
		  "METRIC a\"b=1\n", &s);
	assert_int_equal(s.n, 1);
	jt_expect_sample(&s, "Az09_.:/-", 0, 1, NULL);
	assert_int_equal(s.notes.n, 4);
	for (size_t line = 2; line <= 5; line++)
		assert_true(jt_has_note(&s.notes, line, "is not"));
	job_samples_release(&s);
}

static void test_values(void **state)
{
	static const struct {
		const char *text;
		double v;
	} good[] = {
		{ "0", 0 }, { "-0", 0 }, { "+1", 1 }, { ".5", 0.5 }, { "5.", 5 }, { "1e3", 1000 },
		{ "1E-3", 0.001 }, { "-12.25e+2", -1225 }, { "1.7976931348623157e308", 1.7976931348623157e308 },
		{ "4.9e-324", 4.9e-324 },
	};
	static const char *const bad[] = {
		"1e", "--1", "1.2.3", "+", ".", "e3", "inf", "-nan", "0x1p3", "1,5", "1_000", "2e400",
		"-2e400", "1e3x", "٣",
	};
	struct job_samples s;
	char in[128];

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(in, sizeof(in), "METRIC v=%s u\n", good[i].text);
		parse_str(in, &s);
		if (s.n != 1)
			fail_msg("'%s' was refused", good[i].text);
		jt_expect_sample(&s, "v", 0, good[i].v, "u");
		job_samples_release(&s);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(in, sizeof(in), "METRIC v=%s u\n", bad[i]);
		parse_str(in, &s);
		if (s.n != 0)
			fail_msg("'%s' was taken as %g", bad[i], s.v[0].value);
		assert_int_equal(s.notes.n, 1);
		job_samples_release(&s);
	}
}

static void test_units(void **state)
{
	struct job_samples s;
	char in[128];

	(void)state;
	parse_str("METRIC a=1 M/s\n"
		  "METRIC b=1 %\n"
		  "METRIC c=1 ops*s^-1\n"
		  "METRIC d=1 \xc2\xb5s\n"
		  "METRIC e=1 m s\n"
		  "METRIC f=1 \t ms \t\n", &s);
	jt_expect_sample(&s, "a", 0, 1, "M/s");
	jt_expect_sample(&s, "b", 0, 1, "%");
	jt_expect_sample(&s, "c", 0, 1, "ops*s^-1");
	jt_expect_sample(&s, "f", 0, 1, "ms");
	assert_true(jt_has_note(&s.notes, 4, "unit"));
	assert_true(jt_has_note(&s.notes, 5, "text after the unit"));
	assert_int_equal(s.n, 4);
	job_samples_release(&s);

	memset(in, 0, sizeof(in));
	snprintf(in, sizeof(in), "METRIC a=1 ");
	memset(in + strlen(in), 'u', JOB_UNIT_MAX + 1);
	parse_str(in, &s);
	assert_int_equal(s.n, 0);
	assert_true(jt_has_note(&s.notes, 1, "unit longer than"));
	job_samples_release(&s);
}

static void test_seq(void **state)
{
	struct job_samples s;

	(void)state;
	parse_str("METRIC a=1\nMETRIC b=1\nMETRIC a=2\nMETRIC a=3\nMETRIC b=2\n", &s);
	jt_expect_sample(&s, "a", 0, 1, NULL);
	jt_expect_sample(&s, "a", 2, 3, NULL);
	jt_expect_sample(&s, "b", 1, 2, NULL);
	job_samples_release(&s);
}

static void test_lines(void **state)
{
	static const char in[] = "METRIC crlf=1 ms\r\n"
				 "METRIC nul=1\0 ms\n"
				 "METRIC bad=1 \xff\n"
				 "METRIC\tTab=2\n"
				 "xMETRIC no=1\n"
				 "METRIC last=3 s";
	struct job_samples s;

	(void)state;
	jt_parse_samples(metrics_parse, in, sizeof(in) - 1, &s, 0);
	jt_check_samples(&s);
	jt_expect_sample(&s, "crlf", 0, 1, "ms");
	jt_expect_sample(&s, "Tab", 0, 2, NULL);
	jt_expect_sample(&s, "last", 0, 3, "s");
	assert_true(jt_has_note(&s.notes, 2, "not a decimal number"));
	assert_true(jt_has_note(&s.notes, 3, "unit"));
	assert_int_equal(s.n, 3);
	job_samples_release(&s);

	job_samples_init(&s, 0);
	assert_int_equal(metrics_parse(NULL, 0, &s), 0);
	assert_int_equal(s.n, 0);
	job_samples_release(&s);
}

static void test_every_cut(void **state)
{
	size_t n = 0;
	char *text = jt_fixture("metrics.log", &n);

	(void)state;
	jt_every_prefix_samples(metrics_parse, text, n);
	free(text);
}

static void test_bounds(void **state)
{
	struct job_samples s;
	char *big;
	size_t n;
	FILE *f = open_memstream(&big, &n);

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < 300; i++)
		fprintf(f, "METRIC m%d=%d\nMETRIC bad %d\n", i, i, i);
	fclose(f);
	jt_parse_samples(metrics_parse, big, n, &s, 10);
	jt_check_samples(&s);
	assert_int_equal(s.n, 10);
	assert_int_equal(s.truncated, 1);
	assert_true(jt_has_note(&s.notes, 21, "more than 10 samples"));
	job_samples_release(&s);

	/* notes are bounded, the rest only counted */
	jt_parse_samples(metrics_parse, big, n, &s, 0);
	jt_check_samples(&s);
	assert_int_equal(s.n, 300);
	assert_int_equal(s.notes.n, JOB_NOTES_MAX);
	assert_int_equal(s.notes.dropped, 300 - JOB_NOTES_MAX);
	job_samples_release(&s);
	free(big);

	/* a 1 MiB line */
	n = 1 << 20;
	big = malloc(n);
	assert_non_null(big);
	memcpy(big, "METRIC x=", 9);
	memset(big + 9, '9', n - 9);
	jt_parse_samples(metrics_parse, big, n, &s, 0);
	jt_check_samples(&s);
	assert_int_equal(s.n, 0);
	assert_int_equal(s.notes.n, 1);
	assert_true(strlen(s.notes.v[0].what) <= JOB_NOTE_MAX);
	job_samples_release(&s);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_seq),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
