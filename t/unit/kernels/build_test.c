// SPDX-License-Identifier: GPL-2.0-only
/* build_test.c: unit tests for kernels/build.c: build keys (every part of
 * one changes it) and releasing a result. Building itself (worktree,
 * config, make, the artifact) runs in t/e2e-kernels.sh and t/e2e-linux.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"
#include "kernels/kernelsint.h"
#include "t/unit/testutil.h"

static void test_key(void **state)
{
	char a[65], b[65], c[65];

	(void)state;
	kbuild_key("1111111111111111111111111111111111111111", "cfg", "x86_64", "gcc 12", a);
	kbuild_key("1111111111111111111111111111111111111111", "cfg", "x86_64", "gcc 12", b);
	assert_string_equal(a, b);
	kbuild_key("1111111111111111111111111111111111111111", "cfg", "arm64", "gcc 12", c);
	assert_string_not_equal(a, c);
	kbuild_key("1111111111111111111111111111111111111111", "cfg", "x86_64", "gcc 13", c);
	assert_string_not_equal(a, c);
	kbuild_key("2111111111111111111111111111111111111111", "cfg", "x86_64", "gcc 12", c);
	assert_string_not_equal(a, c);
}

static void test_result_release(void **state)
{
	struct kbuild_result r = { 0 };

	(void)state;
	r.dir = strdup("d");
	r.kernel = strdup("k");
	r.log = strdup("l");
	r.dropped = strdup("CONFIG_X=y (is not set)");
	r.errors = strdup("e");
	r.ms = 12;
	snprintf(r.release, sizeof(r.release), "6.1.0");
	kbuild_result_release(&r);
	assert_null(r.dir);
	assert_null(r.kernel);
	assert_null(r.dropped);
	assert_int_equal(r.ms, 0);
	assert_string_equal(r.release, "");
	kbuild_result_release(&r);      /* twice is fine */
	kbuild_result_release(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_result_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
