// SPDX-License-Identifier: GPL-2.0-only
/* host_fuzz.c: libFuzzer target for what an HTTP client's text meets first
 * and what masks secrets in text shown to it: a Host header through
 * parse_hostport() and web_hosts_allow() (web/hostcheck.c), and any text
 * through redact_secrets() (common/redact.c), which must give the same
 * text when run on what it gave (nothing left to mask).
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. -o host_fuzz \
 *       fuzz/host_fuzz.c web/hostcheck.c common/redact.c common/buf.c \
 *       common/util.c && ./host_fuzz -max_total_time=30 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/redact.h"
#include "common/util.h"
#include "web/hostcheck.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct web_hosts h;
	static int ready;
	char *s = malloc(size + 1), *r, *rr, name[WEB_HOST_NAME_MAX], msg[128];
	int port;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (!ready) {
		if (web_hosts_init(&h, "10.1.2.3", "kfleet.example proxy.example:8443 [fd00::5]:9000",
				   msg, sizeof(msg)) < 0)
			abort();
		ready = 1;
	}
	if (parse_hostport(s, name, sizeof(name), &port) == 0) {
		if (!name[0] || strlen(name) >= sizeof(name) || port == 0 || port > 65535 ||
		    strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789.-_:") != strlen(name))
			abort();
	} else if (web_hosts_allow(&h, s, 8080)) {
		abort();   /* a Host that does not parse is never served */
	}
	web_hosts_allow(&h, s, 8080);
	r = redact_secrets(s);
	if (r) {
		rr = redact_secrets(r);
		if (rr && strcmp(r, rr))
			abort();
		free(rr);
	}
	free(r);
	free(s);
	return 0;
}
