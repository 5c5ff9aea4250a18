// SPDX-License-Identifier: GPL-2.0-only
/* trends.c: a job's metric and its tests' pass rates across the commits of
 * a tree, as the pages /trends (what has data) and /trends/view (an inline
 * SVG chart (web/svg.c) of the per-commit medians with their p25-p75
 * band and the change points, the tables of points and pass rates) and as
 * the JSON /api/trend. db/query.c reads the values, analysis/trend.c
 * finds the steps; everything from the database goes through web_html(). */
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"
#include "web/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trend.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"
#include "jobs/jobs.h"

#define TV_PARAM_MAX   200    /* bytes of a query parameter */
#define TV_VCPUS_MAX   1024
#define TV_SHORT       12     /* hex digits of a commit shown */

/* One trend, loaded */
struct tview {
	const char *tree, *job, *metric, *arch;   /* metric NULL: pass rates only */
	int vcpus;
	char *own_metric, *own_arch;              /* what was picked, when not given */
	char picked[512];                         /* how, or "" */
	struct dbq_trend_series *cells;           /* every cell with data */
	size_t ncells;
	int higher_better;
	const char *unit;                         /* borrowed from vals or the job */
	struct dbq_trend_values vals;
	struct dbq_trend_result *res;
	size_t nres;
	int res_truncated;
	int have_results;                         /* a run stored result rows */
	struct trend t;
};

static void tview_release(struct tview *v)
{
	free(v->own_metric);
	free(v->own_arch);
	dbq_trend_series_free(v->cells, v->ncells);
	dbq_trend_values_release(&v->vals);
	dbq_trend_results_free(v->res, v->nres);
	trend_release(&v->t);
	memset(v, 0, sizeof(*v));
}

static const char *arg(struct MHD_Connection *c, const char *key)
{
	const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);

	return s && *s ? s : NULL;
}

/* The metric when none was given: the first of the job's metrics that has
 * data, else the one with the most runs; NULL when no metric has data. */
static const char *pick_metric(const struct job_def *d, const struct dbq_trend_series *s,
			       size_t n)
{
	const struct dbq_trend_series *best = NULL;

	for (size_t i = 0; d && i < d->nmetrics; i++)
		for (size_t j = 0; j < n; j++)
			if (!strcmp(s[j].metric, d->metrics[i].name))
				return s[j].metric;
	for (size_t j = 0; j < n; j++)
		if (!best || s[j].runs > best->runs)
			best = &s[j];
	return best ? best->metric : NULL;
}

/* Merges the metric's commits and the results' commits, both oldest
 * first, into points; fills in (values borrowed from v->vals) and each
 * result row's point. 0 / -1 (memory, or more than TREND_POINTS_MAX) */
static int merge_points(struct tview *v, struct trend_point_in **in, size_t *n,
			struct trend_result **rows)
{
	size_t i = 0, j = 0, np = 0, alloc = v->vals.n + v->nres + 1;
	struct trend_point_in *p = calloc(alloc, sizeof(*p));
	struct trend_result *r = calloc(v->nres ? v->nres : 1, sizeof(*r));

	*in = p;
	*rows = r;
	*n = 0;
	if (!p || !r)
		return -1;
	while (i < v->vals.n || j < v->nres) {
		const struct dbq_trend_commit *c = i < v->vals.n ? &v->vals.c[i] : NULL;
		const struct dbq_trend_result *x = j < v->nres ? &v->res[j] : NULL;
		int cmp;

		if (c && x)
			cmp = c->order != x->order ? (c->order < x->order ? -1 : 1)
			      : strcmp(c->commit, x->commit);
		else
			cmp = c ? -1 : 1;
		if (np == TREND_POINTS_MAX)
			return -1;
		if (cmp <= 0) {
			p[np] = (struct trend_point_in){ c->commit, c->order, c->v, c->n };
			i++;
		} else {
			p[np] = (struct trend_point_in){ x->commit, x->order, NULL, 0 };
		}
		/* the results of this commit */
		while (j < v->nres && v->res[j].order == p[np].order &&
		       !strcmp(v->res[j].commit, p[np].commit)) {
			r[j] = (struct trend_result){ np, v->res[j].run_id, v->res[j].path,
						      v->res[j].status };
			j++;
		}
		np++;
	}
	*n = np;
	return 0;
}

/* Loads the trend the query asks for. 0, 1 with msg and *status set (bad
 * parameter, no data), -1 database error, -2 out of memory. */
/* The query's tree, job, metric, arch and vCPUs into v and *vcpus (0: not
 * given); 0, or -1 with msg */
static int tview_args(struct MHD_Connection *c, struct tview *v, long long *vcpus, char *msg,
		      size_t msglen)
{
	const char *vc = arg(c, "vcpus"), *names[] = { "tree", "job", "metric", "arch" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *s = arg(c, names[i]);

		if (s && strlen(s) > TV_PARAM_MAX) {
			snprintf(msg, msglen, "%s '%.40s...': longer than %d bytes", names[i], s,
				 TV_PARAM_MAX);
			return -1;
		}
	}
	v->tree = arg(c, "tree");
	v->job = arg(c, "job");
	v->metric = arg(c, "metric");
	v->arch = arg(c, "arch");
	if (!v->tree || !v->job) {
		snprintf(msg, msglen, "trend: tree and job are needed (?tree=T&job=J)");
		return -1;
	}
	if (vc && parse_int(vc, 1, TV_VCPUS_MAX, vcpus) < 0) {
		snprintf(msg, msglen, "vcpus '%.20s': not a number from 1 to %d", vc, TV_VCPUS_MAX);
		return -1;
	}
	return 0;
}

static int tview_load(struct web *w, struct MHD_Connection *c, struct db *db, struct tview *v,
		      char *msg, size_t msglen, unsigned *status)
{
	const struct job_def *def;
	const struct dbq_trend_series *best = NULL;
	struct trend_point_in *in = NULL;
	struct trend_result *rows = NULL;
	size_t np = 0, matching = 0;
	long long vcpus = 0;
	int truncated, rc = 1;
	char err[256];

	memset(v, 0, sizeof(*v));
	*status = MHD_HTTP_BAD_REQUEST;
	if (tview_args(c, v, &vcpus, msg, msglen) < 0)
		return 1;
	def = job_set_find(web_jobs(w), v->job);
	*status = MHD_HTTP_NOT_FOUND;
	if (!v->metric) {
		struct dbq_trend_series *all;
		size_t n;

		if (dbq_trend_series(db, v->tree, v->job, NULL, 0, DBQ_TREND_SERIES, &all, &n,
				     &truncated) < 0)
			return -1;
		v->metric = pick_metric(def, all, n);
		if (v->metric && !(v->own_metric = strdup(v->metric))) {
			dbq_trend_series_free(all, n);
			return -2;
		}
		v->metric = v->own_metric;
		dbq_trend_series_free(all, n);
	}
	if (dbq_trend_series(db, v->tree, v->job, v->metric, !v->metric, DBQ_TREND_SERIES,
			     &v->cells, &v->ncells, &truncated) < 0)
		return -1;
	for (size_t i = 0; i < v->ncells; i++) {
		const struct dbq_trend_series *s = &v->cells[i];

		if ((v->arch && strcmp(s->arch, v->arch)) || (vcpus && s->vcpus != vcpus))
			continue;
		matching++;
		if (!best || s->runs > best->runs)
			best = s;
	}
	if (!best) {
		snprintf(msg, msglen, "tree '%s', job '%s'%s%s%s: no %s on kernels built from the "
			 "tree%s", v->tree, v->job, v->metric ? ", metric '" : "",
			 v->metric ? v->metric : "", v->metric ? "'" : "",
			 v->metric ? "passed runs with this metric" : "runs with metrics or results",
			 v->arch || vcpus ? " in that arch and vCPUs" : "");
		return 1;
	}
	if (!v->arch || !vcpus)
		snprintf(v->picked, sizeof(v->picked), "%s%s%s: %s, %d vCPU%s, the cell with the "
			 "most runs (%lld) of the %zu with data", !v->arch ? "arch" : "",
			 !v->arch && !vcpus ? " and " : "", !vcpus ? "vCPUs" : "", best->arch,
			 best->vcpus, best->vcpus == 1 ? "" : "s", (long long)best->runs, matching);
	if (v->own_metric) {
		size_t len = strlen(v->picked);

		snprintf(v->picked + len, sizeof(v->picked) - len, "%smetric '%s': %s", len ? "; " : "",
			 v->metric, def && web_metric_better(def, v->metric, NULL) >= 0 ?
			 "the job's first metric with data" : "the one with the most runs");
	}
	if (!v->arch && !(v->arch = v->own_arch = strdup(best->arch)))
		return -2;
	v->vcpus = vcpus ? (int)vcpus : best->vcpus;
	if (v->metric && dbq_trend_values(db, v->tree, v->job, v->metric, v->arch, v->vcpus,
					  &v->vals) < 0)
		return -1;
	if (dbq_trend_results(db, v->tree, v->job, v->arch, v->vcpus, &v->res, &v->nres,
			      &v->res_truncated) < 0)
		return -1;
	for (size_t i = 0; i < v->nres && !v->have_results; i++)
		v->have_results = v->res[i].path != NULL;
	v->unit = v->vals.unit;
	v->higher_better = web_metric_better(def, v->metric, &v->unit);
	rc = -2;
	if (merge_points(v, &in, &np, &rows) < 0)
		goto out;
	if (trend_build(&v->t, in, np, v->higher_better, err, sizeof(err)) < 0 ||
	    (v->have_results && trend_passrate(&v->t, rows, v->nres, err, sizeof(err)) < 0)) {
		log_warn("web: trend of tree '%s', job '%s': %s", v->tree, v->job, err);
		goto out;
	}
	rc = 0;
out:
	free(in);
	free(rows);
	return rc;
}

/* ---- JSON ---- */

static json_t *tview_json(const struct tview *v)
{
	json_t *o = trend_json(&v->t), *cells = json_array(), *extra = NULL;
	int bad = !o || !cells;

	for (size_t i = 0; !bad && i < v->ncells; i++)
		if (json_array_append_new(cells, json_pack("{s:o, s:i, s:i, s:I}",
			"arch", web_json_str(v->cells[i].arch), "vcpus", v->cells[i].vcpus,
			"commits", v->cells[i].commits, "runs", (json_int_t)v->cells[i].runs)) < 0)
			bad = 1;
	if (!bad) {
		/* json_pack takes cells, also when it fails */
		extra = json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:b, s:I, s:b, s:b}",
			"tree", web_json_str(v->tree), "job", web_json_str(v->job),
			"metric", web_json_str(v->metric), "unit", web_json_str(v->unit),
			"arch", web_json_str(v->arch), "vcpus", v->vcpus,
			"picked", v->picked[0] ? web_json_str(v->picked) : json_null(),
			"cells", cells, "commits_dropped", v->vals.commits_dropped,
			"runs_dropped", (json_int_t)v->vals.runs_dropped,
			"rows_truncated", v->vals.rows_truncated,
			"results_truncated", v->res_truncated);
		cells = NULL;
	}
	if (bad || !extra || json_object_update(o, extra) < 0) {
		json_decref(o);
		o = NULL;
	}
	json_decref(cells);
	json_decref(extra);
	return o;
}

WEB_HANDLER(api_trend)
{
	struct tview v;
	enum MHD_Result rc;
	struct db *db;
	char msg[512];
	unsigned status;
	json_t *o;
	int r;

	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	r = tview_load(w, c, db, &v, msg, sizeof(msg), &status);
	if (r == 1)
		rc = web_reply_error(c, status, "%s", msg);
	else if (r < 0)
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "trend: %s",
				     r == -1 ? db_errmsg(db) : "out of memory");
	else
		rc = (o = tview_json(&v)) ? web_reply_json(c, MHD_HTTP_OK, o) : MHD_NO;
	tview_release(&v);
	return rc;
}

/* ---- the pages ---- */

/* An href to path (/trends/view, /api/trend) of this series, escaped for
 * an attribute */
static void view_href(struct buf *b, const char *path, const char *tree, const char *job,
		      const char *metric, const char *arch, int vcpus)
{
	struct buf u = BUF_INIT(4096);

	buf_printf(&u, "%s?tree=", path);
	buf_url_encode(&u, tree);
	buf_puts(&u, "&job=");
	buf_url_encode(&u, job);
	if (metric) {
		buf_puts(&u, "&metric=");
		buf_url_encode(&u, metric);
	}
	buf_puts(&u, "&arch=");
	buf_url_encode(&u, arch);
	buf_printf(&u, "&vcpus=%d", vcpus);
	web_html(b, buf_str(&u), u.len);
	buf_release(&u);
}

WEB_HANDLER(pages_trends)
{
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct dbq_trend_series *s[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 };
	int trunc[2] = { 0, 0 };
	enum MHD_Result rc;
	struct db *db;

	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	if (dbq_trend_series(db, NULL, NULL, NULL, 0, DBQ_TREND_SERIES, &s[0], &n[0],
			     &trunc[0]) < 0 ||
	    dbq_trend_series(db, NULL, NULL, NULL, 1, DBQ_TREND_SERIES, &s[1], &n[1],
			     &trunc[1]) < 0) {
		rc = web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "trends: %s",
					  db_errmsg(db));
		goto out;
	}
	web_page_head(&b, "kfleet: trends", 0);
	buf_puts(&b, "<h1>trends</h1>\n<p class=\"note\">A job's metric and its tests' pass "
		 "rates across the commits of a tree, from the runs of kernels kfleet built "
		 "(<code>kfleet submit --tree T --base COMMIT --job J --repeat N</code>), one "
		 "cell (arch, vCPUs) at a time.</p>\n");
	if (!n[0] && !n[1]) {
		buf_puts(&b, "<p class=\"note\">no runs of jobs on built kernels yet</p>\n");
	} else {
		buf_puts(&b, "<table class=\"trends\"><thead><tr><th>tree</th><th>job</th>"
			 "<th>metric</th><th>arch</th><th>vCPUs</th><th>commits</th><th>runs</th>"
			 "<th>last run (UTC)</th></tr></thead><tbody>\n");
		for (int k = 0; k < 2; k++)
			for (size_t i = 0; i < n[k]; i++) {
				const struct dbq_trend_series *x = &s[k][i];
				char when[32];

				fmt_time_ms(x->last_ms, 0, when, sizeof(when));
				buf_puts(&b, "<tr><td>");
				web_html_str(&b, x->tree);
				buf_puts(&b, "</td><td>");
				web_html_str(&b, x->job);
				buf_puts(&b, "</td><td><a href=\"");
				view_href(&b, "/trends/view", x->tree, x->job, x->metric, x->arch, x->vcpus);
				buf_puts(&b, "\">");
				if (x->metric)
					web_html_str(&b, x->metric);
				else
					buf_puts(&b, "pass rates");
				buf_puts(&b, "</a></td><td>");
				web_html_str(&b, x->arch);
				buf_printf(&b, "</td><td class=\"num\">%d</td><td class=\"num\">%d</td>"
					   "<td class=\"num\">%lld</td><td>%s</td></tr>\n", x->vcpus,
					   x->commits, (long long)x->runs, when);
			}
		buf_puts(&b, "</tbody></table>\n");
		if (trunc[0] || trunc[1])
			buf_printf(&b, "<p class=\"note\">the first %d of each kind only</p>\n",
				   DBQ_TREND_SERIES);
	}
	web_page_tail(&b);
	rc = web_reply_page(c, &b);
out:
	buf_release(&b);
	dbq_trend_series_free(s[0], n[0]);
	dbq_trend_series_free(s[1], n[1]);
	return rc;
}

static void kv(struct buf *b, const char *k, const char *val)
{
	web_html_kv(b, k, val, "-");
}

static void changes_section(struct buf *b, const struct tview *v)
{
	const struct trend *t = &v->t;

	buf_puts(b, "<h2 id=\"changes\">change points</h2>\n");
	if (!t->nc) {
		buf_printf(b, "<p class=\"note\">none: no step of %.0f%% or more that holds for %d "
			   "commits on each side with p &lt; %g</p>\n", TREND_MIN_CHANGE * 100,
			   TREND_MIN_POINTS, TREND_ALPHA);
		return;
	}
	buf_puts(b, "<table class=\"changes\"><thead><tr><th>at commit</th><th>before</th>"
		 "<th>after</th><th>change</th><th>verdict</th><th>runs</th><th>p</th></tr>"
		 "</thead><tbody>\n");
	for (size_t k = 0; k < t->nc; k++) {
		const struct trend_change *ch = &t->c[k];

		buf_printf(b, "<tr class=\"change %s\"><td><code title=\"", trend_dir_name(ch->dir));
		web_html_str(b, t->v[ch->index].commit);
		buf_puts(b, "\">");
		web_html_prefix(b, t->v[ch->index].commit, TV_SHORT);
		buf_puts(b, "</code></td><td class=\"num\">");
		web_html_num(b, ch->before, "-");
		buf_puts(b, "</td><td class=\"num\">");
		web_html_num(b, ch->after, "-");
		web_html_unit(b, v->unit);
		buf_puts(b, "</td><td class=\"num\">");
		if (isfinite(ch->change_pct))
			buf_printf(b, "%+.1f%%", ch->change_pct);
		else
			buf_puts(b, "-");
		buf_printf(b, "</td><td class=\"%s\">%s</td><td class=\"num\">%zu / %zu</td>"
			   "<td class=\"num\">%.2g</td></tr>\n", trend_dir_name(ch->dir),
			   trend_dir_name(ch->dir), ch->n_before, ch->n_after, ch->p);
	}
	buf_puts(b, "</tbody></table>\n");
	if (t->changes_dropped)
		buf_printf(b, "<p class=\"note\">only the first %d change points found</p>\n",
			   TREND_CHANGES_MAX);
}

static void points_table(struct buf *b, const struct tview *v)
{
	const struct trend *t = &v->t;
	size_t k = 0;

	buf_puts(b, "<h2 id=\"points\">commits</h2>\n<table class=\"points\"><thead><tr>"
		 "<th>commit</th><th>order</th><th>runs</th><th>median</th><th>p25 &ndash; p75</th>"
		 "<th>min &ndash; max</th><th></th></tr></thead><tbody>\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct trend_point *p = &t->v[i];
		const struct trend_change *ch = NULL;

		while (k < t->nc && t->c[k].index < i)
			k++;
		if (k < t->nc && t->c[k].index == i)
			ch = &t->c[k];
		buf_puts(b, "<tr><td><code title=\"");
		web_html_str(b, p->commit);
		buf_puts(b, "\">");
		web_html_prefix(b, p->commit, TV_SHORT);
		buf_puts(b, "</code></td><td class=\"num\">");
		if (p->order >= 0)
			buf_printf(b, "%lld", (long long)p->order);
		else
			buf_puts(b, "?");
		buf_printf(b, "</td><td class=\"num\">%zu</td><td class=\"num\">", p->n);
		web_html_num(b, p->median, "-");
		buf_puts(b, "</td><td class=\"num\">");
		web_html_num(b, p->p25, "-");
		buf_puts(b, " &ndash; ");
		web_html_num(b, p->p75, "-");
		buf_puts(b, "</td><td class=\"num\">");
		web_html_num(b, p->min, "-");
		buf_puts(b, " &ndash; ");
		web_html_num(b, p->max, "-");
		buf_puts(b, "</td><td>");
		if (ch) {
			buf_printf(b, "<span class=\"%s\">&larr; step ", trend_dir_name(ch->dir));
			if (isfinite(ch->change_pct))
				buf_printf(b, "%+.1f%% ", ch->change_pct);
			buf_printf(b, "%s</span>", trend_dir_name(ch->dir));
		}
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}

static void passrate_section(struct buf *b, const struct tview *v)
{
	const struct trend *t = &v->t;

	buf_puts(b, "<h2 id=\"passrate\">pass rates</h2>\n");
	if (!v->have_results) {
		buf_puts(b, "<p class=\"note\">the job's runs stored no subtest results</p>\n");
		return;
	}
	buf_printf(b, "<p>%zu subtest%s failed somewhere, %zu passed wherever they ran.</p>\n",
		   t->ntests + t->tests_dropped, t->ntests + t->tests_dropped == 1 ? "" : "s",
		   t->always_pass);
	if (t->nev) {
		buf_puts(b, "<ul class=\"events\">\n");
		for (size_t i = 0; i < t->nev; i++) {
			const struct trend_event *e = &t->ev[i];

			buf_printf(b, "<li class=\"%s\"><span class=\"%s\">%s</span> at <code>",
				   e->kind == TREND_REGRESSION ? "new-failure" : "fixed",
				   e->kind == TREND_REGRESSION ? "worse" : "better",
				   trend_event_name(e->kind));
			web_html_prefix(b, t->v[e->index].commit, TV_SHORT);
			buf_puts(b, "</code>: ");
			web_html_str(b, t->tests[e->test].path);
			buf_puts(b, "</li>\n");
		}
		buf_puts(b, "</ul>\n");
	}
	if (!t->ntests)
		return;
	buf_puts(b, "<div style=\"overflow-x:auto\"><table class=\"passrate\"><thead><tr>"
		 "<th>subtest</th><th>flips</th>");
	for (size_t p = 0; p < t->n; p++) {
		buf_puts(b, "<th><code>");
		web_html_prefix(b, t->v[p].commit, 7);
		buf_puts(b, "</code></th>");
	}
	buf_puts(b, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < t->ntests && i < WEB_RESULTS_MAX; i++) {
		const struct trend_test *x = &t->tests[i];

		buf_puts(b, "<tr><td>");
		web_html_str(b, x->path);
		buf_printf(b, "</td><td class=\"num%s\">%d/%d", x->flaky_points ? " flaky" : "",
			   x->flips, x->chances);
		if (x->flaky_points)
			buf_printf(b, ", flaky at %d", x->flaky_points);
		buf_puts(b, "</td>");
		for (size_t p = 0; p < t->n; p++) {
			const struct trend_count *ct = &x->c[p];

			if (!ct->pass && !ct->fail)
				buf_puts(b, "<td class=\"note\">-</td>");
			else
				buf_printf(b, "<td class=\"num %s\">%d/%d</td>",
					   ct->fail ? "fail" : "pass", ct->pass, ct->pass + ct->fail);
		}
		buf_puts(b, "</tr>\n");
	}
	buf_puts(b, "</tbody></table></div>\n<p class=\"note\">passed / runs with a verdict "
		 "(skips left out); a regression is failing for "
		 "two commits in a row after passing, a fix the reverse; flips: commits whose "
		 "verdict differs from the commit before, of the pairs with a verdict, and the "
		 "commits where it passed and failed on the same kernel (<a href=\"/flaky\">"
		 "quarantine</a> counts those).</p>\n");
	if (t->tests_dropped)
		buf_printf(b, "<p class=\"note\">%zu more failing subtests not shown</p>\n",
			   t->tests_dropped);
}

/* What the trend is of: tree, job, metric, cell, how it was picked, the
 * other cells */
static void trend_table(struct buf *b, const struct tview *v)
{
	char s[64];

	kv(b, "tree", v->tree);
	buf_puts(b, "<tr><th>job</th><td><a href=\"/jobs/");
	buf_url_encode(b, v->job);
	buf_puts(b, "\">");
	web_html_str(b, v->job);
	buf_puts(b, "</a></td></tr>\n");
	if (v->metric) {
		buf_puts(b, "<tr><th>metric</th><td>");
		web_html_str(b, v->metric);
		if (v->unit) {
			buf_puts(b, " (");
			web_html_str(b, v->unit);
			buf_puts(b, ")");
		}
		buf_printf(b, ", %s</td></tr>\n", v->higher_better < 0 ? "direction not known"
			   : v->higher_better ? "higher is better" : "lower is better");
	}
	snprintf(s, sizeof(s), "%d", v->vcpus);
	kv(b, "arch", v->arch);
	kv(b, "vCPUs", s);
	if (v->picked[0])
		kv(b, "picked", v->picked);
	if (v->ncells > 1) {
		buf_puts(b, "<tr><th>other cells</th><td>");
		for (size_t i = 0; i < v->ncells; i++) {
			if (!strcmp(v->cells[i].arch, v->arch) && v->cells[i].vcpus == v->vcpus)
				continue;
			buf_puts(b, "<a href=\"");
			view_href(b, "/trends/view", v->tree, v->job, v->metric, v->cells[i].arch,
				  v->cells[i].vcpus);
			buf_puts(b, "\">");
			web_html_str(b, v->cells[i].arch);
			buf_printf(b, ", %d vCPUs</a> (%lld runs) ", v->cells[i].vcpus,
				   (long long)v->cells[i].runs);
		}
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</table>\n");
}

WEB_HANDLER(pages_trend)
{
	struct buf b = BUF_INIT(WEB_PAGE_MAX), title = BUF_INIT(1024);
	struct tview v;
	enum MHD_Result rc;
	struct db *db;
	char msg[512];
	unsigned status;
	int r;

	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	r = tview_load(w, c, db, &v, msg, sizeof(msg), &status);
	if (r) {
		rc = r == 1 ? web_reply_html_error(c, status, "%s", msg)
		     : web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "trend: %s",
					    r == -1 ? db_errmsg(db) : "out of memory");
		goto out;
	}
	buf_printf(&title, "kfleet: trend of %s, %s on %s", v.metric ? v.metric : "pass rates",
		   v.job, v.tree);
	web_page_head(&b, buf_str(&title), 0);
	buf_puts(&b, "<h1>trend: ");
	web_html_str(&b, v.metric ? v.metric : "pass rates");
	buf_puts(&b, "</h1>\n<table class=\"kv\">\n");
	trend_table(&b, &v);
	if (v.vals.commits_dropped || v.vals.runs_dropped || v.vals.rows_truncated ||
	    v.res_truncated)
		buf_printf(&b, "<p class=\"note\">bounded: the newest %d commits, the newest %d "
			   "runs of each, at most %d rows</p>\n", DBQ_TREND_COMMITS, DBQ_TREND_RUNS,
			   DBQ_TREND_ROWS);
	if (v.metric) {
		buf_puts(&b, "<figure>\n");
		if (svg_trend(&b, &v.t, v.metric, v.unit) < 0)
			buf_puts(&b, "<p class=\"note\">no passed runs with this metric</p>\n");
		buf_puts(&b, "<figcaption class=\"note\">the median of each commit's runs (each "
			 "run counts once, as the median of its samples), the p25&ndash;p75 band, a "
			 "dot per run; dashed: the level between change points</figcaption>\n"
			 "</figure>\n");
		changes_section(&b, &v);
		points_table(&b, &v);
	}
	passrate_section(&b, &v);
	buf_puts(&b, "<p class=\"note\"><a href=\"");
	view_href(&b, "/api/trend", v.tree, v.job, v.metric, v.arch, v.vcpus);
	buf_puts(&b, "\">as JSON</a> &middot; <a href=\"/trends\">all trends</a></p>\n");
	web_page_tail(&b);
	rc = web_reply_page(c, &b);
out:
	buf_release(&b);
	buf_release(&title);
	tview_release(&v);
	return rc;
}
