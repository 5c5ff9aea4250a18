// SPDX-License-Identifier: GPL-2.0-only
/* http.c: kfleetd's HTTP server (libmicrohttpd, a small thread pool). It
 * receives requests with their bodies, bounded (an upload's bigger bound
 * only for a token holder, asked before the body is sent), refuses those
 * whose Host does not name it (hostcheck.c), and hands each
 * to the route table (routes.c); it starts and stops the server and owns
 * its state: the per-thread database connections and the reply cache. */
#include "web/web.h"
#include "web/cache.h"
#include "web/estimates.h"
#include "web/reply.h"
#include "web/routes.h"
#include "web/server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"

/* The last message libmicrohttpd logged while starting, for web_start's error */
static _Thread_local char start_msg[512];

static void on_mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];
	size_t n;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	snprintf(start_msg, sizeof(start_msg), "%s", msg);
	/* mostly malformed requests from clients: not worth the daemon's log
	 * (start-up failures reach web_start's caller through start_msg) */
	log_debug("web: %s", msg);
}

/* ---- the server ---- */

/* The port the daemon of connection c listens on (asked of the connection:
 * w->port is set after the server starts) */
static int own_port(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci = MHD_get_connection_info(c, MHD_CONNECTION_INFO_DAEMON);
	const union MHD_DaemonInfo *di = ci ? MHD_get_daemon_info(ci->daemon,
							       MHD_DAEMON_INFO_BIND_PORT) : NULL;

	return di ? di->port : -1;
}

/* A request that does not name this daemon in its Host: 421, in HTML for
 * a page and JSON for the API */
static enum MHD_Result refuse_host(struct web *w, struct MHD_Connection *c, const char *url,
				   const char *host)
{
	static const char fmt[] = "Host '%.100s' is not a name of this kfleetd, which answers to "
				  "%s: refused, so that a page of another site cannot reach it "
				  "by DNS rebinding";

	log_debug("web: %s: Host '%.100s' refused", url, host);
	if (!strncmp(url, "/api/", 5))
		return web_reply_error(c, MHD_HTTP_MISDIRECTED_REQUEST, fmt, host, w->hosts.names);
	return web_reply_html_error(c, MHD_HTTP_MISDIRECTED_REQUEST, fmt, host, w->hosts.names);
}

/* A new request: its body's bound, and the refusals that come before the
 * body is sent (the Host first: every route, page or API, GET or POST) */
static enum MHD_Result on_start(struct web *w, struct MHD_Connection *c, const char *url,
				const char *method, const char *version, void **con_cls)
{
	struct web_req *req = calloc(1, sizeof(*req));
	const char *cl, *why, *host;
	size_t max = web_route_body_max(url);
	long long n;

	if (!req)
		return MHD_NO;
	web_guard_request(&w->guard, c, 1);
	buf_init(&req->body, max);
	*con_cls = req;
	host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST);
	if (!host && strcmp(version, MHD_HTTP_VERSION_1_0))
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "%s request without a Host header",
				       version);
	if (!web_hosts_allow(&w->hosts, host, own_port(c)))
		return refuse_host(w, c, url, host);
	/* a big upload only from a token holder, asked before it is sent */
	if (max > WEB_BODY_MAX && !strcmp(method, MHD_HTTP_METHOD_POST) &&
	    web_check_token(w, c, &why) < 0)
		return web_reply_error(c, MHD_HTTP_UNAUTHORIZED, "missing or wrong token: %s", why);
	/* refuse a declared oversized body before it is sent */
	cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl && parse_int(cl, 0, LLONG_MAX, &n) == 0 && n > (long long)max)
		return web_reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
				       "request body: %lld bytes, more than the %d allowed", n, (int)max);
	return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct web *w = cls;
	struct web_req *req = *con_cls;

	if (!req)
		return on_start(w, c, url, method, version, con_cls);
	if (*upload_data_size) {
		if (!req->too_big && buf_append(&req->body, upload_data, *upload_data_size) < 0)
			req->too_big = 1;
		*upload_data_size = 0;
		return MHD_YES;
	}
	return web_route(w, c, method, url, req);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct web *w = cls;
	struct web_req *req = *con_cls;

	web_guard_request(&w->guard, c, 0);
	if (!req)
		return;
	/* after the answer to POST /api/shutdown went out (or its client left) */
	if (req->stop_after && w->shutdown)
		w->shutdown(w->control_arg);
	buf_release(&req->body);
	free(req);
	*con_cls = NULL;
}

/* "127.0.0.1", "::1" or "[::1]" into ss; 0 / -1 */
static int parse_addr(const char *s, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(s);
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (n >= sizeof(host))
		return -1;
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
		memcpy(host, s + 1, n - 2);
		host[n - 2] = '\0';
	} else {
		memcpy(host, s, n + 1);
	}
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof(*in4);
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*in6);
		return 0;
	}
	return -1;
}

struct web *web_start(const struct web_opts *o, char **err)
{
	struct web *w = NULL;
	struct sockaddr_storage ss;
	socklen_t sslen;
	const union MHD_DaemonInfo *info;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG;
	char msg[512];
	int key_made = 0;

	*err = NULL;
	msg[0] = '\0';
	if (!o->listen_addr || !o->db_path) {
		snprintf(msg, sizeof(msg), "web: listen address and database path are required");
		goto out;
	}
	if (o->port < 0 || o->port > 65535) {
		snprintf(msg, sizeof(msg), "web: port %d is out of range", o->port);
		goto out;
	}
	if (parse_addr(o->listen_addr, o->port, &ss, &sslen) < 0) {
		snprintf(msg, sizeof(msg), "web: listen address '%.200s' is not an IPv4 or IPv6 literal",
			 o->listen_addr);
		goto out;
	}
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;

	snprintf(msg, sizeof(msg), "web: out of memory");
	w = calloc(1, sizeof(*w));
	if (!w)
		goto out;
	pthread_mutex_init(&w->submit_lock, NULL);
	pthread_mutex_init(&w->dbs_lock, NULL);
	w->orch = o->orch;
	w->bisect = o->bisect;
	w->reload = o->reload;
	w->shutdown = o->shutdown;
	w->control_arg = o->control_arg;
	w->db_path = strdup(o->db_path);
	w->token = strdup(o->token ? o->token : "");
	snprintf(w->kcidb_origin, sizeof(w->kcidb_origin), "%s",
		 o->kcidb_origin ? o->kcidb_origin : "kfleet");
	if (!w->db_path || !w->token || pthread_key_create(&w->db_key, NULL) != 0)
		goto out;
	key_made = 1;

	start_msg[0] = '\0';
	if (web_hosts_init(&w->hosts, o->listen_addr, o->allowed_hosts, msg, sizeof(msg)) < 0)
		goto out;
	if (web_guard_start(&w->guard) < 0)
		goto out;
	w->mhd = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, w,
				  MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, w,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)WEB_POOL_THREADS,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)WEB_CONN_MAX,
				  MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)WEB_CONN_PER_CLIENT,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
				  MHD_OPTION_NOTIFY_CONNECTION, web_guard_notify, &w->guard,
				  MHD_OPTION_NOTIFY_COMPLETED, on_completed, w,
				  MHD_OPTION_END);
	if (!w->mhd) {
		int e = errno;

		snprintf(msg, sizeof(msg), "web: cannot listen on '%.100s' port %d: %.300s",
			 o->listen_addr, o->port, start_msg[0] ? start_msg : strerror(e));
		goto out;
	}
	info = MHD_get_daemon_info(w->mhd, MHD_DAEMON_INFO_BIND_PORT);
	w->port = info ? info->port : o->port;
	if (o->public_url)
		snprintf(w->link_base, sizeof(w->link_base), "%s", o->public_url);
	else
		snprintf(w->link_base, sizeof(w->link_base), "http://%s%s%s:%d",
			 strchr(o->listen_addr, ':') ? "[" : "", o->listen_addr,
			 strchr(o->listen_addr, ':') ? "]" : "", w->port);
	log_info("web: listening on '%s' port %d", o->listen_addr, w->port);
	msg[0] = '\0';
out:
	if (msg[0]) {
		*err = strdup(msg);
		if (w) {
			web_guard_stop(&w->guard);
			web_hosts_release(&w->hosts);
			if (key_made)
				pthread_key_delete(w->db_key);
			pthread_mutex_destroy(&w->submit_lock);
			pthread_mutex_destroy(&w->dbs_lock);
			free(w->db_path);
			free(w->token);
			free(w);
		}
		return NULL;
	}
	return w;
}

int web_port(const struct web *w)
{
	return w ? w->port : -1;
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	/* joins the server threads: no request uses a connection after this */
	MHD_stop_daemon(w->mhd);
	web_guard_stop(&w->guard);
	web_hosts_release(&w->hosts);
	for (size_t i = 0; i < w->ndbs; i++)
		db_close(w->dbs[i]);
	free(w->dbs);
	web_cache_free(w);
	web_estimates_free(w);
	pthread_key_delete(w->db_key);
	pthread_mutex_destroy(&w->submit_lock);
	pthread_mutex_destroy(&w->dbs_lock);
	free(w->db_path);
	free(w->token);
	free(w);
}
