// SPDX-License-Identifier: GPL-2.0-only
/* hostcheck_test.c: unit tests for web/hostcheck.c: a request's Host must
 * name the daemon (localhost, 127.0.0.1, [::1], its listen address, with
 * its port or none) or an allowed_hosts entry, else it is refused; no Host
 * at all is served; a bad allowed_hosts entry is an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "web/hostcheck.h"

#define PORT 8080

static void expect(const struct web_hosts *h, const char *const *hosts, size_t n, int want)
{
	for (size_t i = 0; i < n; i++)
		if (web_hosts_allow(h, hosts[i], PORT) != want)
			fail_msg("Host '%s' was %s", hosts[i], want ? "refused" : "served");
}

static void test_own_names(void **state)
{
	static const char *const ok[] = {
		"127.0.0.1:8080", "127.0.0.1", "localhost:8080", "LOCALHOST", "[::1]:8080", "[::1]",
		"10.1.2.3:8080", "10.1.2.3",
	};
	static const char *const refused[] = {
		"evil.example", "evil.example:8080", "127.0.0.1:8081", "localhost:80", "[::1]:1",
		"10.1.2.3:9", "127.0.0.1.evil.example", "localhost.", "0.0.0.0:8080", "127.0.0.2:8080",
		"::1", "", "[::2]", "localhost:8080:8080", "local host", "10.1.2.3:08080x",
	};
	struct web_hosts h;
	char msg[256];

	(void)state;
	assert_int_equal(web_hosts_init(&h, "10.1.2.3", NULL, msg, sizeof(msg)), 0);
	expect(&h, ok, sizeof(ok) / sizeof(ok[0]), 1);
	expect(&h, refused, sizeof(refused) / sizeof(refused[0]), 0);
	/* no Host at all (HTTP/1.0): served */
	assert_int_equal(web_hosts_allow(&h, NULL, PORT), 1);
	/* the refusal says what it answers to */
	assert_non_null(strstr(h.names, "localhost, 127.0.0.1, [::1], 10.1.2.3 with the daemon's "
			       "port or none"));
	assert_null(strstr(h.names, "allowed_hosts"));
	/* the port asked of the connection is the one compared */
	assert_int_equal(web_hosts_allow(&h, "127.0.0.1:9999", 9999), 1);
	assert_int_equal(web_hosts_allow(&h, "127.0.0.1:8080", 9999), 0);
	web_hosts_release(&h);
}

static void test_wildcard_and_v6_listen(void **state)
{
	struct web_hosts h;
	char msg[256];

	(void)state;
	/* a wildcard address is no name */
	assert_int_equal(web_hosts_init(&h, "0.0.0.0", NULL, msg, sizeof(msg)), 0);
	assert_int_equal(web_hosts_allow(&h, "0.0.0.0:8080", PORT), 0);
	assert_int_equal(web_hosts_allow(&h, "127.0.0.1:8080", PORT), 1);
	web_hosts_release(&h);
	assert_int_equal(web_hosts_init(&h, "::", NULL, msg, sizeof(msg)), 0);
	assert_int_equal(web_hosts_allow(&h, "[::]:8080", PORT), 0);
	web_hosts_release(&h);
	/* an IPv6 listen address, in brackets as a Host gives it */
	assert_int_equal(web_hosts_init(&h, "FE80::1", NULL, msg, sizeof(msg)), 0);
	assert_int_equal(web_hosts_allow(&h, "[fe80::1]:8080", PORT), 1);
	assert_int_equal(web_hosts_allow(&h, "fe80::1", PORT), 0);
	assert_non_null(strstr(h.names, "[FE80::1]"));
	web_hosts_release(&h);
	/* a loopback listen address is not listed twice */
	assert_int_equal(web_hosts_init(&h, "127.0.0.1", NULL, msg, sizeof(msg)), 0);
	assert_int_equal(h.n, 3);
	web_hosts_release(&h);
}

static void test_allowed_hosts(void **state)
{
	static const char *const ok[] = {
		"kfleet.example.org", "kfleet.example.org:443", "KFLEET.example.org:1",
		"proxy.example:8443", "[fd00::5]:9000", "127.0.0.1:8080",
	};
	static const char *const refused[] = {
		"proxy.example", "proxy.example:443", "[fd00::5]", "[fd00::5]:9001",
		"sub.kfleet.example.org", "evil.example",
	};
	struct web_hosts h;
	char msg[256];

	(void)state;
	assert_int_equal(web_hosts_init(&h, "127.0.0.1", "kfleet.example.org, proxy.example:8443\t"
					 "[fd00::5]:9000", msg, sizeof(msg)), 0);
	expect(&h, ok, sizeof(ok) / sizeof(ok[0]), 1);
	expect(&h, refused, sizeof(refused) / sizeof(refused[0]), 0);
	assert_non_null(strstr(h.names, "and the names of [daemon] allowed_hosts"));
	web_hosts_release(&h);
	/* an empty list adds nothing */
	assert_int_equal(web_hosts_init(&h, "127.0.0.1", " , ", msg, sizeof(msg)), 0);
	assert_int_equal(h.n, 3);
	web_hosts_release(&h);
	/* a bad entry is an error that names it */
	assert_int_equal(web_hosts_init(&h, "127.0.0.1", "ok.example evil/x", msg, sizeof(msg)), -1);
	assert_string_equal(msg, "allowed_hosts: 'evil/x' is not NAME[:PORT]");
	assert_null(h.rules);
	web_hosts_release(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_own_names),
		cmocka_unit_test(test_wildcard_and_v6_listen),
		cmocka_unit_test(test_allowed_hosts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
