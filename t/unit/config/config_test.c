// SPDX-License-Identifier: GPL-2.0-only
/* config_test.c: unit tests for config/config.c, kfleetd's INI
 * configuration: the embedded defaults, a file that sets every key, the
 * "file:line: message" errors for each kind of bad input (all of them
 * reported, with the right lines), and the golden config_print() output
 * t/data/config-full.ini -> config-full.out (REGENERATE=1 rewrites it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/util.h"
#include "images/images.h"
#include "config/config.h"
#include "t/unit/testutil.h"
#include "watch/watch.h"

struct fixture {
	char dir[128];
	char *file;          /* dir/kfleetd.conf */
	struct config c;
	struct buf err;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	watch_config_register();
	tu_tmpdir(f->dir, sizeof(f->dir), "config");
	f->file = tu_path(f->dir, "kfleetd.conf");
	if (config_defaults(&f->c) < 0)
		return -1;
	buf_init(&f->err, 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	config_release(&f->c);
	buf_release(&f->err);
	tu_rmrf(f->dir);
	free(f->file);
	free(f);
	return 0;
}

/* Loads text as the config file; returns config_load's result. */
static int load(struct fixture *f, const char *text)
{
	tu_write_str(f->file, text);
	buf_reset(&f->err);
	return config_load(&f->c, f->file, &f->err);
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* err must hold a line "FILE:LINE: ..." that contains what */
static void expect_error(struct fixture *f, int line, const char *what)
{
	char prefix[256];
	const char *e = buf_str(&f->err), *p;

	snprintf(prefix, sizeof(prefix), "%s:%d: ", f->file, line);
	for (p = e; (p = strstr(p, prefix)); p++) {
		size_t len = strcspn(p, "\n");
		char *l = strndup(p, len);
		int hit = strstr(l, what) != NULL;

		free(l);
		if (hit)
			return;
	}
	fail_msg("no error '%s...%s' in:\n%s", prefix, what, e);
}

static void test_defaults(void **state)
{
	struct fixture *f = *state;
	char *exe = exe_dir(), *p;

	assert_null(f->c.path);
	assert_string_equal(f->c.state_dir, "./var");
	assert_string_equal(f->c.listen_addr, "127.0.0.1");
	assert_int_equal(f->c.listen_port, 8080);
	assert_int_equal(f->c.log_level, LOG_LVL_INFO);
	assert_int_equal(f->c.nhosts, 1);
	assert_string_equal(f->c.hosts[0].name, "local");
	assert_string_equal(f->c.hosts[0].uri, "qemu:///system");
	assert_string_equal(f->c.hosts[0].accel, "auto");
	assert_true(f->c.hosts[0].slots >= 1);
	assert_int_equal(f->c.hosts[0].cpus, -1);   /* auto: the host's */
	assert_int_equal(f->c.reserve_after_s, 60);
	assert_int_equal(f->c.run_memory_mb, 512);
	assert_int_equal(f->c.run_timeout_s, 300);
	assert_int_equal(f->c.boot_timeout_s, 120);
	assert_int_equal(f->c.max_attempts, 2);
	assert_true(f->c.console_max == 16ULL << 20);
	assert_true(f->c.output_max == 4ULL << 20);
	assert_true(f->c.results_stream == IMG_RESULTS_STREAM_MAX);
	assert_string_equal(f->c.busybox, "/bin/busybox");
	assert_string_equal(f->c.agent_dir, exe);
	p = config_db_path(&f->c);
	assert_string_equal(p, "./var/kfleet.db");
	free(p);
	p = config_token_path(&f->c);
	assert_string_equal(p, "./var/token");
	free(p);
	free(exe);
}

static void test_full_file(void **state)
{
	struct fixture *f = *state;
	const char *path = TU_DATA "config-full.ini";

	if (config_load(&f->c, path, &f->err) < 0)
		fail_msg("%s", buf_str(&f->err));
	assert_string_equal(buf_str(&f->err), "");
	assert_string_equal(f->c.path, path);
	assert_string_equal(f->c.state_dir, "/srv/kfleet/state");
	assert_string_equal(f->c.listen_addr, "::1");
	assert_int_equal(f->c.listen_port, 9000);
	assert_int_equal(f->c.log_level, LOG_LVL_DEBUG);
	/* the default host "local" is gone, the two from the file are there */
	assert_int_equal(f->c.nhosts, 2);
	assert_string_equal(f->c.hosts[0].name, "builder-1");
	assert_string_equal(f->c.hosts[0].uri, "qemu+ssh://root@builder-1.example.org/system");
	assert_int_equal(f->c.hosts[0].slots, 8);
	assert_int_equal(f->c.hosts[0].cpus, 64);
	assert_string_equal(f->c.hosts[0].accel, "kvm");
	assert_string_equal(f->c.hosts[1].name, "tcg.box_2");
	assert_string_equal(f->c.hosts[1].uri, "qemu:///session");
	assert_int_equal(f->c.hosts[1].slots, 1);
	assert_int_equal(f->c.hosts[1].cpus, 0);
	assert_string_equal(f->c.hosts[1].accel, "tcg");
	assert_int_equal(f->c.run_memory_mb, 2048);
	assert_int_equal(f->c.run_timeout_s, 900);
	assert_int_equal(f->c.boot_timeout_s, 45);
	assert_int_equal(f->c.max_attempts, 3);
	assert_int_equal(f->c.reserve_after_s, 300);
	assert_true(f->c.console_max == 32ULL << 20);
	assert_true(f->c.output_max == 1536ULL << 10);
	assert_string_equal(f->c.busybox, "/opt/busybox/busybox-x86_64");
	assert_string_equal(f->c.agent_dir, "/usr/libexec/kfleet");
}

static void test_print_golden(void **state)
{
	struct fixture *f = *state;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	if (config_load(&f->c, TU_DATA "config-full.ini", &f->err) < 0)
		fail_msg("%s", buf_str(&f->err));
	out = open_memstream(&text, &len);
	assert_non_null(out);
	config_print(&f->c, out);
	fclose(out);
	tu_golden("config-full.out", text, len);
	free(text);
}

/* What config_print writes reads back to the same configuration. */
static void test_print_round_trip(void **state)
{
	struct fixture *f = *state;
	char *a = NULL, *b = NULL, *again = tu_path(f->dir, "again.conf");
	size_t alen = 0, blen = 0;
	struct config c2;
	FILE *out;

	if (config_load(&f->c, TU_DATA "config-full.ini", &f->err) < 0)
		fail_msg("%s", buf_str(&f->err));
	out = open_memstream(&a, &alen);
	config_print(&f->c, out);
	fclose(out);
	tu_write(again, a, alen, 0);
	assert_int_equal(config_defaults(&c2), 0);
	if (config_load(&c2, again, &f->err) < 0)
		fail_msg("%s", buf_str(&f->err));
	out = open_memstream(&b, &blen);
	config_print(&c2, out);
	fclose(out);
	/* the same but for the first line, which names the file */
	assert_string_equal(strchr(a, '\n'), strchr(b, '\n'));
	config_release(&c2);
	free(a);
	free(b);
	free(again);
}

static void test_listen_forms(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "[daemon]\nlisten = 0.0.0.0:80\n"), 0);
	assert_string_equal(f->c.listen_addr, "0.0.0.0");
	assert_int_equal(f->c.listen_port, 80);
	/* a port alone keeps the address */
	assert_int_equal(load(f, "[daemon]\nlisten = 8443\n"), 0);
	assert_string_equal(f->c.listen_addr, "0.0.0.0");
	assert_int_equal(f->c.listen_port, 8443);
	assert_int_equal(load(f, "[daemon]\nlisten = [fe80::1:2]:65535\n"), 0);
	assert_string_equal(f->c.listen_addr, "fe80::1:2");
	assert_int_equal(f->c.listen_port, 65535);
}

static void test_listen_bad(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"localhost", ":80", "1.2.3.4:", "1.2.3.4:65536", "1.2.3.4:-1", "::1:80",
		"[::1]80", "[]:80", "[::1:80", "1.2.3.4:80x", "65536", "",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128], want[64];

		snprintf(text, sizeof(text), "[daemon]\n\nlisten = %s\n", bad[i]);
		if (load(f, text) == 0)
			fail_msg("listen '%s' was accepted", bad[i]);
		snprintf(want, sizeof(want), "listen: '%s' is not IP-ADDRESS:PORT", bad[i]);
		expect_error(f, 3, want);
		assert_int_equal(count_lines(buf_str(&f->err)), 1);
	}
	/* nothing of the bad values stuck */
	assert_string_equal(f->c.listen_addr, "127.0.0.1");
	assert_int_equal(f->c.listen_port, 8080);
}

static void test_allowed_hosts(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"evil.example/x", "h:0", "h:65536", "[::1", "::1", "h:80:81", "caf\xc3\xa9",
		"[fe80::1%25eth0]", "h:x",
	};

	assert_null(f->c.allowed_hosts);
	/* blanks or commas between; names lowercased, IPv6 in brackets */
	assert_int_equal(load(f, "[daemon]\nallowed_hosts = Kfleet.Example:443, [::1]:8443\tproxy\n"), 0);
	assert_string_equal(f->c.allowed_hosts, "kfleet.example:443 [::1]:8443 proxy");
	assert_int_equal(load(f, "[daemon]\nallowed_hosts =\n"), 0);
	assert_null(f->c.allowed_hosts);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[128], want[96];

		snprintf(text, sizeof(text), "[daemon]\nallowed_hosts = ok.example %s\n", bad[i]);
		if (load(f, text) == 0)
			fail_msg("allowed_hosts '%s' was accepted", bad[i]);
		snprintf(want, sizeof(want), "allowed_hosts: '%s' is not NAME[:PORT]", bad[i]);
		expect_error(f, 2, want);
		assert_int_equal(count_lines(buf_str(&f->err)), 1);
		assert_null(f->c.allowed_hosts);
	}
}

/* public_url: an http(s) URL, its trailing '/' dropped, its NAME[:PORT]
 * kept for the Host check; anything a link built on it would carry
 * further (a user, a query, a quote, a blank) is refused, saying where */
static void test_public_url(void **state)
{
	struct fixture *f = *state;
	static const struct { const char *url, *err; } bad[] = {
		{ "ftp://kfleet.example", "is not an http:// or https:// URL" },
		{ "kfleet.example", "is not an http:// or https:// URL" },
		{ "https://user@kfleet.example/", "byte 13 (0x40) is not allowed" },
		{ "https://kfleet.example/?x=1", "byte 24 (0x3f) is not allowed" },
		{ "https://kfleet.example/\"><script>", "byte 24 (0x22) is not allowed" },
		{ "https://kfleet.example/a b", "byte 25 (0x20) is not allowed" },
		{ "https://kfleet.example:0/", "'kfleet.example:0' is not NAME[:PORT]" },
		{ "https:///x", "'' is not NAME[:PORT]" },
	};

	assert_null(f->c.public_url);
	assert_int_equal(load(f, "[daemon]\npublic_url = https://CI.Example.org:8443/kfleet//\n"), 0);
	assert_string_equal(f->c.public_url, "https://CI.Example.org:8443/kfleet");
	assert_string_equal(f->c.public_host, "ci.example.org:8443");
	assert_int_equal(load(f, "[daemon]\npublic_url = http://[::1]\n"), 0);
	assert_string_equal(f->c.public_url, "http://[::1]");
	assert_string_equal(f->c.public_host, "[::1]");
	assert_int_equal(load(f, "[daemon]\npublic_url =\n"), 0);
	assert_null(f->c.public_url);
	assert_null(f->c.public_host);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[160];

		snprintf(text, sizeof(text), "[daemon]\npublic_url = %s\n", bad[i].url);
		if (load(f, text) == 0)
			fail_msg("public_url '%s' was accepted", bad[i].url);
		expect_error(f, 2, bad[i].err);
		assert_null(f->c.public_url);
	}
}

/* A listen address off loopback is said to expose the pages and the API */
static void test_listen_exposed(void **state)
{
	struct fixture *f = *state;
	static const char *const loopback[] = { "127.0.0.1:1", "127.1.2.3:1", "[::1]:1",
						"[::ffff:127.0.0.1]:1" };
	static const char *const exposed[] = { "0.0.0.0:8080", "[::]:1", "10.1.2.3:1",
					       "[fe80::1]:1", "128.0.0.1:1" };
	char msg[512];

	assert_int_equal(config_listen_exposed(&f->c, msg, sizeof(msg)), 0);
	for (size_t i = 0; i < sizeof(loopback) / sizeof(loopback[0]); i++) {
		char text[64];

		snprintf(text, sizeof(text), "[daemon]\nlisten = %s\n", loopback[i]);
		assert_int_equal(load(f, text), 0);
		if (config_listen_exposed(&f->c, msg, sizeof(msg)))
			fail_msg("listen %s is loopback, yet: %s", loopback[i], msg);
	}
	for (size_t i = 0; i < sizeof(exposed) / sizeof(exposed[0]); i++) {
		char text[64], want[64];

		snprintf(text, sizeof(text), "[daemon]\nlisten = %s\n", exposed[i]);
		assert_int_equal(load(f, text), 0);
		assert_int_equal(config_listen_exposed(&f->c, msg, sizeof(msg)), 1);
		snprintf(want, sizeof(want), "listen = %s is not a loopback address", exposed[i]);
		assert_non_null(strstr(msg, want));
		assert_non_null(strstr(msg, "reachable from the network, and the token is the "
				       "only guard"));
	}
	/* a wildcard address: what a Host must then be */
	assert_int_equal(load(f, "[daemon]\nlisten = 0.0.0.0:80\n"), 0);
	config_listen_exposed(&f->c, msg, sizeof(msg));
	assert_non_null(strstr(msg, "allowed_hosts"));
}

/* One bad line each: the error names the file and the line. */
static void test_error_lines(void **state)
{
	struct fixture *f = *state;
	static const struct {
		const char *text;
		int line;
		const char *what;
	} cases[] = {
		{ "[daemon]\nstate_dir = /x\ncolour = blue\n", 3, "[daemon]: unknown key 'colour'" },
		{ "[run]\n\n\ntimeout = 1\nmemory_mb = lots\n", 5,
		  "memory_mb: 'lots' is not a whole number from 64 to 4194304" },
		{ "[run]\nmax_attempts = 11\n", 2, "max_attempts: '11' is not a whole number" },
		{ "[run]\ntimeout = 0\n", 2, "timeout: '0' is not a whole number from 1" },
		{ "[run]\nboot_timeout = 12s\n", 2, "boot_timeout: '12s'" },
		{ "# comment\n[run]\nconsole_max = 12Q\n", 3,
		  "console_max: '12Q' is not a size of at least 4096 bytes" },
		{ "[run]\noutput_max = 1000\n", 2, "output_max: '1000' is not a size of at least 1024" },
		{ "[run]\nresults_stream = 2G\n", 2, "results_stream: '2G' is over 1G" },
		{ "[run]\nbogus = 1\n", 2, "[run]: unknown key 'bogus'" },
		{ "[host a]\nuri = qemu:///system\naccel = hvf\n", 3, "accel: 'hvf' is not auto, kvm or tcg" },
		{ "[host a]\nslots = 0\n", 2, "slots: '0' is not a whole number from 1 to 1024" },
		{ "[host a]\nuri = qemu:///system\ncpus = many\n", 3,
		  "cpus: 'many' is not auto or a whole number from 0 (not counted)" },
		{ "[host a]\ncpus = -1\n", 2, "cpus: '-1' is not auto or a whole number" },
		{ "[run]\nreserve_after = 1m\n", 2,
		  "reserve_after: '1m' is not a whole number from 0 to 604800" },
		{ "[host a]\ntransfer = nfs\n", 2, "transfer: 'nfs' is not auto, files or upload" },
		{ "[host a]\npool = -x\n", 2, "pool: '-x' is not a pool name" },
		{ "[host a]\nfirmware = ovmf\n", 2, "firmware: 'ovmf' is not seabios or qboot" },
		{ "[host a]\nboot = faster\n", 2, "boot: 'faster' is not default or fast" },
		{ "[host a]\nkernel_args = a\tb\n", 2, "kernel_args: byte 2 (0x09) is not printable ASCII" },
		{ "[host a]\nkernel_args = mitigations=off \xc3\xa9\n", 2, "kernel_args: byte 17 (0xc3) is not printable ASCII" },
		{ "[host a]\npool_path = pool\n", 2, "pool_path: 'pool' is not an absolute path" },
		{ "[host a]\nconnect_timeout = 0\n", 2, "connect_timeout: '0' is not a whole number from 1 to 3600" },
		{ "[host a]\nuri = /var/run/libvirt\n", 2, "uri: '/var/run/libvirt' is not a libvirt URI" },
		{ "[host a]\nmemory = 1\n", 2, "[host a]: unknown key 'memory'" },
		{ "[daemon]\nlisten = nowhere\n", 2, "listen: 'nowhere' is not IP-ADDRESS:PORT" },
		{ "[daemon]\nlog_level = loud\n", 2, "log_level: 'loud' is not debug, info, warn or error" },
		{ "[daemon]\nstate_dir =\n", 2, "state_dir: must not be empty" },
		{ "[image]\nkernel = /boot/vmlinuz\n", 2, "[image]: unknown key 'kernel'" },
		{ "stray = 1\n[daemon]\n", 1, "'stray' is outside any section" },
		{ "[daemon]\nlog_level = info\nthis line has no equals sign\n", 3, "syntax error" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		config_release(&f->c);
		assert_int_equal(config_defaults(&f->c), 0);
		if (load(f, cases[i].text) == 0)
			fail_msg("case %zu was accepted:\n%s", i, cases[i].text);
		expect_error(f, cases[i].line, cases[i].what);
		if (count_lines(buf_str(&f->err)) != 1)
			fail_msg("case %zu: expected one error, got:\n%s", i, buf_str(&f->err));
	}
}

/* A broken section header is a syntax error; the keys after it are then
 * outside any section, and that is said too. */
static void test_error_broken_header(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "[daemon\nlog_level = info\n"), -1);
	expect_error(f, 1, "syntax error");
	expect_error(f, 2, "'log_level' is outside any section");
	assert_int_equal(count_lines(buf_str(&f->err)), 2);
}

/* Every syntax error is reported, not only the first. */
static void test_two_syntax_errors(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "[daemon]\nfirst bad line\nlog_level = info\nsecond bad line\n"),
			 -1);
	expect_error(f, 2, "syntax error");
	expect_error(f, 4, "syntax error");
	assert_int_equal(count_lines(buf_str(&f->err)), 2);
}

/* An unknown section is one mistake, on the line of its header, however
 * many keys follow it. */
static void test_error_unknown_section(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "[daemon]\nlog_level = info\n[nosuch]\na = 1\nb = 2\n"), -1);
	expect_error(f, 3, "unknown section '[nosuch]'");
	assert_int_equal(count_lines(buf_str(&f->err)), 1);
}

/* A bad host name likewise: one error at the [host ...] line. */
static void test_error_bad_host_name(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(load(f, "[host bad name!]\nuri = qemu:///system\nslots = 2\n"), -1);
	expect_error(f, 1, "host name 'bad name!' must be 1-32 letters");
	assert_int_equal(count_lines(buf_str(&f->err)), 1);
	/* a bad host never replaced the default one */
	assert_int_equal(f->c.nhosts, 1);
	assert_string_equal(f->c.hosts[0].name, "local");
}

static void test_host_names(void **state)
{
	struct fixture *f = *state;

	/* 32 characters is the longest name */
	assert_int_equal(load(f, "[host abcdefghijklmnopqrstuvwxyz-_.123]\nslots = 3\n"), 0);
	assert_int_equal(f->c.nhosts, 1);
	assert_string_equal(f->c.hosts[0].name, "abcdefghijklmnopqrstuvwxyz-_.123");
	assert_int_equal(f->c.hosts[0].slots, 3);
	assert_int_equal(load(f, "[host abcdefghijklmnopqrstuvwxyz-_.1234]\nslots = 3\n"), -1);
	assert_non_null(strstr(buf_str(&f->err),
			       "host name 'abcdefghijklmnopqrstuvwxyz-_.1234' must be"));
	/* the same name twice is one host */
	config_release(&f->c);
	assert_int_equal(config_defaults(&f->c), 0);
	assert_int_equal(load(f, "[host x]\nslots = 3\n[host y]\n[host x]\naccel = tcg\n"), 0);
	assert_int_equal(f->c.nhosts, 1);
	assert_string_equal(f->c.hosts[0].name, "x");
	assert_int_equal(f->c.hosts[0].slots, 3);
	assert_string_equal(f->c.hosts[0].accel, "tcg");
	/* "[host]" without a name is not a host section */
	assert_int_equal(load(f, "[host]\nuri = qemu:///system\n"), -1);
	assert_non_null(strstr(buf_str(&f->err), "unknown section '[host]'"));
}

/* Every problem in a file is reported, each with its own line. */
static void test_several_errors(void **state)
{
	struct fixture *f = *state;
	const char *text =
		"[daemon]\n"                      /* 1 */
		"listen = 127.0.0.1:99999\n"      /* 2 */
		"colour = blue\n"                 /* 3 */
		"[run]\n"                         /* 4 */
		"memory_mb = lots\n"              /* 5 */
		"console_max = 12Q\n"             /* 6 */
		"timeout = 60\n"                  /* 7: fine */
		"[host a]\n"                      /* 8 */
		"accel = hvf\n"                   /* 9 */
		"[image]\n"                       /* 10 */
		"busybox = /bin/busybox\n"        /* 11: fine */
		"agent = /x\n";                   /* 12 */

	assert_int_equal(load(f, text), -1);
	expect_error(f, 2, "listen: '127.0.0.1:99999'");
	expect_error(f, 3, "unknown key 'colour'");
	expect_error(f, 5, "memory_mb: 'lots'");
	expect_error(f, 6, "console_max: '12Q'");
	expect_error(f, 9, "accel: 'hvf'");
	expect_error(f, 12, "[image]: unknown key 'agent'");
	assert_int_equal(count_lines(buf_str(&f->err)), 6);
}

/* A syntax error does not hide the other errors of the file. */
static void test_syntax_error_and_others(void **state)
{
	struct fixture *f = *state;
	const char *text =
		"[daemon]\n"                      /* 1 */
		"log_level = loud\n"              /* 2 */
		"no equals here\n"                /* 3 */
		"[run]\n"                         /* 4 */
		"timeout = soon\n";               /* 5 */

	assert_int_equal(load(f, text), -1);
	expect_error(f, 2, "log_level: 'loud'");
	expect_error(f, 3, "syntax error");
	expect_error(f, 5, "timeout: 'soon'");
	assert_int_equal(count_lines(buf_str(&f->err)), 3);
}

/* A value longer than inih's line buffer (200 bytes) must be read whole or
 * refused on its own line, and the lines after it keep their numbers. */
static void test_long_line(void **state)
{
	struct fixture *f = *state;
	char dir[301], text[512];
	int rc;

	memset(dir, 'd', sizeof(dir) - 1);
	dir[0] = '/';
	dir[sizeof(dir) - 1] = '\0';
	snprintf(text, sizeof(text), "[image]\nagent_dir = %s\n[run]\ntimeout = soon\n", dir);
	rc = load(f, text);
	assert_int_equal(rc, -1);
	expect_error(f, 4, "timeout: 'soon'");
	if (strstr(buf_str(&f->err), ":2: ") == NULL)
		assert_string_equal(f->c.agent_dir, dir);   /* accepted: then whole */
	assert_null(strstr(buf_str(&f->err), ":3: "));
	assert_null(strstr(buf_str(&f->err), ":5: "));
}

static void test_missing_file(void **state)
{
	struct fixture *f = *state;
	char *path = tu_path(f->dir, "no-such.conf"), want[512];

	assert_int_equal(config_load(&f->c, path, &f->err), -1);
	snprintf(want, sizeof(want), "%s: No such file or directory\n", path);
	assert_string_equal(buf_str(&f->err), want);
	/* nothing changed */
	assert_null(f->c.path);
	assert_string_equal(f->c.state_dir, "./var");
	free(path);
}

static void test_comments_and_spacing(void **state)
{
	struct fixture *f = *state;
	const char *text =
		"\xef\xbb\xbf# a BOM, comments and blank lines are fine\n"
		"; another comment\n"
		"\n"
		"[daemon]\n"
		"   state_dir   =   /srv/k   \n"
		"log_level=warn ; inline comment\n"
		"[run]\n"
		"output_max = 2m\n";

	if (load(f, text) < 0)
		fail_msg("%s", buf_str(&f->err));
	assert_string_equal(f->c.state_dir, "/srv/k");
	assert_int_equal(f->c.log_level, LOG_LVL_WARN);
	assert_true(f->c.output_max == 2ULL << 20);
	/* the default host stays when the file names none */
	assert_int_equal(f->c.nhosts, 1);
	assert_string_equal(f->c.hosts[0].name, "local");
	assert_string_equal(f->c.path, f->file);
}

/* [storage]: the defaults (no budget, no retention, 1 MiB large files),
 * and each bad value on its line */
static void test_storage_section(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(f->c.storage_budget, 0);
	assert_int_equal(f->c.storage_keep_days, 0);
	assert_int_equal(f->c.storage_large, 1 << 20);
	assert_int_equal(f->c.storage_keep_initrd, 0);
	assert_int_equal(load(f, "[host a]\n[storage]\nbudget = 2G\nkeep_days = 7\n"), 0);
	assert_int_equal(f->c.storage_budget, 2ULL << 30);
	assert_int_equal(f->c.storage_keep_days, 7);
	assert_int_equal(load(f, "[host a]\n[storage]\nbudget = lots\nkeep_days = -1\n"
			      "large = 0\ninterval = 0\nkeep_initrd = maybe\nsize = 1\n"), -1);
	expect_error(f, 3, "budget: 'lots' is not a size");
	expect_error(f, 4, "keep_days: '-1' is not a whole number from 0 to 100000");
	expect_error(f, 5, "large: '0' is not a size of at least 1 bytes");
	expect_error(f, 6, "interval: '0' is not a whole number from 1 to 86400");
	expect_error(f, 7, "keep_initrd: 'maybe' is not yes or no");
	expect_error(f, 8, "[storage]: unknown key 'size'");
	assert_int_equal(count_lines(buf_str(&f->err)), 6);
}

/* The config room keeps [watch NAME] sections as written; what they mean
 * is watch/'s. A program that did not hand its checker over refuses them,
 * saying so, rather than taking keys nothing checked */
static void test_watch_needs_checker(void **state)
{
	struct fixture *f = *state;
	const char *text = "[host local]\nuri = test:///default\n\n[watch bpf]\n"
			   "patchwork = https://patchwork.example\nproject = bpf\ntree = linux\n";

	config_watch_checker_set(NULL);
	assert_int_equal(load(f, text), -1);
	expect_error(f, 4, "[watch bpf]: this program does not read watches");
	config_release(&f->c);
	assert_int_equal(config_defaults(&f->c), 0);
	watch_config_register();
	if (load(f, text) < 0)
		fail_msg("%s", buf_str(&f->err));
	assert_int_equal(f->c.nwatches, 1);
	assert_string_equal(f->c.watches[0].name, "bpf");
	/* and a key it does not know is refused at its line */
	config_release(&f->c);
	assert_int_equal(config_defaults(&f->c), 0);
	assert_int_equal(load(f, "[host local]\nuri = test:///default\n[watch x]\ncolour = red\n"), -1);
	assert_non_null(strstr(buf_str(&f->err), ":4: [watch x]: "));
}

/* The keyword table is searched by bsearch(): it must be sorted, with no
 * key twice; and every key it has is in the full file config-full.ini */
static void test_keywords_sorted(void **state)
{
	const char *sec, *key, *psec = NULL, *pkey = NULL;
	char *full = tu_slurp(TU_DATA "config-full.ini", NULL);
	size_t i;

	assert_non_null(full);
	for (i = 0; (sec = config_keyword_at(i, &key)); i++) {
		char line[128];

		if (psec) {
			int r = strcmp(psec, sec);

			if (r > 0 || (r == 0 && strcmp(pkey, key) >= 0))
				fail_msg("keyword %zu: [%s] %s after [%s] %s", i, sec, key, psec, pkey);
		}
		snprintf(line, sizeof(line), "\n%s = ", key);
		if (!strstr(full, line))
			fail_msg("[%s] %s is not set in config-full.ini", sec, key);
		psec = sec;
		pkey = key;
	}
	assert_true(i > 50);
	free(full);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_defaults),
		T(test_full_file),
		T(test_print_golden),
		T(test_print_round_trip),
		T(test_listen_forms),
		T(test_listen_bad),
		T(test_allowed_hosts),
		T(test_public_url),
		T(test_listen_exposed),
		T(test_error_lines),
		T(test_error_broken_header),
		T(test_two_syntax_errors),
		T(test_error_unknown_section),
		T(test_error_bad_host_name),
		T(test_host_names),
		T(test_several_errors),
		T(test_syntax_error_and_others),
		T(test_long_line),
		T(test_missing_file),
		T(test_comments_and_spacing),
		T(test_storage_section),
		T(test_watch_needs_checker),
		T(test_keywords_sorted),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
