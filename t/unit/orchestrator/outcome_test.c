// SPDX-License-Identifier: GPL-2.0-only
/* outcome_test.c: unit tests for the outcome decision (orchestrator/
 * outcome.c), a pure function of facts: the recorded consoles under
 * t/data/console (crash reports beat every exit status), made-up exit
 * frames (well-formed and malformed), timers and floods, then what a
 * job's results and the later facts (channel flood, silence, cut output)
 * change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

/* Facts of a guest that booted, ran and powered off after exit */
static struct outcome_facts facts(const char *exit_payload)
{
	struct outcome_facts f = {
		.hello = 1, .exited = exit_payload != NULL, .exit_payload = exit_payload,
		.console = "[    0.0] booting\n", .console_len = 18,
		.console_max = 1 << 20, .output_max = 1 << 20, .chan_max = 3 << 20,
		.boot_timeout_s = 300, .timeout_s = 60, .exit_grace_s = 30,
		.silence_timeout_s = 120,
	};

	return f;
}

static struct outcome decide(const struct outcome_facts *f)
{
	struct outcome out;

	memset(&out, 0, sizeof(out));
	outcome_decide(f, &out);
	return out;
}

static void expect(const struct outcome *out, enum run_outcome o, const char *detail)
{
	if (out->o != o)
		fail_msg("outcome '%s', not '%s' (%s)", run_outcome_name(out->o),
			 run_outcome_name(o), out->detail);
	if (detail && !strstr(out->detail, detail))
		fail_msg("detail '%s' lacks '%s'", out->detail, detail);
}

static char *fixture(const char *name, size_t *n)
{
	char *path = tu_path("t/data/console", name), *text = tu_slurp(path, n);

	if (!text)
		fail_msg("fixture '%s' missing (run from the source root)", path);
	free(path);
	return text;
}

/* --- the exit frame ------------------------------------------------------- */

static void test_exit_codes(void **state)
{
	struct outcome_facts f = facts("code=0");
	struct outcome out;

	(void)state;
	out = decide(&f);
	expect(&out, RUN_OUT_PASSED, "command exited with code 0");
	assert_true(out.has_exit);
	assert_int_equal(out.exit_code, 0);
	assert_null(out.splat);
	f.exit_payload = "code=3";
	out = decide(&f);
	expect(&out, RUN_OUT_FAILED, "command exited with code 3");
	assert_int_equal(out.exit_code, 3);
	f.exit_payload = "code=255";
	out = decide(&f);
	expect(&out, RUN_OUT_FAILED, "code 255");
	assert_int_equal(out.exit_code, 255);
	f.exit_payload = "signal=9";
	out = decide(&f);
	expect(&out, RUN_OUT_FAILED, "killed by signal 9");
	assert_false(out.has_exit);
	f.exit_payload = "timeout=60";
	out = decide(&f);
	expect(&out, RUN_OUT_TIMEOUT, "ran past its timeout of 60 s");
	f.exit_payload = "something else";
	out = decide(&f);
	expect(&out, RUN_OUT_FAILED, "agent: something else");
}

/* A number the guest sent that does not parse is no exit status: never a
 * pass (atoi read "code=x" as 0) */
static void test_malformed_exit(void **state)
{
	static const char *const bad[] = {
		"code=", "code=x", "code=0x", "code= 0", "code=-1", "code=256",
		"code=99999999999999999999", "code=1 ", "signal=", "signal=abc", "signal=0",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct outcome_facts f = facts(bad[i]);
		struct outcome out = decide(&f);
		char want[64];

		snprintf(want, sizeof(want), "agent: %s", bad[i]);
		expect(&out, RUN_OUT_FAILED, want);
		assert_false(out.has_exit);
	}
}

/* --- no exit frame: boot and timers -------------------------------------- */

static void test_no_boot_and_timeouts(void **state)
{
	struct outcome_facts f = facts(NULL);
	struct outcome out;

	(void)state;
	f.hello = 0;
	f.timed_out_boot = 1;
	out = decide(&f);
	expect(&out, RUN_OUT_NO_BOOT, "no agent hello within 300 s");
	f.timed_out_boot = 0;
	out = decide(&f);
	expect(&out, RUN_OUT_NO_BOOT, "stopped before the agent said hello");
	f.hello = 1;
	f.timed_out_run = 1;
	out = decide(&f);
	expect(&out, RUN_OUT_TIMEOUT, "no exit status 30 s past the command's timeout of 60 s");
	f.timed_out_run = 0;
	out = decide(&f);
	expect(&out, RUN_OUT_FAILED, "stopped before the agent reported an exit status");
}

/* --- the console ---------------------------------------------------------- */

static void test_console_fixtures(void **state)
{
	static const struct {
		const char *file, *detail;
		enum run_outcome o;
	} cases[] = {
		{ "boot-clean.log", "command exited with code 0", RUN_OUT_PASSED },
		{ "garbage.log", "command exited with code 0", RUN_OUT_PASSED },
		{ "panic-sysrq.log", "kernel panic: [   12.345901] Kernel panic - not syncing: "
		  "sysrq triggered crash", RUN_OUT_CRASH },
		{ "oops-null.log", "BUG: [   20.101010] BUG: kernel NULL pointer dereference",
		  RUN_OUT_CRASH },
		{ "soft-lockup.log", "soft lockup: ", RUN_OUT_CRASH },
		{ "hung-task.log", "hung task: [  245.678901] INFO: task sync:140", RUN_OUT_CRASH },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct outcome_facts f = facts("code=0");
		struct outcome out;
		size_t n = 0;
		char *text = fixture(cases[i].file, &n);

		f.console = text;
		f.console_len = n;
		out = decide(&f);
		expect(&out, cases[i].o, cases[i].detail);
		if (cases[i].o == RUN_OUT_CRASH) {
			/* the detail is the report's first line only */
			assert_non_null(out.splat);
			assert_null(strchr(out.detail, '\n'));
			assert_non_null(strstr(out.splat, "\n"));
		} else {
			assert_null(out.splat);
		}
		free(out.splat);
		free(text);
	}
}

/* A crash beats an exit 0, and pvpanic speaks when the console cannot */
static void test_crash_weighs_most(void **state)
{
	size_t n = 0;
	char *text = fixture("panic-sysrq.log", &n);
	struct outcome_facts f = facts("code=0");
	struct outcome out;

	(void)state;
	f.console = text;
	f.console_len = n;
	f.pvpanic = 1;
	out = decide(&f);
	expect(&out, RUN_OUT_CRASH, "kernel panic: ");
	assert_false(out.has_exit);
	free(out.splat);
	f = facts("code=0");
	f.pvpanic = 1;
	out = decide(&f);
	expect(&out, RUN_OUT_CRASH, "reported by pvpanic; the console shows no report");
	assert_null(out.splat);
	/* a flood beats even the crash */
	f.console = text;
	f.console_len = n;
	f.flooded = 1;
	f.console_max = 4096;
	out = decide(&f);
	expect(&out, RUN_OUT_CONSOLE_FLOOD, "more than 4096 bytes to its console");
	assert_null(out.splat);
	free(text);
}

/* --- after the results ---------------------------------------------------- */

static void add(struct job_results *r, const char *path, enum job_status st)
{
	r->v = realloc(r->v, (r->n + 1) * sizeof(*r->v));
	assert_non_null(r->v);
	memset(&r->v[r->n], 0, sizeof(r->v[r->n]));
	r->v[r->n].path = strdup(path);
	r->v[r->n].status = st;
	r->n++;
}

static void test_from_results(void **state)
{
	struct outcome_facts f = facts("code=0");
	struct job_results res;
	struct outcome out;

	(void)state;
	job_results_init(&res, 0);
	add(&res, "a", JOB_PASS);
	add(&res, "b", JOB_SKIP);
	out = decide(&f);
	outcome_from_results(&res, "", &out);
	expect(&out, RUN_OUT_PASSED, "code 0");
	add(&res, "c", JOB_FAIL);
	add(&res, "d", JOB_FAIL);
	outcome_from_results(&res, "", &out);
	expect(&out, RUN_OUT_FAILED, "2 of 4 results did not pass, the first: c");
	/* exit 4: a skip, with the job's reason */
	f.exit_payload = "code=4";
	out = decide(&f);
	outcome_from_results(&res, "x\nSKIP: no such device\nmore\n", &out);
	expect(&out, RUN_OUT_SKIPPED, NULL);
	assert_string_equal(out.detail, "SKIP: no such device");
	out = decide(&f);
	outcome_from_results(&res, NULL, &out);
	assert_string_equal(out.detail, "job exited 4 (skip)");
	/* a crash stays a crash */
	out = decide(&f);
	out.o = RUN_OUT_CRASH;
	outcome_from_results(&res, "", &out);
	expect(&out, RUN_OUT_CRASH, NULL);
	job_results_release(&res);
}

static void test_finish(void **state)
{
	struct outcome_facts f = facts("code=0");
	struct outcome out;

	(void)state;
	out = decide(&f);
	outcome_finish(&f, &out);
	assert_string_equal(out.detail, "command exited with code 0");
	f.output_cut = 1;
	outcome_finish(&f, &out);
	expect(&out, RUN_OUT_PASSED, "code 0 (output cut at 1048576 bytes)");
	f = facts(NULL);
	f.flooded = f.chan_flooded = 1;
	out = decide(&f);
	outcome_finish(&f, &out);
	expect(&out, RUN_OUT_CONSOLE_FLOOD, "more than 3145728 bytes to its agent channel");
	f = facts(NULL);
	f.silent = 1;
	out = decide(&f);
	outcome_finish(&f, &out);
	expect(&out, RUN_OUT_TIMEOUT, "hang: no console or agent output for 120 s");
	/* silence after a crash report: the crash stands */
	out.o = RUN_OUT_CRASH;
	outcome_finish(&f, &out);
	expect(&out, RUN_OUT_CRASH, NULL);
}

static void test_note_is_bounded(void **state)
{
	struct outcome out;
	char big[2048];

	(void)state;
	memset(&out, 0, sizeof(out));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	outcome_set(&out, RUN_OUT_FAILED, "%s", big);
	outcome_note(&out, " (more)");
	assert_int_equal(strlen(out.detail), sizeof(out.detail) - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_malformed_exit),
		cmocka_unit_test(test_no_boot_and_timeouts),
		cmocka_unit_test(test_console_fixtures),
		cmocka_unit_test(test_crash_weighs_most),
		cmocka_unit_test(test_from_results),
		cmocka_unit_test(test_finish),
		cmocka_unit_test(test_note_is_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
