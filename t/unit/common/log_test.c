// SPDX-License-Identifier: GPL-2.0-only
/* log_test.c: unit tests for common/log.c: level names both ways, the
 * line format (UTC timestamp, program, level, message), the minimum level,
 * and a message too long for one line cut to one line. The log goes to a
 * file in a temporary directory (log_to_file), read back after each call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <regex.h>

#include "common/log.h"
#include "t/unit/testutil.h"

static char dir[64];
static char *logpath;

static int setup(void **state)
{
	(void)state;
	tu_tmpdir(dir, sizeof(dir), "log");
	logpath = tu_path(dir, "kfleetd.log");
	return log_to_file(logpath);
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	free(logpath);
	return 0;
}

/* What the log holds now; caller frees */
static char *log_text(size_t *len)
{
	char *s = tu_slurp(logpath, len);

	assert_non_null(s);
	return s;
}

static void test_level_names(void **state)
{
	static const char *const names[] = { "debug", "info", "warn", "error" };
	enum log_level l;

	(void)state;
	for (int i = 0; i < 4; i++) {
		assert_string_equal(log_level_name((enum log_level)i), names[i]);
		assert_int_equal(log_level_parse(names[i], &l), 0);
		assert_int_equal(l, i);
	}
	assert_string_equal(log_level_name((enum log_level)7), "?");
	l = LOG_LVL_WARN;
	assert_int_equal(log_level_parse("INFO", &l), -1);
	assert_int_equal(log_level_parse("warning", &l), -1);
	assert_int_equal(log_level_parse("", &l), -1);
	assert_int_equal(l, LOG_LVL_WARN);   /* untouched on a refusal */
}

/* "2026-12-01T21:34:12.345Z kfleetd-test warn: disk 'a' is full\n" */
static void test_line_format(void **state)
{
	regex_t re;
	size_t len;
	char *s;

	(void)state;
	log_init("kfleetd-test", LOG_LVL_DEBUG);
	log_warn("disk '%s' is %s", "a", "full");
	s = log_text(&len);
	assert_int_equal(regcomp(&re, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
				 "\\.[0-9]{3}Z kfleetd-test warn: disk 'a' is full\n$",
				 REG_EXTENDED), 0);
	if (regexec(&re, s, 0, NULL, 0))
		fail_msg("log line '%s' is not in the expected form", s);
	regfree(&re);
	free(s);
}

/* Below the minimum nothing is written; at and above it one line each */
static void test_min_level(void **state)
{
	size_t len;
	char *s;

	(void)state;
	log_init("kf", LOG_LVL_WARN);
	tu_write_str(logpath, "");
	log_debug("not this %d", 1);
	log_info("nor this");
	log_warn("this one");
	log_error("and this %s", "one");
	s = log_text(&len);
	assert_null(strstr(s, "not this"));
	assert_null(strstr(s, "nor this"));
	assert_non_null(strstr(s, " kf warn: this one\n"));
	assert_non_null(strstr(s, " kf error: and this one\n"));
	free(s);

	log_set_level(LOG_LVL_DEBUG);
	tu_write_str(logpath, "");
	log_debug("now %s", "yes");
	s = log_text(&len);
	assert_non_null(strstr(s, " kf debug: now yes\n"));
	free(s);
}

/* A message longer than the line buffer is cut, and still one line */
static void test_long_message(void **state)
{
	char *big = malloc(10000), *s;
	size_t len;

	(void)state;
	assert_non_null(big);
	memset(big, 'x', 9999);
	big[9999] = '\0';
	log_init("kf", LOG_LVL_INFO);
	tu_write_str(logpath, "");
	log_info("%s", big);
	s = log_text(&len);
	assert_int_equal(len, 2047);
	assert_int_equal(s[len - 1], '\n');
	assert_ptr_equal(strchr(s, '\n'), s + len - 1);
	assert_non_null(strstr(s, " kf info: xxxx"));
	free(s);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_level_names),
		cmocka_unit_test(test_line_format),
		cmocka_unit_test(test_min_level),
		cmocka_unit_test(test_long_message),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
