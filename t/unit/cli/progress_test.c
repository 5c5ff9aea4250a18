// SPDX-License-Identifier: GPL-2.0-only
/* progress_test.c: unit tests for cli/progress.c, a submission's builds
 * while they run: piped, a line per stage and tenth, and a line at least
 * every 30 s when neither changes (a first build with nothing to compare
 * with is not silent), on simulated time; against an estimate from the
 * .config "N of about M objects"; on a terminal one line in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "cli/cli.h"
#include "t/unit/testutil.h"

/* A submission with one building build (id 7, x86_64 base): objects so
 * far, expected (0: null) and where that comes from (NULL: null) */
static json_t *sub_at(long long objects, long long expected, const char *from, long long el)
{
	json_t *p = json_pack("{ss sI so so sI sn}", "stage", "make", "objects",
			      (json_int_t)objects,
			      "expected", expected ? json_integer(expected) : json_null(),
			      "expected_from", from ? json_string(from) : json_null(),
			      "elapsed_ms", (json_int_t)el, "eta_ms");
	json_t *s = json_pack("{ss s[{sI ss ss so}]}", "state", "building", "builds", "id", 7,
			      "arch", "x86_64", "side", "base", "progress", p);

	assert_non_null(s);
	return s;
}

/* What one call printed at now_ms; caller frees */
static char *progress(json_t *sub, int tty, struct cli_progress *st, long long now_ms)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);

	assert_non_null(m);
	cli_build_progress_to(m, sub, tty, st, now_ms);
	fclose(m);
	json_decref(sub);
	return s;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* Piped, with no count to compare with: the first poll prints, polls
 * within the interval do not, one past it does, with the count so far */
static void test_piped_quiet_build(void **state)
{
	struct cli_progress st = { 0 };
	long long t0 = 1000000;
	char *out;

	(void)state;
	out = progress(sub_at(10, 0, NULL, 2000), 0, &st, t0);
	assert_string_equal(out, "build 7 x86_64 base: make 10 objects, 2 s\n");
	free(out);
	out = progress(sub_at(80, 0, NULL, 12000), 0, &st, t0 + 10000);
	assert_string_equal(out, "");
	free(out);
	out = progress(sub_at(150, 0, NULL, 24000), 0, &st, t0 + 24000);
	assert_string_equal(out, "");
	free(out);
	out = progress(sub_at(170, 0, NULL, 26000), 0, &st, t0 + CLI_PROGRESS_EVERY_MS);
	assert_string_equal(out, "build 7 x86_64 base: make 170 objects, 26 s\n");
	free(out);
	/* the interval counts from that line */
	out = progress(sub_at(180, 0, NULL, 30000), 0, &st, t0 + CLI_PROGRESS_EVERY_MS + 4000);
	assert_string_equal(out, "");
	free(out);
}

/* A cold build of 12 minutes, polled every 2 s, piped: never 30 s
 * without a line, and not a line per poll either */
static void test_piped_never_silent(void **state)
{
	struct cli_progress st = { 0 };
	long long t0 = 5000, last = -1, gap = 0;
	int printed = 0;

	(void)state;
	for (long long t = 0; t <= 12 * 60000; t += 2000) {
		char *out = progress(sub_at(t / 1000 * 3, 0, NULL, t), 0, &st, t0 + t);

		if (*out) {
			assert_int_equal(lines(out), 1);
			if (last >= 0 && t - last > gap)
				gap = t - last;
			last = t;
			printed++;
		}
		free(out);
	}
	assert_true(gap <= 30000);
	assert_in_range(printed, 12 * 60 / 30, 12 * 60 / 20);
}

/* Against an estimate from the .config: "N of about M objects", a line
 * per tenth at once, and the 30 s line between tenths */
static void test_piped_estimate(void **state)
{
	struct cli_progress st = { 0 };
	char *out;

	(void)state;
	out = progress(sub_at(50, 1000, "config", 20000), 0, &st, 0);
	assert_string_equal(out, "build 7 x86_64 base: make 50 of about 1000 objects (5%), 20 s\n");
	free(out);
	out = progress(sub_at(99, 1000, "config", 22000), 0, &st, 2000);
	assert_string_equal(out, "");
	free(out);
	out = progress(sub_at(100, 1000, "config", 24000), 0, &st, 4000);     /* a tenth */
	assert_non_null(strstr(out, "make 100 of about 1000 objects (10%)"));
	free(out);
	out = progress(sub_at(150, 1000, "config", 60000), 0, &st, 4000 + CLI_PROGRESS_EVERY_MS);
	assert_non_null(strstr(out, "make 150 of about 1000 objects (15%), 1 min\n"));
	free(out);
	/* past the estimate: the count alone */
	out = progress(sub_at(1100, 1000, "config", 90000), 0, &st, 60000);
	assert_string_equal(out, "build 7 x86_64 base: make 1100 objects, 2 min\n");
	free(out);
	/* against an earlier build's count, as before */
	memset(&st, 0, sizeof(st));
	out = progress(sub_at(250, 1000, "previous build", 20000), 0, &st, 0);
	assert_string_equal(out, "build 7 x86_64 base: make 250/~1000 (25%), 20 s\n");
	free(out);
}

/* On a terminal: one line in place on every poll, no newline */
static void test_tty(void **state)
{
	struct cli_progress st = { 0 };
	char *out;

	(void)state;
	out = progress(sub_at(300, 1200, "config", 61000), 1, &st, 0);
	assert_string_equal(out, "\r\033[Kbuild 7 x86_64 base: make 300 of about 1200 objects "
			    "(25%), 2 min");
	assert_int_equal(st.shown, 1);
	free(out);
	out = progress(sub_at(301, 1200, "config", 62000), 1, &st, 1000);
	assert_non_null(strstr(out, "make 301 of about 1200"));
	assert_null(strchr(out, '\n'));
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_piped_quiet_build),
		cmocka_unit_test(test_piped_never_silent),
		cmocka_unit_test(test_piped_estimate),
		cmocka_unit_test(test_tty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
