// SPDX-License-Identifier: GPL-2.0-only
/* bisections.c: the bisections table, its steps and the submissions of
 * each step (bisections.h). The driver in bisect/ writes them one change a
 * transaction, so a restart finds every decided step as it was. */
#include "db/bisections.h"
#include "db/db.h"
#include "db/dbint.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define STEP_SELECT "SELECT id, bisection_id, n, commit_id, subject, author, role, answer, why," \
	" error, coalesce(commits_left, -1), coalesce(commit_order, -1), created_at, decided_at" \
	" FROM bisection_steps "

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field bisection_fields[] = {
	F(bisection, id, INT), F(bisection, created_at, TIME), F(bisection, ended_at, TIME),
	F(bisection, tree, TEXT), F(bisection, good, TEXT), F(bisection, bad, TEXT),
	F(bisection, good_spec, TEXT), F(bisection, bad_spec, TEXT), F(bisection, job, TEXT),
	F(bisection, kind, TEXT), F(bisection, target, TEXT), F(bisection, higher_better, INT32),
	F(bisection, arch, TEXT), F(bisection, vcpus, INT32), F(bisection, memory_mb, INT32),
	F(bisection, config, TEXT), F(bisection, fragments, TEXT), F(bisection, repeats, INT32),
	F(bisection, first_parent, INT32), F(bisection, state, TEXT), F(bisection, culprit, TEXT),
	F(bisection, candidates, TEXT), F(bisection, verdict, TEXT), F(bisection, detail, TEXT),
	F(bisection, revert, TEXT), F(bisection, has_change, HAS), F(bisection, change_pct, REAL),
	F(bisection, has_error, HAS), F(bisection, error, REAL), F(bisection, log, TEXT),
	{ NULL, 0, 0 },
};

/* bisection_fields' columns (a HAS field reads the column after it) */
#define BISECTION_SELECT "SELECT id, created_at, ended_at, tree, good, bad, good_spec," \
	" bad_spec, job, kind, target, higher_better, arch, vcpus, memory_mb, config," \
	" fragments, repeats, first_parent, state, culprit, candidates, verdict, detail," \
	" revert, change_pct, error, log FROM bisections "

static const struct db_field step_fields[] = {
	F(bisection_step, id, INT), F(bisection_step, bisection_id, INT),
	F(bisection_step, n, INT32), F(bisection_step, commit_id, TEXT),
	F(bisection_step, subject, TEXT), F(bisection_step, author, TEXT),
	F(bisection_step, role, TEXT),
	F(bisection_step, answer, TEXT), F(bisection_step, why, TEXT),
	F(bisection_step, has_error, HAS), F(bisection_step, error, REAL),
	F(bisection_step, commits_left, INT32), F(bisection_step, commit_order, INT),
	F(bisection_step, created_at, TIME), F(bisection_step, decided_at, TIME),
	{ NULL, 0, 0 },
};

static const struct db_field sub_fields[] = {
	F(bisection_sub, submission_id, INT), F(bisection_sub, state, TEXT),
	F(bisection_sub, outcome, TEXT), F(bisection_sub, detail, TEXT),
	F(bisection_sub, errors, TEXT), { NULL, 0, 0 },
};

static const struct db_field origin_fields[] = {
	F(request_origin, tree, TEXT), F(request_origin, base, TEXT),
	F(request_origin, patched, TEXT), F(request_origin, job, TEXT),
	F(request_origin, arch, TEXT), F(request_origin, config, TEXT),
	F(request_origin, fragments, TEXT), F(request_origin, vcpus, INT32),
	F(request_origin, memory_mb, INT32), { NULL, 0, 0 },
};

static const struct db_field run_fields[] = {
	F(bisection_run, run_id, INT), F(bisection_run, submission_id, INT),
	F(bisection_run, done, INT32), F(bisection_run, outcome, TEXT),
	F(bisection_run, splat, TEXT), F(bisection_run, test_status, TEXT),
	F(bisection_run, have_value, HAS), F(bisection_run, value, REAL), { NULL, 0, 0 },
};

/* NULL for NaN: REAL columns keep "not known" as NULL */
static struct dbi_arg real_or_null(double v)
{
	return isnan(v) ? DBI_NULL : DBI_REAL(v);
}

int db_bisection_insert(struct db *db, struct bisection *b)
{
	b->created_at = now_ms();
	if (dbi_exec(db, "INSERT INTO bisections (created_at, tree, good, bad, good_spec, bad_spec,"
		     " job, kind, target, higher_better, arch, vcpus, memory_mb, config, fragments,"
		     " repeats, first_parent, state) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
		     " ?, ?, ?, ?, 'ends')",
		     DBI_INT(b->created_at), DBI_TEXT(b->tree), DBI_TEXT(b->good), DBI_TEXT(b->bad),
		     DBI_TEXT(b->good_spec), DBI_TEXT(b->bad_spec), DBI_TEXT(b->job),
		     DBI_TEXT(b->kind), DBI_TEXT(b->target), DBI_INT(b->higher_better),
		     DBI_TEXT(b->arch), DBI_INT(b->vcpus), DBI_INT(b->memory_mb),
		     DBI_TEXT(b->config), DBI_TEXT(b->fragments), DBI_INT(b->repeats),
		     DBI_INT(b->first_parent)) < 0)
		return -1;
	b->id = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

static void nan_unless(struct bisection *b)
{
	if (!b->has_change)
		b->change_pct = NAN;
	if (!b->has_error)
		b->error = NAN;
}

int db_bisection_get(struct db *db, int64_t id, struct bisection *b)
{
	int rc = dbi_row_one(dbi_stmt(db, BISECTION_SELECT "WHERE id = ?", DBI_INT(id)),
			     bisection_fields, b, sizeof(*b));

	if (rc == 1)
		nan_unless(b);
	return rc;
}

void db_bisection_release(struct bisection *b)
{
	db_row_release(bisection_fields, b, sizeof(*b));
}

void db_bisection_free_rows(struct bisection *rows, size_t n)
{
	db_rows_free(bisection_fields, rows, sizeof(*rows), n);
}

int db_bisection_list(struct db *db, int active, int limit, struct bisection **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_stmt(db, active ? BISECTION_SELECT
		"WHERE state NOT IN ('done', 'failed', 'canceled') ORDER BY id LIMIT ?" :
		BISECTION_SELECT "ORDER BY id DESC LIMIT ?", DBI_INT(limit));
	int rc = dbi_rows(st, bisection_fields, sizeof(**rows), (size_t)limit, rows, n, NULL);

	for (size_t i = 0; rc == 0 && i < *n; i++)
		nan_unless(&(*rows)[i]);
	return rc;
}

int db_bisection_set_state(struct db *db, int64_t id, const char *state)
{
	return dbi_exec(db, "UPDATE bisections SET state = ? WHERE id = ?", DBI_TEXT(state),
			DBI_INT(id));
}

int db_bisection_end(struct db *db, int64_t id, const char *state, const char *culprit,
		     const char *candidates, const char *verdict, const char *detail,
		     double error)
{
	return dbi_exec(db, "UPDATE bisections SET state = ?, culprit = ?, candidates = ?,"
			" verdict = ?, detail = ?, error = ?, ended_at = ? WHERE id = ?",
			DBI_TEXT(state), DBI_TEXT(culprit), DBI_TEXT(candidates), DBI_TEXT(verdict),
			DBI_TEXT(detail), real_or_null(error),
			strcmp(state, "verifying") ? DBI_INT(now_ms()) : DBI_NULL, DBI_INT(id));
}

int db_bisection_set_revert(struct db *db, int64_t id, const char *revert, const char *verdict)
{
	return dbi_exec(db, "UPDATE bisections SET revert = ?, verdict = ? WHERE id = ?",
			DBI_TEXT(revert), DBI_TEXT(verdict), DBI_INT(id));
}

int db_bisection_set_log(struct db *db, int64_t id, const char *log)
{
	return dbi_exec(db, "UPDATE bisections SET log = ? WHERE id = ?", DBI_TEXT(log),
			DBI_INT(id));
}

int db_bisection_set_change(struct db *db, int64_t id, double change_pct)
{
	return dbi_exec(db, "UPDATE bisections SET change_pct = ? WHERE id = ?",
			real_or_null(change_pct), DBI_INT(id));
}

int db_bisection_set_target(struct db *db, int64_t id, const char *target)
{
	return dbi_exec(db, "UPDATE bisections SET target = ? WHERE id = ?", DBI_TEXT(target),
			DBI_INT(id));
}

int db_bisection_step_add(struct db *db, int64_t bisection_id, int n, const char *commit,
			  const char *subject, const char *author, const char *role,
			  int commits_left, int64_t order, int64_t *id)
{
	if (dbi_exec(db, "INSERT INTO bisection_steps (bisection_id, n, commit_id, subject, author,"
		     " role, commits_left, commit_order, created_at)"
		     " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
		     DBI_INT(bisection_id), DBI_INT(n), DBI_TEXT(commit), DBI_TEXT(subject),
		     DBI_TEXT(author),
		     DBI_TEXT(role), commits_left >= 0 ? DBI_INT(commits_left) : DBI_NULL,
		     order >= 0 ? DBI_INT(order) : DBI_NULL, DBI_INT(now_ms())) < 0)
		return -1;
	*id = sqlite3_last_insert_rowid(db->sql);
	return 0;
}

int db_bisection_steps(struct db *db, int64_t bisection_id, struct bisection_step **rows,
		       size_t *n)
{
	int rc = dbi_rows(dbi_stmt(db, STEP_SELECT "WHERE bisection_id = ? ORDER BY n",
				   DBI_INT(bisection_id)),
			  step_fields, sizeof(**rows), 100000, rows, n, NULL);

	for (size_t i = 0; rc == 0 && i < *n; i++)
		if (!(*rows)[i].has_error)
			(*rows)[i].error = NAN;
	return rc;
}

void db_bisection_steps_free(struct bisection_step *rows, size_t n)
{
	db_rows_free(step_fields, rows, sizeof(*rows), n);
}

int db_bisection_step_decide(struct db *db, int64_t step_id, const char *answer,
			     const char *why, double error)
{
	return dbi_exec(db, "UPDATE bisection_steps SET answer = ?, why = ?, error = ?,"
			" decided_at = ? WHERE id = ? AND answer IS NULL",
			DBI_TEXT(answer), DBI_TEXT(why), real_or_null(error), DBI_INT(now_ms()),
			DBI_INT(step_id));
}

int db_bisection_step_link(struct db *db, int64_t step_id, int64_t submission_id)
{
	return dbi_exec(db, "INSERT OR IGNORE INTO bisection_submissions (step_id, submission_id)"
			" VALUES (?, ?)", DBI_INT(step_id), DBI_INT(submission_id));
}

int db_bisection_step_subs(struct db *db, int64_t step_id, struct bisection_sub **rows,
			   size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT s.id, s.state, s.outcome, s.detail,"
				 " (SELECT b.errors FROM submission_builds sb"
				 "   JOIN builds b ON b.id = sb.build_id"
				 "   WHERE sb.submission_id = s.id AND b.state = 'failed'"
				 "   AND b.errors IS NOT NULL AND b.errors != '' LIMIT 1)"
				 " FROM bisection_submissions bs"
				 " JOIN submissions s ON s.id = bs.submission_id"
				 " WHERE bs.step_id = ? ORDER BY s.id", DBI_INT(step_id)),
			sub_fields, sizeof(**rows), 100000, rows, n, NULL);
}

void db_bisection_subs_free(struct bisection_sub *rows, size_t n)
{
	db_rows_free(sub_fields, rows, sizeof(*rows), n);
}

int db_bisection_step_runs(struct db *db, int64_t step_id, const char *test, const char *metric,
			   struct bisection_run **rows, size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT r.id, bs.submission_id, r.state = 'done', r.outcome,"
				 " r.splat,"
				 " (SELECT status FROM results WHERE run_id = r.id AND path = ?1"
				 "   ORDER BY id LIMIT 1),"
				 " (SELECT avg(value) FROM samples WHERE run_id = r.id AND metric = ?2)"
				 " FROM bisection_submissions bs JOIN runs r"
				 "   ON r.submission_id = bs.submission_id"
				 "   OR r.id IN (SELECT r2.id FROM requests q JOIN runs r2"
				 "     ON r2.request_id = q.id AND r2.kernel_id = q.patched_kernel_id"
				 "     WHERE q.submission_id = bs.submission_id)"
				 " WHERE bs.step_id = ?3 ORDER BY r.id",
				 DBI_TEXT(test), DBI_TEXT(metric), DBI_INT(step_id)),
			run_fields, sizeof(**rows), 100000, rows, n, NULL);
}

void db_bisection_runs_free(struct bisection_run *rows, size_t n)
{
	db_rows_free(run_fields, rows, sizeof(*rows), n);
}

/* The submissions of bisection ?2 (0: of every canceled bisection) */
#define SUBS_OF "(SELECT bs.submission_id FROM bisection_submissions bs" \
	" JOIN bisection_steps st ON st.id = bs.step_id JOIN bisections b ON b.id = st.bisection_id" \
	" WHERE b.id = ?2 OR (?2 = 0 AND b.state = 'canceled'))"

int db_bisection_cancel_runs(struct db *db, int64_t bisection_id)
{
	if (dbi_exec(db, "UPDATE runs SET state = 'done', outcome = 'canceled',"
		     " detail = 'the bisection was canceled', ended_at = ?1"
		     " WHERE state = 'queued' AND (submission_id IN " SUBS_OF
		     "   OR request_id IN (SELECT id FROM requests WHERE submission_id IN " SUBS_OF "))",
		     DBI_INT(now_ms()), DBI_INT(bisection_id)) < 0)
		return -1;
	return sqlite3_changes(db->sql);
}

int db_bisection_spec_add(struct db *db, int64_t bisection_id, int64_t submission_id,
			  const char *commit)
{
	return dbi_exec(db, "INSERT INTO bisection_speculations (bisection_id, submission_id,"
			" commit_id) VALUES (?, ?, ?)", DBI_INT(bisection_id), DBI_INT(submission_id),
			DBI_TEXT(commit));
}

int db_bisection_spec_has(struct db *db, int64_t bisection_id, const char *commit)
{
	int64_t n = 0;

	if (dbi_row_ints(dbi_stmt(db, "SELECT count(*) FROM bisection_speculations"
				  " WHERE bisection_id = ? AND commit_id = ?", DBI_INT(bisection_id),
				  DBI_TEXT(commit)), &n, 1) < 0)
		return -1;
	return n > 0;
}

int db_bisection_spec_drop(struct db *db, int64_t bisection_id, const char *keep)
{
	if (dbi_exec(db, "UPDATE submissions SET state = 'done', ended_at = ?1,"
		     " detail = 'not needed: the bisection went the other way, or ended'"
		     " WHERE state = 'queued' AND speculative = 1 AND id IN"
		     " (SELECT sp.submission_id FROM bisection_speculations sp"
		     "  JOIN bisections b ON b.id = sp.bisection_id"
		     "  WHERE (sp.bisection_id = ?2 AND (?3 IS NULL OR sp.commit_id != ?3))"
		     "     OR (?2 = 0 AND b.state IN ('done', 'failed', 'canceled')))",
		     DBI_INT(now_ms()), DBI_INT(bisection_id), DBI_TEXT(keep)) < 0)
		return -1;
	return sqlite3_changes(db->sql);
}

int db_request_origin(struct db *db, int64_t request_id, struct request_origin *o)
{
	int rc = dbi_row_one(dbi_stmt(db, "SELECT s.tree, s.base_commit, s.patched_commit, q.job,"
				      " r.arch, s.config, s.fragments, r.vcpus, s.memory_mb"
				      " FROM requests q JOIN submissions s ON s.id = q.submission_id"
				      " JOIN runs r ON r.request_id = q.id"
				      " WHERE q.id = ? ORDER BY r.id LIMIT 1", DBI_INT(request_id)),
			     origin_fields, o, sizeof(*o));

	if (rc == 1 && (!o->base || !o->patched)) {
		db_request_origin_release(o);
		return 0;
	}
	return rc;
}

void db_request_origin_release(struct request_origin *o)
{
	db_row_release(origin_fields, o, sizeof(*o));
}
