// SPDX-License-Identifier: GPL-2.0-only
/* flaky_test.c: unit tests for analysis/flaky.c with fixed histories: a
 * flip counts only on the same kernel (a regression at a commit is none),
 * the window of FLAKY_WINDOW runs and the threshold of FLAKY_MIN_FLIPS,
 * release after FLAKY_RELEASE_RUNS runs without a flip (passing or
 * failing), the flip rate, and the reduction of rows to run verdicts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/flaky.h"

/* runs from a pattern: one character per run, oldest first: 'P' pass, 'F'
 * fail on the kernel of the current group; '|' starts the next kernel */
static size_t runs_of(const char *pat, struct flaky_run *v)
{
	size_t n = 0;
	int64_t kernel = 1;

	for (const char *p = pat; *p; p++) {
		if (*p == '|') {
			kernel++;
			continue;
		}
		v[n].run_id = (int64_t)n + 1;
		v[n].kernel_id = kernel;
		v[n].failed = *p == 'F';
		n++;
	}
	return n;
}

static enum flaky_action decide(const char *pat, int quarantined, struct flaky_stats *s)
{
	struct flaky_run v[256];
	size_t n = runs_of(pat, v);

	return flaky_decide(v, n, quarantined, s);
}

static void test_flips_same_kernel(void **state)
{
	struct flaky_run v[64];
	struct flaky_stats s;
	size_t n;

	(void)state;
	n = runs_of("PFPF", v);
	flaky_measure(v, n, 0, &s);
	assert_int_equal(s.runs, 4);
	assert_int_equal(s.fails, 2);
	assert_int_equal(s.flips, 3);
	assert_int_equal(s.chances, 3);
	assert_true(flaky_rate(&s) == 1.0);
	/* a regression at a commit: passes on one kernel, fails on the next */
	n = runs_of("PPPP|FFFF", v);
	flaky_measure(v, n, 0, &s);
	assert_int_equal(s.flips, 0);
	assert_int_equal(s.chances, 6);
	assert_true(flaky_rate(&s) == 0.0);
	/* one run per kernel: no chance to flip, however it alternates */
	n = runs_of("P|F|P|F|P", v);
	flaky_measure(v, n, 0, &s);
	assert_int_equal(s.flips, 0);
	assert_int_equal(s.chances, 0);
	assert_true(flaky_rate(&s) == 0.0);
	/* interleaved kernels: each run is compared with its own kernel's last */
	v[0] = (struct flaky_run){ 1, 10, 0 };
	v[1] = (struct flaky_run){ 2, 11, 1 };
	v[2] = (struct flaky_run){ 3, 10, 0 };
	v[3] = (struct flaky_run){ 4, 11, 1 };
	v[4] = (struct flaky_run){ 5, 10, 1 };
	flaky_measure(v, 5, 0, &s);
	assert_int_equal(s.flips, 1);
	assert_int_equal(s.chances, 3);
	assert_int_equal(s.fails, 3);
	/* the window: the newest 2 runs, each against its kernel's run
	 * before it, also one older than the window */
	flaky_measure(v, 5, 2, &s);
	assert_int_equal(s.runs, 2);
	assert_int_equal(s.chances, 2);
	assert_int_equal(s.flips, 1);
	assert_int_equal(s.fails, 2);
}

static void test_quarantine_threshold(void **state)
{
	struct flaky_stats s;
	char why[128];

	(void)state;
	/* one flip is not enough, two are */
	assert_int_equal(decide("PPPPPF", 0, &s), FLAKY_KEEP);
	assert_int_equal(s.flips, 1);
	assert_int_equal(decide("PPFP", 0, &s), FLAKY_QUARANTINE);
	assert_int_equal(s.flips, 2);
	assert_int_equal(s.fails, 1);
	flaky_reason(&s, why, sizeof(why));
	assert_string_equal(why, "2 flips in the last 4 runs on the same kernel (1 of 4 failed)");
	/* one flip on each of two kernels adds up */
	assert_int_equal(decide("PF|FP", 0, &s), FLAKY_QUARANTINE);
	/* a regression and its fix across three kernels: no flip */
	assert_int_equal(decide("PPP|FFF|PPP", 0, &s), FLAKY_KEEP);
	/* flips older than the window do not count: 2 flips, then 20 passes */
	assert_int_equal(decide("PFPPPPPPPPPPPPPPPPPPPPP", 0, &s), FLAKY_KEEP);
	assert_int_equal(s.runs, FLAKY_WINDOW);
	assert_int_equal(s.flips, 0);
	/* a flip at the window's oldest run counts: P, then F P and 18 passes */
	assert_int_equal(decide("PFPPPPPPPPPPPPPPPPPPP", 0, &s), FLAKY_QUARANTINE);
	/* always failing is not flaky */
	assert_int_equal(decide("FFFFFFFFFF", 0, &s), FLAKY_KEEP);
	assert_int_equal(decide("", 0, &s), FLAKY_KEEP);
	assert_int_equal(s.runs, 0);
}

static void test_release(void **state)
{
	char pat[128];

	(void)state;
	/* in quarantine: stays while fewer than 30 steady runs came */
	memset(pat, 'P', 29);
	pat[29] = '\0';
	assert_int_equal(decide(pat, 1, NULL), FLAKY_KEEP);
	/* 30 passes in a row release it */
	memset(pat, 'P', 30);
	pat[30] = '\0';
	assert_int_equal(decide(pat, 1, NULL), FLAKY_RELEASE);
	/* not quarantined, the same runs change nothing */
	assert_int_equal(decide(pat, 0, NULL), FLAKY_KEEP);
	/* flips, then 30 runs: the first of them flipped back, so not yet */
	snprintf(pat, sizeof(pat), "PFPF%.30s", "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPP");
	assert_int_equal(decide(pat, 1, NULL), FLAKY_KEEP);
	/* one more steady run: released */
	snprintf(pat, sizeof(pat), "PFPF%.31s", "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP");
	assert_int_equal(decide(pat, 1, NULL), FLAKY_RELEASE);
	/* a flip in the last 30 keeps it: 29 steady after it */
	snprintf(pat, sizeof(pat), "PPPPF%.29s", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFF");
	assert_int_equal(decide(pat, 1, NULL), FLAKY_KEEP);
	/* steadily failing on one kernel and passing on another is steady */
	snprintf(pat, sizeof(pat), "%.15s|%.15s", "FFFFFFFFFFFFFFF", "PPPPPPPPPPPPPPP");
	assert_int_equal(decide(pat, 1, NULL), FLAKY_RELEASE);
}

static void test_collapse(void **state)
{
	static const struct flaky_row rows[] = {
		{ 1, 7, "pass" },
		{ 2, 7, "pass" }, { 2, 7, "fail" },     /* the worst: failed */
		{ 3, 7, "skip" },                       /* no verdict */
		{ 4, 8, "pass" }, { 4, 8, "missing" },  /* no verdict */
		{ 5, 8, "xfail" },                      /* a pass */
		{ 6, 8, "timeout" }, { 6, 8, "skip" },  /* failed */
		{ 7, 8, "bogus" },                      /* not a status */
	};
	struct flaky_run out[16];
	size_t n = flaky_collapse(rows, sizeof(rows) / sizeof(rows[0]), out);

	(void)state;
	assert_int_equal(n, 4);
	assert_int_equal(out[0].run_id, 1);
	assert_int_equal(out[0].failed, 0);
	assert_int_equal(out[1].run_id, 2);
	assert_int_equal(out[1].failed, 1);
	assert_int_equal(out[2].run_id, 5);
	assert_int_equal(out[2].kernel_id, 8);
	assert_int_equal(out[2].failed, 0);
	assert_int_equal(out[3].run_id, 6);
	assert_int_equal(out[3].failed, 1);
	assert_int_equal(flaky_verdict_of("error"), 1);
	assert_int_equal(flaky_verdict_of(NULL), -1);
}

static void test_path_listed(void **state)
{
	char *paths[] = { "a/x", "b/y", "b/z", "c" };

	(void)state;
	assert_true(flaky_path_listed(paths, 4, "a/x"));
	assert_true(flaky_path_listed(paths, 4, "b/z"));
	assert_true(flaky_path_listed(paths, 4, "c"));
	assert_false(flaky_path_listed(paths, 4, "b"));
	assert_false(flaky_path_listed(paths, 4, "d"));
	assert_false(flaky_path_listed(paths, 0, "a/x"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_listed),
		cmocka_unit_test(test_flips_same_kernel),
		cmocka_unit_test(test_quarantine_threshold),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_collapse),
	};

	return cmocka_run_group_tests_name("flaky", tests, NULL, NULL);
}
