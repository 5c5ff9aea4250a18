// SPDX-License-Identifier: GPL-2.0-only
/* calib.c: what a job's noise is measured from (db.h at db_calib_series):
 * its newest passed runs' samples, one value per run and metric (the
 * median of the run's samples), grouped by cell and metric, with each
 * run's kernel. analysis/calib.c pools the noise within kernels;
 * web/calib.c shows it on the job's page and API. One bounded SELECT. */
#include "db/db.h"
#include "db/dbint.h"

#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)

void db_calib_free(struct db_calib_series *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].arch);
		free(v[i].metric);
		free(v[i].unit);
		free(v[i].v);
		free(v[i].kernel);
	}
	free(v);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Adds the median of vals[0..nv) as one run on kernel to s. 0 / -1 */
static int series_add_run(struct db_calib_series *s, size_t *alloc, int64_t kernel,
			  double *vals, size_t nv)
{
	if (s->n == *alloc) {
		size_t na = *alloc ? 2 * *alloc : 16;
		double *v = realloc(s->v, na * sizeof(*v));
		int64_t *k;

		if (!v)
			return -1;
		s->v = v;
		if (!(k = realloc(s->kernel, na * sizeof(*k))))
			return -1;
		s->kernel = k;
		*alloc = na;
	}
	qsort(vals, nv, sizeof(*vals), cmp_dbl);
	s->v[s->n] = nv % 2 ? vals[nv / 2] : (vals[nv / 2 - 1] + vals[nv / 2]) / 2;
	s->kernel[s->n++] = kernel;
	return 0;
}

/* the reading of the rows, for one cleanup */
struct reader {
	struct db_calib_series *v;
	size_t n, alloc, run_alloc;
	double *vals;
	size_t nv, vals_alloc;
	int64_t run, kernel;
};

/* A new series for the row's arch, vCPUs and metric. 0 / -1 */
static int reader_new_series(struct reader *r, sqlite3_stmt *st)
{
	struct db_calib_series *s = dbi_grow(r->v, r->n, &r->alloc, sizeof(*s));

	if (!s)
		return -1;
	r->v = s;
	s = &r->v[r->n++];
	memset(s, 0, sizeof(*s));
	r->run_alloc = 0;
	s->arch = dbi_col_text(st, 0);
	s->vcpus = sqlite3_column_int(st, 1);
	s->metric = dbi_col_text(st, 2);
	s->unit = dbi_col_text(st, 3);
	return s->arch && s->metric ? 0 : -1;
}

/* 1 when the row starts another series than the last */
static int new_series(const struct reader *r, sqlite3_stmt *st)
{
	const struct db_calib_series *s = r->n ? &r->v[r->n - 1] : NULL;
	const char *arch = (const char *)sqlite3_column_text(st, 0);
	const char *metric = (const char *)sqlite3_column_text(st, 2);

	return !s || !arch || !metric || strcmp(s->arch, arch) ||
	       s->vcpus != sqlite3_column_int(st, 1) || strcmp(s->metric, metric);
}

/* The run read so far into the last series. 0 / -1 */
static int reader_flush(struct reader *r)
{
	int rc = 0;

	if (r->nv)
		rc = series_add_run(&r->v[r->n - 1], &r->run_alloc, r->kernel, r->vals, r->nv);
	r->nv = 0;
	return rc;
}

static int reader_row(struct reader *r, sqlite3_stmt *st)
{
	int64_t run = sqlite3_column_int64(st, 5);
	int ns = new_series(r, st);

	if (r->nv && (ns || run != r->run) && reader_flush(r) < 0)
		return -1;
	if (ns && reader_new_series(r, st) < 0)
		return -1;
	if (r->nv == r->vals_alloc) {
		size_t na = r->vals_alloc ? 2 * r->vals_alloc : 16;
		double *v = realloc(r->vals, na * sizeof(*v));

		if (!v)
			return -1;
		r->vals = v;
		r->vals_alloc = na;
	}
	r->vals[r->nv++] = sqlite3_column_double(st, 6);
	r->run = run;
	r->kernel = sqlite3_column_int64(st, 4);
	return 0;
}

int db_calib_series(struct db *db, const char *job, struct db_calib_series **out, size_t *n,
		    int *truncated)
{
	sqlite3_stmt *st = dbi_stmt(db,
		"WITH rr AS (SELECT id, kernel_id, arch, vcpus FROM runs"
		"  WHERE job = ?1 AND state = 'done' AND outcome = 'passed'"
		"  ORDER BY id DESC LIMIT " STR(DB_CALIB_RUNS) " + 1)"
		" SELECT rr.arch, rr.vcpus, s.metric, s.unit, rr.kernel_id, rr.id, s.value,"
		" (SELECT count(*) FROM rr) > " STR(DB_CALIB_RUNS)
		" FROM rr JOIN samples s ON s.run_id = rr.id"
		" WHERE rr.id >= (SELECT min(id) FROM"
		"   (SELECT id FROM rr ORDER BY id DESC LIMIT " STR(DB_CALIB_RUNS) "))"
		" ORDER BY rr.arch, rr.vcpus, s.metric, rr.id LIMIT ?2",
		DBI_TEXT(job), DBI_INT(DB_CALIB_ROWS + 1));
	struct reader r = { 0 };
	size_t rows = 0;
	int s, rc = -1;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (rows++ == DB_CALIB_ROWS) {
			*truncated = 1;
			s = SQLITE_DONE;
			break;
		}
		if (sqlite3_column_int(st, 7))
			*truncated = 1;
		if (sqlite3_column_type(st, 2) == SQLITE_NULL ||
		    sqlite3_column_type(st, 0) == SQLITE_NULL)
			continue;
		if (reader_row(&r, st) < 0)
			goto out;
	}
	if (s != SQLITE_DONE || reader_flush(&r) < 0)
		goto out;
	*out = r.v;
	*n = r.n;
	r.v = NULL;
	r.n = 0;
	rc = 0;
out:
	sqlite3_finalize(st);
	free(r.vals);
	db_calib_free(r.v, r.n);
	return rc;
}
