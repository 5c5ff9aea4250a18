/* SPDX-License-Identifier: GPL-2.0-only */
/* hostcheck.h: the names a request's Host header may give (hostcheck.c) */
#ifndef KF_WEB_HOSTCHECK_H
#define KF_WEB_HOSTCHECK_H

#include <stddef.h>

#define WEB_HOST_NAME_MAX 256

struct web_host_rule {
	char name[WEB_HOST_NAME_MAX];  /* lowercase; an IPv6 address without brackets */
	int port;                      /* -1: any; 0: the daemon's */
	int portless;                  /* a Host without a port matches too */
};

struct web_hosts {
	struct web_host_rule *rules;
	size_t n;
	char names[512];               /* what the refusal says it answers to */
};

/* The names a request may give: localhost, 127.0.0.1, ::1 and the listen
 * address (unless a wildcard one), with the daemon's port or none; and the
 * entries of allowed (NULL, or NAME[:PORT] separated by blanks or commas: a
 * NAME alone with any port or none, NAME:PORT with that port only).
 * 0, or -1 with msg (a bad entry, out of memory) */
int web_hosts_init(struct web_hosts *h, const char *listen_addr, const char *allowed, char *msg,
		   size_t msgn);
void web_hosts_release(struct web_hosts *h);
/* 1 when a request whose Host header is host, to the daemon listening on
 * own_port, is served, else 0. No Host at all (NULL: HTTP/1.0) is served:
 * a browser always sends one. */
int web_hosts_allow(const struct web_hosts *h, const char *host, int own_port);

#endif
