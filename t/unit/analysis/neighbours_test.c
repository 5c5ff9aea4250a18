// SPDX-License-Identifier: GPL-2.0-only
/* neighbours_test.c: the comparisons' warning about neighbours
 * (analysis/neighbours.c): runs counted from their records, and a warning
 * only when the sides' shares beside a build, beside another run, pinned
 * or overcommitted are CMP_QUIET_SHARE apart or one side has no records. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/analysis.h"

static const char *const names[2] = { "base", "patched" };

static void test_count(void **state)
{
	struct cmp_quiet_side s = { 0 };

	(void)state;
	cmp_quiet_count(&s, 1, "pinned", NULL, "7");
	cmp_quiet_count(&s, 1, "pinned", "", "7:paused");   /* paused: not beside */
	cmp_quiet_count(&s, 1, "unpinned", "12:1 13:2", "7:paused 8");
	cmp_quiet_count(&s, 1, "overcommitted", "12:1", NULL);
	cmp_quiet_count(&s, 0, NULL, NULL, NULL);
	assert_int_equal(s.runs, 5);
	assert_int_equal(s.known, 4);
	assert_int_equal(s.beside_build, 2);
	assert_int_equal(s.beside_run, 2);
	assert_int_equal(s.pinned, 2);
	assert_int_equal(s.overcommitted, 1);
}

static void test_warning(void **state)
{
	struct cmp_quiet_side s[2] = { { 0 }, { 0 } };
	struct buf b = BUF_INIT(0);

	(void)state;
	/* alike: all 5 pinned, none beside anything */
	for (int i = 0; i < 5; i++) {
		cmp_quiet_count(&s[0], 1, "pinned", NULL, NULL);
		cmp_quiet_count(&s[1], 1, "pinned", NULL, NULL);
	}
	assert_int_equal(cmp_quiet_warning(s, names, &b), 0);
	assert_int_equal(b.len, 0);
	/* base 3 of 5 beside a build, patched 0 of 5 */
	s[0].beside_build = 3;
	assert_int_equal(cmp_quiet_warning(s, names, &b), 1);
	assert_string_equal(buf_str(&b),
			    "neighbours differ: base 3 of 5 runs beside a build, patched 0 of 5");
	/* 1 of 5 against 0 of 5 is 20 points: within CMP_QUIET_SHARE */
	buf_reset(&b);
	s[0].beside_build = 1;
	assert_int_equal(cmp_quiet_warning(s, names, &b), 0);
	/* pinned against unpinned, and beside other runs, in one line */
	s[1].pinned = 0;
	s[0].beside_run = 5;
	s[1].beside_run = 3;
	assert_int_equal(cmp_quiet_warning(s, names, &b), 1);
	assert_string_equal(buf_str(&b), "neighbours differ: base 5 of 5 runs beside another run, "
			    "patched 3 of 5; base 5 of 5 runs pinned, patched 0 of 5");
	/* different run counts: shares, not counts */
	buf_reset(&b);
	memset(s, 0, sizeof(s));
	s[0].runs = s[0].known = 10;
	s[0].beside_build = 5;
	s[1].runs = s[1].known = 4;
	s[1].beside_build = 2;
	assert_int_equal(cmp_quiet_warning(s, names, &b), 0);
	/* one side without records (runs of an older kfleet) */
	s[1].known = 0;
	s[1].beside_build = 0;
	assert_int_equal(cmp_quiet_warning(s, names, &b), 1);
	assert_non_null(strstr(buf_str(&b), "patched runs have no record of their neighbours"));
	/* neither has records: nothing to say */
	buf_reset(&b);
	s[0].known = 0;
	assert_int_equal(cmp_quiet_warning(s, names, &b), 0);
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_warning),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
