// SPDX-License-Identifier: GPL-2.0-only
/* watches.c: watches as a page and as JSON: GET /watches and
 * /api/watches show each watch's spec (its token and its URLs' secrets
 * masked), last poll, what it found and queued, its errors (masked too), its newest series with what became of
 * them and the checks posted, and its log; POST /api/watches adds one
 * ({"name", "spec": {KEY: "VALUE", ...}}), POST /api/watches/NAME/remove
 * removes one (watch/watch.c checks and stores them). */
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "db/db.h"
#include "db/watches.h"
#include "watch/watch.h"

#define SERIES_SHOWN 20
#define LOG_SHOWN    20

/* The spec as stored, its token masked and the secrets of its URLs (an
 * SMTP or patchwork password) too; a new reference */
static json_t *spec_json(const char *spec)
{
	json_t *j = json_loads(spec ? spec : "{}", 0, NULL), *v;
	const char *key;

	if (!json_is_object(j)) {
		json_decref(j);
		return json_object();
	}
	json_object_foreach(j, key, v)
		if (json_is_string(v))
			json_object_set_new(j, key, web_json_redacted(json_string_value(v)));
	if (json_object_get(j, "token"))
		json_object_set_new(j, "token", json_string("(set, not shown)"));
	return j;
}

static json_t *series_json(struct db *db, const struct watch_series_row *s)
{
	struct watch_check_row *ck = NULL;
	size_t n = 0;
	json_t *checks = json_array();

	if (db_watch_checks(db, s->id, &ck, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(checks, json_pack("{s:I, s:s, s:o, s:o, s:o, s:o}",
				"patch", (json_int_t)ck[i].patch_id, "state", ck[i].state,
				"description", web_json_str(ck[i].description),
				"posted_at", web_json_time(ck[i].posted_at),
				"http_status", ck[i].http_status ? json_integer(ck[i].http_status) :
				json_null(), "error", web_json_redacted(ck[i].error)));
		db_rows_free(db_watch_check_fields, ck, sizeof(*ck), n);
	}
	return json_pack("{s:I, s:I, s:s, s:I, s:o, s:o, s:o, s:s, s:o, s:o, s:o, s:o, s:o,"
			 " s:o, s:o, s:o, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:I}}",
			 "id", (json_int_t)s->id, "remote_id", (json_int_t)s->remote_id,
			 "msgid", s->msgid, "version", (json_int_t)s->version,
			 "name", web_json_str(s->name), "subject", web_json_str(s->subject),
			 "submitter", web_json_str(s->submitter), "state", s->state,
			 "detail", web_json_redacted(s->detail), "tree", web_json_str(s->tree),
			 "submission_id", s->submission_id ? json_integer(s->submission_id) :
			 json_null(), "superseded_by", s->superseded_by ?
			 json_integer(s->superseded_by) : json_null(),
			 "verdict", web_json_str(s->verdict),
			 "verdict_detail", web_json_redacted(s->verdict_detail),
			 "mail", web_json_str(s->mail_path), "seen_at", web_json_time(s->seen_at),
			 "checks", checks, "mail_sent_at", web_json_time(s->mail_sent_at),
			 "mail_error", web_json_redacted(s->mail_error),
			 "kcidb", "at", web_json_time(s->kcidb_at), "path",
			 web_json_redacted(s->kcidb_path), "error", web_json_redacted(s->kcidb_error), "tries", (json_int_t)s->kcidb_tries);
}

static json_t *watch_json(struct db *db, const struct watch_row *w)
{
	struct watch_series_row *sr = NULL;
	struct watch_log_row *lr = NULL;
	size_t ns = 0, nl = 0;
	json_t *series = json_array(), *log = json_array();

	if (db_watch_series_list(db, w->name, NULL, SERIES_SHOWN, &sr, &ns) == 0) {
		for (size_t i = 0; i < ns; i++)
			json_array_append_new(series, series_json(db, &sr[i]));
		db_rows_free(db_watch_series_fields, sr, sizeof(*sr), ns);
	}
	if (db_watch_log_list(db, w->name, LOG_SHOWN, &lr, &nl) == 0) {
		for (size_t i = 0; i < nl; i++)
			json_array_append_new(log, json_pack("{s:o, s:s, s:o}", "at",
					      web_json_time(lr[i].at), "level", lr[i].level, "text",
					      web_json_redacted(lr[i].text)));
		db_rows_free(db_watch_log_fields, lr, sizeof(*lr), nl);
	}
	return json_pack("{s:s, s:s, s:o, s:I, s:o, s:o, s:o, s:o, s:I, s:I, s:I, s:I, s:I,"
			 " s:o, s:o, s:o, s:o}",
			 "name", w->name, "source", w->source, "spec", spec_json(w->spec),
			 "position", (json_int_t)w->position,
			 "position_date", web_json_str(w->position_date),
			 "last_poll_at", web_json_time(w->last_poll_at),
			 "last_ok_at", web_json_time(w->last_ok_at),
			 "next_poll_at", web_json_time(w->next_poll_at),
			 "polls", (json_int_t)w->polls, "found", (json_int_t)w->found,
			 "queued", (json_int_t)w->queued, "errors", (json_int_t)w->errors,
			 "failing", (json_int_t)w->failing, "last_error",
			 web_json_redacted(w->last_error),
			 "last_error_at", web_json_time(w->last_error_at), "series", series,
			 "log", log);
}

WEB_HANDLER(api_watches)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	struct watch_row *rows = NULL;
	size_t n = 0;
	json_t *a;

	if (!db)
		return rc;
	/* a statement per series for its checks: one read transaction */
	if (db_read_begin(db) < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	if (db_watch_list(db, &rows, &n) < 0) {
		db_read_end(db);
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, watch_json(db, &rows[i]));
	db_read_end(db);
	db_rows_free(db_watch_fields, rows, sizeof(*rows), n);
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "watches", a));
}

WEB_HANDLER(api_watches_add)
{
	static const char *const known[] = { "name", "spec", NULL };
	char msg[256], *err = NULL;
	const char *name = NULL;
	json_t *body = NULL, *spec;
	enum MHD_Result rc;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->orch)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no watches here");
	rc = web_body_json(c, arg->req, &body);
	if (!body)
		return rc;
	spec = json_object_get(body, "spec");
	if (web_fields_only(body, known, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "name", 1, &name, msg, sizeof(msg)) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
	} else if (!json_is_object(spec)) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: 'spec': expected an "
				     "object of keys and string values");
	} else {
		r = orch_watch_add(w->orch, name, spec, &err);
		if (r == 0) {
			rc = web_reply_json(c, MHD_HTTP_CREATED, json_pack("{s:s, s:s}", "name", name,
					    "url", "/watches"));
		} else {
			rc = web_reply_error(c, r == -1 ? MHD_HTTP_BAD_REQUEST :
					     MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err ? err : "?");
		}
	}
	free(err);
	json_decref(body);
	return rc;
}

WEB_HANDLER(api_watch_remove)
{
	char *err = NULL;
	enum MHD_Result rc;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->orch)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no watches here");
	r = orch_watch_remove(w->orch, arg->name, &err);
	rc = r == 0 ? web_reply_json(c, MHD_HTTP_OK, json_pack("{s:s, s:b}", "name", arg->name,
						       "removed", 1)) :
	     web_reply_error(c, r == -1 ? MHD_HTTP_NOT_FOUND : MHD_HTTP_INTERNAL_SERVER_ERROR,
			     "%s", err ? err : "?");
	free(err);
	return rc;
}

/* ---- the page ---- */

static const char *state_class(const char *s)
{
	if (!s)
		return "running";
	if (!strcmp(s, "success") || !strcmp(s, "reported") || !strcmp(s, "queued"))
		return "passed";
	if (!strcmp(s, "fail") || !strcmp(s, "error"))
		return "failed";
	return "infra";
}

static void series_rows(struct buf *b, struct db *db, const char *watch)
{
	struct watch_series_row *s = NULL;
	size_t n = 0;

	if (db_watch_series_list(db, watch, NULL, SERIES_SHOWN, &s, &n) < 0)
		return;
	buf_puts(b, "<table>\n<tr><th>series</th><th>version</th><th>subject</th><th>state</th>"
		 "<th>submission</th><th>reported</th><th>checks</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		struct watch_check_row *ck = NULL;
		size_t nc = 0;

		buf_printf(b, "<tr><td>%" PRId64 "</td><td>v%" PRId64 "</td><td>", s[i].remote_id,
			   s[i].version);
		web_html_str(b, s[i].subject ? s[i].subject : s[i].name);
		buf_printf(b, "</td><td class=\"%s\">", state_class(s[i].state));
		web_html_str(b, s[i].state);
		if (s[i].detail) {
			buf_puts(b, ": ");
			web_html_redacted(b, s[i].detail);
		}
		buf_puts(b, "</td><td>");
		if (s[i].submission_id)
			buf_printf(b, "<a href=\"/submissions/%" PRId64 "\">%" PRId64 "</a>",
				   s[i].submission_id, s[i].submission_id);
		buf_printf(b, "</td><td class=\"%s\">", state_class(s[i].verdict));
		if (s[i].verdict) {
			web_html_str(b, s[i].verdict);
			buf_puts(b, ": ");
			web_html_redacted(b, s[i].verdict_detail);
		}
		if (s[i].mail_path) {
			buf_puts(b, "<br>mail: <code>");
			web_html_str(b, s[i].mail_path);
			buf_puts(b, "</code>");
			if (s[i].mail_sent_at) {
				buf_puts(b, " sent");
			} else if (s[i].mail_error) {
				buf_puts(b, " <span class=\"failed\">not sent: ");
				web_html_redacted(b, s[i].mail_error);
				buf_puts(b, "</span>");
			}
		}
		if (s[i].kcidb_at) {
			buf_puts(b, "<br>KCIDB: ");
			web_html_redacted(b, s[i].kcidb_path ? s[i].kcidb_path : "posted");
		} else if (s[i].kcidb_error) {
			buf_puts(b, "<br><span class=\"failed\">KCIDB export not sent: ");
			web_html_redacted(b, s[i].kcidb_error);
			buf_puts(b, "</span>");
		}
		buf_puts(b, "</td><td>");
		if (db_watch_checks(db, s[i].id, &ck, &nc) == 0) {
			for (size_t k = 0; k < nc; k++) {
				buf_printf(b, "%s%" PRId64 ": ", k ? "<br>" : "", ck[k].patch_id);
				web_html_str(b, ck[k].state);
				if (ck[k].error) {
					buf_puts(b, " <span class=\"failed\">not posted: ");
					web_html_redacted(b, ck[k].error);
					buf_puts(b, "</span>");
				}
			}
			db_rows_free(db_watch_check_fields, ck, sizeof(*ck), nc);
		}
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</table>\n");
	db_rows_free(db_watch_series_fields, s, sizeof(*s), n);
}

static void log_rows(struct buf *b, struct db *db, const char *watch)
{
	struct watch_log_row *l = NULL;
	size_t n = 0;
	char t[32];

	if (db_watch_log_list(db, watch, LOG_SHOWN, &l, &n) < 0 || !n)
		return;
	buf_puts(b, "<table>\n<tr><th>when</th><th>level</th><th>what</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		fmt_time_ms(l[i].at, 0, t, sizeof(t));
		buf_printf(b, "<tr><td>%s</td><td class=\"%s\">", t,
			   strcmp(l[i].level, "info") ? "failed" : "passed");
		web_html_str(b, l[i].level);
		buf_puts(b, "</td><td>");
		web_html_redacted(b, l[i].text);
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</table>\n");
	db_rows_free(db_watch_log_fields, l, sizeof(*l), n);
}

WEB_HANDLER(pages_watches)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct watch_row *v = NULL;
	size_t n = 0;
	char t1[32], t2[32];

	if (!db)
		return rc;
	if (db_read_begin(db) < 0)
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	if (db_watch_list(db, &v, &n) < 0) {
		db_read_end(db);
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	}
	web_page_head(&b, "watches", 1);
	buf_puts(&b, "<h1>Watches</h1>\n");
	if (!n)
		buf_puts(&b, "<p>No watches: add a [watch NAME] section to the config, or "
			 "<code>kfleet watch add</code>.</p>\n");
	buf_puts(&b, "<table>\n<tr><th>watch</th><th>from</th><th>last poll</th><th>polls</th>"
		 "<th>found</th><th>queued</th><th>errors</th><th>last error</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		json_t *spec = spec_json(v[i].spec);

		fmt_time_ms(v[i].last_poll_at, 0, t1, sizeof(t1));
		fmt_time_ms(v[i].last_error_at, 0, t2, sizeof(t2));
		buf_printf(&b, "<tr><td><a href=\"#w-");
		web_html_str(&b, v[i].name);
		buf_puts(&b, "\">");
		web_html_str(&b, v[i].name);
		buf_printf(&b, "</a> (%s)</td><td>", v[i].source);
		web_html_str(&b, web_json_text(json_object_get(spec, "patchwork")));
		buf_puts(&b, " project ");
		web_html_str(&b, web_json_text(json_object_get(spec, "project")));
		buf_printf(&b, "</td><td>%s</td><td>%" PRId64 "</td><td>%" PRId64 "</td><td>%" PRId64
			   "</td><td class=\"%s\">%" PRId64 "</td><td>", t1, v[i].polls, v[i].found,
			   v[i].queued, v[i].failing ? "failed" : "passed", v[i].errors);
		if (v[i].last_error) {
			buf_printf(&b, "%s: ", t2);
			web_html_redacted(&b, v[i].last_error);
		}
		buf_puts(&b, "</td></tr>\n");
		json_decref(spec);
	}
	buf_puts(&b, "</table>\n");
	for (size_t i = 0; i < n; i++) {
		buf_puts(&b, "<h2 id=\"w-");
		web_html_str(&b, v[i].name);
		buf_puts(&b, "\">");
		web_html_str(&b, v[i].name);
		buf_printf(&b, "</h2>\n<p>position: series %" PRId64 " (", v[i].position);
		web_html_str(&b, v[i].position_date);
		buf_puts(&b, ")</p>\n");
		series_rows(&b, db, v[i].name);
		log_rows(&b, db, v[i].name);
	}
	db_read_end(db);
	db_rows_free(db_watch_fields, v, sizeof(*v), n);
	web_page_tail(&b);
	return web_reply_page(c, &b);
}

void web_watch_reported_html(struct buf *b, struct db *db, int64_t submission_id)
{
	struct watch_series_row s;
	struct watch_check_row *ck = NULL;
	size_t n = 0;

	if (db_watch_series_of_submission(db, submission_id, &s) != 1)
		return;
	buf_puts(b, "<h2>Reported</h2>\n<p>From watch <a href=\"/watches#w-");
	web_html_str(b, s.watch);
	buf_puts(b, "\">");
	web_html_str(b, s.watch);
	buf_printf(b, "</a>: patchwork series %" PRId64 " v%" PRId64 " (", s.remote_id, s.version);
	web_html_str(b, s.state);
	if (s.detail) {
		buf_puts(b, ": ");
		web_html_redacted(b, s.detail);
	}
	buf_puts(b, ")</p>\n<table>\n<tr><th>patch</th><th>check</th><th>description</th>"
		 "<th>posted</th></tr>\n");
	if (db_watch_checks(db, s.id, &ck, &n) == 0)
		for (size_t i = 0; i < n; i++) {
			char t[32];

			fmt_time_ms(ck[i].posted_at, 0, t, sizeof(t));
			buf_printf(b, "<tr><td>%" PRId64 "</td><td class=\"%s\">", ck[i].patch_id,
				   ck[i].error ? "failed" : state_class(ck[i].state));
			web_html_str(b, ck[i].state);
			buf_puts(b, "</td><td>");
			web_html_str(b, ck[i].description);
			buf_printf(b, "</td><td>%s%s", t, ck[i].error ? ": not posted: " : "");
			web_html_redacted(b, ck[i].error);
			buf_puts(b, "</td></tr>\n");
		}
	buf_puts(b, "</table>\n");
	db_rows_free(db_watch_check_fields, ck, sizeof(*ck), n);
	if (s.mail_path) {
		buf_puts(b, "<p>reply mail: <code>");
		web_html_str(b, s.mail_path);
		buf_printf(b, "</code>%s</p>\n", s.mail_sent_at ? ", sent" : ", not sent");
	}
	db_row_release(db_watch_series_fields, &s, sizeof(s));
}
