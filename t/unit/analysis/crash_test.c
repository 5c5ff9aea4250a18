// SPDX-License-Identifier: GPL-2.0-only
/* crash_test.c: kernel reports' titles (analysis/crash.c) on reports as
 * the console reader keeps them: the same bug on another CPU, PID, address
 * or boot gives the same title, another function another title. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "analysis/crash.h"

static const char *title(const char *splat)
{
	static char t[CRASH_TITLE_MAX];

	if (crash_title(splat, t, sizeof(t)) < 0)
		return "(none)";
	return t;
}

static void test_warning(void **state)
{
	(void)state;
	assert_string_equal(title("[    3.101234] WARNING: CPU: 0 PID: 77 at lib/fake_crash.c:12 "
				  "fake_fn+0x1c/0x40\n[    3.101300] Modules linked in:\n"
				  "[    3.101400] RIP: 0010:fake_fn+0x1c/0x40\n"),
			    "WARNING in fake_fn");
	/* another CPU, PID, line and offset: the same bug */
	assert_string_equal(title("WARNING: CPU: 3 PID: 1201 at lib/fake_crash.c:14 "
				  "fake_fn.cold+0x2/0x9\r\n"), "WARNING in fake_fn");
	/* no symbol after the file: the file without its line */
	assert_string_equal(title("WARNING: CPU: 1 PID: 1 at kernel/fork.c:2245\n"),
			    "WARNING in kernel/fork.c");
}

/* printk's caller and loglevel fields do not change the title */
static void test_printk_fields(void **state)
{
	(void)state;
	assert_string_equal(title("[    3.101234][    T1] WARNING: CPU: 0 PID: 1 at "
				  "lib/fake_crash.c:12 fake_fn+0x1c/0x40\n"), "WARNING in fake_fn");
	assert_string_equal(title("<4>[    1.2][  C0] BUG: KASAN: slab-use-after-free in "
				  "sk_destruct+0x3a/0x90\n"),
			    "KASAN: slab-use-after-free in sk_destruct");
	assert_string_equal(title("<0>Kernel panic - not syncing: Fatal exception\n"),
			    title("Kernel panic - not syncing: Fatal exception\n"));
}

static void test_null_deref_takes_the_rip(void **state)
{
	const char *x86 =
		"[   12.5] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		"[   12.5] #PF: supervisor read access in kernel mode\n"
		"[   12.5] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
		"[   12.5] CPU: 1 PID: 312 Comm: sock-filter-chu Not tainted 6.1.0 #1\n"
		"[   12.5] RIP: 0010:sk_filter_trim_cap+0x3e/0x220\n"
		"[   12.5] Call Trace:\n";
	const char *arm64 =
		"BUG: kernel NULL pointer dereference, address: 0000000000000010\n"
		"Internal error: Oops: 0000000096000004 [#1] SMP\n"
		"pc : sk_filter_trim_cap+0x48/0x260\n"
		"lr : sk_filter_trim_cap+0x40/0x260\n";

	(void)state;
	assert_string_equal(title(x86), "BUG: kernel NULL pointer dereference in sk_filter_trim_cap");
	assert_string_equal(title(arm64), title(x86));
	/* a user-space RIP is no function */
	assert_string_equal(title("BUG: unable to handle page fault for address: ffffc90000abc000\n"
				  "RIP: 0033:0x7f12345678\n"),
			    "BUG: unable to handle page fault");
}

static void test_kasan_ubsan_panic_lockups(void **state)
{
	(void)state;
	assert_string_equal(title("BUG: KASAN: slab-use-after-free in sk_destruct+0x4c/0x80\n"
				  "Read of size 8 at addr ffff888012345678 by task a/1\n"),
			    "KASAN: slab-use-after-free in sk_destruct");
	assert_string_equal(title("UBSAN: shift-out-of-bounds in lib/foo.c:12:3\n"),
			    "UBSAN: shift-out-of-bounds in lib/foo.c");
	assert_string_equal(title("Kernel panic - not syncing: Attempted to kill init! "
				  "exitcode=0x00000009\n"),
			    "kernel panic: Attempted to kill init! exitcode=N");
	assert_string_equal(title("watchdog: BUG: soft lockup - CPU#0 stuck for 22s! [a:1]\n"
				  "RIP: 0010:delay_tsc+0x3a/0x90\n"),
			    "BUG: soft lockup in delay_tsc");
	assert_string_equal(title("kernel BUG at mm/slub.c:379!\n"), "kernel BUG at mm/slub.c");
	assert_string_equal(title("rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:\n"),
			    "INFO: rcu detected stall");
	assert_string_equal(title("INFO: task kworker/0:1:12 blocked for more than 120 seconds.\n"),
			    "INFO: task hung");
	assert_string_equal(title("Out of memory: Killed process 77 (stress)\n"), "out of memory");
}

static void test_bad_input(void **state)
{
	char t[8];

	(void)state;
	assert_int_equal(crash_title(NULL, t, sizeof(t)), -1);
	assert_int_equal(crash_title("", t, sizeof(t)), -1);
	assert_string_equal(t, "");
	/* a long title is cut, never past the buffer */
	assert_int_equal(crash_title("WARNING: CPU: 0 PID: 1 at a.c:1 a_very_long_function+0x1/0x2\n",
				     t, sizeof(t)), 0);
	assert_int_equal(strlen(t), sizeof(t) - 1);
	/* an unterminated line, control bytes */
	assert_string_equal(title("BUG: \x01weird\x7f thing"), "BUG: ?weird? thing");
}

static void test_matches(void **state)
{
	(void)state;
	assert_true(crash_title_matches("WARNING in fake_fn", "WARNING in fake_fn"));
	assert_true(crash_title_matches("WARNING in fake_fn", "fake_fn"));
	assert_false(crash_title_matches("WARNING in fake_other", "fake_fn"));
	assert_false(crash_title_matches(NULL, "fake_fn"));
	assert_false(crash_title_matches("WARNING in fake_fn", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warning),
		cmocka_unit_test(test_printk_fields),
		cmocka_unit_test(test_null_deref_takes_the_rip),
		cmocka_unit_test(test_kasan_ubsan_panic_lockups),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
