// SPDX-License-Identifier: GPL-2.0-only
/* ktap_test.c: unit tests for ktap_parse() (jobs/ktap.c) and the result
 * lists of jobs/result.c, on fixtures under t/data/jobs/ modelled on real
 * kselftest, runner and KUnit output (also checked against golden *.out
 * files, REGENERATE=1 rewrites them) and on generated inputs: directives,
 * missing plans, lookalike lines, every cut of a fixture, bounds, garbage. */
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

static void parse_str(const char *s, struct job_results *r)
{
	jt_parse_results(ktap_parse, s, strlen(s), r, 0);
	jt_check_results(r);
}

static void parse_fixture(const char *name, struct job_results *r)
{
	size_t n = 0;
	char *text = jt_fixture(name, &n);

	jt_parse_results(ktap_parse, text, n, r, 0);
	jt_check_results(r);
	free(text);
}

/* r->tests, the test cases as kunit_tool counts them */
static void expect_tests(const struct job_results *r, size_t pass, size_t fail, size_t skip,
			 size_t xfail, size_t error, size_t timeout, size_t missing)
{
	size_t want[JOB_STATUS_COUNT] = { pass, fail, skip, xfail, error, timeout, missing };

	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		if (r->tests[i] != want[i])
			fail_msg("%zu %s test cases, expected %zu", r->tests[i],
				 job_status_name((enum job_status)i), want[i]);
}

static void test_status_names(void **state)
{
	/* the results table's CHECK constraint, in order */
	static const char *const names[] = { "pass", "fail", "skip", "xfail", "error",
					     "timeout", "missing" };
	enum job_status st;

	(void)state;
	assert_int_equal(JOB_STATUS_COUNT, 7);
	for (int i = 0; i < JOB_STATUS_COUNT; i++) {
		assert_string_equal(job_status_name((enum job_status)i), names[i]);
		assert_int_equal(job_status_parse(names[i], &st), 0);
		assert_int_equal(st, i);
	}
	assert_string_equal(job_status_name(JOB_STATUS_COUNT), "?");
	assert_int_equal(job_status_parse("passed", &st), -1);
}

/* run_kselftest.sh over several targets */
static void test_kselftest_run(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("kselftest-run.log", &r);
	jt_expect_counts(&r, 9, 3, 4, 2, 1, 1, 0);
	/* the test cases: posix_timers and its 4 subtests are 4, not 5 */
	expect_tests(&r, 8, 1, 4, 2, 1, 1, 0);
	/* nested TAP 13 behind "# " */
	jt_expect(&r, "timers/posix_timers/check_itimer virtual", JOB_PASS, NULL);
	jt_expect(&r, "timers/posix_timers", JOB_PASS, NULL);
	/* a kselftest_harness test: its "#  RUN" / "#  OK" lines are diagnostics */
	jt_expect(&r, "net/tls/global.non_established", JOB_PASS, NULL);
	jt_expect(&r, "net/tls/tls.12_aes_gcm.recv_peek_large", JOB_FAIL, NULL);
	jt_expect(&r, "net/tls/tls.13_chacha.sendmsg", JOB_SKIP,
		  "no ChaCha20-Poly1305 in this kernel");
	jt_expect(&r, "net/tls/tls.13_chacha.zero_len", JOB_XFAIL,
		  "zero-length records are not sent");
	jt_expect(&r, "net/tls", JOB_FAIL, "exit=1");
	/* "ok 1 ..." in a test's own output without a TAP header is text */
	jt_expect(&r, "net/reuseport_bpf", JOB_PASS, NULL);
	for (size_t i = 0; i < r.n; i++)
		assert_null(strstr(r.v[i].path, "program output"));
	/* exit 4 (SKIP): the reason comes from the test's "1..0 # SKIP why" */
	jt_expect(&r, "net/ipv6_flowlabel.sh", JOB_SKIP, "ipv6 is disabled on this kernel");
	jt_expect(&r, "size/get_size", JOB_SKIP, "sysinfo() is not available");
	/* the runner's timeout */
	jt_expect(&r, "net/fib_tests.sh", JOB_TIMEOUT, "45 seconds");
	assert_int_equal(jt_row(&r, "net/fib_tests.sh")->line, 63);
	/* kselftest.h results without a name: "ok 2 # SKIP why", "# error", "# XFAIL" */
	jt_expect(&r, "cgroup/test_kmem/test_kmem_basic", JOB_PASS, NULL);
	jt_expect(&r, "cgroup/test_kmem/#2", JOB_SKIP,
		  "test_kmem_memcg_deletion: memory.stat has no slab");
	jt_expect(&r, "cgroup/test_kmem/#3", JOB_ERROR,
		  "test_kmem_dead_cgroups: cgroup.stat is unreadable");
	jt_expect(&r, "cgroup/test_kmem/#4", JOB_XFAIL,
		  "test_percpu_basic: percpu accounting is racy here");
	assert_int_equal(r.notes.n, 0);
	assert_int_equal(r.truncated, 0);
	jt_golden_results(&r, "kselftest-run.out");
	job_results_release(&r);
}

/* A kernel crash in the middle of test 2: what never reported is missing,
 * the panic says why */
static void test_kselftest_crash(void **state)
{
	static const char panic[] = "Kernel panic - not syncing: Fatal exception in interrupt";
	struct job_results r;

	(void)state;
	parse_fixture("kselftest-crash.log", &r);
	jt_expect_counts(&r, 4, 0, 0, 0, 0, 0, 7);
	expect_tests(&r, 4, 0, 0, 0, 0, 0, 6);
	jt_expect(&r, "net/udpgso_bench.sh", JOB_PASS, NULL);
	jt_expect(&r, "bpf/test_sockmap/sockmap::txmsg test drop", JOB_PASS, NULL);
	jt_expect(&r, "bpf/test_sockmap/#4", JOB_MISSING, panic);
	jt_expect(&r, "bpf/test_sockmap/#6", JOB_MISSING, panic);
	/* named by the runner's "# selftests: bpf: test_sockmap" */
	jt_expect(&r, "bpf/test_sockmap", JOB_MISSING, panic);
	assert_int_equal(jt_row(&r, "bpf/test_sockmap")->line, 7);
	jt_expect(&r, "#3", JOB_MISSING, panic);
	jt_expect(&r, "#5", JOB_MISSING, panic);
	assert_int_equal(jt_row(&r, "#5")->line, 2);
	assert_false(jt_has_row(&r, "#2"));
	assert_int_equal(r.notes.n, 1);
	assert_true(jt_has_note(&r.notes, 18, "kernel panic: 7 tests never reported"));
	jt_golden_results(&r, "kselftest-crash.out");
	job_results_release(&r);
}

/* The older runner: a TAP document per collection, numbers restart */
static void test_tap13_collections(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("tap13-collections.log", &r);
	jt_expect(&r, "breakpoints/step_after_suspend_test/CPU 2", JOB_FAIL, NULL);
	/* Bail out!: the rest of that plan is missing, with its reason */
	jt_expect(&r, "breakpoints/step_after_suspend_test/#4", JOB_MISSING,
		  "Bail out! Failed to suspend: Device or resource busy");
	jt_expect(&r, "breakpoints/step_after_suspend_test", JOB_FAIL, "exit=1");
	jt_expect(&r, "breakpoints/breakpoint_test", JOB_PASS, NULL);
	jt_expect(&r, "livepatch/test-livepatch.sh", JOB_PASS, NULL);
	/* KTAP indentation inside kselftest's "# " */
	jt_expect(&r, "livepatch/test-callbacks.sh/target module before livepatch/pre_patch_callback",
		  JOB_PASS, NULL);
	jt_expect(&r, "livepatch/test-callbacks.sh/target module after livepatch/post_patch_callback",
		  JOB_TIMEOUT, "10 seconds");
	jt_expect(&r, "livepatch/test-callbacks.sh/target module after livepatch/#3",
		  JOB_MISSING, "not reported (plan 1..3)");
	jt_expect(&r, "livepatch/test-callbacks.sh/target module after livepatch", JOB_FAIL,
		  NULL);
	/* exit codes the runner did not turn into directives */
	jt_expect(&r, "livepatch/test-callbacks.sh", JOB_TIMEOUT, "exit=124");
	jt_expect(&r, "livepatch/test-state.sh", JOB_SKIP, "exit=4");
	jt_expect_counts(&r, 8, 3, 1, 0, 0, 2, 2);
	jt_golden_results(&r, "tap13-collections.out");
	job_results_release(&r);
}

/* KUnit: KTAP v1 indented by four spaces, "# Subtest:", parameters */
static void test_ktap_kunit(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("ktap-kunit.log", &r);
	jt_expect(&r, "example/example_simple_test", JOB_PASS, NULL);
	jt_expect(&r, "example/example_skip_test", JOB_SKIP, "this test should be skipped");
	/* parameterised: a nested level without a plan, named by "# Subtest:" */
	jt_expect(&r, "example/example_params_test/example value 3", JOB_SKIP,
		  "unsupported param value 3");
	jt_expect(&r, "example/example_params_test/example value 0", JOB_FAIL, NULL);
	jt_expect(&r, "example/example_params_test", JOB_FAIL, NULL);
	/* TODO on an "ok" is a pass that says why */
	jt_expect(&r, "example/example_todo_test", JOB_PASS, "feature not written yet");
	jt_expect(&r, "example", JOB_FAIL, NULL);
	jt_expect(&r, "list-kunit-test/list_test_list_add", JOB_ERROR, "kmalloc failed");
	jt_expect(&r, "list-kunit-test", JOB_PASS, NULL);
	/* the parent said ok, but one planned subtest never reported */
	jt_expect(&r, "time_test_cases/#2", JOB_MISSING, "not reported (plan 1..2)");
	jt_expect(&r, "time_test_cases", JOB_PASS, NULL);
	jt_expect_counts(&r, 8, 3, 3, 0, 1, 0, 1);
	/* the suites are not test cases; example's are its "# Totals" line's */
	expect_tests(&r, 6, 1, 3, 0, 1, 0, 1);
	jt_golden_results(&r, "ktap-kunit.out");
	job_results_release(&r);
}

/* A console log: every line behind printk's "[    0.412345][    T1] ",
 * kernel messages between the results, the clock widening past 10 s, the
 * VFS panic that ends a KUnit boot after its last suite. kunit_tool
 * (test_ignores_prefix_printk_time, test_ignores_multiple_prefixes,
 * test_prefix_mixed_kernel_output) strips the prefix the version line has
 * and finds no error; for this log it counts passed 4, failed 1, skipped 1. */
static void test_console_prefixes(void **state)
{
	struct job_results r, plain;
	char *text, *bare, *o;
	size_t n = 0;

	(void)state;
	text = jt_fixture("ktap-printk.log", &n);
	jt_parse_results(ktap_parse, text, n, &r, 0);
	jt_check_results(&r);
	jt_expect(&r, "hash_test/hash_basic", JOB_PASS, NULL);
	jt_expect(&r, "hash_test/hash_collision", JOB_SKIP, "no second bucket");
	jt_expect(&r, "list_sort_test/list_sort_stable", JOB_FAIL, NULL);
	jt_expect(&r, "list_sort_test", JOB_FAIL, NULL);
	jt_expect(&r, "bitmap_test/bitmap_fill", JOB_PASS, NULL);
	jt_expect(&r, "bitmap_test", JOB_PASS, NULL);
	assert_int_equal(jt_row(&r, "bitmap_test")->line, 28);
	jt_expect_counts(&r, 6, 2, 1, 0, 0, 0, 0);
	expect_tests(&r, 4, 1, 1, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 0);
	jt_golden_results(&r, "ktap-printk.out");

	/* the same rows as the log without its prefixes */
	bare = malloc(n + 1);
	assert_non_null(bare);
	o = bare;
	for (char *l = text; l < text + n;) {
		char *e = memchr(l, '\n', (size_t)(text + n - l)), *c = strstr(l, "] ");

		e = e ? e + 1 : text + n;
		if (c && c < e)
			l = c + 2;
		memcpy(o, l, (size_t)(e - l));
		o += e - l;
		l = e;
	}
	jt_parse_results(ktap_parse, bare, (size_t)(o - bare), &plain, 0);
	assert_int_equal(plain.n, r.n);
	for (size_t i = 0; i < r.n; i++) {
		assert_string_equal(plain.v[i].path, r.v[i].path);
		assert_int_equal(plain.v[i].status, r.v[i].status);
	}
	job_results_release(&plain);
	job_results_release(&r);
	free(bare);
	free(text);

	/* a raw /dev/kmsg read: "<6>" before the time */
	parse_str("<6>[    1.000000] KTAP version 1\n<6>[    1.000001] 1..1\n"
		  "<3>[    1.000002]     KTAP version 1\n<6>[    1.000003]     1..1\n"
		  "<6>[    1.000004]     not ok 1 leaf\n<6>[    1.000005] ok 1 suite\n", &r);
	jt_expect(&r, "suite/leaf", JOB_FAIL, NULL);
	assert_int_equal(r.n, 2);
	job_results_release(&r);

	/* any other prefix is learned from the version line, digits may change */
	parse_str("guest0 | boot\n"
		  "guest0 | TAP version 13\n"
		  "guest0 | 1..3\n"
		  "guest0 | ok 1 first\n"
		  "ok 7 not from the guest\n"
		  "guest1 |   KTAP version 1\n"
		  "guest1 |   1..1\n"
		  "guest1 |   not ok 1 sub\n"
		  "guest1 | not ok 2 second\n"
		  "guest2 | ok 3 third # SKIP why\n", &r);
	jt_expect(&r, "first", JOB_PASS, NULL);
	jt_expect(&r, "second/sub", JOB_FAIL, NULL);
	jt_expect(&r, "third", JOB_SKIP, "why");
	assert_int_equal(r.n, 4);
	job_results_release(&r);

	/* a bracket that is not printk's stays: "[ OK ]" is a test's text */
	parse_str("TAP version 13\n1..1\n[ OK ] ok 1 not a result\nok 1 real\n", &r);
	assert_int_equal(r.n, 1);
	jt_expect(&r, "real", JOB_PASS, NULL);
	job_results_release(&r);
}

/* A KUnit boot that panics in its second suite (kunit_tool's
 * test_kernel_panic_end: TEST_CRASHED, an error; for this log passed 3,
 * failed 1, crashed 3: the suite's two tests not run and the third suite) */
static void test_kernel_panic(void **state)
{
	static const char panic[] = "Kernel panic - not syncing: Fatal exception";
	struct job_results r;

	(void)state;
	parse_fixture("ktap-panic.log", &r);
	jt_expect(&r, "crc_test/crc32_le", JOB_PASS, NULL);
	jt_expect(&r, "crc_test", JOB_PASS, NULL);
	jt_expect(&r, "slab_test/slab_double_free", JOB_FAIL, NULL);
	jt_expect(&r, "slab_test/#3", JOB_MISSING, panic);
	jt_expect(&r, "slab_test/#4", JOB_MISSING, panic);
	/* the suite never reported: missing, named by its "# Subtest:" */
	jt_expect(&r, "slab_test", JOB_MISSING, panic);
	jt_expect(&r, "#3", JOB_MISSING, panic);
	expect_tests(&r, 3, 1, 0, 0, 0, 0, 3);
	assert_int_equal(r.notes.n, 1);
	assert_true(jt_has_note(&r.notes, 16, "kernel panic: 4 tests never reported"));
	jt_golden_results(&r, "ktap-panic.out");
	job_results_release(&r);
}

/* "# Subtest:" opens a suite even without a version line or plan (older
 * KUnit); kunit_tool's test_missing_test_plan: passed 10, no error */
static void test_subtest_without_plan(void **state)
{
	struct job_results r;

	(void)state;
	parse_fixture("ktap-no-plan.log", &r);
	jt_expect(&r, "rbtree_test/rbtree_case_1", JOB_PASS, NULL);
	jt_expect(&r, "rbtree_test/rbtree_case_8", JOB_PASS, NULL);
	jt_expect(&r, "rbtree_test", JOB_PASS, NULL);
	jt_expect(&r, "kfifo_test/kfifo_get", JOB_PASS, NULL);
	jt_expect_counts(&r, 12, 0, 0, 0, 0, 0, 0);
	expect_tests(&r, 10, 0, 0, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 0);
	job_results_release(&r);

	/* nested, and cut off: the suite that was running is missing */
	parse_str("KTAP version 1\n1..1\n  # Subtest: outer\n    # Subtest: inner\n"
		  "    ok 1 leaf\n", &r);
	jt_expect(&r, "outer/inner/leaf", JOB_PASS, NULL);
	jt_expect(&r, "outer/inner", JOB_MISSING, "started, never reported");
	jt_expect(&r, "outer", JOB_MISSING, "started, never reported");
	job_results_release(&r);
}

/* Results indented deeper than their plan are the plan's (kunit_tool reads
 * results whatever their indentation: test_parse_failed_nested_tests_log,
 * FAILURE with failed 2, the subtest's subtest failed too) */
static void test_deeper_results(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("KTAP version 1\n"
		  "1..2\n"
		  "not ok 1 driver_probe\n"
		  "    KTAP version 1\n"
		  "    1..1\n"
		  "        not ok 1 unbind_twice\n"
		  "not ok 2 driver_unbind\n", &r);
	jt_expect(&r, "driver_probe", JOB_FAIL, NULL);
	jt_expect(&r, "driver_unbind/unbind_twice", JOB_FAIL, NULL);
	jt_expect(&r, "driver_unbind", JOB_FAIL, NULL);
	assert_int_equal(r.n, 3);
	expect_tests(&r, 0, 2, 0, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 0);
	job_results_release(&r);

	/* the same with a passing subtest under a failing parent: the parent's
	 * failure is a test case of its own */
	parse_str("KTAP version 1\n1..2\n"
		  "  KTAP version 1\n  1..1\n      ok 1 probe_once\n"
		  "not ok 1 driver_probe\n"
		  "  KTAP version 1\n  1..1\n      not ok 1 unbind_twice\n"
		  "not ok 2 driver_unbind\n", &r);
	jt_expect(&r, "driver_probe/probe_once", JOB_PASS, NULL);
	jt_expect_counts(&r, 1, 3, 0, 0, 0, 0, 0);
	expect_tests(&r, 1, 2, 0, 0, 0, 0, 0);
	job_results_release(&r);

	/* only the numbers the plan still expects, in order: a deeper "ok 1"
	 * after ok 1, or past the plan, is a test's own text */
	parse_str("KTAP version 1\n1..2\n  ok 1 a\n  ok 1 again\n  ok 5 past\n  ok 2 b\n"
		  "# ok 2 behind a marker\n", &r);
	assert_int_equal(r.n, 2);
	jt_expect(&r, "a", JOB_PASS, NULL);
	jt_expect(&r, "b", JOB_PASS, NULL);
	job_results_release(&r);
}

/* The example of Documentation/dev-tools/ktap.rst */
static void test_ktap_spec_example(void **state)
{
	static const struct {
		const char *path;
		enum job_status st;
	} want[] = {
		{ "main_test/example_test_1/test_1", JOB_PASS },
		{ "main_test/example_test_1", JOB_PASS },
		{ "main_test/example_test_2/test_1", JOB_SKIP },
		{ "main_test/example_test_2/test_2", JOB_PASS },
		{ "main_test/example_test_2", JOB_PASS },
		{ "main_test/example_test_3/test_1", JOB_PASS },
		{ "main_test/example_test_3/test_2", JOB_FAIL },
		{ "main_test/example_test_3/test_3", JOB_SKIP },
		{ "main_test/example_test_3", JOB_FAIL },
		{ "main_test", JOB_FAIL },
	};
	struct job_results r;

	(void)state;
	parse_fixture("ktap-spec.log", &r);
	assert_int_equal(r.n, sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < r.n; i++) {
		assert_string_equal(r.v[i].path, want[i].path);
		assert_int_equal(r.v[i].status, want[i].st);
	}
	jt_expect(&r, "main_test/example_test_2/test_1", JOB_SKIP, "test_1 skipped");
	assert_int_equal(jt_row(&r, "main_test")->line, 22);
	expect_tests(&r, 3, 1, 2, 0, 0, 0, 0);
	job_results_release(&r);
}

static void test_directives(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("KTAP version 1\n"
		  "1..14\n"
		  "ok 1 a # skip lower case\n"
		  "not ok 2 b # TODO not written\n"
		  "ok 3 c # TODO\n"
		  "not ok 4 d # XFAIL known bug\n"
		  "not ok 5 e # TIMEOUT 30 seconds\n"
		  "not ok 6 f # ERROR setup failed\n"
		  "ok 7 check return code # rcode=0\n"
		  "ok 8 - dash name\n"
		  "ok 9 name#with#hashes\n"
		  "ok 10 # SKIP\n"
		  "not ok 11 k # UNKNOWN directive text\n"
		  "ok 12 SKIP\n"
		  "not ok 13 m # SKIP: colon form\n"
		  "ok 14 n #SKIPPED tight\n", &r);
	jt_expect(&r, "a", JOB_SKIP, "lower case");
	jt_expect(&r, "b", JOB_XFAIL, "not written");
	jt_expect(&r, "c", JOB_PASS, NULL);
	jt_expect(&r, "d", JOB_XFAIL, "known bug");
	jt_expect(&r, "e", JOB_TIMEOUT, "30 seconds");
	jt_expect(&r, "f", JOB_ERROR, "setup failed");
	jt_expect(&r, "check return code", JOB_PASS, "rcode=0");
	jt_expect(&r, "dash name", JOB_PASS, NULL);
	jt_expect(&r, "name#with#hashes", JOB_PASS, NULL);
	jt_expect(&r, "#10", JOB_SKIP, NULL);
	/* a directive a parser does not know falls back to ok / not ok */
	jt_expect(&r, "k", JOB_FAIL, "UNKNOWN directive text");
	jt_expect(&r, "SKIP", JOB_PASS, NULL);
	jt_expect(&r, "m", JOB_SKIP, "colon form");
	jt_expect(&r, "n", JOB_SKIP, "tight");
	assert_int_equal(r.count[JOB_MISSING], 0);
	job_results_release(&r);
}

static void test_runner_exit_codes(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("TAP version 13\n"
		  "1..6\n"
		  "not ok 1 selftests: a: skipper # exit=4\n"
		  "not ok 2 selftests: a: sleeper # exit=124\n"
		  "not ok 3 selftests: a: failer # exit=1\n"
		  "not ok 4 not-the-runner # exit=4\n"
		  "not ok 5 selftests: net/forwarding: router.sh # exit=41\n"
		  "ok 6 selftests: a: old-style skip # SKIP\n", &r);
	jt_expect(&r, "a/skipper", JOB_SKIP, "exit=4");
	jt_expect(&r, "a/sleeper", JOB_TIMEOUT, "exit=124");
	jt_expect(&r, "a/failer", JOB_FAIL, "exit=1");
	jt_expect(&r, "not-the-runner", JOB_FAIL, "exit=4");
	jt_expect(&r, "net/forwarding/router.sh", JOB_FAIL, "exit=41");
	jt_expect(&r, "a/old-style skip", JOB_SKIP, NULL);
	job_results_release(&r);
}

/* No plan: results count, nothing is missing; a trailing plan counts */
static void test_missing_and_trailing_plans(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("ok 1 first\nnot ok 2 second\n", &r);
	assert_int_equal(r.n, 2);
	jt_expect(&r, "first", JOB_PASS, NULL);
	jt_expect(&r, "second", JOB_FAIL, NULL);
	job_results_release(&r);

	parse_str("TAP version 13\nok 1 first\nok 2 second\n", &r);
	jt_expect_counts(&r, 2, 0, 0, 0, 0, 0, 0);
	job_results_release(&r);

	parse_str("TAP version 13\nok 1 first\nok 2 second\n1..4\n", &r);
	jt_expect_counts(&r, 2, 0, 0, 0, 0, 0, 2);
	jt_expect(&r, "#3", JOB_MISSING, "not reported (plan 1..4)");
	assert_int_equal(jt_row(&r, "#4")->line, 4);
	job_results_release(&r);

	/* numbers that skip one: the skipped one never reported */
	parse_str("KTAP version 1\n1..3\nok 1 a\nok 3 c\n", &r);
	jt_expect(&r, "#2", JOB_MISSING, "not reported (plan 1..3)");
	job_results_release(&r);

	/* a nested level without a plan, parent reported */
	parse_str("KTAP version 1\n1..1\n  KTAP version 1\n  ok 1 sub\nok 1 top\n", &r);
	jt_expect(&r, "top/sub", JOB_PASS, NULL);
	jt_expect(&r, "top", JOB_PASS, NULL);
	assert_int_equal(r.n, 2);
	job_results_release(&r);

	/* "1..0": nothing planned, nothing missing */
	parse_str("TAP version 13\n1..0 # SKIP not on this arch\n", &r);
	assert_int_equal(r.n, 0);
	job_results_release(&r);
}

/* A parent's failure is a test case of its own only when none of its
 * subtests failed (kunit_tool's bubble_up_test_results): never lost, never
 * counted twice */
static void test_parent_failure_counts(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("KTAP version 1\n1..2\n"
		  "  KTAP version 1\n  1..1\n  ok 1 inner\n"
		  "not ok 1 outer_fails_alone\n"
		  "  KTAP version 1\n  1..1\n  not ok 1 inner\n"
		  "not ok 2 outer_with_failing_inner\n", &r);
	jt_expect_counts(&r, 1, 3, 0, 0, 0, 0, 0);
	expect_tests(&r, 1, 2, 0, 0, 0, 0, 0);
	job_results_release(&r);

	/* a parent that never reported over passing subtests: one missing test */
	parse_str("KTAP version 1\n1..1\n  KTAP version 1\n  1..1\n  ok 1 inner\n", &r);
	jt_expect(&r, "#1", JOB_MISSING, "started, never reported");
	expect_tests(&r, 1, 0, 0, 0, 0, 0, 1);
	job_results_release(&r);

	/* skips and expected failures pass: the parent's "ok" adds nothing */
	parse_str("KTAP version 1\n1..1\n  KTAP version 1\n  1..2\n  ok 1 a # SKIP\n"
		  "  not ok 2 b # XFAIL\nok 1 p\n", &r);
	expect_tests(&r, 0, 0, 1, 1, 0, 0, 0);
	job_results_release(&r);
}

/* Nothing to count says so (kunit_tool: no KTAP output is
 * FAILURE_TO_PARSE_TESTS, a plan of 0 is NO_TESTS, a "# Subtest:" without
 * tests is NO_TESTS; each an error) */
static void test_no_tests(void **state)
{
	struct job_results r;

	(void)state;
	/* test_no_header, test_no_kunit_output */
	parse_str("Linux version 6.9.0\nKernel command line: console=ttyS0\n"
		  "Run /init as init process\n", &r);
	assert_int_equal(r.n, 0);
	assert_true(jt_has_note(&r.notes, 0, "no KTAP or TAP output"));
	job_results_release(&r);
	parse_str("", &r);
	assert_true(jt_has_note(&r.notes, 0, "no KTAP or TAP output"));
	job_results_release(&r);

	/* test_no_tests: a version line and a plan of none */
	parse_str("KTAP version 1\n1..0\n", &r);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.notes.n, 1);
	assert_true(jt_has_note(&r.notes, 1, "no tests run"));
	job_results_release(&r);
	parse_str("TAP version 13\n", &r);
	assert_true(jt_has_note(&r.notes, 1, "no tests run"));
	job_results_release(&r);
	/* the second of two documents ran none */
	parse_str("TAP version 13\n1..1\nok 1 a\nTAP version 13\n1..0\n", &r);
	assert_int_equal(r.notes.n, 1);
	assert_true(jt_has_note(&r.notes, 4, "no tests run"));
	job_results_release(&r);
	/* a whole output that skips says why, as a note: it has no row */
	parse_str("TAP version 13\n1..0 # SKIP not on this arch\n", &r);
	assert_true(jt_has_note(&r.notes, 1, "no tests run (SKIP not on this arch)"));
	job_results_release(&r);

	/* test_no_tests_no_plan: a test case announced as a suite of none
	 * (kunit_tool: passed 1, errors 1) */
	parse_str("KTAP version 1\n1..1\n"
		  "  # Subtest: suite\n  1..1\n"
		  "    # Subtest: case\n"
		  "  ok 1 - case\n"
		  "ok 1 - suite\n", &r);
	jt_expect(&r, "suite/case", JOB_PASS, NULL);
	jt_expect(&r, "suite", JOB_PASS, NULL);
	expect_tests(&r, 1, 0, 0, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 1);
	assert_true(jt_has_note(&r.notes, 5, "'case': no tests run"));
	job_results_release(&r);

	/* a kselftest that skips as a whole ("1..0 # SKIP why" under the
	 * runner) is a skip, its parent's row says why: no note */
	parse_str("TAP version 13\n1..1\n# selftests: a: b\n# TAP version 13\n"
		  "# 1..0 # SKIP no device\nok 1 selftests: a: b # SKIP\n", &r);
	jt_expect(&r, "a/b", JOB_SKIP, "no device");
	assert_int_equal(r.notes.n, 0);
	job_results_release(&r);
}

/* More of kunit_tool_test.py's shapes, with its counts (r->tests) */
static void test_kunit_tool_shapes(void **state)
{
	struct job_results r;

	(void)state;
	/* test_skipped_test: SUCCESS, passed 4, skipped 1 */
	parse_str("TAP version 14\n1..2\n"
		  "    # Subtest: strbuf_test\n    1..3\n"
		  "    ok 1 - strbuf_new\n    ok 2 - strbuf_grow\n    ok 3 - strbuf_free\n"
		  "ok 1 - strbuf_test\n"
		  "    # Subtest: demo\n    1..2\n    # demo_plain: initializing\n"
		  "    ok 1 - demo_plain\n    ok 2 - demo_skipped # SKIP not on this config\n"
		  "ok 2 - demo\n", &r);
	jt_expect(&r, "demo/demo_skipped", JOB_SKIP, "not on this config");
	expect_tests(&r, 4, 0, 1, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 0);
	job_results_release(&r);

	/* test_skipped_all_tests: SKIPPED, skipped 5 */
	parse_str("TAP version 14\n1..2\n"
		  "    # Subtest: strbuf_test\n    1..3\n"
		  "    ok 1 - strbuf_new # SKIP all skipped\n"
		  "    ok 2 - strbuf_grow # SKIP all skipped\n"
		  "    ok 3 - strbuf_free # SKIP all skipped\n"
		  "ok 1 - strbuf_test # SKIP\n"
		  "    # Subtest: demo\n    1..2\n"
		  "    ok 1 - demo_plain # SKIP all skipped\n"
		  "    ok 2 - demo_skipped # SKIP all skipped\n"
		  "ok 2 - demo # SKIP\n", &r);
	expect_tests(&r, 0, 0, 5, 0, 0, 0, 0);
	jt_expect_counts(&r, 0, 0, 7, 0, 0, 0, 0);
	job_results_release(&r);

	/* test_kselftest_nested: SUCCESS, no error; 2 tests of 2 subtests */
	parse_str("TAP version 13\n1..2\n"
		  "# selftests: futex: futex_wait\n# TAP version 13\n# 1..2\n"
		  "# ok 1 wait with timeout\n# ok 2 wait on a changed value\n"
		  "ok 1 selftests: futex: futex_wait\n"
		  "# selftests: futex: futex_requeue\n# TAP version 13\n# 1..2\n"
		  "# ok 1 requeue one\n# ok 2 requeue many\n"
		  "ok 2 selftests: futex: futex_requeue\n", &r);
	jt_expect(&r, "futex/futex_requeue/requeue many", JOB_PASS, NULL);
	expect_tests(&r, 4, 0, 0, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 0);
	job_results_release(&r);

	/* test_parse_attributes: passed 1, no error; "# module:" and
	 * "# test.speed:" are diagnostics */
	parse_str("KTAP version 1\n1..1\n  KTAP version 1\n  # Subtest: suite\n"
		  "  # module: demo\n  1..1\n  # test.speed: slow\n  ok 1 case\nok 1 suite", &r);
	jt_expect(&r, "suite/case", JOB_PASS, NULL);
	expect_tests(&r, 1, 0, 0, 0, 0, 0, 0);
	assert_int_equal(r.notes.n, 0);
	job_results_release(&r);

	/* test_parse_late_test_plan: kunit_tool counts passed 1, crashed 1 and
	 * an error. kfleet differs on purpose: the trailing plan promised 4
	 * tests, so each of the 3 never reported is a missing row of its own
	 * number, as the results table and the pass/fail diff want them */
	parse_str("TAP version 13\nok 4 test4\n1..4\n", &r);
	expect_tests(&r, 1, 0, 0, 0, 0, 0, 3);
	jt_expect(&r, "#1", JOB_MISSING, "not reported (plan 1..4)");
	assert_true(jt_has_note(&r.notes, 3, "output ended: 3 tests never reported"));
	job_results_release(&r);
}

/* Output cut off at the end of the file */
static void test_truncated_nested(void **state)
{
	struct job_results r;

	(void)state;
	/* cut inside a subtest of a subtest: both parents missing */
	parse_str("KTAP version 1\n"
		  "1..2\n"
		  "  KTAP version 1\n"
		  "  # Subtest: outer\n"
		  "  1..2\n"
		  "    KTAP version 1\n"
		  "    1..3\n"
		  "    ok 1 deep_one\n", &r);
	jt_expect(&r, "outer/#1/deep_one", JOB_PASS, NULL);
	jt_expect(&r, "outer/#1/#2", JOB_MISSING, "not reported (plan 1..3)");
	jt_expect(&r, "outer/#1/#3", JOB_MISSING, "not reported (plan 1..3)");
	jt_expect(&r, "outer/#1", JOB_MISSING, "started, never reported");
	jt_expect(&r, "outer/#2", JOB_MISSING, "not reported (plan 1..2)");
	jt_expect(&r, "outer", JOB_MISSING, "started, never reported");
	jt_expect(&r, "#2", JOB_MISSING, "not reported (plan 1..2)");
	jt_expect_counts(&r, 1, 0, 0, 0, 0, 0, 6);
	expect_tests(&r, 1, 0, 0, 0, 0, 0, 4);
	/* and a note says the output was cut off, on its last line */
	assert_true(jt_has_note(&r.notes, 8, "output ended: 6 tests never reported"));
	job_results_release(&r);

	/* cut in the middle of a result line: the half line is a result */
	parse_str("TAP version 13\n1..2\nok 1 one\nok 2 tw", &r);
	jt_expect(&r, "tw", JOB_PASS, NULL);
	assert_int_equal(r.n, 2);
	job_results_release(&r);

	/* the runner announced a test that printed nothing */
	parse_str("TAP version 13\n1..2\n# selftests: mm: hugetlb\n", &r);
	jt_expect(&r, "mm/hugetlb", JOB_MISSING, "started, never reported");
	assert_int_equal(jt_row(&r, "mm/hugetlb")->line, 3);
	jt_expect(&r, "#2", JOB_MISSING, "not reported (plan 1..2)");
	assert_int_equal(r.n, 2);
	job_results_release(&r);
}

/* Every cut of the real outputs keeps the invariants */
static void test_every_cut(void **state)
{
	static const char *const fixtures[] = { "kselftest-run.log", "kselftest-crash.log",
						"tap13-collections.log", "ktap-kunit.log",
						"ktap-printk.log", "ktap-panic.log",
						"ktap-no-plan.log" };

	(void)state;
	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		size_t n = 0;
		char *text = jt_fixture(fixtures[i], &n);

		jt_every_prefix_results(ktap_parse, text, n);
		free(text);
	}
}

/* Lines that only look like TAP change nothing */
static void test_unknown_lines(void **state)
{
	static const char *const clean =
		"TAP version 13\n1..2\nok 1 alpha\n  KTAP version 1\n  1..1\n  ok 1 sub\n"
		"not ok 2 beta # SKIP why\n";
	static const char *const noisy =
		"random preamble\n"
		"TAP version 13\n"
		"okay 1 nope\n"
		"1..2\n"
		"# ok 7 a diagnostic saying ok\n"
		"ok1 glued\n"
		"ok x no number\n"
		"not ok\n"
		"ok 1 alpha\n"
		"1..3 and more words\n"
		"KTAP version one\n"
		"Bail out\n"
		"  # nested diagnostic\n"
		"  KTAP version 1\n"
		"  [   12.5] console message\n"
		"  1..1\n"
		"  ok 1 sub\n"
		"   ok 5 misaligned by one\n"
		"\tok 6 tab indented\n"
		"#ok 8 no space\n"
		"##\n"
		"#\n"
		"\n"
		"not ok 2 beta # SKIP why\n"
		"trailing garbage ok 3 x\n";
	struct job_results a, b;

	(void)state;
	parse_str(clean, &a);
	parse_str(noisy, &b);
	assert_int_equal(a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		assert_string_equal(a.v[i].path, b.v[i].path);
		assert_int_equal(a.v[i].status, b.v[i].status);
	}
	job_results_release(&a);
	job_results_release(&b);
}

static void test_line_endings_and_empty(void **state)
{
	struct job_results r;

	(void)state;
	parse_str("TAP version 13\r\n1..1\r\nok 1 crlf # SKIP why\r\n", &r);
	jt_expect(&r, "crlf", JOB_SKIP, "why");
	job_results_release(&r);

	parse_str("", &r);
	assert_int_equal(r.n, 0);
	job_results_release(&r);

	job_results_init(&r, 0);
	assert_int_equal(ktap_parse(NULL, 0, &r), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.max, JOB_RESULTS_MAX);
	job_results_release(&r);
}

/* NULs, invalid UTF-8 and control characters come out clean */
static void test_binary_and_utf8(void **state)
{
	static const char in[] = "TAP version 13\n1..4\n"
				 "ok 1 t\xc3\xabst \xe2\x9c\x93\n"
				 "ok 2 bad\xff\xfe" "byte\n"
				 "ok 3 nul\0inside\n"
				 "not ok 4 esc\x1b[31mred # SKIP r\x01" "e\xc0\xafson\n"
				 "\x80\x81\x82\xff\n";
	struct job_results r;

	(void)state;
	jt_parse_results(ktap_parse, in, sizeof(in) - 1, &r, 0);
	jt_check_results(&r);
	assert_int_equal(r.n, 4);
	jt_expect(&r, "t\xc3\xabst \xe2\x9c\x93", JOB_PASS, NULL);
	jt_expect(&r, "bad??byte", JOB_PASS, NULL);
	jt_expect(&r, "nul?inside", JOB_PASS, NULL);
	jt_expect(&r, "esc?[31mred", JOB_SKIP, "r?e??son");
	job_results_release(&r);
}

static void test_bounds(void **state)
{
	struct job_results r;
	char *big;
	size_t n;

	(void)state;
	/* a plan far beyond the bound: bounded rows, truncated */
	jt_parse_results(ktap_parse, "TAP version 13\n1..999999999\n",
			 strlen("TAP version 13\n1..999999999\n"), &r, 100);
	jt_check_results(&r);
	assert_int_equal(r.n, 100);
	assert_int_equal(r.truncated, 1);
	job_results_release(&r);

	/* too many digits: not a plan */
	parse_str("TAP version 13\n1..99999999999\nok 1 a\n", &r);
	assert_int_equal(r.n, 1);
	assert_true(jt_has_note(&r.notes, 2, "too large"));
	job_results_release(&r);

	/* more results than the bound: the rest is not read, a note says so */
	{
		FILE *f = open_memstream(&big, &n);

		assert_non_null(f);
		fprintf(f, "KTAP version 1\n1..50\n  KTAP version 1\n  1..50\n");
		for (int i = 1; i <= 50; i++)
			fprintf(f, "  ok %d sub%d\n", i, i);
		fprintf(f, "ok 1 parent\n");
		fclose(f);
	}
	jt_parse_results(ktap_parse, big, n, &r, 10);
	jt_check_results(&r);
	assert_int_equal(r.n, 10);
	assert_int_equal(r.truncated, 1);
	assert_true(jt_has_note(&r.notes, 15, "more than 10 results"));
	/* the rows kept still carry their parent's place: "#1" as it never came */
	assert_string_equal(r.v[0].path, "#1/sub1");
	free(big);
	job_results_release(&r);

	/* nesting deeper than KTAP_DEPTH_MAX */
	{
		FILE *f = open_memstream(&big, &n);

		assert_non_null(f);
		for (int d = 0; d < 40; d++)
			fprintf(f, "%*sKTAP version 1\n%*s1..1\n", d * 2, "", d * 2, "");
		for (int d = 39; d >= 0; d--)
			fprintf(f, "%*sok 1 level%d\n", d * 2, "", d);
		fclose(f);
	}
	jt_parse_results(ktap_parse, big, n, &r, 0);
	jt_check_results(&r);
	assert_true(jt_has_note(&r.notes, 2 * KTAP_DEPTH_MAX + 1, "deeper than"));
	assert_int_equal(r.notes.n, 1);
	/* every result kept, those past the cap under the deepest level */
	assert_int_equal(r.n, 40);
	assert_string_equal(r.v[r.n - 1].path, "level0");
	assert_true(!strcmp(r.v[0].path + strlen(r.v[0].path) - strlen("level15/level39"),
			    "level15/level39"));
	expect_tests(&r, 1, 0, 0, 0, 0, 0, 0);
	free(big);
	job_results_release(&r);

	/* a 1 MiB name, a 1 MiB indentation, a 1 MiB directive */
	n = 1 << 20;
	big = malloc(3 * n + 100);
	assert_non_null(big);
	{
		size_t o = 0;

		o += (size_t)sprintf(big + o, "TAP version 13\n1..3\nok 1 ");
		memset(big + o, 'x', n);
		o += n;
		o += (size_t)sprintf(big + o, "\n");
		memset(big + o, ' ', n);
		o += n;
		o += (size_t)sprintf(big + o, "ok 2 indented\nnot ok 2 b # SKIP ");
		memset(big + o, 'y', n);
		o += n;
		big[o++] = '\n';
		jt_parse_results(ktap_parse, big, o, &r, 0);
	}
	jt_check_results(&r);
	assert_int_equal(r.n, 3);
	assert_int_equal(strlen(r.v[0].path), JOB_NAME_MAX);
	assert_string_equal(r.v[1].path, "b");
	assert_int_equal(strlen(r.v[1].reason), JOB_REASON_MAX);
	jt_expect(&r, "#3", JOB_MISSING, "not reported (plan 1..3)");
	free(big);
	job_results_release(&r);
}

/* Past KTAP_DEPTH_MAX levels a failing test case under passing parents is
 * kept and counted; so is a failing parent over passing subtests there */
static void test_depth_overflow(void **state)
{
	struct job_results r;
	char *in;
	size_t n;
	FILE *f = open_memstream(&in, &n);

	(void)state;
	assert_non_null(f);
	for (int d = 0; d < 20; d++)
		fprintf(f, "%*sKTAP version 1\n%*s1..2\n", d * 2, "", d * 2, "");
	fprintf(f, "%*snot ok 1 leaf\n%*sok 2 other_leaf\n", 38, "", 38, "");
	for (int d = 18; d >= 0; d--)
		fprintf(f, "%*sok 1 level%d\n%*sok 2 sibling%d\n", d * 2, "", d, d * 2, "", d);
	fclose(f);
	jt_parse_results(ktap_parse, in, n, &r, 0);
	jt_check_results(&r);
	assert_int_equal(r.n, 2 + 19 * 2);
	jt_expect(&r, "level0/level1/level2/level3/level4/level5/level6/level7/level8/level9/"
		  "level10/level11/level12/level13/level14/level15/leaf", JOB_FAIL, NULL);
	jt_expect(&r, "level0/level1/level2/level3/level4/level5/level6/level7/level8/level9/"
		  "level10/level11/level12/level13/level14/level15/level16", JOB_PASS, NULL);
	/* the leaves: 2 at the bottom, a sibling at each of the 19 levels above */
	expect_tests(&r, 20, 1, 0, 0, 0, 0, 0);
	/* the plans of levels within the cap are still checked */
	jt_expect_counts(&r, 39, 1, 0, 0, 0, 0, 0);
	free(in);
	job_results_release(&r);

	f = open_memstream(&in, &n);
	assert_non_null(f);
	for (int d = 0; d < 18; d++)
		fprintf(f, "%*sKTAP version 1\n%*s1..1\n", d * 2, "", d * 2, "");
	fprintf(f, "%*sok 1 leaf\n%*snot ok 1 level16\n", 34, "", 32, "");
	for (int d = 15; d >= 0; d--)
		fprintf(f, "%*sok 1 level%d\n", d * 2, "", d);
	fclose(f);
	jt_parse_results(ktap_parse, in, n, &r, 0);
	jt_check_results(&r);
	expect_tests(&r, 1, 1, 0, 0, 0, 0, 0);
	free(in);
	job_results_release(&r);
}

/* Paths stop at JOB_PATH_MAX and never cut a character in two */
static void test_path_bound(void **state)
{
	struct job_results r;
	char *in;
	size_t n;
	FILE *f = open_memstream(&in, &n);

	(void)state;
	assert_non_null(f);
	for (int d = 0; d < 8; d++)
		fprintf(f, "%*sKTAP version 1\n", d * 2, "");
	fprintf(f, "%*sok 1 ", 14, "");
	for (int i = 0; i < 120; i++)
		fputs("\xe2\x82\xac", f);   /* 360 bytes of euro signs */
	fputc('\n', f);
	for (int d = 6; d >= 0; d--) {
		fprintf(f, "%*sok 1 ", d * 2, "");
		for (int i = 0; i < 83; i++)
			fputs("\xc3\xa9", f);
		fputc('\n', f);
	}
	fclose(f);
	jt_parse_results(ktap_parse, in, n, &r, 0);
	jt_check_results(&r);
	assert_int_equal(r.n, 8);
	assert_true(strlen(r.v[0].path) <= JOB_PATH_MAX);
	assert_true(strlen(r.v[0].path) > JOB_PATH_MAX - 4);
	free(in);
	job_results_release(&r);
}

static void test_json(void **state)
{
	struct job_results r;
	json_t *j, *row, *c;

	(void)state;
	parse_str("TAP version 13\n1..2\nok 1 a # SKIP \"quoted\"\n", &r);
	j = job_results_json(&r);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "results")), 2);
	row = json_array_get(json_object_get(j, "results"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "path")), "a");
	assert_string_equal(json_string_value(json_object_get(row, "status")), "skip");
	assert_string_equal(json_string_value(json_object_get(row, "reason")), "\"quoted\"");
	assert_int_equal(json_integer_value(json_object_get(row, "line")), 3);
	row = json_array_get(json_object_get(j, "results"), 1);
	assert_string_equal(json_string_value(json_object_get(row, "status")), "missing");
	json_decref(j);
	job_results_release(&r);

	parse_str("ok 1 plain\n", &r);
	j = job_results_json(&r);
	assert_non_null(j);
	row = json_array_get(json_object_get(j, "results"), 0);
	assert_true(json_is_null(json_object_get(row, "reason")));
	c = json_object_get(j, "counts");
	assert_int_equal(json_integer_value(json_object_get(c, "pass")), 1);
	json_decref(j);
	job_results_release(&r);

	parse_str("TAP version 13\n1..2\nok 1 a # SKIP \"quoted\"\n", &r);
	j = job_results_json(&r);
	assert_non_null(j);
	c = json_object_get(j, "counts");
	assert_int_equal(json_integer_value(json_object_get(c, "skip")), 1);
	assert_int_equal(json_integer_value(json_object_get(c, "missing")), 1);
	assert_true(json_is_false(json_object_get(j, "truncated")));
	/* the output ends before test 2: a note says so */
	assert_int_equal(json_array_size(json_object_get(j, "notes")), 1);
	row = json_array_get(json_object_get(j, "notes"), 0);
	assert_int_equal(json_integer_value(json_object_get(row, "line")), 3);
	assert_string_equal(json_string_value(json_object_get(row, "what")),
			    "output ended: 1 test never reported");
	json_decref(j);
	job_results_release(&r);
}

/* Parsers append: two outputs into one list */
static void test_append(void **state)
{
	static const char a[] = "TAP version 13\n1..1\nok 1 first\n";
	static const char b[] = "TAP version 13\n1..2\nok 1 second\n";
	struct job_results r;

	(void)state;
	job_results_init(&r, 0);
	assert_int_equal(ktap_parse(a, sizeof(a) - 1, &r), 0);
	assert_int_equal(ktap_parse(b, sizeof(b) - 1, &r), 0);
	jt_check_results(&r);
	assert_int_equal(r.n, 3);
	jt_expect(&r, "first", JOB_PASS, NULL);
	jt_expect(&r, "#2", JOB_MISSING, "not reported (plan 1..2)");
	job_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_names),
		cmocka_unit_test(test_kselftest_run),
		cmocka_unit_test(test_kselftest_crash),
		cmocka_unit_test(test_tap13_collections),
		cmocka_unit_test(test_ktap_kunit),
		cmocka_unit_test(test_ktap_spec_example),
		cmocka_unit_test(test_console_prefixes),
		cmocka_unit_test(test_kernel_panic),
		cmocka_unit_test(test_subtest_without_plan),
		cmocka_unit_test(test_deeper_results),
		cmocka_unit_test(test_directives),
		cmocka_unit_test(test_runner_exit_codes),
		cmocka_unit_test(test_missing_and_trailing_plans),
		cmocka_unit_test(test_parent_failure_counts),
		cmocka_unit_test(test_no_tests),
		cmocka_unit_test(test_kunit_tool_shapes),
		cmocka_unit_test(test_truncated_nested),
		cmocka_unit_test(test_every_cut),
		cmocka_unit_test(test_unknown_lines),
		cmocka_unit_test(test_line_endings_and_empty),
		cmocka_unit_test(test_binary_and_utf8),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_depth_overflow),
		cmocka_unit_test(test_path_bound),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
