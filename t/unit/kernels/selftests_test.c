// SPDX-License-Identifier: GPL-2.0-only
/* selftests_test.c: unit tests for the pure part of kernels/selftests.c:
 * which files of a built tools/testing/selftests/bpf test_progs needs in
 * the guest. Building kselftests and test_progs runs in t/e2e-linux.sh
 * and t/e2e-bpf.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/kernelsint.h"

static void test_bpf_wanted(void **state)
{
	static const char *const yes[] = {
		"test_progs", "bpf_testmod.ko", "urandom_read", "liburandom_read.so",
		"xdp_synproxy", "sign-file", "ima_setup.sh", "verify_sig_setup.sh",
		"test_tc_edt.bpf.o", "x.bpf.o", "btf_dump_test_case_syntax.c",
	};
	static const char *const no[] = {
		"", "test_progs-no_alu32", "test_progs.c", "test_verifier", ".bpf.o", "x.bpf.o.d",
		"x.o", "bpf_testmod.c", "btf_dump_test_case_syntax.o", "progs", "Makefile", ".",
		"..", "test_progs ", "urandom_read.c",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (!kbuild_bpf_wanted(yes[i]))
			fail_msg("'%s' is needed", yes[i]);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		if (kbuild_bpf_wanted(no[i]))
			fail_msg("'%s' is not needed", no[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bpf_wanted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
