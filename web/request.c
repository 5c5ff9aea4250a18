// SPDX-License-Identifier: GPL-2.0-only
/* request.c: one request of base and patched runs (kfleet test), as the
 * page /requests/ID and the JSON /api/requests/ID: its runs as a grid
 * (side x repeat), the pass/fail per subtest of its finished runs
 * (analysis/passfail.c), and the comparison of the metrics of its passed
 * runs per cell (analysis/reqcmp.c, which the until-decided loop
 * decides on too: the numbers /api/compare gives, here over this
 * request's runs only), drawn as strip plots (web/svg.c), and for a
 * request run until decided its rounds and why it stopped (web/decided.c).
 * Everything from the database goes through web_html(). */
#include "web/cache.h"
#include "web/decided.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/report.h"
#include "web/scaling.h"
#include "web/server.h"
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/cells.h"
#include "analysis/flaky.h"
#include "analysis/passfail.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"
#include "jobs/jobs.h"
#include "analysis/reqcmp.h"

#define REQ_HISTORY_MAX 200   /* new failures checked against their kernels' runs */

static const char *const side_names[2] = { "base", "patched" };

/* A request with its runs */
struct req {
	struct request q;
	struct run *runs;     /* q.nruns; id 0 when the run was not found */
	int *side;            /* per run: 0 base, 1 patched */
	int *repeat;          /* per run: 1, 2, ... within its side */
	int done;             /* every run is done */
	int ndone;
	char **qpaths;        /* tests in quarantine in the request's cell, sorted */
	size_t nq;
	int *qonly;           /* per run: it failed, and only by tests in quarantine
				 (set by req_passfail) */
};

static void req_release(struct req *r)
{
	for (size_t i = 0; r->runs && i < r->q.nruns; i++)
		run_release(&r->runs[i]);
	free(r->runs);
	free(r->side);
	free(r->repeat);
	free(r->qonly);
	db_paths_free(r->qpaths, r->nq);
	request_release(&r->q);
}

/* The cell of the request's runs (they share job, arch and vCPUs): 1, or 0
 * when it has no job or no run was found */
static int req_cell(const struct req *r, struct db_flaky_cell *cell)
{
	for (size_t i = 0; r->q.job && i < r->q.nruns; i++)
		if (r->runs[i].id && r->runs[i].job) {
			*cell = (struct db_flaky_cell){ r->runs[i].job, r->runs[i].arch,
							r->runs[i].vcpus };
			return 1;
		}
	return 0;
}

/* 1 found, 0 no such request, -1 database error, -2 out of memory */
static int req_load(struct db *db, int64_t id, struct req *r)
{
	int found, nside[2] = { 0, 0 };

	memset(r, 0, sizeof(*r));
	found = db_request_get(db, id, &r->q);
	if (found <= 0)
		return found;
	r->runs = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*r->runs));
	r->side = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*r->side));
	r->repeat = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*r->repeat));
	r->qonly = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*r->qonly));
	if (!r->runs || !r->side || !r->repeat || !r->qonly)
		return -2;
	/* a request still deciding may get another round */
	r->done = !web_decided_pending(&r->q);
	for (size_t i = 0; i < r->q.nruns; i++) {
		int f = db_run_get(db, r->q.run_ids[i], &r->runs[i]);

		if (f < 0)
			return -1;
		r->side[i] = reqcmp_side(&r->q, i, f ? &r->runs[i] : NULL);
		r->repeat[i] = ++nside[r->side[i]];
		if (f && r->runs[i].state == RUN_DONE)
			r->ndone++;
		else
			r->done = 0;
	}
	{
		struct db_flaky_cell cell;

		if (req_cell(r, &cell) && db_quarantined_paths(db, &cell, &r->qpaths, &r->nq) < 0)
			return -1;
	}
	return 1;
}

/* The key a done request's answer (what: "page" or "json") is kept under
 * (cache.c): its rounds and decision, the runs' counts per state (a
 * sibling's run that ends, for the scaling) and the quarantine's state
 * (pass/fail per subtest). 0, or -1: not kept (not done, or the database
 * could not say) */
static int req_key(struct db *db, const struct req *r, const char *what, char *key, size_t n)
{
	int64_t c[RUN_STATE_COUNT], q[3];

	if (!r->done || db_run_counts(db, c) < 0 || db_quarantine_stamp(db, q) < 0)
		return -1;
	snprintf(key, n, "request/%s/%lld/%d/%s/%lld/runs %lld %lld %lld/quarantine %lld %lld %lld",
		 what, (long long)r->q.id, r->q.rounds, r->q.decided ? r->q.decided : "-",
		 (long long)r->q.decided_at, (long long)c[RUN_QUEUED], (long long)c[RUN_RUNNING],
		 (long long)c[RUN_DONE], (long long)q[0], (long long)q[1], (long long)q[2]);
	return 0;
}

/* The runs whose results count: done, and not ended by the infrastructure
 * or a cancel (those say nothing about the kernel) */
static int run_counts(const struct run *r)
{
	return r->id && r->state == RUN_DONE && r->outcome != RUN_OUT_INFRA &&
		r->outcome != RUN_OUT_CANCELED;
}

/* ---- pass/fail per subtest ---- */

/* The new failures of t against every run of their kernels in the cell
 * (other requests' and plain runs too): one that passed and failed on the
 * same kernel is flaky (passfail_kernel_history). At most
 * REQ_HISTORY_MAX rows are looked up. 0 / -1 database error */
static int req_kernel_history(struct db *db, const struct req *r, struct passfail_table *t)
{
	const int64_t kernels[2] = { r->q.base_kernel_id, r->q.patched_kernel_id };
	struct db_flaky_cell cell;
	size_t looked = 0;

	if (!req_cell(r, &cell) || !t->classes[PASSFAIL_NEW_FAILURE])
		return 0;
	for (size_t i = 0; i < t->n && looked < REQ_HISTORY_MAX; i++) {
		if (t->v[i].cls != PASSFAIL_NEW_FAILURE)
			continue;
		looked++;
		for (int side = 0; side < 2; side++) {
			int runs, fails;

			if (dbq_flaky_kernel_counts(db, &cell, kernels[side], t->v[i].path, &runs,
						    &fails) < 0)
				return -1;
			passfail_kernel_history(t, i, side ? PASSFAIL_PATCHED : PASSFAIL_BASE, runs,
						fails);
		}
	}
	passfail_table_sort(t);
	return 0;
}

/* Fills t from the request's counted runs. 0, 1 when it cannot be
 * classed yet (msg says why), -1 database error, -2 out of memory.
 * *truncated set when there were more result rows than read. */
static int req_passfail(struct db *db, struct req *r, struct passfail_table *t,
			int *truncated, char *msg, size_t msglen)
{
	int *counted_fail = NULL;   /* per counted run: a failure not in quarantine */
	int *any_fail = NULL;
	enum passfail_side *sides = NULL;
	int64_t *ids = NULL;
	struct passfail_result *pr = NULL;
	struct dbq_result *rows = NULL;
	size_t nrows = 0, nruns = 0, npr = 0;
	int rc = -2, have[2] = { 0, 0 };

	memset(t, 0, sizeof(*t));
	*truncated = 0;
	sides = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*sides));
	ids = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*ids));
	counted_fail = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*counted_fail));
	any_fail = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*any_fail));
	if (!sides || !ids || !counted_fail || !any_fail)
		goto out;
	for (size_t i = 0; i < r->q.nruns; i++) {
		if (!run_counts(&r->runs[i]))
			continue;
		sides[nruns] = r->side[i] ? PASSFAIL_PATCHED : PASSFAIL_BASE;
		ids[nruns++] = r->runs[i].id;
		have[r->side[i]] = 1;
	}
	if (!have[0] || !have[1]) {
		snprintf(msg, msglen, "once %s has finished",
			 !have[0] && !have[1] ? "a run of each side" : !have[0] ? "a base run"
			 : "a patched run");
		rc = 1;
		goto out;
	}
	if (dbq_request_results(db, r->q.id, DBQ_RESULTS_MAX, &rows, &nrows, truncated) < 0) {
		rc = -1;
		goto out;
	}
	pr = calloc(nrows ? nrows : 1, sizeof(*pr));
	if (!pr)
		goto out;
	for (size_t i = 0; i < nrows; i++) {
		size_t k;

		for (k = 0; k < nruns && ids[k] != rows[i].run_id; k++)
			;
		if (k == nruns)
			continue;   /* a run that does not count */
		pr[npr].run = k;
		pr[npr].path = rows[i].path;
		pr[npr].status = rows[i].status;
		npr++;
		if (rows[i].status && (!strcmp(rows[i].status, "fail") ||
				       !strcmp(rows[i].status, "error") ||
				       !strcmp(rows[i].status, "timeout"))) {
			any_fail[k] = 1;
			if (!flaky_path_listed(r->qpaths, r->nq, rows[i].path))
				counted_fail[k] = 1;
		}
	}
	if (passfail_classify(sides, nruns, pr, npr, t, msg, msglen) < 0) {
		rc = 1;
		goto out;
	}
	if (req_kernel_history(db, r, t) < 0) {
		rc = -1;
		goto out;
	}
	passfail_quarantine(t, r->qpaths, r->nq);
	/* a run failed by tests in quarantine alone does not fail the request */
	for (size_t i = 0, k = 0; i < r->q.nruns; i++) {
		if (!run_counts(&r->runs[i]))
			continue;
		r->qonly[i] = r->runs[i].outcome == RUN_OUT_FAILED && any_fail[k] &&
			      !counted_fail[k];
		k++;
	}
	rc = 0;
out:
	free(counted_fail);
	free(any_fail);
	free(sides);
	free(ids);
	free(pr);
	dbq_results_free(rows, nrows);
	return rc;
}

/* The pass/fail per subtest of the request's finished runs as
 * passfail_json() gives it (at most WEB_RESULTS_MAX subtests), plus
 * "results_truncated"; {"error": "..."} in its place when a side has no
 * finished run yet. New reference; NULL with *err (caller frees) when the
 * database or memory failed. */
static json_t *request_passfail_json(struct db *db, struct req *r, char **err)
{
	struct passfail_table t;
	char msg[256];
	int rc, truncated = 0;
	json_t *o = NULL;

	rc = req_passfail(db, r, &t, &truncated, msg, sizeof(msg));
	if (rc == 1)
		o = json_pack("{s:s+}", "error", "pass/fail per subtest: ", msg);
	else if (rc == 0 && (o = passfail_json(&t, WEB_RESULTS_MAX)))
		json_object_set_new(o, "results_truncated", json_boolean(truncated));
	if (!o)
		*err = strdup(rc == -1 ? db_errmsg(db) : "out of memory");
	passfail_table_release(&t);
	return o;
}

/* ---- the metric comparison (analysis/reqcmp.c) ---- */

static int req_compare(struct db *db, const struct req *r, const struct job_def *def,
		       struct reqcmp *x)
{
	int rc = reqcmp_build(db, &r->q, r->runs, r->side, def, x);

	if (rc < 0)
		return rc;
	/* the sides' neighbours (web/neighbours.c): a warning when they differ */
	for (size_t i = 0; i < x->cells.n && i < REQCMP_CELLS_MAX; i++) {
		struct cmp_quiet_side nb[2];

		if (!x->have_rep[i])
			continue;
		if (web_report_neighbours(db, &x->rep[i], &x->cells.v[i], side_names, nb) < 0)
			return -1;
	}
	return 0;
}

/* ---- /requests/ID ---- */

static void kv(struct buf *b, const char *k, const char *v)
{
	web_html_kv(b, k, v, "-");
}

static const char *run_word(const struct run *r)
{
	return r->state == RUN_DONE ? run_outcome_name(r->outcome) : run_state_name(r->state);
}

static void runs_grid(struct buf *b, const struct req *r, int64_t now)
{
	int cols = 0;

	for (size_t i = 0; i < r->q.nruns; i++)
		if (r->repeat[i] > cols)
			cols = r->repeat[i];
	buf_puts(b, "<table id=\"grid\" class=\"grid\"><thead><tr><th>side</th>");
	for (int k = 1; k <= cols; k++)
		buf_printf(b, "<th>repeat %d</th>", k);
	buf_puts(b, "</tr></thead><tbody>\n");
	for (int s = 0; s < 2; s++) {
		buf_printf(b, "<tr class=\"%s\"><th>%s</th>", side_names[s], side_names[s]);
		for (int k = 1; k <= cols; k++) {
			const struct run *run = NULL;
			char dur[32];

			for (size_t i = 0; i < r->q.nruns && !run; i++)
				if (r->side[i] == s && r->repeat[i] == k)
					run = &r->runs[i];
			if (!run || !run->id) {
				buf_puts(b, "<td class=\"note\">-</td>");
				continue;
			}
			web_fmt_duration(run->started_at, run->ended_at > 0 ? run->ended_at : now, dur);
			buf_printf(b, "<td><a href=\"/runs/%lld\">run %lld</a> <span class=\"%s\">%s"
				   "</span><br><span class=\"note\">%s</span></td>",
				   (long long)run->id, (long long)run->id, run_word(run), run_word(run),
				   dur);
		}
		buf_puts(b, "</tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}

/* "2 pass, 1 fail" of one side of a row: the counts that are not 0 */
static void side_counts(struct buf *b, const struct passfail_row *row, int side)
{
	static const char *const names[PASSFAIL_OUT_COUNT] = { "pass", "fail", "skip", "missing" };
	int first = 1;

	for (int o = 0; o < PASSFAIL_OUT_COUNT; o++) {
		if (!row->counts[o][side])
			continue;
		buf_printf(b, "%s<span class=\"%s\">%d %s</span>", first ? "" : ", ", names[o],
			   row->counts[o][side], names[o]);
		first = 0;
	}
}

static void passfail_rows(struct buf *b, const struct passfail_table *t, int pass, size_t *shown)
{
	buf_puts(b, "<table class=\"passfail\"><thead><tr><th>subtest</th><th>class</th>"
		 "<th>base</th><th>patched</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < t->n && *shown < WEB_RESULTS_MAX; i++) {
		const struct passfail_row *row = &t->v[i];

		if ((row->cls == PASSFAIL_PASS) != pass)
			continue;
		char label[96];

		passfail_row_label(row, label, sizeof(label));
		buf_printf(b, "<tr class=\"%s\"><td>", passfail_class_id(row->cls));
		web_html_str(b, row->path);
		buf_printf(b, "</td><td class=\"%s\">%s</td><td>", passfail_class_id(row->cls),
			   label);
		side_counts(b, row, 0);
		buf_puts(b, "</td><td>");
		side_counts(b, row, 1);
		buf_puts(b, "</td></tr>\n");
		(*shown)++;
	}
	buf_puts(b, "</tbody></table>\n");
}

static void passfail_section(struct buf *b, struct db *db, struct req *r)
{
	struct passfail_table t;
	char msg[256];
	int truncated = 0, rc, first = 1;
	size_t shown = 0;

	buf_puts(b, "<h2 id=\"passfail\">pass/fail per subtest</h2>\n");
	rc = req_passfail(db, r, &t, &truncated, msg, sizeof(msg));
	if (rc != 0) {
		buf_puts(b, "<p class=\"note\">");
		if (rc == 1)
			web_html_str(b, msg);
		else
			web_html_str(b, rc == -1 ? db_errmsg(db) : "out of memory");
		buf_puts(b, "</p>\n");
		goto out;
	}
	if (!t.n) {
		buf_printf(b, "<p class=\"note\">no subtest results in the %d base and %d patched "
			   "runs that finished</p>\n", t.runs[0], t.runs[1]);
		goto out;
	}
	buf_printf(b, "<p>%zu subtest%s over %d base and %d patched run%s: ", t.n,
		   t.n == 1 ? "" : "s", t.runs[0], t.runs[1], t.runs[1] == 1 ? "" : "s");
	for (int c = 0; c < PASSFAIL_CLASS_COUNT; c++) {
		if (!t.classes[c])
			continue;
		buf_printf(b, "%s<span class=\"%s\">%zu %s</span>", first ? "" : " &middot; ",
			   passfail_class_id((enum passfail_class)c), t.classes[c],
			   passfail_class_name((enum passfail_class)c));
		first = 0;
	}
	buf_puts(b, "</p>\n");
	if (t.quarantined)
		buf_printf(b, "<p id=\"quarantined\" class=\"note\">%zu quarantined failure%s not "
			   "counted (%zu test%s in <a href=\"/flaky\">quarantine</a>)</p>\n",
			   t.quarantined_fails, t.quarantined_fails == 1 ? "" : "s", t.quarantined,
			   t.quarantined == 1 ? "" : "s");
	if (truncated)
		buf_printf(b, "<p class=\"note\">from the first %d result rows only</p>\n",
			   DBQ_RESULTS_MAX);
	if (t.n > t.classes[PASSFAIL_PASS])
		passfail_rows(b, &t, 0, &shown);
	if (t.classes[PASSFAIL_PASS]) {
		buf_printf(b, "<details%s><summary>%zu passing on every run</summary>\n",
			   t.n == t.classes[PASSFAIL_PASS] && t.n <= 50 ? " open" : "",
			   t.classes[PASSFAIL_PASS]);
		passfail_rows(b, &t, 1, &shown);
		buf_puts(b, "</details>\n");
	}
	if (shown < t.n)
		buf_printf(b, "<p class=\"note\">showing %zu of %zu subtests</p>\n", shown, t.n);
	buf_puts(b, "<p class=\"note\">flaky (k of n failed): passed and failed on the same "
		 "kernel, never a new failure &middot; new failure: never failed on base, failed on "
		 "every patched run &middot; fixed: failed on every base run, passed on every "
		 "patched run &middot; missing: not reported by a run (crashed, cut off, or not "
		 "there) &middot; quarantined: flaky across runs, its failures do not fail the "
		 "request</p>\n");
out:
	passfail_table_release(&t);
}

static void compare_section(struct buf *b, struct web *w, struct db *db, const struct req *r)
{
	const struct job_def *def = r->q.job ? job_set_find(web_jobs(w), r->q.job) : NULL;
	struct reqcmp x;
	int rc, shown = 0;

	buf_puts(b, "<h2 id=\"compare\">metrics: base vs patched</h2>\n");
	rc = req_compare(db, r, def, &x);
	if (rc < 0) {
		buf_puts(b, "<p class=\"note\">");
		web_html_str(b, rc == -1 ? db_errmsg(db) : "out of memory");
		buf_puts(b, "</p>\n");
		goto out;
	}
	for (size_t i = 0; i < x.cells.n; i++) {
		struct buf d = BUF_INIT(1024);

		cmp_cell_describe(&x.cells.v[i].cell, &d);
		if (!x.have_rep[i]) {
			buf_puts(b, "<p class=\"note\">not compared: ");
			web_html_str(b, buf_str(&d));
			buf_printf(b, " has only %s runs</p>\n",
				   side_names[x.cells.v[i].runs[0] ? 0 : 1]);
			buf_release(&d);
			continue;
		}
		buf_puts(b, "<p>");
		web_html_str(b, buf_str(&d));
		buf_printf(b, ": %lld base and %lld patched passed run%s</p>\n",
			   (long long)x.cells.v[i].runs[0], (long long)x.cells.v[i].runs[1],
			   x.cells.v[i].runs[1] == 1 ? "" : "s");
		buf_release(&d);
		web_report_html(b, &x.cells.v[i], &x.rep[i]);
		shown++;
	}
	if (x.cells_dropped)
		buf_printf(b, "<p class=\"note\">%zu runs left out: more than %d cells</p>\n",
			   x.cells_dropped, REQCMP_CELLS_MAX);
	if (!shown)
		buf_puts(b, "<p class=\"note\">no passed runs with metric samples on both sides"
			 " yet</p>\n");
	buf_puts(b, "<p class=\"note\">Each run counts once, as the median of its samples; "
		 "only this request's passed runs, compared within the same cell (arch, vCPUs, "
		 "memory, accel, host). ");
	if (r->q.job) {
		buf_printf(b, "<a href=\"/api/compare?a=%lld&amp;b=%lld&amp;format=text&amp;job=",
			   (long long)r->q.base_kernel_id, (long long)r->q.patched_kernel_id);
		web_html_str(b, r->q.job);
		buf_puts(b, "\">All runs of the two kernels</a>.");
	}
	buf_puts(b, "</p>\n");
out:
	reqcmp_release(&x);
}

WEB_HANDLER(pages_request)
{
	int64_t id = arg->id;
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct req r;
	enum MHD_Result rc;
	struct db *db;
	char title[64], s[128], key[256];
	const char *ctype;
	int found;
	int64_t now = now_ms();

	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	found = req_load(db, id, &r);
	if (found < 0) {
		log_warn("web: request %lld: %s", (long long)id,
			 found == -1 ? db_errmsg(db) : "out of memory");
		rc = web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "request %lld: %s",
					  (long long)id, found == -1 ? db_errmsg(db) : "out of memory");
		goto out;
	}
	if (!found) {
		rc = web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "request %lld: no such request",
					  (long long)id);
		goto out;
	}
	if (req_key(db, &r, "page", key, sizeof(key)) < 0)
		key[0] = '\0';
	if (*key && web_cache_get(w, key, &b, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &b);
		goto out;
	}
	snprintf(title, sizeof(title), "kfleet: request %lld", (long long)id);
	web_page_head(&b, title, !r.done);
	buf_printf(&b, "<h1>request %lld: %s</h1>\n", (long long)id,
		   r.done ? "done" : web_decided_pending(&r.q) && r.ndone == (int)r.q.nruns ?
		   "<span class=\"running\">deciding</span>" :
		   "<span class=\"running\">in progress</span>");
	buf_puts(&b, "<table class=\"kv\">\n<tr><th>job</th><td>");
	web_job_link(&b, r.q.job);
	buf_puts(&b, "</td></tr>\n");
	for (int side = 0; side < 2; side++) {
		const char *path = NULL;

		for (size_t i = 0; i < r.q.nruns && !path; i++)
			if (r.runs[i].id && r.side[i] == side)
				path = r.runs[i].kernel_path;
		char *label = reqcmp_label(db, &r.q, side);

		buf_printf(&b, "<tr><th>%s kernel</th><td>", side_names[side]);
		web_html_str(&b, label);
		buf_puts(&b, "<br><span class=\"note\">");
		web_html_str(&b, path);
		buf_puts(&b, "</span></td></tr>\n");
		free(label);
	}
	{
		int64_t sid;

		if (db_request_submission(db, id, &sid) == 1)
			buf_printf(&b, "<tr><th>submission</th><td><a href=\"/submissions/%lld\">"
				   "submission %lld</a>: the series, base and builds</td></tr>\n",
				   (long long)sid, (long long)sid);
	}
	snprintf(s, sizeof(s), "%d per side, interleaved%s", r.q.repeats,
		 r.q.until_decided ? " (the first round)" : "");
	kv(&b, "repeats", s);
	web_decided_html(&b, db, &r.q);
	snprintf(s, sizeof(s), "%d of %zu", r.ndone, r.q.nruns);
	kv(&b, "runs done", s);
	fmt_time_ms(r.q.created_at, 0, s, sizeof(s));
	kv(&b, "created (UTC)", s);
	buf_puts(&b, "</table>\n<h2>runs</h2>\n");
	runs_grid(&b, &r, now);
	passfail_section(&b, db, &r);
	compare_section(&b, w, db, &r);
	web_scaling_section(&b, w, db, &r.q);
	buf_printf(&b, "<p class=\"note\"><a href=\"/api/requests/%lld\">as JSON</a></p>\n",
		   (long long)id);
	web_page_tail(&b);
	if (*key && !b.truncated)
		web_cache_put(w, key, buf_str(&b), b.len, "text/html; charset=utf-8");
	rc = web_reply_page(c, &b);
out:
	buf_release(&b);
	req_release(&r);
	return rc;
}

/* ---- GET /api/requests/ID ---- */

/* The request's runs found, each with its side, repeat and outcome: NULL
 * when out of memory */
static json_t *request_runs_json(const struct req *r)
{
	json_t *runs = json_array();
	int bad = 0;

	for (size_t i = 0; runs && i < r->q.nruns; i++) {
		const struct run *run = &r->runs[i];

		if (!run->id)
			continue;
		if (json_array_append_new(runs, json_pack("{s:I, s:s, s:i, s:s, s:s?, s:b}",
			"id", (json_int_t)run->id, "side", side_names[r->side[i]],
			"repeat", r->repeat[i], "state", run_state_name(run->state),
			"outcome", run->outcome == RUN_OUT_NONE ? NULL
			: run_outcome_name(run->outcome), "quarantined_only", r->qonly[i])) < 0)
			bad = 1;
	}
	if (bad) {
		json_decref(runs);
		return NULL;
	}
	return runs;
}

/* The comparison of each cell with both sides in *comps, the cells with
 * one side only in *unmatched: 0, or -1 (out of memory) with both NULL */
static int request_cells_json(const struct reqcmp *x, json_t **comps, json_t **unmatched)
{
	int bad = 0;

	*comps = json_array();
	*unmatched = json_array();
	for (size_t i = 0; *comps && *unmatched && i < x->cells.n; i++) {
		if (x->have_rep[i]) {
			if (json_array_append_new(*comps, cmp_report_json(&x->rep[i])) < 0)
				bad = 1;
		} else {
			struct buf d = BUF_INIT(1024);

			cmp_cell_describe(&x->cells.v[i].cell, &d);
			if (json_array_append_new(*unmatched, json_pack("{s:o, s:s}", "cell",
				web_json_str(buf_str(&d)), "only", side_names[x->cells.v[i].runs[0] ? 0 : 1])) < 0)
				bad = 1;
			buf_release(&d);
		}
	}
	if (!*comps || !*unmatched || bad) {
		json_decref(*comps);
		json_decref(*unmatched);
		*comps = *unmatched = NULL;
		return -1;
	}
	return 0;
}

WEB_HANDLER(api_request)
{
	int64_t id = arg->id;
	const struct job_def *def;
	struct req r;
	struct reqcmp x;
	enum MHD_Result rc;
	struct db *db;
	json_t *o = NULL, *runs, *pf, *comps, *unmatched;
	struct buf hit = BUF_INIT(0);
	char *err = NULL, *js = NULL, key[256];
	const char *ctype;
	int found, cr;

	memset(&x, 0, sizeof(x));
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	found = req_load(db, id, &r);
	if (found < 0) {
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "request %lld: %s",
				     (long long)id, found == -1 ? db_errmsg(db) : "out of memory");
		goto out;
	}
	if (!found) {
		rc = web_reply_error(c, MHD_HTTP_NOT_FOUND, "request %lld: no such request",
				     (long long)id);
		goto out;
	}
	if (req_key(db, &r, "json", key, sizeof(key)) < 0)
		key[0] = '\0';
	if (*key && web_cache_get(w, key, &hit, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &hit);
		goto out;
	}
	def = r.q.job ? job_set_find(web_jobs(w), r.q.job) : NULL;
	cr = req_compare(db, &r, def, &x);
	pf = cr == 0 ? request_passfail_json(db, &r, &err) : NULL;
	if (!pf) {
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "request %lld: %s",
				     (long long)id, err ? err : cr == -1 ? db_errmsg(db)
				     : "out of memory");
		free(err);
		goto out;
	}
	runs = request_runs_json(&r);
	if (!runs || request_cells_json(&x, &comps, &unmatched) < 0) {
		json_decref(runs);
		json_decref(pf);
		rc = MHD_NO;
		goto out;
	}
	o = json_pack("{s:I, s:I, s:o, s:i, s:I, s:I, s:o, s:b, s:o, s:o, s:o, s:o*, s:o*}",
		      "id", (json_int_t)r.q.id, "created_at", (json_int_t)r.q.created_at,
		      "job", web_json_str(r.q.job), "repeat", r.q.repeats,
		      "base_kernel_id", (json_int_t)r.q.base_kernel_id,
		      "patched_kernel_id", (json_int_t)r.q.patched_kernel_id, "runs", runs,
		      "done", r.done, "passfail", pf, "comparisons", comps, "unmatched", unmatched,
		      "decided", web_decided_json(db, &r.q),
		      "scaling", web_scaling_json(w, db, &r.q));
	js = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!js || buf_puts(&hit, js) < 0 || buf_puts(&hit, "\n") < 0) {
		rc = MHD_NO;
		goto out;
	}
	if (*key)
		web_cache_put(w, key, buf_str(&hit), hit.len, "application/json");
	rc = web_reply(c, MHD_HTTP_OK, "application/json", &hit);
out:
	free(js);
	buf_release(&hit);
	reqcmp_release(&x);
	req_release(&r);
	return rc;
}
