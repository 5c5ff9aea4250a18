// SPDX-License-Identifier: GPL-2.0-only
/* tree_test.c: unit tests for kernels/tree.c: tree names, commit ids and
 * where trees and slots live under the state directory. Cloning, syncing
 * and worktrees run in t/e2e-kernels.sh. */
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

static void test_names(void **state)
{
	(void)state;
	assert_true(kbuild_name_ok("bpf-next"));
	assert_true(kbuild_name_ok("linux_6.1"));
	assert_false(kbuild_name_ok(""));
	assert_false(kbuild_name_ok(NULL));
	assert_false(kbuild_name_ok(".hidden"));
	assert_false(kbuild_name_ok("-opt"));
	assert_false(kbuild_name_ok("a/b"));
	assert_false(kbuild_name_ok("a b"));
	assert_false(kbuild_name_ok("../x"));
	assert_false(kbuild_name_ok(
		"x123456789012345678901234567890123456789012345678901234567890123456"));
}

static void test_paths(void **state)
{
	struct kbuild_env e = { .state_dir = "/var/lib/kfleet" };
	struct kbuild_spec s = { .tree = "bpf-next", .arch = "arm64" };
	char *p;

	(void)state;
	assert_true(kbuild_hex40("0123456789abcdef0123456789abcdef01234567"));
	assert_false(kbuild_hex40("0123456789ABCDEF0123456789abcdef01234567"));
	assert_false(kbuild_hex40("0123456789abcdef0123456789abcdef0123456"));
	assert_false(kbuild_hex40("0123456789abcdef0123456789abcdef012345678"));
	assert_false(kbuild_hex40("0123456789abcdef0123456789abcdef0123456g"));
	assert_false(kbuild_hex40(""));
	assert_false(kbuild_hex40(NULL));
	p = kbuild_tree_dir(&e, "bpf-next");
	assert_string_equal(p, "/var/lib/kfleet/trees/bpf-next.git");
	free(p);
	/* one worktree per tree; a slot (an O= directory) per tree, arch and
	 * config: the hash's first 12 digits */
	p = kbuild_src_dir(&e, "bpf-next");
	assert_string_equal(p, "/var/lib/kfleet/slots/bpf-next-src");
	free(p);
	p = kbuild_slot_dir(&e, &s, "0123456789abcdef0123");
	assert_string_equal(p, "/var/lib/kfleet/slots/bpf-next-arm64-0123456789ab");
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
