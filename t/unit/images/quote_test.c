// SPDX-License-Identifier: GPL-2.0-only
/* quote_test.c: unit tests for images/quote.c, how a copy-out quotes what
 * a guest wrote: control and non-ASCII bytes as '?', blanks folded, a cut
 * marked with "...", the length bound kept; and sizes in binary units
 * rounded the way a limit message needs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "images/copyoutint.h"

static void quoted(const char *s, size_t n, size_t outn, const char *want)
{
	char out[256];

	assert_true(outn <= sizeof(out));
	assert_ptr_equal(img_quote(s, n, out, outn), out);
	assert_string_equal(out, want);
	assert_true(strlen(out) < outn);
}

static void test_quote(void **state)
{
	(void)state;
	quoted("results/a.log", 13, 64, "results/a.log");
	quoted("  two \t\n words \r\n", 17, 64, "two words");
	quoted("bell\a esc\x1b del\x7f", 15, 64, "bell? esc? del?");
	quoted("caf\xc3\xa9", 5, 64, "caf??");
	quoted("stop\0hidden", 11, 64, "stop");          /* a NUL ends it */
	quoted("abcdef", 3, 64, "abc");                 /* n bounds it too */
	quoted("abcdefghijklmnop", 16, 10, "abcdef...");     /* fills outn exactly */
	quoted("", 0, 8, "");
}

static void sized(unsigned long long v, int up, const char *want)
{
	char out[32];

	assert_ptr_equal(img_fmt_size(v, up, out), out);
	assert_string_equal(out, want);
}

static void test_fmt_size(void **state)
{
	(void)state;
	sized(0, 0, "0 B");
	sized(1023, 1, "1023 B");
	sized(1024, 0, "1 KiB");
	sized(1025, 0, "1 KiB");
	sized(1025, 1, "2 KiB");                        /* over a limit: never its own number */
	sized(256ull << 20, 0, "256 MiB");
	sized((256ull << 20) + 1, 1, "257 MiB");
	sized(3ull << 40, 0, "3 TiB");
	sized(5000ull << 40, 0, "5000 TiB");            /* no unit past TiB */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_fmt_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
