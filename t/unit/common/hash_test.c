// SPDX-License-Identifier: GPL-2.0-only
/* hash_test.c: unit tests for common/hash.c: SHA-256 of memory against the
 * FIPS 180-2 vectors, of a file across its 64 KiB read chunks, and a file
 * that is not there. Works in its own temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>

#include "common/hash.h"
#include "t/unit/testutil.h"

static int setup(void **state)
{
	char *dir = malloc(128);

	if (!dir)
		return -1;
	tu_tmpdir(dir, 128, "hash");
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	tu_rmrf(*state);
	free(*state);
	return 0;
}

static void test_sha256(void **state)
{
	const char *dir = *state;
	char out[65], out2[65], *p = tu_path(dir, "blob");
	char big[100000];

	(void)state;
	/* FIPS 180-2 test vectors */
	sha256_mem("abc", 3, out);
	assert_string_equal(out,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_mem("", 0, out);
	assert_string_equal(out,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_mem("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56, out);
	assert_string_equal(out,
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

	/* the file form agrees, also across its 64 KiB read chunks */
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i % 251);
	tu_write(p, big, sizeof(big), 0);
	assert_int_equal(sha256_file(p, out), 0);
	sha256_mem(big, sizeof(big), out2);
	assert_string_equal(out, out2);
	assert_int_equal(strlen(out), 64);
	tu_write_str(p, "abc");
	assert_int_equal(sha256_file(p, out), 0);
	assert_string_equal(out,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	free(p);
	p = tu_path(dir, "missing");
	assert_int_equal(sha256_file(p, out), -1);
	assert_int_equal(errno, ENOENT);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sha256, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
