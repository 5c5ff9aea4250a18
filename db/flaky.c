// SPDX-License-Identifier: GPL-2.0-only
/* flaky.c: the quarantine table (flaky tests, per test path and cell) and
 * the reads behind it: the window of a concluded run's tests that may have
 * flipped (the daemon's input to analysis/flaky.c), the paths in
 * quarantine in a cell (a request's verdict leaves their failures out),
 * the listing, and a test's recent history for the /flaky page. */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field window_fields[] = {
	F(db_flaky_result, path, TEXT), F(db_flaky_result, run_id, INT),
	F(db_flaky_result, kernel_id, INT), F(db_flaky_result, status, TEXT), { NULL, 0, 0 },
};

const struct db_field db_quarantine_fields[] = {
	F(db_quarantine, id, INT), F(db_quarantine, path, TEXT), F(db_quarantine, job, TEXT),
	F(db_quarantine, arch, TEXT), F(db_quarantine, vcpus, INT),
	F(db_quarantine, since, TIME), F(db_quarantine, since_run_id, INT),
	F(db_quarantine, reason, TEXT), F(db_quarantine, runs, INT),
	F(db_quarantine, fails, INT), F(db_quarantine, flips, INT),
	F(db_quarantine, chances, INT), F(db_quarantine, last_run_id, INT),
	F(db_quarantine, updated_at, TIME), F(db_quarantine, released_at, TIME),
	F(db_quarantine, released_why, TEXT), { NULL, 0, 0 },
};

static const struct db_field path_fields[] = { { "path", 0, DB_FIELD_TEXT }, { NULL, 0, 0 } };

/* The runs of a cell that count, newest first: ?1 job, ?2 arch, ?3 vcpus,
 * ?4 a run that counts while it is still running (0: none) */
#define CELL_RUNS_SQL \
	"SELECT r.id, r.kernel_id FROM runs r" \
	" WHERE r.job = ?1 AND r.arch = ?2 AND r.vcpus = ?3" \
	" AND (r.id = ?4 OR (r.state = 'done' AND r.outcome IS NOT NULL" \
	"      AND r.outcome NOT IN ('infra', 'canceled')))" \
	" ORDER BY r.id DESC"

int db_flaky_window(struct db *db, const struct db_flaky_cell *cell, int64_t run_id,
		    int scan, struct db_flaky_result **v, size_t *n, int *truncated)
{
	return dbi_rows(dbi_stmt(db,
		"WITH cell AS (" CELL_RUNS_SQL " LIMIT ?5),"
		" cand AS (SELECT f.path FROM cell JOIN results f ON f.run_id = cell.id"
		"  WHERE f.status IN ('fail', 'error', 'timeout')"
		"  UNION SELECT q.path FROM quarantine q WHERE q.job = ?1 AND q.arch = ?2"
		"  AND q.vcpus = ?3 AND q.released_at IS NULL)"
		" SELECT s.path, cell.id, cell.kernel_id, s.status"
		" FROM cell JOIN results s ON s.run_id = cell.id"
		" WHERE s.path IN (SELECT path FROM cand)"
		" AND s.path IN (SELECT path FROM results WHERE run_id = ?4)"
		" ORDER BY s.path, cell.id, s.id LIMIT ?6",
		DBI_TEXT(cell->job), DBI_TEXT(cell->arch), DBI_INT(cell->vcpus),
		DBI_INT(run_id), DBI_INT(scan), DBI_INT((int64_t)DB_FLAKY_ROWS + 1)),
		window_fields, sizeof(**v), DB_FLAKY_ROWS, v, n, truncated);
}

void db_flaky_results_free(struct db_flaky_result *v, size_t n)
{
	db_rows_free(window_fields, v, sizeof(*v), n);
}

/* One op inside db_quarantine_apply's transaction */
static int apply_one(struct db *db, const struct db_flaky_cell *cell, int64_t run_id,
		     const struct db_quarantine_op *op, int64_t now)
{
	if (op->release)
		return dbi_exec(db, "UPDATE quarantine SET released_at = ?6, released_why = ?7,"
				" runs = ?8, fails = ?9, flips = ?10, chances = ?11,"
				" last_run_id = ?5, updated_at = ?6"
				" WHERE job = ?1 AND arch = ?2 AND vcpus = ?3 AND path = ?4"
				" AND released_at IS NULL",
				DBI_TEXT(cell->job), DBI_TEXT(cell->arch), DBI_INT(cell->vcpus),
				DBI_TEXT(op->path), DBI_INT(run_id), DBI_INT(now),
				DBI_TEXT(op->reason), DBI_INT(op->runs), DBI_INT(op->fails),
				DBI_INT(op->flips), DBI_INT(op->chances));
	return dbi_exec(db, "INSERT INTO quarantine (job, arch, vcpus, path, since, since_run_id,"
			" reason, runs, fails, flips, chances, last_run_id, updated_at)"
			" VALUES (?1, ?2, ?3, ?4, ?6, ?5, ?7, ?8, ?9, ?10, ?11, ?5, ?6)"
			" ON CONFLICT (job, arch, vcpus, path) WHERE released_at IS NULL"
			" DO UPDATE SET runs = excluded.runs, fails = excluded.fails,"
			" flips = excluded.flips, chances = excluded.chances,"
			" last_run_id = excluded.last_run_id, updated_at = excluded.updated_at",
			DBI_TEXT(cell->job), DBI_TEXT(cell->arch), DBI_INT(cell->vcpus),
			DBI_TEXT(op->path), DBI_INT(run_id), DBI_INT(now), DBI_TEXT(op->reason),
			DBI_INT(op->runs), DBI_INT(op->fails), DBI_INT(op->flips),
			DBI_INT(op->chances));
}

int db_quarantine_apply(struct db *db, const struct db_flaky_cell *cell, int64_t run_id,
			const struct db_quarantine_op *ops, size_t n)
{
	int64_t now = now_ms();

	if (!n)
		return 0;
	if (dbi_begin(db) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (apply_one(db, cell, run_id, &ops[i], now) < 0) {
			dbi_rollback(db);
			return -1;
		}
	if (dbi_commit(db) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return 0;
}

void db_paths_free(char **paths, size_t n)
{
	db_rows_free(path_fields, paths, sizeof(*paths), n);
}

int db_quarantined_paths(struct db *db, const struct db_flaky_cell *cell, char ***paths,
			 size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT path FROM quarantine WHERE job = ? AND arch = ?"
				 " AND vcpus = ? AND released_at IS NULL ORDER BY path",
				 DBI_TEXT(cell->job), DBI_TEXT(cell->arch), DBI_INT(cell->vcpus)),
			path_fields, sizeof(**paths), SIZE_MAX, paths, n, NULL);
}

int db_quarantine_stamp(struct db *db, int64_t v[3])
{
	return dbi_row_ints(dbi_stmt(db, "SELECT count(*), coalesce(max(updated_at), 0),"
				     " coalesce(max(released_at), 0) FROM quarantine"), v, 3) == 1 ?
		0 : -1;
}

int db_quarantine_list(struct db *db, int all, size_t max, struct db_quarantine **v,
		       size_t *n, int *truncated)
{
	sqlite3_stmt *st = dbi_select(db, db_quarantine_fields, "quarantine",
				      "WHERE ?1 OR released_at IS NULL"
				      " ORDER BY released_at IS NOT NULL, since DESC, id DESC"
				      " LIMIT ?2");

	if (st)
		dbi_bind(st, DBI_INT(all ? 1 : 0), DBI_INT((int64_t)max + 1));
	return dbi_rows(st, db_quarantine_fields, sizeof(**v), max, v, n, truncated);
}

int dbq_flaky_history(struct db *db, const struct db_flaky_cell *cell, const char *path,
		      size_t max, struct dbq_flaky_point **v, size_t *n)
{
	/* the newest 1000 runs of the cell (runs_kind, newest first: the
	 * state is an equality, so the index gives them in id order), each
	 * with its rows of path, in that order: the verdicts are made here
	 * and the reading stops at max runs with one, not after grouping all
	 * 1000 runs' rows */
	sqlite3_stmt *st = dbi_stmt(db,
		"WITH cell AS (SELECT r.id, r.kernel_id FROM runs r"
		"  WHERE r.job = ?1 AND r.arch = ?2 AND r.vcpus = ?3 AND r.state = 'done'"
		"  AND r.outcome IS NOT NULL AND r.outcome NOT IN ('infra', 'canceled')"
		"  ORDER BY r.id DESC LIMIT 1000)"
		" SELECT cell.id, cell.kernel_id, s.status FROM cell"
		" JOIN results s ON s.run_id = cell.id AND s.path = ?4 ORDER BY cell.id DESC",
		DBI_TEXT(cell->job), DBI_TEXT(cell->arch), DBI_INT(cell->vcpus), DBI_TEXT(path));
	struct dbq_flaky_point *p = NULL, *np, cur = { 0, 0, 0 };
	size_t cnt = 0, alloc = 0;
	int s, none = 0;

	*v = NULL;
	*n = 0;
	if (!st)
		return -1;
	for (;;) {
		int64_t id = 0;
		const char *status = NULL;

		s = sqlite3_step(st);
		if (s == SQLITE_ROW) {
			id = sqlite3_column_int64(st, 0);
			status = (const char *)sqlite3_column_text(st, 2);
		}
		/* a run ends: it counts when it failed, or passed (not only
		 * skipped or missing) */
		if (cur.run_id && (s != SQLITE_ROW || id != cur.run_id) && (cur.failed || !none)) {
			if (!(np = dbi_grow(p, cnt, &alloc, sizeof(*p)))) {
				s = SQLITE_NOMEM;
				break;
			}
			p = np;
			p[cnt++] = cur;
		}
		if (s != SQLITE_ROW || cnt == max)
			break;
		if (id != cur.run_id) {
			cur = (struct dbq_flaky_point){ id, sqlite3_column_int64(st, 1), 0 };
			none = 0;
		}
		if (status && (!strcmp(status, "fail") || !strcmp(status, "error") ||
			       !strcmp(status, "timeout")))
			cur.failed = 1;
		if (status && (!strcmp(status, "skip") || !strcmp(status, "missing")))
			none = 1;
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE && s != SQLITE_ROW) {
		free(p);
		return -1;
	}
	/* oldest first */
	for (size_t i = 0; i < cnt / 2; i++) {
		struct dbq_flaky_point t = p[i];

		p[i] = p[cnt - 1 - i];
		p[cnt - 1 - i] = t;
	}
	*v = p;
	*n = cnt;
	return 0;
}

int dbq_flaky_kernel_counts(struct db *db, const struct db_flaky_cell *cell,
			    int64_t kernel_id, const char *path, int *runs, int *fails)
{
	int64_t v[2] = { 0, 0 };
	int rc = dbi_row_ints(dbi_stmt(db,
		"SELECT count(*), coalesce(sum(failed), 0) FROM (SELECT r.id,"
		"  max(s.status IN ('fail', 'error', 'timeout')) AS failed,"
		"  max(s.status IN ('skip', 'missing')) AS none"
		"  FROM runs r JOIN results s ON s.run_id = r.id AND s.path = ?5"
		"  WHERE r.kernel_id = ?4 AND r.job = ?1 AND r.arch = ?2 AND r.vcpus = ?3"
		"  AND r.state = 'done' AND r.outcome IS NOT NULL"
		"  AND r.outcome NOT IN ('infra', 'canceled')"
		"  GROUP BY r.id HAVING failed OR NOT none)",
		DBI_TEXT(cell->job), DBI_TEXT(cell->arch), DBI_INT(cell->vcpus),
		DBI_INT(kernel_id), DBI_TEXT(path)), v, 2);

	*runs = (int)v[0];
	*fails = (int)v[1];
	return rc < 0 ? -1 : 0;
}
