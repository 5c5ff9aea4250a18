// SPDX-License-Identifier: GPL-2.0-only
/* pages.c: the HTML a person looks at: the status page (/) with the newest
 * runs, one run's page (/runs/ID) with its results, metrics, attempts,
 * output and console tail, the raw run files (/runs/ID/console, output,
 * domain.xml, results/PATH), and the job definitions (/jobs, /jobs/NAME, with
 * the job's noise from web/calib.c). Plain
 * server-rendered HTML; everything from the database, a run's files or a
 * job file goes through web_html(). */
#include "web/cache.h"
#include "web/calib.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/results.h"
#include "web/server.h"
#include "web/storage.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"

#define PAGE_RUNS 100   /* runs on the status page */

static const char *outcome_str(enum run_outcome o)
{
	return o == RUN_OUT_NONE ? "" : run_outcome_name(o);
}

/* ---- / ---- */

static void run_row(struct buf *b, const struct run *r, int64_t now)
{
	char dur[32], queued[32];

	if (r->started_at > 0 && r->ended_at <= 0)
		web_fmt_duration(r->started_at, now, dur);
	else
		web_fmt_duration(r->started_at, r->ended_at, dur);
	fmt_time_ms(r->queued_at, 0, queued, sizeof(queued));
	buf_printf(b, "<tr><td><a href=\"/runs/%lld\">%lld</a></td><td class=\"%s\">%s</td>"
		   "<td class=\"%s\">%s</td><td>", (long long)r->id, (long long)r->id,
		   run_state_name(r->state), run_state_name(r->state),
		   outcome_str(r->outcome), outcome_str(r->outcome));
	web_job_link(b, r->job);
	buf_puts(b, "</td>");
	web_kernel_cell(b, r->kernel_path);
	buf_puts(b, "<td>");
	web_html_str(b, r->arch);
	buf_printf(b, "</td><td class=\"num\">%d</td><td>", r->vcpus);
	web_html_str(b, r->accel);
	buf_puts(b, "</td><td>");
	web_html_str(b, r->host);
	buf_printf(b, "</td><td class=\"num\">%s%s</td><td>%s</td></tr>\n", dur,
		   r->started_at > 0 && r->ended_at <= 0 ? "&hellip;" : "", queued);
}

WEB_HANDLER(pages_status)
{
	const char *bs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "before");
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	int64_t counts[RUN_STATE_COUNT];
	long long before = 0;
	struct run *runs = NULL;
	size_t n = 0;
	enum MHD_Result rc;
	struct db *db;
	int refresh = 0;
	int64_t now = now_ms();

	if (bs && parse_int(bs, 0, INT64_MAX, &before) < 0)
		return web_reply_html_error(c, MHD_HTTP_BAD_REQUEST, "before '%.64s': not a run id",
					    bs);
	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	if (db_run_list(db, PAGE_RUNS, before, &runs, &n) < 0 || db_run_counts(db, counts) < 0) {
		log_warn("web: status page: %s", db_errmsg(db));
		rc = web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					  db_errmsg(db));
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (runs[i].state != RUN_DONE)
			refresh = 1;
	web_page_head(&b, "kfleet", refresh);
	buf_printf(&b, "<h1>kfleet</h1>\n<p><span class=\"queued\">%lld queued</span> &middot; "
		   "<span class=\"running\">%lld running</span> &middot; %lld done"
		   " &middot; <a href=\"/jobs\">jobs</a></p>\n",
		   (long long)counts[RUN_QUEUED], (long long)counts[RUN_RUNNING],
		   (long long)counts[RUN_DONE]);
	if (!n) {
		buf_puts(&b, before ? "<p class=\"note\">no older runs</p>\n"
			 : "<p class=\"note\">no runs yet</p>\n");
	} else {
		buf_puts(&b, "<table><thead><tr><th>run</th><th>state</th><th>outcome</th>"
			 "<th>job</th><th>kernel</th><th>arch</th><th>vCPUs</th><th>accel</th><th>host</th>"
			 "<th>duration</th><th>queued (UTC)</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < n; i++)
			run_row(&b, &runs[i], now);
		buf_puts(&b, "</tbody></table>\n");
	}
	if (before || n == PAGE_RUNS) {
		buf_puts(&b, "<p>");
		if (before)
			buf_puts(&b, "<a href=\"/\">newest runs</a> ");
		if (n == PAGE_RUNS)
			buf_printf(&b, "<a href=\"/?before=%lld\">older runs</a>",
				   (long long)runs[n - 1].id);
		buf_puts(&b, "</p>\n");
	}
	web_page_tail(&b);
	rc = web_reply_page(c, &b);
out:
	buf_release(&b);
	run_list_free(runs, n);
	return rc;
}

/* ---- /runs/ID ---- */

static void kv_str(struct buf *b, const char *k, const char *v)
{
	web_html_kv(b, k, v, "-");
}

static void kv_time(struct buf *b, const char *k, int64_t ms)
{
	char t[32];

	fmt_time_ms(ms, 0, t, sizeof(t));
	buf_printf(b, "<tr><th>%s</th><td>%s%s</td></tr>\n", k, t, ms > 0 ? " UTC" : "");
}

/* A file of the run shown in a <pre>: the first (tail 0) or last max bytes */
static void file_pre(struct buf *b, const struct run *r, const char *name, size_t max,
		     int tail, const char *what, const struct db_pruned *pr, size_t npr)
{
	const struct db_pruned *gone;
	struct buf data = BUF_INIT(0);
	char *path = r->run_dir ? path_join(r->run_dir, name) : NULL;
	int rc;

	if (!path) {
		buf_printf(b, "<p class=\"note\">no %s yet</p>\n", what);
		goto out;
	}
	rc = tail ? read_file_tail(path, &data, max) : read_file(path, &data, max);
	if (rc < 0) {
		if (errno == ENOENT && (gone = web_pruned_find(pr, npr, r->run_dir, name)))
			web_pruned_note(b, gone, what);
		else if (errno == ENOENT)
			buf_printf(b, "<p class=\"note\">no %s yet</p>\n", what);
		else
			buf_printf(b, "<p class=\"note\">cannot read the %s: %s</p>\n", what,
				   strerror(errno));
		goto out;
	}
	if (data.truncated)
		buf_printf(b, "<p class=\"note\">showing the %s %zu KiB only</p>\n",
			   tail ? "last" : "first", max / 1024);
	if (!data.len) {
		buf_printf(b, "<p class=\"note\">the %s is empty</p>\n", what);
		goto out;
	}
	buf_puts(b, "<pre>");
	web_html(b, buf_str(&data), data.len);
	buf_puts(b, "</pre>\n");
out:
	free(path);
	buf_release(&data);
}

static void attempts_table(struct buf *b, struct db *db, int64_t id)
{
	struct attempt *a = NULL;
	size_t n = 0;

	if (db_attempt_list(db, id, &a, &n) < 0) {
		buf_puts(b, "<p class=\"note\">cannot list the attempts: ");
		web_html_str(b, db_errmsg(db));
		buf_puts(b, "</p>\n");
		return;
	}
	if (!n) {
		buf_puts(b, "<p class=\"note\">none yet</p>\n");
		goto out;
	}
	buf_puts(b, "<table><thead><tr><th>#</th><th>host</th><th>started (UTC)</th>"
		 "<th>ended (UTC)</th><th>duration</th><th>outcome</th><th>detail</th></tr>"
		 "</thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		char st[32], en[32], du[32];

		fmt_time_ms(a[i].started_at, 0, st, sizeof(st));
		fmt_time_ms(a[i].ended_at, 0, en, sizeof(en));
		web_fmt_duration(a[i].started_at, a[i].ended_at, du);
		buf_printf(b, "<tr><td class=\"num\">%d</td><td>", a[i].n);
		web_html_str(b, a[i].host);
		buf_printf(b, "</td><td>%s</td><td>%s</td><td class=\"num\">%s</td>"
			   "<td class=\"%s\">%s</td><td>", st, en, du,
			   outcome_str(a[i].outcome), outcome_str(a[i].outcome));
		web_html_str(b, a[i].detail);
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
out:
	attempt_list_free(a, n);
}

/* A status from the database as a CSS class: only the known ones */
static const char *status_class(const char *status)
{
	enum job_status st;

	return status && job_status_parse(status, &st) == 0 ? job_status_name(st) : "";
}

static void results_table(struct buf *b, const struct result_row *rows, size_t n,
			  int only_failing)
{
	buf_puts(b, "<table><thead><tr><th>path</th><th>status</th><th>detail</th></tr>"
		 "</thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		const char *cls = status_class(rows[i].status);

		if (only_failing && !strcmp(cls, "pass"))
			continue;
		buf_puts(b, "<tr><td>");
		web_html_str(b, rows[i].path);
		buf_printf(b, "</td><td class=\"%s\">", cls);
		web_html_str(b, rows[i].status);
		buf_puts(b, "</td><td>");
		web_html_str(b, rows[i].detail);
		buf_puts(b, "</td></tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
}

/* The links to the other pages of a run's results: first, previous,
 * where this one is, next, last */
static void results_pages_nav(struct buf *b, int64_t id, long long page, long long pages)
{
	static const char *const names[] = { "first", "previous", "next", "last" };
	const long long to[] = { 1, page - 1, page + 1, pages };
	const int on[] = { page > 1, page > 1, page < pages, page < pages };

	buf_puts(b, "<p class=\"pages\">");
	for (int i = 0; i < 4; i++) {
		if (i == 2)
			buf_printf(b, "page %lld of %lld &middot; ", page, pages);
		if (on[i])
			buf_printf(b, "<a href=\"/runs/%lld?page=%lld#results\">%s</a>", (long long)id,
				   to[i], names[i]);
		else
			buf_puts(b, names[i]);
		buf_puts(b, i == 3 ? "</p>\n" : " &middot; ");
	}
}

/* The results of a job's run: those that did not pass (the first
 * WEB_RESULTS_PAGE of them), the count of each status, then all of them a
 * page of WEB_RESULTS_PAGE rows at a time (page, from 1; one past the last
 * shows the last), those that did not pass first; nothing when there are
 * none. Each page is one read of the index results_run_order (schema 18),
 * not a sort of every result. */
static void results_section(struct buf *b, struct db *db, int64_t id, long long page,
			    int asked)
{
	struct result_row *rows = NULL, *prow = NULL;
	int64_t counts[JOB_STATUS_COUNT], total = 0, failing;
	size_t n = 0, np = 0, nfailing = 0;
	long long pages;
	int first = 1;

	if (db_run_results(db, id, WEB_RESULTS_PAGE, &rows, &n, counts) < 0) {
		buf_puts(b, "<h2>results</h2>\n<p class=\"note\">cannot read the results: ");
		web_html_str(b, db_errmsg(db));
		buf_puts(b, "</p>\n");
		return;
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		total += counts[i];
	if (!total)
		goto out;
	failing = total - counts[JOB_PASS];
	for (size_t i = 0; i < n; i++)
		if (strcmp(status_class(rows[i].status), "pass"))
			nfailing++;
	if (failing) {
		buf_puts(b, "<h2>not passing</h2>\n");
		if ((int64_t)nfailing < failing)
			buf_printf(b, "<p class=\"note\">showing %zu of %lld; the others on the next "
				   "pages of all results</p>\n", nfailing, (long long)failing);
		results_table(b, rows, n, 1);
	}
	buf_printf(b, "<h2>results</h2>\n<p>%lld result%s: ", (long long)total,
		   total == 1 ? "" : "s");
	for (int i = 0; i < JOB_STATUS_COUNT; i++) {
		const char *name = job_status_name((enum job_status)i);

		if (!counts[i])
			continue;
		buf_printf(b, "%s<span class=\"%s\">%lld %s</span>", first ? "" : " &middot; ",
			   name, (long long)counts[i], name);
		first = 0;
	}
	buf_puts(b, "</p>\n");
	pages = (total + WEB_RESULTS_PAGE - 1) / WEB_RESULTS_PAGE;
	if (page > pages)
		page = pages;
	prow = rows;
	np = n;
	if (page > 1) {
		prow = NULL;
		np = 0;
		if (db_run_results_at(db, id, (page - 1) * WEB_RESULTS_PAGE, WEB_RESULTS_PAGE, &prow,
				      &np, NULL) < 0) {
			buf_puts(b, "<p class=\"note\">cannot read the results: ");
			web_html_str(b, db_errmsg(db));
			buf_puts(b, "</p>\n");
			goto out;
		}
	}
	buf_printf(b, "<details id=\"results\"%s><summary>all results</summary>\n",
		   total <= 50 || asked ? " open" : "");
	if (pages > 1) {
		buf_printf(b, "<p class=\"note\">results %lld to %lld of %lld, those that did not "
			   "pass first</p>\n", (page - 1) * WEB_RESULTS_PAGE + 1,
			   (page - 1) * WEB_RESULTS_PAGE + (long long)np, (long long)total);
		results_pages_nav(b, id, page, pages);
	}
	results_table(b, prow, np, 0);
	if (pages > 1)
		results_pages_nav(b, id, page, pages);
	buf_puts(b, "</details>\n");
out:
	if (prow != rows)
		result_rows_free(prow, np);
	result_rows_free(rows, n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void metric_row(struct buf *b, const struct sample_row *rows, size_t n, double *tmp)
{
	const char *unit = NULL;
	double median;

	for (size_t i = 0; i < n; i++) {
		tmp[i] = rows[i].value;
		if (!unit)
			unit = rows[i].unit;
	}
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	median = n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
	buf_puts(b, "<tr><td>");
	web_html_str(b, rows[0].metric);
	buf_puts(b, "</td><td>");
	web_html_str(b, unit);
	buf_printf(b, "</td><td class=\"num\">%zu</td><td class=\"num\">%.10g</td>"
		   "<td class=\"num\">%.10g</td><td class=\"num\">%.10g</td><td>", n, tmp[0],
		   median, tmp[n - 1]);
	if (n <= WEB_FEW_VALUES)
		for (size_t i = 0; i < n; i++)
			buf_printf(b, "%s%.10g", i ? ", " : "", rows[i].value);
	buf_puts(b, "</td></tr>\n");
}

static int same_metric(const struct sample_row *a, const struct sample_row *b)
{
	return a->metric && b->metric && !strcmp(a->metric, b->metric);
}

/* The metric samples of a job's run, one row per metric (at most
 * WEB_SAMPLES_MAX samples); nothing when there are none. */
static void metrics_section(struct buf *b, struct db *db, int64_t id)
{
	struct sample_row *rows = NULL;
	double *tmp = NULL;
	size_t n = 0, shown;

	/* one more than shown, to know whether there are more */
	if (db_run_samples(db, id, WEB_SAMPLES_MAX + 1, &rows, &n) < 0) {
		buf_puts(b, "<h2>metrics</h2>\n<p class=\"note\">cannot read the metrics: ");
		web_html_str(b, db_errmsg(db));
		buf_puts(b, "</p>\n");
		return;
	}
	if (!n)
		goto out;
	shown = n > WEB_SAMPLES_MAX ? WEB_SAMPLES_MAX : n;
	buf_puts(b, "<h2>metrics</h2>\n");
	if (n > shown)
		buf_printf(b, "<p class=\"note\">from the first %zu samples only</p>\n", shown);
	tmp = malloc(shown * sizeof(*tmp));
	if (!tmp) {
		buf_puts(b, "<p class=\"note\">out of memory</p>\n");
		goto out;
	}
	buf_puts(b, "<table><thead><tr><th>metric</th><th>unit</th><th>samples</th>"
		 "<th>min</th><th>median</th><th>max</th><th>values</th></tr></thead><tbody>\n");
	for (size_t i = 0, j; i < shown; i = j) {
		for (j = i + 1; j < shown && same_metric(&rows[i], &rows[j]); j++)
			;
		metric_row(b, rows + i, j - i, tmp);
	}
	buf_puts(b, "</tbody></table>\n");
out:
	free(tmp);
	sample_rows_free(rows, n);
}

/* The run's facts as a two-column table */
static void run_table(struct buf *b, struct db *db, const struct run *r)
{
	char s[128], dur[32];
	int64_t request_id;

	buf_puts(b, "<table class=\"kv\">\n");
	kv_str(b, "state", run_state_name(r->state));
	kv_str(b, "outcome", r->outcome == RUN_OUT_NONE ? NULL : run_outcome_name(r->outcome));
	buf_puts(b, "<tr><th>job</th><td>");
	web_job_link(b, r->job);
	buf_puts(b, "</td></tr>\n");
	buf_puts(b, "<tr><th>kernel</th><td>");
	web_html_str(b, r->kernel_path);
	buf_printf(b, " <span class=\"note\">(kernel %lld)</span></td></tr>\n",
		   (long long)r->kernel_id);
	kv_str(b, "arch", r->arch);
	snprintf(s, sizeof(s), "%d", r->vcpus);
	kv_str(b, "vCPUs", s);
	snprintf(s, sizeof(s), "%d MiB", r->memory_mb);
	kv_str(b, "memory", s);
	snprintf(s, sizeof(s), "%d s", r->timeout_s);
	kv_str(b, "timeout", s);
	snprintf(s, sizeof(s), "%d of at most %d", r->attempt, r->max_attempts);
	kv_str(b, "attempt", s);
	kv_str(b, "host", r->host);
	kv_str(b, "accel", r->accel);
	kv_str(b, "machine", r->machine);
	kv_str(b, "CPU model", r->cpu_model);
	kv_str(b, "boot", r->boot);
	kv_str(b, "QEMU", r->qemu_version);
	kv_str(b, "libvirt", r->libvirt_version);
	kv_str(b, "domain", r->domain);
	kv_time(b, "queued", r->queued_at);
	kv_time(b, "started", r->started_at);
	kv_time(b, "booted", r->booted_at);
	kv_time(b, "ended", r->ended_at);
	web_fmt_duration(r->started_at, r->booted_at, dur);
	kv_str(b, "boot took", dur);
	web_fmt_duration(r->started_at, r->ended_at, dur);
	kv_str(b, "duration", dur);
	if (r->has_exit_code)
		snprintf(s, sizeof(s), "%d", r->exit_code);
	kv_str(b, "exit code", r->has_exit_code ? s : NULL);
	kv_str(b, "guest kernel", r->guest_release);
	if (r->guest_nproc > 0)
		snprintf(s, sizeof(s), "%d CPUs, %lld kB memory", r->guest_nproc,
			 (long long)r->guest_mem_kb);
	kv_str(b, "guest", r->guest_nproc > 0 ? s : NULL);
	kv_str(b, "run directory", r->run_dir);
	if (dbq_run_request(db, r->id, &request_id) == 1)
		buf_printf(b, "<tr><th>request</th><td><a href=\"/requests/%lld\">request %lld</a>"
			   "</td></tr>\n", (long long)request_id, (long long)request_id);
	buf_puts(b, "</table>\n");
}

WEB_HANDLER(pages_run)
{
	const char *ps = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "page");
	int64_t id = arg->id;
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct db_pruned *pr = NULL;
	size_t npr = 0;
	struct run r;
	enum MHD_Result rc;
	struct db *db;
	char title[64], key[128] = "";
	long long page = 1;
	const char *ctype;
	int found;

	if (ps && parse_int(ps, 1, INT32_MAX, &page) < 0)
		return web_reply_html_error(c, MHD_HTTP_BAD_REQUEST, "page '%.64s': not a page "
					    "number (1 or more)", ps);
	memset(&r, 0, sizeof(r));
	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	found = db_run_get(db, id, &r);
	if (found < 0) {
		log_warn("web: run %lld: %s", (long long)id, db_errmsg(db));
		rc = web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					  db_errmsg(db));
		goto out;
	}
	if (!found) {
		rc = web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no such run",
					  (long long)id);
		goto out;
	}
	if (db_pruned_list(db, id, WEB_PRUNED_MAX, &pr, &npr) < 0)
		log_warn("web: run %lld: pruned files: %s", (long long)id, db_errmsg(db));
	/* a done run's page changes only when it runs again (its attempt),
	 * ends again or has files pruned: kept, so that a run with many
	 * results is read once a page */
	if (r.state == RUN_DONE) {
		snprintf(key, sizeof(key), "page/run/%lld/%d/%lld/%zu/%lld/%lld", (long long)id,
			 r.attempt, (long long)r.ended_at, npr,
			 npr ? (long long)pr[npr - 1].id : 0LL, page);
		if (web_cache_get(w, key, &b, &ctype)) {
			rc = web_reply_page(c, &b);
			goto out;
		}
	}
	snprintf(title, sizeof(title), "kfleet: run %lld", (long long)id);
	web_page_head(&b, title, r.state != RUN_DONE);
	buf_printf(&b, "<p><a href=\"/\">all runs</a></p>\n<h1>run %lld: ", (long long)id);
	if (r.state == RUN_DONE)
		buf_printf(&b, "<span class=\"%s\">%s</span>", outcome_str(r.outcome),
			   outcome_str(r.outcome));
	else
		buf_printf(&b, "<span class=\"%s\">%s</span>", run_state_name(r.state),
			   run_state_name(r.state));
	buf_puts(&b, "</h1>\n");
	if (r.detail) {
		buf_puts(&b, "<p>");
		web_html_str(&b, r.detail);
		buf_puts(&b, "</p>\n");
	}

	run_table(&b, db, &r);
	/* quiet measurements: its cores and what ran beside it */
	web_run_neighbours_html(&b, db, id);

	if (r.splat) {
		buf_puts(&b, "<h2>crash</h2>\n<pre>");
		web_html_str(&b, r.splat);
		buf_puts(&b, "</pre>\n");
	}
	results_section(&b, db, id, page, ps != NULL);
	metrics_section(&b, db, id);
	web_results_html(&b, r.run_dir, id);
	buf_puts(&b, "<h2>attempts</h2>\n");
	attempts_table(&b, db, id);
	buf_puts(&b, "<h2>command</h2>\n<pre>");
	web_html_str(&b, r.command);
	buf_puts(&b, "</pre>\n");
	buf_printf(&b, "<h2>output</h2>\n<p><a href=\"/runs/%lld/output\">full output</a></p>\n",
		   (long long)id);
	file_pre(&b, &r, RUN_FILE_OUTPUT, WEB_PAGE_OUTPUT, 0, "output", pr, npr);
	buf_printf(&b, "<h2>console</h2>\n<p><a href=\"/runs/%lld/console\">full console</a> "
		   "&middot; <a href=\"/runs/%lld/domain.xml\">domain XML</a> &middot; to boot it "
		   "again by hand: <code>kfleet repro %lld</code></p>\n",
		   (long long)id, (long long)id, (long long)id);
	file_pre(&b, &r, RUN_FILE_CONSOLE, WEB_PAGE_CONSOLE, 1, "console", pr, npr);
	web_storage_html(&b, r.run_dir, pr, npr);
	web_page_tail(&b);
	if (*key && !b.truncated)
		web_cache_put(w, key, buf_str(&b), b.len, "text/html; charset=utf-8");
	rc = web_reply_page(c, &b);
out:
	db_rows_free(db_pruned_fields, pr, sizeof(*pr), npr);
	buf_release(&b);
	run_release(&r);
	return rc;
}

/* ---- /runs/ID/<file> ---- */

static enum MHD_Result run_file(struct web *w, struct MHD_Connection *c, int64_t id,
				const char *name, const char *ctype, uint64_t max)
{
	const struct db_pruned *gone;
	struct db_pruned *pr = NULL;
	size_t npr = 0;
	struct run r;
	enum MHD_Result rc;
	struct db *db;
	char *path = NULL;
	int found;

	memset(&r, 0, sizeof(r));
	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	found = db_run_get(db, id, &r);
	if (found < 0) {
		rc = web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					  db_errmsg(db));
		goto out;
	}
	if (!found) {
		rc = web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no such run",
					  (long long)id);
		goto out;
	}
	if (!r.run_dir) {
		rc = web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no %s (yet)",
					  (long long)id, name);
		goto out;
	}
	path = path_join(r.run_dir, name);
	if (!path) {
		rc = MHD_NO;
		goto out;
	}
	/* a link to a file the storage pass pruned says so */
	if (access(path, F_OK) < 0 && errno == ENOENT &&
	    db_pruned_list(db, id, WEB_PRUNED_MAX, &pr, &npr) == 0 &&
	    (gone = web_pruned_find(pr, npr, r.run_dir, name))) {
		rc = web_reply_pruned(c, id, gone);
		goto out;
	}
	if (!strncmp(name, RUN_DIR_RESULTS "/", sizeof(RUN_DIR_RESULTS))) {
		rc = web_results_file(c, r.run_dir, id, name + sizeof(RUN_DIR_RESULTS));
		goto out;
	}
	rc = web_reply_file(c, path, ctype, max, id);
out:
	db_rows_free(db_pruned_fields, pr, sizeof(*pr), npr);
	free(path);
	run_release(&r);
	return rc;
}

WEB_HANDLER(pages_run_console)
{
	return run_file(w, c, arg->id, RUN_FILE_CONSOLE, "text/plain; charset=utf-8", WEB_CONSOLE_MAX);
}

WEB_HANDLER(pages_run_output)
{
	return run_file(w, c, arg->id, RUN_FILE_OUTPUT, "text/plain; charset=utf-8", 0);
}

WEB_HANDLER(pages_run_xml)
{
	return run_file(w, c, arg->id, RUN_FILE_XML, "application/xml", 0);
}

WEB_HANDLER(pages_run_result)
{
	struct buf name = BUF_INIT(0);
	enum MHD_Result rc;

	if (buf_printf(&name, RUN_DIR_RESULTS "/%s", arg->name) < 0)
		return MHD_NO;
	rc = run_file(w, c, arg->id, buf_str(&name), NULL, 0);
	buf_release(&name);
	return rc;
}

/* ---- /jobs, /jobs/NAME ---- */

static void words(struct buf *b, char *const *v, size_t n, const char *sep)
{
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_puts(b, sep);
		web_html_str(b, v[i]);
	}
}

WEB_HANDLER(pages_jobs)
{
	const struct job_set *set = web_jobs(w);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);

	web_page_head(&b, "kfleet: jobs", 0);
	buf_puts(&b, "<p><a href=\"/\">all runs</a></p>\n<h1>jobs</h1>\n");
	if (!set->n) {
		buf_puts(&b, "<p class=\"note\">no jobs defined</p>\n");
	} else {
		buf_puts(&b, "<table><thead><tr><th>name</th><th>kind</th><th>parser</th>"
			 "<th>programs</th><th>description</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < set->n; i++) {
			const struct job_def *d = set->v[i];

			buf_puts(&b, "<tr><td>");
			web_job_link(&b, d->name);
			buf_puts(&b, "</td><td>");
			web_html_str(&b, d->kind);
			buf_puts(&b, "</td><td>");
			web_html_str(&b, d->parser);
			buf_puts(&b, "</td><td>");
			words(&b, d->programs, d->nprograms, " ");
			buf_puts(&b, "</td><td>");
			web_html_str(&b, d->description);
			buf_puts(&b, "</td></tr>\n");
		}
		buf_puts(&b, "</tbody></table>\n");
	}
	web_page_tail(&b);
	return web_reply_page(c, &b);
}

/* A job's default: its value, or the daemon's default when 0 */
static void kv_default(struct buf *b, const char *k, int v, const char *unit)
{
	char s[64];

	if (v > 0)
		snprintf(s, sizeof(s), "%d%s", v, unit);
	kv_str(b, k, v > 0 ? s : "the daemon's default");
}

/* The job's noise (web/calib.c), or why the database could not say */
static void job_noise(struct web *w, struct buf *b, const char *job)
{
	char *err = NULL;
	struct db *db = web_db(w, &err);

	if (!db) {
		buf_puts(b, "<h2>noise</h2>\n<p>the database could not be opened: ");
		web_html_str(b, err);
		buf_puts(b, "</p>\n");
		free(err);
		return;
	}
	web_calib_html(b, db, job);
}

WEB_HANDLER(pages_job)
{
	const char *name = arg->name;
	const struct job_def *d = job_set_find(web_jobs(w), name);
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct buf title = BUF_INIT(0);

	if (!d)
		return web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "job '%.100s': no such job",
					    name);
	buf_printf(&title, "kfleet: job %s", d->name);
	web_page_head(&b, buf_str(&title), 0);
	buf_release(&title);
	buf_puts(&b, "<p><a href=\"/\">all runs</a> &middot; <a href=\"/jobs\">all jobs</a></p>\n"
		 "<h1>job ");
	web_html_str(&b, d->name);
	buf_puts(&b, "</h1>\n");
	if (d->description) {
		buf_puts(&b, "<p>");
		web_html_str(&b, d->description);
		buf_puts(&b, "</p>\n");
	}
	buf_puts(&b, "<table class=\"kv\">\n");
	kv_str(&b, "kind", d->kind);
	kv_str(&b, "parser", d->parser);
	buf_puts(&b, "<tr><th>programs</th><td>");
	if (d->nprograms)
		words(&b, d->programs, d->nprograms, " ");
	else
		buf_puts(&b, "-");
	buf_puts(&b, "</td></tr>\n");
	if (d->selftests)
		kv_str(&b, "kselftest target", d->selftests);
	kv_default(&b, "timeout", d->timeout_s, " s");
	kv_default(&b, "memory", d->memory_mb, " MiB");
	kv_default(&b, "vCPUs", d->vcpus, "");
	buf_puts(&b, "<tr><th>kernel config</th><td>");
	if (d->nconfig)
		words(&b, d->config, d->nconfig, "<br>");
	else
		buf_puts(&b, "-");
	buf_puts(&b, "</td></tr>\n");
	kv_str(&b, "file", d->file);
	buf_puts(&b, "</table>\n<h2>command</h2>\n<pre>");
	web_html_str(&b, d->command);
	buf_puts(&b, "</pre>\n");
	if (d->nmetrics) {
		buf_puts(&b, "<h2>metrics</h2>\n<table><thead><tr><th>metric</th><th>unit</th>"
			 "<th>better</th><th>margin</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < d->nmetrics; i++) {
			buf_puts(&b, "<tr><td>");
			web_html_str(&b, d->metrics[i].name);
			buf_puts(&b, "</td><td>");
			web_html_str(&b, d->metrics[i].unit);
			buf_printf(&b, "</td><td>%s</td><td>",
				   d->metrics[i].higher_better ? "higher" : "lower");
			if (d->metrics[i].margin > 0)
				buf_printf(&b, "&plusmn;%.3g%%", d->metrics[i].margin * 100);
			else
				buf_printf(&b, "&plusmn;%.3g%% (default)", CMP_MARGIN * 100);
			buf_puts(&b, "</td></tr>\n");
		}
		buf_puts(&b, "</tbody></table>\n");
	}
	job_noise(w, &b, d->name);
	web_page_tail(&b);
	return web_reply_page(c, &b);
}
