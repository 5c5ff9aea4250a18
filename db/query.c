/* query.c: the read-only queries of the queue, hosts, request and trend
 * pages (web/queue.c, web/request.c, web/trend.c): plain SELECTs on the
 * caller's connection, every list bounded. Nothing here writes; db.c
 * keeps every change of state. */
#include "db/query.h"
#include "db/dbint.h"

#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

/* v (alloc elements of size sz) grown to hold one more than n; NULL when
 * memory ran out (v is left as it was) */
static void *grow(void *v, size_t n, size_t *alloc, size_t sz)
{
	void *nv;
	size_t na;

	if (n < *alloc)
		return v;
	na = *alloc ? *alloc * 2 : 64;
	nv = realloc(v, na * sz);
	if (!nv)
		return NULL;
	*alloc = na;
	return nv;
}

void dbq_queue_free(struct dbq_queue_run *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].kernel_path);
		free(v[i].job);
		free(v[i].command);
		free(v[i].arch);
		free(v[i].host);
	}
	free(v);
}

int dbq_queue(struct db *db, size_t max, struct dbq_queue_run **out, size_t *n)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT r.id, r.request_id, r.kernel_id, k.path, r.job, r.command, r.arch,"
		" r.vcpus, h.name, r.state, r.attempt, r.queued_at, r.started_at"
		" FROM runs r JOIN kernels k ON k.id = r.kernel_id"
		" LEFT JOIN hosts h ON h.id = r.host_id"
		" WHERE r.state IN ('queued', 'running')"
		" ORDER BY r.state = 'queued', CASE WHEN r.state = 'running' THEN r.started_at END,"
		" r.id LIMIT ?");
	struct dbq_queue_run *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, (sqlite3_int64)max);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_queue_run *r;
		const char *state = (const char *)sqlite3_column_text(st, 9);

		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		r = &v[cnt++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(st, 0);
		r->request_id = sqlite3_column_int64(st, 1);
		r->kernel_id = sqlite3_column_int64(st, 2);
		r->kernel_path = dbi_col_text(st, 3);
		r->job = dbi_col_text(st, 4);
		r->command = dbi_col_text(st, 5);
		r->arch = dbi_col_text(st, 6);
		r->vcpus = sqlite3_column_int(st, 7);
		r->host = dbi_col_text(st, 8);
		r->state = state && !strcmp(state, "running") ? RUN_RUNNING : RUN_QUEUED;
		r->attempt = sqlite3_column_int(st, 10);
		r->queued_at = sqlite3_column_int64(st, 11);
		r->started_at = sqlite3_column_int64(st, 12);
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_queue_free(v, cnt);
	return -1;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int dbq_median_duration(struct db *db, const char *job, const char *command,
			const char *arch, int vcpus, int64_t *median_ms, int *n)
{
	/* one statement per case, so that each walks its index (runs_kind,
	 * runs_kind_command) newest first and stops at the limit: an OR of
	 * the two made SQLite scan every done run of the table */
	sqlite3_stmt *st = dbi_prep(db, job ?
		"SELECT ended_at - started_at FROM runs"
		" WHERE job = ?1 AND arch = ?3 AND vcpus = ?4 AND state = 'done'"
		" AND started_at > 0 AND ended_at >= started_at"
		" AND (outcome IS NULL OR outcome NOT IN ('infra', 'canceled'))"
		" ORDER BY id DESC LIMIT ?5" :
		"SELECT ended_at - started_at FROM runs"
		" WHERE job IS NULL AND command = ?2 AND arch = ?3 AND vcpus = ?4"
		" AND state = 'done' AND started_at > 0 AND ended_at >= started_at"
		" AND (outcome IS NULL OR outcome NOT IN ('infra', 'canceled'))"
		" ORDER BY id DESC LIMIT ?5");
	int64_t d[DBQ_MEDIAN_RUNS];
	int cnt = 0, s;

	*n = 0;
	if (!st)
		return -1;
	if (job)
		sqlite3_bind_text(st, 1, job, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 1);
	if (command)
		sqlite3_bind_text(st, 2, command, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 2);
	if (arch)
		sqlite3_bind_text(st, 3, arch, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int(st, 4, vcpus);
	sqlite3_bind_int(st, 5, DBQ_MEDIAN_RUNS);
	while ((s = sqlite3_step(st)) == SQLITE_ROW && cnt < DBQ_MEDIAN_RUNS)
		d[cnt++] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (s != SQLITE_DONE && s != SQLITE_ROW)
		return -1;
	*n = cnt;
	if (!cnt)
		return 0;
	qsort(d, (size_t)cnt, sizeof(d[0]), cmp_i64);
	*median_ms = cnt % 2 ? d[cnt / 2] : (d[cnt / 2 - 1] + d[cnt / 2]) / 2;
	return 1;
}

int dbq_run_request(struct db *db, int64_t run_id, int64_t *request_id)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT request_id FROM runs WHERE id = ?");
	int s, rc = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, run_id);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		*request_id = sqlite3_column_int64(st, 0);
		rc = sqlite3_column_type(st, 0) != SQLITE_NULL && *request_id > 0;
	} else if (s == SQLITE_DONE) {
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int dbq_request_progress(struct db *db, int64_t request_id, int *runs, int *done)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT count(*), coalesce(sum(state = 'done'), 0)"
				" FROM runs WHERE request_id = ?");
	int rc = -1;

	*runs = *done = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, request_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*runs = sqlite3_column_int(st, 0);
		*done = sqlite3_column_int(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

void dbq_results_free(struct dbq_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].path);
		free(v[i].status);
	}
	free(v);
}

int dbq_request_results(struct db *db, int64_t request_id, size_t max,
			struct dbq_result **out, size_t *n, int *truncated)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT s.run_id, s.path, s.status FROM results s JOIN runs r ON r.id = s.run_id"
		" WHERE r.request_id = ? AND r.state = 'done' ORDER BY s.run_id, s.path LIMIT ?");
	struct dbq_result *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, request_id);
	sqlite3_bind_int64(st, 2, (sqlite3_int64)max + 1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_result *r;

		if (cnt == max) {
			*truncated = 1;
			s = SQLITE_DONE;
			break;
		}
		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		r = &v[cnt++];
		r->run_id = sqlite3_column_int64(st, 0);
		r->path = dbi_col_text(st, 1);
		r->status = dbi_col_text(st, 2);
		if (!r->path || !r->status)
			goto fail;
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_results_free(v, cnt);
	return -1;
}

void dbq_hosts_free(struct dbq_host *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].uri);
		free(v[i].accel);
		free(v[i].qemu_version);
		free(v[i].libvirt_version);
		free(v[i].health_detail);
	}
	free(v);
}

int dbq_hosts(struct db *db, struct dbq_host **out, size_t *n)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT h.name, h.uri, h.accel, h.qemu_version, h.libvirt_version, h.max_vcpus,"
		" h.memory_kb, h.healthy, h.health_detail, h.updated_at,"
		/* kept by triggers (schema step 6), not counted over the runs */
		" coalesce((SELECT n FROM run_counts c WHERE c.host_id = h.id"
		"  AND c.state = 'running'), 0),"
		" coalesce((SELECT n FROM run_counts c WHERE c.host_id = h.id"
		"  AND c.state = 'done'), 0)"
		" FROM hosts h ORDER BY h.name LIMIT 10000");
	struct dbq_host *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_host *h;

		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		h = &v[cnt++];
		memset(h, 0, sizeof(*h));
		h->name = dbi_col_text(st, 0);
		h->uri = dbi_col_text(st, 1);
		h->accel = dbi_col_text(st, 2);
		h->qemu_version = dbi_col_text(st, 3);
		h->libvirt_version = dbi_col_text(st, 4);
		h->max_vcpus = sqlite3_column_int(st, 5);
		h->memory_kb = sqlite3_column_int64(st, 6);
		h->healthy = sqlite3_column_int(st, 7);
		h->health_detail = dbi_col_text(st, 8);
		h->updated_at = sqlite3_column_int64(st, 9);
		h->running = sqlite3_column_int(st, 10);
		h->done = sqlite3_column_int64(st, 11);
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_hosts_free(v, cnt);
	return -1;
}

/* ---- trends ---- */

void dbq_trend_series_free(struct dbq_trend_series *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].tree);
		free(v[i].job);
		free(v[i].metric);
		free(v[i].arch);
	}
	free(v);
}

int dbq_trend_series(struct db *db, const char *tree, const char *job, const char *metric,
		     int results, size_t max, struct dbq_trend_series **out, size_t *n,
		     int *truncated)
{
	/* a run counts once per metric: its samples are deduplicated first */
	static const char *const sql[2] = {
		"SELECT k.tree, r.job, m.metric, r.arch, r.vcpus, count(DISTINCT k.commit_id),"
		" count(*), max(r.ended_at)"
		" FROM (SELECT DISTINCT run_id, metric FROM samples"
		"       WHERE ?3 IS NULL OR metric = ?3) m"
		" JOIN runs r ON r.id = m.run_id JOIN kernels k ON k.id = r.kernel_id"
		" WHERE k.tree IS NOT NULL AND k.commit_id IS NOT NULL AND r.job IS NOT NULL"
		" AND r.state = 'done' AND r.outcome = 'passed'"
		" AND (?1 IS NULL OR k.tree = ?1) AND (?2 IS NULL OR r.job = ?2)"
		" GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5 LIMIT ?4",
		"SELECT k.tree, r.job, NULL, r.arch, r.vcpus, count(DISTINCT k.commit_id),"
		" count(*), max(r.ended_at)"
		" FROM runs r JOIN kernels k ON k.id = r.kernel_id"
		" WHERE k.tree IS NOT NULL AND k.commit_id IS NOT NULL AND r.job IS NOT NULL"
		" AND r.state = 'done' AND r.outcome IS NOT NULL"
		" AND r.outcome NOT IN ('infra', 'canceled')"
		" AND EXISTS (SELECT 1 FROM results s WHERE s.run_id = r.id)"
		" AND (?1 IS NULL OR k.tree = ?1) AND (?2 IS NULL OR r.job = ?2)"
		" GROUP BY 1, 2, 4, 5 ORDER BY 1, 2, 4, 5 LIMIT ?4",
	};
	sqlite3_stmt *st = dbi_prep(db, sql[results ? 1 : 0]);
	struct dbq_trend_series *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	dbi_bind_text(st, 1, tree);
	dbi_bind_text(st, 2, job);
	dbi_bind_text(st, 3, metric);
	sqlite3_bind_int64(st, 4, (sqlite3_int64)max + 1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_trend_series *r;

		if (cnt == max) {
			*truncated = 1;
			s = SQLITE_DONE;
			break;
		}
		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		r = &v[cnt++];
		memset(r, 0, sizeof(*r));
		r->tree = dbi_col_text(st, 0);
		r->job = dbi_col_text(st, 1);
		r->metric = dbi_col_text(st, 2);
		r->arch = dbi_col_text(st, 3);
		r->vcpus = sqlite3_column_int(st, 4);
		r->commits = sqlite3_column_int(st, 5);
		r->runs = sqlite3_column_int64(st, 6);
		r->last_ms = sqlite3_column_int64(st, 7);
		if (!r->tree || !r->job || !r->arch || (!results && !r->metric))
			goto fail;
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_trend_series_free(v, cnt);
	return -1;
}

void dbq_trend_values_release(struct dbq_trend_values *v)
{
	for (size_t i = 0; v->c && i < v->n; i++) {
		free(v->c[i].commit);
		free(v->c[i].v);
		free(v->c[i].run_ids);
	}
	free(v->c);
	free(v->unit);
	memset(v, 0, sizeof(*v));
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define DBQ_STR_(x) #x
#define DBQ_STR(x) DBQ_STR_(x)

/* The WITH clause both trend queries share: rr, the runs that count with
 * their commit, numbered newest first per commit; c0, the newest
 * DBQ_TREND_COMMITS commits and one more (to tell that there were more);
 * c, the newest DBQ_TREND_COMMITS. ?1 tree, ?2 job, ?3 arch, ?4 vcpus, ?5
 * 1: passed runs only, 0: all but infra and canceled. The query's columns
 * TREND_DROPPED_SQL say whether commits and runs were left out. */
#define TREND_RUNS_SQL \
	"WITH rr AS (SELECT r.id AS run_id, k.commit_id AS cid," \
	"  coalesce(k.commit_order, -1) AS ord," \
	"  row_number() OVER (PARTITION BY k.commit_id ORDER BY r.id DESC) AS nth" \
	"  FROM runs r JOIN kernels k ON k.id = r.kernel_id" \
	"  WHERE k.tree = ?1 AND r.job = ?2 AND r.arch = ?3 AND r.vcpus = ?4" \
	"  AND k.commit_id IS NOT NULL AND r.state = 'done'" \
	"  AND (r.outcome = 'passed' OR (?5 = 0 AND r.outcome IS NOT NULL" \
	"       AND r.outcome NOT IN ('infra', 'canceled'))))," \
	" c0 AS (SELECT cid, max(ord) AS ord FROM rr GROUP BY cid" \
	"  ORDER BY max(ord) DESC, cid DESC LIMIT " DBQ_STR(DBQ_TREND_COMMITS) " + 1)," \
	" c AS (SELECT cid, ord FROM c0 ORDER BY ord DESC, cid DESC" \
	"  LIMIT " DBQ_STR(DBQ_TREND_COMMITS) ")"
#define TREND_DROPPED_SQL \
	" (SELECT count(*) FROM c0) > " DBQ_STR(DBQ_TREND_COMMITS) "," \
	" (SELECT count(*) FROM rr JOIN c ON c.cid = rr.cid" \
	"  WHERE rr.nth > " DBQ_STR(DBQ_TREND_RUNS) ")"

/* Adds the median of vals[0..nv) as run's value to the last commit of out */
static int trend_add_run(struct dbq_trend_values *out, int64_t run, double *vals, size_t nv)
{
	struct dbq_trend_commit *c = &out->c[out->n - 1];

	if (c->n == DBQ_TREND_RUNS)
		return 0;   /* the query reads no more */
	if (!c->v) {
		c->v = malloc(DBQ_TREND_RUNS * sizeof(*c->v));
		c->run_ids = malloc(DBQ_TREND_RUNS * sizeof(*c->run_ids));
		if (!c->v || !c->run_ids)
			return -1;
	}
	qsort(vals, nv, sizeof(*vals), cmp_dbl);
	c->v[c->n] = nv % 2 ? vals[nv / 2] : (vals[nv / 2 - 1] + vals[nv / 2]) / 2;
	c->run_ids[c->n++] = run;
	return 0;
}

int dbq_trend_values(struct db *db, const char *tree, const char *job, const char *metric,
		     const char *arch, int vcpus, struct dbq_trend_values *out)
{
	sqlite3_stmt *st = dbi_prep(db, TREND_RUNS_SQL
		" SELECT c.cid, c.ord, rr.run_id, s.value, s.unit," TREND_DROPPED_SQL
		" FROM c JOIN rr ON rr.cid = c.cid JOIN samples s ON s.run_id = rr.run_id"
		" WHERE s.metric = ?6 AND rr.nth <= " DBQ_STR(DBQ_TREND_RUNS)
		" ORDER BY c.ord, c.cid, rr.run_id DESC LIMIT ?7");
	double *vals = NULL;
	size_t nv = 0, alloc = 0, rows = 0;
	int64_t run = 0;
	int s, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, job, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, arch, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, vcpus);
	sqlite3_bind_int(st, 5, 1);
	sqlite3_bind_text(st, 6, metric, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, DBQ_TREND_ROWS + 1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		const char *cid = (const char *)sqlite3_column_text(st, 0);
		int64_t r = sqlite3_column_int64(st, 2);
		int new_commit = !out->n || !cid || strcmp(out->c[out->n - 1].commit, cid);

		if (rows++ == DBQ_TREND_ROWS) {
			out->rows_truncated = 1;
			break;
		}
		out->commits_dropped = sqlite3_column_int(st, 5);
		out->runs_dropped = sqlite3_column_int64(st, 6);
		if (nv && (new_commit || r != run)) {
			if (trend_add_run(out, run, vals, nv) < 0)
				goto out;
			nv = 0;
		}
		if (new_commit) {
			struct dbq_trend_commit *nc = grow(out->c, out->n, &alloc, sizeof(*nc));

			if (!nc)
				goto out;
			out->c = nc;
			nc = &out->c[out->n++];
			memset(nc, 0, sizeof(*nc));
			nc->commit = dbi_col_text(st, 0);
			nc->order = sqlite3_column_int64(st, 1);
			if (!nc->commit)
				goto out;
		}
		if (!out->unit && sqlite3_column_type(st, 4) != SQLITE_NULL &&
		    !(out->unit = dbi_col_text(st, 4)))
			goto out;
		if (nv % 64 == 0) {
			double *n2 = realloc(vals, (nv + 64) * sizeof(*vals));

			if (!n2)
				goto out;
			vals = n2;
		}
		vals[nv++] = sqlite3_column_double(st, 3);
		run = r;
	}
	if (s != SQLITE_DONE && s != SQLITE_ROW)
		goto out;
	if (nv && trend_add_run(out, run, vals, nv) < 0)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	free(vals);
	return rc;
}

void dbq_trend_results_free(struct dbq_trend_result *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].commit);
		free(v[i].path);
		free(v[i].status);
	}
	free(v);
}

int dbq_trend_results(struct db *db, const char *tree, const char *job, const char *arch,
		      int vcpus, struct dbq_trend_result **out, size_t *n, int *truncated)
{
	sqlite3_stmt *st = dbi_prep(db, TREND_RUNS_SQL
		" SELECT c.cid, c.ord, rr.run_id, s.path, s.status," TREND_DROPPED_SQL
		" FROM c JOIN rr ON rr.cid = c.cid LEFT JOIN results s ON s.run_id = rr.run_id"
		" WHERE rr.nth <= " DBQ_STR(DBQ_TREND_RUNS)
		" ORDER BY c.ord, c.cid, rr.run_id, s.path LIMIT ?6");
	struct dbq_trend_result *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, tree, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, job, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, arch, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 4, vcpus);
	sqlite3_bind_int(st, 5, 0);
	sqlite3_bind_int64(st, 6, DBQ_TREND_ROWS + 1);
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		struct dbq_trend_result *r;

		if (cnt == DBQ_TREND_ROWS) {
			*truncated = 1;
			s = SQLITE_DONE;
			break;
		}
		if (sqlite3_column_int(st, 5) || sqlite3_column_int64(st, 6))
			*truncated = 1;
		nv = grow(v, cnt, &alloc, sizeof(*v));
		if (!nv)
			goto fail;
		v = nv;
		r = &v[cnt++];
		memset(r, 0, sizeof(*r));
		r->commit = dbi_col_text(st, 0);
		r->order = sqlite3_column_int64(st, 1);
		r->run_id = sqlite3_column_int64(st, 2);
		r->path = dbi_col_text(st, 3);
		r->status = dbi_col_text(st, 4);
		if (!r->commit || (!r->path != !r->status))
			goto fail;
	}
	if (s != SQLITE_DONE)
		goto fail;
	sqlite3_finalize(st);
	*out = v;
	*n = cnt;
	return 0;
fail:
	sqlite3_finalize(st);
	dbq_trend_results_free(v, cnt);
	return -1;
}
