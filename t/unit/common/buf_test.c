// SPDX-License-Identifier: GPL-2.0-only
/* buf_test.c: unit tests for common/buf.c, the capped growable buffer every
 * outside input is collected in: the cap and the truncated flag, growth of
 * printf output past its 512-byte stack buffer, reset, release and detach. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"

static void test_empty(void **state)
{
	struct buf b = BUF_INIT(0);

	(void)state;
	assert_null(b.data);
	assert_string_equal(buf_str(&b), "");
	assert_int_equal(buf_append(&b, "", 0), 0);
	assert_non_null(b.data);          /* an append, even empty, gives a string */
	assert_string_equal(b.data, "");
	assert_int_equal(b.len, 0);
	buf_release(&b);
	assert_null(b.data);
}

static void test_append_grows(void **state)
{
	struct buf b;
	char want[100001];

	(void)state;
	buf_init(&b, 0);
	for (size_t i = 0; i < sizeof(want) - 1; i++) {
		char c = (char)('a' + i % 26);

		want[i] = c;
		assert_int_equal(buf_append(&b, &c, 1), 0);
	}
	want[sizeof(want) - 1] = '\0';
	assert_int_equal(b.len, sizeof(want) - 1);
	assert_true(b.alloc > b.len);
	assert_string_equal(b.data, want);
	assert_int_equal(b.truncated, 0);
	buf_release(&b);
}

static void test_cap_truncates(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 10);
	assert_int_equal(buf_puts(&b, "hello"), 0);
	assert_int_equal(buf_puts(&b, "world"), 0);       /* exactly the cap */
	assert_int_equal(b.truncated, 0);
	assert_string_equal(buf_str(&b), "helloworld");
	assert_int_equal(buf_puts(&b, "!"), -1);
	assert_int_equal(b.truncated, 1);
	assert_int_equal(b.len, 10);
	assert_string_equal(buf_str(&b), "helloworld");

	buf_reset(&b);
	assert_int_equal(b.truncated, 0);
	assert_int_equal(b.len, 0);
	assert_string_equal(buf_str(&b), "");
	/* what fits is kept, the rest is cut */
	assert_int_equal(buf_puts(&b, "0123456789abcdef"), -1);
	assert_int_equal(b.truncated, 1);
	assert_int_equal(b.len, 10);
	assert_string_equal(buf_str(&b), "0123456789");
	assert_int_equal(b.data[10], '\0');
	buf_release(&b);
	assert_int_equal(b.truncated, 0);
	assert_int_equal(b.len, 0);
}

static void test_reset_keeps_memory(void **state)
{
	struct buf b = BUF_INIT(0);
	char *p;
	size_t alloc;

	(void)state;
	assert_int_equal(buf_puts(&b, "some text that needs memory"), 0);
	p = b.data;
	alloc = b.alloc;
	buf_reset(&b);
	assert_ptr_equal(b.data, p);
	assert_int_equal(b.alloc, alloc);
	assert_string_equal(buf_str(&b), "");
	assert_int_equal(buf_puts(&b, "x"), 0);
	assert_string_equal(buf_str(&b), "x");
	buf_release(&b);
}

static void test_printf_small_and_big(void **state)
{
	struct buf b = BUF_INIT(0);
	char big[2001];

	(void)state;
	assert_int_equal(buf_printf(&b, "%d-%s-%c", 42, "x", 'y'), 0);
	assert_string_equal(buf_str(&b), "42-x-y");
	/* 511 bytes still fit the stack buffer, 512 and more take the heap path */
	for (size_t n = 510; n <= 514; n++) {
		buf_reset(&b);
		memset(big, 'q', n);
		big[n] = '\0';
		assert_int_equal(buf_printf(&b, "%s", big), 0);
		assert_int_equal(b.len, n);
		assert_string_equal(buf_str(&b), big);
	}
	buf_reset(&b);
	for (size_t i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('A' + i % 26);
	big[sizeof(big) - 1] = '\0';
	assert_int_equal(buf_printf(&b, "<%s|%d>", big, 7), 0);
	assert_int_equal(b.len, sizeof(big) - 1 + 4);
	assert_memory_equal(b.data, "<", 1);
	assert_memory_equal(b.data + 1, big, sizeof(big) - 1);
	assert_string_equal(b.data + 1 + sizeof(big) - 1, "|7>");
	buf_release(&b);
}

static void test_printf_respects_cap(void **state)
{
	struct buf b;
	char big[1001];

	(void)state;
	memset(big, 'z', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	buf_init(&b, 600);
	assert_int_equal(buf_printf(&b, "%s", big), -1);
	assert_int_equal(b.truncated, 1);
	assert_int_equal(b.len, 600);
	assert_int_equal(strlen(buf_str(&b)), 600);
	buf_release(&b);

	buf_init(&b, 8);
	assert_int_equal(buf_printf(&b, "%s=%d", "abc", 123456), -1);
	assert_string_equal(buf_str(&b), "abc=1234");
	buf_release(&b);
}

static void test_detach(void **state)
{
	struct buf b = BUF_INIT(0);
	char *s;

	(void)state;
	assert_int_equal(buf_puts(&b, "kept"), 0);
	s = buf_detach(&b);
	assert_string_equal(s, "kept");
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.alloc, 0);
	assert_string_equal(buf_str(&b), "");
	/* the buffer is usable again and does not share memory with s */
	assert_int_equal(buf_puts(&b, "new"), 0);
	assert_string_equal(s, "kept");
	assert_string_equal(buf_str(&b), "new");
	free(s);
	buf_release(&b);

	/* detaching an empty buffer still gives an owned "" */
	s = buf_detach(&b);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_append_grows),
		cmocka_unit_test(test_cap_truncates),
		cmocka_unit_test(test_reset_keeps_memory),
		cmocka_unit_test(test_printf_small_and_big),
		cmocka_unit_test(test_printf_respects_cap),
		cmocka_unit_test(test_detach),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
