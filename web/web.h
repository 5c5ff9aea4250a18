/* SPDX-License-Identifier: GPL-2.0-only */
/* web.h: the status page and the JSON API, served with libmicrohttpd.
 * Reads come straight from the database (one connection per server thread);
 * the one call that changes state, POST /api/runs, needs the token and hands
 * the request to the orchestrator. */
#ifndef KF_WEB_H
#define KF_WEB_H

struct orch;
struct bisect_driver;
struct web;

struct web_opts {
	const char *listen_addr;  /* "127.0.0.1", "::1", "0.0.0.0" ... */
	int port;                 /* 0 picks a free port; see web_port() */
	const char *db_path;
	const char *token;        /* the bearer token state-changing calls need */
	struct orch *orch;        /* for orch_submit() */
	struct bisect_driver *bisect;  /* for bisect_submit(), or NULL */
	const char *kcidb_origin;      /* the KCIDB export's origin; NULL: "kfleet" */
	const char *allowed_hosts;     /* names a Host may give besides the daemon's own
					* (hostcheck.c): "NAME[:PORT] ...", or NULL */
	const char *public_url;        /* the base of the export's links; NULL: the
					* listen address ("http://ADDR:PORT") */
};

/* Starts serving in background threads. NULL with *err (caller frees). */
struct web *web_start(const struct web_opts *o, char **err);
int web_port(const struct web *w);
void web_stop(struct web *w);

#endif
