// SPDX-License-Identifier: GPL-2.0-only
/* bisections.c: bisections as pages and JSON. POST /api/bisections starts
 * one (bisect/ checks it and queues its ends), POST .../ID/cancel stops
 * it; GET /api/bisections/ID is bisect_json() (?format=text: the report
 * for a mailing list); /bisections/ID shows the range, every step with
 * what was seen and why, the metric per tested commit in history order,
 * and the culprit with its parent and its revert check. */
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trend.h"
#include "bisect/bisect.h"
#include "common/util.h"
#include "db/bisections.h"
#include "db/db.h"

/* ---- JSON ---- */

static int body_bool(json_t *body, const char *key, int *out, char *msg, size_t n)
{
	json_t *v = json_object_get(body, key);

	*out = 0;
	if (!v)
		return 0;
	if (!json_is_boolean(v)) {
		snprintf(msg, n, "'%s': expected true or false", key);
		return -1;
	}
	*out = json_is_true(v);
	return 0;
}

static int read_spec(json_t *body, struct bisect_spec *s, char *msg, size_t n)
{
	static const char *const known[] = { "tree", "good", "bad", "job", "test", "metric",
					     "crash", "signature", "arch", "vcpus", "memory_mb", "config",
					     "fragments", "repeat", "first_parent", "from_request",
					     NULL };
	int from = 0;

	memset(s, 0, sizeof(*s));
	if (web_fields_only(body, known, msg, n) < 0 ||
	    web_field_int(body, "from_request", &from, msg, n) < 0 ||
	    web_field_str(body, "tree", !from, &s->tree, msg, n) < 0 ||
	    web_field_str(body, "good", !from, &s->good, msg, n) < 0 ||
	    web_field_str(body, "bad", !from, &s->bad, msg, n) < 0 ||
	    web_field_str(body, "job", !from, &s->job, msg, n) < 0 ||
	    web_field_str(body, "test", 0, &s->test, msg, n) < 0 ||
	    web_field_str(body, "metric", 0, &s->metric, msg, n) < 0 ||
	    web_field_str(body, "signature", 0, &s->signature, msg, n) < 0 ||
	    web_field_str(body, "arch", 0, &s->arch, msg, n) < 0 ||
	    web_field_str(body, "config", 0, &s->config, msg, n) < 0 ||
	    web_field_str(body, "fragments", 0, &s->fragments, msg, n) < 0 ||
	    web_field_int(body, "vcpus", &s->vcpus, msg, n) < 0 ||
	    web_field_int(body, "memory_mb", &s->memory_mb, msg, n) < 0 ||
	    web_field_int(body, "repeat", &s->repeat, msg, n) < 0 ||
	    body_bool(body, "crash", &s->crash, msg, n) < 0 ||
	    body_bool(body, "first_parent", &s->first_parent, msg, n) < 0)
		return -1;
	s->from_request = from;
	return 0;
}

WEB_HANDLER(api_bisections_add)
{
	char msg[256], *err = NULL;
	struct bisect_spec s;
	json_t *body = NULL;
	enum MHD_Result rc;
	int64_t id = 0;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->bisect)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no bisections here");
	rc = web_body_json(c, arg->req, &body);
	if (!body)
		return rc;
	if (read_spec(body, &s, msg, sizeof(msg)) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
	} else {
		r = bisect_submit(w->bisect, &s, &id, &err);
		if (r == 0) {
			char url[64];

			snprintf(url, sizeof(url), "/bisections/%lld", (long long)id);
			rc = web_reply_json(c, MHD_HTTP_CREATED, json_pack("{s:I, s:s}", "id",
					    (json_int_t)id, "url", url));
		} else
			rc = web_reply_error(c, r == -1 ? MHD_HTTP_BAD_REQUEST :
					     MHD_HTTP_INTERNAL_SERVER_ERROR, "%s", err ? err : "?");
	}
	free(err);
	json_decref(body);
	return rc;
}

WEB_HANDLER(api_bisection_cancel)
{
	char *err = NULL;
	enum MHD_Result rc;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->bisect)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no bisections here");
	r = bisect_cancel(w->bisect, arg->id, &err);
	rc = r == 0 ? web_reply_json(c, MHD_HTTP_OK, json_pack("{s:I, s:s}", "id",
						       (json_int_t)arg->id, "state", "canceled")) :
	     web_reply_error(c, r == -1 ? MHD_HTTP_CONFLICT : MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
			     err ? err : "?");
	free(err);
	return rc;
}

static json_t *summary_json(const struct bisection *b)
{
	return json_pack("{s:I, s:s, s:s, s:s, s:s, s:o, s:s, s:i, s:s, s:o, s:o, s:o, s:o}",
			 "id", (json_int_t)b->id, "tree", b->tree, "good", b->good, "bad", b->bad,
			 "job", b->job, "target", web_json_str(b->target), "kind", b->kind,
			 "vcpus", b->vcpus, "state", b->state, "culprit", web_json_str(b->culprit),
			 "verdict", web_json_str(b->verdict), "created_at",
			 web_json_time(b->created_at), "ended_at", web_json_time(b->ended_at));
}

WEB_HANDLER(api_bisections_list)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	struct bisection *rows = NULL;
	size_t n = 0;
	json_t *a;

	if (!db)
		return rc;
	if (db_bisection_list(db, 0, 200, &rows, &n) < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, summary_json(&rows[i]));
	db_bisection_free_rows(rows, n);
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "bisections", a));
}

WEB_HANDLER(api_bisection)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	const char *fmt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	json_t *j;

	if (!db)
		return rc;
	if (fmt && !strcmp(fmt, "text")) {
		struct buf b = BUF_INIT(WEB_PAGE_MAX);
		int f = bisect_report_text(db, arg->id, &b);

		rc = f == 1 ? web_reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", &b) :
		     web_reply_error(c, f ? MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_NOT_FOUND,
				     "bisection %lld: %s", (long long)arg->id,
				     f ? "database error" : "no such bisection");
		buf_release(&b);
		return rc;
	}
	if (fmt && strcmp(fmt, "json"))
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "format '%.20s': json or text", fmt);
	j = bisect_json(db, arg->id);
	if (!j)
		return web_reply_error(c, MHD_HTTP_NOT_FOUND, "bisection %lld: no such bisection",
				       (long long)arg->id);
	{
		struct buf t = BUF_INIT(WEB_PAGE_MAX);

		if (bisect_report_text(db, arg->id, &t) == 1)
			json_object_set_new(j, "report", web_json_str(buf_str(&t)));
		buf_release(&t);
	}
	return web_reply_json(c, MHD_HTTP_OK, j);
}

/* ---- pages ---- */

static const char *answer_class(const char *a)
{
	if (!a)
		return "running";
	if (!strcmp(a, "good"))
		return "passed";
	if (!strcmp(a, "bad"))
		return "failed";
	return "infra";
}

/* The metric per tested commit in history order, as a trend chart */
static void metric_chart(struct buf *b, json_t *j)
{
	json_t *steps = json_object_get(j, "steps");
	const char *better = json_string_value(json_object_get(j, "better"));
	const char *metric = json_string_value(json_object_get(j, "target"));
	struct trend_point_in in[TREND_POINTS_MAX];
	double vals[TREND_POINTS_MAX];
	struct trend t;
	json_t *s;
	size_t i, n = 0;
	char err[128];

	/* one point per commit: its median (the chart's dots are the medians) */
	json_array_foreach(steps, i, s) {
		json_t *m = json_object_get(s, "median");

		if (!json_is_number(m) || n >= TREND_POINTS_MAX ||
		    !strcmp(web_json_text(json_object_get(s, "role")), "revert"))
			continue;
		vals[n] = json_number_value(m);
		in[n] = (struct trend_point_in){ json_string_value(json_object_get(s, "commit")),
						 json_integer_value(json_object_get(s, "order")),
						 &vals[n], 1 };
		n++;
	}
	/* history order: the number of commits behind each */
	for (size_t a = 1; a < n; a++)
		for (size_t k = a; k > 0 && in[k - 1].order > in[k].order; k--) {
			struct trend_point_in x = in[k];

			in[k] = in[k - 1];
			in[k - 1] = x;
		}
	if (n < 2 || trend_build(&t, in, n, !better ? -1 : !strcmp(better, "higher"), err,
				 sizeof(err)) < 0)
		return;
	buf_puts(b, "<h2>The metric per tested commit</h2>\n");
	svg_trend(b, &t, metric ? metric : "", NULL);
	trend_release(&t);
}

static void steps_table(struct buf *b, json_t *steps)
{
	json_t *s;
	size_t i;

	buf_puts(b, "<h2>Steps</h2>\n<table>\n<tr><th>#</th><th>commit</th><th>subject</th>"
		 "<th>runs</th><th>answer</th><th>what was seen</th></tr>\n");
	json_array_foreach(steps, i, s) {
		const char *role = json_string_value(json_object_get(s, "role"));
		const char *ans = json_string_value(json_object_get(s, "answer"));
		json_t *subs = json_object_get(s, "submissions"), *sub;
		size_t k;

		buf_printf(b, "<tr><td>%s</td><td><code>", !strcmp(role, "step") ? "" : role);
		web_html_prefix(b, json_string_value(json_object_get(s, "commit")), 12);
		buf_puts(b, "</code></td><td>");
		web_html_str(b, json_string_value(json_object_get(s, "subject")));
		buf_printf(b, "</td><td>%lld", (long long)json_integer_value(json_object_get(s, "runs")));
		json_array_foreach(subs, k, sub)
			buf_printf(b, " <a href=\"/submissions/%lld\">s%lld</a>",
				   (long long)json_integer_value(sub), (long long)json_integer_value(sub));
		buf_printf(b, "</td><td class=\"%s\">%s</td><td>", answer_class(ans),
			   ans ? ans : "pending");
		web_html_str(b, json_string_value(json_object_get(s, "why")));
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</table>\n");
}

static void culprit_box(struct buf *b, json_t *j)
{
	const char *culprit = json_string_value(json_object_get(j, "culprit"));
	json_t *steps = json_object_get(j, "steps"), *s, *cands = json_object_get(j, "candidates");
	size_t i;

	if (culprit) {
		buf_puts(b, "<h2>First bad commit</h2>\n<table>\n");
		web_html_kv(b, "commit", culprit, NULL);
		json_array_foreach(steps, i, s)
			if (!strcmp(json_string_value(json_object_get(s, "commit")), culprit)) {
				web_html_kv(b, "subject", json_string_value(json_object_get(s,
					    "subject")), "<span class=\"note\">-</span>");
				web_html_kv(b, "author", json_string_value(json_object_get(s,
					    "author")), "<span class=\"note\">-</span>");
				break;
			}
		web_html_kv(b, "revert on bad", json_string_value(json_object_get(j, "verdict")),
			    "<span class=\"note\">not checked yet</span>");
		web_html_kv(b, "what the revert's runs showed",
			    json_string_value(json_object_get(j, "revert")),
			    "<span class=\"note\">-</span>");
		buf_puts(b, "</table>\n");
	}
	if (json_array_size(cands)) {
		buf_puts(b, "<h2>Candidates</h2>\n<p>Skipped commits leave these as the first bad "
			 "commit:</p>\n<ul>\n");
		json_array_foreach(cands, i, s) {
			buf_puts(b, "<li><code>");
			web_html_str(b, json_string_value(s));
			buf_puts(b, "</code></li>\n");
		}
		buf_puts(b, "</ul>\n");
	}
}

static void range_table(struct buf *b, json_t *j)
{
	char t[48], v[32];
	json_t *e = json_object_get(j, "error"), *ch = json_object_get(j, "change_pct");

	buf_puts(b, "<table>\n");
	web_html_kv(b, "tree", json_string_value(json_object_get(j, "tree")), NULL);
	web_html_kv(b, "good", json_string_value(json_object_get(j, "good")), NULL);
	web_html_kv(b, "bad", json_string_value(json_object_get(j, "bad")), NULL);
	web_html_kv(b, "job", json_string_value(json_object_get(j, "job")), NULL);
	web_html_kv(b, "symptom", json_string_value(json_object_get(j, "kind")), NULL);
	web_html_kv(b, "test or metric", json_string_value(json_object_get(j, "target")),
		    "<span class=\"note\">-</span>");
	snprintf(t, sizeof(t), "%s, %lld vCPUs", json_string_value(json_object_get(j, "arch")),
		 (long long)json_integer_value(json_object_get(j, "vcpus")));
	web_html_kv(b, "cell", t, NULL);
	if (json_is_number(ch)) {
		snprintf(v, sizeof(v), "%+.1f%%", json_number_value(ch));
		web_html_kv(b, "bad against good", v, NULL);
	}
	if (json_is_number(e)) {
		snprintf(v, sizeof(v), "at most %.2g%%", 100 * json_number_value(e));
		web_html_kv(b, "chance the path went wrong", v, NULL);
	}
	fmt_time_ms(json_integer_value(json_object_get(j, "created_at")), 0, t, sizeof(t));
	web_html_kv(b, "started", t, NULL);
	buf_puts(b, "</table>\n");
}

WEB_HANDLER(pages_bisection)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	char title[64];
	const char *state;
	json_t *j;

	if (!db)
		return rc;
	/* one read: the page is drawn from the JSON the API serves */
	if (!(j = bisect_json(db, arg->id)))
		return web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "bisection %lld: no such "
					    "bisection", (long long)arg->id);
	state = web_json_text(json_object_get(j, "state"));
	snprintf(title, sizeof(title), "bisection %lld", (long long)arg->id);
	web_page_head(&b, title, strcmp(state, "done") && strcmp(state, "failed") &&
		      strcmp(state, "canceled"));
	buf_printf(&b, "<h1>%s <span class=\"%s\">%s</span></h1>\n", title,
		   !strcmp(state, "done") ? "passed" : !strcmp(state, "failed") ? "failed" :
		   "running", state);
	if (json_string_value(json_object_get(j, "detail"))) {
		buf_puts(&b, "<p>");
		web_html_str(&b, json_string_value(json_object_get(j, "detail")));
		buf_puts(&b, "</p>\n");
	}
	range_table(&b, j);
	culprit_box(&b, j);
	if (!strcmp(web_json_text(json_object_get(j, "kind")), "metric"))
		metric_chart(&b, j);
	steps_table(&b, json_object_get(j, "steps"));
	if (json_string_value(json_object_get(j, "log"))) {
		buf_puts(&b, "<h2>git bisect log</h2>\n<pre>");
		web_html_str(&b, json_string_value(json_object_get(j, "log")));
		buf_puts(&b, "</pre>\n");
	}
	web_page_tail(&b);
	json_decref(j);
	rc = web_reply_page(c, &b);
	buf_release(&b);
	return rc;
}

WEB_HANDLER(pages_bisections)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct bisection *rows = NULL;
	size_t n = 0;

	if (!db)
		return rc;
	if (db_bisection_list(db, 0, 200, &rows, &n) < 0)
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	web_page_head(&b, "bisections", 0);
	buf_puts(&b, "<h1>Bisections</h1>\n<table>\n<tr><th>#</th><th>tree</th><th>job</th>"
		 "<th>symptom</th><th>state</th><th>first bad commit</th><th>revert</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		struct bisection *r = &rows[i];

		buf_printf(&b, "<tr><td><a href=\"/bisections/%lld\">%lld</a></td><td>",
			   (long long)r->id, (long long)r->id);
		web_html_str(&b, r->tree);
		buf_puts(&b, "</td><td>");
		web_html_str(&b, r->job);
		buf_puts(&b, "</td><td>");
		web_html_str(&b, r->kind);
		if (r->target) {
			buf_puts(&b, " ");
			web_html_str(&b, r->target);
		}
		buf_printf(&b, "</td><td>%s</td><td><code>", r->state);
		web_html_prefix(&b, r->culprit ? r->culprit : "", 12);
		buf_puts(&b, "</code></td><td>");
		web_html_str(&b, r->verdict);
		buf_puts(&b, "</td></tr>\n");
	}
	buf_puts(&b, "</table>\n");
	web_page_tail(&b);
	db_bisection_free_rows(rows, n);
	rc = web_reply_page(c, &b);
	buf_release(&b);
	return rc;
}
