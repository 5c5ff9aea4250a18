/* SPDX-License-Identifier: GPL-2.0-only */
/* web.h: the status page and the JSON API, served with libmicrohttpd.
 * Reads come straight from the database (one connection per server thread);
 * the calls that change state (POST) need the token and hand the request to
 * the orchestrator, or to the daemon (reload, shutdown). */
#ifndef KF_WEB_H
#define KF_WEB_H

struct orch;
struct bisect_driver;
struct web;
struct json_t;

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
	/* POST /api/reload and /api/shutdown (token) call the daemon back
	 * (NULL: 501). reload re-reads its config as SIGHUP does: 0 with
	 * *answer, a JSON object saying what changed (caller decrefs), or -1
	 * with *err (caller frees) when nothing changed (the file has errors);
	 * called from a server thread. shutdown stops the daemon as SIGTERM
	 * does; called once the answer is sent. */
	int (*reload)(void *arg, struct json_t **answer, char **err);
	void (*shutdown)(void *arg);
	void *control_arg;             /* their arg */
};

/* Starts serving in background threads. NULL with *err (caller frees). */
struct web *web_start(const struct web_opts *o, char **err);
int web_port(const struct web *w);
void web_stop(struct web *w);

#endif
