// SPDX-License-Identifier: GPL-2.0-only
/* submissions.c: the submissions table: a series (or a commit, or a
 * kernel built elsewhere) to build and test, queued by the API and moved
 * on by the builder thread; its links to its builds (submission_builds),
 * requests and plain runs; and the applies table, which remembers the
 * commit a series made on a base so it is applied once. */
#include "db/db.h"
#include "db/dbint.h"

#include <stddef.h>
#include <stdio.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

const struct db_field db_submission_fields[] = {
	F(submission, id, INT), F(submission, created_at, TIME), F(submission, tree, TEXT),
	F(submission, series_name, TEXT), F(submission, series_subject, TEXT),
	F(submission, series_json, TEXT), F(submission, series_count, INT),
	F(submission, mbox_path, TEXT), F(submission, base_spec, TEXT),
	F(submission, base_commit, TEXT), F(submission, base_why, TEXT),
	F(submission, patched_commit, TEXT), F(submission, arches, TEXT),
	F(submission, config, TEXT), F(submission, fragments, TEXT), F(submission, jobs, TEXT),
	F(submission, vcpus, TEXT), F(submission, repeats, INT), F(submission, memory_mb, INT),
	F(submission, state, TEXT), F(submission, outcome, TEXT), F(submission, detail, TEXT),
	F(submission, apply_log, TEXT), F(submission, started_at, TIME),
	F(submission, ended_at, TIME), F(submission, kernel, TEXT),
	F(submission, speculative, INT), F(submission, watch, TEXT), { NULL, 0, 0 },
};

int db_submission_insert(struct db *db, struct submission *s)
{
	s->created_at = now_ms();
	return dbi_row_ints(dbi_stmt(db,
		"INSERT INTO submissions (created_at, tree, series_name, series_subject,"
		" series_json, series_count, mbox_path, base_spec, arches, config, fragments,"
		" jobs, vcpus, repeats, memory_mb, kernel, speculative, watch, state)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued')"
		" RETURNING id",
		DBI_INT(s->created_at), DBI_TEXT(s->tree), DBI_TEXT(s->series_name),
		DBI_TEXT(s->series_subject), DBI_TEXT(s->series_json), DBI_INT(s->series_count),
		DBI_TEXT(s->mbox_path), DBI_TEXT(s->base_spec), DBI_TEXT(s->arches),
		DBI_TEXT(s->config), DBI_TEXT(s->fragments), DBI_TEXT(s->jobs),
		DBI_TEXT(s->vcpus), DBI_INT(s->repeats > 0 ? s->repeats : 1),
		DBI_INT(s->memory_mb), DBI_TEXT(s->kernel), DBI_INT(s->speculative),
		DBI_TEXT(s->watch)), &s->id,
		1) == 1 ? 0 : -1;
}

int db_submission_get(struct db *db, int64_t id, struct submission *s)
{
	sqlite3_stmt *st = dbi_select(db, db_submission_fields, "submissions", "WHERE id = ?");

	if (st)
		dbi_bind(st, DBI_INT(id));
	return dbi_row_one(st, db_submission_fields, s, sizeof(*s));
}

int db_submission_list(struct db *db, int limit, struct submission **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_select(db, db_submission_fields, "submissions",
				      "ORDER BY id DESC LIMIT ?");

	if (st)
		dbi_bind(st, DBI_INT(limit));
	return dbi_rows(st, db_submission_fields, sizeof(**rows), (size_t)limit, rows, n, NULL);
}

int db_submission_next(struct db *db, struct submission *s)
{
	int64_t id = 0;
	int rc = dbi_row_ints(dbi_stmt(db,
		"UPDATE submissions SET state = 'building', started_at = coalesce(started_at, ?)"
		" WHERE id = (SELECT id FROM submissions WHERE state IN ('queued','building')"
		" ORDER BY speculative, id LIMIT 1) RETURNING id", DBI_INT(now_ms())), &id, 1);

	return rc < 1 ? rc : db_submission_get(db, id, s);
}

int db_submission_set_base(struct db *db, int64_t id, const char *commit, const char *why)
{
	return dbi_exec(db, "UPDATE submissions SET base_commit = ?1, base_why = ?2"
			" WHERE id = ?3", DBI_TEXT(commit), DBI_TEXT(why), DBI_INT(id));
}

int db_submission_set_patched(struct db *db, int64_t id, const char *commit,
			      const char *apply_log)
{
	return dbi_exec(db, "UPDATE submissions SET patched_commit = ?1,"
			" apply_log = coalesce(?2, apply_log) WHERE id = ?3", DBI_TEXT(commit),
			DBI_TEXT(apply_log), DBI_INT(id));
}

int db_submission_end(struct db *db, int64_t id, const char *state, const char *outcome,
		      const char *detail, const char *apply_log)
{
	/* a user's cancel stands: a build that was in flight ends after it */
	return dbi_exec(db, "UPDATE submissions SET state = ?, outcome = ?, detail = ?,"
			" apply_log = coalesce(?, apply_log), ended_at = ? WHERE id = ?"
			" AND coalesce(outcome, '') != 'canceled'",
			DBI_TEXT(state), DBI_TEXT(outcome), DBI_TEXT(detail), DBI_TEXT(apply_log),
			DBI_INT(now_ms()), DBI_INT(id));
}

/* --- links to builds, requests and runs ------------------------------------ */

int db_submission_link_build(struct db *db, int64_t id, const char *side, const char *arch,
			     int64_t build_id, int reused)
{
	return dbi_exec(db,
		"INSERT INTO submission_builds (submission_id, side, arch, build_id, reused)"
		" VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (submission_id, side, arch)"
		" DO UPDATE SET build_id = ?4, reused = ?5", DBI_INT(id), DBI_TEXT(side),
		DBI_TEXT(arch), DBI_INT(build_id), DBI_INT(reused));
}

int db_submission_link_request(struct db *db, int64_t id, int64_t request_id)
{
	return dbi_exec(db, "UPDATE requests SET submission_id = ? WHERE id = ?", DBI_INT(id),
			DBI_INT(request_id));
}

int db_submission_link_run(struct db *db, int64_t id, int64_t run_id)
{
	return dbi_exec(db, "UPDATE runs SET submission_id = ? WHERE id = ?", DBI_INT(id),
			DBI_INT(run_id));
}

int db_submission_progress(struct db *db, int64_t id, int *runs, int *done)
{
	int64_t v[2] = { 0, 0 };
	int rc = dbi_row_ints(dbi_stmt(db,
		"SELECT count(*), coalesce(sum(state = 'done'), 0) FROM runs WHERE submission_id = ?1"
		" OR request_id IN (SELECT id FROM requests WHERE submission_id = ?1)",
		DBI_INT(id)), v, 2);

	*runs = (int)v[0];
	*done = (int)v[1];
	return rc == 1 ? 0 : -1;
}

int db_submission_builds(struct db *db, int64_t id, struct build_row **rows, size_t *n)
{
	return dbi_rows(dbi_stmt(db,
		"SELECT " DBI_BUILD_COLUMNS ", sb.side, sb.reused FROM submission_builds sb"
		" JOIN builds b ON b.id = sb.build_id LEFT JOIN kernels k ON k.id = b.kernel_id"
		" WHERE sb.submission_id = ? ORDER BY sb.arch, sb.side", DBI_INT(id)),
		db_build_fields, sizeof(**rows), 1000, rows, n, NULL);
}

int db_submission_runs(struct db *db, int64_t id, size_t max, int64_t **ids, size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT id FROM runs WHERE submission_id = ? ORDER BY id",
				 DBI_INT(id)), dbi_id_fields, sizeof(**ids), max, ids, n, NULL);
}

int db_submission_requests(struct db *db, int64_t id, int64_t **ids, size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT id FROM requests WHERE submission_id = ?"
				 " ORDER BY id", DBI_INT(id)),
			dbi_id_fields, sizeof(**ids), 10000, ids, n, NULL);
}

/* --- applies ----------------------------------------------------------------- */

int db_apply_find(struct db *db, const char *tree, const char *base, const char *series_hash,
		  char commit[41])
{
	sqlite3_stmt *st = dbi_stmt(db, "SELECT commit_id FROM applies WHERE tree = ?"
				    " AND base_commit = ? AND series_hash = ?", DBI_TEXT(tree),
				    DBI_TEXT(base), DBI_TEXT(series_hash));
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(commit, 41, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int db_apply_record(struct db *db, const char *tree, const char *base,
		    const char *series_hash, const char *commit)
{
	return dbi_exec(db, "INSERT OR REPLACE INTO applies (tree, base_commit,"
			" series_hash, commit_id) VALUES (?, ?, ?, ?)", DBI_TEXT(tree),
			DBI_TEXT(base), DBI_TEXT(series_hash), DBI_TEXT(commit));
}
