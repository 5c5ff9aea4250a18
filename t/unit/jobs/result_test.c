// SPDX-License-Identifier: GPL-2.0-only
/* result_test.c: unit tests for jobs/result.c, what every output parser
 * builds on: status names, the line iterator (CRLF, no final newline),
 * job_clean's UTF-8 and control-byte rules and its cut, notes and their cap,
 * bounded result and sample lists with their counts, the string index,
 * strict decimals, and the JSON form the API serves. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>

#include "jobs/jobsint.h"

static void test_status_names(void **state)
{
	enum job_status st = JOB_PASS;

	(void)state;
	for (int i = 0; i < JOB_STATUS_COUNT; i++) {
		assert_int_equal(job_status_parse(job_status_name((enum job_status)i), &st), 0);
		assert_int_equal(st, i);
	}
	assert_string_equal(job_status_name(JOB_XFAIL), "xfail");
	assert_string_equal(job_status_name(JOB_MISSING), "missing");
	assert_string_equal(job_status_name(JOB_STATUS_COUNT), "?");
	assert_int_equal(job_status_parse("PASS", &st), -1);
	assert_int_equal(job_status_parse("", &st), -1);
}

static void test_lines(void **state)
{
	static const char in[] = "one\r\n\ntwo\nthree";
	struct job_lines it;
	struct job_line l;

	(void)state;
	job_lines_init(&it, in, sizeof(in) - 1);
	assert_int_equal(job_lines_next(&it, &l), 1);
	assert_int_equal(l.n, 3);
	assert_memory_equal(l.s, "one", 3);   /* the \r goes */
	assert_int_equal(l.no, 1);
	assert_int_equal(job_lines_next(&it, &l), 1);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.no, 2);
	assert_int_equal(job_lines_next(&it, &l), 1);
	assert_memory_equal(l.s, "two", 3);
	assert_int_equal(job_lines_next(&it, &l), 1);
	assert_int_equal(l.n, 5);
	assert_memory_equal(l.s, "three", 5);
	assert_int_equal(l.no, 4);
	assert_int_equal(job_lines_next(&it, &l), 0);
	job_lines_init(&it, NULL, 0);
	assert_int_equal(job_lines_next(&it, &l), 0);
}

static void clean_is(const char *in, size_t n, size_t max, const char *want)
{
	char *s = job_clean(in, n, max);

	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
}

static void test_clean(void **state)
{
	(void)state;
	clean_is("  plain text \n", 14, 100, "plain text");
	clean_is("a\tb", 3, 100, "a b");
	clean_is("a\x01" "b\x7f", 4, 100, "a?b?");
	clean_is("caf\xc3\xa9", 5, 100, "caf\xc3\xa9");          /* valid UTF-8 kept */
	clean_is("x\xc3(", 3, 100, "x?(");                       /* cut sequence */
	clean_is("\xc0\xaf", 2, 100, "??");                      /* overlong */
	clean_is("\xed\xa0\x80", 3, 100, "???");                 /* surrogate */
	clean_is("\xc2\x85z", 3, 100, "??z");                    /* C1 control: a ? a byte */
	clean_is("\xf0\x9f\x98\x80!", 5, 100, "\xf0\x9f\x98\x80!");
	clean_is("abcdef", 6, 4, "abcd");
	clean_is("ab\xc3\xa9", 4, 3, "ab");                      /* never half a character */
	clean_is("a\0b", 3, 100, "a?b");
	clean_is(NULL, 5, 100, "");
	clean_is("abc  x", 6, 4, "abc");                         /* no trailing blank after a cut */
}

static void test_notes(void **state)
{
	struct job_notes ns = { 0 };

	(void)state;
	assert_int_equal(job_note(&ns, 7, "bad line '%s'", "x\x01y"), 0);
	assert_int_equal(ns.n, 1);
	assert_int_equal(ns.v[0].line, 7);
	assert_string_equal(ns.v[0].what, "bad line 'x?y'");
	for (int i = 1; i < JOB_NOTES_MAX + 5; i++)
		assert_int_equal(job_note(&ns, (size_t)i, "note %d", i), 0);
	assert_int_equal(ns.n, JOB_NOTES_MAX);
	assert_int_equal(ns.dropped, 5);
	job_notes_release(&ns);
	assert_int_equal(ns.n, 0);
	assert_null(ns.v);
}

static void test_results(void **state)
{
	struct job_results r;

	(void)state;
	job_results_init(&r, 3);
	assert_int_equal(r.max, 3);
	assert_int_equal(job_result_add(&r, "net/tcp", 7, JOB_PASS, NULL, 0, 1), 0);
	assert_int_equal(job_result_add(&r, "net/udp\x01", 8, JOB_FAIL, " timed out ", 11, 2), 0);
	/* an out-of-range status is an error row; a blank reason is none */
	assert_int_equal(job_result_add(&r, "odd", 3, (enum job_status)99, "  ", 2, 3), 0);
	assert_int_equal(job_result_add(&r, "over", 4, JOB_PASS, NULL, 0, 4), 1);
	assert_int_equal(r.n, 3);
	assert_true(r.truncated);
	assert_string_equal(r.v[1].path, "net/udp?");
	assert_string_equal(r.v[1].reason, "timed out");
	assert_int_equal(r.v[2].status, JOB_ERROR);
	assert_null(r.v[2].reason);
	assert_int_equal(r.count[JOB_PASS], 1);
	assert_int_equal(r.count[JOB_FAIL], 1);
	assert_int_equal(r.count[JOB_ERROR], 1);

	job_result_set_status(&r, 1, JOB_XFAIL);
	assert_int_equal(r.count[JOB_FAIL], 0);
	assert_int_equal(r.count[JOB_XFAIL], 1);
	job_result_set_status(&r, 9, JOB_PASS);           /* no such row: nothing */
	job_result_set_status(&r, 0, JOB_STATUS_COUNT);   /* no such status: nothing */
	assert_int_equal(r.v[0].status, JOB_PASS);
	assert_int_equal(r.count[JOB_PASS], 1);
	job_results_release(&r);
	assert_int_equal(r.n, 0);

	job_results_init(&r, 0);
	assert_int_equal(r.max, JOB_RESULTS_MAX);
	job_results_release(&r);
}

static void test_index(void **state)
{
	struct job_index *x = job_index_new();
	char key[32];
	long *v;

	(void)state;
	assert_non_null(x);
	assert_null(job_index_find(x, "a"));
	/* enough keys to grow the table several times */
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		v = job_index_add(x, key);
		assert_non_null(v);
		assert_int_equal(*v, 0);
		*v = i * 2;
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(key, sizeof(key), "key-%d", i);
		v = job_index_find(x, key);
		assert_non_null(v);
		assert_int_equal(*v, i * 2);
		assert_ptr_equal(job_index_add(x, key), v);   /* present: the same slot */
	}
	assert_null(job_index_find(x, "key-1000"));
	job_index_free(x);
	job_index_free(NULL);
	assert_null(job_index_add(NULL, "a"));
}

static void decimal_is(const char *s, size_t want_len, double want)
{
	double v = -12345;

	assert_int_equal(job_decimal(s, strlen(s), &v), want_len);
	if (want_len)
		assert_true(v == want);
}

static void test_decimal(void **state)
{
	char big[80];

	(void)state;
	decimal_is("42", 2, 42);
	decimal_is("-1.5 ms", 4, -1.5);
	decimal_is("+.25", 4, 0.25);
	decimal_is("3e2x", 3, 300);
	decimal_is("3e", 1, 3);          /* an exponent without digits is not one */
	decimal_is("1.e-1", 5, 0.1);
	decimal_is("", 0, 0);
	decimal_is("-", 0, 0);
	decimal_is(".", 0, 0);
	decimal_is("abc", 0, 0);
	decimal_is("inf", 0, 0);
	decimal_is("nan", 0, 0);
	memset(big, '9', 70);
	big[70] = '\0';
	decimal_is(big, 0, 0);           /* refused rather than rounded */
}

static void test_samples(void **state)
{
	struct job_samples s;
	char name[JOB_METRIC_MAX + 2];

	(void)state;
	assert_true(job_metric_name_ok("net.rx:bytes/s-1_x", 18));
	assert_false(job_metric_name_ok("", 0));
	assert_false(job_metric_name_ok("a b", 3));
	memset(name, 'm', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	assert_true(job_metric_name_ok(name, JOB_METRIC_MAX));
	assert_false(job_metric_name_ok(name, JOB_METRIC_MAX + 1));

	job_samples_init(&s, 4);
	assert_int_equal(job_sample_add(&s, "lat", 1.5, "ms", -1, 1), 0);
	assert_int_equal(job_sample_add(&s, "lat", 2.5, "ms", -1, 2), 0);
	assert_int_equal(job_sample_add(&s, "ops", 10, " ", 5, 3), 0);
	assert_int_equal(job_sample_add(&s, "lat", 3.5, NULL, -1, 4), 0);
	/* refused without a trace: a bad name, a value that is not finite */
	assert_int_equal(job_sample_add(&s, "bad name", 1, NULL, -1, 5), 0);
	assert_int_equal(job_sample_add(&s, "x", INFINITY, NULL, -1, 5), 0);
	assert_int_equal(s.n, 4);
	assert_false(s.truncated);
	assert_int_equal(job_sample_add(&s, "more", 1, NULL, -1, 6), 1);
	assert_true(s.truncated);
	assert_int_equal(s.v[0].seq, 0);
	assert_int_equal(s.v[1].seq, 1);
	assert_int_equal(s.v[2].seq, 5);
	assert_null(s.v[2].unit);     /* a blank unit is none */
	assert_int_equal(s.v[3].seq, 2);
	assert_string_equal(s.v[0].unit, "ms");
	job_samples_release(&s);
	assert_int_equal(s.n, 0);
}

static void test_json(void **state)
{
	struct job_results r;
	struct job_samples s;
	json_t *j;
	char *text;

	(void)state;
	job_results_init(&r, 0);
	assert_int_equal(job_result_add(&r, "a/b", 3, JOB_SKIP, "no net", 6, 9), 0);
	assert_int_equal(job_note(&r.notes, 4, "line %d is odd", 4), 0);
	j = job_results_json(&r);
	assert_non_null(j);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text,
		"{\"counts\":{\"error\":0,\"fail\":0,\"missing\":0,\"pass\":0,\"skip\":1,"
		"\"timeout\":0,\"xfail\":0},\"notes\":[{\"line\":4,\"what\":\"line 4 is odd\"}],"
		"\"notes_dropped\":0,\"results\":[{\"line\":9,\"path\":\"a/b\",\"reason\":\"no net\","
		"\"status\":\"skip\"}],\"truncated\":false}");
	free(text);
	json_decref(j);
	job_results_release(&r);

	job_samples_init(&s, 0);
	assert_int_equal(job_sample_add(&s, "lat", 0.5, NULL, 3, 2), 0);
	j = job_samples_json(&s);
	assert_non_null(j);
	text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	assert_string_equal(text,
		"{\"notes\":[],\"notes_dropped\":0,\"samples\":[{\"line\":2,\"name\":\"lat\","
		"\"seq\":3,\"unit\":null,\"value\":0.5}],\"truncated\":false}");
	free(text);
	json_decref(j);
	job_samples_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_decimal),
		cmocka_unit_test(test_samples),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
