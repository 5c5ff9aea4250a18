// SPDX-License-Identifier: GPL-2.0-only
/* conlog_test.c: a console file that virtlogd rotates (orchestrator/
 * conlog.c), rotated here by hand the way virtlogd does it: every byte
 * counted across rotations, also several between two looks; the head
 * kept; the text for the scan in order; one file of head and tail left. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

static char dir[256], con[300];

/* virtlogd's rotation: .N-1 -> .N, ..., the file -> .0, a new file */
static void rotate(const char *fresh)
{
	char a[320], b[320];

	for (int i = 8; i > 0; i--) {
		snprintf(a, sizeof(a), "%s.%d", con, i - 1);
		snprintf(b, sizeof(b), "%s.%d", con, i);
		rename(a, b);
	}
	snprintf(a, sizeof(a), "%s.0", con);
	rename(con, a);
	tu_write_str(con, fresh);
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);

	memset(s, c, n);
	s[n] = 0;
	return s;
}

static void test_rotations_counted_and_kept(void **state)
{
	struct conlog l = { 0 };
	struct buf t = BUF_INIT(1u << 20);
	char *big = repeat('x', 3000);

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "conlog");
	snprintf(con, sizeof(con), "%s/console.log", dir);
	tu_write_str(con, "Linux version 6.1 boot log\n");
	conlog_poll(&l, con);
	assert_int_equal(conlog_total(&l), 27);
	/* it grows, then one rotation */
	tu_write(con, big, 3000, 1);
	rotate("WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\n");
	conlog_poll(&l, con);
	assert_int_equal(l.rotations, 1);
	assert_int_equal(conlog_total(&l), 27 + 3000 + 42);
	/* two rotations between two looks: the one followed and one never seen */
	rotate(big);
	rotate("tail\n");
	conlog_poll(&l, con);
	assert_int_equal(conlog_total(&l), 27 + 3000 + 42 + 3000 + 5);
	/* the scan sees the boot log first and the WARNING */
	assert_int_equal(conlog_text(&l, con, &t, 1u << 20), 0);
	assert_int_equal(strncmp(buf_str(&t), "Linux version", 13), 0);
	assert_non_null(strstr(buf_str(&t), "WARNING: CPU: 0"));
	assert_string_equal(buf_str(&t) + t.len - 5, "tail\n");
	buf_release(&t);
	/* one file is left: the head, a line saying what was left out, the tail */
	conlog_finish(&l, con, 2000);
	buf_init(&t, 1u << 20);
	assert_int_equal(read_file(con, &t, 1u << 20), 0);
	assert_int_equal(strncmp(buf_str(&t), "Linux version", 13), 0);
	assert_non_null(strstr(buf_str(&t), "[kfleet: the guest wrote 6074 bytes to its console"));
	assert_string_equal(buf_str(&t) + t.len - 5, "tail\n");
	/* the head (3027 bytes) and at least 4 KiB of tail, whatever max says */
	assert_true(t.len < 3027 + 4096 + 200);
	{
		char b0[320];

		snprintf(b0, sizeof(b0), "%s.0", con);
		assert_int_equal(access(b0, F_OK), -1);
	}
	buf_release(&t);
	free(big);
	tu_rmrf(dir);
}

static void test_no_rotation_is_capped(void **state)
{
	struct conlog l = { 0 };
	struct buf t = BUF_INIT(1u << 20);
	char *big = repeat('y', 5000);

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "conlog");
	snprintf(con, sizeof(con), "%s/console.log", dir);
	tu_write(con, big, 5000, 0);
	conlog_poll(&l, con);
	assert_int_equal(conlog_total(&l), 5000);
	conlog_finish(&l, con, 1000);
	assert_int_equal(read_file(con, &t, 1u << 20), 0);
	assert_non_null(strstr(buf_str(&t), "[kfleet: console cut at 1000 of 5000 bytes]"));
	buf_release(&t);
	free(big);
	tu_rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rotations_counted_and_kept),
		cmocka_unit_test(test_no_rotation_is_capped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
