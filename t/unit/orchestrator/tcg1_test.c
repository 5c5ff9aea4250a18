// SPDX-License-Identifier: GPL-2.0-only
/* tcg1_test.c: the QEMU wrapper for single-threaded TCG (guest.c): it must
 * turn "-accel tcg" into "-accel tcg,thread=single" and pass every other
 * argument through unchanged; and guest_tcg1_emulator() picks it only for
 * TCG guests with more vCPUs than the host has CPUs, on a local host. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/wait.h>

#include "common/util.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

/* Runs the wrapper installed under the name "echo" (so it execs
 * /usr/bin/echo) with argv; returns what it printed, caller frees. */
static char *run_as_echo(const char *dir, char *const argv[])
{
	char *wrapper = path_join(dir, "qemu-system-x86_64"), *echo = path_join(dir, "echo");
	char *text = tu_slurp(wrapper, NULL), out[4096];
	int pfd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	tu_write_str(echo, text);
	assert_int_equal(chmod(echo, 0755), 0);
	assert_int_equal(pipe(pfd), 0);
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		execv(echo, argv);
		_exit(127);
	}
	close(pfd[1]);
	while ((n = read(pfd[0], out + got, sizeof(out) - 1 - (size_t)got)) > 0)
		got += n;
	out[got] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(text);
	free(wrapper);
	free(echo);
	return strdup(out);
}

static void test_wrapper_rewrites_accel(void **state)
{
	char dir[128], *out;
	char *argv1[] = { "echo", "-machine", "virt", "-accel", "tcg", "-smp", "96", NULL };
	char *argv2[] = { "echo", "-name", "a b  c", "-accel", "kvm", "-accel", NULL };
	char *argv3[] = { "echo", "tcg", "-accel", "tcg,thread=multi", NULL };

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "tcg1");
	assert_int_equal(guest_write_tcg1(dir), 0);
	out = run_as_echo(dir, argv1);
	assert_string_equal(out, "-machine virt -accel tcg,thread=single -smp 96\n");
	free(out);
	/* other accelerators, a trailing -accel and spaces inside arguments
	 * pass through as they are */
	out = run_as_echo(dir, argv2);
	assert_string_equal(out, "-name a b  c -accel kvm -accel\n");
	free(out);
	out = run_as_echo(dir, argv3);
	assert_string_equal(out, "tcg -accel tcg,thread=multi\n");
	free(out);
	tu_rmrf(dir);
}

static void test_when_single_threaded(void **state)
{
	struct config_host local = { .name = "local", .uri = "qemu:///system" };
	struct config_host remote = { .name = "far", .uri = "qemu+ssh://far/system" };
	struct host h = { .conf = &local, .cpus = 2 };
	struct orch o;
	char *e;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.tcg1_dir = "/state/tcg1";
	e = guest_tcg1_emulator(&o, &h, "arm64", "tcg", 16);
	assert_string_equal(e, "/state/tcg1/qemu-system-aarch64");
	free(e);
	e = guest_tcg1_emulator(&o, &h, "x86_64", "tcg", 3);
	assert_string_equal(e, "/state/tcg1/qemu-system-x86_64");
	free(e);
	assert_null(guest_tcg1_emulator(&o, &h, "x86_64", "tcg", 2));   /* fits the CPUs */
	assert_null(guest_tcg1_emulator(&o, &h, "x86_64", "kvm", 96));  /* not TCG */
	h.conf = &remote;
	assert_null(guest_tcg1_emulator(&o, &h, "x86_64", "tcg", 96));  /* no wrapper there */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrapper_rewrites_accel),
		cmocka_unit_test(test_when_single_threaded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
