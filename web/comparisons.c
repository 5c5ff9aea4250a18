/* comparisons.c: GET /api/compare?a=KERNEL&b=KERNEL&job=NAME[&arch=A][&vcpus=N]
 * [&format=json|text|markdown][&columns=all|avg,p99,max,test]: the
 * before/after comparison of one job's metrics on two kernels. It reads
 * the samples of the job's passed runs on each kernel (read-only SQL on
 * this thread's connection), groups them by cell (arch, vcpus, memory,
 * accel, host, topology, NUMA nodes: different cells are never compared)
 * and metric, and hands them to analysis/ for the verdicts and the
 * rendering. a == b is the A/A mode, to show the noise floor: in each
 * cell that kernel's runs in id order go alternately to half A and half
 * B (the 1st, 3rd, 5th... and the 2nd, 4th...; not the id's own parity,
 * which interleaved base/patched submissions make the same for all). */
#include "web/cache.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "analysis/analysis.h"
#include "db/db.h"
#include "common/log.h"
#include "common/util.h"
#include "jobs/jobs.h"

#define COMPARE_ROWS_MAX   200000   /* samples read for one comparison */
#define COMPARE_CELLS_MAX  64       /* cells on both kernels together */

/* One run's metric: the median of its samples, taken as they are read */
struct crow {
	int64_t run;
	int side;        /* 0 base (a), 1 patched (b) */
	size_t cell;     /* index into struct creq.cells */
	char *metric;
	char *unit;      /* or NULL */
	double value;
};

struct creq {
	int64_t a, b;
	const char *job, *arch;
	long long vcpus;                  /* 0: any */
	struct crow *rows;
	size_t n, alloc;
	size_t nsamples;                  /* samples read, at most COMPARE_ROWS_MAX */
	double *gv;                       /* the samples of rows[n - 1] while open */
	size_t gn, galloc;
	int gopen;
	struct cmp_cell cells[COMPARE_CELLS_MAX];
	int cell_side[COMPARE_CELLS_MAX]; /* bit 0: base runs there, bit 1: patched */
	int64_t cell_last[COMPARE_CELLS_MAX];  /* A/A: the cell's last run seen */
	size_t cell_runs[COMPARE_CELLS_MAX];   /* A/A: the cell's runs seen */
	size_t ncells;
	int64_t left_out[2];              /* done runs that did not pass, per side */
	char *label[2];
};

static void creq_release(struct creq *q)
{
	for (size_t i = 0; i < q->n; i++) {
		free(q->rows[i].metric);
		free(q->rows[i].unit);
	}
	free(q->rows);
	free(q->gv);
	for (size_t i = 0; i < q->ncells; i++) {
		free(q->cells[i].arch);
		free(q->cells[i].accel);
		free(q->cells[i].host);
		free(q->cells[i].topology);
	}
	free(q->label[0]);
	free(q->label[1]);
}

static char *dup_col(sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);

	return s ? strdup((const char *)s) : NULL;
}

/* The cell's index, added when new; -3 when there are too many, -1 when
 * memory ran out */
static int cell_index(struct creq *q, const struct cmp_cell *c, size_t *idx)
{
	struct cmp_cell *n;

	for (size_t i = 0; i < q->ncells; i++)
		if (cmp_cell_same(&q->cells[i], c)) {
			*idx = i;
			return 0;
		}
	if (q->ncells == COMPARE_CELLS_MAX)
		return -3;
	n = &q->cells[q->ncells++];   /* counted now: creq_release frees it */
	n->arch = c->arch ? strdup(c->arch) : NULL;
	n->vcpus = c->vcpus;
	n->memory_mb = c->memory_mb;
	n->accel = c->accel ? strdup(c->accel) : NULL;
	n->host = c->host ? strdup(c->host) : NULL;
	n->topology = c->topology ? strdup(c->topology) : NULL;
	n->numa_nodes = c->numa_nodes;
	if ((c->arch && !n->arch) || (c->accel && !n->accel) || (c->host && !n->host) ||
	    (c->topology && !n->topology))
		return -1;
	*idx = q->ncells - 1;
	return 0;
}

/* Adds a sample to the open group (rows[n - 1]); 0 / -1 (memory) */
static int group_add(struct creq *q, double v)
{
	if (q->gn == q->galloc) {
		size_t na = q->galloc ? q->galloc * 2 : 64;
		double *nv = realloc(q->gv, na * sizeof(*nv));

		if (!nv)
			return -1;
		q->gv = nv;
		q->galloc = na;
	}
	q->gv[q->gn++] = v;
	return 0;
}

/* Closes the open group: its row's value becomes the median of its
 * samples. 0 / -1 (as stats_summarize) */
static int group_close(struct creq *q)
{
	struct stats_summary s;

	if (!q->gopen)
		return 0;
	q->gopen = 0;
	if (stats_summarize(q->gv, q->gn, &s) < 0)
		return -1;
	q->rows[q->n - 1].value = s.median;
	q->gn = 0;
	return 0;
}

/* Reads the samples of the job's passed runs on kernel id into q, one row
 * per run and metric (the median of its samples: runs are the independent
 * repeats), with side given, or alternately by run within its cell when aa
 * (rows come in run id order). By run and metric, the index's order: no
 * sort of every sample. 0, -1 on database errors or memory, -2 past
 * COMPARE_ROWS_MAX samples, -3 past COMPARE_CELLS_MAX. */
static int read_side(sqlite3 *sql, struct creq *q, int64_t id, int side, int aa)
{
	static const char sel[] =
		"SELECT r.id, r.arch, r.vcpus, r.memory_mb, r.accel, h.name, s.metric,"
		" s.unit, s.value, r.topology, r.numa_nodes"
		" FROM runs r JOIN samples s ON s.run_id = r.id"
		" LEFT JOIN hosts h ON h.id = r.host_id"
		" WHERE r.kernel_id = ?1 AND r.job = ?2 AND r.state = ?3 AND r.outcome = ?4"
		" AND (?5 IS NULL OR r.arch = ?5) AND (?6 = 0 OR r.vcpus = ?6)"
		" ORDER BY r.id, s.metric LIMIT ?7";
	static const char cnt[] =
		"SELECT count(*) FROM runs r"
		" WHERE r.kernel_id = ?1 AND r.job = ?2 AND r.state = ?3"
		" AND (r.outcome IS NULL OR r.outcome != ?4)"
		" AND (?5 IS NULL OR r.arch = ?5) AND (?6 = 0 OR r.vcpus = ?6)";
	sqlite3_stmt *st = NULL;
	int rc = -1, s;

	for (int pass = 0; pass < 2; pass++) {
		if (sqlite3_prepare_v2(sql, pass ? cnt : sel, -1, &st, NULL) != SQLITE_OK)
			goto out;
		sqlite3_bind_int64(st, 1, id);
		sqlite3_bind_text(st, 2, q->job, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, run_state_name(RUN_DONE), -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, run_outcome_name(RUN_OUT_PASSED), -1, SQLITE_STATIC);
		if (q->arch)
			sqlite3_bind_text(st, 5, q->arch, -1, SQLITE_STATIC);
		else
			sqlite3_bind_null(st, 5);
		sqlite3_bind_int64(st, 6, q->vcpus);
		if (!pass)
			sqlite3_bind_int64(st, 7,
					   (sqlite3_int64)(COMPARE_ROWS_MAX - q->nsamples + 1));
		while ((s = sqlite3_step(st)) == SQLITE_ROW) {
			struct cmp_cell c;
			struct crow *r;
			int64_t run = sqlite3_column_int64(st, 0);
			const char *metric;

			if (pass) {
				q->left_out[side] += sqlite3_column_int64(st, 0);
				continue;
			}
			if (q->nsamples == COMPARE_ROWS_MAX) {
				rc = -2;
				goto out;
			}
			q->nsamples++;
			metric = (const char *)sqlite3_column_text(st, 6);
			if (!metric)
				goto out;
			if (q->gopen && q->rows[q->n - 1].run == run &&
			    !strcmp(q->rows[q->n - 1].metric, metric)) {
				if (group_add(q, sqlite3_column_double(st, 8)) < 0)
					goto out;
				continue;
			}
			if (group_close(q) < 0)
				goto out;
			c.arch = (char *)sqlite3_column_text(st, 1);
			c.vcpus = sqlite3_column_int(st, 2);
			c.memory_mb = sqlite3_column_int(st, 3);
			c.accel = (char *)sqlite3_column_text(st, 4);
			c.host = (char *)sqlite3_column_text(st, 5);
			c.topology = (char *)sqlite3_column_text(st, 9);
			c.numa_nodes = sqlite3_column_int(st, 10);
			if (q->n == q->alloc) {
				size_t na = q->alloc ? q->alloc * 2 : 256;
				struct crow *nr = realloc(q->rows, na * sizeof(*nr));

				if (!nr)
					goto out;
				q->rows = nr;
				q->alloc = na;
			}
			r = &q->rows[q->n];
			memset(r, 0, sizeof(*r));
			s = cell_index(q, &c, &r->cell);
			if (s < 0) {
				rc = s;
				goto out;
			}
			r->run = run;
			if (aa && (!q->cell_runs[r->cell] || q->cell_last[r->cell] != run)) {
				q->cell_runs[r->cell]++;
				q->cell_last[r->cell] = run;
			}
			r->side = aa ? (int)((q->cell_runs[r->cell] - 1) % 2) : side;
			r->metric = dup_col(st, 6);
			r->unit = dup_col(st, 7);
			q->n++;
			if (!r->metric)
				goto out;
			q->gopen = 1;
			if (group_add(q, sqlite3_column_double(st, 8)) < 0)
				goto out;
			q->cell_side[r->cell] |= 1 << r->side;
		}
		if (s != SQLITE_DONE)
			goto out;
		if (group_close(q) < 0)
			goto out;
		sqlite3_finalize(st);
		st = NULL;
	}
	rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* cells in a stable order: arch, vcpus, memory, accel, host, topology, NUMA (qsort_r
 * with the struct creq as context) */
static int cmp_cells(const void *pa, const void *pb, void *ctx)
{
	const struct creq *q = ctx;
	const struct cmp_cell *a = &q->cells[*(const size_t *)pa];
	const struct cmp_cell *b = &q->cells[*(const size_t *)pb];
	int d = cmp_str(a->arch, b->arch);

	if (d)
		return d;
	if (a->vcpus != b->vcpus)
		return a->vcpus < b->vcpus ? -1 : 1;
	if (a->memory_mb != b->memory_mb)
		return a->memory_mb < b->memory_mb ? -1 : 1;
	d = cmp_str(a->accel, b->accel);
	if (d)
		return d;
	d = cmp_str(a->host, b->host);
	if (d)
		return d;
	d = cmp_str(a->topology, b->topology);
	return d ? d : a->numa_nodes - b->numa_nodes;
}

/* rows by cell, metric, side, run */
static int cmp_rows(const void *pa, const void *pb)
{
	const struct crow *a = pa, *b = pb;
	int d;

	if (a->cell != b->cell)
		return a->cell < b->cell ? -1 : 1;
	d = strcmp(a->metric, b->metric);
	if (d)
		return d;
	if (a->side != b->side)
		return a->side - b->side;
	if (a->run != b->run)
		return a->run < b->run ? -1 : 1;
	return (a->value > b->value) - (a->value < b->value);
}

/* One value per run and side: the median of the run's samples of the
 * metric (runs are the independent repeats; samples within a run are not).
 * rows[from..to) are one cell and metric, sorted by side and run. */
static int per_run(const struct crow *rows, size_t from, size_t to, double *vals[2],
		   size_t nv[2])
{
	for (size_t i = from; i < to;) {
		size_t j = i;
		struct stats_summary s;
		double *tmp;

		while (j < to && rows[j].side == rows[i].side && rows[j].run == rows[i].run)
			j++;
		tmp = malloc((j - i) * sizeof(*tmp));
		if (!tmp)
			return -1;
		for (size_t k = i; k < j; k++)
			tmp[k - i] = rows[k].value;
		if (stats_summarize(tmp, j - i, &s) < 0) {
			free(tmp);
			return -1;
		}
		free(tmp);
		vals[rows[i].side][nv[rows[i].side]++] = s.median;
		i = j;
	}
	return 0;
}

/* The report of one cell; 0 / -1 (memory) */
static int cell_report(struct creq *q, const struct job_def *def, size_t cell,
		       size_t from, size_t to, struct cmp_report *r)
{
	static const char *const side_name[2] = { "base", "patched" };
	char err[256];
	double *vals[2] = { NULL, NULL };
	size_t nv[2];
	int rc = -1;

	if (cmp_report_init(r, q->job, q->label[0], q->label[1], &q->cells[cell],
			    &q->cells[cell], err, sizeof(err)) < 0)
		return -1;
	vals[0] = malloc((to - from) * sizeof(double));
	vals[1] = malloc((to - from) * sizeof(double));
	if (!vals[0] || !vals[1])
		goto out;
	for (size_t i = from; i < to;) {
		size_t j = i;
		const char *unit = NULL;

		while (j < to && !strcmp(q->rows[j].metric, q->rows[i].metric)) {
			if (!unit)
				unit = q->rows[j].unit;
			j++;
		}
		nv[0] = nv[1] = 0;
		if (per_run(q->rows, i, j, vals, nv) < 0)
			goto out;
		if (!nv[0] || !nv[1])
			cmp_report_note(r, "metric '%s': no %s samples", q->rows[i].metric,
					side_name[nv[0] ? 1 : 0]);
		else if (cmp_report_add(r, q->rows[i].metric, unit,
					web_metric_better(def, q->rows[i].metric, NULL), vals[0], nv[0],
					vals[1], nv[1]) < 0)
			cmp_report_note(r, "metric '%s': left out (more than %d metrics?)",
					q->rows[i].metric, CMP_METRICS_MAX);
		i = j;
	}
	if (!def)
		cmp_report_note(r, "job '%s' is not loaded: metric directions not known", q->job);
	for (int s = 0; s < 2; s++)
		if (q->left_out[s])
			cmp_report_note(r, "kernel %lld: %lld done run%s that did not pass left out",
					(long long)(s ? q->b : q->a), (long long)q->left_out[s],
					q->left_out[s] == 1 ? "" : "s");
	rc = 0;
out:
	free(vals[0]);
	free(vals[1]);
	return rc;
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

/* The key of a query against the runs as they are now; NULL on errors */
static char *cache_key(struct db *db, const struct creq *q, const char *fmt, unsigned cols)
{
	sqlite3_stmt *st = NULL;
	char *key = NULL;

	if (sqlite3_prepare_v2(db_sqlite(db), "SELECT count(*), coalesce(max(ended_at), 0)"
			       " FROM runs WHERE kernel_id IN (?1, ?2) AND job = ?3 AND state = 'done'",
			       -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_int64(st, 1, q->a);
	sqlite3_bind_int64(st, 2, q->b);
	sqlite3_bind_text(st, 3, q->job, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW &&
	    asprintf(&key, "%lld %lld %s %s %lld %s %u runs %lld %lld", (long long)q->a,
		     (long long)q->b, q->job, q->arch ? q->arch : "-", (long long)q->vcpus,
		     fmt ? fmt : "json", cols, (long long)sqlite3_column_int64(st, 0),
		     (long long)sqlite3_column_int64(st, 1)) < 0)
		key = NULL;
	sqlite3_finalize(st);
	return key;
}

WEB_HANDLER(api_compare)
{
	const char *as = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "a");
	const char *bs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "b");
	const char *vs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "vcpus");
	const char *fmt = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
	const char *cs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "columns");
	struct creq q;
	struct buf text = BUF_INIT(WEB_PAGE_MAX);
	size_t order[COMPARE_CELLS_MAX], rank[COMPARE_CELLS_MAX];
	json_t *o = NULL, *comps = NULL, *unmatched = NULL;
	long long a, b;
	enum MHD_Result rc;
	unsigned cols;
	int aa, r, as_text, jbad = 0;
	struct db *db;
	char *key = NULL;

	memset(&q, 0, sizeof(q));
	q.job = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "job");
	q.arch = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "arch");
	if (!as || parse_int(as, 1, INT64_MAX, &a) < 0 || !bs ||
	    parse_int(bs, 1, INT64_MAX, &b) < 0)
		return bad(c, "a and b must be kernel ids");
	if (!q.job || !name_ok(q.job, 64))
		return bad(c, "job=NAME is required ([a-z0-9_.-], up to 64)");
	if (q.arch && !name_ok(q.arch, 32))
		return bad(c, "arch: not an arch name");
	if (vs && parse_int(vs, 1, 1 << 20, &q.vcpus) < 0)
		return bad(c, "vcpus: not a number of vcpus");
	if (fmt && strcmp(fmt, "json") && strcmp(fmt, "text") && strcmp(fmt, "markdown"))
		return bad(c, "format: json, text or markdown");
	if (parse_columns(cs, &cols) < 0)
		return bad(c, "columns: a list of avg, p99, max, test, or all");
	as_text = fmt && strcmp(fmt, "json");
	q.a = a;
	q.b = b;
	aa = a == b;

	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	key = cache_key(db, &q, as_text ? fmt : "json", cols);
	{
		struct buf hit = BUF_INIT(0);
		int json = 0;

		if (web_cache_get(w, key, &hit, &json)) {
			free(key);
			return web_reply(c, MHD_HTTP_OK, json ? "application/json" :
					 "text/plain; charset=utf-8", &hit);
		}
		buf_release(&hit);
	}
	for (int s = 0; s < (aa ? 1 : 2); s++) {
		r = db_kernel_label(db, s ? b : a, aa ? " half A" : "", &q.label[s]);
		if (r <= 0) {
			rc = r < 0 ? web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
						     "database: %s", db_errmsg(db))
				: web_reply_error(c, MHD_HTTP_NOT_FOUND, "kernel %lld: no such kernel",
						  s ? b : a);
			goto out;
		}
	}
	if (aa && db_kernel_label(db, a, " half B", &q.label[1]) <= 0) {
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				     db_errmsg(db));
		goto out;
	}
	for (int s = 0; s < (aa ? 1 : 2); s++) {
		r = read_side(db_sqlite(db), &q, s ? b : a, s, aa);
		if (r == -2 || r == -3) {
			rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST,
					     "compare: more than %d %s; narrow it with arch= or vcpus=",
					     r == -2 ? COMPARE_ROWS_MAX : COMPARE_CELLS_MAX,
					     r == -2 ? "samples" : "cells");
			goto out;
		}
		if (r < 0) {
			log_warn("web: compare: %s", db_errmsg(db));
			rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
					     db_errmsg(db));
			goto out;
		}
	}

	/* cells in a stable order, rows grouped by cell and metric */
	for (size_t i = 0; i < q.ncells; i++)
		order[i] = i;
	qsort_r(order, q.ncells, sizeof(order[0]), cmp_cells, &q);
	for (size_t i = 0; i < q.ncells; i++)
		rank[order[i]] = i;
	for (size_t i = 0; i < q.n; i++)
		q.rows[i].cell = rank[q.rows[i].cell];
	{
		struct cmp_cell tmp[COMPARE_CELLS_MAX];
		int side_tmp[COMPARE_CELLS_MAX];

		for (size_t i = 0; i < q.ncells; i++) {
			tmp[i] = q.cells[order[i]];
			side_tmp[i] = q.cell_side[order[i]];
		}
		memcpy(q.cells, tmp, q.ncells * sizeof(tmp[0]));
		memcpy(q.cell_side, side_tmp, q.ncells * sizeof(side_tmp[0]));
	}
	if (q.n)
		qsort(q.rows, q.n, sizeof(q.rows[0]), cmp_rows);

	o = json_object();
	comps = json_array();
	unmatched = json_array();
	if (!o || !comps || !unmatched) {
		rc = MHD_NO;
		goto out;
	}
	for (size_t i = 0, cell = 0; cell < q.ncells; cell++) {
		size_t j = i;
		struct cmp_report rep;

		while (j < q.n && q.rows[j].cell == cell)
			j++;
		if (q.cell_side[cell] != 3) {
			struct buf d = BUF_INIT(0);

			cmp_cell_describe(&q.cells[cell], &d);
			if (json_array_append_new(unmatched, json_pack("{s:s,s:s}", "cell",
				buf_str(&d), "only", q.cell_side[cell] & 1 ? "base" : "patched")) < 0)
				jbad = 1;
			if (as_text)
				buf_printf(&text, "not compared: %s has only %s runs\n\n", buf_str(&d),
					   q.label[q.cell_side[cell] & 1 ? 0 : 1]);
			buf_release(&d);
			i = j;
			continue;
		}
		if (cell_report(&q, job_set_find(web_jobs(w), q.job), cell, i, j, &rep) < 0) {
			cmp_report_release(&rep);
			rc = MHD_NO;
			goto out;
		}
		if (json_array_append_new(comps, cmp_report_json(&rep)) < 0)
			jbad = 1;
		if (as_text) {
			if (text.len)
				buf_puts(&text, "\n");
			if ((!strcmp(fmt, "markdown") ? cmp_render_markdown(&rep, cols, &text)
			     : cmp_render_text(&rep, cols, &text)) < 0)
				jbad = 1;
		}
		cmp_report_release(&rep);
		i = j;
	}
	if (as_text) {
		if (!json_array_size(comps))
			buf_printf(&text, "%s: no passed runs with samples on both sides (%s vs %s)\n",
				   q.job, q.label[0], q.label[1]);
		if (jbad || text.truncated) {
			rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
					     "compare: the table could not be rendered");
			goto out;
		}
		web_cache_put(w, key, buf_str(&text), text.len, 0);
		rc = web_reply(c, MHD_HTTP_OK, "text/plain; charset=utf-8", &text);
		goto out;
	}
	if (json_object_set_new(o, "job", json_string(q.job)) < 0 ||
	    json_object_set_new(o, "a", json_integer(a)) < 0 ||
	    json_object_set_new(o, "b", json_integer(b)) < 0 ||
	    json_object_set_new(o, "aa", json_boolean(aa)) < 0)
		jbad = 1;
	if (json_object_set(o, "comparisons", comps) < 0 ||
	    json_object_set(o, "unmatched", unmatched) < 0 || jbad) {
		rc = MHD_NO;
		goto out;
	}
	{
		char *js = json_dumps(o, JSON_COMPACT);
		struct buf body = BUF_INIT(0);

		if (!js || buf_puts(&body, js) < 0 || buf_puts(&body, "\n") < 0) {
			free(js);
			buf_release(&body);
			rc = MHD_NO;
			goto out;
		}
		free(js);
		web_cache_put(w, key, buf_str(&body), body.len, 1);
		rc = web_reply(c, MHD_HTTP_OK, "application/json", &body);
	}
out:
	free(key);
	json_decref(o);
	json_decref(comps);
	json_decref(unmatched);
	buf_release(&text);
	creq_release(&q);
	return rc;
}
