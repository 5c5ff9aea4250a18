// SPDX-License-Identifier: GPL-2.0-only
/* watches.c: the watches, watch_series, watch_checks and watch_log
 * tables (schema 15): what the watch poller (watch/watch.c)
 * stores of each patchwork project it follows, so that a restarted
 * kfleetd takes up at the position it reached, neither missing nor
 * repeating a series; and what the queue page shows of each series' work
 * (queued, started, finished). */
#include "db/db.h"
#include "db/dbint.h"
#include "db/query.h"
#include "db/watches.h"

#include <stddef.h>
#include <string.h>

#include "common/buf.h"

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

const struct db_field db_watch_fields[] = {
	F(watch_row, name, TEXT), F(watch_row, source, TEXT), F(watch_row, spec, TEXT),
	F(watch_row, created_at, TIME), F(watch_row, position, INT),
	F(watch_row, position_date, TEXT), F(watch_row, last_poll_at, TIME),
	F(watch_row, last_ok_at, TIME), F(watch_row, next_poll_at, TIME),
	F(watch_row, polls, INT), F(watch_row, found, INT), F(watch_row, queued, INT),
	F(watch_row, errors, INT), F(watch_row, failing, INT), F(watch_row, last_error, TEXT),
	F(watch_row, last_error_at, TIME), { NULL, 0, 0 },
};

const struct db_field db_watch_series_fields[] = {
	F(watch_series_row, id, INT), F(watch_series_row, watch, TEXT),
	F(watch_series_row, remote_id, INT), F(watch_series_row, msgid, TEXT),
	F(watch_series_row, version, INT), F(watch_series_row, name, TEXT),
	F(watch_series_row, subject, TEXT), F(watch_series_row, submitter, TEXT),
	F(watch_series_row, web_url, TEXT), F(watch_series_row, mbox_url, TEXT),
	F(watch_series_row, patches, TEXT), F(watch_series_row, seen_at, TIME),
	F(watch_series_row, state, TEXT), F(watch_series_row, detail, TEXT),
	F(watch_series_row, tree, TEXT), F(watch_series_row, base, TEXT),
	F(watch_series_row, tries, INT), F(watch_series_row, next_try_at, TIME),
	F(watch_series_row, submission_id, INT), F(watch_series_row, superseded_by, INT),
	F(watch_series_row, pending_posted, INT), F(watch_series_row, verdict, TEXT),
	F(watch_series_row, verdict_detail, TEXT), F(watch_series_row, reported_at, TIME),
	F(watch_series_row, mail_path, TEXT), F(watch_series_row, mail_sent_at, TIME),
	F(watch_series_row, mail_error, TEXT), F(watch_series_row, mail_tries, INT),
	F(watch_series_row, kcidb_at, TIME), F(watch_series_row, kcidb_path, TEXT),
	F(watch_series_row, kcidb_error, TEXT), F(watch_series_row, kcidb_tries, INT),
	F(watch_series_row, kcidb_next_at, TIME), { NULL, 0, 0 },
};

const struct db_field db_watch_check_fields[] = {
	F(watch_check_row, id, INT), F(watch_check_row, series_id, INT),
	F(watch_check_row, patch_id, INT), F(watch_check_row, state, TEXT),
	F(watch_check_row, description, TEXT), F(watch_check_row, target_url, TEXT),
	F(watch_check_row, posted_at, TIME), F(watch_check_row, http_status, INT),
	F(watch_check_row, error, TEXT), { NULL, 0, 0 },
};

const struct db_field db_watch_log_fields[] = {
	F(watch_log_row, id, INT), F(watch_log_row, watch, TEXT), F(watch_log_row, at, TIME),
	F(watch_log_row, level, TEXT), F(watch_log_row, text, TEXT), { NULL, 0, 0 },
};

int db_watch_add(struct db *db, const char *name, const char *spec, const char *since)
{
	if (dbi_exec(db, "INSERT INTO watches (name, source, spec, created_at, position_date)"
		     " VALUES (?, 'cli', ?, ?, ?) ON CONFLICT (name) DO NOTHING", DBI_TEXT(name),
		     DBI_TEXT(spec), DBI_INT(now_ms()), DBI_TEXT(since)) < 0)
		return -1;
	return sqlite3_changes(db->sql) ? 0 : 1;
}

int db_watch_sync_config(struct db *db, const char *name, const char *spec, const char *since)
{
	if (dbi_exec(db, "INSERT INTO watches (name, source, spec, created_at, position_date)"
		     " VALUES (?1, 'config', ?2, ?3, ?4) ON CONFLICT (name) DO UPDATE"
		     " SET spec = ?2 WHERE source = 'config'", DBI_TEXT(name), DBI_TEXT(spec),
		     DBI_INT(now_ms()), DBI_TEXT(since)) < 0)
		return -1;
	return sqlite3_changes(db->sql) ? 0 : 1;
}

int db_watch_drop_config_except(struct db *db, const char *const *names, size_t n)
{
	struct watch_row *rows = NULL;
	size_t nr = 0;
	int rc = 0;

	if (db_watch_list(db, &rows, &nr) < 0)
		return -1;
	for (size_t i = 0; i < nr && rc == 0; i++) {
		int keep = strcmp(rows[i].source, "config") != 0;

		for (size_t j = 0; j < n && !keep; j++)
			keep = !strcmp(rows[i].name, names[j]);
		if (!keep)
			rc = dbi_exec(db, "DELETE FROM watches WHERE name = ?", DBI_TEXT(rows[i].name));
	}
	db_rows_free(db_watch_fields, rows, sizeof(*rows), nr);
	return rc;
}

int db_watch_remove(struct db *db, const char *name)
{
	struct watch_row w;
	int f = db_watch_get(db, name, &w);

	if (f <= 0)
		return f;
	f = strcmp(w.source, "config") ? 1 : 2;
	db_row_release(db_watch_fields, &w, sizeof(w));
	if (f == 2)
		return 2;
	if (dbi_exec(db, "DELETE FROM watches WHERE name = ?", DBI_TEXT(name)) < 0 ||
	    dbi_exec(db, "DELETE FROM watch_log WHERE watch = ?", DBI_TEXT(name)) < 0)
		return -1;
	return 1;
}

int db_watch_get(struct db *db, const char *name, struct watch_row *w)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_fields, "watches", "WHERE name = ?");

	if (st)
		dbi_bind(st, DBI_TEXT(name));
	return dbi_row_one(st, db_watch_fields, w, sizeof(*w));
}

int db_watch_list(struct db *db, struct watch_row **rows, size_t *n)
{
	return dbi_rows(dbi_select(db, db_watch_fields, "watches", "ORDER BY name"),
			db_watch_fields, sizeof(**rows), 10000, rows, n, NULL);
}

int db_watch_polled(struct db *db, const char *name, int ok, const char *error,
		    int64_t next_poll_at, int found, int queued)
{
	int64_t now = now_ms();

	if (ok)
		return dbi_exec(db, "UPDATE watches SET polls = polls + 1, last_poll_at = ?1,"
				" last_ok_at = ?1, failing = 0, next_poll_at = ?2,"
				" found = found + ?3, queued = queued + ?4 WHERE name = ?5",
				DBI_INT(now), DBI_INT(next_poll_at), DBI_INT(found), DBI_INT(queued),
				DBI_TEXT(name));
	return dbi_exec(db, "UPDATE watches SET polls = polls + 1, last_poll_at = ?1,"
			" failing = failing + 1, errors = errors + 1, last_error = ?2,"
			" last_error_at = ?1, next_poll_at = ?3, found = found + ?4,"
			" queued = queued + ?5 WHERE name = ?6", DBI_INT(now), DBI_TEXT(error),
			DBI_INT(next_poll_at), DBI_INT(found), DBI_INT(queued), DBI_TEXT(name));
}

int db_watch_count_queued(struct db *db, const char *name, int n)
{
	return dbi_exec(db, "UPDATE watches SET queued = queued + ? WHERE name = ?", DBI_INT(n),
			DBI_TEXT(name));
}

int db_watch_advance(struct db *db, const char *name, int64_t position, const char *date)
{
	return dbi_exec(db, "UPDATE watches SET position = ?1, position_date = ?2"
			" WHERE name = ?3 AND position < ?1", DBI_INT(position), DBI_TEXT(date),
			DBI_TEXT(name));
}

int db_watch_advance_date(struct db *db, const char *name, const char *date)
{
	return dbi_exec(db, "UPDATE watches SET position_date = ?1 WHERE name = ?2 AND"
			" position_date < ?1", DBI_TEXT(date), DBI_TEXT(name));
}

int db_watch_log(struct db *db, const char *name, const char *level, const char *text)
{
	if (dbi_exec(db, "INSERT INTO watch_log (watch, at, level, text) VALUES (?, ?, ?, ?)",
		     DBI_TEXT(name), DBI_INT(now_ms()), DBI_TEXT(level), DBI_TEXT(text)) < 0)
		return -1;
	return dbi_exec(db, "DELETE FROM watch_log WHERE watch = ?1 AND id <= (SELECT id FROM"
			" watch_log WHERE watch = ?1 ORDER BY id DESC LIMIT 1 OFFSET 200)",
			DBI_TEXT(name));
}

int db_watch_log_list(struct db *db, const char *name, size_t max, struct watch_log_row **rows,
		      size_t *n)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_log_fields, "watch_log",
				      "WHERE watch = ? ORDER BY id DESC");

	if (st)
		dbi_bind(st, DBI_TEXT(name));
	return dbi_rows(st, db_watch_log_fields, sizeof(**rows), max, rows, n, NULL);
}

int db_watch_series_add(struct db *db, struct watch_series_row *s)
{
	if (dbi_exec(db, "INSERT INTO watch_series (watch, remote_id, msgid, version, name,"
		     " subject, submitter, web_url, mbox_url, patches, seen_at, state, detail)"
		     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
		     " ON CONFLICT (watch, msgid, version) DO NOTHING", DBI_TEXT(s->watch),
		     DBI_INT(s->remote_id), DBI_TEXT(s->msgid), DBI_INT(s->version),
		     DBI_TEXT(s->name), DBI_TEXT(s->subject), DBI_TEXT(s->submitter),
		     DBI_TEXT(s->web_url), DBI_TEXT(s->mbox_url), DBI_TEXT(s->patches),
		     DBI_INT(now_ms()), DBI_TEXT(s->state), DBI_TEXT(s->detail)) < 0)
		return -1;
	if (!sqlite3_changes(db->sql))
		return 1;
	s->id = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_watch_series_list(struct db *db, const char *watch, const char *state, size_t max,
			 struct watch_series_row **rows, size_t *n)
{
	/* one watch's newest from the index watch_series_watch (schema 18);
	 * an OR of "any watch" made SQLite walk every series newest first */
	sqlite3_stmt *st = dbi_select(db, db_watch_series_fields, "watch_series",
				      state ? "WHERE watch = ?1 AND state = ?2 ORDER BY id" :
				      watch ? "WHERE watch = ?1 ORDER BY id DESC" :
				      "WHERE ?1 IS NULL ORDER BY id DESC");

	if (st)
		dbi_bind(st, DBI_TEXT(watch), DBI_TEXT(state));
	return dbi_rows(st, db_watch_series_fields, sizeof(**rows), max, rows, n, NULL);
}

int db_watch_series_get(struct db *db, int64_t id, struct watch_series_row *s)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_series_fields, "watch_series", "WHERE id = ?");

	if (st)
		dbi_bind(st, DBI_INT(id));
	return dbi_row_one(st, db_watch_series_fields, s, sizeof(*s));
}

int db_watch_series_of_submission(struct db *db, int64_t submission_id,
				  struct watch_series_row *s)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_series_fields, "watch_series",
				      "WHERE submission_id = ? ORDER BY id LIMIT 1");

	if (st)
		dbi_bind(st, DBI_INT(submission_id));
	return dbi_row_one(st, db_watch_series_fields, s, sizeof(*s));
}

int db_watch_series_state(struct db *db, int64_t id, const char *state, const char *detail)
{
	return dbi_exec(db, "UPDATE watch_series SET state = ?1, detail = coalesce(?2, detail)"
			" WHERE id = ?3", DBI_TEXT(state), DBI_TEXT(detail), DBI_INT(id));
}

int db_watch_series_queued(struct db *db, int64_t id, int64_t submission_id, const char *tree,
			   const char *base, const char *subject, const char *detail)
{
	return dbi_exec(db, "UPDATE watch_series SET state = 'queued', submission_id = ?1,"
			" tree = ?2, base = ?3, detail = ?4, subject = coalesce(?6, subject)"
			" WHERE id = ?5", DBI_INT(submission_id), DBI_TEXT(tree), DBI_TEXT(base),
			DBI_TEXT(detail), DBI_INT(id), DBI_TEXT(subject));
}

int db_watch_series_retry(struct db *db, int64_t id, const char *detail, int64_t next_try_at)
{
	return dbi_exec(db, "UPDATE watch_series SET tries = tries + 1, detail = ?1,"
			" next_try_at = ?2 WHERE id = ?3", DBI_TEXT(detail), DBI_INT(next_try_at),
			DBI_INT(id));
}

int db_watch_series_known(struct db *db, const char *watch, int64_t remote_id)
{
	int64_t v = 0;
	int rc = dbi_row_ints(dbi_stmt(db, "SELECT count(*) FROM watch_series WHERE watch = ?1"
				       " AND remote_id = ?2", DBI_TEXT(watch), DBI_INT(remote_id)),
			      &v, 1);

	return rc < 0 ? -1 : v > 0;
}

int db_watch_series_wait(struct db *db, int64_t id, const char *detail, int64_t next_try_at)
{
	return dbi_exec(db, "UPDATE watch_series SET detail = ?1, next_try_at = ?2 WHERE id = ?3",
			DBI_TEXT(detail), DBI_INT(next_try_at), DBI_INT(id));
}

int db_watch_series_superseded(struct db *db, int64_t id, int64_t by, const char *detail)
{
	return dbi_exec(db, "UPDATE watch_series SET state = 'superseded', superseded_by = ?1,"
			" detail = ?2 WHERE id = ?3", DBI_INT(by), DBI_TEXT(detail), DBI_INT(id));
}

int db_watch_series_pending(struct db *db, int64_t id)
{
	return dbi_exec(db, "UPDATE watch_series SET pending_posted = 1 WHERE id = ?", DBI_INT(id));
}

int db_watch_series_reported(struct db *db, int64_t id, const char *verdict, const char *detail,
			     const char *mail_path)
{
	return dbi_exec(db, "UPDATE watch_series SET state = CASE WHEN state IN ('superseded', 'error')"
			" THEN state ELSE 'reported' END, verdict = ?1, verdict_detail = ?2,"
			" mail_path = ?3, reported_at = ?4 WHERE id = ?5", DBI_TEXT(verdict),
			DBI_TEXT(detail), DBI_TEXT(mail_path), DBI_INT(now_ms()), DBI_INT(id));
}

int db_watch_series_older(struct db *db, const char *watch, const char *submitter,
			  int64_t version, struct watch_series_row **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_series_fields, "watch_series",
				      "WHERE watch = ?1 AND coalesce(submitter, '') ="
				      " coalesce(?2, '') AND version < ?3 AND state IN ('new', 'queued')"
				      " ORDER BY id");

	if (st)
		dbi_bind(st, DBI_TEXT(watch), DBI_TEXT(submitter), DBI_INT(version));
	return dbi_rows(st, db_watch_series_fields, sizeof(**rows), 500, rows, n, NULL);
}

#define RUNS_OF "(submission_id = ?1 OR request_id IN" \
	" (SELECT id FROM requests WHERE submission_id = ?1))"

int db_watch_submission_outcome(struct db *db, int64_t id, struct watch_outcome *o)
{
	int64_t v[6] = { 0 };
	int rc = dbi_row_ints(dbi_stmt(db,
		"SELECT count(*), coalesce(sum(state = 'done'), 0),"
		" coalesce(sum(outcome = 'passed'), 0), coalesce(sum(outcome = 'canceled'), 0),"
		" coalesce(sum(outcome = 'infra'), 0), coalesce(sum(state = 'done' AND"
		" outcome NOT IN ('passed', 'canceled', 'infra')), 0)"
		" FROM runs WHERE " RUNS_OF, DBI_INT(id)), v, 6);

	o->runs = (int)v[0];
	o->done = (int)v[1];
	o->passed = (int)v[2];
	o->canceled = (int)v[3];
	o->infra = (int)v[4];
	o->failed = (int)v[5];
	return rc == 1 ? 0 : -1;
}

int db_watch_find_submission(struct db *db, const char *mbox_path, int64_t since, int64_t *id)
{
	return dbi_row_ints(dbi_stmt(db, "SELECT id FROM submissions WHERE mbox_path = ?"
				     " AND created_at >= ? ORDER BY id DESC LIMIT 1",
				     DBI_TEXT(mbox_path), DBI_INT(since)), id, 1);
}

int db_watch_cancel_submission(struct db *db, int64_t id, const char *why)
{
	int n;

	if (dbi_begin(db) < 0)
		return -1;
	if (dbi_exec(db, "UPDATE submissions SET state = 'failed', outcome = 'superseded',"
		     " detail = ?2, ended_at = ?3 WHERE id = ?1 AND state = 'queued'",
		     DBI_INT(id), DBI_TEXT(why), DBI_INT(now_ms())) < 0 ||
	    dbi_exec(db, "UPDATE submissions SET detail = ?2 WHERE id = ?1 AND"
		     " (detail IS NULL OR detail NOT LIKE 'superseded%')", DBI_INT(id),
		     DBI_TEXT(why)) < 0 ||
	    dbi_exec(db, "UPDATE runs SET state = 'done', outcome = 'canceled', detail = ?2,"
		     " ended_at = ?3 WHERE state = 'queued' AND " RUNS_OF, DBI_INT(id),
		     DBI_TEXT(why), DBI_INT(now_ms())) < 0)
		goto fail;
	n = sqlite3_changes(db->sql);
	if (dbi_commit(db) < 0)
		goto fail;
	return n;
fail:
	dbi_rollback(db);
	return -1;
}

int db_watch_check_add(struct db *db, int64_t series_id, int64_t patch_id, const char *state,
		       const char *description, const char *target_url, int64_t http_status,
		       const char *error)
{
	return dbi_exec(db, "INSERT INTO watch_checks (series_id, patch_id, state, description,"
			" target_url, posted_at, http_status, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
			DBI_INT(series_id), DBI_INT(patch_id), DBI_TEXT(state),
			DBI_TEXT(description), DBI_TEXT(target_url), DBI_INT(now_ms()),
			DBI_OPT(http_status), DBI_TEXT(error));
}

int db_watch_checks(struct db *db, int64_t series_id, struct watch_check_row **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_check_fields, "watch_checks",
				      "WHERE series_id = ? ORDER BY id");

	if (st)
		dbi_bind(st, DBI_INT(series_id));
	return dbi_rows(st, db_watch_check_fields, sizeof(**rows), 1000, rows, n, NULL);
}

int db_watch_series_later(struct db *db, int64_t id, int64_t at)
{
	return dbi_exec(db, "UPDATE watch_series SET next_try_at = ? WHERE id = ?", DBI_INT(at),
			DBI_INT(id));
}

int db_watch_run_lines(struct db *db, int64_t submission_id, struct buf *out)
{
	sqlite3_stmt *st = dbi_stmt(db,
		"SELECT coalesce(job, 'command'), arch, vcpus, count(*),"
		" coalesce(sum(outcome = 'passed'), 0),"
		" group_concat(DISTINCT CASE WHEN outcome != 'passed' THEN outcome END)"
		" FROM runs WHERE " RUNS_OF " GROUP BY 1, 2, 3 ORDER BY 1, 2, 3",
		DBI_INT(submission_id));
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *other = (const char *)sqlite3_column_text(st, 5);
		int64_t runs = sqlite3_column_int64(st, 3), passed = sqlite3_column_int64(st, 4);

		buf_printf(out, "  %s %s %lld vCPU%s: %lld run%s, %lld passed%s%s%s\n",
			   (const char *)sqlite3_column_text(st, 0),
			   (const char *)sqlite3_column_text(st, 1),
			   (long long)sqlite3_column_int64(st, 2),
			   sqlite3_column_int64(st, 2) == 1 ? "" : "s", (long long)runs,
			   runs == 1 ? "" : "s", (long long)passed, other ? " (others: " : "",
			   other ? other : "", other ? ")" : "");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

int db_watch_series_unsent(struct db *db, const char *watch, int max_tries,
			   struct watch_series_row **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_series_fields, "watch_series",
				      "WHERE watch = ?1 AND mail_path IS NOT NULL AND mail_sent_at IS NULL"
				      " AND mail_tries < ?2 ORDER BY id");

	if (st)
		dbi_bind(st, DBI_TEXT(watch), DBI_INT(max_tries));
	return dbi_rows(st, db_watch_series_fields, sizeof(**rows), 64, rows, n, NULL);
}

int db_watch_series_mailed(struct db *db, int64_t id, const char *error, int64_t next_try_at)
{
	if (!error)
		return dbi_exec(db, "UPDATE watch_series SET mail_sent_at = ?1, mail_error = NULL,"
				" mail_tries = mail_tries + 1 WHERE id = ?2", DBI_INT(now_ms()),
				DBI_INT(id));
	return dbi_exec(db, "UPDATE watch_series SET mail_error = ?1, mail_tries = mail_tries + 1,"
			" next_try_at = ?2 WHERE id = ?3", DBI_TEXT(error), DBI_INT(next_try_at),
			DBI_INT(id));
}

int db_watch_series_kcidb_due(struct db *db, const char *watch, int max_tries,
			      struct watch_series_row **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_select(db, db_watch_series_fields, "watch_series",
				      "WHERE watch = ?1 AND state = 'reported' AND submission_id IS NOT NULL"
				      " AND kcidb_at IS NULL AND kcidb_tries < ?2 AND kcidb_next_at <= ?3"
				      " ORDER BY id");

	if (st)
		dbi_bind(st, DBI_TEXT(watch), DBI_INT(max_tries), DBI_INT(now_ms()));
	return dbi_rows(st, db_watch_series_fields, sizeof(**rows), 64, rows, n, NULL);
}

int db_watch_series_kcidb(struct db *db, int64_t id, const char *path, const char *error,
			  int64_t next_at)
{
	if (!error)
		return dbi_exec(db, "UPDATE watch_series SET kcidb_at = ?1, kcidb_path = ?2,"
				" kcidb_error = NULL, kcidb_tries = kcidb_tries + 1 WHERE id = ?3",
				DBI_INT(now_ms()), DBI_TEXT(path), DBI_INT(id));
	return dbi_exec(db, "UPDATE watch_series SET kcidb_error = ?1, kcidb_tries = kcidb_tries + 1,"
			" kcidb_next_at = ?2 WHERE id = ?3", DBI_TEXT(error), DBI_INT(next_at),
			DBI_INT(id));
}

/* --- the queue page's series (query.h) ------------------------------------ */

static const struct db_field series_time_fields[] = {
	{ "id", offsetof(struct dbq_series, id), DB_FIELD_INT },
	{ "watch", offsetof(struct dbq_series, watch), DB_FIELD_TEXT },
	{ "name", offsetof(struct dbq_series, name), DB_FIELD_TEXT },
	{ "version", offsetof(struct dbq_series, version), DB_FIELD_INT },
	{ "submission_id", offsetof(struct dbq_series, submission_id), DB_FIELD_INT },
	{ "state", offsetof(struct dbq_series, state), DB_FIELD_TEXT },
	{ "queued_at", offsetof(struct dbq_series, queued_at), DB_FIELD_TIME },
	{ "started_at", offsetof(struct dbq_series, started_at), DB_FIELD_TIME },
	{ "finished_at", offsetof(struct dbq_series, finished_at), DB_FIELD_TIME },
	{ "runs", offsetof(struct dbq_series, runs), DB_FIELD_INT32 },
	{ "done", offsetof(struct dbq_series, done), DB_FIELD_INT32 },
	{ "open", offsetof(struct dbq_series, open), DB_FIELD_INT32 },
	{ NULL, 0, 0 },
};

void dbq_series_free(struct dbq_series *v, size_t n)
{
	db_rows_free(series_time_fields, v, sizeof(*v), n);
}

int dbq_series_times(struct db *db, size_t max, struct dbq_series **v, size_t *n)
{
	/* the series to show: those building or with runs not done (found
	 * from the queue's side, not by reading every series), and the
	 * newest; a series' runs are its submission's plain runs and its
	 * requests'; it is finished once its build failed (or it had no
	 * runs to queue) or every run is done */
	return dbi_rows(dbi_stmt(db,
		"WITH cand AS ("
		"  SELECT ws.id FROM watch_series ws JOIN submissions sub ON sub.id = ws.submission_id"
		"   WHERE sub.state IN ('queued', 'building')"
		"  UNION SELECT ws.id FROM runs r LEFT JOIN requests q ON q.id = r.request_id"
		"   JOIN watch_series ws ON ws.submission_id = coalesce(r.submission_id, q.submission_id)"
		"   WHERE r.state IN ('queued', 'running') AND r.watch IS NOT NULL"
		"  UNION SELECT id FROM (SELECT id FROM watch_series WHERE submission_id IS NOT NULL"
		"   ORDER BY id DESC LIMIT ?1)),"
		" sr AS (SELECT ws.id AS sid, r.state, r.ended_at FROM cand"
		"   JOIN watch_series ws ON ws.id = cand.id"
		"   JOIN runs r ON r.submission_id = ws.submission_id"
		"  UNION ALL SELECT ws.id, r.state, r.ended_at FROM cand"
		"   JOIN watch_series ws ON ws.id = cand.id"
		"   JOIN requests q ON q.submission_id = ws.submission_id"
		"   JOIN runs r ON r.request_id = q.id),"
		" agg AS (SELECT sid, count(*) AS runs, sum(state = 'done') AS done,"
		"   max(ended_at) AS last_end FROM sr GROUP BY sid),"
		" s AS (SELECT ws.id, ws.watch, ws.name, ws.version, ws.submission_id, sub.state,"
		"   sub.created_at, sub.started_at,"
		"   CASE WHEN sub.state IN ('failed', 'done') THEN sub.ended_at"
		"        WHEN sub.state = 'testing' AND coalesce(a.runs, 0) = 0 THEN sub.ended_at"
		"        WHEN sub.state = 'testing' AND a.done = a.runs THEN a.last_end END AS fin,"
		"   coalesce(a.runs, 0) AS runs, coalesce(a.done, 0) AS done"
		"  FROM cand JOIN watch_series ws ON ws.id = cand.id"
		"  JOIN submissions sub ON sub.id = ws.submission_id LEFT JOIN agg a ON a.sid = ws.id)"
		" SELECT id, watch, name, version, submission_id, state, created_at, started_at,"
		"  fin, runs, done, fin IS NULL FROM s ORDER BY fin IS NULL DESC, id DESC LIMIT ?1",
		DBI_INT((int64_t)max)), series_time_fields, sizeof(**v), max, v, n, NULL);
}
