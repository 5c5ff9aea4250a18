// SPDX-License-Identifier: GPL-2.0-only
/* apply_test.c: unit tests for kernels/apply.c: which patch and file a
 * failed `git am -3` names, from git's own output (a conflict, no common
 * ancestor, a file that is not there, an output it does not know). git am
 * itself runs in t/e2e-kernels.sh. */
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

static void test_am_conflict(void **state)
{
	const char *out =
		"Applying: fake: first\n"
		"Applying: fake: second\n"
		"Using index info to reconstruct a base tree...\n"
		"M\tsrc/string.c\n"
		"Falling back to patching base and 3-way merge...\n"
		"Auto-merging src/string.c\n"
		"CONFLICT (content): Merge conflict in src/string.c\n"
		"error: Failed to merge in the changes.\n"
		"hint: Use 'git am --show-current-patch=diff' to see the failed patch\n"
		"Patch failed at 0002 fake: second\n";
	char why[256];

	(void)state;
	kbuild_am_failure(out, strlen(out), 3, why, sizeof(why));
	assert_string_equal(why, "patch 2/3, src/string.c");
}

static void test_am_no_ancestor(void **state)
{
	const char *out =
		"Applying: x\n"
		"error: patch failed: kernel/sys.c:1075\n"
		"error: kernel/sys.c: patch does not apply\n"
		"error: sha1 information is lacking or useless (kernel/sys.c).\n"
		"error: could not build fake ancestor\n"
		"Patch failed at 0001 x\n";
	char why[256];

	(void)state;
	kbuild_am_failure(out, strlen(out), 2, why, sizeof(why));
	assert_string_equal(why, "patch 1/2, kernel/sys.c");
}

static void test_am_missing_file(void **state)
{
	const char *out = "Applying: y\nerror: src/gone.c: does not exist in index\n"
			  "Patch failed at 0003 y\n";
	char why[256];

	(void)state;
	kbuild_am_failure(out, strlen(out), 3, why, sizeof(why));
	assert_string_equal(why, "patch 3/3, src/gone.c");
}

static void test_am_unknown(void **state)
{
	char why[256];

	(void)state;
	kbuild_am_failure("fatal: something else\n", 22, 3, why, sizeof(why));
	assert_string_equal(why, "a patch");
	kbuild_am_failure("", 0, 1, why, sizeof(why));
	assert_string_equal(why, "a patch");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_am_conflict),
		cmocka_unit_test(test_am_no_ancestor),
		cmocka_unit_test(test_am_missing_file),
		cmocka_unit_test(test_am_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
