// SPDX-License-Identifier: GPL-2.0-only
/* cmd_test.c: unit tests for common/cmd.h (cmd_*.c), the one subprocess helper, with
 * real programs (sh, true, false, sleep, cat, env, ls): exit codes and
 * messages, stdin from a buffer or a file, capped output, files, timeouts
 * (also a child that ignores SIGTERM, and its process group), a clean
 * environment, closed fds, reset signals and spawn failures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/wait.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"
#include "t/unit/testutil.h"

static int setup(void **state)
{
	char *dir = malloc(128);

	if (!dir)
		return -1;
	tu_tmpdir(dir, 128, "cmd");
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	tu_rmrf(*state);
	free(*state);
	return 0;
}

/* Runs sh -c script with stdout into out (may be NULL); returns cmd_run()'s
 * value, *err as it left it (caller frees), the result in *res. */
static int sh(const char *script, struct buf *out, struct cmd_result *res, char **err)
{
	struct cmd *c = cmd_new("sh");
	int rc;

	cmd_args(c, "-c", script, NULL);
	if (out)
		cmd_stdout_buf(c, out);
	rc = cmd_run(c, err);
	*res = *cmd_result(c);
	cmd_free(c);
	return rc;
}

static void test_true_false(void **state)
{
	struct cmd *c = cmd_new("true");
	char *err = (char *)"untouched";

	assert_int_equal(cmd_result(c)->end, CMD_END_NONE);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_null(err);
	assert_int_equal(cmd_result(c)->end, CMD_END_EXIT);
	assert_int_equal(cmd_result(c)->code, 0);
	/* a command runs once */
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "true: already run");
	free(err);
	cmd_free(c);

	c = cmd_new("false");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "false: exited with 1");
	assert_int_equal(cmd_result(c)->end, CMD_END_EXIT);
	assert_int_equal(cmd_result(c)->code, 1);
	free(err);
	cmd_free(c);

	/* err may be NULL */
	c = cmd_new("false");
	assert_int_equal(cmd_run(c, NULL), -1);
	cmd_free(c);
}

static void test_exit_message_quotes_stderr(void **state)
{
	const char *argv[] = { "/bin/sh", "-c", "echo out; echo 'warning: x' >&2; "
			       "printf 'fatal: not a valid mbox\\n\\n' >&2; exit 128", NULL };
	struct cmd *c = cmd_newv(argv);
	struct buf out = BUF_INIT(1024);
	char *err = NULL;

	cmd_label(c, "git mailinfo");
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "git mailinfo: exited with 128: fatal: not a valid mbox");
	assert_string_equal(buf_str(&out), "out\n");
	assert_int_equal(cmd_result(c)->code, 128);
	free(err);
	cmd_free(c);
	buf_release(&out);
}

static void test_default_label(void **state)
{
	struct cmd *c = cmd_new("/bin/sh");
	char *err = NULL;

	/* "sh -c": -c is not a subcommand */
	cmd_args(c, "-c", "exit 3", NULL);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sh: exited with 3");
	free(err);
	cmd_free(c);

	/* a subcommand word joins the name: "git no-such-subcommand" */
	c = cmd_new("git");
	cmd_arg(c, "no-such-subcommand");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_non_null(strstr(err, "git no-such-subcommand: exited with 1: "));
	free(err);
	cmd_free(c);
}

static void test_stderr_buf_and_merge(void **state)
{
	char *dir = *state, *log = tu_path(dir, "log"), *text;
	struct buf out = BUF_INIT(1024), errb = BUF_INIT(1024);
	struct cmd *c = cmd_new("sh");
	char *err = NULL;

	cmd_args(c, "-c", "echo one; echo two >&2; echo three", NULL);
	cmd_stdout_buf(c, &out);
	cmd_stderr_buf(c, &errb);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "one\nthree\n");
	assert_string_equal(buf_str(&errb), "two\n");
	cmd_free(c);

	/* one stream, in order, into a file */
	c = cmd_new("sh");
	cmd_args(c, "-c", "echo one; echo two >&2; echo three; exit 2", NULL);
	cmd_stdout_file(c, log);
	cmd_stderr_to_stdout(c);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sh: exited with 2: three");
	text = tu_slurp(log, NULL);
	assert_string_equal(text, "one\ntwo\nthree\n");
	free(text);
	free(err);
	cmd_free(c);

	/* stderr to its own file, quoted from there */
	c = cmd_new("sh");
	cmd_args(c, "-c", "echo out; echo 'make: *** [Makefile:2] Error 1' >&2; exit 2", NULL);
	cmd_stderr_file(c, log);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sh: exited with 2: make: *** [Makefile:2] Error 1");
	free(err);
	cmd_free(c);

	free(log);
	buf_release(&out);
	buf_release(&errb);
}

static void test_stdin(void **state)
{
	char *dir = *state, *in = tu_path(dir, "in");
	struct buf out = BUF_INIT(4u << 20);
	struct cmd *c = cmd_new("cat");
	size_t big = 3u << 20;
	char *data = malloc(big), *err = NULL;

	assert_non_null(data);
	cmd_stdin_buf(c, "hello\n", 6);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "hello\n");
	cmd_free(c);

	/* more than a pipe holds, both ways */
	for (size_t i = 0; i < big; i++)
		data[i] = (char)('a' + i % 26);
	buf_reset(&out);
	c = cmd_new("cat");
	cmd_stdin_buf(c, data, big);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_int_equal(out.len, big);
	assert_memory_equal(out.data, data, big);
	cmd_free(c);

	/* a file */
	tu_write_str(in, "from a file\n");
	buf_reset(&out);
	c = cmd_new("cat");
	cmd_stdin_file(c, in);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "from a file\n");
	cmd_free(c);

	/* the default is /dev/null: cat does not wait for a terminal */
	buf_reset(&out);
	c = cmd_new("cat");
	cmd_stdout_buf(c, &out);
	cmd_timeout(c, 5000);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_int_equal(out.len, 0);
	cmd_free(c);

	/* a missing stdin file is a spawn failure that names it */
	c = cmd_new("cat");
	cmd_stdin_file(c, "/nonexistent/in");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "cat: stdin '/nonexistent/in': No such file or directory");
	assert_int_equal(cmd_result(c)->end, CMD_END_SPAWN);
	free(err);
	cmd_free(c);

	free(data);
	free(in);
	buf_release(&out);
}

static void test_output_cap(void **state)
{
	struct buf out = BUF_INIT(4096), errb = BUF_INIT(100);
	struct cmd *c = cmd_new("sh");
	int64_t t0 = mono_ms();
	char *err = NULL;

	/* 20 MB on stdout and 1 MB on stderr: the child is never blocked,
	 * what fits is kept */
	cmd_args(c, "-c", "head -c 20000000 /dev/zero | tr '\\0' x; "
		 "head -c 1000000 /dev/zero | tr '\\0' e >&2; echo done >&2", NULL);
	cmd_stdout_buf(c, &out);
	cmd_stderr_buf(c, &errb);
	cmd_timeout(c, 30000);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_int_equal(out.len, 4096);
	assert_true(out.truncated);
	assert_int_equal(out.data[4095], 'x');
	assert_int_equal(errb.len, 100);
	assert_true(errb.truncated);
	assert_true(cmd_result(c)->out_truncated);
	assert_true(cmd_result(c)->err_truncated);
	assert_true(mono_ms() - t0 < 30000);
	cmd_free(c);

	/* a buf that already holds text keeps it; the cap counts it */
	buf_release(&out);
	buf_init(&out, 10);
	buf_puts(&out, "1234");
	c = cmd_new("printf");
	cmd_arg(c, "abcdefghij");
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "1234abcdef");
	assert_true(cmd_result(c)->out_truncated);
	cmd_free(c);

	buf_release(&out);
	buf_release(&errb);
}

static void test_stdout_file(void **state)
{
	char *dir = *state, *path = tu_path(dir, "out.txt"), *text;
	struct cmd *c = cmd_new("printf");
	char *err = NULL;
	struct stat st;

	tu_write_str(path, "old contents, longer than the new ones\n");
	cmd_args(c, "%s-%s\n", "a", "b", NULL);
	cmd_stdout_file(c, path);
	assert_int_equal(cmd_run(c, &err), 0);
	text = tu_slurp(path, NULL);
	assert_string_equal(text, "a-b\n");
	free(text);
	cmd_free(c);

	/* created when missing, not executable */
	unlink(path);
	c = cmd_new("true");
	cmd_stdout_file(c, path);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0111, 0);
	cmd_free(c);

	c = cmd_new("true");
	cmd_stdout_file(c, "/nonexistent/dir/out");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "true: stdout '/nonexistent/dir/out': No such file or directory");
	free(err);
	cmd_free(c);
	free(path);
}

static void test_timeout(void **state)
{
	struct cmd *c = cmd_new("sleep");
	int64_t t0 = mono_ms();
	char *err = NULL;

	cmd_arg(c, "10");
	cmd_timeout(c, 200);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sleep: timed out after 200 ms");
	assert_int_equal(cmd_result(c)->end, CMD_END_TIMEOUT);
	assert_int_equal(cmd_result(c)->signo, SIGTERM);
	assert_true(mono_ms() - t0 < 3000);
	assert_true(cmd_result(c)->ms >= 150);
	free(err);
	cmd_free(c);

	/* whole seconds read as seconds, with the last words */
	c = cmd_new("sh");
	cmd_args(c, "-c", "echo 'still busy' >&2; exec sleep 10", NULL);
	cmd_timeout(c, 1000);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sh: timed out after 1 s: still busy");
	free(err);
	cmd_free(c);
}

static int alive(pid_t pid)
{
	char path[64], *stat;
	int r;

	/* a zombie waiting for its reaper counts as gone */
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	stat = tu_slurp(path, NULL);
	if (!stat)
		return 0;
	r = strstr(stat, ") Z ") == NULL;
	free(stat);
	return r;
}

/* A file output with a cap: what fits is written, appended after what the
 * file held, and a command that writes on past it (a build flooding its
 * log) is stopped at the cap instead of filling the disk */
static void test_stdout_append_max(void **state)
{
	char path[] = "/tmp/kfleet-cmd-max.XXXXXX";
	struct buf got = BUF_INIT(0);
	int64_t t0 = mono_ms();
	struct cmd *c;
	char *err = NULL;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "before\n", 7), 7);
	close(fd);
	c = cmd_new("sh");
	cmd_args(c, "-c", "echo small", NULL);
	cmd_stdout_append_max(c, path, 4096);
	assert_int_equal(cmd_run(c, &err), 0);
	cmd_free(c);
	assert_int_equal(read_file(path, &got, 1u << 20), 0);
	assert_string_equal(buf_str(&got), "before\nsmall\n");
	buf_release(&got);

	c = cmd_new("sh");
	cmd_args(c, "-c", "yes flood", NULL);
	cmd_stdout_append_max(c, path, 100000);
	cmd_timeout(c, 20000);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sh: stopped: its output went past 100000 bytes");
	assert_true(cmd_result(c)->overflow);
	assert_true(mono_ms() - t0 < 10000);
	cmd_free(c);
	free(err);
	buf_init(&got, 0);
	assert_int_equal(read_file(path, &got, 1u << 20), 0);
	assert_int_equal(got.len, 13 + 100000);
	buf_release(&got);
	unlink(path);
}

/* cmd_watch(): a check that says stop ends the child with its reason */
static int watch_count;
static int watch_check(void *arg, char *why, size_t n)
{
	(void)arg;
	if (++watch_count < 3)
		return 0;
	snprintf(why, n, "over its cap (%d looks)", watch_count);
	return 1;
}

static void test_watch(void **state)
{
	struct cmd *c = cmd_new("sleep");
	char *err = NULL;
	int64_t t0 = mono_ms();

	watch_count = 0;
	cmd_arg(c, "30");
	cmd_watch(c, watch_check, NULL, 50);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "sleep: stopped: over its cap (3 looks)");
	assert_true(mono_ms() - t0 < 5000);
	free(err);
	cmd_free(c);
}

static void test_timeout_sigterm_ignored(void **state)
{
	struct buf out = BUF_INIT(1024);
	struct cmd *c = cmd_new("sh");
	int64_t t0 = mono_ms();
	long long grandchild = 0;
	char *err = NULL;

	/* the shell and its child ignore SIGTERM: SIGKILL to the whole group
	 * after the grace period */
	cmd_args(c, "-c", "trap '' TERM; sleep 30 & echo $!; wait", NULL);
	cmd_stdout_buf(c, &out);
	cmd_timeout(c, 300);
	cmd_kill_grace(c, 300);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_int_equal(cmd_result(c)->end, CMD_END_TIMEOUT);
	assert_int_equal(cmd_result(c)->signo, SIGKILL);
	assert_string_equal(err, "sh: timed out after 300 ms");
	assert_true(mono_ms() - t0 < 5000);
	out.data[strcspn(out.data, "\n")] = '\0';
	assert_int_equal(parse_int(buf_str(&out), 2, 1 << 30, &grandchild), 0);
	for (int i = 0; i < 100 && alive((pid_t)grandchild); i++)
		usleep(20000);
	assert_false(alive((pid_t)grandchild));
	free(err);
	cmd_free(c);
	buf_release(&out);
}

static void test_grandchild_holds_pipe(void **state)
{
	struct buf out = BUF_INIT(1024);
	struct cmd *c = cmd_new("sh");
	int64_t t0 = mono_ms();
	long long grandchild = 0;
	char *err = NULL;

	/* the child exits at once, but a background job keeps stdout open:
	 * cmd_run() returns after CMD_LINGER_MS and the job is killed */
	cmd_args(c, "-c", "sleep 30 & echo $!", NULL);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_true(mono_ms() - t0 < CMD_LINGER_MS + 3000);
	out.data[strcspn(out.data, "\n")] = '\0';
	assert_int_equal(parse_int(buf_str(&out), 2, 1 << 30, &grandchild), 0);
	for (int i = 0; i < 100 && alive((pid_t)grandchild); i++)
		usleep(20000);
	assert_false(alive((pid_t)grandchild));
	cmd_free(c);
	buf_release(&out);
}

static void test_process_group(void **state)
{
	struct buf out = BUF_INIT(1024);
	struct cmd_result res;
	char *err = NULL, *nl;

	/* the child leads a group of its own: $$ == the pgid cut sees */
	assert_int_equal(sh("echo $$; cut -d' ' -f5 /proc/self/stat", &out, &res, &err), 0);
	nl = strchr(out.data, '\n');
	assert_non_null(nl);
	*nl = '\0';
	nl[1 + strcspn(nl + 1, "\n")] = '\0';
	assert_string_equal(out.data, nl + 1);
	assert_int_not_equal(atoi(out.data), (int)getpgrp());
	buf_release(&out);
}

static void test_signal(void **state)
{
	struct cmd_result res;
	char *err = NULL;

	assert_int_equal(sh("echo 'about to crash' >&2; kill -SEGV $$", NULL, &res, &err), -1);
	assert_int_equal(res.end, CMD_END_SIGNAL);
	assert_int_equal(res.signo, SIGSEGV);
	assert_string_equal(err, "sh: killed by signal 11 (SIGSEGV): about to crash");
	free(err);
}

static void test_env_clean(void **state)
{
	struct buf out = BUF_INIT(4096);
	struct cmd *c = cmd_new("env");
	char *err = NULL;

	setenv("KFLEET_TEST_SECRET", "do-not-leak", 1);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "PATH=" CMD_PATH "\n");
	cmd_free(c);

	buf_reset(&out);
	c = cmd_new("env");
	cmd_env(c, "LC_ALL", "C");
	cmd_env(c, "FOO", "first");
	cmd_env(c, "FOO", "bar baz");        /* replaces */
	cmd_env_pass(c, "KFLEET_TEST_SECRET");
	cmd_env_pass(c, "KFLEET_TEST_UNSET_VARIABLE");
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "LC_ALL=C\nFOO=bar baz\nKFLEET_TEST_SECRET=do-not-leak\n"
			    "PATH=" CMD_PATH "\n");
	cmd_free(c);

	/* the caller's PATH replaces the default and finds the program */
	buf_reset(&out);
	c = cmd_new("env");
	cmd_env(c, "PATH", "/nonexistent:/usr/bin");
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "PATH=/nonexistent:/usr/bin\n");
	cmd_free(c);

	c = cmd_new("env");
	cmd_env(c, "BAD=NAME", "x");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "env: 'BAD=NAME' is not an environment variable name");
	free(err);
	cmd_free(c);

	unsetenv("KFLEET_TEST_SECRET");
	buf_release(&out);
}

static void test_fds_closed(void **state)
{
	struct buf out = BUF_INIT(4096);
	struct cmd_result res;
	char *err = NULL, script[128];
	int fd = open("/dev/null", O_RDONLY);   /* no O_CLOEXEC: would leak */
	int fd2 = dup2(fd, 100);

	assert_true(fd > 2);
	assert_int_equal(fd2, 100);
	/* ls's own directory fd is 3: nothing else beyond 0-2 */
	assert_int_equal(sh("ls /proc/self/fd", &out, &res, &err), 0);
	assert_string_equal(buf_str(&out), "0\n1\n2\n3\n");
	snprintf(script, sizeof(script), "test -e /proc/self/fd/%d || test -e /proc/self/fd/100", fd);
	assert_int_equal(sh(script, NULL, &res, &err), -1);
	assert_int_equal(res.code, 1);
	free(err);
	close(fd);
	close(fd2);
	buf_release(&out);
}

static void test_fds_when_stdio_closed(void **state)
{
	struct buf out = BUF_INIT(4096);
	struct cmd *c;
	char *err = NULL;
	int saved = dup(0);

	/* with this process's stdin closed, the pipes and files may land on
	 * fd 0: the child must still get them right */
	assert_true(saved > 2);
	close(0);
	c = cmd_new("cat");
	cmd_stdin_buf(c, "in\n", 3);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	assert_string_equal(buf_str(&out), "in\n");
	cmd_free(c);
	dup2(saved, 0);
	close(saved);
	buf_release(&out);
}

static void test_signals_reset(void **state)
{
	struct buf out = BUF_INIT(4096);
	struct cmd_result res;
	sigset_t block, old;
	char *err = NULL;
	void (*prev)(int) = signal(SIGPIPE, SIG_IGN);
	unsigned long long blk = 1, ign = 1;

	/* this process ignores SIGPIPE and blocks SIGUSR1; the child does
	 * neither */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &old);
	assert_int_equal(sh("grep -E '^Sig(Ign|Blk)' /proc/self/status", &out, &res, &err), 0);
	assert_int_equal(sscanf(buf_str(&out), "SigBlk: %llx SigIgn: %llx", &blk, &ign), 2);
	assert_int_equal(blk, 0);
	/* glibc's posix_spawn() leaves its own two internal signals (32 and
	 * 33, below SIGRTMIN) ignored; everything else is default */
	assert_int_equal(ign & ~0x180000000ULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	signal(SIGPIPE, prev);
	buf_release(&out);
}

static void test_dir(void **state)
{
	char *dir = *state, *file = tu_path(dir, "plain");
	struct buf out = BUF_INIT(4096);
	struct cmd *c = cmd_new("pwd");
	char *err = NULL, want[256];

	cmd_dir(c, dir);
	cmd_stdout_buf(c, &out);
	assert_int_equal(cmd_run(c, &err), 0);
	snprintf(want, sizeof(want), "%s\n", dir);
	assert_string_equal(buf_str(&out), want);
	cmd_free(c);

	c = cmd_new("pwd");
	cmd_dir(c, "/nonexistent/dir");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "pwd: working directory '/nonexistent/dir': "
			    "No such file or directory");
	assert_int_equal(cmd_result(c)->end, CMD_END_SPAWN);
	free(err);
	cmd_free(c);

	tu_write_str(file, "x");
	c = cmd_new("pwd");
	cmd_dir(c, file);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_non_null(strstr(err, "Not a directory"));
	free(err);
	cmd_free(c);
	free(file);
	buf_release(&out);
}

static void test_spawn_failures(void **state)
{
	char *dir = *state, *noexec = tu_path(dir, "noexec.sh");
	struct cmd *c = cmd_new("kfleet-no-such-program");
	char *err = NULL;

	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "kfleet-no-such-program: 'kfleet-no-such-program' not found in "
			    "PATH '" CMD_PATH "'");
	assert_int_equal(cmd_result(c)->end, CMD_END_SPAWN);
	assert_int_equal(cmd_result(c)->err, ENOENT);
	free(err);
	cmd_free(c);

	c = cmd_new("/nonexistent/prog");
	assert_int_equal(cmd_run(c, &err), -1);
	assert_string_equal(err, "prog: cannot run '/nonexistent/prog': No such file or directory");
	free(err);
	cmd_free(c);

	tu_write_str(noexec, "#!/bin/sh\nexit 0\n");
	chmod(noexec, 0644);
	c = cmd_new(noexec);
	assert_int_equal(cmd_run(c, &err), -1);
	assert_non_null(strstr(err, "Permission denied"));
	assert_int_equal(cmd_result(c)->err, EACCES);
	free(err);
	cmd_free(c);

	/* out of memory while building surfaces at run time */
	assert_int_equal(cmd_run(NULL, &err), -1);
	assert_string_equal(err, "command: out of memory");
	free(err);
	cmd_arg(NULL, "x");
	cmd_free(NULL);
	assert_int_equal(cmd_result(NULL)->end, CMD_END_NONE);
	free(noexec);
}

static void test_string(void **state)
{
	struct cmd *c = cmd_new("git");
	char *s;

	cmd_env(c, "GIT_DIR", "/tmp/a b");
	cmd_args(c, "log", "--format=%H %s", "it's", "", NULL);
	cmd_argf(c, "-n%d", 3);
	s = cmd_string(c);
	assert_string_equal(s, "PATH=" CMD_PATH " GIT_DIR='/tmp/a b' git log '--format=%H %s' "
			    "'it'\\''s' '' -n3");
	free(s);
	cmd_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_true_false),
		cmocka_unit_test(test_exit_message_quotes_stderr),
		cmocka_unit_test(test_default_label),
		cmocka_unit_test(test_stdout_append_max),
		cmocka_unit_test(test_watch),
		cmocka_unit_test_setup_teardown(test_stderr_buf_and_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stdin, setup, teardown),
		cmocka_unit_test(test_output_cap),
		cmocka_unit_test_setup_teardown(test_stdout_file, setup, teardown),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_timeout_sigterm_ignored),
		cmocka_unit_test(test_grandchild_holds_pipe),
		cmocka_unit_test(test_process_group),
		cmocka_unit_test(test_signal),
		cmocka_unit_test(test_env_clean),
		cmocka_unit_test(test_fds_closed),
		cmocka_unit_test(test_fds_when_stdio_closed),
		cmocka_unit_test(test_signals_reset),
		cmocka_unit_test_setup_teardown(test_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spawn_failures, setup, teardown),
		cmocka_unit_test(test_string),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
