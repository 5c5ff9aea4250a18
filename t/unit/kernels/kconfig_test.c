// SPDX-License-Identifier: GPL-2.0-only
/* kconfig_test.c: unit tests for kernels/kconfig.c: the options a
 * fragment asks for that a .config lacks, config hashes (a fragment's
 * content changes the hash, its name alone does not) and which base
 * configs make names. merge_config.sh and olddefconfig run in
 * t/e2e-kernels.sh. */
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

static void test_config_dropped(void **state)
{
	const char *frag = "# a comment\nCONFIG_A=y\n# CONFIG_B is not set\nCONFIG_C=\"x y\"\n"
			   "CONFIG_D=m\nCONFIG_AB=y\nCONFIG_A=y\n# CONFIG_E is not set\r\n";
	const char *cfg = "CONFIG_AB=y\nCONFIG_B=y\nCONFIG_C=\"x y\"\nCONFIG_D=y\n"
			  "# CONFIG_E is not set\n";
	struct buf b = BUF_INIT(4096);

	(void)state;
	kbuild_config_dropped(frag, strlen(frag), cfg, strlen(cfg), &b);
	/* A lost, B set where not wanted, D built in instead of a module; C, AB
	 * and E kept; A named once although asked for twice */
	assert_string_equal(buf_str(&b), "CONFIG_A=y (is not set), CONFIG_B=n (y), CONFIG_D=m (y)");
	buf_reset(&b);
	kbuild_config_dropped(frag, strlen(frag), frag, strlen(frag), &b);
	assert_int_equal(b.len, 0);
	buf_release(&b);
}
static void test_config_hash(void **state)
{
	char dir[] = "/tmp/kfleet-build-test.XXXXXX", h1[65], h2[65], h3[65], *err = NULL;
	char *guest, *guest_arch, *frag;
	const char *frags[1];
	struct kbuild_env e = { 0 };
	struct kbuild_spec s = {
		.tree = "t", .commit = "1111111111111111111111111111111111111111",
		.arch = "x86_64", .config = "tinyconfig",
	};

	(void)state;
	assert_non_null(mkdtemp(dir));
	guest = path_join(dir, "kfleet-guest.config");
	guest_arch = path_join(dir, "kfleet-guest-x86_64.config");
	frag = path_join(dir, "extra.config");
	assert_int_equal(write_file(guest, "CONFIG_PRINTK=y\n", 16, 0644), 0);
	assert_int_equal(write_file(guest_arch, "CONFIG_SERIAL_8250=y\n", 21, 0644), 0);
	assert_int_equal(write_file(frag, "CONFIG_BPF=y\n", 13, 0644), 0);
	e.state_dir = dir;
	e.configs_dir = dir;
	assert_int_equal(kbuild_config_hash(&e, &s, h1, &err), 0);
	frags[0] = frag;
	s.fragments = frags;
	s.nfragments = 1;
	assert_int_equal(kbuild_config_hash(&e, &s, h2, &err), 0);
	assert_string_not_equal(h1, h2);
	/* the fragment's content, not only its name, is in the hash */
	assert_int_equal(write_file(frag, "CONFIG_BPF=n\n", 13, 0644), 0);
	assert_int_equal(kbuild_config_hash(&e, &s, h3, &err), 0);
	assert_string_not_equal(h2, h3);
	/* ... and not its path: the same content elsewhere is the same config */
	{
		char *copy = path_join(dir, "copy.config"), h4[65];

		assert_int_equal(write_file(copy, "CONFIG_BPF=n\n", 13, 0644), 0);
		frags[0] = copy;
		assert_int_equal(kbuild_config_hash(&e, &s, h4, &err), 0);
		assert_string_equal(h3, h4);
		unlink(copy);
		free(copy);
	}
	/* a fragment that is not there is an error naming it */
	frags[0] = "no-such-fragment";
	assert_int_equal(kbuild_config_hash(&e, &s, h3, &err), -1);
	assert_non_null(strstr(err, "config fragment 'no-such-fragment'"));
	free(err);
	err = NULL;
	s.nfragments = 0;
	s.config = "relative/file";
	assert_int_equal(kbuild_config_hash(&e, &s, h3, &err), -1);
	assert_non_null(strstr(err, "config 'relative/file'"));
	free(err);
	unlink(guest);
	unlink(guest_arch);
	unlink(frag);
	rmdir(dir);
	free(guest);
	free(guest_arch);
	free(frag);
}

static void test_named_config(void **state)
{
	(void)state;
	assert_true(kbuild_is_named_config("tinyconfig"));
	assert_true(kbuild_is_named_config("defconfig"));
	assert_true(kbuild_is_named_config("allnoconfig"));
	assert_false(kbuild_is_named_config("allyesconfig"));
	assert_false(kbuild_is_named_config("/boot/config-6.1"));
	assert_false(kbuild_is_named_config("defconfig "));
	assert_false(kbuild_is_named_config(""));
}

/* The files make's config targets read, as linux-source-6.1 has them:
 * every file a Kconfig sources is named Kconfig*, $(shell,...) runs
 * scripts/ (and arch/ARCH/tools/), the Makefiles that set the config's
 * environment; the rest of the tree is not an input */
static void test_config_input(void **state)
{
	static const char *const in[] = {
		"Kconfig", "init/Kconfig", "lib/Kconfig.debug", "arch/x86/Kconfig.cpu",
		"arch/arm64/Kconfig.platforms", "drivers/net/Kconfig", "scripts/Kconfig.include",
		"scripts/cc-version.sh", "scripts/kconfig/merge_config.sh", "scripts/kconfig/conf.c",
		"kernel/configs/tiny.config", "kernel/configs/tiny-base.config",
		"arch/x86/configs/tiny.config", "arch/arm64/configs/defconfig", "Makefile",
		"arch/x86/Makefile", "arch/x86/Makefile_32.cpu", "arch/arm64/Makefile",
		"arch/powerpc/tools/gcc-check-mprofile-kernel.sh",
	};
	static const char *const out[] = {
		"kernel/sys.c", "init/main.c", "drivers/Makefile", "arch/x86/kernel/Makefile",
		"arch/x86/boot/compressed/Makefile", "tools/testing/selftests/Makefile",
		"Documentation/dev-tools/testing-overview.rst", "MAINTAINERS", "arch/Makefile.x",
		"arch", "arch/", "kernel/configs.c", "scriptsx/y", "include/linux/kconfig.h",
		"mm/Kconfig-notes/x.c",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		if (!kbuild_config_input(in[i]))
			fail_msg("'%s' is read by make's config targets", in[i]);
	for (size_t i = 0; i < sizeof(out) / sizeof(out[0]); i++)
		if (kbuild_config_input(out[i]))
			fail_msg("'%s' is not read by make's config targets", out[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_dropped),
		cmocka_unit_test(test_config_hash),
		cmocka_unit_test(test_named_config),
		cmocka_unit_test(test_config_input),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
