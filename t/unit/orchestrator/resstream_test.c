// SPDX-License-Identifier: GPL-2.0-only
/* resstream_test.c: a job's results directory streamed by the agent
 * (guest/agent_tar.c, RES frames) and taken by kfleetd (channel.c's
 * channel_results, results.c's results_stream_take). The real agent runs
 * in test mode (--root/--channel) with a command that leaves files of every
 * kind; the channel file it wrote is read as kfleetd reads a guest's, the
 * archive extracted with the copy-out's rules, and compared with what the
 * command left. Then the stream is damaged (a frame lost, its end lost),
 * made too big and removed, and each must send kfleetd to the disk copy
 * (or, for a missing directory, to nothing) instead of a wrong tree. */
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
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/util.h"
#include "guest/agent_tar.h"
#include "images/images.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

#define AGENT_NAME "kfleet-agent-x86_64"

static char *agent_path;

struct fixture {
	char dir[128];
	char *root, *chan, *out, *run;   /* --root, --channel, output.txt, the run's dir */
	struct channel ch;
	struct job_def job;
	struct outcome oc;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *kf;

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "resstream");
	f->root = tu_path(f->dir, "root");
	f->chan = tu_path(f->dir, "agent.log");
	f->run = tu_path(f->dir, "run");
	f->out = tu_path(f->run, "output.txt");
	kf = tu_path(f->root, "kfleet");
	assert_int_equal(mkdir_p(kf, 0755), 0);
	assert_int_equal(mkdir_p(f->run, 0755), 0);
	free(kf);
	f->job.name = (char *)"res";
	f->job.results = (char *)"/srv/res";
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	channel_release(&f->ch);
	tu_rmrf(f->dir);
	free(f->root);
	free(f->chan);
	free(f->out);
	free(f->run);
	free(f);
	return 0;
}

/* Runs the agent on conf and cmd, then reads its channel as kfleetd does */
static void run_agent(struct fixture *f, const char *conf, const char *cmd)
{
	char *const argv[] = { AGENT_NAME, "--root", f->root, "--channel", f->chan, NULL };
	char *p;
	int status;
	pid_t pid;

	p = tu_path(f->root, &IMG_RUNCONF_PATH[1]);
	tu_write_str(p, conf);
	free(p);
	p = tu_path(f->root, &IMG_CMD_PATH[1]);
	tu_write_str(p, cmd);
	free(p);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd >= 0)
			dup2(fd, 2);
		alarm(60);
		execv(agent_path, argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void take(struct fixture *f)
{
	assert_int_equal(channel_open(&f->ch, f->chan, f->out, 1 << 20), 0);
	assert_int_equal(results_stream_open(&f->ch, f->run, IMG_RESULTS_STREAM_MAX), 0);
	assert_true(channel_poll(&f->ch) >= 0);
	assert_true(f->ch.exited);
}

static char *slurp_rel(const char *dir, const char *rel, size_t *n)
{
	char *p = tu_path(dir, rel), *s = tu_slurp(p, n);

	free(p);
	return s;
}

#define CONF "run=1\ntimeout=30\nresults=/srv/res\n"
/* files of every kind, a name over ustar's 100 bytes, 3000 bytes of binary */
#define CMD  "cd \"$KFLEET_RESULTS\" && mkdir -p a/b/c && echo one > a/one.txt && " \
	     ": > empty && ln -s /etc/passwd link && mkfifo pipe && " \
	     "head -c 3000 /dev/urandom > a/b/c/blob && " \
	     "n=$(printf 'n%.0s' $(seq 120)) && echo long > a/$n && chmod 755 a/one.txt"

static void test_stream_whole(void **state)
{
	struct fixture *f = *state;
	char longname[160] = "a/";
	size_t n1, n2;
	char *want, *got, *chan;

	run_agent(f, CONF, CMD);
	take(f);
	assert_int_equal(f->ch.res_state, CHANNEL_RES_DONE);
	assert_int_equal(results_stream_take(&f->job, 1, &f->ch, f->run, &f->oc), 0);
	assert_string_equal(f->oc.detail, "");

	got = slurp_rel(f->run, "results/a/one.txt", &n1);
	assert_non_null(got);
	assert_string_equal(got, "one\n");
	free(got);
	want = slurp_rel(f->root, "srv/res/a/b/c/blob", &n1);
	got = slurp_rel(f->run, "results/a/b/c/blob", &n2);
	assert_non_null(want);
	assert_non_null(got);
	assert_int_equal(n1, 3000);
	assert_int_equal(n2, n1);
	assert_memory_equal(got, want, n1);
	free(want);
	free(got);
	memset(longname + 2, 'n', 120);
	got = slurp_rel(f->run, longname, &n1);
	assert_null(got);                     /* not under the run's dir itself */
	{
		char rel[200];

		snprintf(rel, sizeof(rel), "results/%s", longname);
		got = slurp_rel(f->run, rel, &n1);
		assert_non_null(got);
		assert_string_equal(got, "long\n");
		free(got);
	}
	got = slurp_rel(f->run, "results/empty", &n1);
	assert_non_null(got);
	assert_int_equal(n1, 0);
	free(got);
	{
		struct stat st;
		char *p = tu_path(f->run, "results/link");

		assert_int_equal(lstat(p, &st), -1);   /* links and fifos left out */
		free(p);
		p = tu_path(f->run, "results/pipe");
		assert_int_equal(lstat(p, &st), -1);
		free(p);
		p = tu_path(f->run, "results/a/one.txt");
		assert_int_equal(stat(p, &st), 0);
		assert_true(st.st_mode & 0100);       /* the execute bit kept */
		free(p);
	}
	/* the archive file is gone, and so are its frames in the channel file;
	 * the exit frame is still there */
	{
		char *p = tu_path(f->run, RUN_FILE_RESULTS_TAR);

		assert_int_equal(access(p, F_OK), -1);
		free(p);
	}
	chan = tu_slurp(f->chan, &n1);
	assert_non_null(chan);
	assert_null(strstr(chan, " res "));
	assert_non_null(strstr(chan, " resend "));
	assert_non_null(strstr(chan, " exit "));
	free(chan);
}

/* Drops the n-th line of the channel file that has " res " in it */
static void drop_res_line(const char *path, int n)
{
	size_t len;
	char *s = tu_slurp(path, &len), *p = s, *nl;
	struct buf b = BUF_INIT(0);

	assert_non_null(s);
	for (int k = 0; (nl = strchr(p, '\n')); p = nl + 1) {
		int res = !!memmem(p, (size_t)(nl - p), " res ", 5);

		if (res && k++ == n)
			continue;
		assert_int_equal(buf_append(&b, p, (size_t)(nl + 1 - p)), 0);
	}
	tu_write(path, b.data, b.len, 0);
	buf_release(&b);
	free(s);
}

static void test_frame_lost(void **state)
{
	struct fixture *f = *state;

	run_agent(f, CONF, CMD);
	drop_res_line(f->chan, 2);                /* in the middle */
	take(f);
	assert_int_equal(f->ch.res_state, CHANNEL_RES_BROKEN);
	assert_int_equal(results_stream_take(&f->job, 1, &f->ch, f->run, &f->oc), 1);
	{
		char *p = tu_path(f->run, "results");

		assert_int_equal(access(p, F_OK), -1);
		free(p);
	}
}

static void test_first_frame_lost(void **state)
{
	struct fixture *f = *state;

	run_agent(f, CONF, CMD);
	drop_res_line(f->chan, 0);                /* caught by the end's size */
	take(f);
	assert_int_equal(f->ch.res_state, CHANNEL_RES_BROKEN);
	assert_int_equal(results_stream_take(&f->job, 1, &f->ch, f->run, &f->oc), 1);
}

static void test_over_and_missing(void **state)
{
	struct fixture *f = *state;

	run_agent(f, CONF "results_max=4096\n", CMD);
	take(f);
	assert_int_equal(f->ch.res_state, CHANNEL_RES_OVER);
	assert_int_equal(results_stream_take(&f->job, 1, &f->ch, f->run, &f->oc), 1);
	channel_release(&f->ch);

	/* an empty directory: an archive of two zero blocks, an empty tree */
	run_agent(f, CONF, "rm -rf \"$KFLEET_RESULTS\"/*");
	take(f);
	assert_int_equal(f->ch.res_state, CHANNEL_RES_DONE);
	assert_int_equal(results_stream_take(&f->job, 1, &f->ch, f->run, &f->oc), 0);
	assert_string_equal(f->oc.detail, "");
	{
		struct stat st;
		char *p = tu_path(f->run, "results");

		assert_int_equal(stat(p, &st), 0);
		assert_true(S_ISDIR(st.st_mode));
		free(p);
	}
	channel_release(&f->ch);

	run_agent(f, CONF, "rm -rf \"$KFLEET_RESULTS\"");
	take(f);
	assert_int_equal(f->ch.res_state, CHANNEL_RES_MISSING);
	assert_int_equal(results_stream_take(&f->job, 1, &f->ch, f->run, &f->oc), 0);
}

/* The archive's size is known before it is sent, and is what is sent */
static int count(void *ctx, const void *p, size_t n)
{
	*(unsigned long long *)ctx += n;
	return 0;
}

static void test_measure_matches(void **state)
{
	struct fixture *f = *state;
	struct agent_tar_stats m, w;
	unsigned long long sent = 0;
	char *res = tu_path(f->root, "srv/res");

	run_agent(f, CONF, CMD);
	assert_int_equal(agent_tar_measure(res, &m), 0);
	assert_int_equal(agent_tar_write(res, count, &sent, &w), 0);
	assert_int_equal(m.size, sent);
	assert_int_equal(w.size, sent);
	assert_int_equal(m.files, 4);
	assert_int_equal(m.dirs, 3);
	assert_int_equal(m.skipped, 2);
	assert_int_equal(m.bytes, 3000 + 4 + 5);
	errno = 0;
	assert_int_equal(agent_tar_measure("/nonexistent/kfleet", &m), -1);
	assert_int_equal(errno, ENOENT);
	free(res);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_stream_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_frame_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_over_and_missing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_measure_matches, setup, teardown),
	};
	int rc;

	log_set_level(LOG_LVL_ERROR);
	agent_path = tu_agent_path(AGENT_NAME);
	if (!agent_path || access(agent_path, X_OK) < 0) {
		fprintf(stderr, "agent '%s': %s (build it or set KFLEET_AGENT)\n",
			agent_path ? agent_path : "?", strerror(errno));
		free(agent_path);
		return 1;
	}
	rc = cmocka_run_group_tests_name("resstream", tests, NULL, NULL);
	free(agent_path);
	return rc;
}
