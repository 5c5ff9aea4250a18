// SPDX-License-Identifier: GPL-2.0-only
/* frame_test.c: unit tests for common/frame.c, the agent channel framing.
 * Round trips for every frame type, the CRC against zlib, and every kind of
 * malformed line a guest could write (frame_decode sees untrusted bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "common/frame.h"

static char line[FRAME_MAX_LINE + 1];
static struct frame fr;

/* Encodes, checks the line shape, strips the \n and decodes it back */
static void round_trip(uint32_t seq, enum frame_type t, const void *p, size_t n)
{
	const char *why = "unset";
	int len;

	len = frame_encode(line, seq, t, p, n);
	assert_true(len > 0);
	assert_true(len <= FRAME_MAX_LINE);
	assert_int_equal(strlen(line), (size_t)len);
	assert_int_equal(line[len - 1], '\n');
	assert_memory_equal(line, "KF1 ", 4);
	memset(&fr, 0xaa, sizeof(fr));
	assert_int_equal(frame_decode(line, (size_t)len - 1, &fr, &why), FRAME_OK);
	assert_null(why);
	assert_int_equal(fr.seq, seq);
	assert_int_equal(fr.type, t);
	assert_int_equal(fr.len, n);
	if (n)
		assert_memory_equal(fr.payload, p, n);
	assert_int_equal(fr.payload[n], '\0');
}

static enum frame_result decode_str(const char *s, const char **why)
{
	*why = NULL;
	return frame_decode(s, strlen(s), &fr, why);
}

static void expect_bad(const char *s, const char *reason)
{
	const char *why = NULL;

	if (decode_str(s, &why) != FRAME_BAD)
		fail_msg("line '%s' was not rejected as bad", s);
	assert_non_null(why);
	if (reason)
		assert_string_equal(why, reason);
}

static void expect_noise(const char *s, size_t n)
{
	const char *why = NULL;

	assert_int_equal(frame_decode(s, n, &fr, &why), FRAME_NOT_FRAME);
}

static void test_crc32_matches_zlib(void **state)
{
	unsigned char data[3000];
	size_t i, n;

	(void)state;
	assert_int_equal(frame_crc32("123456789", 9), 0xcbf43926U);
	assert_int_equal(frame_crc32("", 0), 0);
	srand(1);
	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)rand();
	for (n = 0; n <= sizeof(data); n += 97)
		assert_int_equal(frame_crc32(data, n), (uint32_t)crc32(0L, data, (uInt)n));
}

static void test_type_names(void **state)
{
	(void)state;
	assert_string_equal(frame_type_name(FRAME_HELLO), "hello");
	assert_string_equal(frame_type_name(FRAME_OUT), "out");
	assert_string_equal(frame_type_name(FRAME_TRUNC), "trunc");
	assert_string_equal(frame_type_name(FRAME_EXIT), "exit");
	assert_string_equal(frame_type_name(FRAME_TYPE_COUNT), "unknown");
}

static void test_encode_format(void **state)
{
	char want[64];
	int len;

	(void)state;
	len = frame_encode(line, 5, FRAME_OUT, "hi", 2);
	snprintf(want, sizeof(want), "KF1 5 out %08x 6869\n", (unsigned)crc32(0L, (const Bytef *)"hi", 2));
	assert_string_equal(line, want);
	assert_int_equal(len, strlen(want));

	len = frame_encode(line, 0, FRAME_EXIT, NULL, 0);
	assert_string_equal(line, "KF1 0 exit 00000000 \n");
	assert_int_equal(len, strlen(line));
}

static void test_encode_rejects(void **state)
{
	static unsigned char big[FRAME_MAX_PAYLOAD + 1];

	(void)state;
	assert_int_equal(frame_encode(line, 0, FRAME_OUT, big, sizeof(big)), -1);
	assert_int_equal(frame_encode(line, 0, FRAME_TYPE_COUNT, "x", 1), -1);
	assert_int_equal(frame_encode(line, 0, (enum frame_type)-1, "x", 1), -1);
}

static void test_round_trip_types(void **state)
{
	static const char hello[] = "release=6.8.0\nnproc=2\nmem_kb=1024\nuptime_ms=812\nrun=3\n";
	static const unsigned char bin[] = { 0, 1, 0x7f, 0x80, 0xff, '\n', '\r', ' ' };

	(void)state;
	round_trip(0, FRAME_HELLO, hello, strlen(hello));
	round_trip(1, FRAME_OUT, "hello world\n", 12);
	round_trip(2, FRAME_OUT, bin, sizeof(bin));
	round_trip(3, FRAME_TRUNC, "123456", 6);
	round_trip(4, FRAME_EXIT, "code=0", 6);
	round_trip(5, FRAME_EXIT, "signal=9", 8);
	round_trip(6, FRAME_EXIT, "timeout=30", 10);
	round_trip(7, FRAME_EXIT, "error=fork: Resource temporarily unavailable", 44);
	round_trip(UINT32_MAX, FRAME_OUT, "x", 1);
}

static void test_round_trip_empty(void **state)
{
	enum frame_type t;

	(void)state;
	for (t = 0; t < FRAME_TYPE_COUNT; t++)
		round_trip((uint32_t)t, t, NULL, 0);
	/* an empty payload without the last space is accepted too */
	assert_int_equal(frame_decode("KF1 9 out 00000000", 18, &fr, NULL), FRAME_OK);
	assert_int_equal(fr.len, 0);
}

static void test_round_trip_max(void **state)
{
	unsigned char p[FRAME_MAX_PAYLOAD];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(p); i++)
		p[i] = (unsigned char)(i * 7 + 3);
	round_trip(123456, FRAME_OUT, p, sizeof(p));
	round_trip(123457, FRAME_OUT, p, sizeof(p) - 1);
}

static void test_trailing_cr(void **state)
{
	int len;

	(void)state;
	len = frame_encode(line, 42, FRAME_OUT, "abc", 3);
	line[len - 1] = '\r';
	assert_int_equal(frame_decode(line, (size_t)len, &fr, NULL), FRAME_OK);
	assert_int_equal(fr.seq, 42);
	assert_int_equal(fr.len, 3);
	assert_memory_equal(fr.payload, "abc", 3);
	/* only one \r is the line ending */
	line[len - 1] = '\r';
	line[len] = '\r';
	assert_int_equal(frame_decode(line, (size_t)len + 1, &fr, NULL), FRAME_BAD);
}

static void test_uppercase_hex(void **state)
{
	char *p;
	int len;

	(void)state;
	len = frame_encode(line, 1, FRAME_OUT, "\xab\xcd", 2);
	for (p = line + 4; *p; p++)
		if (*p >= 'a' && *p <= 'f')
			*p = (char)(*p - 'a' + 'A');
	/* "out" is not hex, but uppercasing touched no letter of it */
	assert_int_equal(frame_decode(line, (size_t)len - 1, &fr, NULL), FRAME_OK);
	assert_memory_equal(fr.payload, "\xab\xcd", 2);
}

static void test_bad_crc(void **state)
{
	int len;

	(void)state;
	len = frame_encode(line, 3, FRAME_OUT, "payload", 7);
	line[len - 1] = '\0';
	/* a wrong CRC digit */
	line[strlen("KF1 3 out ")] ^= 1;
	expect_bad(line, "crc mismatch");
	line[strlen("KF1 3 out ")] ^= 1;
	/* a flipped payload bit */
	line[len - 2] = line[len - 2] == '0' ? '1' : '0';
	expect_bad(line, "crc mismatch");
	/* a non-hex CRC, a short one, a long one */
	expect_bad("KF1 3 out 0000000g 00", NULL);
	expect_bad("KF1 3 out 0000000 00", NULL);
	expect_bad("KF1 3 out 000000000 00", NULL);
	expect_bad("KF1 3 out  00", NULL);
}

static void test_bad_payload_hex(void **state)
{
	char s[64];

	(void)state;
	snprintf(s, sizeof(s), "KF1 0 out %08x 686", (unsigned)crc32(0L, (const Bytef *)"h", 1));
	expect_bad(s, "odd payload length");
	snprintf(s, sizeof(s), "KF1 0 out %08x 6g", (unsigned)crc32(0L, (const Bytef *)"h", 1));
	expect_bad(s, "payload not hex");
	snprintf(s, sizeof(s), "KF1 0 out %08x 68 69", (unsigned)crc32(0L, (const Bytef *)"hi", 2));
	expect_bad(s, NULL);
	snprintf(s, sizeof(s), "KF1 0 out %08x -6", (unsigned)crc32(0L, (const Bytef *)"h", 1));
	expect_bad(s, "payload not hex");
	snprintf(s, sizeof(s), "KF1 0 out %08x 68\n", (unsigned)crc32(0L, (const Bytef *)"h", 1));
	expect_bad(s, NULL);
}

static void test_too_long(void **state)
{
	static unsigned char p[FRAME_MAX_PAYLOAD + 1];
	static char s[FRAME_MAX_LINE * 2];
	size_t i, n;

	(void)state;
	memset(p, 'x', sizeof(p));
	/* one byte over the limit with a correct CRC */
	n = (size_t)snprintf(s, sizeof(s), "KF1 0 out %08x ", (unsigned)crc32(0L, p, sizeof(p)));
	for (i = 0; i < sizeof(p); i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%02x", p[i]);
	expect_bad(s, NULL);
	/* a very long line */
	memset(s, '0', sizeof(s) - 1);
	memcpy(s, "KF1 0 out 00000000 ", 19);
	s[sizeof(s) - 1] = '\0';
	expect_bad(s, NULL);
}

static void test_unknown_type(void **state)
{
	(void)state;
	expect_bad("KF1 0 outt 00000000 ", "unknown type");
	expect_bad("KF1 0 OUT 00000000 ", "unknown type");
	expect_bad("KF1 0 ou 00000000 ", "unknown type");
	expect_bad("KF1 0 nope 00000000 ", "unknown type");
	expect_bad("KF1 0 hello\t00000000 ", NULL);
}

static void test_missing_fields(void **state)
{
	(void)state;
	expect_bad("KF1 ", NULL);
	expect_bad("KF1  ", NULL);
	expect_bad("KF1 0", NULL);
	expect_bad("KF1 0 ", NULL);
	expect_bad("KF1 0 out", NULL);
	expect_bad("KF1 0 out ", NULL);
	expect_bad("KF1  out 00000000 ", NULL);
	expect_bad("KF1 0  00000000 ", NULL);
	expect_bad("KF1 out 00000000 ", NULL);
	expect_bad("KF1 0 00000000 00", NULL);
}

static void test_seq(void **state)
{
	(void)state;
	assert_int_equal(frame_decode("KF1 4294967295 out 00000000 ", 28, &fr, NULL), FRAME_OK);
	assert_int_equal(fr.seq, UINT32_MAX);
	assert_int_equal(frame_decode("KF1 0000000007 out 00000000 ", 28, &fr, NULL), FRAME_OK);
	assert_int_equal(fr.seq, 7);
	expect_bad("KF1 4294967296 out 00000000 ", "seq out of range");
	expect_bad("KF1 9999999999 out 00000000 ", "seq out of range");
	expect_bad("KF1 18446744073709551617 out 00000000 ", "seq out of range");
	expect_bad("KF1 -1 out 00000000 ", NULL);
	expect_bad("KF1 +1 out 00000000 ", NULL);
	expect_bad("KF1 0x10 out 00000000 ", NULL);
	expect_bad("KF1 1a out 00000000 ", NULL);
}

static void test_noise(void **state)
{
	static const char *const lines[] = {
		"",
		"K",
		"KF1",
		"KF10 0 out 00000000 ",
		"kf1 0 out 00000000 ",
		" KF1 0 out 00000000 ",
		"KF2 0 out 00000000 ",
		"[    0.000000] Linux version 6.8.0 (build@host) #1 SMP",
		"Run /init as init process",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		expect_noise(lines[i], strlen(lines[i]));
	expect_noise(NULL, 0);
	expect_noise("KF1 0 out 00000000 ", 3);
	expect_noise("\r", 1);
}

static void test_embedded_nul(void **state)
{
	static const char s[] = "KF1 0 out 00000000 \0\0";
	static const char t[] = "KF1 \0 out 00000000 ";
	const char *why;

	(void)state;
	assert_int_equal(frame_decode(s, sizeof(s) - 1, &fr, &why), FRAME_BAD);
	assert_int_equal(frame_decode(t, sizeof(t) - 1, &fr, &why), FRAME_BAD);
}

static void test_binary_garbage(void **state)
{
	static char s[FRAME_MAX_LINE + 64];
	const char *why;
	enum frame_result r;
	size_t i, n;
	int round;

	(void)state;
	srand(42);
	for (round = 0; round < 20000; round++) {
		n = (size_t)rand() % sizeof(s);
		for (i = 0; i < n; i++)
			s[i] = (char)rand();
		if (round % 2 && n >= 4)
			memcpy(s, "KF1 ", 4);
		if (round % 4 == 3 && n >= 16)
			memcpy(s + 4, "1 out ", 6);
		why = NULL;
		r = frame_decode(s, n, &fr, &why);
		assert_true(r == FRAME_NOT_FRAME || r == FRAME_BAD);
		if (r == FRAME_BAD)
			assert_non_null(why);
	}
}

static void test_why_optional(void **state)
{
	(void)state;
	assert_int_equal(frame_decode("KF1 x", 5, &fr, NULL), FRAME_BAD);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32_matches_zlib),
		cmocka_unit_test(test_type_names),
		cmocka_unit_test(test_encode_format),
		cmocka_unit_test(test_encode_rejects),
		cmocka_unit_test(test_round_trip_types),
		cmocka_unit_test(test_round_trip_empty),
		cmocka_unit_test(test_round_trip_max),
		cmocka_unit_test(test_trailing_cr),
		cmocka_unit_test(test_uppercase_hex),
		cmocka_unit_test(test_bad_crc),
		cmocka_unit_test(test_bad_payload_hex),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_unknown_type),
		cmocka_unit_test(test_missing_fields),
		cmocka_unit_test(test_seq),
		cmocka_unit_test(test_noise),
		cmocka_unit_test(test_embedded_nul),
		cmocka_unit_test(test_binary_garbage),
		cmocka_unit_test(test_why_optional),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
