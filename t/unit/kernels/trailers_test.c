// SPDX-License-Identifier: GPL-2.0-only
/* trailers_test.c: unit tests for kernels/trailers.c: which last
 * paragraph git takes as a trailer block, continuation lines, and the
 * first "key: value" line of a text (base-commit:, mailinfo's output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/kernelsint.h"

/* ---- trailers ---- */

static void test_trailers(void **state)
{
	struct series_trailer *t;
	size_t n;

	assert_int_equal(series_trailers("Fix the thing.\n\nMore words here.\n\n"
					 "Fixes: 123456789abc (\"x: y\")\n"
					 "Reported-by: A <a@x>\n"
					 "Closes: https://lore.kernel.org/r/1\n"
					 "Signed-off-by: B <b@x>\n"
					 "Acked-by: C <c@x>\n\n\n", &t, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(t[0].key, "Fixes");
	assert_string_equal(t[0].value, "123456789abc (\"x: y\")");
	assert_string_equal(t[4].key, "Acked-by");
	assert_string_equal(t[4].value, "C <c@x>");
	series_trailers_free(t, n);

	/* a folded trailer; a maintainer's note among them */
	assert_int_equal(series_trailers("Body.\n\n"
					 "Signed-off-by: A <a@x>\n"
					 "Link: https://example.org/a/very/long\n"
					 "  /continued\n"
					 "[bob: reworded the subject]\n"
					 "Signed-off-by: Bob <bob@x>\n", &t, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(t[1].value, "https://example.org/a/very/long /continued");
	assert_string_equal(t[2].value, "Bob <bob@x>");
	series_trailers_free(t, n);

	/* the whole body is the trailer block */
	assert_int_equal(series_trailers("Signed-off-by: A <a@x>\r\nTested-by: T <t@x>\r\n",
					 &t, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[1].value, "T <t@x>");
	series_trailers_free(t, n);

	/* an empty value, its space and CR trimmed (found by the fuzzer) */
	assert_int_equal(series_trailers("Body.\n\nSigned-off-by: \r\nAcked-by:\n", &t, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[0].value, "");
	assert_string_equal(t[1].value, "");
	series_trailers_free(t, n);

	/* prose with a colon is not a trailer block */
	assert_int_equal(series_trailers("Body.\n\nNote: this is prose, and this line\n"
					 "is not a trailer at all.\n", &t, &n), 0);
	assert_int_equal(n, 0);
	assert_null(t);
	assert_int_equal(series_trailers("", &t, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(series_trailers(NULL, &t, &n), 0);
	assert_int_equal(n, 0);
}

/* ---- "key: value" lines ---- */

static void test_line_value(void **state)
{
	static const char text[] =
		"Subject: [PATCH v2 1/2] x: y\n"
		"Author: Alice Kernel\n"
		"Email:\n"
		"Date:    \t \n"
		"base-commit:   1234abcd5678  \r\n"
		"base-commit: second\n"
		"change-id:20240101-x-y\n";
	char *v;

	(void)state;
	v = series_line_value(text, "Subject:");
	assert_string_equal(v, "[PATCH v2 1/2] x: y");
	free(v);
	/* blanks around the value off, the first of two */
	v = series_line_value(text, "base-commit:");
	assert_string_equal(v, "1234abcd5678");
	free(v);
	/* no blank needed after the key */
	v = series_line_value(text, "change-id:");
	assert_string_equal(v, "20240101-x-y");
	free(v);
	/* an empty value is none */
	assert_null(series_line_value(text, "Email:"));
	assert_null(series_line_value(text, "Date:"));
	/* only at the start of a line, and the key as given */
	assert_null(series_line_value(text, "Kernel"));
	assert_null(series_line_value(text, "subject:"));
	assert_null(series_line_value("", "Subject:"));
	assert_null(series_line_value(NULL, "Subject:"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trailers),
		cmocka_unit_test(test_line_value),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
