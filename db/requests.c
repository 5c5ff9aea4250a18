// SPDX-License-Identifier: GPL-2.0-only
/* requests.c: the requests table: a base and a patched kernel, run
 * repeats times each (base and patched alternating), inserted with its
 * runs in one transaction; the rounds of a request run until decided
 * (more pairs queued, the stop and why); and what the request page reads:
 * its runs' progress and results. */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field request_fields[] = {
	F(request, id, INT), F(request, created_at, TIME), F(request, base_kernel_id, INT),
	F(request, patched_kernel_id, INT), F(request, job, TEXT), F(request, repeats, INT32),
	F(request, until_decided, INT32), F(request, max_runs, INT32), F(request, margin, REAL),
	F(request, rounds, INT32), F(request, decided, TEXT), F(request, stop_reason, TEXT),
	F(request, decided_at, TIME),
	{ NULL, 0, 0 },
};

static const struct db_field round_fields[] = {
	F(request_round, n, INT32), F(request_round, pairs, INT32),
	F(request_round, queued_at, TIME), F(request_round, why, TEXT),
	{ NULL, 0, 0 },
};

static const struct db_field dbq_result_fields[] = {
	F(dbq_result, run_id, INT), F(dbq_result, path, TEXT), F(dbq_result, status, TEXT),
	{ NULL, 0, 0 },
};

int db_request_insert(struct db *db, const struct run_request *base,
		      const struct run_request *patched, int repeats, int64_t *id)
{
	return db_request_insert_mode(db, base, patched, repeats, NULL, id);
}

int db_request_insert_mode(struct db *db, const struct run_request *base,
			   const struct run_request *patched, int repeats,
			   const struct request_mode *m, int64_t *id)
{
	int ud = m && m->until_decided;
	char why[64];
	int64_t bk, pk, rid;

	if (dbi_begin(db) < 0)
		return -1;
	if (db_kernel_import(db, base->kernel_path, base->arch, base->kernel_sha256, &bk) < 0 ||
	    db_kernel_import(db, patched->kernel_path, patched->arch, patched->kernel_sha256,
			     &pk) < 0)
		goto fail;
	if (dbi_exec(db, "INSERT INTO requests (created_at, base_kernel_id, patched_kernel_id,"
		     " job, repeats, until_decided, max_runs, margin, decided)"
		     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", DBI_INT(now_ms()), DBI_INT(bk),
		     DBI_INT(pk), DBI_TEXT(base->job), DBI_INT(repeats), DBI_INT(ud),
		     ud ? DBI_INT(m->max_runs) : DBI_NULL,
		     ud && m->margin > 0 ? DBI_REAL(m->margin) : DBI_NULL,
		     DBI_TEXT(ud ? "deciding" : NULL)) < 0)
		goto fail;
	*id = sqlite3_last_insert_rowid(db->sql);
	/* base, patched, base, patched...: both sides see the same conditions */
	for (int i = 0; i < repeats; i++)
		if (dbi_run_insert(db, base, *id, &rid) < 0 ||
		    dbi_run_insert(db, patched, *id, &rid) < 0)
			goto fail;
	snprintf(why, sizeof(why), "the first round: %d run%s a side", repeats,
		 repeats == 1 ? "" : "s");
	if (ud && dbi_exec(db, "INSERT INTO request_rounds (request_id, n, pairs, queued_at, why)"
			   " VALUES (?, 1, ?, ?, ?)", DBI_INT(*id), DBI_INT(repeats),
			   DBI_INT(now_ms()), DBI_TEXT(why)) < 0)
		goto fail;
	return dbi_commit(db);
fail:
	dbi_rollback(db);
	return -1;
}

int db_submission_insert_mode(struct db *db, struct submission *s,
			      const struct request_mode *m)
{
	if (!m || !m->until_decided)
		return db_submission_insert(db, s);
	if (dbi_begin(db) < 0)
		return -1;
	if (db_submission_insert(db, s) < 0 ||
	    dbi_exec(db, "UPDATE submissions SET until_decided = 1, max_runs = ?, margin = ?"
		     " WHERE id = ?", DBI_INT(m->max_runs),
		     m->margin > 0 ? DBI_REAL(m->margin) : DBI_NULL, DBI_INT(s->id)) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return dbi_commit(db);
}

int db_requests_deciding(struct db *db, size_t max, int64_t **ids, size_t *n)
{
	*ids = NULL;
	*n = 0;
	/* a submission's requests are queued by the builder, which knows
	 * nothing of the mode: they take it here, before their first look */
	if (dbi_step_done(dbi_prep(db, "UPDATE requests SET until_decided = 1, max_runs = s.max_runs,"
		     " margin = s.margin, decided = 'deciding' FROM submissions s"
		     " WHERE s.id = requests.submission_id AND s.until_decided = 1"
		     " AND requests.until_decided = 0 AND requests.decided IS NULL")) < 0 ||
	    dbi_step_done(dbi_prep(db, "INSERT OR IGNORE INTO request_rounds (request_id, n, pairs, queued_at,"
		     " why) SELECT id, 1, repeats, created_at, 'the first round: ' || repeats ||"
		     " ' run' || (CASE WHEN repeats = 1 THEN '' ELSE 's' END) || ' a side'"
		     " FROM requests WHERE decided = 'deciding' AND rounds = 1")) < 0)
		return -1;
	return dbi_rows(dbi_stmt(db, "SELECT id FROM requests r WHERE decided = 'deciding'"
				 " AND NOT EXISTS (SELECT 1 FROM runs WHERE request_id = r.id"
				 " AND state != 'done') ORDER BY id LIMIT ?",
				 DBI_INT((int64_t)max)), dbi_id_fields, sizeof(**ids), max, ids, n,
			NULL);
}

int db_request_round_add(struct db *db, int64_t id, int rounds, int pairs, const char *why)
{
	int64_t tmpl[2] = { 0, 0 }, now = now_ms();
	sqlite3_stmt *st;
	int rc = 0;

	if (dbi_begin(db) < 0)
		return -1;
	if (dbi_exec(db, "UPDATE requests SET rounds = rounds + 1 WHERE id = ? AND rounds = ?"
		     " AND decided = 'deciding'", DBI_INT(id), DBI_INT(rounds)) < 0)
		goto fail;
	if (sqlite3_changes(db->sql) != 1) {
		dbi_rollback(db);
		return 0;
	}
	/* the first two runs are the first round's base and patched */
	st = dbi_stmt(db, "SELECT id FROM runs WHERE request_id = ? ORDER BY id LIMIT 2",
		      DBI_INT(id));
	for (int i = 0; st && i < 2 && sqlite3_step(st) == SQLITE_ROW; i++)
		tmpl[i] = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!tmpl[0] || !tmpl[1])
		goto fail;
	for (int i = 0; i < 2 * pairs; i++)
		if (dbi_exec(db, "INSERT INTO runs (kernel_id, arch, vcpus, memory_mb, timeout_s,"
			     " command, state, max_attempts, queued_at, job, topology, numa_nodes,"
			     " request_id, submission_id, watch) SELECT kernel_id, arch, vcpus,"
			     " memory_mb, timeout_s, command, 'queued', max_attempts, ?, job,"
			     " topology, numa_nodes, request_id, submission_id, watch FROM runs"
			     " WHERE id = ?",
			     DBI_INT(now), DBI_INT(tmpl[i % 2])) < 0)
			goto fail;
	if (dbi_exec(db, "INSERT INTO request_rounds (request_id, n, pairs, queued_at, why)"
		     " VALUES (?, ?, ?, ?, ?)", DBI_INT(id), DBI_INT(rounds + 1), DBI_INT(pairs),
		     DBI_INT(now), DBI_TEXT(why)) < 0)
		goto fail;
	rc = dbi_commit(db) < 0 ? -1 : 1;
	return rc;
fail:
	dbi_rollback(db);
	return -1;
}

int db_request_decided_end(struct db *db, int64_t id, const char *state, const char *reason)
{
	if (dbi_exec(db, "UPDATE requests SET decided = ?, stop_reason = ?, decided_at = ?"
		     " WHERE id = ? AND decided = 'deciding'", DBI_TEXT(state), DBI_TEXT(reason),
		     DBI_INT(now_ms()), DBI_INT(id)) < 0)
		return -1;
	return sqlite3_changes(db->sql) == 1;
}

int db_request_rounds(struct db *db, int64_t id, struct request_round **v, size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT n, pairs, queued_at, why FROM request_rounds"
				 " WHERE request_id = ? ORDER BY n", DBI_INT(id)), round_fields,
			sizeof(**v), 10000, v, n, NULL);
}

void db_request_rounds_free(struct request_round *v, size_t n)
{
	db_rows_free(round_fields, v, sizeof(*v), n);
}

int db_request_get(struct db *db, int64_t id, struct request *r)
{
	int rc;

	memset(r, 0, sizeof(*r));
	rc = dbi_row_one(dbi_stmt(db, "SELECT id, created_at, base_kernel_id, patched_kernel_id,"
				  " job, repeats, until_decided, coalesce(max_runs, 0),"
				  " coalesce(margin, 0), rounds, decided, stop_reason, decided_at"
				  " FROM requests WHERE id = ?", DBI_INT(id)),
			 request_fields, r, sizeof(*r));
	if (rc < 1)
		return rc;
	if (dbi_rows(dbi_stmt(db, "SELECT id FROM runs WHERE request_id = ? ORDER BY id",
			      DBI_INT(id)), dbi_id_fields, sizeof(*r->run_ids),
		     (size_t)(r->max_runs > r->repeats ? r->max_runs : r->repeats) * 2,
		     &r->run_ids, &r->nruns, NULL) < 0) {
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

int dbq_queue_progress(struct db *db, struct dbq_progress **out, size_t *n)
{
	sqlite3_stmt *st = dbi_stmt(db, "SELECT request_id, count(*),"
				    " coalesce(sum(state = 'done'), 0) FROM runs WHERE request_id IN"
				    " (SELECT request_id FROM runs WHERE state IN ('queued', 'running')"
				    " AND request_id IS NOT NULL) GROUP BY request_id ORDER BY request_id");
	struct dbq_progress *v = NULL, *nv;
	size_t cnt = 0, alloc = 0;
	int s;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((s = sqlite3_step(st)) == SQLITE_ROW) {
		if (!(nv = dbi_grow(v, cnt, &alloc, sizeof(*v)))) {
			s = SQLITE_NOMEM;
			break;
		}
		v = nv;
		v[cnt].request_id = sqlite3_column_int64(st, 0);
		v[cnt].runs = sqlite3_column_int(st, 1);
		v[cnt].done = sqlite3_column_int(st, 2);
		cnt++;
	}
	sqlite3_finalize(st);
	if (s != SQLITE_DONE) {
		free(v);
		return -1;
	}
	*out = v;
	*n = cnt;
	return 0;
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
