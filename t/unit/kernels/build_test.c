/* build_test.c: unit tests for kernels/build.c: which patch and file a
 * failed `git am -3` names (from git's own output), the first compiler
 * errors of a build log, tree names, build keys and config hashes (a
 * fragment's content changes the hash, its name alone does not). Trees,
 * git am and make themselves run in t/e2e-kernels.sh and t/e2e-linux.sh. */
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
#include "kernels/kernels.h"
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

static void test_log_errors(void **state)
{
	const char *log =
		"  CC      kernel/fork.o\n"
		"  CC      kernel/sys.o\n"
		"kernel/sys.c:1080:9: error: expected ';' before 'return'\n"
		" 1080 |         udelay(20)\n"
		"      |                   ^\n"
		"      |                   ;\n"
		"  CC      kernel/exit.o\n"
		"make[3]: *** [scripts/Makefile.build:250: kernel/sys.o] Error 1\n";
	char *e;

	(void)state;
	e = kbuild_log_errors(log, strlen(log));
	assert_non_null(e);
	assert_true(!strncmp(e, "kernel/sys.c:1080:9: error: expected ';'", 40));
	assert_non_null(strstr(e, "udelay(20)"));
	assert_non_null(strstr(e, "*** [scripts/Makefile.build:250"));
	assert_null(strstr(e, "kernel/fork.o"));      /* nothing before the first error */
	assert_null(strstr(e, "kernel/exit.o"));      /* nor what make -j built meanwhile */
	free(e);
	/* modpost's own errors */
	e = kbuild_log_errors("  CC [M]  bpf_testmod.o\n  MODPOST Module.symvers\n"
			      "ERROR: modpost: \"bpf_fentry_test1\" [bpf_testmod.ko] undefined!\n"
			      "  CC      bpftool/btf.o\n", 136);
	assert_non_null(e);
	assert_string_equal(e, "ERROR: modpost: \"bpf_fentry_test1\" [bpf_testmod.ko] undefined!\n");
	free(e);
	assert_null(kbuild_log_errors("  CC x.o\n  LD vmlinux\n", 21));
}

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_am_conflict),
		cmocka_unit_test(test_am_no_ancestor),
		cmocka_unit_test(test_am_missing_file),
		cmocka_unit_test(test_am_unknown),
		cmocka_unit_test(test_log_errors),
		cmocka_unit_test(test_config_dropped),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_config_hash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
