// SPDX-License-Identifier: GPL-2.0-only
/* compare_data.c: the read-only queries of /api/compare (web/comparisons.c):
 * the samples of a job's passed runs on a kernel, by run and metric as the
 * index gives them (no sort of every sample), handed over one at a time;
 * how many done runs did not pass; and the state of the runs a comparison
 * reads, for the reply cache's key. Plain SELECTs on the caller's
 * connection. */
#include "db/query.h"
#include "db/dbint.h"

#include <string.h>

#include <sqlite3.h>

/* Binds q to ?1 kernel, ?2 job, ?3 done, ?4 passed, ?5 arch, ?6 vcpus */
static void bind_runs(sqlite3_stmt *st, const struct db_compare_runs *q)
{
	sqlite3_bind_int64(st, 1, q->kernel_id);
	sqlite3_bind_text(st, 2, q->job, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, run_state_name(RUN_DONE), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, run_outcome_name(RUN_OUT_PASSED), -1, SQLITE_STATIC);
	if (q->arch)
		sqlite3_bind_text(st, 5, q->arch, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, q->vcpus);
}

int db_compare_samples(struct db *db, const struct db_compare_runs *q, size_t limit,
		       int (*fn)(const struct db_compare_sample *s, void *ctx), void *ctx)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT r.id, r.arch, r.vcpus, r.memory_mb, r.accel, h.name, s.metric,"
		" s.unit, s.value, r.topology, r.numa_nodes, r.boot"
		" FROM runs r JOIN samples s ON s.run_id = r.id"
		" LEFT JOIN hosts h ON h.id = r.host_id"
		" WHERE r.kernel_id = ?1 AND r.job = ?2 AND r.state = ?3 AND r.outcome = ?4"
		" AND (?5 IS NULL OR r.arch = ?5) AND (?6 = 0 OR r.vcpus = ?6)"
		" ORDER BY r.id, s.metric LIMIT ?7");
	struct db_compare_sample s;
	int rc = -1, step;

	if (!st)
		return -1;
	bind_runs(st, q);
	sqlite3_bind_int64(st, 7, (sqlite3_int64)limit);
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		s.run_id = sqlite3_column_int64(st, 0);
		s.arch = (const char *)sqlite3_column_text(st, 1);
		s.vcpus = sqlite3_column_int(st, 2);
		s.memory_mb = sqlite3_column_int(st, 3);
		s.accel = (const char *)sqlite3_column_text(st, 4);
		s.host = (const char *)sqlite3_column_text(st, 5);
		s.metric = (const char *)sqlite3_column_text(st, 6);
		s.unit = (const char *)sqlite3_column_text(st, 7);
		s.value = sqlite3_column_double(st, 8);
		s.topology = (const char *)sqlite3_column_text(st, 9);
		s.numa_nodes = sqlite3_column_int(st, 10);
		s.boot = (const char *)sqlite3_column_text(st, 11);
		if (!s.metric)
			goto out;
		rc = fn(&s, ctx);
		if (rc)
			goto out;
		rc = -1;
	}
	if (step == SQLITE_DONE)
		rc = 0;
out:
	sqlite3_finalize(st);
	return rc;
}

int db_compare_left_out(struct db *db, const struct db_compare_runs *q, int64_t *n)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT count(*) FROM runs r"
		" WHERE r.kernel_id = ?1 AND r.job = ?2 AND r.state = ?3"
		" AND (r.outcome IS NULL OR r.outcome != ?4)"
		" AND (?5 IS NULL OR r.arch = ?5) AND (?6 = 0 OR r.vcpus = ?6)");
	int rc = -1;

	if (!st)
		return -1;
	bind_runs(st, q);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*n = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_compare_state(struct db *db, int64_t a, int64_t b, const char *job, int64_t *done,
		     int64_t *last_end)
{
	/* from the index runs_kernel_job alone (the id is in it): the runs'
	 * ends, read from the table, cost more than the answer kept */
	sqlite3_stmt *st = dbi_prep(db, "SELECT count(*), coalesce(max(id), 0)"
				    " FROM runs WHERE kernel_id IN (?1, ?2) AND job = ?3 AND state = 'done'");
	int rc = -1;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, a);
	sqlite3_bind_int64(st, 2, b);
	sqlite3_bind_text(st, 3, job, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*done = sqlite3_column_int64(st, 0);
		*last_end = sqlite3_column_int64(st, 1);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}
