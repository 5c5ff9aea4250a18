// SPDX-License-Identifier: GPL-2.0-only
/* results.c: what a run's job reported, stored once the run ends: subtest
 * results (results table) and metric samples (samples table), replaced
 * together in one transaction, and read back for the run's page. */
#include "db/db.h"
#include "db/dbint.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field result_fields[] = {
	F(result_row, path, TEXT), F(result_row, status, TEXT), F(result_row, detail, TEXT),
	{ NULL, 0, 0 },
};

static const struct db_field sample_fields[] = {
	F(sample_row, metric, TEXT), F(sample_row, unit, TEXT), F(sample_row, value, REAL),
	F(sample_row, seq, INT32), { NULL, 0, 0 },
};

/* The inserts of db_run_store_results, inside its transaction */
static int store_locked(struct db *db, int64_t run_id, const struct result_row *res,
			size_t nres, const struct sample_row *smp, size_t nsmp)
{
	sqlite3_stmt *st;
	int rc = 0;

	st = dbi_prep(db, "INSERT INTO results (run_id, path, status, detail) VALUES (?, ?, ?, ?)");
	if (!st)
		return -1;
	for (size_t i = 0; rc == 0 && i < nres; i++) {
		sqlite3_reset(st);
		dbi_bind(st, DBI_INT(run_id), DBI_TEXT(res[i].path), DBI_TEXT(res[i].status),
			 DBI_TEXT(res[i].detail));
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	if (rc < 0)
		return -1;
	st = dbi_prep(db, "INSERT INTO samples (run_id, metric, value, unit, seq) VALUES (?, ?, ?, ?, ?)");
	if (!st)
		return -1;
	for (size_t i = 0; rc == 0 && i < nsmp; i++) {
		sqlite3_reset(st);
		dbi_bind(st, DBI_INT(run_id), DBI_TEXT(smp[i].metric), DBI_REAL(smp[i].value),
			 DBI_TEXT(smp[i].unit), DBI_INT(smp[i].seq));
		rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_run_store_results(struct db *db, int64_t run_id, const struct result_row *res,
			 size_t nres, const struct sample_row *smp, size_t nsmp)
{
	if (dbi_begin(db) < 0)
		return -1;
	if (dbi_exec(db, "DELETE FROM results WHERE run_id = ?", DBI_INT(run_id)) < 0 ||
	    dbi_exec(db, "DELETE FROM samples WHERE run_id = ?", DBI_INT(run_id)) < 0 ||
	    store_locked(db, run_id, res, nres, smp, nsmp) < 0 || dbi_commit(db) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return 0;
}

/* counts[] per status in the order of db_run_results() */
static int result_counts(struct db *db, int64_t run_id, int64_t counts[7])
{
	static const char *const order[] = { "pass", "fail", "skip", "xfail", "error",
					     "timeout", "missing" };
	sqlite3_stmt *st = dbi_stmt(db, "SELECT status, count(*) FROM results WHERE run_id = ?"
				    " GROUP BY status", DBI_INT(run_id));

	memset(counts, 0, 7 * sizeof(int64_t));
	if (!st)
		return -1;
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *s = (const char *)sqlite3_column_text(st, 0);

		for (int i = 0; s && i < 7; i++)
			if (!strcmp(s, order[i]))
				counts[i] = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return 0;
}

int db_run_results_at(struct db *db, int64_t run_id, int64_t offset, int limit,
		      struct result_row **rows, size_t *n, int64_t counts[7])
{
	*rows = NULL;
	*n = 0;
	if (counts && result_counts(db, run_id, counts) < 0)
		return -1;
	if (limit <= 0 || offset < 0)
		return limit < 0 || offset < 0 ? -1 : 0;
	/* the order of the index results_run_order to its end (a path twice
	 * in a run, rarely: by status, then as stored), so that a page far
	 * in is skipped to in the index, not sorted */
	return dbi_rows(dbi_stmt(db, "SELECT path, status, detail FROM results WHERE run_id = ?"
				 " ORDER BY " DB_RESULT_RANK ", path, status, id LIMIT ? OFFSET ?",
				 DBI_INT(run_id), DBI_INT(limit), DBI_INT(offset)),
			result_fields, sizeof(**rows), (size_t)limit, rows, n, NULL);
}

int db_run_results(struct db *db, int64_t run_id, int limit, struct result_row **rows,
		   size_t *n, int64_t counts[7])
{
	return db_run_results_at(db, run_id, 0, limit, rows, n, counts);
}

void result_rows_free(struct result_row *rows, size_t n)
{
	db_rows_free(result_fields, rows, sizeof(*rows), n);
}

int db_run_samples_at(struct db *db, int64_t run_id, int64_t offset, int limit,
		      struct sample_row **rows, size_t *n)
{
	*rows = NULL;
	*n = 0;
	if (limit <= 0 || offset < 0)
		return limit == 0 && offset >= 0 ? 0 : -1;
	return dbi_rows(dbi_stmt(db, "SELECT metric, unit, value, seq FROM samples"
				 " WHERE run_id = ? ORDER BY metric, seq, id LIMIT ? OFFSET ?",
				 DBI_INT(run_id), DBI_INT(limit), DBI_INT(offset)),
			sample_fields, sizeof(**rows), (size_t)limit, rows, n, NULL);
}

int db_run_samples(struct db *db, int64_t run_id, int limit, struct sample_row **rows,
		   size_t *n)
{
	return db_run_samples_at(db, run_id, 0, limit, rows, n);
}

int64_t db_run_sample_count(struct db *db, int64_t run_id)
{
	sqlite3_stmt *st = dbi_stmt(db, "SELECT count(*) FROM samples WHERE run_id = ?",
				    DBI_INT(run_id));
	int64_t v = -1;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	if (st)
		sqlite3_finalize(st);
	return v;
}

void sample_rows_free(struct sample_row *rows, size_t n)
{
	db_rows_free(sample_fields, rows, sizeof(*rows), n);
}
