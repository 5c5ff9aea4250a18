// SPDX-License-Identifier: GPL-2.0-only
/* cancel.c: a user's cancel of runs, of a request's runs or of a
 * submission (its builds not started and its runs), each one transaction.
 * A queued run ends at once as canceled; a running one is marked
 * (cancel_at, schema step 22) and its worker, which looks for the mark,
 * destroys its guest; finish_locked() (runs.c) ends a marked run as
 * canceled whatever its worker says, and never queues it again. */
#include "db/db.h"
#include "db/dbint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* The runs of a request (?1) and of a submission (?1): its plain runs and
 * its requests' */
#define SCOPE_RUN "id = ?1"
#define SCOPE_REQUEST "request_id = ?1"
#define SCOPE_SUBMISSION "(submission_id = ?1 OR request_id IN" \
	" (SELECT id FROM requests WHERE submission_id = ?1))"

/* sql with %s as scope, prepared with id, why and now bound as ?1 ?2 ?3 */
static int scoped_exec(struct db *db, const char *sql, const char *scope, int64_t id,
		       const char *why, int64_t now)
{
	char *q = NULL;
	int rc;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (asprintf(&q, sql, scope) < 0)
		return -1;
#pragma GCC diagnostic pop
	rc = dbi_exec(db, q, DBI_INT(id), DBI_TEXT(why), DBI_INT(now));
	free(q);
	return rc < 0 ? -1 : sqlite3_changes(db->sql);
}

/* Counts the runs of scope that were canceled or asked to stop before, and
 * those that ended otherwise; cancels the queued ones and marks the
 * running ones; the requests of reqs (NULL: none) run until decided queue
 * no more rounds. Inside the caller's transaction. 0 / -1 */
static int cancel_runs(struct db *db, const char *scope, const char *reqs, int64_t id,
		       const char *why, struct db_cancel *c)
{
	int64_t v[2] = { 0, 0 }, now = now_ms();
	char *q = NULL;
	int n;

	if (asprintf(&q, "SELECT coalesce(sum((state = 'done' AND outcome = 'canceled') OR"
		     " (state = 'running' AND cancel_at IS NOT NULL)), 0),"
		     " coalesce(sum(state = 'done' AND coalesce(outcome, '') != 'canceled'), 0)"
		     " FROM runs WHERE %s", scope) < 0)
		return -1;
	n = dbi_row_ints(dbi_stmt(db, q, DBI_INT(id)), v, 2);
	free(q);
	if (n < 0)
		return -1;
	c->already += (int)v[0];
	c->ended += (int)v[1];
	n = scoped_exec(db, "UPDATE runs SET state = 'done', outcome = 'canceled', detail = ?2,"
			" ended_at = ?3, phase = NULL, phase_at = NULL"
			" WHERE state = 'queued' AND %s", scope, id, why, now);
	if (n < 0)
		return -1;
	c->canceled += n;
	n = scoped_exec(db, "UPDATE runs SET cancel_at = ?3 WHERE state = 'running'"
			" AND cancel_at IS NULL AND %s", scope, id, why, now);
	if (n < 0)
		return -1;
	c->stopping += n;
	if (!reqs)
		return 0;
	return scoped_exec(db, "UPDATE requests SET decided = 'canceled', stop_reason = ?2,"
			   " decided_at = ?3 WHERE decided = 'deciding' AND %s", reqs, id, why,
			   now) < 0 ? -1 : 0;
}

/* 1 when the row of id exists in table (a name of ours), 0 not, -1 error */
static int exists(struct db *db, const char *table, int64_t id)
{
	char q[96];
	int64_t v = 0;

	snprintf(q, sizeof(q), "SELECT count(*) FROM %s WHERE id = ?", table);
	if (dbi_row_ints(dbi_stmt(db, q, DBI_INT(id)), &v, 1) < 0)
		return -1;
	return v > 0;
}

/* The cancel of the row id of table, its runs those of scope, in a
 * transaction: 1 done, 0 no such row, -1 error (rolled back) */
static int in_transaction(struct db *db, const char *table, const char *scope,
			  const char *reqs, int64_t id, const char *why, struct db_cancel *c)
{
	int found;

	memset(c, 0, sizeof(*c));
	if (dbi_begin(db) < 0)
		return -1;
	found = exists(db, table, id);
	if (found < 0 || (found && cancel_runs(db, scope, reqs, id, why, c) < 0) ||
	    dbi_commit(db) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return found;
}

int db_run_cancel(struct db *db, int64_t id, const char *why, struct db_cancel *c)
{
	return in_transaction(db, "runs", SCOPE_RUN, NULL, id, why, c);
}

int db_request_cancel(struct db *db, int64_t id, const char *why, struct db_cancel *c)
{
	return in_transaction(db, "requests", SCOPE_REQUEST, "id = ?1", id, why, c);
}

/* The submission's part: queued or building, it fails as canceled (the
 * builder starts none of its builds left); testing, it is marked canceled
 * once a run of it was. Its runs are swept unless it ended otherwise. */
static int cancel_submission(struct db *db, int64_t id, const char *why, struct db_cancel *c)
{
	int64_t v[3] = { 0, 0, 0 };   /* queued or building, testing, canceled before */
	int n = dbi_row_ints(dbi_stmt(db, "SELECT state IN ('queued', 'building'),"
				      " state = 'testing', coalesce(outcome, '') = 'canceled'"
				      " FROM submissions WHERE id = ?", DBI_INT(id)), v, 3);

	if (n <= 0)
		return n;
	c->sub_before = (int)v[2];
	if (v[0]) {
		if (dbi_exec(db, "UPDATE submissions SET state = 'failed', outcome = 'canceled',"
			     " detail = ?2, ended_at = ?3 WHERE id = ?1", DBI_INT(id),
			     DBI_TEXT(why), DBI_INT(now_ms())) < 0)
			return -1;
		c->sub_now = 1;
	}
	if (!v[0] && !v[1] && !v[2])
		return 1;          /* done or failed by itself: nothing of it runs */
	if (cancel_runs(db, SCOPE_SUBMISSION, "submission_id = ?1", id, why, c) < 0)
		return -1;
	if (v[1] && !v[2] && c->canceled + c->stopping > 0 &&
	    dbi_exec(db, "UPDATE submissions SET outcome = 'canceled', detail ="
		     " coalesce(detail || '; ', '') || ?2 WHERE id = ?1", DBI_INT(id),
		     DBI_TEXT(why)) < 0)
		return -1;
	return 1;
}

int db_submission_cancel(struct db *db, int64_t id, const char *why, struct db_cancel *c)
{
	int found;

	memset(c, 0, sizeof(*c));
	if (dbi_begin(db) < 0)
		return -1;
	found = cancel_submission(db, id, why, c);
	if (found < 0 || dbi_commit(db) < 0) {
		dbi_rollback(db);
		return -1;
	}
	return found;
}

int db_cancel_nothing(const struct db_cancel *c)
{
	return !c->canceled && !c->stopping && !c->already && !c->sub_now && !c->sub_before;
}

int db_run_cancel_asked(struct db *db, int64_t id)
{
	int64_t v = 0;
	int rc = dbi_row_ints(dbi_stmt(db, "SELECT cancel_at IS NOT NULL FROM runs WHERE id = ?",
				       DBI_INT(id)), &v, 1);

	return rc < 0 ? -1 : v > 0;
}

int db_submission_canceled(struct db *db, int64_t id)
{
	int64_t v = 0;
	int rc = dbi_row_ints(dbi_stmt(db, "SELECT coalesce(outcome, '') = 'canceled'"
				       " FROM submissions WHERE id = ?", DBI_INT(id)), &v, 1);

	return rc < 0 ? -1 : v > 0;
}
