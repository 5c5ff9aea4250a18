// SPDX-License-Identifier: GPL-2.0-only
/* flaky.c: the tests in quarantine (the daemon keeps the table, see
 * orchestrator/quarantine.c and analysis/flaky.h) as the page /flaky, with
 * each test's recent pass/fail sequence per kernel, and as the JSON
 * GET /api/flaky (?all=1: released ones too). Pages read the table; they
 * never decide a quarantine. The page is kept (cache.c) until another run
 * is done or the table changes. */
#include "web/cache.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/flaky.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"

#define FLAKY_LIST_MAX      500   /* rows a listing shows */
#define FLAKY_PAGE_KERNELS  8     /* kernels a test's history shows */

static double row_rate(const struct db_quarantine *q)
{
	return q->chances ? (double)q->flips / (double)q->chances : 0;
}

static json_t *row_json(const struct db_quarantine *q)
{
	char cell[64];

	snprintf(cell, sizeof(cell), "%s, %lld vCPU%s", q->arch, (long long)q->vcpus,
		 q->vcpus == 1 ? "" : "s");
	return json_pack("{s:I, s:o, s:o, s:o, s:I, s:s, s:f, s:I, s:I, s:I, s:I, s:o, s:I,"
			 " s:o, s:I, s:o, s:o}",
			 "id", (json_int_t)q->id, "path", web_json_str(q->path),
			 "job", web_json_str(q->job), "arch", web_json_str(q->arch),
			 "vcpus", (json_int_t)q->vcpus, "cell", cell, "flip_rate", row_rate(q),
			 "flips", (json_int_t)q->flips, "chances", (json_int_t)q->chances,
			 "failed", (json_int_t)q->fails, "runs", (json_int_t)q->runs,
			 "since", web_json_time(q->since), "since_run_id",
			 (json_int_t)q->since_run_id, "reason", web_json_str(q->reason),
			 "last_run_id", (json_int_t)q->last_run_id,
			 "released_at", web_json_time(q->released_at),
			 "released_why", web_json_str(q->released_why));
}

/* The rule as the listing states it */
static json_t *rule_json(void)
{
	return json_pack("{s:i, s:i, s:i, s:s}", "window", FLAKY_WINDOW, "min_flips",
			 FLAKY_MIN_FLIPS, "release_runs", FLAKY_RELEASE_RUNS, "flip",
			 "a run whose verdict differs from the run before it on the same kernel"
			 " in the same cell (job, arch, vCPUs)");
}

static int want_all(struct MHD_Connection *c)
{
	const char *all = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "all");

	return all && (!strcmp(all, "1") || !strcmp(all, "true"));
}

WEB_HANDLER(api_flaky)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	struct db_quarantine *v = NULL;
	size_t n = 0;
	int truncated = 0, bad = 0;
	json_t *a;

	if (!db)
		return rc;
	if (db_quarantine_list(db, want_all(c), FLAKY_LIST_MAX, &v, &n, &truncated) < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "quarantine: %s",
				       db_errmsg(db));
	a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (json_array_append_new(a, row_json(&v[i])) < 0)
			bad = 1;
	db_rows_free(db_quarantine_fields, v, sizeof(*v), n);
	if (!a || bad) {
		json_decref(a);
		return MHD_NO;
	}
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o, s:o, s:b}", "flaky", a, "rule",
							rule_json(), "truncated", truncated));
}

/* The test's newest runs in its cell, one line per kernel (newest
 * kernels first): each run a P or F that links to it */
static void history_html(struct buf *b, struct db *db, const struct db_quarantine *q)
{
	struct db_flaky_cell cell = { q->job, q->arch, (int)q->vcpus };
	struct dbq_flaky_point *p = NULL;
	int64_t kernels[FLAKY_PAGE_KERNELS];
	size_t n = 0, nk = 0;

	if (dbq_flaky_history(db, &cell, q->path, FLAKY_RELEASE_RUNS, &p, &n) < 0) {
		buf_printf(b, "<span class=\"note\">%s</span>", "history not read: database error");
		return;
	}
	if (!n)
		buf_puts(b, "<span class=\"note\">no runs</span>");
	for (size_t i = n; i-- > 0 && nk < FLAKY_PAGE_KERNELS;) {
		size_t k;
		char *label = NULL;

		for (k = 0; k < nk && kernels[k] != p[i].kernel_id; k++)
			;
		if (k < nk)
			continue;
		kernels[nk++] = p[i].kernel_id;
		buf_puts(b, "<div class=\"history\">");
		if (db_kernel_label(db, p[i].kernel_id, "", &label) == 1)
			web_html_str(b, label);
		else
			buf_printf(b, "kernel %lld", (long long)p[i].kernel_id);
		free(label);
		buf_puts(b, ": <code>");
		for (size_t j = 0; j < n; j++)
			if (p[j].kernel_id == p[i].kernel_id)
				buf_printf(b, "<a class=\"%s\" href=\"/runs/%lld\" title=\"run %lld\">%c"
					   "</a>", p[j].failed ? "fail" : "pass",
					   (long long)p[j].run_id, (long long)p[j].run_id,
					   p[j].failed ? 'F' : 'P');
		buf_puts(b, "</code></div>");
	}
	free(p);
}

static void table_html(struct buf *b, struct db *db, const struct db_quarantine *v, size_t n,
		       int released)
{
	buf_printf(b, "<table class=\"flaky\"><thead><tr><th>test</th><th>job</th><th>cell</th>"
		   "<th>flip rate</th><th>failed</th><th>since (UTC)</th><th>%s</th>"
		   "<th>history (oldest first, per kernel)</th></tr></thead><tbody>\n",
		   released ? "released (UTC)" : "why");
	for (size_t i = 0; i < n; i++) {
		const struct db_quarantine *q = &v[i];
		char t[64];

		if ((q->released_at != 0) != released)
			continue;
		buf_puts(b, "<tr><td>");
		web_html_str(b, q->path);
		buf_puts(b, "</td><td>");
		web_job_link(b, q->job);
		buf_puts(b, "</td><td>");
		web_html_str(b, q->arch);
		buf_printf(b, ", %lld vCPU%s</td><td>%.0f%% (%lld of %lld)</td><td>%lld of %lld"
			   "</td><td>", (long long)q->vcpus, q->vcpus == 1 ? "" : "s",
			   100 * row_rate(q), (long long)q->flips, (long long)q->chances,
			   (long long)q->fails, (long long)q->runs);
		fmt_time_ms(q->since, 0, t, sizeof(t));
		web_html_str(b, t);
		if (q->since_run_id)
			buf_printf(b, " <a href=\"/runs/%lld\">run %lld</a>", (long long)q->since_run_id,
				   (long long)q->since_run_id);
		buf_puts(b, "</td><td>");
		if (released) {
			fmt_time_ms(q->released_at, 0, t, sizeof(t));
			web_html_str(b, t);
			buf_puts(b, ": ");
			web_html_str(b, q->released_why);
		} else {
			web_html_str(b, q->reason);
		}
		buf_puts(b, "</td><td>");
		history_html(b, db, q);
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}

WEB_HANDLER(pages_flaky)
{
	enum MHD_Result rc = MHD_NO;
	struct db *db = web_db_or_reply(w, c, 1, &rc);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct db_quarantine *v = NULL;
	size_t n = 0, open = 0;
	int truncated = 0;
	int64_t done[RUN_STATE_COUNT], q[3];
	const char *ctype;
	char key[160] = "";

	if (!db)
		return rc;
	/* the histories read done runs: kept until another run is done or
	 * the quarantine changes */
	if (db_run_counts(db, done) == 0 && db_quarantine_stamp(db, q) == 0)
		snprintf(key, sizeof(key), "flaky/%lld/%lld %lld %lld", (long long)done[RUN_DONE],
			 (long long)q[0], (long long)q[1], (long long)q[2]);
	if (*key && web_cache_get(w, key, &b, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &b);
		buf_release(&b);
		return rc;
	}
	if (db_quarantine_list(db, 1, FLAKY_LIST_MAX, &v, &n, &truncated) < 0)
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "quarantine: %s",
					    db_errmsg(db));
	for (size_t i = 0; i < n; i++)
		open += v[i].released_at == 0;
	web_page_head(&b, "kfleet: flaky tests", 0);
	buf_printf(&b, "<h1>Flaky tests</h1>\n<p>%zu test%s in quarantine: they still run and "
		   "are stored, but their failures do not fail a request.</p>\n", open,
		   open == 1 ? "" : "s");
	buf_printf(&b, "<p class=\"note\">A flip is a run whose verdict differs from the run "
		   "before it on the same kernel in the same cell (job, arch, vCPUs). A test goes "
		   "into quarantine at %d flips in its newest %d runs and is released after %d runs "
		   "without a flip. The flip rate is flips over the runs that had an earlier run of "
		   "their kernel.</p>\n", FLAKY_MIN_FLIPS, FLAKY_WINDOW, FLAKY_RELEASE_RUNS);
	if (open)
		table_html(&b, db, v, n, 0);
	if (n > open) {
		buf_printf(&b, "<h2>released</h2>\n");
		table_html(&b, db, v, n, 1);
	}
	if (truncated)
		buf_printf(&b, "<p class=\"note\">the newest %d only</p>\n", FLAKY_LIST_MAX);
	buf_puts(&b, "<p class=\"note\"><a href=\"/api/flaky?all=1\">as JSON</a></p>\n");
	web_page_tail(&b);
	db_rows_free(db_quarantine_fields, v, sizeof(*v), n);
	if (*key && !b.truncated)
		web_cache_put(w, key, buf_str(&b), b.len, "text/html; charset=utf-8");
	rc = web_reply_page(c, &b);
	buf_release(&b);
	return rc;
}
