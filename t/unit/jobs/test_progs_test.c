// SPDX-License-Identifier: GPL-2.0-only
/* test_progs_test.c: unit tests for tprogs_parse() and tprogs_parse_json()
 * (jobs/test_progs.c) on a test_progs run with subtests, skips, failures and
 * the "All error logs:" replay, a run cut off by a crash, the 5.x format and
 * the -J JSON (t/data/jobs/), and on malformed lines and JSON, every cut,
 * bounds. */
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

static struct tprogs_summary last_sum;

static int text_fn(const char *s, size_t n, struct job_results *r)
{
	return tprogs_parse(s, n, r, &last_sum);
}

static int json_fn(const char *s, size_t n, struct job_results *r)
{
	return tprogs_parse_json(s, n, r, &last_sum);
}

static void parse_fixture(const char *name, struct job_results *r)
{
	size_t n = 0;
	char *text = jt_fixture(name, &n);

	jt_parse_results(text_fn, text, n, r, 0);
	jt_check_results(r);
	free(text);
}

static void parse_str(const char *s, struct job_results *r)
{
	jt_parse_results(text_fn, s, strlen(s), r, 0);
	jt_check_results(r);
}

static const char reenter_why[] = "test_reenter_update:FAIL:bpf_map_update_elem unexpected "
				  "bpf_map_update_elem: actual -16 != expected 0";
static const char grow2_why[] = "test_xdp_adjust_tail_grow2:FAIL:xdp_adjust_tail_grow2 "
				"unexpected error: -22 (errno 22)";

static void test_text(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("test_progs.log", &r);
	jt_expect(&r, "access_variable_array", JOB_PASS, NULL);
	jt_expect(&r, "arena_htab/arena_htab_llvm", JOB_PASS, NULL);
	jt_expect(&r, "arena_htab", JOB_PASS, NULL);
	jt_expect(&r, "attach_probe/uprobe-sleepable", JOB_SKIP, NULL);
	jt_expect(&r, "attach_probe", JOB_PASS, "SKIP: 1/3");
	jt_expect(&r, "bpf_cookie", JOB_SKIP, NULL);
	/* a failure's reason is the last ASSERT that failed before it */
	jt_expect(&r, "htab_update/reenter_update", JOB_FAIL, reenter_why);
	jt_expect(&r, "htab_update/concurrent_update", JOB_PASS, NULL);
	jt_expect(&r, "htab_update", JOB_FAIL, reenter_why);
	jt_expect(&r, "xdp_adjust_tail", JOB_FAIL, grow2_why);
	jt_expect(&r, "ringbuf", JOB_PASS, NULL);
	/* a subtest name with colons in it */
	jt_expect(&r, "verifier_and/invalid and of negative number: with colons", JOB_PASS,
		  NULL);
	assert_int_equal(jt_row(&r, "htab_update")->line, 16);
	/* "All error logs:" prints the failures again: still one row each */
	jt_expect_counts(&r, 11, 3, 2, 0, 0, 0, 0);
	assert_int_equal(r.n, 16);
	assert_int_equal(last_sum.present, 1);
	assert_int_equal(last_sum.passed, 7);
	assert_int_equal(last_sum.subtests_passed, 6);
	assert_int_equal(last_sum.skipped, 2);
	assert_int_equal(last_sum.failed, 2);
	assert_int_equal(r.notes.n, 0);
	jt_golden_results(&r, "test_progs.out");
	job_results_release(&r);
}

/* A crash in the middle: the test whose subtests came is missing */
static void test_cut(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("test_progs-cut.log", &r);
	jt_expect(&r, "cgrp_local_storage/attach_cgroup", JOB_PASS, NULL);
	jt_expect(&r, "cgrp_local_storage", JOB_MISSING, "output ends before its result");
	assert_int_equal(jt_row(&r, "cgrp_local_storage")->line, 3);
	jt_expect_counts(&r, 4, 0, 0, 0, 0, 0, 1);
	assert_int_equal(last_sum.present, 0);
	assert_true(jt_has_note(&r.notes, 6, "no Summary line"));
	job_results_release(&r);

	/* cut after a test's own line: nothing is missing, but it is cut */
	parse_str("#1       align:OK\n#2/1     a/b:OK\n#2       a:OK\n", &r);
	jt_expect_counts(&r, 3, 0, 0, 0, 0, 0, 0);
	assert_true(jt_has_note(&r.notes, 3, "no Summary line"));
	job_results_release(&r);
}

static void test_old_format(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("test_progs-old.log", &r);
	jt_expect(&r, "bpf_verif_scale/loop3.o", JOB_PASS, NULL);
	jt_expect(&r, "flow_dissector", JOB_FAIL, NULL);
	assert_int_equal(r.n, 4);
	assert_int_equal(last_sum.present, 1);
	assert_int_equal(last_sum.passed, 2);
	assert_int_equal(last_sum.subtests_passed, -1);
	assert_int_equal(last_sum.skipped, -1);
	assert_int_equal(last_sum.failed, 1);
	job_results_release(&r);
}

static void test_json(void **state)
{
	struct job_results r;
	size_t n = 0;
	char *text = jt_fixture("test_progs.json", &n);

	(void)state;
	jt_parse_results(json_fn, text, n, &r, 0);
	jt_check_results(&r);
	/* the JSON lists failures only */
	assert_int_equal(r.n, 3);
	jt_expect(&r, "htab_update/reenter_update", JOB_FAIL, reenter_why);
	jt_expect(&r, "htab_update", JOB_FAIL, NULL);   /* its own log is empty */
	jt_expect(&r, "xdp_adjust_tail", JOB_FAIL, grow2_why);
	assert_string_equal(r.v[0].path, "htab_update/reenter_update");
	assert_int_equal(last_sum.present, 1);
	assert_int_equal(last_sum.passed, 7);
	assert_int_equal(last_sum.subtests_passed, 6);
	assert_int_equal(last_sum.skipped, 2);
	assert_int_equal(last_sum.failed, 2);
	job_results_release(&r);
	free(text);
}

/* Text first, then the JSON: no new rows, reasons added where missing */
static void test_merge(void **state)
{
	static const char text[] = "#1       align:OK\n"
				   "#83/1    htab_update/reenter_update:FAIL\n"
				   "#83      htab_update:FAIL\n"
				   "Summary: 1/0 PASSED, 0 SKIPPED, 1 FAILED\n";
	struct job_results r;
	size_t n = 0;
	char *json = jt_fixture("test_progs.json", &n);

	(void)state;
	job_results_init(&r, 0);
	assert_int_equal(tprogs_parse(text, sizeof(text) - 1, &r, NULL), 0);
	jt_expect(&r, "htab_update/reenter_update", JOB_FAIL, NULL);
	assert_int_equal(tprogs_parse_json(json, n, &r, NULL), 0);
	jt_check_results(&r);
	assert_int_equal(r.n, 4);
	jt_expect(&r, "htab_update/reenter_update", JOB_FAIL, reenter_why);
	jt_expect(&r, "xdp_adjust_tail", JOB_FAIL, grow2_why);
	jt_expect(&r, "align", JOB_PASS, NULL);
	job_results_release(&r);
	free(json);
}

static void test_bad_json(void **state)
{
	static const char *const bad[] = {
		"", "{", "[]", "null", "{\"results\": 3}", "\"results\"",
		"{\"success\": 1, \"results\": [1, \"x\", null, {\"name\": 5, \"failed\": true}]}",
	};
	static const char partial[] =
		"{\"results\": [{\"name\": \"a\", \"failed\": true, \"message\": 7,"
		" \"subtests\": [{\"name\": \"s\", \"failed\": false},"
		" {\"name\": \"t\", \"failed\": true, \"message\": \"x\\u0000y:FAIL:z\\n\"},"
		" {\"name\": \"u\\u001b\", \"failed\": true}]},"
		" {\"name\": \"b\", \"failed\": \"yes\"}]}";
	struct job_results r;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *c = jt_exact(bad[i], strlen(bad[i]));
		int rc;

		job_results_init(&r, 0);
		rc = tprogs_parse_json(c, strlen(bad[i]), &r, NULL);
		jt_check_results(&r);
		assert_int_equal(r.n, 0);
		if (rc < 0)
			assert_true(r.notes.n >= 1);
		free(c);
		job_results_release(&r);
	}
	job_results_init(&r, 0);
	assert_int_equal(tprogs_parse_json("{", 1, &r, NULL), -1);
	assert_true(jt_has_note(&r.notes, 1, "not JSON"));
	job_results_release(&r);

	/* odd types are skipped, odd text is cleaned */
	jt_parse_results(json_fn, partial, sizeof(partial) - 1, &r, 0);
	jt_check_results(&r);
	assert_int_equal(last_sum.present, 0);
	jt_expect(&r, "a/t", JOB_FAIL, "x?y:FAIL:z");
	jt_expect(&r, "a", JOB_FAIL, NULL);
	assert_false(jt_has_row(&r, "a/s"));
	jt_expect(&r, "a/u?", JOB_FAIL, NULL);
	assert_false(jt_has_row(&r, "b"));
	assert_int_equal(r.n, 3);
	assert_true(jt_has_note(&r.notes, 1, "without its counts"));
	job_results_release(&r);
}

static void test_malformed_lines(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("#abc foo:OK\n"
		  "#1foo:OK\n"
		  "#1 :OK\n"
		  "#2 foo:MAYBE\n"
		  "#3 foo:OKAY\n"
		  "#99999999999 big:OK\n"
		  "#4/x foo/bar:OK\n"
		  "# 5 foo:OK\n"
		  "#6\n"
		  "#7 foo:FAIL:not a result, an ASSERT\n"
		  "Summary: lots PASSED\n"
		  "Summary: 1/2 PASSED, 3 SKIPPED\n"
		  "Summary: 99999999999 PASSED, 0 FAILED\n"
		  "#8 good:OK\n", &r);
	assert_int_equal(r.n, 1);
	jt_expect(&r, "good", JOB_PASS, NULL);
	assert_int_equal(last_sum.present, 0);
	job_results_release(&r);
}

static void test_every_cut(void **state)
{
	static const char *const fixtures[] = { "test_progs.log", "test_progs.json" };

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		size_t n = 0;
		char *text = jt_fixture(fixtures[i], &n);

		jt_every_prefix_results(text_fn, text, n);
		for (size_t k = 0; k <= n; k++) {
			struct job_results r;
			char *c = jt_exact(text, k);

			job_results_init(&r, 0);
			tprogs_parse_json(c, k, &r, NULL);
			jt_check_results(&r);
			job_results_release(&r);
			free(c);
		}
		free(text);
	}
}

static void test_bounds_and_garbage(void **state)
{
	static const char garbage[] = "#1 \xff\xfe\x00name:OK\n\x80\x81:FAIL:\n#2 t\x1b/s:FAIL\n"
				      "#3 x:SKIP";
	struct job_results r;
	char *big;
	size_t n;
	FILE *f = open_memstream(&big, &n);

	(void)state;
	assert_non_null(f);
	for (int i = 1; i <= 50; i++)
		fprintf(f, "#%d t%d:OK\n", i, i);
	fclose(f);
	jt_parse_results(text_fn, big, n, &r, 10);
	jt_check_results(&r);
	assert_int_equal(r.n, 10);
	assert_int_equal(r.truncated, 1);
	assert_true(jt_has_note(&r.notes, 11, "more than 10 results"));
	free(big);
	job_results_release(&r);

	jt_parse_results(text_fn, garbage, sizeof(garbage) - 1, &r, 0);
	jt_check_results(&r);
	jt_expect(&r, "???name", JOB_PASS, NULL);
	jt_expect(&r, "t?/s", JOB_FAIL, "??:FAIL:");
	jt_expect(&r, "x", JOB_SKIP, NULL);
	job_results_release(&r);

	job_results_init(&r, 0);
	assert_int_equal(tprogs_parse(NULL, 0, &r, NULL), 0);
	assert_int_equal(r.n, 0);
	job_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_old_format),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_bad_json),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_bounds_and_garbage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
