// SPDX-License-Identifier: GPL-2.0-only
/* pidfile_test.c: unit tests for common/pidfile.c: the file holds this
 * process's pid while it is locked, a second lock on it (another open file
 * description, as another kfleetd has) is refused with the holder's pid, a
 * file left by a killed daemon (no lock) is taken over whatever it holds,
 * and releasing removes it so that it can be locked again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>

#include "common/pidfile.h"
#include "t/unit/testutil.h"

static char dir[64];
static char *path;

static int setup(void **state)
{
	(void)state;
	tu_tmpdir(dir, sizeof(dir), "pidfile");
	path = tu_path(dir, "kfleetd.pid");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_rmrf(dir);
	free(path);
	return 0;
}

/* "PID\n" of this process */
static void assert_holds_own_pid(void)
{
	char want[32], *got = tu_slurp(path, NULL);

	snprintf(want, sizeof(want), "%ld\n", (long)getpid());
	assert_string_equal(got, want);
	free(got);
}

static void test_lock_and_release(void **state)
{
	struct pidfile p;
	pid_t other = -1;

	assert_int_equal(pidfile_lock(&p, path, &other), 0);
	assert_int_equal(other, 0);
	assert_true(p.fd >= 0);
	assert_holds_own_pid();
	pidfile_release(&p);
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(p.fd, -1);
	assert_null(p.path);
	pidfile_release(&p);   /* twice: harmless */
}

static void test_second_refused(void **state)
{
	struct pidfile a, b;
	pid_t other = 0;

	assert_int_equal(pidfile_lock(&a, path, &other), 0);
	errno = 0;
	assert_int_equal(pidfile_lock(&b, path, &other), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_int_equal(other, getpid());
	assert_int_equal(b.fd, -1);
	/* the refused one left the holder's file as it was */
	assert_holds_own_pid();
	pidfile_release(&a);
	assert_int_equal(pidfile_lock(&b, path, &other), 0);
	pidfile_release(&b);
}

/* Another process holds it and has written nothing yet: refused, pid 0 */
static void test_holder_without_pid(void **state)
{
	int fds[2], fd;
	struct pidfile p;
	pid_t other = -1, child;
	char c;

	assert_int_equal(pipe(fds), 0);
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		fd = open(path, O_RDWR | O_CREAT, 0644);
		if (fd < 0 || flock(fd, LOCK_EX) < 0)
			_exit(1);
		if (write(fds[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(pidfile_lock(&p, path, &other), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	assert_int_equal(other, 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(fds[0]);
	close(fds[1]);
	/* its lock went with it: the file it left is taken over */
	assert_int_equal(pidfile_lock(&p, path, &other), 0);
	assert_holds_own_pid();
	pidfile_release(&p);
}

static void test_stale_taken_over(void **state)
{
	static const char *const stale[] = { "999999\n", "4194304000\n", "garbage", "" };
	struct pidfile p;
	pid_t other;

	for (size_t i = 0; i < sizeof(stale) / sizeof(stale[0]); i++) {
		tu_write_str(path, stale[i]);
		other = -1;
		assert_int_equal(pidfile_lock(&p, path, &other), 0);
		assert_int_equal(other, 0);
		assert_holds_own_pid();
		pidfile_release(&p);
	}
}

static void test_no_directory(void **state)
{
	struct pidfile p;
	pid_t other;
	char *bad = tu_path(dir, "no/such/kfleetd.pid");

	assert_int_equal(pidfile_lock(&p, bad, &other), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(p.fd, -1);
	pidfile_release(&p);
	free(bad);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lock_and_release),
		cmocka_unit_test(test_second_refused),
		cmocka_unit_test(test_holder_without_pid),
		cmocka_unit_test(test_stale_taken_over),
		cmocka_unit_test(test_no_directory),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
