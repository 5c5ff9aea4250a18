// SPDX-License-Identifier: GPL-2.0-only
/* comparisons.c: GET /api/compare?a=KERNEL&b=KERNEL&job=NAME[&arch=A][&vcpus=N]
 * [&format=json|text|markdown][&columns=all|avg,p99,max,test][&margin=PCT]: the
 * before/after comparison of one job's metrics on two kernels. db/
 * (compare_data.c) hands over the samples of the job's passed runs on
 * each kernel, analysis/cells.c groups them by cell (arch, vcpus, memory,
 * accel, host, topology, NUMA nodes: different cells are never compared),
 * metric and run, and analysis/ gives the verdicts and the rendering.
 * margin= (3 or 3%) sets every metric's margin, which is else the job
 * file's for the metric or the default (analysis.h, CMP_MARGIN).
 * a == b is the A/A mode, to show the noise floor: in each cell that
 * kernel's runs in id order go alternately to half A and half B (the 1st,
 * 3rd, 5th... and the 2nd, 4th...; not the id's own parity, which
 * interleaved base/patched submissions make the same for all). Answers
 * are kept (cache.c) until another run of the two kernels ends. */
#include "web/cache.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/cells.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"
#include "jobs/jobs.h"

#define COMPARE_ROWS_MAX   200000   /* samples read for one comparison */
#define COMPARE_CELLS_MAX  64       /* cells on both kernels together */
#define COMPARE_RULE       "rule2"  /* the decision rule's version, in the cache key:
				     * rule2 = issue 14's (analysis/verdict.c) */

/* One comparison being made */
struct creq {
	int64_t a, b;
	const char *job, *arch;
	long long vcpus;                  /* 0: any */
	int aa;
	const char *fmt;                  /* "json", "text" or "markdown" */
	unsigned cols;
	double margin;                    /* margin=, a fraction; 0 not given */
	struct cells cells;
	size_t nsamples;                  /* samples read, at most COMPARE_ROWS_MAX */
	int side;                         /* of the kernel being read */
	int64_t run;                      /* the run being read, 0 none */
	int64_t left_out[2];              /* done runs that did not pass, per side */
	char *label[2];
};

static void creq_release(struct creq *q)
{
	cells_release(&q->cells);
	free(q->label[0]);
	free(q->label[1]);
}

/* db_compare_samples()'s callback: 0, -1 memory, -2 past COMPARE_ROWS_MAX
 * samples, -3 past COMPARE_CELLS_MAX cells */
static int on_sample(const struct db_compare_sample *s, void *ctx)
{
	struct creq *q = ctx;

	if (q->nsamples == COMPARE_ROWS_MAX)
		return -2;
	q->nsamples++;
	if (s->run_id != q->run) {
		struct cmp_cell c = {
			(char *)s->arch, s->vcpus, s->memory_mb, (char *)s->accel, (char *)s->host,
			(char *)s->topology, s->numa_nodes, (char *)s->boot,
		};
		int r = cells_run_id(&q->cells, &c, q->aa ? CELLS_ALTERNATE : q->side, s->run_id);

		if (r < 0)
			return r == -2 ? -3 : -1;
		q->run = s->run_id;
	}
	return cells_sample(&q->cells, s->metric, s->unit, s->value) < 0 ? -1 : 0;
}

/* Reads the samples of the job's passed runs on kernel id into q's cells
 * (one value per run and metric, the median of its samples: runs are the
 * independent repeats), with side given, or alternately by run within its
 * cell when aa, and counts the done runs that did not pass. 0, -1 on
 * database errors or memory, -2 past COMPARE_ROWS_MAX samples, -3 past
 * COMPARE_CELLS_MAX cells. */
static int read_side(struct db *db, struct creq *q, int64_t id, int side)
{
	struct db_compare_runs f = { id, q->job, q->arch, q->vcpus };
	int64_t n;
	int rc;

	q->side = side;
	q->run = 0;
	rc = db_compare_samples(db, &f, COMPARE_ROWS_MAX - q->nsamples + 1, on_sample, q);
	if (rc)
		return rc;
	if (cells_end(&q->cells) < 0 || db_compare_left_out(db, &f, &n) < 0)
		return -1;
	q->left_out[side] += n;
	return 0;
}

/* The report of one cell; 0 / -1 (memory). nb gets what each side's
 * runs ran beside, and the warning when they differ goes under the table. */
static int cell_report(struct db *db, const struct creq *q, const struct job_def *def,
		       const struct cell *c, struct cmp_report *r, struct cmp_quiet_side *nb)
{
	static const char *const side_name[2] = { "base", "patched" };
	char err[256];

	if (cmp_report_init(r, q->job, q->label[0], q->label[1], &c->cell, &c->cell, err,
			    sizeof(err)) < 0)
		return -1;
	web_report_cell(r, def, c, q->margin, side_name);
	if (!def)
		cmp_report_note(r, "job '%s' is not loaded: metric directions not known", q->job);
	for (int s = 0; s < 2; s++)
		if (q->left_out[s])
			cmp_report_note(r, "kernel %lld: %lld done run%s that did not pass left out",
					(long long)(s ? q->b : q->a), (long long)q->left_out[s],
					q->left_out[s] == 1 ? "" : "s");
	if (web_report_neighbours(db, r, c, side_name, nb) < 0)
		cmp_report_note(r, "neighbours of the runs not read: %s", db_errmsg(db));
	return 0;
}

/* The neighbours' warning as noted (the note that starts so), or NULL */
static const char *neighbours_note(const struct cmp_report *r)
{
	for (size_t i = 0; i < r->nnotes; i++)
		if (r->notes[i] && !strncmp(r->notes[i], "neighbours differ", 17))
			return r->notes[i];
	return NULL;
}

static int parse_columns(const char *s, unsigned *cols)
{
	char tmp[64], *save = NULL;

	*cols = CMP_COL_DEFAULT;
	if (!s)
		return 0;
	if (strlen(s) >= sizeof(tmp))
		return -1;
	strcpy(tmp, s);
	for (char *t = strtok_r(tmp, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, "all"))
			*cols |= CMP_COL_ALL;
		else if (!strcmp(t, "avg"))
			*cols |= CMP_COL_MEAN;
		else if (!strcmp(t, "p99"))
			*cols |= CMP_COL_P99;
		else if (!strcmp(t, "max"))
			*cols |= CMP_COL_MAX;
		else if (!strcmp(t, "test"))
			*cols |= CMP_COL_TEST;
		else
			return -1;
	}
	return 0;
}
/* job names as jobs.h allows them: [a-z0-9_.-]{1,64}; arch names alike */
static int name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);

	return n >= 1 && n <= max && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static enum MHD_Result bad(struct MHD_Connection *c, const char *what)
{
	return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "compare: %s", what);
}

/* The query's parameters into q; MHD_YES, or the 400 replied */
static enum MHD_Result parse_query(struct MHD_Connection *c, struct creq *q, int *ok)
{
	const char *as = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "a");
	const char *bs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "b");
	const char *vs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "vcpus");
	const char *fmt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	const char *cs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "columns");
	const char *ms = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "margin");
	long long a, b;

	*ok = 0;
	q->job = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "job");
	q->arch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "arch");
	if (!as || parse_int(as, 1, INT64_MAX, &a) < 0 || !bs ||
	    parse_int(bs, 1, INT64_MAX, &b) < 0)
		return bad(c, "a and b must be kernel ids");
	if (!q->job || !name_ok(q->job, 64))
		return bad(c, "job=NAME is required ([a-z0-9_.-], up to 64)");
	if (q->arch && !name_ok(q->arch, 32))
		return bad(c, "arch: not an arch name");
	if (vs && parse_int(vs, 1, 1 << 20, &q->vcpus) < 0)
		return bad(c, "vcpus: not a number of vcpus");
	if (fmt && strcmp(fmt, "json") && strcmp(fmt, "text") && strcmp(fmt, "markdown"))
		return bad(c, "format: json, text or markdown");
	if (parse_columns(cs, &q->cols) < 0)
		return bad(c, "columns: a list of avg, p99, max, test, or all");
	if (ms && parse_percent(ms, CMP_MARGIN_MAX, &q->margin) < 0)
		return bad(c, "margin: a percentage above 0 and at most 50 (3 or 3%)");
	q->fmt = fmt ? fmt : "json";
	q->a = a;
	q->b = b;
	q->aa = a == b;
	*ok = 1;
	return MHD_YES;
}

/* The key of a query against the runs as they are now; NULL on errors */
static char *cache_key(struct db *db, const struct creq *q)
{
	int64_t done, last;
	char *key = NULL;

	/* COMPARE_RULE names the decision rule: answers kept under another
	 * rule's key are never given out as this one's */
	if (db_compare_state(db, q->a, q->b, q->job, &done, &last) < 0 ||
	    asprintf(&key, "%s %lld %lld %s %s %lld %s %u margin %.6g runs %lld %lld",
		     COMPARE_RULE, (long long)q->a, (long long)q->b, q->job,
		     q->arch ? q->arch : "-", (long long)q->vcpus, q->fmt, q->cols, q->margin,
		     (long long)done, (long long)last) < 0)
		return NULL;
	return key;
}

/* The labels and the samples of both kernels into q; MHD_YES, or an error
 * replied into *rc */
static int load(struct db *db, struct MHD_Connection *c, struct creq *q, enum MHD_Result *rc)
{
	int r;

	for (int s = 0; s < (q->aa ? 1 : 2); s++) {
		r = db_kernel_label(db, s ? q->b : q->a, q->aa ? " half A" : "", &q->label[s]);
		if (r <= 0) {
			*rc = r < 0 ? web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
						      "database: %s", db_errmsg(db))
				: web_reply_error(c, MHD_HTTP_NOT_FOUND, "kernel %lld: no such kernel",
						  (long long)(s ? q->b : q->a));
			return -1;
		}
	}
	if (q->aa && db_kernel_label(db, q->a, " half B", &q->label[1]) <= 0) {
		*rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				      db_errmsg(db));
		return -1;
	}
	for (int s = 0; s < (q->aa ? 1 : 2); s++) {
		r = read_side(db, q, s ? q->b : q->a, s);
		if (r == -2 || r == -3) {
			*rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST,
					      "compare: more than %d %s; narrow it with arch= or vcpus=",
					      r == -2 ? COMPARE_ROWS_MAX : COMPARE_CELLS_MAX,
					      r == -2 ? "samples" : "cells");
			return -1;
		}
		if (r < 0) {
			log_warn("web: compare: %s", db_errmsg(db));
			*rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					      db_errmsg(db));
			return -1;
		}
	}
	/* cells in a stable order */
	cells_sort(&q->cells);
	return 0;
}

/* Each cell's report into comps (and text, unless q is JSON), each cell
 * with one side only into unmatched (and text). 0, -1 out of memory, -2
 * when a part could not be made */
static int reports(struct web *w, struct db *db, const struct creq *q, json_t *comps,
		   json_t *unmatched, struct buf *text)
{
	int as_text = strcmp(q->fmt, "json") != 0, jbad = 0;

	for (size_t i = 0; i < q->cells.n; i++) {
		const struct cell *cell = &q->cells.v[i];
		struct cmp_report rep;
		struct cmp_quiet_side nb[2];
		json_t *rj;

		if (!cell->runs[0] || !cell->runs[1]) {
			struct buf d = BUF_INIT(0);

			cmp_cell_describe(&cell->cell, &d);
			if (json_array_append_new(unmatched, json_pack("{s:s,s:s}", "cell",
				buf_str(&d), "only", cell->runs[0] ? "base" : "patched")) < 0)
				jbad = 1;
			if (as_text)
				buf_printf(text, "not compared: %s has only %s runs\n\n", buf_str(&d),
					   q->label[cell->runs[0] ? 0 : 1]);
			buf_release(&d);
			continue;
		}
		if (cell_report(db, q, job_set_find(web_jobs(w), q->job), cell, &rep, nb) < 0) {
			cmp_report_release(&rep);
			return -1;
		}
		rj = cmp_report_json(&rep);
		if (rj)
			json_object_set_new(rj, "neighbours",
					    web_neighbours_json(nb, neighbours_note(&rep)));
		if (json_array_append_new(comps, rj) < 0)
			jbad = 1;
		if (as_text) {
			if (text->len)
				buf_puts(text, "\n");
			if ((!strcmp(q->fmt, "markdown") ? cmp_render_markdown(&rep, q->cols, text)
			     : cmp_render_text(&rep, q->cols, text)) < 0)
				jbad = 1;
		}
		cmp_report_release(&rep);
	}
	return jbad ? -2 : 0;
}

/* The JSON answer, kept under key */
static enum MHD_Result reply_json(struct web *w, struct MHD_Connection *c, const struct creq *q,
				  json_t *comps, json_t *unmatched, const char *key)
{
	json_t *o = json_object();
	struct buf body = BUF_INIT(0);
	enum MHD_Result rc = MHD_NO;
	char *js = NULL;

	if (!o || json_object_set_new(o, "job", json_string(q->job)) < 0 ||
	    json_object_set_new(o, "a", json_integer(q->a)) < 0 ||
	    json_object_set_new(o, "b", json_integer(q->b)) < 0 ||
	    json_object_set_new(o, "aa", json_boolean(q->aa)) < 0 ||
	    json_object_set(o, "comparisons", comps) < 0 ||
	    json_object_set(o, "unmatched", unmatched) < 0)
		goto out;
	js = json_dumps(o, JSON_COMPACT);
	if (!js || buf_puts(&body, js) < 0 || buf_puts(&body, "\n") < 0)
		goto out;
	web_cache_put(w, key, buf_str(&body), body.len, "application/json");
	rc = web_reply(c, MHD_HTTP_OK, "application/json", &body);
out:
	free(js);
	buf_release(&body);
	json_decref(o);
	return rc;
}

WEB_HANDLER(api_compare)
{
	struct creq q;
	struct buf text = BUF_INIT(WEB_PAGE_MAX), hit = BUF_INIT(0);
	json_t *comps = NULL, *unmatched = NULL;
	enum MHD_Result rc;
	struct db *db;
	char *key = NULL;
	const char *ctype;
	int ok, r;

	memset(&q, 0, sizeof(q));
	cells_init(&q.cells, COMPARE_CELLS_MAX, 0);
	rc = parse_query(c, &q, &ok);
	if (!ok)
		goto out;
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		goto out;
	key = cache_key(db, &q);
	if (web_cache_get(w, key, &hit, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &hit);
		goto out;
	}
	if (load(db, c, &q, &rc) < 0)
		goto out;
	comps = json_array();
	unmatched = json_array();
	r = comps && unmatched ? reports(w, db, &q, comps, unmatched, &text) : -1;
	if (r == -1 || (r == -2 && !strcmp(q.fmt, "json"))) {
		rc = MHD_NO;
		goto out;
	}
	if (!strcmp(q.fmt, "json")) {
		rc = reply_json(w, c, &q, comps, unmatched, key);
		goto out;
	}
	if (!json_array_size(comps))
		buf_printf(&text, "%s: no passed runs with samples on both sides (%s vs %s)\n",
			   q.job, q.label[0], q.label[1]);
	if (r == -2 || text.truncated) {
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
				     "compare: the table could not be rendered");
		goto out;
	}
	web_cache_put(w, key, buf_str(&text), text.len, "text/plain; charset=utf-8");
	rc = web_reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", &text);
out:
	free(key);
	json_decref(comps);
	json_decref(unmatched);
	buf_release(&text);
	buf_release(&hit);
	creq_release(&q);
	return rc;
}
