// SPDX-License-Identifier: GPL-2.0-only
/* reply_test.c: unit tests for web/reply.c, the helpers every handler
 * calls: valid UTF-8, HTML escaping (also of control characters), JSON
 * strings from text that is not UTF-8, table rows, numbers, prefixes and
 * units, durations, the strict id parser, a JSON body's fields, the page
 * frame and a job's metric direction. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include <jansson.h>

#include "common/buf.h"
#include "jobs/jobs.h"
#include "web/reply.h"

static void test_utf8(void **state)
{
	static const struct {
		const char *in;
		size_t n;
		const char *out;
	} cases[] = {
		{ "plain", 5, "plain" },
		{ "caf\xc3\xa9", 5, "caf\xc3\xa9" },
		{ "\xff", 1, "\xef\xbf\xbd" },
		{ "a\xc3", 2, "a\xef\xbf\xbd" },                            /* cut sequence */
		{ "\xc0\xaf", 2, "\xef\xbf\xbd\xef\xbf\xbd" },              /* overlong '/' */
		{ "\xe0\x80\xaf", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
		{ "\xed\xa0\x80", 3, "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" }, /* surrogate */
		{ "\xf4\x90\x80\x80", 4,
		  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },        /* > U+10FFFF */
		{ "\xf0\x9f\x98\x80!", 5, "\xf0\x9f\x98\x80!" },
		{ "a\0b", 3, "a\xef\xbf\xbd" "b" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct buf b = BUF_INIT(0);

		web_utf8(&b, cases[i].in, cases[i].n);
		assert_string_equal(buf_str(&b), cases[i].out);
		buf_release(&b);
	}
}

static void test_html(void **state)
{
	struct buf b = BUF_INIT(0);
	const char in[] = "<a href=\"x\">&'\x1b[0m\xff\t\n";

	web_html(&b, in, sizeof(in) - 1);
	assert_string_equal(buf_str(&b), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
			    "\xe2\x90\x9b[0m\xef\xbf\xbd\t\n");
	buf_release(&b);
}

static void test_parse_id(void **state)
{
	const char *rest;
	int64_t id;

	assert_int_equal(web_parse_id("42", &id, &rest), 0);
	assert_int_equal(id, 42);
	assert_string_equal(rest, "");
	assert_int_equal(web_parse_id("7/console", &id, &rest), 0);
	assert_string_equal(rest, "/console");
	assert_int_equal(web_parse_id("0", &id, &rest), -1);
	assert_int_equal(web_parse_id("07", &id, &rest), -1);
	assert_int_equal(web_parse_id("-1", &id, &rest), -1);
	assert_int_equal(web_parse_id("12x", &id, &rest), -1);
	assert_int_equal(web_parse_id("", &id, &rest), -1);
	assert_int_equal(web_parse_id("99999999999999999999", &id, &rest), -1);
}

/* ---- the server ---- */

static void test_json_str(void **state)
{
	json_t *j = web_json_str("caf\xc3\xa9 \xff<");

	assert_non_null(j);
	assert_string_equal(json_string_value(j), "caf\xc3\xa9 \xef\xbf\xbd<");
	json_decref(j);
	j = web_json_str(NULL);
	assert_true(json_is_null(j));
	json_decref(j);
	j = web_json_strn("a\0b", 3);
	assert_int_equal(json_string_length(j), 5);
	assert_memory_equal(json_string_value(j), "a\xef\xbf\xbd" "b", 5);
	json_decref(j);
	j = web_json_time(0);
	assert_true(json_is_null(j));
	json_decref(j);
	j = web_json_time(1700000000000);
	assert_int_equal(json_integer_value(j), 1700000000000);
	json_decref(j);
}

static void test_small_html(void **state)
{
	struct buf b = BUF_INIT(0);

	web_html_kv(&b, "a&b", "<x>", "-");
	assert_string_equal(buf_str(&b), "<tr><th>a&amp;b</th><td>&lt;x&gt;</td></tr>\n");
	buf_reset(&b);
	web_html_kv(&b, "k", NULL, "<span class=\"note\">-</span>");
	assert_string_equal(buf_str(&b), "<tr><th>k</th><td><span class=\"note\">-</span></td></tr>\n");
	buf_reset(&b);
	web_html_prefix(&b, "0123456789abcdef", 12);
	web_html_prefix(&b, "<ab", 7);
	assert_string_equal(buf_str(&b), "0123456789ab&lt;ab");
	buf_reset(&b);
	web_html_num(&b, 1234567, "-");
	web_html_num(&b, NAN, "n/a");
	web_html_num(&b, 0.5, "-");
	assert_string_equal(buf_str(&b), "1.235e+06n/a0.5");
	buf_reset(&b);
	web_html_unit(&b, NULL);
	web_html_unit(&b, "\"s\"");
	assert_string_equal(buf_str(&b), " &quot;s&quot;");
	buf_reset(&b);
	web_job_link(&b, "a'b");
	web_job_link(&b, NULL);
	assert_string_equal(buf_str(&b), "<a href=\"/jobs/a&#39;b\">a&#39;b</a>"
			    "<span class=\"note\">command</span>");
	buf_reset(&b);
	web_kernel_cell(&b, "/k/vmlinuz<1>");
	web_kernel_cell(&b, "bzImage");
	assert_string_equal(buf_str(&b), "<td title=\"/k/vmlinuz&lt;1&gt;\">vmlinuz&lt;1&gt;</td>"
			    "<td title=\"bzImage\">bzImage</td>");
	buf_release(&b);
}

static void test_page_frame(void **state)
{
	struct buf b = BUF_INIT(0);

	web_page_head(&b, "kfleet: <run>", 1);
	web_page_tail(&b);
	assert_non_null(strstr(buf_str(&b), "<title>kfleet: &lt;run&gt;</title>"));
	assert_non_null(strstr(buf_str(&b), "<meta http-equiv=\"refresh\" content=\"5\">"));
	assert_non_null(strstr(buf_str(&b), "<a href=\"/trends\">trends</a>"));
	assert_int_equal(strncmp(buf_str(&b), "<!doctype html>\n", 16), 0);
	assert_string_equal(buf_str(&b) + b.len - 15, "</body></html>\n");
	buf_reset(&b);
	web_page_head(&b, "x", 0);
	assert_null(strstr(buf_str(&b), "refresh"));
	buf_release(&b);
}

static void test_durations(void **state)
{
	static const struct {
		int64_t start, end;
		const char *want;
	} cases[] = {
		{ 1000, 1850, "850 ms" }, { 1000, 13300, "12.3 s" }, { 1000, 246000, "4 min 05 s" },
		{ 1000, 7381000, "2 h 03 min" }, { 0, 5000, "-" }, { 5000, 0, "-" },
		{ 5000, 4000, "-" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char out[32];

		web_fmt_duration(cases[i].start, cases[i].end, out);
		assert_string_equal(out, cases[i].want);
	}
}

static void test_fields(void **state)
{
	json_t *body = json_loads("{\"n\": 3, \"z\": 0, \"big\": 99999999999, \"s\": \"x\","
				  " \"ns\": 4, \"nul\": null}", 0, NULL);
	const char *s;
	char msg[128];
	int n;

	assert_non_null(body);
	assert_int_equal(web_field_int(body, "n", &n, msg, sizeof(msg)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(web_field_int(body, "absent", &n, msg, sizeof(msg)), 0);
	assert_int_equal(n, 0);
	assert_int_equal(web_field_int(body, "nul", &n, msg, sizeof(msg)), 0);
	assert_int_equal(web_field_int(body, "z", &n, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "field 'z': 0 is not from 1 to 2147483647");
	assert_int_equal(web_field_int(body, "big", &n, msg, sizeof(msg)), -1);
	assert_int_equal(web_field_int(body, "s", &n, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "field 's': expected an integer");
	assert_int_equal(web_field_str(body, "s", 1, &s, msg, sizeof(msg)), 0);
	assert_string_equal(s, "x");
	assert_int_equal(web_field_str(body, "absent", 0, &s, msg, sizeof(msg)), 0);
	assert_null(s);
	assert_int_equal(web_field_str(body, "absent", 1, &s, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "field 'absent' is required");
	assert_int_equal(web_field_str(body, "ns", 0, &s, msg, sizeof(msg)), -1);
	assert_string_equal(msg, "field 'ns': expected a string");
	json_decref(body);
}

static void test_metric_better(void **state)
{
	struct job_def d;
	const char *unit = NULL;

	memset(&d, 0, sizeof(d));
	d.metrics[0] = (struct job_metric_def){ .name = "ops", .unit = "1/s", .higher_better = 1 };
	d.metrics[1] = (struct job_metric_def){ .name = "lat", .unit = "ns", .higher_better = 0 };
	d.nmetrics = 2;
	assert_int_equal(web_metric_better(&d, "ops", NULL), 1);
	assert_int_equal(web_metric_better(&d, "lat", &unit), 0);
	assert_string_equal(unit, "ns");
	unit = "kept";
	assert_int_equal(web_metric_better(&d, "ops", &unit), 1);
	assert_string_equal(unit, "kept");
	assert_int_equal(web_metric_better(&d, "nope", NULL), -1);
	assert_int_equal(web_metric_better(&d, NULL, NULL), -1);
	assert_int_equal(web_metric_better(NULL, "ops", NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_parse_id),
		cmocka_unit_test(test_json_str),
		cmocka_unit_test(test_small_html),
		cmocka_unit_test(test_page_frame),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_metric_better),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
