// SPDX-License-Identifier: GPL-2.0-only
/* manifest_test.c: unit tests for a run's initrd manifest (orchestrator/
 * manifest.c): the text it writes parses back to the same parts, and each
 * kind of malformed manifest is refused with its file and line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orchestrator/storage.h"
#include "t/unit/testutil.h"

#define SHA_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define SHA_B "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void test_round_trip(void **state)
{
	struct manifest m = { .sha = SHA_A, .bytes = 1000 + 1800000 + 93000000, .nparts = 3 }, back;
	struct buf b = BUF_INIT(0);
	char *err = NULL;

	(void)state;
	m.parts[0] = (struct manifest_part){ SHA_B, 1000, RUN_FILE_INITRD_OWN };
	m.parts[1] = (struct manifest_part){ SHA_A, 1800000, "/var/kfleet/cache/initramfs-1.cpio.gz" };
	m.parts[2] = (struct manifest_part){ SHA_B, 93000000,
					    "/var/kfleet/builds/k 1/kselftest-bpf.cpio.gz" };
	assert_int_equal(manifest_format(&m, &b), 0);
	assert_non_null(strstr(buf_str(&b), "initrd " SHA_A " 94801000\n"));
	assert_non_null(strstr(buf_str(&b), "part " SHA_B " 1000 " RUN_FILE_INITRD_OWN "\n"));
	assert_int_equal(manifest_parse(buf_str(&b), b.len, "initrd.manifest", &back, &err), 0);
	assert_null(err);
	assert_string_equal(back.sha, SHA_A);
	assert_int_equal(back.bytes, 94801000);
	assert_int_equal(back.nparts, 3);
	for (size_t i = 0; i < 3; i++) {
		assert_string_equal(back.parts[i].sha, m.parts[i].sha);
		assert_int_equal(back.parts[i].bytes, m.parts[i].bytes);
		assert_string_equal(back.parts[i].path, m.parts[i].path);   /* a space in it too */
	}
	manifest_release(&back);
	buf_release(&b);
}

static void refused_n(const char *text, size_t len, const char *want)
{
	struct manifest m;
	char *err = NULL;

	assert_int_equal(manifest_parse(text, len, "m", &m, &err), -1);
	assert_non_null(err);
	if (!strstr(err, want))
		fail_msg("expected '%s' in '%s'", want, err);
	free(err);
	manifest_release(&m);
}

static void refused(const char *text, const char *want)
{
	refused_n(text, strlen(text), want);
}

static void test_malformed(void **state)
{
	char many[4096] = "initrd " SHA_A " 9\n";

	(void)state;
	refused("", "no 'initrd' line");
	refused("# just a comment\n", "no 'initrd' line");
	refused("initrd " SHA_A " 10\n", "no parts");
	refused("initrd " SHA_A " 10\npart " SHA_B " 9 x\n", "add up to 9 bytes, the initrd has 10");
	refused("initrd " SHA_A " 10\npart ABCD 10 x\n", "m:2: expected 'part SHA256 BYTES PATH'");
	refused("initrd " SHA_A " 10\npart " SHA_B " 10\n", "m:2: expected 'part");
	refused("initrd " SHA_A " 10\npart " SHA_B " -3 x\n", "m:2:");
	refused("initrd " SHA_A " ten\n", "m:1: expected 'initrd SHA256 BYTES'");
	refused("# ok\nbogus line\n", "m:2: expected 'initrd', 'part' or a comment");
	{
		static const char nul[] = "initrd " SHA_A " 1\npart " SHA_B " 1 x\0y\n";

		refused_n(nul, sizeof(nul) - 1, "m:2: not a line of text");
	}
	for (int i = 0; i < 9; i++)
		strcat(many, "part " SHA_B " 1 x\n");
	refused(many, "m:10: more than 8 parts");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_malformed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
