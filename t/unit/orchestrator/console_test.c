// SPDX-License-Identifier: GPL-2.0-only
/* console_test.c: unit tests for console_scan() (orchestrator/console.c),
 * which reads a guest's serial console for the first kernel crash report.
 * Recorded consoles under t/data/console/ (clean boot and power-off, sysrq
 * panic, NULL-pointer Oops, soft lockup, hung task, binary garbage) plus
 * generated edge cases: a 1 MB line, unterminated input, bounded splats.
 * Every input is handed over in a buffer of exactly its size, so a read
 * past the end is caught by ASan. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

#define SPLAT_LINES_MAX 40
#define SPLAT_BYTES_MAX 8192

/* Scans n bytes copied into a buffer of exactly n bytes (no NUL after). */
static void scan(const char *text, size_t n, struct console_verdict *v)
{
	char *copy = malloc(n ? n : 1);

	assert_non_null(copy);
	memcpy(copy, text, n);
	console_scan(copy, n, v);
	free(copy);
}

static void scan_str(const char *text, struct console_verdict *v)
{
	scan(text, strlen(text), v);
}

static void scan_fixture(const char *name, struct console_verdict *v)
{
	char *path = tu_path("t/data/console", name), *text;
	size_t n = 0;

	text = tu_slurp(path, &n);
	if (!text)
		fail_msg("fixture '%s' missing (run from the source root)", path);
	scan(text, n, v);
	free(text);
	free(path);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A crash: the splat starts with first_line and holds each of the others;
 * it is bounded in lines and bytes and ends with a newline. */
static void expect_crash(const struct console_verdict *v, const char *what,
			 const char *first_line, const char *const *holds)
{
	assert_int_equal(v->crashed, 1);
	assert_string_equal(v->what, what);
	assert_non_null(v->splat);
	if (strncmp(v->splat, first_line, strlen(first_line)))
		fail_msg("splat does not start with '%s':\n%.300s", first_line, v->splat);
	for (; holds && *holds; holds++)
		if (!strstr(v->splat, *holds))
			fail_msg("splat lacks '%s':\n%s", *holds, v->splat);
	assert_true(count_lines(v->splat) <= SPLAT_LINES_MAX);
	assert_true(strlen(v->splat) <= SPLAT_BYTES_MAX);
}

static void expect_clean(const struct console_verdict *v)
{
	if (v->crashed)
		fail_msg("flagged as '%s':\n%.300s", v->what, v->splat ? v->splat : "");
	assert_null(v->splat);
	assert_string_equal(v->what, "");
}

/* --- recorded consoles ---------------------------------------------------- */

static void test_clean_boot(void **state)
{
	struct console_verdict v;

	(void)state;
	scan_fixture("boot-clean.log", &v);
	/* it has "+ echo BUG: x", "Oops:" and "Kernel panic - not syncing" mid-line */
	expect_clean(&v);
}

static void test_sysrq_panic(void **state)
{
	static const char *const holds[] = {
		"CPU: 0 PID: 95 Comm: sh Not tainted 6.1.0-21-amd64",
		"Call Trace:",
		"sysrq_handle_crash+0x16/0x20",
		"entry_SYSCALL_64_after_hwframe",
		"---[ end Kernel panic - not syncing: sysrq triggered crash ]---",
		NULL,
	};
	struct console_verdict v;

	(void)state;
	scan_fixture("panic-sysrq.log", &v);
	expect_crash(&v, "kernel panic",
		     "[   12.345901] Kernel panic - not syncing: sysrq triggered crash", holds);
	/* the line before the marker is not part of it */
	assert_null(strstr(v.splat, "sysrq: Trigger a crash"));
	free(v.splat);
}

/* A NULL dereference prints "BUG: kernel NULL pointer dereference" first and
 * "Oops: ..." four lines later: the report starts at the BUG line. */
static void test_null_oops(void **state)
{
	static const char *const holds[] = {
		"#PF: supervisor write access in kernel mode",
		"Oops: 0002 [#1] PREEMPT SMP NOPTI",
		"RIP: 0010:crashme_init+0x15/0x1000 [crashme]",
		"Call Trace:",
		"do_one_initcall+0x5b/0x240",
		NULL,
	};
	struct console_verdict v;

	(void)state;
	scan_fixture("oops-null.log", &v);
	expect_crash(&v, "BUG",
		     "[   20.101010] BUG: kernel NULL pointer dereference, address: 0000000000000000",
		     holds);
	assert_null(strstr(v.splat, "loading out-of-tree module"));
	free(v.splat);
}

/* The watchdog prints "watchdog: BUG: soft lockup - CPU#1 stuck for 26s!"
 * (kernel/watchdog.c has pr_fmt "watchdog: "). */
static void test_soft_lockup(void **state)
{
	static const char *const holds[] = {
		"RIP: 0010:spin_init+0x9/0x1000 [spin]",
		"Call Trace:",
		NULL,
	};
	struct console_verdict v;

	(void)state;
	scan_fixture("soft-lockup.log", &v);
	expect_crash(&v, "soft lockup",
		     "[   68.412345] watchdog: BUG: soft lockup - CPU#1 stuck for 26s! [spin:131]",
		     holds);
	free(v.splat);
}

static void test_hung_task(void **state)
{
	static const char *const holds[] = {
		"\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
		"task:sync            state:D",
		"ksys_sync+0x40/0xa0",
		NULL,
	};
	struct console_verdict v;

	(void)state;
	scan_fixture("hung-task.log", &v);
	expect_crash(&v, "hung task",
		     "[  245.678901] INFO: task sync:140 blocked for more than 120 seconds.", holds);
	free(v.splat);
}

static void test_garbage(void **state)
{
	struct console_verdict v;

	(void)state;
	scan_fixture("garbage.log", &v);
	expect_clean(&v);
}

/* --- generated cases ------------------------------------------------------ */

/* Many kinds of report, each on the first line of its kind */
static void test_markers(void **state)
{
	static const struct {
		const char *line, *what;
	} cases[] = {
		{ "[    5.1] BUG: KASAN: slab-out-of-bounds in foo_probe+0x3a/0x90", "KASAN report" },
		{ "[    5.1] BUG: KFENCE: use-after-free read in bar+0x12/0x40", "KFENCE report" },
		{ "[    5.1] UBSAN: array-index-out-of-bounds in drivers/x.c:12:7", "UBSAN report" },
		{ "[   30.0] rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:", "RCU stall" },
		{ "[    5.1] kernel BUG at mm/slub.c:4312!", "BUG" },
		{ "[    5.1] general protection fault, probably for non-canonical address "
		  "0xdead000000000100: 0000 [#1] PREEMPT SMP NOPTI", "general protection fault" },
		{ "[    5.1] Oops: 0000 [#1] PREEMPT SMP NOPTI", "Oops" },
		{ "[    5.1] BUG: scheduling while atomic: swapper/0/0/0x00000002", "BUG" },
		{ "[    7.3] WARNING: CPU: 1 PID: 212 at net/core/dev.c:10123 "
		  "netdev_run_todo+0x2d5/0x2f0", "WARNING" },
		{ "[   12.0] Out of memory: Killed process 97 (awk) total-vm:264140kB, "
		  "anon-rss:262052kB", "OOM kill" },
		{ "[   12.0] Memory cgroup out of memory: Killed process 97 (stress) "
		  "total-vm:264140kB", "OOM kill" },
		{ "[   40.0] watchdog: Watchdog detected hard LOCKUP on cpu 3", "hard lockup" },
		/* no timestamp (printk.time=0) */
		{ "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000009", "kernel panic" },
		/* a big uptime */
		{ "[123456.789012] Kernel panic - not syncing: Fatal exception", "kernel panic" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct console_verdict v;
		char *text = NULL;

		assert_true(asprintf(&text, "[    0.0] booting\n%s\n[    5.2] next line\n",
				     cases[i].line) > 0);
		scan_str(text, &v);
		if (!v.crashed)
			fail_msg("not flagged: '%s'", cases[i].line);
		assert_string_equal(v.what, cases[i].what);
		assert_non_null(v.splat);
		assert_true(!strncmp(v.splat, cases[i].line, strlen(cases[i].line)));
		assert_non_null(strstr(v.splat, "next line"));
		assert_null(strstr(v.splat, "booting"));
		free(v.splat);
		free(text);
	}
}

/* printk's fields in every shape (common/printk.c): the time, the caller
 * (CONFIG_PRINTK_CALLER: a task or a CPU), the loglevel (syslog format or
 * a /dev/kmsg read), alone and together; a WARNING, a BUG and a panic are
 * seen behind each, the splat keeping the line as the console had it */
static void test_printk_prefixes(void **state)
{
	static const char *const prefixes[] = {
		"[    1.234567] ", "[    1.234567][    T1] ", "[    1.234567][  C0] ",
		"<4>[    1.2] ", "<4>", "[    T1] ", "<0>[ 4012.5][ T1234] ", "<4>[  1.0][    C3] ",
	};
	static const struct {
		const char *line, *what;
	} reports[] = {
		{ "WARNING: CPU: 0 PID: 1 at kernel/fork.c:2245 copy_process+0x1/0x9", "WARNING" },
		{ "BUG: KASAN: slab-use-after-free in sk_destruct+0x3a/0x90", "KASAN report" },
		{ "BUG: kernel NULL pointer dereference, address: 0000000000000008", "BUG" },
		{ "Kernel panic - not syncing: Fatal exception", "kernel panic" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		for (size_t j = 0; j < sizeof(reports) / sizeof(reports[0]); j++) {
			struct console_verdict v;
			char *line = NULL, *text = NULL;

			assert_true(asprintf(&line, "%s%s", prefixes[i], reports[j].line) > 0);
			assert_true(asprintf(&text, "%sbooting\n%s\n", prefixes[i], line) > 0);
			scan_str(text, &v);
			if (!v.crashed || strcmp(v.what, reports[j].what))
				fail_msg("'%s': %s", line, v.crashed ? v.what : "not flagged");
			assert_true(!strncmp(v.splat, line, strlen(line)));
			free(v.splat);
			free(line);
			free(text);
		}
}

/* Text that mentions a marker but is no report */
static void test_not_reports(void **state)
{
	static const char *const lines[] = {
		"+ echo BUG: x",
		"/ # echo BUG: x",
		"[    1.0] kfleet: running 'echo BUG: x'",
		"[    0.0] rcu: Hierarchical RCU implementation.",
		"[    0.0] Kernel command line: console=ttyS0 panic=-1 oops=panic",
		"[    9.9] ---[ end Kernel panic - not syncing: x ]---",
		"INFO task without colon",
		"BUG without colon",
		"",
		"[",
		"[]",
		"[         ]",
	};

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct console_verdict v;

		scan_str(lines[i], &v);
		if (v.crashed)
			fail_msg("'%s' flagged as %s", lines[i], v.what);
		assert_null(v.splat);
	}
}

/* The first report wins; later ones are part of its splat or ignored */
static void test_first_report_wins(void **state)
{
	struct console_verdict v;

	(void)state;
	scan_str("[ 1.0] ok\n[ 2.0] BUG: KASAN: use-after-free in x\n[ 2.1] more\n"
		 "[ 3.0] Kernel panic - not syncing: Fatal exception\n", &v);
	assert_string_equal(v.what, "KASAN report");
	assert_true(!strncmp(v.splat, "[ 2.0] BUG: KASAN:", 18));
	assert_non_null(strstr(v.splat, "Kernel panic - not syncing"));
	free(v.splat);
}

static void test_empty_and_unterminated(void **state)
{
	struct console_verdict v;
	const char *t = "[    7.0] Kernel panic - not syncing: VFS: Unable to mount root fs";

	(void)state;
	memset(&v, 0x55, sizeof(v));
	scan("", 0, &v);
	expect_clean(&v);
	scan("\n\n\n", 3, &v);
	expect_clean(&v);
	/* the report is the last line, with no newline after it */
	scan(t, strlen(t), &v);
	assert_int_equal(v.crashed, 1);
	assert_string_equal(v.what, "kernel panic");
	assert_non_null(v.splat);
	assert_true(!strncmp(v.splat, t, strlen(t)));
	assert_int_equal(strlen(v.splat), strlen(t) + 1);
	free(v.splat);
	/* a marker cut short by the end of the text is not a report */
	scan("[ 1.0] Kernel panic - not sync", 30, &v);
	expect_clean(&v);
}

/* The splat holds at most 40 lines */
static void test_splat_line_bound(void **state)
{
	struct buf b = BUF_INIT(0);
	struct console_verdict v;

	(void)state;
	buf_puts(&b, "[ 1.0] Kernel panic - not syncing: x\n");
	for (int i = 0; i < 500; i++)
		buf_printf(&b, "[ 1.%d] trace line %d\n", i, i);
	scan(b.data, b.len, &v);
	assert_int_equal(v.crashed, 1);
	assert_int_equal(count_lines(v.splat), SPLAT_LINES_MAX);
	assert_non_null(strstr(v.splat, "trace line 38\n"));
	assert_null(strstr(v.splat, "trace line 39\n"));
	free(v.splat);
	buf_release(&b);
}

/* ... and at most 8 KiB, even when the lines are huge */
static void test_splat_byte_bound(void **state)
{
	size_t n = 1 << 20;
	char *text = malloc(n);
	struct console_verdict v;
	const char *m = "[    4.2] BUG: unable to handle page fault for address: ffff";

	(void)state;
	assert_non_null(text);
	memset(text, 'A', n);
	memcpy(text, m, strlen(m));
	scan(text, n, &v);
	assert_int_equal(v.crashed, 1);
	assert_string_equal(v.what, "BUG");
	assert_true(strlen(v.splat) <= SPLAT_BYTES_MAX);
	assert_true(strlen(v.splat) >= SPLAT_BYTES_MAX - 1);
	assert_true(!strncmp(v.splat, m, strlen(m)));
	free(v.splat);
	free(text);
}

/* A 1 MB line of noise without a newline, then nothing: no report, no
 * read past the end. Then the same line followed by a real panic. */
static void test_megabyte_line(void **state)
{
	size_t n = 1 << 20;
	const char *tail = "\n[   99.000001] Kernel panic - not syncing: Attempted to kill init!\n";
	char *text = malloc(n + strlen(tail));
	struct console_verdict v;

	(void)state;
	assert_non_null(text);
	for (size_t i = 0; i < n; i++)
		text[i] = (char)(' ' + i % 90);   /* printable, never '\n' */
	scan(text, n, &v);
	expect_clean(&v);
	memcpy(text + n, tail, strlen(tail));
	scan(text, n + strlen(tail), &v);
	assert_int_equal(v.crashed, 1);
	assert_string_equal(v.what, "kernel panic");
	assert_true(!strncmp(v.splat, tail + 1, strlen(tail) - 1));
	free(v.splat);
	free(text);
}

/* Binary bytes and NULs around a report do not hide it */
static void test_report_in_binary_noise(void **state)
{
	static const char text[] =
		"\x00\xff\xfe\x1b[2J\x00garbage\r\n\x80\x81\n"
		"[    3.3] Oops: 0000 [#1] SMP\r\n\x00\x01\x02\n";
	struct console_verdict v;

	(void)state;
	scan(text, sizeof(text) - 1, &v);
	assert_int_equal(v.crashed, 1);
	assert_string_equal(v.what, "Oops");
	assert_true(!strncmp(v.splat, "[    3.3] Oops: 0000 [#1] SMP", 29));
	free(v.splat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_boot),
		cmocka_unit_test(test_sysrq_panic),
		cmocka_unit_test(test_null_oops),
		cmocka_unit_test(test_soft_lockup),
		cmocka_unit_test(test_hung_task),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_markers),
		cmocka_unit_test(test_printk_prefixes),
		cmocka_unit_test(test_not_reports),
		cmocka_unit_test(test_first_report_wins),
		cmocka_unit_test(test_empty_and_unterminated),
		cmocka_unit_test(test_splat_line_bound),
		cmocka_unit_test(test_splat_byte_bound),
		cmocka_unit_test(test_megabyte_line),
		cmocka_unit_test(test_report_in_binary_noise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
