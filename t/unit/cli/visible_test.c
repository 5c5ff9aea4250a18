// SPDX-License-Identifier: GPL-2.0-only
/* visible_test.c: unit tests for cli/visible.c, a guest's text made inert
 * for a terminal: escape sequences (a title set by OSC, CSI colours),
 * CR, C0 and C1 controls, DEL and bytes that are not UTF-8 are shown, not
 * sent; plain text, UTF-8 included, is kept as it is; a CR at the end of
 * one piece of a stream is held until the next says what it is. */
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
#include "common/buf.h"

/* s[0..n) made visible, compared with want */
static void check(const char *s, size_t n, const char *want)
{
	struct buf b = BUF_INIT(0);

	cli_visible_str(&b, s, n);
	if (strcmp(buf_str(&b), want))
		fail_msg("visible of '%.*s': got '%s', want '%s'", (int)n, s, buf_str(&b), want);
	buf_release(&b);
}

#define CHECK(lit, want) check(lit, sizeof(lit) - 1, want)

/* No byte of what is printed is a control character but \n and \t, and
 * no C1 control in UTF-8 (0xc2 0x80..0x9f) */
static void assert_inert(const struct buf *b)
{
	for (size_t i = 0; i < b->len; i++) {
		unsigned char c = (unsigned char)b->data[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			fail_msg("control 0x%02x at %zu in '%s'", c, i, buf_str(b));
		if (c == 0xc2 && i + 1 < b->len && (unsigned char)b->data[i + 1] >= 0x80 &&
		    (unsigned char)b->data[i + 1] <= 0x9f)
			fail_msg("C1 control at %zu in '%s'", i, buf_str(b));
	}
}

static void test_escapes(void **state)
{
	/* a title set by OSC, ended by BEL and by ST */
	CHECK("\x1b]0;pwned\x07", "^[]0;pwned^G");
	CHECK("\x1b]2;x\x1b\\after", "^[]2;x^[\\after");
	/* CSI colours, cursor moves, a screen cleared */
	CHECK("\x1b[31mred\x1b[0m", "^[[31mred^[[0m");
	CHECK("\x1b[2J\x1b[H\x1b[10A", "^[[2J^[[H^[[10A");
	/* the other C0 controls, and DEL */
	CHECK("a\x00" "b\x01\x08\x0b\x0c\x0e\x1f\x7f" "c", "a^@b^A^H^K^L^N^_^?c");
}

static void test_cr(void **state)
{
	/* a bare CR would let a guest print over what it printed */
	CHECK("rm -rf /\rls", "rm -rf /^Mls");
	CHECK("end\r", "end^M");
	CHECK("\r\r\n", "^M\n");
	/* a serial console's line ends are lines */
	CHECK("line 1\r\nline 2\r\n", "line 1\nline 2\n");
}

static void test_c1_and_invalid(void **state)
{
	/* C1 controls in UTF-8: CSI (U+009B), OSC (U+009D), ST (U+009C) */
	CHECK("\xc2\x9b" "31m", "\\u009b31m");
	CHECK("\xc2\x9d" "0;t\xc2\x9c", "\\u009d0;t\\u009c");
	CHECK("\xc2\x80\xc2\x9f", "\\u0080\\u009f");
	/* bytes that are not UTF-8, each shown on its own: a bare C1 byte,
	 * a lone lead, an overlong ESC, a surrogate, past U+10FFFF, cut short */
	CHECK("a\x9b" "b", "a\\x9bb");
	CHECK("\xff\xfe", "\\xff\\xfe");
	CHECK("\xc0\x9b", "\\xc0\\x9b");
	CHECK("\xed\xa0\x80", "\\xed\\xa0\\x80");
	CHECK("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");
	CHECK("\xe2\x82", "\\xe2\\x82");
	CHECK("\xc3(", "\\xc3(");
}

static void test_plain_kept(void **state)
{
	/* plain text, tabs, newlines and UTF-8 (2, 3 and 4 bytes; U+00A0
	 * just past C1) as they are */
	static const char *const plain[] = {
		"", "hello, world\n", "a\tb\n\n", "gr\xc3\xbc\xc3\x9f" "e \xe2\x82\xac \xf0\x9f\x90\xa7\n",
		"\xc2\xa0\xc2\xbf", "[    1.234567] Linux version 6.1.0 (gcc 12.2.0) #1 SMP\n",
	};

	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		check(plain[i], strlen(plain[i]), plain[i]);
}

static void test_pieces(void **state)
{
	struct cli_visible st = { 0 };
	struct buf b = BUF_INIT(0);

	/* a CRLF cut between two polls is still a line's end */
	cli_visible(&b, "one\r", 4, &st);
	assert_string_equal(buf_str(&b), "one");
	cli_visible(&b, "\ntwo\r", 5, &st);
	assert_string_equal(buf_str(&b), "one\ntwo");
	/* ... and a bare one is shown when the next piece says so */
	cli_visible(&b, "x\x1b", 2, &st);
	assert_string_equal(buf_str(&b), "one\ntwo^Mx^[");
	cli_visible(&b, "[0m\r", 4, &st);
	cli_visible_end(&b, &st);
	assert_string_equal(buf_str(&b), "one\ntwo^Mx^[[0m^M");
	buf_release(&b);
}

static void test_every_byte_inert(void **state)
{
	char all[256 * 3];
	struct buf b = BUF_INIT(0);

	/* each byte alone and each byte after 0xc2 (C1 in UTF-8 among them) */
	for (int i = 0; i < 256; i++) {
		all[i] = (char)i;
		all[256 + 2 * i] = (char)0xc2;
		all[256 + 2 * i + 1] = (char)i;
	}
	cli_visible_str(&b, all, sizeof(all));
	assert_inert(&b);
	buf_release(&b);
}

static void test_json(void **state)
{
	json_t *run = json_pack("{s:s, s:s%, s:[{s:s}], s:{s:s}, s:i}", "detail", "exit\x1b[2J",
				"output", "a\x00\x1b]0;pwned\x07" "b", (size_t)13, "results",
				"path", "t\xc2\x9b" "1", "guest", "release", "6.1\r", "n", 3);
	json_t *v;

	assert_non_null(run);
	v = cli_visible_json(run);
	assert_non_null(v);
	assert_string_equal(json_string_value(json_object_get(v, "detail")), "exit^[[2J");
	assert_string_equal(json_string_value(json_object_get(v, "output")),
			    "a^@^[]0;pwned^Gb");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
			    json_object_get(v, "results"), 0), "path")), "t\\u009b1");
	assert_string_equal(json_string_value(json_object_get(json_object_get(v, "guest"),
							      "release")), "6.1^M");
	assert_int_equal(json_integer_value(json_object_get(v, "n")), 3);
	/* the answer itself is left as it came */
	assert_string_equal(json_string_value(json_object_get(run, "detail")), "exit\x1b[2J");
	json_decref(v);
	json_decref(run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_cr),
		cmocka_unit_test(test_c1_and_invalid),
		cmocka_unit_test(test_plain_kept),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_every_byte_inert),
		cmocka_unit_test(test_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
