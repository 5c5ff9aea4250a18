// SPDX-License-Identifier: GPL-2.0-only
/* sandbox_test.c: unit tests for kernels/sandbox.c: make's arguments and
 * environment for each arch, the bwrap sandbox around it (what it may
 * write and read, no network), and a build step's outcome (done, failed,
 * not started), its output appended to the log; the first line of a
 * command's output, and cp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"
#include "kernels/kernelsint.h"
#include "t/unit/testutil.h"

static void test_make_args(void **state)
{
	const char *rw[] = { "/s/src", "/s/obj", NULL }, *ro[] = { "/etc/frag.config", NULL };
	struct kbuild_env e = { .state_dir = "/state", .configs_dir = "/cfgs" };
	struct kbuild_steps st = {
		.e = &e, .arch = "arm64", .src = "/s/src", .obj = "/s/obj", .rw = rw, .ro = ro,
	};
	struct cmd *c;
	char *line;

	(void)state;
	c = kbuild_make(&st);
	line = cmd_string(c);
	/* no sandbox: make itself, cross-compiling, a fixed build identity */
	assert_non_null(strstr(line, " make -C /s/src O=/s/obj ARCH=arm64 "
				     "CROSS_COMPILE=aarch64-linux-gnu-"));
	assert_non_null(strstr(line, "KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 1970'"));
	assert_non_null(strstr(line, "KBUILD_BUILD_USER=kfleet"));
	assert_non_null(strstr(line, "HOME=/tmp"));
	assert_null(strstr(line, "bwrap"));
	free(line);
	cmd_free(c);

	st.arch = "x86_64";
	e.sandbox = 1;
	e.uid = 4321;
	e.gid = 8765;
	c = kbuild_make(&st);
	line = cmd_string(c);
	assert_null(strstr(line, "CROSS_COMPILE"));
	/* as the build user, without capabilities, before bwrap runs (when
	 * kfleetd is root, as it is in CI) */
	if (geteuid() == 0)
		assert_non_null(strstr(line, " setpriv --reuid=4321 --regid=8765 --clear-groups "
					     "--inh-caps=-all --bounding-set=-all --no-new-privs -- "
					     "bwrap --unshare-all --die-with-parent --new-session "
					     "--cap-drop ALL --unshare-user --disable-userns "));
	else
		assert_non_null(strstr(line, " bwrap --unshare-all --die-with-parent "));
	/* the host: only the toolchain and the named paths, never all of it,
	 * the state directory, /run (libvirt's socket), /etc/shadow or homes */
	assert_null(strstr(line, "--ro-bind / /"));
	assert_non_null(strstr(line, "--ro-bind-try /usr /usr"));
	assert_null(strstr(line, "/state"));
	assert_null(strstr(line, "/run"));
	assert_null(strstr(line, "--ro-bind-try /etc /etc"));
	assert_null(strstr(line, "shadow"));
	assert_null(strstr(line, "/home"));
	assert_null(strstr(line, "/root"));
	assert_non_null(strstr(line, "--tmpfs /tmp"));
	assert_non_null(strstr(line, "--ro-bind-try /cfgs /cfgs"));
	assert_non_null(strstr(line, "--ro-bind-try /etc/frag.config /etc/frag.config"));
	assert_non_null(strstr(line, "--bind /s/src /s/src --bind /s/obj /s/obj -- make -C /s/src "
				     "O=/s/obj ARCH=x86_64"));
	assert_non_null(strstr(line, "GIT_CONFIG_KEY_0=safe.directory"));
	/* setlocalversion's status must not hash the tree again because
	 * root's files show another uid in the build's user namespace */
	assert_non_null(strstr(line, "GIT_CONFIG_COUNT=2"));
	assert_non_null(strstr(line, "GIT_CONFIG_KEY_1=core.checkStat GIT_CONFIG_VALUE_1=minimal"));
	free(line);
	cmd_free(c);
	/* every path of the host the sandbox shows says why */
	assert_non_null(kbuild_box_why("/usr"));
	assert_non_null(kbuild_box_why("/etc/alternatives"));
	assert_null(kbuild_box_why("/etc"));

	/* a series: its O= the overlay, bound at the slot's obj; ccache only read */
	st.rw = NULL;
	st.obj_from = "/stage/K.ovl/obj";
	st.untrusted = 1;
	e.ccache = 1;
	c = kbuild_make(&st);
	line = cmd_string(c);
	assert_non_null(strstr(line, "--bind /stage/K.ovl/obj /s/obj -- make"));
	if (access("/usr/bin/ccache", X_OK) == 0) {
		assert_non_null(strstr(line, "CCACHE_READONLY=1"));
		assert_non_null(strstr(line, "CCACHE_NOSTATS=1"));
	}
	free(line);
	cmd_free(c);
}

static void test_step(void **state)
{
	char dir[128], *log, *err = NULL, *text;
	const char *rw[] = { NULL };
	struct kbuild_env e = { .state_dir = "/nonexistent" };
	struct kbuild_steps st = { .e = &e, .arch = "x86_64", .rw = rw };
	struct cmd *c;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "sandbox");
	log = path_join(dir, "build.log");
	st.log = log;
	st.deadline = mono_ms() + 60 * 1000;
	/* done: stdout and stderr appended to the log, after a line naming
	 * the step (the build's stage, kbuild_log_progress) */
	c = cmd_new("sh");
	cmd_args(c, "-c", "echo out; echo err >&2", NULL);
	assert_int_equal(kbuild_step(&st, c, "echo", &err), 0);
	assert_null(err);
	assert_false(st.failed);
	c = cmd_new("sh");
	cmd_args(c, "-c", "echo again; exit 3", NULL);
	assert_int_equal(kbuild_step(&st, c, "make", &err), 1);
	assert_true(st.failed);
	assert_non_null(err);
	assert_true(!strncmp(err, "make: ", 6));
	free(err);
	err = NULL;
	text = tu_slurp(log, NULL);
	/* each step's time after its output (where a build's time went) */
	{
		char *a = strstr(text, "### kfleet: echo took "), *m = strstr(text, "### kfleet: make took ");
		long long ms;

		assert_non_null(a);
		assert_non_null(m);
		assert_int_equal(sscanf(a, "### kfleet: echo took %lld ms\n", &ms), 1);
		assert_true(ms >= 0 && ms < 60 * 1000);
		/* the rest as it was: cut both lines out */
		memmove(m, strchr(m, '\n') + 1, strlen(strchr(m, '\n') + 1) + 1);
		memmove(a, strchr(a, '\n') + 1, strlen(strchr(a, '\n') + 1) + 1);
	}
	assert_string_equal(text, "### kfleet: step echo\nout\nerr\n### kfleet: step make\nagain\n");
	free(text);
	/* not started */
	st.failed = 0;
	c = cmd_new("/nonexistent/program");
	assert_int_equal(kbuild_step(&st, c, "merge_config.sh", &err), -1);
	assert_true(st.failed);
	assert_true(!strncmp(err, "merge_config.sh: ", 17));
	free(err);
	tu_rmrf(dir);
	free(log);
}

static void test_run_line_and_copy(void **state)
{
	char dir[128], out[8], *err = NULL, *from, *to, *text;
	struct cmd *c;

	(void)state;
	c = cmd_new("printf");
	cmd_args(c, "first line\nsecond\n", NULL);
	assert_int_equal(kbuild_run_line(c, out, sizeof(out), &err), 0);
	assert_string_equal(out, "first l");    /* cut to fit */
	c = cmd_new("false");
	assert_int_equal(kbuild_run_line(c, out, sizeof(out), &err), -1);
	assert_non_null(err);
	free(err);
	err = NULL;

	tu_tmpdir(dir, sizeof(dir), "sandbox");
	from = path_join(dir, "-a");            /* a name cp must not take as an option */
	to = path_join(dir, "b");
	tu_write_str(from, "content\n");
	assert_int_equal(kbuild_copy(from, to, &err), 0);
	text = tu_slurp(to, NULL);
	assert_string_equal(text, "content\n");
	free(text);
	assert_int_equal(kbuild_copy("/nonexistent/x", to, &err), -1);
	assert_non_null(err);
	free(err);
	tu_rmrf(dir);
	free(from);
	free(to);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make_args),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_run_line_and_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
