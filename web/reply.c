// SPDX-License-Identifier: GPL-2.0-only
/* reply.c: the bottom of web/, what every handler calls: this thread's
 * database and the daemon's jobs, the replies (JSON, HTML pages and
 * errors, files), the text helpers that make guest output valid UTF-8 and
 * safe HTML or JSON, the frame and small pieces of every page, the bearer
 * token and the strict parsers of a request's path and body. It calls
 * nothing else of web/. */
#include "web/cache.h"
#include "web/reply.h"
#include "web/server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/cells.h"
#include "common/redact.h"
#include "common/util.h"
#include "db/db.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"
#include "analysis/reqcmp.h"

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

/* the request page and the until-decided loop read a job the same way:
 * one copy, in analysis/reqcmp.c */
int web_metric_better(const struct job_def *d, const char *metric, const char **unit)
{
	return reqcmp_metric_better(d, metric, unit);
}

double web_metric_margin(const struct job_def *d, const char *metric, double asked)
{
	return reqcmp_metric_margin(d, metric, asked);
}

void web_report_cell(struct cmp_report *r, const struct job_def *d, const struct cell *c,
		     double asked, const char *const side_name[2])
{
	reqcmp_report_cell(r, d, c, asked, side_name);
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
	if (status == MHD_HTTP_OK)
		web_cache_captured(data, len, ctype);
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

enum MHD_Result web_reply_page(struct MHD_Connection *c, struct buf *b)
{
	return web_reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", b);
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

/* ---- what a request sends ---- */

int web_check_token(struct web *w, struct MHD_Connection *c, const char **why)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_AUTHORIZATION);
	char want[65], got[65];
	unsigned char diff = 0;

	if (!w->token[0]) {
		*why = "the server has no token configured";
		return -1;
	}
	if (!h || strncasecmp(h, "Bearer ", 7) != 0) {
		*why = "no 'Authorization: Bearer' header";
		return -1;
	}
	h += 7;
	while (*h == ' ')
		h++;
	/* comparing digests takes the same time whatever the tokens hold */
	sha256_mem(w->token, strlen(w->token), want);
	sha256_mem(h, strlen(h), got);
	for (int i = 0; i < 64; i++)
		diff |= (unsigned char)(want[i] ^ got[i]);
	if (diff) {
		*why = "the token does not match";
		return -1;
	}
	return 0;
}

/* Reads an optional positive int field (absent: 0, the configured default);
 * 0 / -1 with msg filled */
int web_field_int(json_t *body, const char *key, int *out, char *msg, size_t msglen)
{
	json_t *v = json_object_get(body, key);
	json_int_t n;

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v)) {
		snprintf(msg, msglen, "field '%s': expected an integer", key);
		return -1;
	}
	n = json_integer_value(v);
	if (n < 1 || n > INT_MAX) {
		snprintf(msg, msglen, "field '%s': %lld is not from 1 to %d", key, (long long)n,
			 INT_MAX);
		return -1;
	}
	*out = (int)n;
	return 0;
}

int web_field_decided(json_t *body, int *until_decided, int *max_runs, double *margin,
		      char *msg, size_t msglen)
{
	json_t *u = json_object_get(body, "until_decided"), *m = json_object_get(body, "margin");

	*until_decided = 0;
	*margin = 0;
	if (u && !json_is_null(u) && !json_is_boolean(u)) {
		snprintf(msg, msglen, "field 'until_decided': expected true or false");
		return -1;
	}
	*until_decided = json_is_true(u);
	if (web_field_int(body, "max_runs", max_runs, msg, msglen) < 0)
		return -1;
	if (!m || json_is_null(m))
		return 0;
	if (json_is_number(m) && json_number_value(m) > 0 &&
	    json_number_value(m) <= CMP_MARGIN_MAX * 100) {
		*margin = json_number_value(m) / 100;
		return 0;
	}
	if (json_is_string(m) && parse_percent(json_string_value(m), CMP_MARGIN_MAX, margin) == 0)
		return 0;
	snprintf(msg, msglen, "field 'margin': a percentage above 0 and at most %g (3 or \"3%%\")",
		 CMP_MARGIN_MAX * 100);
	return -1;
}

int web_field_str(json_t *body, const char *key, int required, const char **out,
		  char *msg, size_t msglen)
{
	json_t *v = json_object_get(body, key);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (!required)
			return 0;
		snprintf(msg, msglen, "field '%s' is required", key);
		return -1;
	}
	if (!json_is_string(v)) {
		snprintf(msg, msglen, "field '%s': expected a string", key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

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

#define REPLACEMENT "\xef\xbf\xbd"   /* U+FFFD */

void web_utf8(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	while (i < n) {
		size_t l = p[i] ? utf8_decode(p + i, n - i, NULL) : 0;

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
			l = utf8_decode(p + i, n - i, NULL);
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

void web_html_prefix(struct buf *b, const char *s, size_t max)
{
	size_t n = strlen(s);

	web_html(b, s, n < max ? n : max);
}

void web_html_unit(struct buf *b, const char *unit)
{
	if (unit) {
		buf_puts(b, " ");
		web_html_str(b, unit);
	}
}

void web_html_num(struct buf *b, double v, const char *none)
{
	if (isfinite(v))
		buf_printf(b, "%.4g", v);
	else
		buf_puts(b, none);
}

json_t *web_json_strn(const char *s, size_t n)
{
	struct buf b = BUF_INIT(0);
	json_t *j;

	web_utf8(&b, s, n);
	j = json_stringn(buf_str(&b), b.len);
	buf_release(&b);
	return j;
}

json_t *web_json_str(const char *s)
{
	return s ? web_json_strn(s, strlen(s)) : json_null();
}

void web_html_redacted(struct buf *b, const char *s)
{
	char *r;

	if (!s)
		return;
	r = redact_secrets(s);
	web_html_str(b, r ? r : "(not shown)");
	free(r);
}

json_t *web_json_redacted(const char *s)
{
	char *r;
	json_t *j;

	if (!s)
		return json_null();
	r = redact_secrets(s);
	j = web_json_str(r ? r : "(not shown)");
	free(r);
	return j;
}

const char *web_json_text(const json_t *v)
{
	const char *s = json_string_value(v);

	return s ? s : "";
}

json_t *web_json_time(int64_t ms)
{
	return ms > 0 ? json_integer(ms) : json_null();
}

/* ---- pieces of pages ---- */

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
	"h1{font-size:1.5em}h2{font-size:1.15em;margin-top:1.5em}"
	"table{border-collapse:collapse}"
	"th,td{padding:.2em .6em;text-align:left;border-bottom:1px solid #ddd;vertical-align:top}"
	"thead th{background:#f2f2f2}table.kv th{font-weight:normal;color:#555}"
	"td.num{text-align:right}"
	"pre{background:#f7f7f7;border:1px solid #ddd;padding:.6em;overflow:auto;"
	"max-height:45em;white-space:pre-wrap;word-break:break-all}"
	".passed{color:#070}.failed,.crash,.timeout,.no-boot,.console-flood{color:#b00}"
	".infra,.canceled,.skipped{color:#a60}.queued,.running{color:#06c}"
	".pass{color:#070}.fail,.error,.missing{color:#b00}.skip,.xfail{color:#a60}"
	".note{color:#666}summary{cursor:pointer;margin:.4em 0}"
	"nav{margin-bottom:1em}nav a{margin-right:.8em}"
	".new-failure,.still-failing,.worse{color:#b00}.flaky,.changed{color:#a60}"
	".fixed,.better{color:#070}.no-change,.uncertain{color:#666}"
	"tr.new-failure td{background:#fff0f0}.history code a{text-decoration:none}"
	"table.grid td{min-width:8em}"
	"figure{display:inline-block;margin:.5em 1em .5em 0}figcaption{font-size:.9em}";

void web_page_head(struct buf *b, const char *title, int refresh)
{
	buf_puts(b, "<!doctype html>\n<html><head><meta charset=\"utf-8\">\n");
	if (refresh)
		buf_puts(b, "<meta http-equiv=\"refresh\" content=\"5\">\n");
	buf_puts(b, "<title>");
	web_html_str(b, title);
	buf_printf(b, "</title>\n<style>%s</style>\n</head><body>\n", css);
	buf_puts(b, "<nav><a href=\"/\">runs</a><a href=\"/queue\">queue</a>"
		 "<a href=\"/submissions\">submissions</a><a href=\"/trees\">trees</a>"
		 "<a href=\"/trends\">trends</a><a href=\"/flaky\">flaky</a>"
		 "<a href=\"/watches\">watches</a><a href=\"/hosts\">hosts</a>"
		 "<a href=\"/jobs\">jobs</a></nav>\n");
}

void web_page_tail(struct buf *b)
{
	buf_puts(b, "</body></html>\n");
}

void web_html_kv(struct buf *b, const char *k, const char *v, const char *none)
{
	buf_puts(b, "<tr><th>");
	web_html_str(b, k);
	buf_puts(b, "</th><td>");
	if (v)
		web_html_str(b, v);
	else
		buf_puts(b, none);
	buf_puts(b, "</td></tr>\n");
}

void web_job_link(struct buf *b, const char *job)
{
	if (!job) {
		buf_puts(b, "<span class=\"note\">command</span>");
		return;
	}
	buf_puts(b, "<a href=\"/jobs/");
	web_html_str(b, job);
	buf_puts(b, "\">");
	web_html_str(b, job);
	buf_puts(b, "</a>");
}

void web_kernel_cell(struct buf *b, const char *path)
{
	const char *base = path ? strrchr(path, '/') : NULL;

	buf_puts(b, "<td title=\"");
	web_html_str(b, path);
	buf_puts(b, "\">");
	web_html_str(b, base ? base + 1 : path);
	buf_puts(b, "</td>");
}

enum MHD_Result web_body_json(struct MHD_Connection *c, struct web_req *req, json_t **body)
{
	json_error_t jerr;

	*body = NULL;
	if (req->too_big)
		return web_reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
				       "request body: more than the %zu bytes allowed", req->body.cap);
	*body = json_loadb(buf_str(&req->body), req->body.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!*body)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: line %d, column %d: %s",
				       jerr.line, jerr.column, jerr.text);
	if (!json_is_object(*body)) {
		json_decref(*body);
		*body = NULL;
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: expected a JSON object");
	}
	return MHD_YES;
}

int web_fields_only(json_t *body, const char *const *known, char *msg, size_t n)
{
	const char *key;
	json_t *v;

	json_object_foreach(body, key, v) {
		size_t i;

		for (i = 0; known[i]; i++)
			if (!strcmp(key, known[i]))
				break;
		if (!known[i]) {
			snprintf(msg, n, "unknown field '%.64s'", key);
			return -1;
		}
	}
	return 0;
}

int web_unauthorized(struct web *w, struct MHD_Connection *c, enum MHD_Result *rc)
{
	const char *why;

	if (web_check_token(w, c, &why) == 0)
		return 0;
	*rc = web_reply_error(c, MHD_HTTP_UNAUTHORIZED, "missing or wrong token: %s", why);
	return 1;
}
