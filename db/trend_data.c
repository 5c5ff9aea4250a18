// SPDX-License-Identifier: GPL-2.0-only
/* trend_data.c: what the trend pages read (query.h): which series (a
 * tree's job, metric, arch and vCPUs) have data, and a series' values or
 * results per commit, oldest commit first. Plain bounded SELECTs over
 * runs, kernels, samples and results; analysis/trend.c makes the verdicts. */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field series_fields[] = {
	F(dbq_trend_series, tree, TEXT), F(dbq_trend_series, job, TEXT),
	F(dbq_trend_series, metric, TEXT), F(dbq_trend_series, arch, TEXT),
	F(dbq_trend_series, vcpus, INT32), F(dbq_trend_series, commits, INT32),
	F(dbq_trend_series, runs, INT), F(dbq_trend_series, last_ms, TIME), { NULL, 0, 0 },
};

/* The first five columns of dbq_trend_results' query */
static const struct db_field trend_result_fields[] = {
	F(dbq_trend_result, commit, TEXT), F(dbq_trend_result, order, INT),
	F(dbq_trend_result, run_id, INT), F(dbq_trend_result, path, TEXT),
	F(dbq_trend_result, status, TEXT), { NULL, 0, 0 },
};

void dbq_trend_series_free(struct dbq_trend_series *v, size_t n)
{
	db_rows_free(series_fields, v, sizeof(*v), n);
}

int dbq_trend_series(struct db *db, const char *tree, const char *job, const char *metric,
		     int results, size_t max, struct dbq_trend_series **out, size_t *n,
		     int *truncated)
{
	/* a run counts once per metric (count(DISTINCT r.id)). CROSS JOIN
	 * fixes the order: from the kernels of a tree (kernels_tree) to their
	 * runs and their samples (the index samples_run alone), not every
	 * sample of the table, nor every done run (runs_state) */
	static const char *const sql[2] = {
		"SELECT k.tree, r.job, s.metric, r.arch, r.vcpus, count(DISTINCT k.commit_id),"
		" count(DISTINCT r.id), max(r.ended_at)"
		" FROM kernels k CROSS JOIN runs r ON r.kernel_id = k.id"
		" CROSS JOIN samples s ON s.run_id = r.id AND (?3 IS NULL OR s.metric = ?3)"
		" WHERE k.tree IS NOT NULL AND k.commit_id IS NOT NULL AND r.job IS NOT NULL"
		" AND r.state = 'done' AND r.outcome = 'passed'"
		" AND (?1 IS NULL OR k.tree = ?1) AND (?2 IS NULL OR r.job = ?2)"
		" GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5 LIMIT ?4",
		"SELECT k.tree, r.job, NULL, r.arch, r.vcpus, count(DISTINCT k.commit_id),"
		" count(*), max(r.ended_at)"
		" FROM kernels k CROSS JOIN runs r ON r.kernel_id = k.id"
		" WHERE k.tree IS NOT NULL AND k.commit_id IS NOT NULL AND r.job IS NOT NULL"
		" AND r.state = 'done' AND r.outcome IS NOT NULL"
		" AND r.outcome NOT IN ('infra', 'canceled')"
		" AND EXISTS (SELECT 1 FROM results s WHERE s.run_id = r.id)"
		" AND (?1 IS NULL OR k.tree = ?1) AND (?2 IS NULL OR r.job = ?2)"
		" GROUP BY 1, 2, 4, 5 ORDER BY 1, 2, 4, 5 LIMIT ?4",
	};

	return dbi_rows(dbi_stmt(db, sql[results ? 1 : 0], DBI_TEXT(tree), DBI_TEXT(job),
				 DBI_TEXT(metric), DBI_INT((int64_t)max + 1)),
			series_fields, sizeof(**out), max, out, n, truncated);
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
	sqlite3_stmt *st = dbi_stmt(db, TREND_RUNS_SQL
		" SELECT c.cid, c.ord, rr.run_id, s.value, s.unit," TREND_DROPPED_SQL
		" FROM c JOIN rr ON rr.cid = c.cid JOIN samples s ON s.run_id = rr.run_id"
		" WHERE s.metric = ?6 AND rr.nth <= " DBQ_STR(DBQ_TREND_RUNS)
		" ORDER BY c.ord, c.cid, rr.run_id DESC LIMIT ?7", DBI_TEXT(tree), DBI_TEXT(job),
		DBI_TEXT(arch), DBI_INT(vcpus), DBI_INT(1), DBI_TEXT(metric),
		DBI_INT(DBQ_TREND_ROWS + 1));
	double *vals = NULL;
	size_t nv = 0, alloc = 0, rows = 0;
	int64_t run = 0;
	int s, rc = -1;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
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
			struct dbq_trend_commit *nc = dbi_grow(out->c, out->n, &alloc, sizeof(*nc));

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
	db_rows_free(trend_result_fields, v, sizeof(*v), n);
}

int dbq_trend_results(struct db *db, const char *tree, const char *job, const char *arch,
		      int vcpus, struct dbq_trend_result **out, size_t *n, int *truncated)
{
	sqlite3_stmt *st = dbi_stmt(db, TREND_RUNS_SQL
		" SELECT c.cid, c.ord, rr.run_id, s.path, s.status," TREND_DROPPED_SQL
		" FROM c JOIN rr ON rr.cid = c.cid LEFT JOIN results s ON s.run_id = rr.run_id"
		" WHERE rr.nth <= " DBQ_STR(DBQ_TREND_RUNS)
		" ORDER BY c.ord, c.cid, rr.run_id, s.path LIMIT ?6", DBI_TEXT(tree),
		DBI_TEXT(job), DBI_TEXT(arch), DBI_INT(vcpus), DBI_INT(0),
		DBI_INT(DBQ_TREND_ROWS + 1));
	struct dbq_trend_result *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	/* not dbi_rows(): the last two columns (commits or runs left out) say
	 * truncated too */
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (cnt == DBQ_TREND_ROWS) {
			*truncated = 1;
			s = SQLITE_DONE;
			break;
		}
		if (sqlite3_column_int(st, 5) || sqlite3_column_int64(st, 6))
			*truncated = 1;
		if (!(nv = dbi_grow(v, cnt, &alloc, sizeof(*v))))
			goto fail;
		v = nv;
		if (dbi_row_fill(st, trend_result_fields, &v[cnt], sizeof(*v)) < 0)
			goto fail;
		cnt++;
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
