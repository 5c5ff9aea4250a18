// SPDX-License-Identifier: GPL-2.0-only
/* render_test.c: unit tests for analysis/render.c beyond the golden files
 * compare_test.c checks: a report with no job or labels, '|' escaped in
 * markdown, numbers that are not finite as "n/a" and JSON null, a capped
 * buffer reported as a failure, and cmp_report_from_json() refusing
 * malformed input (what the CLI reads from the API) with what is wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/analysis.h"

static const double a[] = { 10, 11, 9, 10.5, 9.5 };
static const double z[] = { 0, 0, 0, 0, 0 };
static struct cmp_cell cell = { "arm64", 4, 2048, "kvm", NULL, NULL, 1, NULL };

static void one_metric(struct cmp_report *r, const char *job, const char *name)
{
	char err[128];

	assert_int_equal(cmp_report_init(r, job, NULL, NULL, &cell, &cell, err, sizeof(err)), 0);
	assert_int_equal(cmp_report_add(r, name, NULL, -1, z, 5, a, 5), 0);
}

static void test_text_defaults(void **state)
{
	struct cmp_report r;
	struct buf b = BUF_INIT(0);

	(void)state;
	one_metric(&r, NULL, "ops");
	assert_int_equal(cmp_render_text(&r, CMP_COL_DEFAULT, &b), 0);
	/* no job: the heading is only the sides, named by default */
	assert_memory_equal(b.data, "base vs patched\narm64, 4 vcpus, 2048 MiB, kvm\n\n",
			    strlen("base vs patched\narm64, 4 vcpus, 2048 MiB, kvm\n\n"));
	/* a base median of 0: the change is not a number */
	assert_true(isnan(r.v[0].change_pct));
	assert_non_null(strstr(b.data, "n/a"));
	assert_null(strstr(b.data, "nan"));
	/* no line ends in a blank */
	assert_null(strstr(b.data, " \n"));
	buf_release(&b);
	cmp_report_release(&r);
}

static void test_markdown_escape(void **state)
{
	struct cmp_report r;
	struct buf b = BUF_INIT(0);

	(void)state;
	one_metric(&r, "job|x", "a|b");
	cmp_report_note(&r, "note %d", 1);
	assert_int_equal(cmp_render_markdown(&r, CMP_COL_DEFAULT, &b), 0);
	assert_memory_equal(b.data, "**job|x: base vs patched**  \n", 29);
	assert_non_null(strstr(b.data, "| a\\|b |"));
	assert_non_null(strstr(b.data, "\n- note: note 1\n"));
	buf_release(&b);
	cmp_report_release(&r);
}

/* A buffer that cannot hold the table fails the render */
static void test_capped_buffer(void **state)
{
	struct cmp_report r;
	struct buf b = BUF_INIT(64);

	(void)state;
	one_metric(&r, "job", "ops");
	assert_int_equal(cmp_render_text(&r, CMP_COL_ALL, &b), -1);
	assert_true(b.truncated);
	buf_release(&b);
	cmp_report_release(&r);
}

static void test_json_nulls(void **state)
{
	struct cmp_report r;
	json_t *j, *m;

	(void)state;
	one_metric(&r, "job", "ops");
	j = cmp_report_json(&r);
	assert_non_null(j);
	m = json_array_get(json_object_get(j, "metrics"), 0);
	assert_non_null(m);
	assert_true(json_is_null(json_object_get(m, "change_pct")));
	assert_true(json_is_null(json_object_get(m, "better")));
	assert_true(json_is_null(json_object_get(m, "unit")));
	assert_string_equal(json_string_value(json_object_get(j, "job")), "job");
	json_decref(j);
	cmp_report_release(&r);
}

/* Parses text as JSON and expects cmp_report_from_json() to refuse it with want */
static void refused(const char *text, const char *want)
{
	struct cmp_report r;
	json_error_t je;
	json_t *j = json_loads(text, 0, &je);
	char err[256] = "";

	if (!j)
		fail_msg("test JSON '%s': %s", text, je.text);
	assert_int_equal(cmp_report_from_json(j, &r, err, sizeof(err)), -1);
	assert_string_equal(err, want);
	cmp_report_release(&r);
	json_decref(j);
}

#define CELL "\"cell\":{\"arch\":\"x86_64\",\"vcpus\":2,\"memory_mb\":1024}"
#define SIDE "{\"n\":3,\"median\":1}"

static void test_from_json_refusals(void **state)
{
	(void)state;
	refused("[]", "not a comparison: no cell or metrics");
	refused("{\"metrics\":[]}", "not a comparison: no cell or metrics");
	refused("{" CELL ",\"metrics\":{}}", "not a comparison: no cell or metrics");
	refused("{" CELL ",\"metrics\":[{\"base\":" SIDE "}]}", "metrics[0]: no name");
	refused("{" CELL ",\"metrics\":[7]}", "metrics[0]: no name");
	refused("{" CELL ",\"metrics\":[{\"name\":\"ops\",\"base\":" SIDE "}]}",
		"metric 'ops': base or patched is missing or has no n");
	refused("{" CELL ",\"metrics\":[{\"name\":\"ops\",\"base\":{\"n\":0},\"patched\":" SIDE "}]}",
		"metric 'ops': base or patched is missing or has no n");
	refused("{" CELL ",\"metrics\":[{\"name\":\"ops\",\"base\":" SIDE ",\"patched\":" SIDE
		",\"verdict\":\"great\"}]}", "metric 'ops': no known verdict");
}

static void test_from_json_lenient(void **state)
{
	static const char text[] = "{" CELL ",\"job\":\"j\",\"metrics\":[{\"name\":\"ops\","
		"\"base\":" SIDE ",\"patched\":" SIDE ",\"verdict\":\"uncertain\",\"ci\":[1],"
		"\"runs_needed\":99999,\"better\":\"lower\"}],\"notes\":[\"n1\",3],"
		"\"notes_dropped\":-4}";
	struct cmp_report r;
	json_t *j = json_loads(text, 0, NULL);
	char err[256];

	(void)state;
	assert_non_null(j);
	assert_int_equal(cmp_report_from_json(j, &r, err, sizeof(err)), 0);
	assert_int_equal(r.n, 1);
	assert_string_equal(r.v[0].name, "ops");
	assert_int_equal(r.v[0].verdict, CMP_UNCERTAIN);
	assert_int_equal(r.v[0].higher_better, 0);
	assert_false(r.v[0].have_ci);         /* a CI of one number is none */
	assert_int_equal(r.v[0].runs_needed, 0);   /* out of range: dropped */
	assert_true(isnan(r.v[0].p));
	assert_int_equal(r.nnotes, 1);       /* only string notes */
	assert_string_equal(r.notes[0], "n1");
	assert_int_equal(r.notes_dropped, 0);
	assert_string_equal(r.cell.arch, "x86_64");
	assert_int_equal(r.cell.vcpus, 2);
	cmp_report_release(&r);
	json_decref(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_defaults),
		cmocka_unit_test(test_markdown_escape),
		cmocka_unit_test(test_capped_buffer),
		cmocka_unit_test(test_json_nulls),
		cmocka_unit_test(test_from_json_refusals),
		cmocka_unit_test(test_from_json_lenient),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
