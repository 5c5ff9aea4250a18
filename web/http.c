/* http.c: kfleetd's HTTP server (libmicrohttpd, a small thread pool). It
 * receives requests with their bounded bodies, hands /api/ to api.c and the
 * rest to pages.c, and holds what both use: one database connection per
 * server thread, the daemon's job set, the reply helpers, and the text
 * helpers that make guest output valid UTF-8 and safe HTML. */
#include "web/web.h"
#include "web/webint.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"

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

/* ---- per-thread database ---- */

struct db *web_db(struct web *w, char **err)
{
	struct db *db = pthread_getspecific(w->db_key);
	struct db **dbs;

	if (db)
		return db;
	db = db_open(w->db_path, err);
	if (!db)
		return NULL;
	pthread_mutex_lock(&w->dbs_lock);
	dbs = realloc(w->dbs, (w->ndbs + 1) * sizeof(*dbs));
	if (dbs) {
		dbs[w->ndbs++] = db;
		w->dbs = dbs;
	}
	pthread_mutex_unlock(&w->dbs_lock);
	if (!dbs || pthread_setspecific(w->db_key, db) != 0) {
		if (!dbs)
			db_close(db);
		/* when only setspecific failed, web_stop closes it */
		*err = strdup("out of memory");
		return NULL;
	}
	return db;
}

/* ---- the daemon's jobs ---- */

const struct job_set *web_jobs(const struct web *w)
{
	static const struct job_set none;

	return w->orch ? orch_jobs(w->orch) : &none;
}

/* ---- replies ---- */

static void add_common_headers(struct MHD_Response *r, const char *ctype)
{
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	if (!strncmp(ctype, "text/html", 9))
		MHD_add_response_header(r, "Content-Security-Policy",
					"default-src 'none'; style-src 'unsafe-inline'");
	else
		MHD_add_response_header(r, "Content-Security-Policy",
					"default-src 'none'; sandbox");
}

enum MHD_Result web_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			  struct buf *body)
{
	size_t len = body->len;
	char *data = buf_detach(body);
	struct MHD_Response *r;
	enum MHD_Result rc;

	if (!data)
		return MHD_NO;
	r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(data);
		return MHD_NO;
	}
	add_common_headers(r, ctype);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

enum MHD_Result web_reply_json(struct MHD_Connection *c, unsigned status, json_t *j)
{
	struct buf b = BUF_INIT(0);
	char *s;

	if (!j)
		return MHD_NO;
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	if (!s)
		return MHD_NO;
	if (buf_puts(&b, s) < 0 || buf_puts(&b, "\n") < 0) {
		free(s);
		buf_release(&b);
		return MHD_NO;
	}
	free(s);
	return web_reply(c, status, "application/json", &b);
}

struct db *web_db_or_reply(struct web *w, struct MHD_Connection *c, int html,
			   enum MHD_Result *rc)
{
	char *err = NULL;
	struct db *db = web_db(w, &err);

	if (!db)
		*rc = html ? web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
						  err ? err : "?")
			   : web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					     err ? err : "?");
	free(err);
	return db;
}

enum MHD_Result web_reply_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
	struct buf msg = BUF_INIT(4096);
	struct buf clean = BUF_INIT(0);
	json_t *j;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	web_utf8(&clean, buf_str(&msg), msg.len);
	j = json_pack("{s:s}", "error", buf_str(&clean));
	buf_release(&msg);
	buf_release(&clean);
	return web_reply_json(c, status, j);
}

enum MHD_Result web_reply_html_error(struct MHD_Connection *c, unsigned status,
				     const char *fmt, ...)
{
	struct buf msg = BUF_INIT(4096);
	struct buf b = BUF_INIT(0);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	buf_printf(&b, "<!doctype html>\n<html><head><meta charset=\"utf-8\">"
		   "<title>kfleet: %u</title></head><body>\n<h1>%u</h1>\n<p>", status, status);
	web_html(&b, buf_str(&msg), msg.len);
	buf_puts(&b, "</p>\n<p><a href=\"/\">all runs</a></p>\n</body></html>\n");
	buf_release(&msg);
	return web_reply(c, status, "text/html; charset=utf-8", &b);
}

enum MHD_Result web_reply_method(struct MHD_Connection *c, const char *allow, int json)
{
	struct buf b = BUF_INIT(0);
	struct MHD_Response *r;
	const char *ctype = json ? "application/json" : "text/plain; charset=utf-8";
	enum MHD_Result rc;
	size_t len;
	char *data;

	buf_printf(&b, json ? "{\"error\":\"method not allowed here (allowed: %s)\"}\n"
		   : "method not allowed here (allowed: %s)\n", allow);
	len = b.len;
	data = buf_detach(&b);
	if (!data)
		return MHD_NO;
	r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(data);
		return MHD_NO;
	}
	add_common_headers(r, ctype);
	MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
	rc = MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, r);
	MHD_destroy_response(r);
	return rc;
}

enum MHD_Result web_reply_file(struct MHD_Connection *c, const char *path,
			       const char *ctype, uint64_t max, int64_t run_id)
{
	struct MHD_Response *r;
	enum MHD_Result rc;
	const char *name = strrchr(path, '/');
	struct stat st;
	uint64_t size, off = 0;
	int fd;

	name = name ? name + 1 : path;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		if (errno == ENOENT)
			return web_reply_html_error(c, MHD_HTTP_NOT_FOUND,
						    "run %lld: no %s (yet)", (long long)run_id, name);
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					    "run %lld: cannot open %s: %s", (long long)run_id,
					    name, strerror(errno));
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return web_reply_html_error(c, MHD_HTTP_NOT_FOUND,
					    "run %lld: %s is not a regular file", (long long)run_id, name);
	}
	size = (uint64_t)st.st_size;
	if (max && size > max) {
		off = size - max;
		size = max;
	}
	r = MHD_create_response_from_fd_at_offset64(size, fd, off);
	if (!r) {
		close(fd);
		return MHD_NO;
	}
	add_common_headers(r, ctype);
	rc = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return rc;
}

/* ---- small parsers and formatters ---- */

int web_parse_id(const char *s, int64_t *id, const char **rest)
{
	int64_t v = 0;
	const char *p = s;

	if (*p < '1' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (v > (INT64_MAX - (*p - '0')) / 10)
			return -1;
		v = v * 10 + (*p - '0');
	}
	if (*p && *p != '/')
		return -1;
	*id = v;
	*rest = p;
	return 0;
}

void web_fmt_time(int64_t ms, char out[32])
{
	time_t t;
	struct tm tm;

	if (ms <= 0) {
		strcpy(out, "-");
		return;
	}
	t = (time_t)(ms / 1000);
	if (!gmtime_r(&t, &tm) || !strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm))
		strcpy(out, "?");
}

void web_fmt_duration(int64_t start_ms, int64_t end_ms, char out[32])
{
	int64_t d = end_ms - start_ms;

	if (start_ms <= 0 || end_ms <= 0 || d < 0)
		snprintf(out, 32, "-");
	else if (d < 1000)
		snprintf(out, 32, "%lld ms", (long long)d);
	else if (d < 60000)
		snprintf(out, 32, "%lld.%lld s", (long long)(d / 1000), (long long)(d % 1000 / 100));
	else if (d < 3600000)
		snprintf(out, 32, "%lld min %02lld s", (long long)(d / 60000),
			 (long long)(d / 1000 % 60));
	else
		snprintf(out, 32, "%lld h %02lld min", (long long)(d / 3600000),
			 (long long)(d / 60000 % 60));
}

/* ---- text: valid UTF-8, HTML ---- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 when invalid.
 * Overlong forms, surrogates and code points past U+10FFFF are invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len;

	if (c < 0x80)
		return 1;
	if (c < 0xc2)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (!len || n < len)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return len;
}

#define REPLACEMENT "\xef\xbf\xbd"   /* U+FFFD */

void web_utf8(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t l = p[i] ? utf8_seq(p + i, n - i) : 0;

		if (l) {
			i += l;
			continue;
		}
		buf_append(b, s + run, i - run);
		buf_puts(b, REPLACEMENT);
		i++;
		run = i;
	}
	buf_append(b, s + run, i - run);
}

void web_html(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		unsigned c = p[i];
		const char *rep = NULL;
		char pic[4];
		size_t l;

		if (c >= 0x80) {
			l = utf8_seq(p + i, n - i);
			if (l) {
				i += l;
				continue;
			}
			rep = REPLACEMENT;
		} else if (c == '&') {
			rep = "&amp;";
		} else if (c == '<') {
			rep = "&lt;";
		} else if (c == '>') {
			rep = "&gt;";
		} else if (c == '"') {
			rep = "&quot;";
		} else if (c == '\'') {
			rep = "&#39;";
		} else if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) {
			/* U+2400 + c, U+2421 for DEL: visible, harmless */
			pic[0] = (char)0xe2;
			pic[1] = (char)0x90;
			pic[2] = (char)(c == 0x7f ? 0xa1 : 0x80 + c);
			pic[3] = '\0';
			rep = pic;
		} else {
			i++;
			continue;
		}
		buf_append(b, s + run, i - run);
		buf_puts(b, rep);
		i++;
		run = i;
	}
	buf_append(b, s + run, i - run);
}

void web_html_str(struct buf *b, const char *s)
{
	if (s)
		web_html(b, s, strlen(s));
}

/* ---- the server ---- */

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
				  const char *method, const char *version,
				  const char *upload_data, size_t *upload_data_size,
				  void **con_cls)
{
	struct web *w = cls;
	struct web_req *req = *con_cls;

	if (!req) {
		const char *cl, *why;
		long long n;
		int max;

		req = calloc(1, sizeof(*req));
		if (!req)
			return MHD_NO;
		max = web_big_upload(url) ? WEB_UPLOAD_MAX : WEB_BODY_MAX;
		buf_init(&req->body, (size_t)max);
		*con_cls = req;
		/* a big upload only from a token holder, asked before it is sent */
		if (max > WEB_BODY_MAX && !strcmp(method, MHD_HTTP_METHOD_POST) &&
		    web_check_token(w, c, &why) < 0)
			return web_reply_error(c, MHD_HTTP_UNAUTHORIZED,
					       "missing or wrong token: %s", why);
		/* refuse a declared oversized body before it is sent */
		cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						 MHD_HTTP_HEADER_CONTENT_LENGTH);
		if (cl && parse_int(cl, 0, LLONG_MAX, &n) == 0 && n > max)
			return web_reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
					       "request body: %lld bytes, more than the %d allowed",
					       n, max);
		return MHD_YES;
	}
	if (*upload_data_size) {
		if (!req->too_big && buf_append(&req->body, upload_data, *upload_data_size) < 0)
			req->too_big = 1;
		*upload_data_size = 0;
		return MHD_YES;
	}
	if (!strncmp(url, "/api/", 5) || !strcmp(url, "/api"))
		return api_route(w, c, method, url, req);
	if (!strncmp(url, "/submissions", 12) || !strncmp(url, "/builds", 7) ||
	    !strcmp(url, "/trees")) {
		if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
			return web_reply_method(c, "GET, HEAD", 0);
		return builds_pages_route(w, c, url);
	}
	return pages_route(w, c, method, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct web_req *req = *con_cls;

	if (!req)
		return;
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
	w->db_path = strdup(o->db_path);
	w->token = strdup(o->token ? o->token : "");
	if (!w->db_path || !w->token || pthread_key_create(&w->db_key, NULL) != 0)
		goto out;
	key_made = 1;

	start_msg[0] = '\0';
	w->mhd = MHD_start_daemon(flags, (uint16_t)o->port, NULL, NULL, on_request, w,
				  MHD_OPTION_EXTERNAL_LOGGER, on_mhd_log, w,
				  MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				  MHD_OPTION_THREAD_POOL_SIZE, (unsigned)WEB_POOL_THREADS,
				  MHD_OPTION_CONNECTION_LIMIT, (unsigned)256,
				  MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
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
	log_info("web: listening on '%s' port %d", o->listen_addr, w->port);
	msg[0] = '\0';
out:
	if (msg[0]) {
		*err = strdup(msg);
		if (w) {
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
	for (size_t i = 0; i < w->ndbs; i++)
		db_close(w->dbs[i]);
	free(w->dbs);
	web_compare_cache_free(w);
	pthread_key_delete(w->db_key);
	pthread_mutex_destroy(&w->submit_lock);
	pthread_mutex_destroy(&w->dbs_lock);
	free(w->db_path);
	free(w->token);
	free(w);
}
