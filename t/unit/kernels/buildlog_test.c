// SPDX-License-Identifier: GPL-2.0-only
/* buildlog_test.c: unit tests for kernels/buildlog.c: the first compiler
 * and make errors of a build log (not what make -j went on building), the
 * same read from a log file's tail, kfleet's own notes in a log, and
 * where a build is from its log (its stage, objects, estimate). */
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

static void test_log_file(void **state)
{
	char dir[128], *log, *big, *e;
	struct buf b = BUF_INIT(0);

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "buildlog");
	log = path_join(dir, "build.log");
	big = path_join(dir, "big.log");
	/* notes are appended, one line each */
	assert_int_equal(write_file(log, "  CC      x.o\n", 14, 0644), 0);
	assert_int_equal(kbuild_log_note(log, "tree %s commit %.4s", "linux", "abcdef"), 0);
	assert_int_equal(kbuild_log_note(log, "failed: %d", 2), 0);
	assert_int_equal(read_file(log, &b, 1u << 20), 0);
	assert_string_equal(buf_str(&b), "  CC      x.o\n### kfleet: tree linux commit abcd\n"
			    "### kfleet: failed: 2\n");
	assert_null(kbuild_log_file_errors(log));
	assert_int_equal(kbuild_log_note("/nonexistent/dir/build.log", "x"), -1);
	assert_null(kbuild_log_file_errors("/nonexistent/dir/build.log"));
	/* an error found in the file */
	buf_reset(&b);
	buf_puts(&b, "  CC      a.o\na.c:1:2: error: 'x' undeclared\n");
	assert_int_equal(write_file(log, b.data, b.len, 0644), 0);
	e = kbuild_log_file_errors(log);
	assert_non_null(e);
	assert_string_equal(e, "a.c:1:2: error: 'x' undeclared\n");
	free(e);
	/* only the last MiB is read: an error before it is not seen, one in it is */
	buf_reset(&b);
	buf_puts(&b, "a.c:1:2: error: early\n");
	while (b.len < (1u << 20) + 4096)
		buf_puts(&b, "  CC      some/object/file.o\n");
	assert_int_equal(write_file(big, b.data, b.len, 0644), 0);
	assert_null(kbuild_log_file_errors(big));
	buf_puts(&b, "make: *** [Makefile:1: all] Error 2\n");
	assert_int_equal(write_file(big, b.data, b.len, 0644), 0);
	e = kbuild_log_file_errors(big);
	assert_non_null(e);
	assert_string_equal(e, "make: *** [Makefile:1: all] Error 2\n");
	free(e);
	buf_release(&b);
	tu_rmrf(dir);
	free(big);
	free(log);
}

/* A log as kbuild and kfleet write it: the stage is the last step's, the
 * objects every kbuild line, tags with digits and [M] included, and
 * nothing else (warnings, make's own lines, notes) */
static void append(const char *path, const char *text)
{
	tu_write(path, text, strlen(text), 1);
}

static void test_progress(void **state)
{
	char dir[128];
	char *log;
	struct kbuild_progress p;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "progress");
	log = tu_path(dir, "build.log");
	assert_int_equal(kbuild_log_progress(log, &p), -1);          /* no log yet */
	tu_write_str(log, "### kfleet: tree linux commit abc arch x86_64 config defconfig\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_string_equal(p.stage, "prepare");
	assert_int_equal(p.objects, 0);
	append(log, "### kfleet: step x86_64_defconfig\n"
		 "  HOSTCC  scripts/basic/fixdep\n"
		 "#\n# configuration written to .config\n#\n"
		 "### kfleet: step olddefconfig\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_string_equal(p.stage, "config");
	assert_int_equal(p.objects, 1);
	append(log, "### kfleet: step make\n"
		 "  SYNC    include/config/auto.conf\n"
		 "  CC      kernel/fork.o\n"
		 "kernel/fork.c:12:5: warning: unused variable 'x'\n"
		 "  CC [M]  net/ipv4/tcp_bbr.o\n"
		 "  LD      vmlinux.o\n"
		 "  OBJCOPY arch/x86/boot/vmlinux.bin\n"
		 "make[2]: Entering directory '/src'\n"
		 "  Kernel: arch/x86/boot/bzImage is ready  (#1)\n"
		 "   CC     three spaces: not kbuild's\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_string_equal(p.stage, "make");
	assert_int_equal(p.objects, 6);
	append(log, "### kfleet: step modules_install\n  INSTALL /lib/modules/x/tcp_bbr.ko\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_string_equal(p.stage, "modules");
	assert_int_equal(p.objects, 7);
	append(log, "### kfleet: step kselftest-install\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_string_equal(p.stage, "selftests");
	assert_false(p.truncated);
	tu_rmrf(dir);
	free(log);
}

/* A build from nothing notes the estimate of its lines before make; the
 * progress reads it back, and nothing else that looks like it */
static void test_progress_estimate(void **state)
{
	char dir[128];
	char *log;
	struct kbuild_progress p;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "progress-est");
	log = tu_path(dir, "build.log");
	tu_write_str(log, "### kfleet: step tinyconfig\n  HOSTCC  scripts/basic/fixdep\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_int_equal(p.estimate, 0);
	append(log, "### kfleet: estimate: about x kbuild lines\n"
		 "### kfleet: estimate: about 12\n"
		 "### kfleet: estimate: about 99999999999999999999 kbuild lines\n"
		 "  CC      estimate: about 5 kbuild lines\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_int_equal(p.estimate, 0);
	assert_int_equal(p.objects, 2);
	kbuild_log_note(log, KBUILD_ESTIMATE_NOTE "%d kbuild lines for a build from nothing "
			"(1 so far; ...)", 938);
	append(log, "### kfleet: step make\n  CC      init/main.o\n");
	assert_int_equal(kbuild_log_progress(log, &p), 0);
	assert_int_equal(p.estimate, 938);
	assert_int_equal(p.objects, 3);
	assert_string_equal(p.stage, "make");
	tu_rmrf(dir);
	free(log);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log_errors),
		cmocka_unit_test(test_log_file),
		cmocka_unit_test(test_progress),
		cmocka_unit_test(test_progress_estimate),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
