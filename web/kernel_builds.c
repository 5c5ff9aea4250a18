// SPDX-License-Identifier: GPL-2.0-only
/* kernel_builds.c: kernel trees, submissions and builds in the JSON API
 * (/api/trees, /api/submissions, /api/builds; and /api/import, results
 * from elsewhere) and as pages (/trees,
 * /submissions, /submissions/ID, /builds/ID, /builds/ID/log). A submission
 * page is where a developer sees the series as kfleet read it, the base
 * and why, each build with its errors, and the requests it queued. */
#include "web/handlers.h"
#include "web/progress.h"
#include "web/reply.h"
#include "web/server.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "db/db.h"
#include "kernels/kernels.h"
#include "orchestrator/orchestrator.h"

#define LOG_TAIL (256 * 1024)   /* of a build log on its page */

/* /api/trees/{name}/fetch takes a tree's name */
_Static_assert(WEB_SEGMENT_MAX == KBUILD_NAME_MAX, "a path segment holds a tree's name");

/* A row of any table with a field table, as a JSON object */
static json_t *row_json(const struct db_field *fields, const void *row)
{
	json_t *o = json_object();

	for (const struct db_field *f = fields; o && f->name; f++) {
		const void *p = (const char *)row + f->offset;
		json_t *v;

		if (f->type == DB_FIELD_TEXT)
			v = web_json_str(*(char *const *)p);
		else if (f->type == DB_FIELD_TIME && !*(const int64_t *)p)
			v = json_null();
		else
			v = json_integer(*(const int64_t *)p);
		json_object_set_new(o, f->name, v ? v : json_null());
	}
	return o;
}

/* A build's row, and its progress while it runs (null otherwise) */
static json_t *build_json(struct db *db, const struct build_row *b)
{
	json_t *o = row_json(db_build_fields, b);

	if (o)
		json_object_set_new(o, "progress", web_build_progress_json(db, b));
	return o;
}

/* The state a reader sees: a testing submission whose runs all ended is done */
static const char *submission_state(struct db *db, const struct submission *s, int *runs,
				    int *done)
{
	if (db_submission_progress(db, s->id, runs, done) < 0)
		*runs = *done = 0;
	if (!strcmp(s->state, "testing") && *runs && *done == *runs)
		return "done";
	return s->state;
}

static json_t *submission_json(struct db *db, const struct submission *s, int full)
{
	json_t *o = row_json(db_submission_fields, s), *v;
	int runs, done;

	if (!o)
		return NULL;
	json_object_set_new(o, "state", json_string(submission_state(db, s, &runs, &done)));
	json_object_set_new(o, "runs", json_integer(runs));
	json_object_set_new(o, "runs_done", json_integer(done));
	json_object_del(o, "series_json");
	if (!full) {
		json_object_del(o, "apply_log");
		return o;
	}
	v = s->series_json ? json_loads(s->series_json, 0, NULL) : NULL;
	json_object_set_new(o, "series", v ? v : json_null());
	{
		struct build_row *b = NULL;
		size_t n = 0;
		json_t *a = json_array();
		int64_t *ids = NULL;

		if (db_submission_builds(db, s->id, &b, &n) == 0)
			for (size_t i = 0; i < n; i++)
				json_array_append_new(a, build_json(db, &b[i]));
		db_rows_free(db_build_fields, b, sizeof(*b), n);
		json_object_set_new(o, "builds", a);
		a = json_array();
		n = 0;
		if (db_submission_requests(db, s->id, &ids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				json_array_append_new(a, json_integer(ids[i]));
		free(ids);
		json_object_set_new(o, "requests", a);
		a = json_array();
		ids = NULL;
		n = 0;
		if (db_submission_runs(db, s->id, WEB_LIST_MAX, &ids, &n) == 0)
			for (size_t i = 0; i < n; i++)
				json_array_append_new(a, json_integer(ids[i]));
		free(ids);
		json_object_set_new(o, "plain_runs", a);
	}
	return o;
}

/* ---- POST handlers ---- */

static enum MHD_Result reply_submit(struct MHD_Connection *c, int r, const char *err,
				    const char *what, int64_t id)
{
	if (r == -1)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "%s", err ? err : "bad request");
	if (r < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
				       err ? err : "internal error");
	if (id)
		return web_reply_json(c, MHD_HTTP_CREATED, json_pack("{s:I}", what, (json_int_t)id));
	return web_reply_json(c, MHD_HTTP_ACCEPTED, json_pack("{s:s}", "tree", what));
}

static enum MHD_Result trees_post(struct web *w, struct MHD_Connection *c, struct web_req *req,
				  const char *fetch)
{
	static const char *const known[] = { "name", "url", "branch", NULL };
	const char *name = NULL, *url = NULL, *branch = NULL;
	char msg[256], *err = NULL;
	json_t *body = NULL;
	enum MHD_Result rc;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->orch)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no builder here");
	if (fetch) {
		r = orch_tree_fetch(w->orch, fetch, &err);
		rc = reply_submit(c, r, err, fetch, 0);
		free(err);
		return rc;
	}
	rc = web_body_json(c, req, &body);
	if (!body)
		return rc;
	if (web_fields_only(body, known, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "name", 1, &name, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "url", 1, &url, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "branch", 0, &branch, msg, sizeof(msg)) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
		goto out;
	}
	r = orch_tree_add(w->orch, name, url, branch, &err);
	rc = reply_submit(c, r, err, name, 0);
out:
	free(err);
	json_decref(body);
	return rc;
}

/* base64 (no line breaks) into out; 0 / -1 */
static int unbase64(const char *s, size_t n, struct buf *out)
{
	unsigned char *p;
	int len;

	if (n % 4 || n > (size_t)INT32_MAX)
		return -1;
	p = malloc(n / 4 * 3 + 1);
	if (!p)
		return -1;
	len = EVP_DecodeBlock(p, (const unsigned char *)s, (int)n);
	if (len < 0) {
		free(p);
		return -1;
	}
	/* DecodeBlock counts the padding as zero bytes */
	if (n && s[n - 1] == '=')
		len--;
	if (n > 1 && s[n - 2] == '=')
		len--;
	buf_append(out, p, (size_t)len);
	free(p);
	return 0;
}

WEB_HANDLER(api_submissions_add)
{
	struct web_req *req = arg->req;
	static const char *const known[] = {
		"tree", "mbox_base64", "mbox_name", "base", "arch", "config", "fragments", "jobs",
		"vcpus", "repeat", "memory_mb", "kernel", "until_decided", "max_runs", "margin",
		NULL,
	};
	struct submit_spec sp;
	struct buf mbox = BUF_INIT(0);
	const char *b64 = NULL;
	char msg[256], *err = NULL;
	json_t *body = NULL;
	enum MHD_Result rc;
	int64_t id = 0;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->orch)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "no builder here");
	rc = web_body_json(c, req, &body);
	if (!body)
		return rc;
	memset(&sp, 0, sizeof(sp));
	if (web_fields_only(body, known, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "tree", 0, &sp.tree, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "mbox_base64", 0, &b64, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "mbox_name", 0, &sp.mbox_name, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "base", 0, &sp.base, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "arch", 0, &sp.arches, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "config", 0, &sp.config, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "fragments", 0, &sp.fragments, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "jobs", 0, &sp.jobs, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "vcpus", 0, &sp.vcpus, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "repeat", &sp.repeat, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "memory_mb", &sp.memory_mb, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "kernel", 0, &sp.kernel, msg, sizeof(msg)) < 0 ||
	    web_field_decided(body, &sp.until_decided, &sp.max_runs, &sp.margin, msg,
			      sizeof(msg)) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
		goto out;
	}
	if (b64 && unbase64(b64, strlen(b64), &mbox) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				     "request body: field 'mbox_base64': not base64");
		goto out;
	}
	sp.mbox = mbox.len ? buf_str(&mbox) : NULL;
	sp.mbox_len = mbox.len;
	pthread_mutex_lock(&w->submit_lock);
	r = orch_submit_series(w->orch, &sp, &id, &err);
	pthread_mutex_unlock(&w->submit_lock);
	rc = reply_submit(c, r, err, "id", id);
out:
	buf_release(&mbox);
	free(err);
	json_decref(body);
	return rc;
}

/* POST /api/import: a log from elsewhere, parsed and stored as a run */
WEB_HANDLER(api_import)
{
	struct web_req *req = arg->req;
	static const char *const known[] = {
		"kernel", "arch", "vcpus", "job", "parser", "name", "log_base64", NULL,
	};
	struct import_spec sp;
	struct buf log = BUF_INIT(0);
	const char *b64 = NULL;
	char msg[256], *err = NULL;
	json_t *body = NULL;
	enum MHD_Result rc;
	int64_t id = 0;
	int r;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->orch)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "imports cannot be made here");
	rc = web_body_json(c, req, &body);
	if (!body)
		return rc;
	memset(&sp, 0, sizeof(sp));
	if (web_fields_only(body, known, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "kernel", 1, &sp.kernel, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "arch", 0, &sp.arch, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "vcpus", &sp.vcpus, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "job", 0, &sp.job, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "parser", 0, &sp.parser, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "name", 0, &sp.name, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "log_base64", 1, &b64, msg, sizeof(msg)) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
		goto out;
	}
	if (unbase64(b64, strlen(b64), &log) < 0) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				     "request body: field 'log_base64': not base64");
		goto out;
	}
	sp.log = buf_str(&log);
	sp.len = log.len;
	pthread_mutex_lock(&w->submit_lock);
	r = orch_import(w->orch, &sp, &id, &err);
	pthread_mutex_unlock(&w->submit_lock);
	rc = reply_submit(c, r, err, "id", id);
out:
	buf_release(&log);
	free(err);
	json_decref(body);
	return rc;
}

/* ---- GET handlers ---- */

WEB_HANDLER(api_trees)
{
	struct tree_row *t = NULL;
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	json_t *a;
	size_t n = 0;

	if (!db)
		return rc;
	if (db_tree_list(db, &t, &n) < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				       db_errmsg(db));
	a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, row_json(db_tree_fields, &t[i]));
	db_rows_free(db_tree_fields, t, sizeof(*t), n);
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "trees", a));
}

static enum MHD_Result submissions_get(struct web *w, struct MHD_Connection *c, int64_t id)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	struct submission *v = NULL, s;
	size_t n = 0;
	json_t *a;
	int found;

	if (!db)
		return rc;
	if (id) {
		found = db_submission_get(db, id, &s);
		if (found < 0)
			return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					       db_errmsg(db));
		if (!found)
			return web_reply_error(c, MHD_HTTP_NOT_FOUND,
					       "submission %lld: no such submission", (long long)id);
		a = submission_json(db, &s, 1);
		db_row_release(db_submission_fields, &s, sizeof(s));
		return web_reply_json(c, MHD_HTTP_OK, a);
	}
	if (db_submission_list(db, WEB_LIST_DEFAULT, &v, &n) < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				       db_errmsg(db));
	a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, submission_json(db, &v[i], 0));
	db_rows_free(db_submission_fields, v, sizeof(*v), n);
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "submissions", a));
}

static enum MHD_Result builds_get(struct web *w, struct MHD_Connection *c, int64_t id)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	struct build_row *v = NULL, b;
	size_t n = 0;
	json_t *a;
	int found;

	if (!db)
		return rc;
	if (id) {
		found = db_build_get(db, id, &b);
		if (found < 0)
			return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					       db_errmsg(db));
		if (!found)
			return web_reply_error(c, MHD_HTTP_NOT_FOUND, "build %lld: no such build",
					       (long long)id);
		a = build_json(db, &b);
		db_row_release(db_build_fields, &b, sizeof(b));
		return web_reply_json(c, MHD_HTTP_OK, a);
	}
	if (db_build_list(db, WEB_LIST_DEFAULT, &v, &n) < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				       db_errmsg(db));
	a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, build_json(db, &v[i]));
	db_rows_free(db_build_fields, v, sizeof(*v), n);
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "builds", a));
}

WEB_HANDLER(api_trees_add)
{
	return trees_post(w, c, arg->req, NULL);
}

WEB_HANDLER(api_tree_fetch)
{
	return trees_post(w, c, arg->req, arg->name);
}

WEB_HANDLER(api_submissions)
{
	return submissions_get(w, c, 0);
}

WEB_HANDLER(api_submission)
{
	return submissions_get(w, c, arg->id);
}

WEB_HANDLER(api_builds)
{
	return builds_get(w, c, 0);
}

WEB_HANDLER(api_build)
{
	return builds_get(w, c, arg->id);
}

/* ---- pages ---- */

static void kv(struct buf *b, const char *k, const char *v)
{
	web_html_kv(b, k, v, "<span class=\"note\">-</span>");
}

static const char *state_class(const char *s)
{
	if (!s)
		return "";
	if (!strcmp(s, "done"))
		return "passed";
	if (!strcmp(s, "failed"))
		return "failed";
	return "running";
}

static void builds_table(struct db *db, struct buf *b, const struct build_row *v, size_t n,
			 int side)
{
	struct web_progress p;
	char dur[32];

	buf_printf(b, "<table>\n<tr><th>build</th>%s<th>arch</th><th>commit</th><th>state</th>"
		   "<th>release</th><th>time</th><th>notes</th></tr>\n",
		   side ? "<th>side</th>" : "");
	for (size_t i = 0; i < n; i++) {
		const struct build_row *r = &v[i];

		buf_printf(b, "<tr><td><a href=\"/builds/%lld\">%lld</a></td>", (long long)r->id,
			   (long long)r->id);
		if (side) {
			buf_puts(b, "<td>");
			web_html_str(b, r->side);
			buf_puts(b, "</td>");
		}
		buf_puts(b, "<td>");
		web_html_str(b, r->arch);
		buf_printf(b, "</td><td><code>%.12s</code></td><td class=\"%s\">",
			   r->commit_id ? r->commit_id : "", state_class(r->state));
		web_html_str(b, r->state);
		if (side && r->reused)
			buf_puts(b, " (reused)");
		if (web_build_progress(db, r, &p)) {
			buf_puts(b, "<div class=\"note\">");
			web_progress_text(&p, b);
			buf_puts(b, "</div>");
		}
		buf_puts(b, "</td><td>");
		web_html_str(b, r->release);
		snprintf(dur, sizeof(dur), "%lld s", (long long)(r->ms / 1000));
		buf_printf(b, "</td><td>%s</td><td>", r->ms ? dur : "");
		if (r->errors) {
			buf_puts(b, "<pre>");
			web_html_str(b, r->errors);
			buf_puts(b, "</pre>");
		} else if (r->detail) {
			web_html_str(b, r->detail);
		}
		if (r->dropped) {
			buf_puts(b, "<div class=\"note\">not kept by olddefconfig: ");
			web_html_str(b, r->dropped);
			buf_puts(b, "</div>");
		}
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</table>\n");
}

/* The series as kfleet read it: the cover letter and the patches */
static void series_html(struct buf *b, const char *series_json)
{
	json_t *j = json_loads(series_json, 0, NULL), *p, *cover;
	size_t i;

	buf_puts(b, "<h2>Series</h2>\n");
	cover = j ? json_object_get(j, "cover") : NULL;
	if (cover && json_is_object(cover)) {
		buf_puts(b, "<details><summary>cover letter</summary><pre>");
		web_html_str(b, json_string_value(json_object_get(cover, "subject")));
		buf_puts(b, "\n\n");
		web_html_str(b, json_string_value(json_object_get(cover, "body")));
		buf_puts(b, "</pre></details>\n");
	}
	buf_puts(b, "<table>\n<tr><th>#</th><th>patch</th><th>author</th><th>files</th>"
		 "</tr>\n");
	json_array_foreach(j ? json_object_get(j, "patches") : NULL, i, p) {
		buf_printf(b, "<tr><td>%lld</td><td>",
			   (long long)json_integer_value(json_object_get(p, "index")));
		web_html_str(b, json_string_value(json_object_get(p, "title")));
		buf_puts(b, "</td><td>");
		web_html_str(b, json_string_value(json_object_get(p, "author")));
		buf_printf(b, "</td><td>%lld (+%lld -%lld)</td></tr>\n",
			   (long long)json_integer_value(json_object_get(p, "files")),
			   (long long)json_integer_value(json_object_get(p, "insertions")),
			   (long long)json_integer_value(json_object_get(p, "deletions")));
	}
	buf_puts(b, "</table>\n");
	json_decref(j);
}

/* The plain runs of the submission's commit and its requests */
static void submission_runs_html(struct buf *b, struct db *db, int64_t id)
{
	int64_t *ids = NULL;
	size_t n = 0;

	if (db_submission_runs(db, id, WEB_LIST_MAX, &ids, &n) == 0 && n) {
		buf_puts(b, "<h2>Runs of the commit</h2>\n<table>\n<tr><th>run</th><th>arch</th>"
			 "<th>vCPUs</th><th>job</th><th>outcome</th></tr>\n");
		for (size_t i = 0; i < n; i++) {
			struct run r;

			if (db_run_get(db, ids[i], &r) != 1)
				continue;
			buf_printf(b, "<tr><td><a href=\"/runs/%lld\">%lld</a></td><td>",
				   (long long)r.id, (long long)r.id);
			web_html_str(b, r.arch);
			buf_printf(b, "</td><td>%d</td><td>", r.vcpus);
			web_html_str(b, r.job);
			buf_printf(b, "</td><td class=\"%s\">%s</td></tr>\n",
				   r.state == RUN_DONE ? run_outcome_name(r.outcome) : run_state_name(r.state),
				   r.state == RUN_DONE ? run_outcome_name(r.outcome) : run_state_name(r.state));
			run_release(&r);
		}
		buf_puts(b, "</table>\n");
	}
	free(ids);
	ids = NULL;
	n = 0;
	if (db_submission_requests(db, id, &ids, &n) == 0 && n) {
		buf_puts(b, "<h2>Requests</h2>\n<ul>\n");
		for (size_t i = 0; i < n; i++) {
			struct request q;

			if (db_request_get(db, ids[i], &q) != 1)
				continue;
			buf_printf(b, "<li><a href=\"/requests/%lld\">request %lld</a>: ",
				   (long long)q.id, (long long)q.id);
			web_html_str(b, q.job);
			buf_printf(b, ", %d repeats</li>\n", q.repeats);
			request_release(&q);
		}
		buf_puts(b, "</ul>\n");
	}
	free(ids);
}

static enum MHD_Result submission_page(struct web *w, struct MHD_Connection *c, int64_t id)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct build_row *v = NULL;
	struct submission s;
	size_t n = 0;
	char title[64], t[32];
	const char *state;
	int found, runs, done, canceled;

	if (!db)
		return rc;
	found = db_submission_get(db, id, &s);
	if (found <= 0)
		return web_reply_html_error(c, found < 0 ? MHD_HTTP_INTERNAL_SERVER_ERROR :
					    MHD_HTTP_NOT_FOUND, "submission %lld: %s",
					    (long long)id, found < 0 ? "database error" :
					    "no such submission");
	state = submission_state(db, &s, &runs, &done);
	snprintf(title, sizeof(title), "submission %lld", (long long)id);
	web_page_head(&b, title, strcmp(state, "done") && strcmp(state, "failed"));
	/* a user's cancel is not a failure of the series */
	canceled = s.outcome && !strcmp(s.outcome, "canceled");
	buf_printf(&b, "<h1>%s <span class=\"%s\">", title,
		   canceled ? "canceled" : state_class(state));
	web_html_str(&b, canceled ? "canceled" : state);
	buf_puts(&b, "</span></h1>\n");
	if (s.detail) {
		buf_printf(&b, "<p class=\"%s\"><b>", canceled ? "canceled" : s.outcome ? "failed" :
			   "note");
		web_html_str(&b, s.outcome);
		buf_puts(&b, s.outcome ? ":</b> " : "</b>");
		web_html_str(&b, s.detail);
		buf_puts(&b, "</p>\n");
	}
	buf_puts(&b, "<table>\n");
	kv(&b, "tree", s.tree);
	kv(&b, "series", s.series_subject ? s.series_subject : s.kernel ?
	   "(none: a kernel built elsewhere, the tree gives its selftests)" :
	   "(none: the base only)");
	kv(&b, "kernel", s.kernel);
	kv(&b, "from", s.series_name);
	kv(&b, "base", s.base_commit);
	kv(&b, "base chosen", s.base_why);
	kv(&b, "patched", s.patched_commit);
	kv(&b, "arches", s.arches);
	kv(&b, "config", s.kernel ? NULL : s.config);
	kv(&b, "fragments", s.fragments);
	kv(&b, "jobs", s.jobs);
	kv(&b, "vCPUs", s.vcpus);
	fmt_time_ms(s.created_at, 0, t, sizeof(t));
	kv(&b, "submitted", t);
	buf_puts(&b, "</table>\n");
	if (s.series_json)
		series_html(&b, s.series_json);
	web_watch_reported_html(&b, db, id);
	buf_puts(&b, "<h2>Builds</h2>\n");
	if (db_submission_builds(db, id, &v, &n) == 0 && n)
		builds_table(db, &b, v, n, 1);
	else
		buf_puts(&b, "<p class=\"note\">none yet</p>\n");
	db_rows_free(db_build_fields, v, sizeof(*v), n);
	if (s.apply_log) {
		buf_puts(&b, "<details><summary>git am</summary><pre>");
		web_html_str(&b, s.apply_log);
		buf_puts(&b, "</pre></details>\n");
	}
	if (runs)
		buf_printf(&b, "<p>%d of %d runs done</p>\n", done, runs);
	submission_runs_html(&b, db, id);
	web_page_tail(&b);
	db_row_release(db_submission_fields, &s, sizeof(s));
	return web_reply_page(c, &b);
}

/* GET /submissions/ID/log: the checkout as plain text, KCIDB's checkout
 * log_url: the tree, the base and why, the series, and git am's output
 * (or why there is none) */
WEB_HANDLER(pages_submission_log)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct submission s;
	int found;

	if (!db)
		return rc;
	found = db_submission_get(db, arg->id, &s);
	if (found <= 0)
		return web_reply_error(c, found < 0 ? MHD_HTTP_INTERNAL_SERVER_ERROR :
				       MHD_HTTP_NOT_FOUND, "submission %lld: %s", (long long)arg->id,
				       found < 0 ? "database error" : "no such submission");
	buf_printf(&b, "kfleet submission %lld: the checkout\n", (long long)arg->id);
	buf_printf(&b, "tree:    %s\n", s.tree ? s.tree : "");
	buf_printf(&b, "base:    %s%s%s%s\n", s.base_commit ? s.base_commit : "(not chosen yet)",
		   s.base_why ? " (" : "", s.base_why ? s.base_why : "", s.base_why ? ")" : "");
	if (s.series_subject || s.series_name)
		buf_printf(&b, "series:  %s\n", s.series_subject ? s.series_subject : s.series_name);
	if (s.patched_commit)
		buf_printf(&b, "patched: %s\n", s.patched_commit);
	if (s.outcome)
		buf_printf(&b, "outcome: %s%s%s\n", s.outcome, s.detail ? ": " : "",
			   s.detail ? s.detail : "");
	if (s.apply_log && *s.apply_log)
		buf_printf(&b, "\n$ git am -3\n%s%s", s.apply_log,
			   s.apply_log[strlen(s.apply_log) - 1] == '\n' ? "" : "\n");
	else if (s.series_subject || s.series_name)
		buf_puts(&b, s.patched_commit ? "\n(git am's output is not kept for this "
			 "submission: its patches were applied before, on the same base)\n" :
			 "\n(not applied yet)\n");
	else
		buf_puts(&b, "\n(no series: the base as it is)\n");
	rc = web_reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", &b);
	buf_release(&b);
	db_row_release(db_submission_fields, &s, sizeof(s));
	return rc;
}

WEB_HANDLER(pages_submissions)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct submission *v = NULL;
	size_t n = 0;
	char t[32];

	if (!db)
		return rc;
	if (db_submission_list(db, WEB_LIST_DEFAULT, &v, &n) < 0)
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	web_page_head(&b, "submissions", 0);
	buf_puts(&b, "<h1>Submissions</h1>\n<table>\n<tr><th>id</th><th>tree</th><th>series</th>"
		 "<th>arches</th><th>state</th><th>submitted</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		int runs, done;
		const char *st = submission_state(db, &v[i], &runs, &done);

		buf_printf(&b, "<tr><td><a href=\"/submissions/%lld\">%lld</a></td><td>",
			   (long long)v[i].id, (long long)v[i].id);
		web_html_str(&b, v[i].tree);
		buf_puts(&b, "</td><td>");
		web_html_str(&b, v[i].series_subject ? v[i].series_subject : "(base only)");
		buf_puts(&b, "</td><td>");
		web_html_str(&b, v[i].arches);
		buf_printf(&b, "</td><td class=\"%s\">", state_class(st));
		web_html_str(&b, st);
		if (v[i].outcome) {
			buf_puts(&b, ": ");
			web_html_str(&b, v[i].outcome);
		}
		fmt_time_ms(v[i].created_at, 0, t, sizeof(t));
		buf_printf(&b, "</td><td>%s</td></tr>\n", t);
	}
	buf_puts(&b, "</table>\n");
	db_rows_free(db_submission_fields, v, sizeof(*v), n);
	web_page_tail(&b);
	return web_reply_page(c, &b);
}

WEB_HANDLER(pages_trees)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct tree_row *v = NULL;
	size_t n = 0;
	char t[32];

	if (!db)
		return rc;
	if (db_tree_list(db, &v, &n) < 0)
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database error");
	web_page_head(&b, "trees", 0);
	buf_puts(&b, "<h1>Trees</h1>\n<table>\n<tr><th>name</th><th>from</th><th>branch</th>"
		 "<th>state</th><th>head</th><th>fetched</th></tr>\n");
	for (size_t i = 0; i < n; i++) {
		buf_puts(&b, "<tr><td>");
		web_html_str(&b, v[i].name);
		buf_puts(&b, "</td><td>");
		web_html_str(&b, v[i].url);
		buf_puts(&b, "</td><td>");
		web_html_str(&b, v[i].branch ? v[i].branch : "HEAD");
		buf_printf(&b, "</td><td class=\"%s\">", !strcmp(v[i].state, "error") ? "failed" :
			   "passed");
		web_html_str(&b, v[i].state);
		if (v[i].detail) {
			buf_puts(&b, ": ");
			web_html_str(&b, v[i].detail);
		}
		fmt_time_ms(v[i].fetched_at, 0, t, sizeof(t));
		buf_printf(&b, "</td><td><code>%.12s</code></td><td>%s</td></tr>\n",
			   v[i].head ? v[i].head : "", t);
	}
	buf_puts(&b, "</table>\n");
	db_rows_free(db_tree_fields, v, sizeof(*v), n);
	web_page_tail(&b);
	return web_reply_page(c, &b);
}

static enum MHD_Result build_page(struct web *w, struct MHD_Connection *c, int64_t id, int raw)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX), log = BUF_INIT(LOG_TAIL);
	struct build_row r;
	char title[64], *path = NULL;
	int found;

	if (!db)
		return rc;
	found = db_build_get(db, id, &r);
	if (found <= 0)
		return web_reply_html_error(c, found < 0 ? MHD_HTTP_INTERNAL_SERVER_ERROR :
					    MHD_HTTP_NOT_FOUND, "build %lld: %s", (long long)id,
					    found < 0 ? "database error" : "no such build");
	path = path_join(r.dir, "build.log");
	if (raw) {
		rc = path ? web_reply_file(c, path, "text/plain; charset=utf-8", WEB_CONSOLE_MAX, 0) :
			    web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
		goto out;
	}
	snprintf(title, sizeof(title), "build %lld", (long long)id);
	web_page_head(&b, title, !strcmp(r.state, "building"));
	buf_printf(&b, "<h1>%s <span class=\"%s\">", title, state_class(r.state));
	web_html_str(&b, r.state);
	buf_puts(&b, "</span></h1>\n<table>\n");
	{
		struct web_progress p;
		struct buf pt = BUF_INIT(0);

		if (web_build_progress(db, &r, &p)) {
			web_progress_text(&p, &pt);
			kv(&b, "progress", buf_str(&pt));
		}
		buf_release(&pt);
	}
	kv(&b, "tree", r.tree);
	kv(&b, "commit", r.commit_id);
	kv(&b, "arch", r.arch);
	kv(&b, "config", r.config);
	kv(&b, "config hash", r.config_hash);
	kv(&b, "toolchain", r.toolchain);
	kv(&b, "key", r.key);
	kv(&b, "release", r.release);
	kv(&b, "kernel", r.kernel_path);
	kv(&b, "directory", r.dir);
	kv(&b, "detail", r.detail);
	kv(&b, "not kept by olddefconfig", r.dropped);
	buf_puts(&b, "</table>\n");
	if (r.errors) {
		buf_puts(&b, "<h2>Errors</h2>\n<pre>");
		web_html_str(&b, r.errors);
		buf_puts(&b, "</pre>\n");
	}
	buf_printf(&b, "<h2>Log</h2>\n<p><a href=\"/builds/%lld/log\">whole log</a></p>\n<pre>",
		   (long long)id);
	if (path && read_file_tail(path, &log, LOG_TAIL) == 0)
		web_html(&b, buf_str(&log), log.len);
	buf_puts(&b, "</pre>\n");
	web_page_tail(&b);
	rc = web_reply_page(c, &b);
out:
	buf_release(&b);
	buf_release(&log);
	free(path);
	db_row_release(db_build_fields, &r, sizeof(r));
	return rc;
}

WEB_HANDLER(pages_submission)
{
	return submission_page(w, c, arg->id);
}

WEB_HANDLER(pages_build)
{
	return build_page(w, c, arg->id, 0);
}

WEB_HANDLER(pages_build_log)
{
	return build_page(w, c, arg->id, 1);
}
