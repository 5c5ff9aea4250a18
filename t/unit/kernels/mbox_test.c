// SPDX-License-Identifier: GPL-2.0-only
/* mbox_test.c: unit tests for the pure part of kernels/mbox.c: where git
 * mailsplit starts each message of an mbox, header unfolding, and the
 * UTF-8 escaping of what git leaves. The git mailsplit / mailinfo path
 * runs in series_test.c on whole mboxes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/kernelsint.h"

/* ---- mbox lines ---- */

static void test_mbox_lines(void **state)
{
	static const char mbox[] =
		"\n\n"
		"From 6484c04b817f692856dc5ed64c094f2f73cc0123 Mon Sep 17 00:00:00 2001\n"
		"Subject: one\n"
		"\n"
		"From the verifier's point of view: no date here\n"
		"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		"Subject: two\n"
		"\n"
		"body\n"
		"From x Mon Sep 17 00:00:00 1970\n";
	static const char bare[] = "Subject: a mail\n\nFrom abc Mon Sep 17 00:00:00 2001\n";
	static const char twodigit[] = "From x Mon Sep 17 00:00:00 89\nSubject: a\n";
	unsigned lines[4] = { 0 };

	assert_int_equal(series_mbox_lines(mbox, strlen(mbox), lines, 4), 3);
	assert_int_equal(lines[0], 3);
	assert_int_equal(lines[1], 7);
	assert_int_equal(lines[2], 11);
	/* a count beyond max, the first max filled */
	assert_int_equal(series_mbox_lines(mbox, strlen(mbox), lines, 1), 3);
	assert_int_equal(series_mbox_lines(mbox, strlen(mbox), NULL, 0), 3);
	/* no From line first: one message */
	assert_int_equal(series_mbox_lines(bare, strlen(bare), lines, 4), 1);
	assert_int_equal(lines[0], 1);
	/* git wants a year above 90 */
	assert_int_equal(series_mbox_lines(twodigit, strlen(twodigit), lines, 4), 1);
	assert_int_equal(series_mbox_lines("", 0, lines, 4), 0);
	assert_int_equal(series_mbox_lines(" \n\t\n", 4, lines, 4), 0);
	/* the last line without a newline, with a From line's shape */
	assert_int_equal(series_mbox_lines("From a Mon Sep 17 00:00:00 2001", 31, lines, 4), 1);
}

/* ---- headers ---- */

static void test_header(void **state)
{
	static const char mail[] =
		"From 0 Mon Sep 17 00:00:00 2001\n"
		"Message-Id: <abc@example.org>\r\n"
		"References: <a@x>\n"
		"\t<b@x>\n"
		"  <c@x>\n"
		"subject: lower case\n"
		"\n"
		"In-Reply-To: <not-a-header@body>\n";
	char *v;

	v = series_header(mail, strlen(mail), "Message-ID");
	assert_string_equal(v, "<abc@example.org>");
	free(v);
	v = series_header(mail, strlen(mail), "References");
	assert_string_equal(v, "<a@x> <b@x> <c@x>");
	free(v);
	v = series_header(mail, strlen(mail), "Subject");
	assert_string_equal(v, "lower case");
	free(v);
	assert_null(series_header(mail, strlen(mail), "In-Reply-To"));
	assert_null(series_header(mail, strlen(mail), "Message"));
	assert_null(series_header("", 0, "Subject"));
	/* only len bytes are read: a buffer without a NUL (found by the fuzzer) */
	{
		char raw[] = { 'S', 'u', 'b', 'j', 'e', 'c', 't', ':', ' ', ' ' };

		v = series_header(raw, sizeof(raw), "Subject");
		assert_string_equal(v, "");
		free(v);
	}
	/* cut in the middle of a header */
	v = series_header("Subject: cut", 12, "Subject");
	assert_string_equal(v, "cut");
	free(v);
}

/* ---- UTF-8 ---- */

static void test_utf8(void **state)
{
	static const struct { const char *in; size_t len; const char *out; int lossy; } cases[] = {
		{ "plain", 5, "plain", 0 },
		{ "Bj\xc3\xb6rn", 6, "Bj\xc3\xb6rn", 0 },
		{ "caf\xe9", 4, "caf\\xE9", 1 },                   /* latin-1 */
		{ "\xc3", 1, "\\xC3", 1 },                         /* cut short */
		{ "\xc0\xaf", 2, "\\xC0\\xAF", 1 },                /* overlong */
		{ "\xed\xa0\x80", 3, "\\xED\\xA0\\x80", 1 },       /* a surrogate */
		{ "\xf4\x90\x80\x80", 4, "\\xF4\\x90\\x80\\x80", 1 }, /* past U+10FFFF */
		{ "\xf0\x9f\x90\xa7!", 5, "\xf0\x9f\x90\xa7!", 0 },
		{ "a\0b", 3, "a\\x00b", 1 },
		{ "", 0, "", 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int lossy = -1;
		char *o = series_utf8(cases[i].in, cases[i].len, &lossy);

		assert_non_null(o);
		if (strcmp(o, cases[i].out) || lossy != cases[i].lossy)
			fail_msg("case %zu: got '%s' lossy %d", i, o, lossy);
		free(o);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mbox_lines),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
