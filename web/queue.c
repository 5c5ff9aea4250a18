// SPDX-License-Identifier: GPL-2.0-only
/* queue.c: the fleet as a whole: /queue (the runs running and waiting in
 * the fair queue's order, whom each is for, how long each has waited or
 * run, an expected turnaround per request and, per series a watch took,
 * when its work was queued, started and finished) and /hosts (what
 * libvirt said about each host and whether it is in placement, the
 * secrets of its URI masked: a keyfile= or a password), as HTML
 * and as JSON under /api/, the runs WEB_QUEUE_PAGE a page (?page=N;
 * ?offset=N&limit=M in the JSON). Reads come from db/query.c on this
 * thread's connection, the medians and the requests' progress through
 * estimates.c, which keeps them while the runs' counts stay; a whole
 * answer is kept for the second it was made in (cache.c). Text goes
 * through web_html(). */
#include "web/cache.h"
#include "web/estimates.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "db/query.h"
#include "orchestrator/orchestrator.h"

/* ---- the queue and its estimates ---- */

/* One run of the queue with its estimate */
struct qrun {
	const struct dbq_queue_run *r;
	int64_t median_ms;   /* -1: unknown */
	int median_n;        /* finished runs the median is from */
	int64_t finish_ms;   /* expected end, from now; -1 unknown */
	int64_t start_ms;    /* a queued run's expected start, from now; -1 unknown */
	int position;        /* a queued run's place in the queue, from 1; 0 running */
};

struct qreq {
	int64_t id;
	int runs, done;
	int64_t eta_ms;      /* expected until its last run ends; -1 unknown */
};

/* A watched series and its turnaround */
struct qseries {
	const struct dbq_series *s;
	int64_t eta_ms;      /* open: expected until its last run ends; -1 unknown */
	int64_t turnaround_ms;  /* finished: queued to finished; open: queued to its
				   expected end; -1 unknown */
};

struct queue {
	struct dbq_queue_run *v;
	size_t n;             /* runs shown */
	size_t nread;         /* runs read (one more when truncated) */
	struct qrun *q;
	struct qreq *reqs;
	size_t nreqs;
	struct dbq_series *sv;
	struct qseries *series;
	size_t nseries;
	size_t running, queued;
	size_t parallel;      /* runs assumed to run at a time */
	int truncated;        /* more than DBQ_QUEUE_MAX runs */
	int64_t now;
};

static void queue_release(struct queue *m)
{
	dbq_queue_free(m->v, m->nread);
	free(m->q);
	free(m->reqs);
	dbq_series_free(m->sv, m->nseries);
	free(m->series);
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The same kind of run for the median: job (or command), arch, vCPUs */
static int same_kind(const struct dbq_queue_run *a, const struct dbq_queue_run *b)
{
	return str_eq(a->job, b->job) && (a->job || str_eq(a->command, b->command)) &&
		str_eq(a->arch, b->arch) && a->vcpus == b->vcpus;
}

/* A series' expected end and turnaround from its runs' ends */
static void series_estimate(struct queue *m)
{
	for (size_t i = 0; i < m->nseries; i++) {
		struct qseries *q = &m->series[i];
		int any = 0;

		q->eta_ms = q->turnaround_ms = -1;
		if (!q->s->open) {
			if (q->s->finished_at > 0 && q->s->queued_at > 0)
				q->turnaround_ms = q->s->finished_at - q->s->queued_at;
			continue;
		}
		/* still building: its runs are not queued yet */
		if (!q->s->runs || q->s->state == NULL || strcmp(q->s->state, "testing"))
			continue;
		q->eta_ms = 0;
		for (size_t j = 0; j < m->n; j++) {
			if (m->v[j].submission_id != q->s->submission_id)
				continue;
			any = 1;
			if (m->q[j].finish_ms < 0) {
				q->eta_ms = -1;
				break;
			}
			if (m->q[j].finish_ms > q->eta_ms)
				q->eta_ms = m->q[j].finish_ms;
		}
		if (!any && !m->truncated)
			q->eta_ms = 0;
		else if (!any)
			q->eta_ms = -1;
		if (q->eta_ms >= 0)
			q->turnaround_ms = m->now + q->eta_ms - q->s->queued_at;
	}
}

/* Expected ends: the fleet keeps as many runs going as run now (at least
 * one) and claims the queued runs in the order listed (the fair queue's)
 * whenever one ends. A running run
 * ends at its median duration (at once when past it); a queued run starts
 * when the earliest slot frees. Once a run's median is not known, no later
 * end is either. 0 / -1 (memory) */
static int queue_estimate(struct queue *m)
{
	int64_t *slot;
	size_t ns = 0;
	int unknown = 0, pos = 0;

	m->parallel = m->running ? m->running : 1;
	slot = calloc(m->parallel, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < m->n; i++) {
		struct qrun *q = &m->q[i];

		q->finish_ms = -1;
		q->start_ms = -1;
		if (q->r->state != RUN_RUNNING)
			q->position = ++pos;
		if (q->r->state == RUN_RUNNING) {
			int64_t ran = m->now - q->r->started_at;

			if (q->median_ms < 0 || q->r->started_at <= 0) {
				unknown = 1;
				continue;
			}
			q->finish_ms = q->median_ms > ran ? q->median_ms - ran : 0;
			slot[ns++] = q->finish_ms;
			continue;
		}
		if (unknown || q->median_ms < 0) {
			unknown = 1;
			continue;
		}
		{
			size_t k = 0;

			for (size_t j = 1; j < m->parallel; j++)
				if (slot[j] < slot[k])
					k = j;
			q->start_ms = slot[k];
			slot[k] += q->median_ms;
			q->finish_ms = slot[k];
		}
	}
	free(slot);
	series_estimate(m);
	for (size_t i = 0; i < m->nreqs; i++) {
		struct qreq *rq = &m->reqs[i];

		rq->eta_ms = 0;
		for (size_t j = 0; j < m->n; j++) {
			if (m->v[j].request_id != rq->id)
				continue;
			if (m->q[j].finish_ms < 0) {
				rq->eta_ms = -1;
				break;
			}
			if (m->q[j].finish_ms > rq->eta_ms)
				rq->eta_ms = m->q[j].finish_ms;
		}
	}
	return 0;
}

/* Reads the queue, the medians and the requests' progress (those two
 * kept between requests: estimates.c); 0, -1 with the database's error,
 * -2 out of memory */
static int queue_load(struct web *w, struct db *db, struct queue *m)
{
	int64_t counts[RUN_STATE_COUNT];

	memset(m, 0, sizeof(*m));
	m->now = now_ms();
	if (web_estimates_state(db, counts) < 0 ||
	    dbq_queue(db, DBQ_QUEUE_MAX + 1, &m->v, &m->nread) < 0)
		return -1;
	m->n = m->nread;
	if (m->n > DBQ_QUEUE_MAX) {
		m->truncated = 1;
		m->n = DBQ_QUEUE_MAX;
	}
	m->q = calloc(m->n ? m->n : 1, sizeof(*m->q));
	m->reqs = calloc(m->n ? m->n : 1, sizeof(*m->reqs));
	if (!m->q || !m->reqs)
		return -2;
	if (dbq_series_times(db, DBQ_SERIES_MAX, &m->sv, &m->nseries) < 0)
		return -1;
	m->series = calloc(m->nseries ? m->nseries : 1, sizeof(*m->series));
	if (!m->series)
		return -2;
	for (size_t i = 0; i < m->nseries; i++)
		m->series[i].s = &m->sv[i];
	for (size_t i = 0; i < m->n; i++) {
		struct qrun *q = &m->q[i];
		size_t j;

		q->r = &m->v[i];
		if (q->r->state == RUN_RUNNING)
			m->running++;
		else
			m->queued++;
		for (j = 0; j < i && !same_kind(&m->v[j], q->r); j++)
			;
		if (j < i) {
			q->median_ms = m->q[j].median_ms;
			q->median_n = m->q[j].median_n;
		} else {
			int r = web_estimates_median(w, db, counts, q->r->job, q->r->command,
						     q->r->arch, q->r->vcpus, &q->median_ms,
						     &q->median_n);

			if (r < 0)
				return -1;
			if (!r)
				q->median_ms = -1;
		}
		if (q->r->request_id > 0) {
			for (j = 0; j < m->nreqs && m->reqs[j].id != q->r->request_id; j++)
				;
			if (j == m->nreqs) {
				m->reqs[m->nreqs].id = q->r->request_id;
				if (web_estimates_progress(w, db, counts, q->r->request_id,
							   &m->reqs[j].runs, &m->reqs[j].done) < 0)
					return -1;
				m->nreqs++;
			}
		}
	}
	return queue_estimate(m) < 0 ? -2 : 0;
}

/* The key the answer what (its page or offset and limit in it) is kept
 * under: the runs' counts per state and the second it is made in. Within
 * that second the same answer is given to everyone (a run's phase, its
 * times so far, are at most a second old); a run queued, claimed or ended
 * makes a new one at once. 0, or -1: not kept */
static int queue_key(struct db *db, const char *what, char *key, size_t n)
{
	int64_t c[RUN_STATE_COUNT];

	if (web_estimates_state(db, c) < 0)
		return -1;
	snprintf(key, n, "queue/%s/%lld %lld %lld/%lld", what, (long long)c[RUN_QUEUED],
		 (long long)c[RUN_RUNNING], (long long)c[RUN_DONE], (long long)(now_ms() / 1000));
	return 0;
}

/* ---- HTML helpers ---- */

/* A span of ms as web_fmt_duration() shows it */
static void fmt_ms(int64_t ms, char out[32])
{
	if (ms < 0)
		snprintf(out, 32, "unknown");
	else if (ms == 0)
		snprintf(out, 32, "0 ms");
	else
		web_fmt_duration(1, 1 + ms, out);
}

/* ---- /queue ---- */

/* Where a run is: "#2 in the queue, starts in about 40 s", "booting for
 * 3 s" or (running its command) "12 s of its usual 30 s (40%)" */
static void where_html(struct buf *b, const struct queue *m, const struct qrun *q)
{
	char t[32], u[32];

	if (q->r->state != RUN_RUNNING) {
		fmt_ms(q->start_ms, t);
		buf_printf(b, "#%d in the queue, starts %s%s", q->position,
			   q->start_ms < 0 ? "at a time not known yet" : q->start_ms == 0 ?
			   "as soon as a slot frees" : "in about ", q->start_ms > 0 ? t : "");
		return;
	}
	if (q->r->phase && strcmp(q->r->phase, "running")) {
		/* preparing, booting, storing: how long in it */
		web_fmt_duration(q->r->phase_at, m->now, t);
		buf_printf(b, "%s for %s", !strcmp(q->r->phase, "preparing") ? "preparing its guest" :
			   !strcmp(q->r->phase, "storing") ? "storing its results" : q->r->phase, t);
		return;
	}
	web_fmt_duration(q->r->started_at, m->now, t);
	if (q->median_ms < 0) {
		buf_printf(b, "%s so far, no usual time yet", t);
		return;
	}
	fmt_ms(q->median_ms, u);
	buf_printf(b, "%s of its usual %s (%d%%)%s", t, u,
		   q->median_ms > 0 ? (int)((m->now - q->r->started_at) * 100 / q->median_ms) : 100,
		   m->now - q->r->started_at > q->median_ms ? ", past it" : "");
}

static void queue_run_row(struct buf *b, const struct queue *m, const struct qrun *q)
{
	const struct dbq_queue_run *r = q->r;
	char waited[32], ran[32], med[32], fin[32];
	int running = r->state == RUN_RUNNING;

	web_fmt_duration(r->queued_at, running ? r->started_at : m->now, waited);
	web_fmt_duration(r->started_at, m->now, ran);
	fmt_ms(q->median_ms, med);
	fmt_ms(q->finish_ms, fin);
	buf_printf(b, "<tr><td><a href=\"/runs/%lld\">%lld</a></td><td class=\"%s\">%s</td><td>",
		   (long long)r->id, (long long)r->id, run_state_name(r->state),
		   run_state_name(r->state));
	if (r->request_id > 0)
		buf_printf(b, "<a href=\"/requests/%lld\">%lld</a>", (long long)r->request_id,
			   (long long)r->request_id);
	buf_puts(b, "</td><td>");
	if (r->watch) {
		buf_puts(b, "watch ");
		web_html_str(b, r->watch);
	} else {
		buf_puts(b, "a person");
	}
	buf_puts(b, "</td><td>");
	web_job_link(b, r->job);
	buf_puts(b, "</td>");
	web_kernel_cell(b, r->kernel_path);
	buf_puts(b, "<td>");
	web_html_str(b, r->arch);
	buf_printf(b, "</td><td class=\"num\">%d</td><td>", r->vcpus);
	web_html_str(b, r->host);
	buf_printf(b, "</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		   "<td class=\"num\">%s", waited, running ? ran : "-", med);
	if (q->median_n)
		buf_printf(b, " <span class=\"note\">(%d)</span>", q->median_n);
	buf_printf(b, "</td><td class=\"num\">%s</td><td class=\"where\">", fin);
	where_html(b, m, q);
	buf_puts(b, "</td></tr>\n");
}

/* A time of day (UTC) for the series table, "-" when not reached */
static void series_time(struct buf *b, int64_t ms)
{
	char t[40];

	if (ms <= 0) {
		buf_puts(b, "<td>-</td>");
		return;
	}
	fmt_time_ms(ms, 0, t, sizeof(t));
	buf_printf(b, "<td>%s</td>", t);
}

/* The series the watches took: when each one's work was queued, started
 * and finished, and its turnaround (expected while it is not finished) */
static void series_html(struct buf *b, const struct queue *m)
{
	if (!m->nseries)
		return;
	buf_puts(b, "<h2>watched series</h2>\n<table id=\"series\"><thead><tr><th>watch</th>"
		 "<th>series</th><th>submission</th><th>runs done</th><th>queued (UTC)</th>"
		 "<th>started</th><th>finished</th><th>turnaround</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < m->nseries; i++) {
		const struct qseries *q = &m->series[i];
		char t[32];

		buf_puts(b, "<tr><td>");
		web_html_str(b, q->s->watch);
		buf_puts(b, "</td><td>");
		web_html_str(b, q->s->name);
		buf_printf(b, " v%lld</td><td><a href=\"/submissions/%lld\">%lld</a> ",
			   (long long)q->s->version, (long long)q->s->submission_id,
			   (long long)q->s->submission_id);
		web_html_str(b, q->s->state);
		buf_printf(b, "</td><td class=\"num\">%d of %d</td>", q->s->done, q->s->runs);
		series_time(b, q->s->queued_at);
		series_time(b, q->s->started_at);
		series_time(b, q->s->open ? 0 : q->s->finished_at);
		fmt_ms(q->turnaround_ms, t);
		if (!q->s->open)
			buf_printf(b, "<td class=\"num\">%s</td></tr>\n", t);
		else if (q->turnaround_ms >= 0)
			buf_printf(b, "<td class=\"num\">about %s (expected)</td></tr>\n", t);
		else
			buf_printf(b, "<td class=\"num\">%s</td></tr>\n",
				   q->s->state && strcmp(q->s->state, "testing") ?
				   "not known while it builds" : "unknown");
	}
	buf_puts(b, "</tbody></table>\n");
}

/* The links to the other pages of the runs */
static void queue_pages_nav(struct buf *b, long long page, long long pages)
{
	buf_puts(b, "<p class=\"pages\">");
	if (page > 1)
		buf_printf(b, "<a href=\"/queue?page=1#queue\">first</a> &middot; "
			   "<a href=\"/queue?page=%lld#queue\">previous</a> &middot; ", page - 1);
	buf_printf(b, "page %lld of %lld", page, pages);
	if (page < pages)
		buf_printf(b, " &middot; <a href=\"/queue?page=%lld#queue\">next</a> &middot; "
			   "<a href=\"/queue?page=%lld#queue\">last</a>", page + 1, pages);
	buf_puts(b, "</p>\n");
}

WEB_HANDLER(pages_queue)
{
	const char *ps = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "page");
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct queue m;
	enum MHD_Result rc;
	struct db *db;
	long long page = 1, pages;
	size_t from, to;
	char what[64], key[160];
	const char *ctype;
	int r;

	if (ps && parse_int(ps, 1, INT32_MAX, &page) < 0)
		return web_reply_html_error(c, MHD_HTTP_BAD_REQUEST, "page '%.64s': not a page "
					    "number (1 or more)", ps);
	db = web_db_or_reply(w, c, 1, &rc);
	if (!db)
		return rc;
	snprintf(what, sizeof(what), "page %lld", page);
	if (queue_key(db, what, key, sizeof(key)) < 0)
		key[0] = '\0';
	if (*key && web_cache_get(w, key, &b, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &b);
		buf_release(&b);
		return rc;
	}
	r = queue_load(w, db, &m);
	if (r < 0) {
		log_warn("web: queue page: %s", r == -1 ? db_errmsg(db) : "out of memory");
		rc = web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "queue: %s",
					  r == -1 ? db_errmsg(db) : "out of memory");
		goto out;
	}
	web_page_head(&b, "kfleet: queue", m.n > 0);
	buf_printf(&b, "<h1>queue</h1>\n<p><span class=\"running\">%zu running</span> &middot; "
		   "<span class=\"queued\">%zu queued</span></p>\n", m.running, m.queued);
	if (m.nreqs) {
		buf_puts(&b, "<h2>requests</h2>\n<table id=\"requests\"><thead><tr><th>request</th>"
			 "<th>runs done</th><th>expected done in</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < m.nreqs; i++) {
			char eta[32];

			fmt_ms(m.reqs[i].eta_ms, eta);
			buf_printf(&b, "<tr><td><a href=\"/requests/%lld\">request %lld</a></td>"
				   "<td class=\"num\">%d of %d</td><td class=\"num\">%s%s</td></tr>\n",
				   (long long)m.reqs[i].id, (long long)m.reqs[i].id, m.reqs[i].done,
				   m.reqs[i].runs, m.reqs[i].eta_ms >= 0 ? "about " : "", eta);
		}
		buf_puts(&b, "</tbody></table>\n");
	}
	series_html(&b, &m);
	buf_puts(&b, "<h2>runs</h2>\n");
	if (!m.n) {
		buf_puts(&b, "<p class=\"note\">nothing is running or waiting</p>\n");
	} else {
		if (m.truncated)
			buf_printf(&b, "<p class=\"note\">showing the first %d</p>\n", DBQ_QUEUE_MAX);
		pages = ((long long)m.n + WEB_QUEUE_PAGE - 1) / WEB_QUEUE_PAGE;
		if (page > pages)
			page = pages;
		from = (size_t)(page - 1) * WEB_QUEUE_PAGE;
		to = from + WEB_QUEUE_PAGE < m.n ? from + WEB_QUEUE_PAGE : m.n;
		if (pages > 1) {
			buf_printf(&b, "<p class=\"note\">runs %zu to %zu of %zu</p>\n", from + 1, to,
				   m.n);
			queue_pages_nav(&b, page, pages);
		}
		buf_puts(&b, "<table id=\"queue\"><thead><tr><th>run</th><th>state</th>"
			 "<th>request</th><th>for</th><th>job</th><th>kernel</th><th>arch</th><th>vCPUs</th>"
			 "<th>host</th><th>waited</th><th>running for</th><th>median run</th>"
			 "<th>expected end in</th><th>where</th></tr></thead><tbody>\n");
		for (size_t i = from; i < to; i++)
			queue_run_row(&b, &m, &m.q[i]);
		buf_puts(&b, "</tbody></table>\n");
		if (pages > 1)
			queue_pages_nav(&b, page, pages);
	}
	buf_printf(&b, "<p class=\"note\">Queued runs are listed in the order the fair queue "
		   "serves them: people's runs first, oldest first, then the watches' taking turns. "
		   "Estimates: a run takes the median time of the last %d "
		   "finished runs of the same job (or command), arch and vCPUs (how many in "
		   "brackets); the fleet keeps %zu run%s going, as now, and starts the next "
		   "queued run when one ends. &ldquo;unknown&rdquo; when a run ahead has no "
		   "finished runs of its kind yet.</p>\n", DBQ_MEDIAN_RUNS, m.parallel,
		   m.parallel == 1 ? "" : "s");
	web_page_tail(&b);
	if (*key && !b.truncated)
		web_cache_put(w, key, buf_str(&b), b.len, "text/html; charset=utf-8");
	rc = web_reply_page(c, &b);
out:
	buf_release(&b);
	queue_release(&m);
	return rc;
}

/* ---- JSON ---- */

static json_t *jms(int64_t ms)
{
	return ms >= 0 ? json_integer(ms) : json_null();
}

/* offset= and limit= of /api/queue: 0, or -1 */
static int queue_page_args(struct MHD_Connection *c, long long *offset, long long *limit)
{
	const char *os = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "offset");
	const char *ls = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");

	*offset = 0;
	*limit = WEB_QUEUE_PAGE;
	return (os && parse_int(os, 0, INT32_MAX, offset) < 0) ||
	       (ls && parse_int(ls, 1, DBQ_QUEUE_MAX, limit) < 0) ? -1 : 0;
}

/* The runs of /api/queue from place from up to place to: NULL when out of
 * memory */
static json_t *queue_runs_json(const struct queue *m, size_t from, size_t to)
{
	json_t *runs = json_array();
	int bad = 0;

	for (size_t i = from; runs && i < to; i++) {
		const struct dbq_queue_run *q = m->q[i].r;
		int running = q->state == RUN_RUNNING;

		if (json_array_append_new(runs, json_pack("{s:I, s:s, s:o, s:o, s:o, s:{s:I, s:o},"
			" s:o, s:i, s:o, s:i, s:o, s:o, s:o, s:o, s:o, s:i, s:o, s:o, s:o, s:o, s:o}",
			"id", (json_int_t)q->id, "state", run_state_name(q->state),
			"request", q->request_id > 0 ? json_integer(q->request_id) : json_null(),
			"watch", web_json_str(q->watch),
			"job", web_json_str(q->job),
			"kernel", "id", (json_int_t)q->kernel_id, "path", web_json_str(q->kernel_path),
			"arch", web_json_str(q->arch), "vcpus", q->vcpus,
			"host", web_json_str(q->host), "attempt", q->attempt,
			"queued_at", web_json_time(q->queued_at), "started_at", web_json_time(q->started_at),
			"waited_ms", jms((running ? q->started_at : m->now) - q->queued_at),
			"running_ms", running ? jms(m->now - q->started_at) : json_null(),
			"median_ms", jms(m->q[i].median_ms), "median_runs", m->q[i].median_n,
			"expected_end_in_ms", jms(m->q[i].finish_ms),
			"position", m->q[i].position ? json_integer(m->q[i].position) : json_null(),
			"expected_start_in_ms", running ? json_null() : jms(m->q[i].start_ms),
			"phase", web_json_str(q->phase),
			"phase_ms", q->phase ? jms(m->now - q->phase_at) : json_null())) < 0)
			bad = 1;
	}
	if (bad) {
		json_decref(runs);
		return NULL;
	}
	return runs;
}

/* Each request's progress and expected end: NULL when out of memory */
static json_t *queue_reqs_json(const struct queue *m)
{
	json_t *reqs = json_array();
	int bad = 0;

	for (size_t i = 0; reqs && i < m->nreqs; i++)
		if (json_array_append_new(reqs, json_pack("{s:I, s:i, s:i, s:o}",
			"id", (json_int_t)m->reqs[i].id, "runs", m->reqs[i].runs,
			"done", m->reqs[i].done, "expected_done_in_ms", jms(m->reqs[i].eta_ms))) < 0)
			bad = 1;
	if (bad) {
		json_decref(reqs);
		return NULL;
	}
	return reqs;
}

/* The watched series and their turnaround: NULL when out of memory */
static json_t *queue_series_json(const struct queue *m)
{
	json_t *series = json_array();
	int bad = 0;

	for (size_t i = 0; series && i < m->nseries; i++) {
		const struct qseries *q = &m->series[i];

		if (json_array_append_new(series, json_pack("{s:I, s:o, s:o, s:I, s:I, s:o, s:i,"
			" s:i, s:o, s:o, s:o, s:b, s:o, s:o}", "id", (json_int_t)q->s->id,
			"watch", web_json_str(q->s->watch), "name", web_json_str(q->s->name),
			"version", (json_int_t)q->s->version,
			"submission", (json_int_t)q->s->submission_id,
			"state", web_json_str(q->s->state), "runs", q->s->runs, "done", q->s->done,
			"queued_at", web_json_time(q->s->queued_at),
			"started_at", web_json_time(q->s->started_at),
			"finished_at", q->s->open ? json_null() : web_json_time(q->s->finished_at),
			"finished", !q->s->open,
			"turnaround_ms", q->s->open ? json_null() : jms(q->turnaround_ms),
			"expected_turnaround_ms", q->s->open ? jms(q->turnaround_ms) : json_null())) < 0)
			bad = 1;
	}
	if (bad) {
		json_decref(series);
		return NULL;
	}
	return series;
}

WEB_HANDLER(api_queue)
{
	struct queue m;
	enum MHD_Result rc;
	struct db *db;
	json_t *runs = NULL, *reqs = NULL, *series = NULL, *o;
	long long offset, limit;
	size_t to;
	char next[64], what[64], key[160], *js = NULL;
	struct buf out = BUF_INIT(0);
	const char *ctype;
	int r;

	if (queue_page_args(c, &offset, &limit) < 0)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "offset= is a run's place in the "
				       "queue (0 or more), limit= a count from 1 to %d",
				       DBQ_QUEUE_MAX);
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	snprintf(what, sizeof(what), "json %lld %lld", offset, limit);
	if (queue_key(db, what, key, sizeof(key)) < 0)
		key[0] = '\0';
	if (*key && web_cache_get(w, key, &out, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &out);
		buf_release(&out);
		return rc;
	}
	r = queue_load(w, db, &m);
	if (r < 0) {
		log_warn("web: queue: %s", r == -1 ? db_errmsg(db) : "out of memory");
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "queue: %s",
				     r == -1 ? db_errmsg(db) : "out of memory");
		goto out;
	}
	to = (size_t)offset + (size_t)limit < m.n ? (size_t)(offset + limit) : m.n;
	runs = queue_runs_json(&m, (size_t)offset, to);
	reqs = queue_reqs_json(&m);
	series = queue_series_json(&m);
	if (!runs || !reqs || !series) {
		json_decref(runs);
		json_decref(reqs);
		json_decref(series);
		rc = MHD_NO;
		goto out;
	}
	snprintf(next, sizeof(next), "/api/queue?offset=%zu&limit=%lld", to, limit);
	o = json_pack("{s:o, s:o, s:o, s:I, s:I, s:I, s:b, s:I, s:I, s:o}", "runs", runs,
		      "requests", reqs, "series", series, "running", (json_int_t)m.running,
		      "queued", (json_int_t)m.queued, "parallel", (json_int_t)m.parallel,
		      "truncated", m.truncated, "offset", (json_int_t)offset,
		      "total", (json_int_t)m.n, "next", to < m.n ? json_string(next) : json_null());
	js = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	if (!js || buf_puts(&out, js) < 0 || buf_puts(&out, "\n") < 0) {
		rc = MHD_NO;
		goto out;
	}
	if (*key)
		web_cache_put(w, key, buf_str(&out), out.len, "application/json");
	rc = web_reply(c, MHD_HTTP_OK, "application/json", &out);
out:
	free(js);
	buf_release(&out);
	queue_release(&m);
	return rc;
}

/* ---- /hosts ---- */

/* What kfleetd knows now of each host's health over what the database
 * says: a write of it may have failed (a full disk) */
static void hosts_health_now(struct web *w, struct dbq_host *h, size_t n)
{
	char why[512];
	int healthy;

	for (size_t i = 0; i < n; i++) {
		if (!h[i].name || !orch_host_health(w->orch, h[i].name, &healthy, why, sizeof(why)))
			continue;
		h[i].healthy = healthy;
		free(h[i].health_detail);
		h[i].health_detail = healthy || !why[0] ? NULL : strdup(why);
	}
}

/* The pool cell of a host on /hosts: what its storage pool held when
 * kfleetd last listed it; "-" for a host that shares files by path */
static void pool_html(struct buf *b, struct orch *o, const char *name)
{
	struct orch_host_live l;
	char at[32];

	if (!orch_host_live(o, name, &l) || !l.pool[0]) {
		buf_puts(b, "-");
		return;
	}
	web_html_str(b, l.pool);
	if (!l.pool_at) {
		buf_puts(b, ": not listed yet");
		return;
	}
	fmt_time_ms(l.pool_at, 0, at, sizeof(at));
	buf_printf(b, ": %d kernel%s, %d image%s, %d of runs, %.1f MiB (at %s)", l.pool_kernels,
		   l.pool_kernels == 1 ? "" : "s", l.pool_images, l.pool_images == 1 ? "" : "s",
		   l.pool_run_files, (double)l.pool_bytes / (1024.0 * 1024.0), at);
}

WEB_HANDLER(pages_hosts)
{
	struct buf b = BUF_INIT(WEB_PAGE_MAX);
	struct dbq_host *h = NULL;
	size_t n = 0, healthy = 0;
	enum MHD_Result rc;
	struct db *db = web_db_or_reply(w, c, 1, &rc);

	if (!db)
		return rc;
	if (dbq_hosts(db, &h, &n) < 0) {
		log_warn("web: hosts page: %s", db_errmsg(db));
		return web_reply_html_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					    db_errmsg(db));
	}
	hosts_health_now(w, h, n);
	for (size_t i = 0; i < n; i++)
		healthy += h[i].healthy != 0;
	web_page_head(&b, "kfleet: hosts", 0);
	buf_printf(&b, "<h1>hosts</h1>\n<p>%zu host%s, %zu in placement</p>\n", n,
		   n == 1 ? "" : "s", healthy);
	if (!n) {
		buf_puts(&b, "<p class=\"note\">no hosts yet: kfleetd adds them when it connects"
			 "</p>\n");
	} else {
		buf_puts(&b, "<table id=\"hosts\"><thead><tr><th>host</th><th>health</th>"
			 "<th>accel</th><th>QEMU</th><th>libvirt</th><th>max vCPUs</th>"
			 "<th>memory</th><th>running</th><th>runs done</th><th>updated (UTC)</th>"
			 "<th>pool</th><th>URI</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < n; i++) {
			char upd[32];

			fmt_time_ms(h[i].updated_at, 0, upd, sizeof(upd));
			buf_puts(&b, "<tr><td>");
			web_html_str(&b, h[i].name);
			if (h[i].healthy) {
				buf_puts(&b, "</td><td class=\"passed\">healthy");
			} else {
				buf_puts(&b, "</td><td class=\"failed\">out of placement");
				if (h[i].health_detail) {
					buf_puts(&b, ": ");
					web_html_redacted(&b, h[i].health_detail);
				}
			}
			buf_puts(&b, "</td><td>");
			web_html_str(&b, h[i].accel);
			buf_puts(&b, "</td><td>");
			web_html_str(&b, h[i].qemu_version);
			buf_puts(&b, "</td><td>");
			web_html_str(&b, h[i].libvirt_version);
			buf_printf(&b, "</td><td class=\"num\">%d</td><td class=\"num\">%.1f GiB</td>"
				   "<td class=\"num\">%d</td><td class=\"num\">%lld</td><td>%s</td><td>",
				   h[i].max_vcpus, (double)h[i].memory_kb / (1024.0 * 1024.0),
				   h[i].running, (long long)h[i].done, upd);
			pool_html(&b, w->orch, h[i].name);
			buf_puts(&b, "</td><td>");
			web_html_redacted(&b, h[i].uri);
			buf_puts(&b, "</td></tr>\n");
		}
		buf_puts(&b, "</tbody></table>\n");
	}
	web_page_tail(&b);
	rc = web_reply_page(c, &b);
	buf_release(&b);
	dbq_hosts_free(h, n);
	return rc;
}

/* A host's storage pool as it was last listed: null for a host that
 * shares files by path, counts null until kfleetd has looked */
static json_t *pool_json(const struct orch_host_live *l)
{
	if (!l->pool[0])
		return json_null();
	if (!l->pool_at)
		return json_pack("{s:s, s:n}", "name", l->pool, "seen_at");
	return json_pack("{s:s, s:i, s:i, s:i, s:I, s:o}", "name", l->pool,
			 "kernels", l->pool_kernels, "images", l->pool_images,
			 "run_files", l->pool_run_files, "bytes", (json_int_t)l->pool_bytes,
			 "seen_at", web_json_time(l->pool_at));
}

WEB_HANDLER(api_hosts)
{
	struct dbq_host *h = NULL;
	size_t n = 0;
	enum MHD_Result rc;
	struct db *db = web_db_or_reply(w, c, 0, &rc);
	json_t *arr;
	int bad = 0;

	if (!db)
		return rc;
	if (dbq_hosts(db, &h, &n) < 0) {
		log_warn("web: hosts: %s", db_errmsg(db));
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				       db_errmsg(db));
	}
	hosts_health_now(w, h, n);
	arr = json_array();
	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, json_pack("{s:o, s:o, s:o, s:o, s:o, s:i, s:I, s:b,"
			" s:o, s:o, s:i, s:I}", "name", web_json_str(h[i].name),
			"uri", web_json_redacted(h[i].uri), "accel", web_json_str(h[i].accel),
			"qemu_version", web_json_str(h[i].qemu_version),
			"libvirt_version", web_json_str(h[i].libvirt_version),
			"max_vcpus", h[i].max_vcpus, "memory_kb", (json_int_t)h[i].memory_kb,
			"healthy", h[i].healthy != 0, "health_detail",
			web_json_redacted(h[i].health_detail),
			"updated_at", web_json_time(h[i].updated_at), "running", h[i].running,
			"runs_done", (json_int_t)h[i].done)) < 0)
			bad = 1;
	/* what the daemon knows now of each configured host */
	for (size_t i = 0; arr && !bad && i < n; i++) {
		struct orch_host_live l;
		json_t *o = json_array_get(arr, i);

		if (!orch_host_live(w->orch, h[i].name, &l))
			continue;
		if (json_object_set_new(o, "live", json_pack("{s:i, s:i, s:i, s:i, s:b, s:s, s:o, s:o,"
			" s:o, s:o}", "slots", l.slots, "busy", l.busy, "cpus", l.cpus, "cpus_used",
			l.cpus_used, "connected", l.connected, "transfer", l.upload ? "upload" : "files",
			"accel_why", web_json_str(l.accel_why[0] ? l.accel_why : NULL),
			"arm64", web_json_str(l.accel_arm64[0] ? l.accel_arm64 : NULL),
			"machine", web_json_str(l.machine[0] ? l.machine : NULL),
			"down_since", l.down_since ? web_json_time(l.down_since) : json_null())) < 0 ||
		    json_object_set_new(json_object_get(o, "live"), "pool", pool_json(&l)) < 0)
			bad = 1;
	}
	dbq_hosts_free(h, n);
	if (!arr || bad) {
		json_decref(arr);
		return MHD_NO;
	}
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "hosts", arr));
}
