// SPDX-License-Identifier: GPL-2.0-only
/* report_test.c: unit tests for what the kfleet commands print from an
 * answer of the API: a run as `kfleet show` prints it (cli_print_run, from
 * the fixture t/data/cli/run.json against its golden, and a run just
 * queued), `kfleet flaky`'s list, and `kfleet parse`'s text and JSON on a
 * job's log, without the daemon. Times print in the local zone: the tests run in UTC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <jansson.h>

#include "cli/cli.h"
#include "t/unit/testutil.h"

/* cli_print_run of print_this (raw: print_raw), for tu_run_captured */
static json_t *print_this;
static int print_raw;

static int run_print_run(int argc, char **argv)
{
	cli_print_run(print_this, print_raw);
	return 0;
}

static char *print_run_of_raw(json_t *run, int raw)
{
	char *out, *err;

	print_this = run;
	print_raw = raw;
	assert_int_equal(tu_run_captured(run_print_run, NULL, 0, &out, &err), 0);
	assert_string_equal(err, "");
	free(err);
	return out;
}

static char *print_run_of(json_t *run)
{
	return print_run_of_raw(run, 0);
}

static void test_print_run_golden(void **state)
{
	json_error_t jerr;
	json_t *run = json_load_file("t/data/cli/run.json", 0, &jerr);
	char *out;

	assert_non_null(run);
	out = print_run_of(run);
	tu_golden("cli/run.out", out, strlen(out));
	free(out);
	json_decref(run);
}

/* What a hostile guest wrote, in every string of a run that comes from
 * it, shown and not sent; --raw as it came */
static void test_print_run_escapes(void **state)
{
	json_t *run = json_pack("{s:i, s:s, s:s, s:s, s:s, s:{s:s}, s:{s:s}, s:{s:{s:i}, s:[{s:s, "
				"s:s}]}, s:s}",
				"id", 5, "state", "done", "outcome", "failed",
				"detail", "SKIP: \x1b]0;pwned\x07", "splat", "BUG: \x1b[2J\x1b[H",
				"kernel", "path", "/boot/vmlinuz", "guest", "release", "6.1\xc2\x9b" "1m",
				"results", "counts", "fail", 1, "rows", "path", "t\x1b[31m", "status", "fail",
				"output", "out\x1b]0;title\x07\rover\r\n");
	char *out;

	assert_non_null(run);
	out = print_run_of(run);
	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\r'));
	assert_null(strstr(out, "\xc2\x9b"));
	assert_non_null(strstr(out, "detail:     SKIP: ^[]0;pwned^G\n"));
	assert_non_null(strstr(out, "BUG: ^[[2J^[[H"));
	assert_non_null(strstr(out, "t^[[31m"));
	assert_non_null(strstr(out, "output:\nout^[]0;title^G^Mover\n"));
	free(out);
	out = print_run_of_raw(run, 1);
	assert_non_null(strstr(out, "output:\nout\x1b]0;title\x07\rover\r\n"));
	assert_non_null(strstr(out, "SKIP: \x1b]0;pwned\x07"));
	free(out);
	json_decref(run);
}

static void test_print_run_queued(void **state)
{
	json_t *run = json_pack("{s:i, s:s, s:{s:s}, s:s, s:i, s:i, s:i, s:i, s:i, s:I, s:s}",
				"id", 12, "state", "queued", "kernel", "path", "/boot/vmlinuz",
				"arch", "arm64", "vcpus", 4, "memory_mb", 1024, "timeout_s", 600,
				"attempt", 0, "max_attempts", 3, "queued_at", (json_int_t)86400000,
				"command", "uname -a");
	char *out;

	assert_non_null(run);
	out = print_run_of(run);
	assert_string_equal(out,
		"run 12: queued\n"
		"  kernel:     /boot/vmlinuz\n"
		"  arch:       arm64, 4 vCPUs, 1024 MiB, timeout 600 s\n"
		"  attempt:    0 of at most 3\n"
		"  host:       -\n"
		"  queued:     1970-01-02 00:00:00 UTC\n"
		"  started:    -\n"
		"  booted:     -\n"
		"  ended:      -\n"
		"  duration:   -\n"
		"  command:    uname -a\n");
	free(out);
	json_decref(run);
}

static void test_parse_ktap(void **state)
{
	char *argv[] = { "parse", "ktap", "t/data/jobs/ktap-spec.log", NULL };
	char *argj[] = { "parse", "ktap", "t/data/jobs/ktap-spec.log", "--json", NULL };
	char *out, *err;
	json_error_t jerr;
	json_t *j;

	assert_int_equal(tu_run_captured(cli_parse, argv, 3, &out, &err), CLI_OK);
	assert_non_null(strstr(out, "\n10 results: 5 pass, 3 fail, 2 skip"));
	/* and the test cases as kunit_tool counts them, suites not among them */
	assert_non_null(strstr(out, "\n6 test cases: 3 pass, 1 fail, 2 skip"));
	tu_golden("cli/parse-ktap-spec.out", out, strlen(out));
	free(out);
	free(err);
	assert_int_equal(tu_run_captured(cli_parse, argj, 4, &out, &err), CLI_OK);
	j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "parser")), "ktap");
	assert_true(json_is_array(json_object_get(j, "results")));
	assert_true(json_is_object(json_object_get(j, "tests")));
	json_decref(j);
	free(out);
	free(err);
}

static void test_parse_refusals(void **state)
{
	char *unknown[] = { "parse", "yaml", "t/data/jobs/ktap-spec.log", NULL };
	char *missing[] = { "parse", "ktap", "/nonexistent/log", NULL };
	char *few[] = { "parse", "ktap", NULL };
	char *out, *err;

	assert_int_equal(tu_run_captured(cli_parse, unknown, 3, &out, &err), CLI_USAGE);
	assert_string_equal(err, "kfleet: parse: 'yaml' is not a parser (ktap, test_progs, "
			    "bench, metrics)\n");
	assert_string_equal(out, "");
	free(out);
	free(err);
	assert_int_equal(tu_run_captured(cli_parse, missing, 3, &out, &err), CLI_USAGE);
	assert_string_equal(err, "kfleet: parse: '/nonexistent/log': No such file or "
			    "directory\n");
	free(out);
	free(err);
	assert_int_equal(tu_run_captured(cli_parse, few, 2, &out, &err), CLI_USAGE);
	assert_non_null(strstr(err, "kfleet: parse: expected a parser and a file\nusage: "));
	free(out);
	free(err);
}

static int setup(void **state)
{
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

static json_t *flaky_this;

static int run_print_flaky(int argc, char **argv)
{
	cli_print_flaky(flaky_this, argc > 1);
	return 0;
}

static void test_print_flaky(void **state)
{
	char *out, *err;

	(void)state;
	flaky_this = json_loads("{\"flaky\": [{\"path\": \"net/tcp/flip\", \"job\": \"j1\","
		" \"cell\": \"x86_64, 1 vCPU\", \"flips\": 3, \"chances\": 6, \"failed\": 2,"
		" \"runs\": 8, \"since\": 1764639600000, \"released_at\": null},"
		" {\"path\": \"b\", \"job\": \"job-two\", \"cell\": \"arm64, 16 vCPUs\","
		" \"flips\": 0, \"chances\": 0, \"failed\": 0, \"runs\": 30,"
		" \"since\": 1764639600000, \"released_at\": 1764643200000}],"
		" \"rule\": {\"window\": 20, \"min_flips\": 2, \"release_runs\": 30},"
		" \"truncated\": false}", 0, NULL);
	assert_non_null(flaky_this);
	assert_int_equal(tu_run_captured(run_print_flaky, NULL, 0, &out, &err), 0);
	assert_string_equal(out,
		"TEST         JOB     CELL             FLIP RATE      FAILED    SINCE (UTC)\n"
		"net/tcp/flip j1      x86_64, 1 vCPU   50% (3/6)      2 of 8    2025-12-02 01:40:00\n"
		"b            job-two arm64, 16 vCPUs  0% (0/0)       0 of 30   2025-12-02 01:40:00\n"
		"1 test in quarantine (2 flips in a test's newest 20 runs on the same kernel put it "
		"there, 30 runs without a flip release it)\n");
	free(out);
	free(err);
	/* --all: the released column */
	assert_int_equal(tu_run_captured(run_print_flaky, (char *[]){ "flaky", "--all" }, 2, &out,
					 &err), 0);
	assert_non_null(strstr(out, "SINCE (UTC)         RELEASED (UTC)\n"));
	assert_non_null(strstr(out, "0 of 30   2025-12-02 01:40:00 2025-12-02 02:40:00\n"));
	assert_non_null(strstr(out, "2 of 8    2025-12-02 01:40:00 -\n"));
	free(out);
	free(err);
	json_decref(flaky_this);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_print_run_golden),
		cmocka_unit_test(test_print_run_queued),
		cmocka_unit_test(test_print_run_escapes),
		cmocka_unit_test(test_parse_ktap),
		cmocka_unit_test(test_print_flaky),
		cmocka_unit_test(test_parse_refusals),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
