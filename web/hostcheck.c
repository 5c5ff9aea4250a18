// SPDX-License-Identifier: GPL-2.0-only
/* hostcheck.c: a request must name this daemon in its Host header, or
 * http.c refuses it (421) before any route sees it. A page of another
 * site that DNS rebinding points at 127.0.0.1 reaches the socket, but its
 * requests still carry that site's name. The names: localhost, 127.0.0.1,
 * [::1] and the listen address, with the daemon's port or none, and
 * [daemon] allowed_hosts (a reverse proxy's name). An HTTP/1.0 request
 * with no Host is served, as most servers do: every browser sends one, so
 * it is no page's request (http.c refuses HTTP/1.1 without one, 400, as
 * RFC 9112 says). Pure: no I/O. */
#include "web/hostcheck.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/util.h"

static int add(struct web_hosts *h, const char *name, int port, int portless)
{
	struct web_host_rule *r = realloc(h->rules, (h->n + 1) * sizeof(*r));

	if (!r)
		return -1;
	h->rules = r;
	r += h->n++;
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->port = port;
	r->portless = portless;
	return 0;
}

/* 0.0.0.0, :: (any spelling) */
static int wildcard(const char *addr)
{
	unsigned char a[sizeof(struct in6_addr)], zero[sizeof(struct in6_addr)] = { 0 };

	if (inet_pton(AF_INET, addr, a) == 1)
		return !memcmp(a, zero, 4);
	if (inet_pton(AF_INET6, addr, a) == 1)
		return !memcmp(a, zero, sizeof(a));
	return 0;
}

/* The daemon's own names, with its port or none */
static int add_own(struct web_hosts *h, const char *listen_addr)
{
	static const char *const own[] = { "localhost", "127.0.0.1", "::1" };
	char name[WEB_HOST_NAME_MAX];
	int listed = 0, extra, v6;

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		if (add(h, own[i], 0, 1) < 0)
			return -1;
		listed |= listen_addr && !strcasecmp(listen_addr, own[i]);
	}
	extra = listen_addr && !listed && !wildcard(listen_addr);
	v6 = extra && strchr(listen_addr, ':');
	if (extra) {
		snprintf(name, sizeof(name), "%s", listen_addr);
		for (char *p = name; *p; p++)
			*p = (char)(*p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		if (add(h, name, 0, 1) < 0)
			return -1;
	}
	snprintf(h->names, sizeof(h->names), "localhost, 127.0.0.1, [::1]%s%s%.100s%s",
		 extra ? ", " : "", v6 ? "[" : "", extra ? listen_addr : "", v6 ? "]" : "");
	return 0;
}

int web_hosts_init(struct web_hosts *h, const char *listen_addr, const char *allowed, char *msg,
		   size_t msgn)
{
	char *dup = allowed ? strdup(allowed) : NULL, *save = NULL;
	size_t own;
	int rc = 0;

	memset(h, 0, sizeof(*h));
	if ((allowed && !dup) || add_own(h, listen_addr) < 0) {
		snprintf(msg, msgn, "allowed hosts: out of memory");
		free(dup);
		return -1;
	}
	own = h->n;
	for (char *t = dup ? strtok_r(dup, ", \t", &save) : NULL; t; t = strtok_r(NULL, ", \t", &save)) {
		char name[WEB_HOST_NAME_MAX];
		int p;

		if (parse_hostport(t, name, sizeof(name), &p) < 0) {
			snprintf(msg, msgn, "allowed_hosts: '%.100s' is not NAME[:PORT]", t);
			rc = -1;
			break;
		}
		if (add(h, name, p, p < 0) < 0) {
			snprintf(msg, msgn, "allowed hosts: out of memory");
			rc = -1;
			break;
		}
	}
	free(dup);
	if (rc < 0) {
		web_hosts_release(h);
		return -1;
	}
	snprintf(h->names + strlen(h->names), sizeof(h->names) - strlen(h->names),
		 " with the daemon's port or none%s", h->n > own ?
		 ", and the names of [daemon] allowed_hosts" : "");
	return 0;
}

void web_hosts_release(struct web_hosts *h)
{
	free(h->rules);
	h->rules = NULL;
	h->n = 0;
}

int web_hosts_allow(const struct web_hosts *h, const char *host, int own_port)
{
	char name[WEB_HOST_NAME_MAX];
	int port;

	if (!host)
		return 1;
	if (parse_hostport(host, name, sizeof(name), &port) < 0)
		return 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct web_host_rule *r = &h->rules[i];

		if (strcmp(r->name, name))
			continue;
		if (port < 0 ? r->portless : r->port < 0 || (r->port ? r->port : own_port) == port)
			return 1;
	}
	return 0;
}
