// SPDX-License-Identifier: GPL-2.0-only
/* util_test.c: unit tests for common/util.c: strict number and size
 * parsing (overflow, suffixes, junk), bounded file reads (head and tail),
 * atomic writes with their mode, path helpers and mkdir -p.
 * Each file test works in its own temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <limits.h>

#include "common/buf.h"
#include "common/util.h"
#include "t/unit/testutil.h"

static int setup(void **state)
{
	char *dir = malloc(128);

	if (!dir)
		return -1;
	tu_tmpdir(dir, 128, "util");
	*state = dir;
	return 0;
}

static int teardown(void **state)
{
	tu_rmrf(*state);
	free(*state);
	return 0;
}

/* --- parse_percent / parse_int / parse_size -------------------------------- */

static void test_parse_hostport(void **state)
{
	static const struct { const char *in, *name; int port; } ok[] = {
		{ "127.0.0.1:8080", "127.0.0.1", 8080 }, { "localhost", "localhost", -1 },
		{ "LocalHost:1", "localhost", 1 }, { "[::1]:65535", "::1", 65535 },
		{ "[::1]", "::1", -1 }, { "[::FFFF:127.0.0.1]", "::ffff:127.0.0.1", -1 },
		{ "kfleet.example.org", "kfleet.example.org", -1 }, { "a_b-c:443", "a_b-c", 443 },
	};
	static const char *const bad[] = {
		"", ":80", "[]", "[]:80", "::1", "::1:80", "[::1", "[::1]80", "[::1]:", "h:", "h:0",
		"h:65536", "h:-1", "h:+1", "h:8 0", "h:80x", "h h", "evil.example/x", "h:80:81",
		"[fe80::1%25eth0]", "[v6.zz]", "[1.2.3.4]", "h\r\nX: y", "caf\xc3\xa9",
	};
	char name[64], tiny[4];
	int port;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(parse_hostport(ok[i].in, name, sizeof(name), &port), 0);
		assert_string_equal(name, ok[i].name);
		assert_int_equal(port, ok[i].port);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_hostport(bad[i], name, sizeof(name), &port) == 0)
			print_error("'%s' was taken as '%s' port %d\n", bad[i], name, port);
		assert_int_equal(parse_hostport(bad[i], name, sizeof(name), &port), -1);
	}
	assert_int_equal(parse_hostport(NULL, name, sizeof(name), &port), -1);
	/* a name longer than the room is refused, not cut */
	assert_int_equal(parse_hostport("abcd", tiny, sizeof(tiny), &port), -1);
	assert_int_equal(parse_hostport("abc", tiny, sizeof(tiny), &port), 0);
}

static void test_parse_percent(void **state)
{
	static const char *const bad[] = {
		"", "%", "x", "-3", "+3", "3 %", " 3", "3%%", "1e1", ".", "1.2.3", "0", "0%", "0.0",
		"51", "50.5%", "3,5", "nan", "inf",
	};
	double v = -1;

	(void)state;
	assert_int_equal(parse_percent("3", 0.5, &v), 0);
	assert_true(v == 0.03);
	assert_int_equal(parse_percent("2.5%", 0.5, &v), 0);
	assert_true(v == 0.025);
	assert_int_equal(parse_percent(".5", 0.5, &v), 0);
	assert_true(v == 0.005);
	assert_int_equal(parse_percent("50%", 0.5, &v), 0);   /* the bound is inclusive */
	assert_true(v == 0.5);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 1234;
		if (parse_percent(bad[i], 0.5, &v) == 0)
			fail_msg("parse_percent accepted '%s'", bad[i]);
		assert_true(v == 1234);
	}
	assert_int_equal(parse_percent(NULL, 0.5, &v), -1);
}

static void test_parse_int_ok(void **state)
{
	long long v = -1;

	(void)state;
	assert_int_equal(parse_int("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_int("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_int("-17", -20, 0, &v), 0);
	assert_int_equal(v, -17);
	/* the bounds are inclusive */
	assert_int_equal(parse_int("10", 1, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_int("1", 1, 10, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(parse_int("9223372036854775807", 0, LLONG_MAX, &v), 0);
	assert_true(v == LLONG_MAX);
	assert_int_equal(parse_int("-9223372036854775808", LLONG_MIN, 0, &v), 0);
	assert_true(v == LLONG_MIN);
}

static void test_parse_int_rejects(void **state)
{
	static const char *const bad[] = {
		"", "x", "12x", "1 ", "0x10", "1.5", "1e3", "--1", "-", "12 34", "٣",
		"9223372036854775808",    /* LLONG_MAX + 1 */
		"-9223372036854775809",   /* LLONG_MIN - 1 */
		"99999999999999999999999",
	};
	long long v = 1234;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_int(bad[i], LLONG_MIN, LLONG_MAX, &v) == 0)
			fail_msg("parse_int accepted '%s' as %lld", bad[i], v);
		assert_int_equal(v, 1234);   /* *out untouched on error */
	}
	assert_int_equal(parse_int(NULL, 0, 10, &v), -1);
	assert_int_equal(parse_int("11", 0, 10, &v), -1);
	assert_int_equal(parse_int("0", 1, 10, &v), -1);
	assert_int_equal(parse_int("-1", 0, 10, &v), -1);
	assert_int_equal(v, 1234);
}

static void test_parse_size_ok(void **state)
{
	static const struct {
		const char *s;
		unsigned long long v;
	} ok[] = {
		{ "0", 0 }, { "512", 512 }, { "64K", 64ULL << 10 }, { "64k", 64ULL << 10 },
		{ "16M", 16ULL << 20 }, { "16m", 16ULL << 20 }, { "2G", 2ULL << 30 },
		{ "0G", 0 }, { "1K", 1024 },
		{ "18446744073709551615", ~0ULL },
		{ "17179869183G", 17179869183ULL << 30 },  /* the biggest G that fits */
	};
	unsigned long long v;

	(void)state;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		v = 1;
		if (parse_size(ok[i].s, &v) < 0)
			fail_msg("parse_size rejected '%s'", ok[i].s);
		if (v != ok[i].v)
			fail_msg("parse_size('%s') = %llu, want %llu", ok[i].s, v, ok[i].v);
	}
}

static void test_parse_size_rejects(void **state)
{
	static const char *const bad[] = {
		"", "K", "-1", " 1", "1 ", "1 K", "1T", "1KB", "1KK", "16MiB", "0x10", "1.5G",
		"+1", "18446744073709551616",                 /* 2^64 */
		"17179869184G",                               /* 2^64 */
		"18014398509481984K",                         /* 2^64 */
		"99999999999999999999999",
	};
	unsigned long long v = 77;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_size(bad[i], &v) == 0)
			fail_msg("parse_size accepted '%s' as %llu", bad[i], v);
		assert_true(v == 77);
	}
	assert_int_equal(parse_size(NULL, &v), -1);
}

/* --- files ---------------------------------------------------------------- */

static void test_read_file(void **state)
{
	const char *dir = *state;
	char *p = tu_path(dir, "f"), *big = tu_path(dir, "big"), data[200000];
	struct buf b = BUF_INIT(0);

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)('a' + i % 23);
	tu_write_str(p, "0123456789");
	/* the whole file, no truncation */
	assert_int_equal(read_file(p, &b, 100), 0);
	assert_string_equal(buf_str(&b), "0123456789");
	assert_int_equal(b.truncated, 0);
	/* exactly max: not truncated */
	buf_reset(&b);
	assert_int_equal(read_file(p, &b, 10), 0);
	assert_string_equal(buf_str(&b), "0123456789");
	assert_int_equal(b.truncated, 0);
	/* max below the size: the head, truncated */
	buf_reset(&b);
	assert_int_equal(read_file(p, &b, 4), 0);
	assert_string_equal(buf_str(&b), "0123");
	assert_int_equal(b.truncated, 1);
	/* max 0 */
	buf_reset(&b);
	assert_int_equal(read_file(p, &b, 0), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.truncated, 1);
	/* appends to what b holds */
	buf_reset(&b);
	buf_puts(&b, ">");
	assert_int_equal(read_file(p, &b, 3), 0);
	assert_string_equal(buf_str(&b), ">012");

	/* bigger than one 64 KiB chunk */
	tu_write(big, data, sizeof(data), 0);
	buf_reset(&b);
	assert_int_equal(read_file(big, &b, sizeof(data)), 0);
	assert_int_equal(b.len, sizeof(data));
	assert_memory_equal(b.data, data, sizeof(data));
	assert_int_equal(b.truncated, 0);
	buf_reset(&b);
	assert_int_equal(read_file(big, &b, 100000), 0);
	assert_int_equal(b.len, 100000);
	assert_memory_equal(b.data, data, 100000);
	assert_int_equal(b.truncated, 1);

	/* the buffer's own cap also marks it truncated, without failing */
	buf_release(&b);
	buf_init(&b, 5);
	assert_int_equal(read_file(big, &b, sizeof(data)), 0);
	assert_int_equal(b.len, 5);
	assert_int_equal(b.truncated, 1);
	buf_release(&b);

	/* errors keep errno */
	free(p);
	p = tu_path(dir, "missing");
	errno = 0;
	assert_int_equal(read_file(p, &b, 10), -1);
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_int_equal(read_file(dir, &b, 10), -1);   /* a directory */
	assert_int_equal(errno, EISDIR);
	buf_release(&b);
	free(p);
	free(big);
}

static void test_read_file_tail(void **state)
{
	const char *dir = *state;
	char *p = tu_path(dir, "console.log"), data[150000];
	struct buf b = BUF_INIT(0);

	tu_write_str(p, "line 1\nline 2\nline 3\n");
	assert_int_equal(read_file_tail(p, &b, 1000), 0);
	assert_string_equal(buf_str(&b), "line 1\nline 2\nline 3\n");
	assert_int_equal(b.truncated, 0);
	buf_reset(&b);
	assert_int_equal(read_file_tail(p, &b, 7), 0);
	assert_string_equal(buf_str(&b), "line 3\n");
	assert_int_equal(b.truncated, 1);
	buf_reset(&b);
	assert_int_equal(read_file_tail(p, &b, 21), 0);   /* exactly the size */
	assert_int_equal(b.len, 21);
	assert_int_equal(b.truncated, 0);

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	tu_write(p, data, sizeof(data), 0);
	buf_reset(&b);
	assert_int_equal(read_file_tail(p, &b, 70000), 0);
	assert_int_equal(b.len, 70000);
	assert_memory_equal(b.data, data + sizeof(data) - 70000, 70000);
	assert_int_equal(b.truncated, 1);

	free(p);
	p = tu_path(dir, "missing");
	assert_int_equal(read_file_tail(p, &b, 10), -1);
	assert_int_equal(errno, ENOENT);
	buf_release(&b);
	free(p);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void test_write_file(void **state)
{
	const char *dir = *state;
	char *p = tu_path(dir, "token"), *s;
	struct stat st;
	size_t n;
	mode_t old = umask(022);

	assert_int_equal(write_file(p, "secret\n", 7, 0600), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	s = tu_slurp(p, &n);
	assert_string_equal(s, "secret\n");
	free(s);
	/* replaces, and takes the new mode even though the umask would clear bits */
	umask(077);
	assert_int_equal(write_file(p, "other", 5, 0644), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);
	s = tu_slurp(p, &n);
	assert_int_equal(n, 5);
	assert_string_equal(s, "other");
	free(s);
	/* empty contents */
	assert_int_equal(write_file(p, "", 0, 0644), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_size, 0);
	umask(old);
	/* no temporary file is left behind */
	assert_int_equal(count_entries(dir), 1);
	free(p);

	/* a directory that does not exist: -1, nothing created */
	p = tu_path(dir, "no/such/file");
	errno = 0;
	assert_int_equal(write_file(p, "x", 1, 0644), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(count_entries(dir), 1);
	free(p);
}

/* A reader that opens the file while write_file replaces it sees the old or
 * the new contents, never a mix: the rename is the only change. */
static void test_write_file_atomic(void **state)
{
	const char *dir = *state;
	char *p = tu_path(dir, "f"), *s;
	int fd;
	size_t n;

	assert_int_equal(write_file(p, "old contents", 12, 0644), 0);
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(write_file(p, "new", 3, 0644), 0);
	{
		char got[32] = "";
		ssize_t r = read(fd, got, sizeof(got) - 1);

		assert_int_equal(r, 12);     /* the old inode is untouched */
		assert_string_equal(got, "old contents");
	}
	close(fd);
	s = tu_slurp(p, &n);
	assert_string_equal(s, "new");
	free(s);
	free(p);
}

/* --- paths ---------------------------------------------------------------- */

static void test_path_join(void **state)
{
	static const struct {
		const char *a, *b, *want;
	} cases[] = {
		{ "a", "b", "a/b" },
		{ "a/", "b", "a/b" },
		{ "/", "etc", "/etc" },
		{ "/var/lib/kfleet", "kfleet.db", "/var/lib/kfleet/kfleet.db" },
		{ "./var", "runs/42", "./var/runs/42" },
		{ "a", "", "a/" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = path_join(cases[i].a, cases[i].b);

		assert_non_null(s);
		assert_string_equal(s, cases[i].want);
		free(s);
	}
}

static void test_path_abs(void **state)
{
	char cwd[PATH_MAX], want[PATH_MAX + 32], *s;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	s = path_abs("/already/absolute");
	assert_string_equal(s, "/already/absolute");
	free(s);
	snprintf(want, sizeof(want), "%s/var", cwd);
	s = path_abs("var");
	assert_string_equal(s, want);
	free(s);
	s = path_abs("./var");
	assert_string_equal(s, want);
	free(s);
	/* need not exist */
	snprintf(want, sizeof(want), "%s/no/such/thing", cwd);
	s = path_abs("no/such/thing");
	assert_string_equal(s, want);
	assert_true(s[0] == '/');
	free(s);
}

static void test_exe_dir(void **state)
{
	char *d = exe_dir();
	struct stat st;

	(void)state;
	assert_non_null(d);
	assert_true(d[0] == '/');
	assert_int_equal(stat(d, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* this test binary lives in .../t/unit/common */
	assert_non_null(strstr(d, "/t/unit/common"));
	free(d);
}

/* --- mkdir_p -------------------------------------------------------------- */

static void test_mkdir_p(void **state)
{
	const char *dir = *state;
	char *p = tu_path(dir, "a/b/c/d"), *q;
	struct stat st;

	assert_int_equal(mkdir_p(p, 0755), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	/* again: already there is fine */
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	/* a trailing slash and a doubled one */
	p = tu_path(dir, "x//y/");
	assert_int_equal(mkdir_p(p, 0700), 0);
	free(p);
	p = tu_path(dir, "x/y");
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(p);
	/* a file in the way of a middle component */
	p = tu_path(dir, "file");
	tu_write_str(p, "x");
	q = tu_path(p, "sub/dir");
	assert_int_equal(mkdir_p(q, 0755), -1);
	assert_int_equal(errno, ENOTDIR);
	free(q);
	free(p);
	/* empty and too long */
	assert_int_equal(mkdir_p("", 0755), -1);
	{
		char longp[PATH_MAX + 10];

		memset(longp, 'a', sizeof(longp) - 1);
		longp[sizeof(longp) - 1] = '\0';
		assert_int_equal(mkdir_p(longp, 0755), -1);
		assert_int_equal(errno, ENAMETOOLONG);
	}
}

/* mkdir -p fails when the path exists as something else than a directory;
 * callers use mkdir_p(state_dir) and must not be told a file is a dir. */
static void test_mkdir_p_file_in_the_way(void **state)
{
	const char *dir = *state;
	char *p = tu_path(dir, "state");
	int rc;

	tu_write_str(p, "I am a file");
	rc = mkdir_p(p, 0755);
	free(p);
	assert_int_equal(rc, -1);
}

static void test_clocks(void **state)
{
	int64_t w = now_ms(), m1 = mono_ms(), m2;

	(void)state;
	assert_true(w > 1600000000000LL);   /* after 2020 */
	assert_true(w < 4102444800000LL);   /* before 2100 */
	usleep(20000);
	m2 = mono_ms();
	assert_true(m2 - m1 >= 19);
	assert_true(m2 - m1 < 5000);
}

static void test_path_inside(void **state)
{
	(void)state;
	assert_true(path_inside("/var/kf/builds/x", "/var/kf"));
	assert_true(path_inside("/var/kf/a", "/var/kf"));
	assert_false(path_inside("/var/kf", "/var/kf"));      /* strictly inside */
	assert_false(path_inside("/var/kfx/a", "/var/kf"));   /* a sibling with the prefix */
	assert_false(path_inside("/var", "/var/kf"));
	assert_true(path_inside("/x", "/"));
	assert_false(path_inside("/", "/"));
	assert_false(path_inside("/x", ""));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_percent),
		cmocka_unit_test(test_parse_hostport),
		cmocka_unit_test(test_path_inside),
		cmocka_unit_test(test_parse_int_ok),
		cmocka_unit_test(test_parse_int_rejects),
		cmocka_unit_test(test_parse_size_ok),
		cmocka_unit_test(test_parse_size_rejects),
		cmocka_unit_test_setup_teardown(test_read_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_file_tail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_file_atomic, setup, teardown),
		cmocka_unit_test(test_path_join),
		cmocka_unit_test(test_path_abs),
		cmocka_unit_test(test_exe_dir),
		cmocka_unit_test_setup_teardown(test_mkdir_p, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mkdir_p_file_in_the_way, setup, teardown),
		cmocka_unit_test(test_clocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
