// SPDX-License-Identifier: GPL-2.0-only
/* passfail_test.c: unit tests for analysis/passfail.c: every class from
 * constructed runs (two repeats per side, as kfleet test makes them), the
 * edge cases of the rule (a pass and a failure on the patched kernel are
 * flaky, never a new failure; a flaky base is not fixed; an absent row is
 * missing; the worst of duplicate rows counts), the table's order, the
 * refusals of bad input, the labels ("flaky (1 of 2 failed)"), the
 * quarantined rows and the JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "analysis/passfail.h"
#include "t/unit/testutil.h"

/* runs 0..3: base, patched, base, patched (the request's order) */
static const enum passfail_side sides4[] = {
	PASSFAIL_BASE, PASSFAIL_PATCHED, PASSFAIL_BASE, PASSFAIL_PATCHED,
};

/* The class of a path whose four runs (b, p, b, p) had these statuses; NULL
 * is no row for it in that run */
static enum passfail_class class4(const char *b1, const char *p1, const char *b2,
				  const char *p2)
{
	const char *st[4] = { b1, p1, b2, p2 };
	struct passfail_result res[5];
	struct passfail_table t;
	enum passfail_class c;
	char err[128];
	size_t n = 0;

	for (size_t i = 0; i < 4; i++)
		if (st[i])
			res[n++] = (struct passfail_result){ i, "t/x", st[i] };
	/* another path every run reports, so no run is empty */
	res[n++] = (struct passfail_result){ 0, "t/other", "pass" };
	assert_int_equal(passfail_classify(sides4, 4, res, n, &t, err, sizeof(err)), 0);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.runs[0], 2);
	assert_int_equal(t.runs[1], 2);
	c = !strcmp(t.v[0].path, "t/x") ? t.v[0].cls : t.v[1].cls;
	passfail_table_release(&t);
	return c;
}

static void test_classes(void **state)
{
	(void)state;
	assert_int_equal(class4("pass", "pass", "pass", "pass"), PASSFAIL_PASS);
	assert_int_equal(class4("xfail", "pass", "pass", "xfail"), PASSFAIL_PASS);
	/* passes on every base run, fails on every patched run */
	assert_int_equal(class4("pass", "fail", "pass", "fail"), PASSFAIL_NEW_FAILURE);
	assert_int_equal(class4("pass", "timeout", "pass", "error"), PASSFAIL_NEW_FAILURE);
	/* ... or on the patched runs that gave a verdict */
	assert_int_equal(class4("pass", "fail", "pass", "skip"), PASSFAIL_NEW_FAILURE);
	/* skipped on base, or a new test, failing on patched */
	assert_int_equal(class4("skip", "fail", "skip", "fail"), PASSFAIL_NEW_FAILURE);
	/* passed and failed on the patched kernel: flaky, never a new
	 * failure, even though base never failed */
	assert_int_equal(class4("pass", "pass", "pass", "fail"), PASSFAIL_FLAKY);
	assert_int_equal(class4(NULL, "fail", NULL, "pass"), PASSFAIL_FLAKY);
	assert_int_equal(class4("pass", "error", "pass", "xfail"), PASSFAIL_FLAKY);
	assert_int_equal(class4("fail", "pass", "fail", "pass"), PASSFAIL_FIXED);
	assert_int_equal(class4("error", "pass", "fail", "skip"), PASSFAIL_FIXED);
	/* a base that sometimes passes is flaky, not fixed */
	assert_int_equal(class4("pass", "pass", "fail", "pass"), PASSFAIL_FLAKY);
	assert_int_equal(class4("fail", "fail", "pass", "fail"), PASSFAIL_FLAKY);
	assert_int_equal(class4("fail", "pass", "fail", "fail"), PASSFAIL_FLAKY);
	assert_int_equal(class4("fail", "fail", "fail", "timeout"), PASSFAIL_STILL_FAILING);
	assert_int_equal(class4("fail", "fail", "skip", "fail"), PASSFAIL_STILL_FAILING);
	/* lost on one patched run, no failure anywhere */
	assert_int_equal(class4("pass", "pass", "pass", NULL), PASSFAIL_MISSING);
	assert_int_equal(class4("pass", "missing", "pass", "pass"), PASSFAIL_MISSING);
	/* a failure with nothing to compare it with on the other side */
	assert_int_equal(class4("fail", NULL, "fail", NULL), PASSFAIL_MISSING);
	assert_int_equal(class4("fail", "skip", "fail", "skip"), PASSFAIL_SKIP);
	assert_int_equal(class4("skip", "skip", "skip", "skip"), PASSFAIL_SKIP);
	assert_int_equal(class4("pass", "skip", "pass", "pass"), PASSFAIL_SKIP);
}

static void test_counts_and_order(void **state)
{
	static const struct passfail_result res[] = {
		{ 0, "b/ok", "pass" }, { 1, "b/ok", "pass" }, { 2, "b/ok", "pass" },
		{ 3, "b/ok", "pass" },
		{ 0, "a/regress", "pass" }, { 2, "a/regress", "pass" }, { 1, "a/regress", "fail" },
		{ 3, "a/regress", "pass" },
		/* two rows in one run: the worse (fail) counts */
		{ 3, "a/regress", "fail" },
		{ 0, "c/broken", "fail" }, { 1, "c/broken", "fail" }, { 2, "c/broken", "fail" },
		{ 3, "c/broken", "fail" },
		{ 0, "d/flaky", "pass" }, { 2, "d/flaky", "fail" }, { 1, "d/flaky", "pass" },
		{ 3, "d/flaky", "pass" },
		{ 0, "e/gone", "pass" }, { 2, "e/gone", "pass" }, { 1, "e/gone", "pass" },
	};
	struct passfail_table t;
	char err[128];

	(void)state;
	assert_int_equal(passfail_classify(sides4, 4, res, sizeof(res) / sizeof(res[0]), &t, err,
					   sizeof(err)), 0);
	assert_int_equal(t.n, 5);
	/* by class: new failure, flaky, still failing, missing, ..., pass */
	assert_string_equal(t.v[0].path, "a/regress");
	assert_int_equal(t.v[0].cls, PASSFAIL_NEW_FAILURE);
	assert_int_equal(t.v[0].counts[PASSFAIL_OUT_PASS][PASSFAIL_BASE], 2);
	assert_int_equal(t.v[0].counts[PASSFAIL_OUT_FAIL][PASSFAIL_PATCHED], 2);
	assert_int_equal(t.v[0].counts[PASSFAIL_OUT_PASS][PASSFAIL_PATCHED], 0);
	assert_string_equal(t.v[1].path, "d/flaky");
	assert_int_equal(t.v[1].cls, PASSFAIL_FLAKY);
	assert_string_equal(t.v[2].path, "c/broken");
	assert_int_equal(t.v[2].cls, PASSFAIL_STILL_FAILING);
	assert_string_equal(t.v[3].path, "e/gone");
	assert_int_equal(t.v[3].cls, PASSFAIL_MISSING);
	assert_int_equal(t.v[3].counts[PASSFAIL_OUT_MISSING][PASSFAIL_PATCHED], 1);
	assert_int_equal(t.v[3].counts[PASSFAIL_OUT_PASS][PASSFAIL_PATCHED], 1);
	assert_string_equal(t.v[4].path, "b/ok");
	assert_int_equal(t.v[4].cls, PASSFAIL_PASS);
	assert_int_equal(t.classes[PASSFAIL_NEW_FAILURE], 1);
	assert_int_equal(t.classes[PASSFAIL_PASS], 1);
	assert_int_equal(t.classes[PASSFAIL_FIXED], 0);
	passfail_table_release(&t);
}

/* A run that crashed before any result: all its paths are missing there */
static void test_empty_run(void **state)
{
	static const struct passfail_result res[] = {
		{ 0, "x", "pass" }, { 1, "x", "pass" }, { 2, "x", "pass" },
		{ 0, "y", "fail" }, { 1, "y", "fail" }, { 2, "y", "fail" },
	};
	struct passfail_table t;
	char err[128];

	(void)state;
	assert_int_equal(passfail_classify(sides4, 4, res, 6, &t, err, sizeof(err)), 0);
	assert_int_equal(t.n, 2);
	assert_string_equal(t.v[0].path, "y");
	assert_int_equal(t.v[0].cls, PASSFAIL_STILL_FAILING);
	assert_string_equal(t.v[1].path, "x");
	assert_int_equal(t.v[1].cls, PASSFAIL_MISSING);
	assert_int_equal(t.v[1].counts[PASSFAIL_OUT_MISSING][PASSFAIL_PATCHED], 1);
	passfail_table_release(&t);
	/* no results at all: an empty table, not an error */
	assert_int_equal(passfail_classify(sides4, 4, res, 0, &t, err, sizeof(err)), 0);
	assert_int_equal(t.n, 0);
	passfail_table_release(&t);
}

static void test_refusals(void **state)
{
	static const enum passfail_side base_only[] = { PASSFAIL_BASE, PASSFAIL_BASE };
	struct passfail_result bad_run[] = { { 4, "x", "pass" } };
	struct passfail_result bad_status[] = { { 0, "x", "passed" } };
	struct passfail_result no_path[] = { { 0, "", "pass" } };
	struct passfail_table t;
	char err[128];

	(void)state;
	assert_int_equal(passfail_classify(base_only, 2, NULL, 0, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "no patched runs");
	passfail_table_release(&t);
	assert_int_equal(passfail_classify(sides4, 4, bad_run, 1, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "result 0: run 4 is not one of the 4 runs");
	passfail_table_release(&t);
	assert_int_equal(passfail_classify(sides4, 4, bad_status, 1, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "result 0: status 'passed' is not known");
	passfail_table_release(&t);
	assert_int_equal(passfail_classify(sides4, 4, no_path, 1, &t, err, sizeof(err)), -1);
	assert_string_equal(err, "result 0: no path");
	passfail_table_release(&t);
}

static void test_names_json(void **state)
{
	static const struct passfail_result res[] = {
		{ 0, "ok", "pass" }, { 1, "ok", "pass" }, { 2, "ok", "pass" }, { 3, "ok", "pass" },
		{ 0, "bad", "pass" }, { 1, "bad", "fail" }, { 2, "bad", "pass" },
		{ 3, "bad", "fail" },
	};
	struct passfail_table t;
	char err[128], *s;
	json_t *j;

	(void)state;
	assert_string_equal(passfail_class_name(PASSFAIL_NEW_FAILURE), "new failure");
	assert_string_equal(passfail_class_id(PASSFAIL_STILL_FAILING), "still-failing");
	assert_string_equal(passfail_class_name(PASSFAIL_CLASS_COUNT), "?");
	assert_int_equal(passfail_classify(sides4, 4, res, 8, &t, err, sizeof(err)), 0);
	j = passfail_json(&t, 0);
	assert_non_null(j);
	s = json_dumps(j, JSON_COMPACT);
	assert_string_equal(s, "{\"runs\":{\"base\":2,\"patched\":2},\"classes\":{"
			    "\"new-failure\":1,\"flaky\":0,\"still-failing\":0,\"missing\":0,"
			    "\"fixed\":0,\"skip\":0,\"pass\":1},\"subtests\":["
			    "{\"path\":\"bad\",\"class\":\"new-failure\","
			    "\"base\":{\"pass\":2,\"fail\":0,\"skip\":0,\"missing\":0},"
			    "\"patched\":{\"pass\":0,\"fail\":2,\"skip\":0,\"missing\":0},"
			    "\"label\":\"new failure\",\"quarantined\":false},"
			    "{\"path\":\"ok\",\"class\":\"pass\","
			    "\"base\":{\"pass\":2,\"fail\":0,\"skip\":0,\"missing\":0},"
			    "\"patched\":{\"pass\":2,\"fail\":0,\"skip\":0,\"missing\":0},"
			    "\"label\":\"pass\",\"quarantined\":false}],"
			    "\"truncated\":false,\"quarantined\":{\"tests\":0,\"failures\":0}}");
	free(s);
	json_decref(j);
	j = passfail_json(&t, 1);
	assert_int_equal(json_array_size(json_object_get(j, "subtests")), 1);
	assert_true(json_is_true(json_object_get(j, "truncated")));
	json_decref(j);
	passfail_table_release(&t);
}

/* flaky rows say k of n; quarantined rows are marked and their failures
 * counted apart */
static void test_labels_quarantine(void **state)
{
	static const struct passfail_result res[] = {
		{ 0, "p/flip", "pass" }, { 1, "p/flip", "fail" }, { 2, "p/flip", "pass" },
		{ 3, "p/flip", "pass" },
		{ 0, "b/flip", "fail" }, { 1, "b/flip", "pass" }, { 2, "b/flip", "pass" },
		{ 3, "b/flip", "pass" },
		{ 0, "both", "fail" }, { 1, "both", "fail" }, { 2, "both", "pass" },
		{ 3, "both", "pass" },
		{ 0, "new", "pass" }, { 1, "new", "fail" }, { 2, "new", "pass" },
		{ 3, "new", "fail" },
	};
	char *const quarantined[] = { "both", "new", "not-here" };
	struct passfail_table t;
	char err[128], label[96];

	(void)state;
	assert_int_equal(passfail_classify(sides4, 4, res, sizeof(res) / sizeof(res[0]), &t, err,
					   sizeof(err)), 0);
	assert_int_equal(t.n, 4);
	assert_string_equal(t.v[0].path, "new");
	passfail_row_label(&t.v[0], label, sizeof(label));
	assert_string_equal(label, "new failure");
	for (size_t i = 1; i < 4; i++)
		assert_int_equal(t.v[i].cls, PASSFAIL_FLAKY);
	assert_string_equal(t.v[1].path, "b/flip");
	passfail_row_label(&t.v[1], label, sizeof(label));
	assert_string_equal(label, "flaky (1 of 2 failed)");
	assert_string_equal(t.v[2].path, "both");
	passfail_row_label(&t.v[2], label, sizeof(label));
	assert_string_equal(label, "flaky (base 1 of 2, patched 1 of 2 failed)");
	assert_string_equal(t.v[3].path, "p/flip");
	passfail_row_label(&t.v[3], label, sizeof(label));
	assert_string_equal(label, "flaky (1 of 2 failed)");
	passfail_quarantine(&t, quarantined, 3);
	assert_int_equal(t.quarantined, 2);
	assert_int_equal(t.quarantined_fails, 4);   /* both: 2, new: 2 */
	assert_true(t.v[0].quarantined && t.v[2].quarantined);
	assert_false(t.v[1].quarantined || t.v[3].quarantined);
	passfail_row_label(&t.v[0], label, sizeof(label));
	assert_string_equal(label, "new failure, quarantined");
	passfail_row_label(&t.v[0], label, 12);
	assert_string_equal(label, "new failure");
	passfail_quarantine(&t, NULL, 0);
	assert_int_equal(t.quarantined_fails, 0);
	assert_false(t.v[0].quarantined);
	/* the kernels' other runs: patched never passed it, base never
	 * failed it: still new */
	passfail_kernel_history(&t, 0, PASSFAIL_PATCHED, 4, 4);
	passfail_kernel_history(&t, 0, PASSFAIL_BASE, 5, 0);
	assert_int_equal(t.v[0].cls, PASSFAIL_NEW_FAILURE);
	/* the base kernel failed it elsewhere: flaky there, not new */
	passfail_kernel_history(&t, 0, PASSFAIL_BASE, 6, 1);
	assert_int_equal(t.v[0].cls, PASSFAIL_FLAKY);
	passfail_row_label(&t.v[0], label, sizeof(label));
	assert_string_equal(label, "flaky (1 of 6 failed on the base kernel)");
	/* the patched kernel passed it in a run of another request */
	passfail_kernel_history(&t, 0, PASSFAIL_PATCHED, 7, 3);
	assert_int_equal(t.v[0].cls, PASSFAIL_FLAKY);
	assert_int_equal(t.classes[PASSFAIL_NEW_FAILURE], 0);
	assert_int_equal(t.classes[PASSFAIL_FLAKY], 4);
	passfail_row_label(&t.v[0], label, sizeof(label));
	assert_string_equal(label, "flaky (3 of 7 failed on the patched kernel)");
	passfail_table_sort(&t);
	assert_string_equal(t.v[0].path, "b/flip");
	assert_string_equal(t.v[3].path, "p/flip");
	/* a flaky row keeps its class and its request's label */
	passfail_kernel_history(&t, 3, PASSFAIL_PATCHED, 9, 1);
	passfail_row_label(&t.v[3], label, sizeof(label));
	assert_string_equal(label, "flaky (1 of 2 failed)");
	passfail_table_release(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_counts_and_order),
		cmocka_unit_test(test_empty_run),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_names_json),
		cmocka_unit_test(test_labels_quarantine),
	};

	return cmocka_run_group_tests_name("passfail", tests, NULL, NULL);
}
