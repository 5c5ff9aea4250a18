// SPDX-License-Identifier: GPL-2.0-only
/* printk_test.c: unit tests for common/printk.c: printk's fields before a
 * console line in each shape and width, the blank after them, text that
 * only looks like them, and no read past the given length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/printk.h"

/* the length for s copied into a buffer of exactly its length */
static size_t len_of(const char *s)
{
	size_t n = strlen(s), r;
	char *copy = malloc(n ? n : 1);

	assert_non_null(copy);
	memcpy(copy, s, n);
	r = printk_prefix_len(copy, n);
	free(copy);
	return r;
}

static void test_shapes(void **state)
{
	static const struct {
		const char *s;
		size_t len;
	} cases[] = {
		{ "[    1.234567] x", 15 },
		{ "[    1.234567][    T1] x", 23 },
		{ "[    1.234567][  C0] x", 21 },
		{ "[    T1] x", 9 },
		{ "<4>[    1.2] x", 13 },
		{ "<4>x", 3 },
		{ "<12>[123456.789012][T99999] x", 28 },
		{ "[    1.234567]x", 14 },          /* no blank after: none taken */
		{ "[    1.234567]  x", 15 },        /* one blank taken, the next is text */
		{ "[    1.234567]\tx", 14 },        /* a tab is text */
		{ "[    1.234567]", 14 },
		{ "<4>[    1.2]", 12 },
		/* more than PRINTK_FIELDS_MAX: the fifth stays */
		{ "<4>[ 1.0][ T1][ C2][ 3.0] x", 19 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (len_of(cases[i].s) != cases[i].len)
			fail_msg("'%s': %zu, not %zu", cases[i].s, len_of(cases[i].s), cases[i].len);
}

static void test_not_printk(void **state)
{
	static const char *const lines[] = {
		"", "x", "[ OK ] x", "[    1.] x", "[.5] x", "[    1.5 x", "<> x", "<1234> x",
		"<4 x", "[    T] x", "[    X1] x", "[    1.2345678901] x",
		"[                 1.0] x",   /* blanks past 16 */
		"[1234567890123.0] x",        /* 13 digits */
		"[", "<", "<4", "[    1.2",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (len_of(lines[i]))
			fail_msg("'%s': %zu, not 0", lines[i], len_of(lines[i]));
	/* a field cut by the length given is none */
	assert_int_equal(printk_prefix_len("[    1.234567] x", 10), 0);
	assert_int_equal(printk_prefix_len("<4>[    1.2] x", 5), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_not_printk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
