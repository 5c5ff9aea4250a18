// SPDX-License-Identifier: GPL-2.0-only
/* agent_test.c: runs the built kfleet-agent in test mode (--root/--channel)
 * on a temporary directory and decodes the frames it wrote: HELLO, output,
 * truncation, exit codes, signals, timeouts. The agent binary comes from
 * $KFLEET_AGENT, else next to this test's build tree, else build/bin. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/frame.h"
#include "common/util.h"
#include "images/images.h"
#include "t/unit/testutil.h"

#define AGENT_NAME "kfleet-agent-x86_64"
#define MAX_FRAMES 4096

static char *agent_path;

struct fixture {
	char dir[64];
	char *root;
	char *channel;
	char *console;          /* the agent's stderr */
	struct frame *frames;
	int n;
	struct buf out;         /* all OUT payloads in order */
	int exit_status;        /* the agent's own wait status */
	int64_t elapsed_ms;
};

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *kf;

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/kfleet-agent-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->root = path_join(f->dir, "root");
	f->channel = path_join(f->dir, "channel");
	f->console = path_join(f->dir, "console");
	kf = path_join(f->root, "kfleet");
	if (mkdir_p(kf, 0755) < 0)
		return -1;
	free(kf);
	f->frames = calloc(MAX_FRAMES, sizeof(*f->frames));
	if (!f->frames)
		return -1;
	buf_init(&f->out, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "could not remove '%s'\n", f->dir);
	free(f->root);
	free(f->channel);
	free(f->console);
	free(f->frames);
	buf_release(&f->out);
	free(f);
	return 0;
}

static void put(struct fixture *f, const char *rel, const char *text)
{
	char *p = path_join(f->root, rel);

	assert_int_equal(write_file(p, text, strlen(text), 0644), 0);
	free(p);
}

/* Runs the agent with argv, its stderr (the guest console) into err_path */
static int spawn_agent(char *const argv[], const char *err_path)
{
	int status, fd;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd >= 0)
			dup2(fd, 2);
		alarm(60); /* a hung agent fails the test instead of hanging it */
		execv(agent_path, argv);
		fprintf(stderr, "exec '%s': %s\n", agent_path, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		assert_int_equal(errno, EINTR);
	return status;
}

/* Writes the run's files, runs the agent, decodes every channel line */
static void run(struct fixture *f, const char *conf, const char *cmd)
{
	char *const argv[] = { AGENT_NAME, "--root", f->root, "--channel", f->channel, NULL };
	struct buf chan = BUF_INIT(0);
	const char *why;
	char *line, *nl;
	int64_t t0;

	if (conf)
		put(f, &IMG_RUNCONF_PATH[1], conf);
	if (cmd)
		put(f, &IMG_CMD_PATH[1], cmd);
	t0 = mono_ms();
	f->exit_status = spawn_agent(argv, f->console);
	f->elapsed_ms = mono_ms() - t0;
	assert_true(WIFEXITED(f->exit_status));
	assert_int_equal(WEXITSTATUS(f->exit_status), 0);

	assert_int_equal(read_file(f->channel, &chan, 64 << 20), 0);
	assert_false(chan.truncated);
	assert_true(chan.len > 0);
	assert_int_equal(chan.data[chan.len - 1], '\n');
	f->n = 0;
	for (line = chan.data; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		assert_true(f->n < MAX_FRAMES);
		why = NULL;
		if (frame_decode(line, (size_t)(nl - line), &f->frames[f->n], &why) != FRAME_OK)
			fail_msg("channel line %d does not decode: %s", f->n + 1, why ? why : "not a frame");
		assert_int_equal(f->frames[f->n].seq, (uint32_t)f->n);
		if (f->frames[f->n].type == FRAME_OUT)
			assert_int_equal(buf_append(&f->out, f->frames[f->n].payload, f->frames[f->n].len), 0);
		f->n++;
	}
	buf_release(&chan);

	/* always HELLO first and EXIT last, exactly once each */
	assert_true(f->n >= 2);
	assert_int_equal(f->frames[0].type, FRAME_HELLO);
	assert_int_equal(f->frames[f->n - 1].type, FRAME_EXIT);
	/* between them output, then the results archive (RES..., RES_END),
	 * then a truncation count */
	for (int i = 1, phase = 0; i < f->n - 1; i++) {
		enum frame_type t = f->frames[i].type;
		int p = t == FRAME_OUT ? 0 : t == FRAME_RES ? 1 : t == FRAME_RES_END ? 2 : 3;

		assert_true(t == FRAME_OUT || t == FRAME_TRUNC || t == FRAME_RES ||
			    t == FRAME_RES_END);
		assert_true(p >= phase);
		assert_false(p == 2 && phase == 2);
		phase = p;
	}
}

static void assert_console(const struct fixture *f, const char *want)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(read_file(f->console, &b, 1 << 20), 0);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

static const struct frame *last(const struct fixture *f)
{
	return &f->frames[f->n - 1];
}

static const struct frame *find_type(const struct fixture *f, enum frame_type t)
{
	for (int i = 0; i < f->n; i++)
		if (f->frames[i].type == t)
			return &f->frames[i];
	return NULL;
}

static void test_exit_code(void **state)
{
	struct fixture *f = *state;
	const char *hello;

	run(f, "run=7\ntimeout=30\noutput_max=65536\n",
	    "echo kfleet-test-output; echo to-stderr >&2; exit 3");
	hello = (const char *)f->frames[0].payload;
	assert_non_null(strstr(hello, "release="));
	assert_non_null(strstr(hello, "\nnproc="));
	assert_non_null(strstr(hello, "\nmem_kb="));
	assert_non_null(strstr(hello, "\nuptime_ms="));
	assert_non_null(strstr(hello, "\nrun=7\n"));
	assert_string_equal(f->out.data, "kfleet-test-output\nto-stderr\n");
	assert_null(find_type(f, FRAME_TRUNC));
	assert_string_equal((const char *)last(f)->payload, "code=3");
	assert_console(f, "kfleet-agent: run 7: starting command\nkfleet-agent: run 7: code=3\n");
}

static void test_environment(void **state)
{
	struct fixture *f = *state;

	/* a clean environment: nothing leaks from ours */
	setenv("KFLEET_TEST_LEAK", "leaked", 1);
	run(f, "run=1\ntimeout=30\n",
	    "echo \"$PATH|$HOME|$TERM|${KFLEET_TEST_LEAK-unset}\"; read x; echo \"stdin=$?\"");
	unsetenv("KFLEET_TEST_LEAK");
	assert_string_equal(f->out.data, "/kfleet/bin:/bin:/sbin:/usr/bin:/usr/sbin|/root|linux|unset\nstdin=1\n");
	assert_string_equal((const char *)last(f)->payload, "code=0");
}

static void test_timeout(void **state)
{
	struct fixture *f = *state;

	run(f, "run=2\ntimeout=1\n", "echo before; sleep 30; echo after");
	assert_string_equal(f->out.data, "before\n");
	assert_string_equal((const char *)last(f)->payload, "timeout=1");
	assert_true(f->elapsed_ms >= 1000);
	assert_true(f->elapsed_ms < 10000);
}

static void test_truncation(void **state)
{
	struct fixture *f = *state;
	const struct frame *t;
	size_t i;

	/* 5000 bytes, more than one frame's worth, with output_max 3000 */
	run(f, "run=3\ntimeout=30\noutput_max=3000\n",
	    "i=0; while [ $i -lt 100 ]; do echo 0123456789012345678901234567890123456789012345678; i=$((i+1)); done");
	assert_int_equal(f->out.len, 3000);
	for (i = 0; i < f->out.len; i++)
		assert_int_equal(f->out.data[i], i % 50 == 49 ? '\n' : (char)('0' + i % 50 % 10));
	t = find_type(f, FRAME_TRUNC);
	assert_non_null(t);
	assert_string_equal((const char *)t->payload, "2000");
	/* TRUNC comes right before EXIT */
	assert_ptr_equal(t, &f->frames[f->n - 2]);
	assert_string_equal((const char *)last(f)->payload, "code=0");
}

static void test_big_output(void **state)
{
	struct fixture *f = *state;
	int outs = 0;

	run(f, "run=4\ntimeout=30\noutput_max=1000000\n", "head -c 300000 /dev/zero");
	assert_int_equal(f->out.len, 300000);
	for (int i = 0; i < f->n; i++)
		if (f->frames[i].type == FRAME_OUT) {
			assert_true(f->frames[i].len <= FRAME_MAX_PAYLOAD);
			outs++;
		}
	assert_true(outs >= 300000 / FRAME_MAX_PAYLOAD);
	assert_null(find_type(f, FRAME_TRUNC));
	assert_string_equal((const char *)last(f)->payload, "code=0");
}

static void test_signal(void **state)
{
	struct fixture *f = *state;

	run(f, "run=5\ntimeout=30\n", "echo dying; kill -9 $$");
	assert_string_equal(f->out.data, "dying\n");
	assert_string_equal((const char *)last(f)->payload, "signal=9");
}

static void test_background_child(void **state)
{
	struct fixture *f = *state;

	/* the command exits but leaves a child holding the pipe */
	run(f, "run=6\ntimeout=30\n", "(sleep 30; echo late) & echo main; exit 4");
	assert_string_equal(f->out.data, "main\n");
	assert_string_equal((const char *)last(f)->payload, "code=4");
	assert_true(f->elapsed_ms < 5000);
}

static void test_no_command(void **state)
{
	struct fixture *f = *state;

	run(f, "run=8\ntimeout=30\n", NULL);
	assert_int_equal(f->n, 2);
	assert_string_equal((const char *)last(f)->payload,
			    "error=command '/kfleet/cmd': No such file or directory");
}

static void test_bad_conf(void **state)
{
	struct fixture *f = *state;

	/* bad values and unknown keys are ignored: defaults apply */
	run(f, "run=x\nnoise\ncolour=blue\ntimeout=-1\noutput_max=lots\n\n", "echo ok");
	assert_non_null(strstr((const char *)f->frames[0].payload, "\nrun=-1\n"));
	assert_string_equal(f->out.data, "ok\n");
	assert_string_equal((const char *)last(f)->payload, "code=0");
}

/* results= makes the directory (under --root in test mode) and names it in
 * KFLEET_RESULTS; root= is left alone in test mode, and one that is not a
 * /dev node is refused on the console */
static void test_results_and_root(void **state)
{
	struct fixture *f = *state;
	struct buf con = BUF_INIT(0);
	char want[512];

	run(f, "run=9\ntimeout=30\nroot=/dev/vda\nresults=/srv/out/x\n",
	    "echo \"$KFLEET_RESULTS\"; test -d \"$KFLEET_RESULTS\" && echo made");
	snprintf(want, sizeof(want), "%s/srv/out/x\nmade\n", f->root);
	assert_string_equal(f->out.data, want);
	assert_string_equal((const char *)last(f)->payload, "code=0");
	assert_int_equal(read_file(f->console, &con, 1 << 20), 0);
	assert_non_null(strstr(buf_str(&con), "root disk '/dev/vda' left alone in test mode"));
	buf_reset(&f->out);
	buf_reset(&con);
	run(f, "run=10\ntimeout=30\nroot=/etc/passwd\nroot=/dev/../etc\n",
	    "echo \"${KFLEET_RESULTS-unset}\"");
	assert_string_equal(f->out.data, "unset\n");
	assert_int_equal(read_file(f->console, &con, 1 << 20), 0);
	assert_non_null(strstr(buf_str(&con), "root '/etc/passwd' is not a /dev node"));
	assert_non_null(strstr(buf_str(&con), "root '/dev/../etc' is not a /dev node"));
	assert_null(strstr(buf_str(&con), "left alone"));
	buf_release(&con);
}

static void test_usage(void **state)
{
	struct fixture *f = *state;
	char *const only_root[] = { AGENT_NAME, "--root", f->root, NULL };
	char *const only_chan[] = { AGENT_NAME, "--channel", f->channel, NULL };
	char *const bogus[] = { AGENT_NAME, "--root", f->root, "--channel", f->channel, "--x", NULL };
	int st;

	/* each of these is refused before anything runs; never without --root
	 * here: on the host that is what the getppid() guard is for */
	st = spawn_agent(only_root, f->console);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	st = spawn_agent(only_chan, f->console);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	st = spawn_agent(bogus, f->console);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
	assert_int_equal(access(f->channel, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_exit_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_environment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_big_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_background_child, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_command, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_conf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_results_and_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
	};
	int rc;

	agent_path = tu_agent_path(AGENT_NAME);
	if (!agent_path || access(agent_path, X_OK) < 0) {
		fprintf(stderr, "agent '%s': %s (build it or set KFLEET_AGENT)\n",
			agent_path ? agent_path : "?", strerror(errno));
		free(agent_path);
		return 1;
	}
	rc = cmocka_run_group_tests_name("agent", tests, NULL, NULL);
	free(agent_path);
	return rc;
}
