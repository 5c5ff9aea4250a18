/* requests.c: the requests table: a base and a patched kernel, run
 * repeats times each (base and patched alternating), inserted with its
 * runs in one transaction; and what the request page reads: its runs'
 * progress and results. */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field request_fields[] = {
	F(request, id, INT), F(request, created_at, TIME), F(request, base_kernel_id, INT),
	F(request, patched_kernel_id, INT), F(request, job, TEXT), F(request, repeats, INT32),
	{ NULL, 0, 0 },
};

static const struct db_field dbq_result_fields[] = {
	F(dbq_result, run_id, INT), F(dbq_result, path, TEXT), F(dbq_result, status, TEXT),
	{ NULL, 0, 0 },
};

int db_request_insert(struct db *db, const struct run_request *base,
		      const struct run_request *patched, int repeats, int64_t *id)
{
	int64_t bk, pk, rid;

	if (dbi_begin(db) < 0)
		return -1;
	if (db_kernel_import(db, base->kernel_path, base->arch, base->kernel_sha256, &bk) < 0 ||
	    db_kernel_import(db, patched->kernel_path, patched->arch, patched->kernel_sha256,
			     &pk) < 0)
		goto fail;
	if (dbi_exec(db, "INSERT INTO requests (created_at, base_kernel_id, patched_kernel_id,"
		     " job, repeats) VALUES (?, ?, ?, ?, ?)", DBI_INT(now_ms()), DBI_INT(bk),
		     DBI_INT(pk), DBI_TEXT(base->job), DBI_INT(repeats)) < 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(db->sql);
	/* base, patched, base, patched...: both sides see the same conditions */
	for (int i = 0; i < repeats; i++)
		if (dbi_run_insert(db, base, *id, &rid) < 0 ||
		    dbi_run_insert(db, patched, *id, &rid) < 0)
			goto fail;
	return dbi_commit(db);
fail:
	dbi_rollback(db);
	return -1;
}

int db_request_get(struct db *db, int64_t id, struct request *r)
{
	int rc;

	memset(r, 0, sizeof(*r));
	rc = dbi_row_one(dbi_stmt(db, "SELECT id, created_at, base_kernel_id, patched_kernel_id,"
				  " job, repeats FROM requests WHERE id = ?", DBI_INT(id)),
			 request_fields, r, sizeof(*r));
	if (rc < 1)
		return rc;
	if (dbi_rows(dbi_stmt(db, "SELECT id FROM runs WHERE request_id = ? ORDER BY id",
			      DBI_INT(id)), dbi_id_fields, sizeof(*r->run_ids),
		     (size_t)r->repeats * 2, &r->run_ids, &r->nruns, NULL) < 0) {
		request_release(r);
		return -1;
	}
	return 1;
}

void request_release(struct request *r)
{
	free(r->run_ids);
	db_row_release(request_fields, r, sizeof(*r));
}

int db_request_submission(struct db *db, int64_t request_id, int64_t *submission_id)
{
	return dbi_row_ints(dbi_stmt(db, "SELECT submission_id FROM requests WHERE id = ?"
				     " AND submission_id IS NOT NULL", DBI_INT(request_id)),
			    submission_id, 1);
}

/* --- what the request page reads (query.h) -------------------------------- */

int dbq_request_progress(struct db *db, int64_t request_id, int *runs, int *done)
{
	int64_t v[2] = { 0, 0 };
	int rc = dbi_row_ints(dbi_stmt(db, "SELECT count(*), coalesce(sum(state = 'done'), 0)"
				       " FROM runs WHERE request_id = ?", DBI_INT(request_id)),
			      v, 2);

	*runs = (int)v[0];
	*done = (int)v[1];
	return rc == 1 ? 0 : -1;
}

int dbq_request_results(struct db *db, int64_t request_id, size_t max,
			struct dbq_result **out, size_t *n, int *truncated)
{
	return dbi_rows(dbi_stmt(db, "SELECT s.run_id, s.path, s.status FROM results s"
				 " JOIN runs r ON r.id = s.run_id WHERE r.request_id = ?"
				 " AND r.state = 'done' ORDER BY s.run_id, s.path LIMIT ?",
				 DBI_INT(request_id), DBI_INT((int64_t)max + 1)),
			dbq_result_fields, sizeof(**out), max, out, n, truncated);
}

void dbq_results_free(struct dbq_result *v, size_t n)
{
	db_rows_free(dbq_result_fields, v, sizeof(*v), n);
}
