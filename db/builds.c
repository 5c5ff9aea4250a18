/* builds.c: the database side of turning a tree and a series into kernels:
 * trees to clone, submissions (a series or a commit to build and test),
 * builds keyed by their content, and the links from a submission to its
 * builds and requests. The builder thread (orchestrator/builder.c) is the
 * only writer after the API inserts. */
#include "db/dbint.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

const struct db_field db_tree_fields[] = {
	F(tree_row, id, INT), F(tree_row, name, TEXT), F(tree_row, url, TEXT),
	F(tree_row, branch, TEXT), F(tree_row, state, TEXT), F(tree_row, detail, TEXT),
	F(tree_row, head, TEXT), F(tree_row, fetch_wanted, INT), F(tree_row, added_at, TIME),
	F(tree_row, fetched_at, TIME), { NULL, 0, 0 },
};

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
	F(submission, ended_at, TIME), F(submission, kernel, TEXT), { NULL, 0, 0 },
};

/* The order of BUILD_COLUMNS */
const struct db_field db_build_fields[] = {
	F(build_row, id, INT), F(build_row, key, TEXT), F(build_row, tree, TEXT),
	F(build_row, commit_id, TEXT), F(build_row, arch, TEXT), F(build_row, config, TEXT),
	F(build_row, config_hash, TEXT), F(build_row, toolchain, TEXT), F(build_row, state, TEXT),
	F(build_row, detail, TEXT), F(build_row, errors, TEXT), F(build_row, dropped, TEXT),
	F(build_row, dir, TEXT), F(build_row, release, TEXT), F(build_row, kernel_id, INT),
	F(build_row, kernel_path, TEXT), F(build_row, started_at, TIME),
	F(build_row, ended_at, TIME), F(build_row, ms, INT), F(build_row, side, TEXT),
	F(build_row, reused, INT), { NULL, 0, 0 },
};

#define BUILD_COLUMNS \
	"b.id, b.key, b.tree, b.commit_id, b.arch, b.config, b.config_hash, b.toolchain," \
	" b.state, b.detail, b.errors, b.dropped, b.dir, b.release, b.kernel_id, k.path," \
	" b.started_at, b.ended_at, b.ms"

void db_row_release(const struct db_field *fields, void *row, size_t size)
{
	for (const struct db_field *f = fields; f->name; f++)
		if (f->type == DB_FIELD_TEXT)
			free(*(char **)((char *)row + f->offset));
	memset(row, 0, size);
}

void db_rows_free(const struct db_field *fields, void *rows, size_t size, size_t n)
{
	for (size_t i = 0; i < n; i++)
		db_row_release(fields, (char *)rows + i * size, size);
	free(rows);
}

/* Fills row from the statement's columns, which follow fields in order */
static void row_fill(sqlite3_stmt *st, const struct db_field *fields, void *row, size_t size)
{
	int ncol = sqlite3_column_count(st), i = 0;

	memset(row, 0, size);
	for (const struct db_field *f = fields; f->name && i < ncol; f++, i++) {
		void *p = (char *)row + f->offset;

		if (f->type == DB_FIELD_TEXT)
			*(char **)p = dbi_col_text(st, i);
		else
			*(int64_t *)p = sqlite3_column_int64(st, i);
	}
}

/* "SELECT a, b, ... FROM table" for a field table, then the rest */
static sqlite3_stmt *select_all(struct db *db, const struct db_field *fields, const char *table,
				const char *rest)
{
	struct buf b = BUF_INIT(0);
	sqlite3_stmt *st;

	buf_puts(&b, "SELECT ");
	for (const struct db_field *f = fields; f->name; f++)
		buf_printf(&b, "%s%s", f == fields ? "" : ", ", f->name);
	buf_printf(&b, " FROM %s %s", table, rest);
	st = dbi_prep(db, buf_str(&b));
	buf_release(&b);
	return st;
}

/* Steps st into rows of size; at most limit. 0 / -1; finalizes st */
static int rows_collect(sqlite3_stmt *st, const struct db_field *fields, size_t size,
			size_t limit, void **rows, size_t *n)
{
	size_t alloc = 0;
	char *v = NULL;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	while (*n < limit && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			size_t na = alloc ? alloc * 2 : 16;
			char *nv = realloc(v, na * size);

			if (!nv)
				goto fail;
			v = nv;
			alloc = na;
		}
		row_fill(st, fields, v + *n * size, size);
		(*n)++;
	}
	sqlite3_finalize(st);
	*rows = v;
	return 0;
fail:
	sqlite3_finalize(st);
	db_rows_free(fields, v, size, *n);
	*n = 0;
	return -1;
}

/* One row: 1 found, 0 not, -1 error; finalizes st */
static int row_one(sqlite3_stmt *st, const struct db_field *fields, void *row, size_t size)
{
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		row_fill(st, fields, row, size);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* --- trees -------------------------------------------------------------- */

int db_tree_add(struct db *db, const char *name, const char *url, const char *branch)
{
	sqlite3_stmt *st = dbi_prep(db, "INSERT INTO trees (name, url, branch, state, added_at)"
				    " VALUES (?, ?, ?, 'new', ?) ON CONFLICT (name) DO NOTHING");
	int rc;

	if (!st)
		return -1;
	dbi_bind_text(st, 1, name);
	dbi_bind_text(st, 2, url);
	dbi_bind_text(st, 3, branch);
	sqlite3_bind_int64(st, 4, now_ms());
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	return sqlite3_changes(db->sql) ? 0 : 1;
}

int db_tree_get(struct db *db, const char *name, struct tree_row *t)
{
	sqlite3_stmt *st = select_all(db, db_tree_fields, "trees", "WHERE name = ?");

	if (st)
		dbi_bind_text(st, 1, name);
	return row_one(st, db_tree_fields, t, sizeof(*t));
}

int db_tree_list(struct db *db, struct tree_row **rows, size_t *n)
{
	return rows_collect(select_all(db, db_tree_fields, "trees", "ORDER BY name"),
			    db_tree_fields, sizeof(**rows), 10000, (void **)rows, n);
}

int db_tree_want_fetch(struct db *db, const char *name)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE trees SET fetch_wanted = 1 WHERE name = ?");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, name);
	if (dbi_step_done(st) < 0)
		return -1;
	return sqlite3_changes(db->sql) ? 1 : 0;
}

int db_tree_next_fetch(struct db *db, struct tree_row *t)
{
	return row_one(select_all(db, db_tree_fields, "trees",
				  "WHERE fetch_wanted = 1 ORDER BY id LIMIT 1"),
		       db_tree_fields, t, sizeof(*t));
}

int db_tree_synced(struct db *db, const char *name, const char *head, const char *detail)
{
	sqlite3_stmt *st = dbi_prep(db,
		"UPDATE trees SET fetch_wanted = 0, fetched_at = ?1,"
		" state = CASE WHEN ?2 IS NOT NULL THEN 'ready'"
		"              WHEN head IS NOT NULL THEN 'ready' ELSE 'error' END,"
		" head = coalesce(?2, head), detail = ?3 WHERE name = ?4");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now_ms());
	dbi_bind_text(st, 2, head);
	dbi_bind_text(st, 3, detail);
	dbi_bind_text(st, 4, name);
	return dbi_step_done(st);
}

/* --- submissions -------------------------------------------------------- */

int db_submission_insert(struct db *db, struct submission *s)
{
	sqlite3_stmt *st = dbi_prep(db,
		"INSERT INTO submissions (created_at, tree, series_name, series_subject,"
		" series_json, series_count, mbox_path, base_spec, arches, config, fragments,"
		" jobs, vcpus, repeats, memory_mb, kernel, state)"
		" VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued') RETURNING id");
	int rc = -1;

	if (!st)
		return -1;
	s->created_at = now_ms();
	sqlite3_bind_int64(st, 1, s->created_at);
	dbi_bind_text(st, 2, s->tree);
	dbi_bind_text(st, 3, s->series_name);
	dbi_bind_text(st, 4, s->series_subject);
	dbi_bind_text(st, 5, s->series_json);
	sqlite3_bind_int64(st, 6, s->series_count);
	dbi_bind_text(st, 7, s->mbox_path);
	dbi_bind_text(st, 8, s->base_spec);
	dbi_bind_text(st, 9, s->arches);
	dbi_bind_text(st, 10, s->config);
	dbi_bind_text(st, 11, s->fragments);
	dbi_bind_text(st, 12, s->jobs);
	dbi_bind_text(st, 13, s->vcpus);
	sqlite3_bind_int64(st, 14, s->repeats > 0 ? s->repeats : 1);
	sqlite3_bind_int64(st, 15, s->memory_mb);
	dbi_bind_text(st, 16, s->kernel);
	if (sqlite3_step(st) == SQLITE_ROW) {
		s->id = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_submission_get(struct db *db, int64_t id, struct submission *s)
{
	sqlite3_stmt *st = select_all(db, db_submission_fields, "submissions", "WHERE id = ?");

	if (st)
		sqlite3_bind_int64(st, 1, id);
	return row_one(st, db_submission_fields, s, sizeof(*s));
}

int db_submission_list(struct db *db, int limit, struct submission **rows, size_t *n)
{
	sqlite3_stmt *st = select_all(db, db_submission_fields, "submissions",
				      "ORDER BY id DESC LIMIT ?");

	if (st)
		sqlite3_bind_int(st, 1, limit);
	return rows_collect(st, db_submission_fields, sizeof(**rows), (size_t)limit,
			    (void **)rows, n);
}

int db_submission_next(struct db *db, struct submission *s)
{
	sqlite3_stmt *st = dbi_prep(db,
		"UPDATE submissions SET state = 'building', started_at = coalesce(started_at, ?)"
		" WHERE id = (SELECT id FROM submissions WHERE state IN ('queued','building')"
		" ORDER BY id LIMIT 1) RETURNING id");
	int64_t id;
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, now_ms());
	rc = sqlite3_step(st);
	id = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return -1;
	return db_submission_get(db, id, s);
}

static int update_text2(struct db *db, const char *sql, int64_t id, const char *a, const char *b)
{
	sqlite3_stmt *st = dbi_prep(db, sql);

	if (!st)
		return -1;
	dbi_bind_text(st, 1, a);
	dbi_bind_text(st, 2, b);
	sqlite3_bind_int64(st, 3, id);
	return dbi_step_done(st);
}

int db_submission_set_base(struct db *db, int64_t id, const char *commit, const char *why)
{
	return update_text2(db, "UPDATE submissions SET base_commit = ?1, base_why = ?2"
			    " WHERE id = ?3", id, commit, why);
}

int db_submission_set_patched(struct db *db, int64_t id, const char *commit)
{
	return update_text2(db, "UPDATE submissions SET patched_commit = ?1,"
			    " base_why = coalesce(?2, base_why) WHERE id = ?3", id, commit, NULL);
}

int db_submission_end(struct db *db, int64_t id, const char *state, const char *outcome,
		      const char *detail, const char *apply_log)
{
	sqlite3_stmt *st = dbi_prep(db,
		"UPDATE submissions SET state = ?, outcome = ?, detail = ?,"
		" apply_log = coalesce(?, apply_log), ended_at = ? WHERE id = ?");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, state);
	dbi_bind_text(st, 2, outcome);
	dbi_bind_text(st, 3, detail);
	dbi_bind_text(st, 4, apply_log);
	sqlite3_bind_int64(st, 5, now_ms());
	sqlite3_bind_int64(st, 6, id);
	return dbi_step_done(st);
}

int db_submission_link_build(struct db *db, int64_t id, const char *side, const char *arch,
			     int64_t build_id, int reused)
{
	sqlite3_stmt *st = dbi_prep(db,
		"INSERT INTO submission_builds (submission_id, side, arch, build_id, reused)"
		" VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT (submission_id, side, arch)"
		" DO UPDATE SET build_id = ?4, reused = ?5");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	dbi_bind_text(st, 2, side);
	dbi_bind_text(st, 3, arch);
	sqlite3_bind_int64(st, 4, build_id);
	sqlite3_bind_int(st, 5, reused);
	return dbi_step_done(st);
}

int db_submission_link_request(struct db *db, int64_t id, int64_t request_id)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE requests SET submission_id = ? WHERE id = ?");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, request_id);
	return dbi_step_done(st);
}

int db_submission_link_run(struct db *db, int64_t id, int64_t run_id)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE runs SET submission_id = ? WHERE id = ?");

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int64(st, 2, run_id);
	return dbi_step_done(st);
}

int db_submission_progress(struct db *db, int64_t id, int *runs, int *done)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT count(*), coalesce(sum(state = 'done'), 0) FROM runs WHERE submission_id = ?1"
		" OR request_id IN (SELECT id FROM requests WHERE submission_id = ?1)");
	int rc;

	*runs = *done = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*runs = sqlite3_column_int(st, 0);
		*done = sqlite3_column_int(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

int db_submission_builds(struct db *db, int64_t id, struct build_row **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_prep(db,
		"SELECT " BUILD_COLUMNS ", sb.side, sb.reused FROM submission_builds sb"
		" JOIN builds b ON b.id = sb.build_id LEFT JOIN kernels k ON k.id = b.kernel_id"
		" WHERE sb.submission_id = ? ORDER BY sb.arch, sb.side");

	if (st)
		sqlite3_bind_int64(st, 1, id);
	return rows_collect(st, db_build_fields, sizeof(**rows), 1000, (void **)rows, n);
}

/* The ids the statement returns (one column, bound to id), at most max */
static int ids_collect(sqlite3_stmt *st, int64_t id, size_t max, int64_t **ids, size_t *n)
{
	size_t alloc = 0;
	int rc = SQLITE_DONE;

	*ids = NULL;
	*n = 0;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	while (*n < max && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == alloc) {
			size_t na = alloc ? alloc * 2 : 8;
			int64_t *nv = realloc(*ids, na * sizeof(**ids));

			if (!nv) {
				rc = SQLITE_NOMEM;
				break;
			}
			*ids = nv;
			alloc = na;
		}
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (*n < max && rc != SQLITE_DONE) {
		free(*ids);
		*ids = NULL;
		*n = 0;
		return -1;
	}
	return 0;
}

int db_submission_runs(struct db *db, int64_t id, size_t max, int64_t **ids, size_t *n)
{
	return ids_collect(dbi_prep(db, "SELECT id FROM runs WHERE submission_id = ? ORDER BY id"),
			   id, max, ids, n);
}

int db_submission_requests(struct db *db, int64_t id, int64_t **ids, size_t *n)
{
	return ids_collect(dbi_prep(db, "SELECT id FROM requests WHERE submission_id = ?"
				    " ORDER BY id"), id, 10000, ids, n);
}

/* --- applies ------------------------------------------------------------ */

int db_apply_find(struct db *db, const char *tree, const char *base, const char *series_hash,
		  char commit[41])
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT commit_id FROM applies WHERE tree = ?"
				    " AND base_commit = ? AND series_hash = ?");
	int rc;

	if (!st)
		return -1;
	dbi_bind_text(st, 1, tree);
	dbi_bind_text(st, 2, base);
	dbi_bind_text(st, 3, series_hash);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		snprintf(commit, 41, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int db_apply_record(struct db *db, const char *tree, const char *base,
		    const char *series_hash, const char *commit)
{
	sqlite3_stmt *st = dbi_prep(db, "INSERT OR REPLACE INTO applies (tree, base_commit,"
				    " series_hash, commit_id) VALUES (?, ?, ?, ?)");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, tree);
	dbi_bind_text(st, 2, base);
	dbi_bind_text(st, 3, series_hash);
	dbi_bind_text(st, 4, commit);
	return dbi_step_done(st);
}

/* --- builds ------------------------------------------------------------- */

int db_build_find(struct db *db, const char *key, struct build_row *b)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT " BUILD_COLUMNS " FROM builds b"
				    " LEFT JOIN kernels k ON k.id = b.kernel_id WHERE b.key = ?");

	if (st)
		dbi_bind_text(st, 1, key);
	return row_one(st, db_build_fields, b, sizeof(*b));
}

int db_build_get(struct db *db, int64_t id, struct build_row *b)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT " BUILD_COLUMNS " FROM builds b"
				    " LEFT JOIN kernels k ON k.id = b.kernel_id WHERE b.id = ?");

	if (st)
		sqlite3_bind_int64(st, 1, id);
	return row_one(st, db_build_fields, b, sizeof(*b));
}

int db_build_list(struct db *db, int limit, struct build_row **rows, size_t *n)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT " BUILD_COLUMNS " FROM builds b"
				    " LEFT JOIN kernels k ON k.id = b.kernel_id"
				    " ORDER BY b.id DESC LIMIT ?");

	if (st)
		sqlite3_bind_int(st, 1, limit);
	return rows_collect(st, db_build_fields, sizeof(**rows), (size_t)limit, (void **)rows, n);
}

int db_build_start(struct db *db, const struct build_row *b, int64_t *id)
{
	sqlite3_stmt *st = dbi_prep(db,
		"INSERT INTO builds (key, tree, commit_id, arch, config, config_hash, toolchain,"
		" state, dir, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'building', ?8, ?9)"
		" ON CONFLICT (key) DO UPDATE SET state = 'building', detail = NULL,"
		" errors = NULL, dropped = NULL, release = NULL, kernel_id = NULL,"
		" started_at = ?9, ended_at = NULL, ms = NULL RETURNING id");
	int rc = -1;

	if (!st)
		return -1;
	dbi_bind_text(st, 1, b->key);
	dbi_bind_text(st, 2, b->tree);
	dbi_bind_text(st, 3, b->commit_id);
	dbi_bind_text(st, 4, b->arch);
	dbi_bind_text(st, 5, b->config);
	dbi_bind_text(st, 6, b->config_hash);
	dbi_bind_text(st, 7, b->toolchain);
	dbi_bind_text(st, 8, b->dir);
	sqlite3_bind_int64(st, 9, now_ms());
	if (sqlite3_step(st) == SQLITE_ROW) {
		*id = sqlite3_column_int64(st, 0);
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_build_done(struct db *db, int64_t id, const char *kernel_path, const char *sha256,
		  const char *release, const char *dropped, int64_t ms, int64_t commit_order)
{
	sqlite3_stmt *st;
	int64_t kid = 0;

	if (dbi_step_done(dbi_prep(db, "BEGIN IMMEDIATE")) < 0)
		return -1;
	st = dbi_prep(db,
		"INSERT INTO kernels (source, path, arch, sha256, tree, commit_id, config_hash,"
		" release, created_at, commit_order) SELECT 'built', ?1, arch, ?2, tree, commit_id,"
		" config_hash, ?3, ?4, ?6 FROM builds WHERE id = ?5"
		" ON CONFLICT (path, sha256) DO UPDATE SET source = 'built', tree = excluded.tree,"
		" commit_id = excluded.commit_id, config_hash = excluded.config_hash,"
		" release = excluded.release, commit_order = excluded.commit_order RETURNING id");
	if (!st)
		goto fail;
	dbi_bind_text(st, 1, kernel_path);
	dbi_bind_text(st, 2, sha256);
	dbi_bind_text(st, 3, release);
	sqlite3_bind_int64(st, 4, now_ms());
	sqlite3_bind_int64(st, 5, id);
	if (commit_order >= 0)
		sqlite3_bind_int64(st, 6, commit_order);
	if (sqlite3_step(st) == SQLITE_ROW)
		kid = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (!kid)
		goto fail;
	st = dbi_prep(db, "UPDATE builds SET state = 'done', kernel_id = ?, release = ?,"
		      " dropped = ?, ended_at = ?, ms = ? WHERE id = ?");
	if (!st)
		goto fail;
	sqlite3_bind_int64(st, 1, kid);
	dbi_bind_text(st, 2, release);
	dbi_bind_text(st, 3, dropped);
	sqlite3_bind_int64(st, 4, now_ms());
	sqlite3_bind_int64(st, 5, ms);
	sqlite3_bind_int64(st, 6, id);
	if (dbi_step_done(st) < 0)
		goto fail;
	return dbi_step_done(dbi_prep(db, "COMMIT"));
fail:
	dbi_step_done(dbi_prep(db, "ROLLBACK"));
	return -1;
}

int db_build_failed(struct db *db, int64_t id, const char *detail, const char *errors,
		    int64_t ms)
{
	sqlite3_stmt *st = dbi_prep(db, "UPDATE builds SET state = 'failed', detail = ?,"
				    " errors = ?, ended_at = ?, ms = ? WHERE id = ?");

	if (!st)
		return -1;
	dbi_bind_text(st, 1, detail);
	dbi_bind_text(st, 2, errors);
	sqlite3_bind_int64(st, 3, now_ms());
	sqlite3_bind_int64(st, 4, ms);
	sqlite3_bind_int64(st, 5, id);
	return dbi_step_done(st);
}

int db_builds_recover(struct db *db)
{
	return dbi_step_done(dbi_prep(db, "UPDATE builds SET state = 'failed',"
				      " detail = 'interrupted: kfleetd stopped during the build',"
				      " ended_at = coalesce(ended_at, started_at)"
				      " WHERE state = 'building'"));
}

int db_kernel_label(struct db *db, int64_t id, const char *suffix, char **label)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT path, source, release, tree, commit_id"
				    " FROM kernels WHERE id = ?");
	int rc = -1, s;

	*label = NULL;
	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	s = sqlite3_step(st);
	if (s == SQLITE_ROW) {
		const char *p = (const char *)sqlite3_column_text(st, 0), *base;
		const char *src = (const char *)sqlite3_column_text(st, 1);
		const char *rel = (const char *)sqlite3_column_text(st, 2);
		const char *tree = (const char *)sqlite3_column_text(st, 3);
		const char *commit = (const char *)sqlite3_column_text(st, 4);

		base = p ? strrchr(p, '/') : NULL;
		base = base ? base + 1 : p ? p : "?";
		if (src && !strcmp(src, "built") && rel && tree && commit)
			rc = asprintf(label, "kernel %lld (%.100s, %.64s %.12s)%s", (long long)id,
				      rel, tree, commit, suffix) < 0 ? -1 : 1;
		else
			rc = asprintf(label, "kernel %lld (%.100s)%s", (long long)id, base,
				      suffix) < 0 ? -1 : 1;
	} else if (s == SQLITE_DONE) {
		rc = 0;
	}
	sqlite3_finalize(st);
	return rc;
}

int db_request_submission(struct db *db, int64_t request_id, int64_t *submission_id)
{
	sqlite3_stmt *st = dbi_prep(db, "SELECT submission_id FROM requests WHERE id = ?"
				    " AND submission_id IS NOT NULL");
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, request_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*submission_id = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}
