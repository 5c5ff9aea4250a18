// SPDX-License-Identifier: GPL-2.0-only
/* builds.c: the builds table: kernels built from a tree's commit with a
 * config, keyed by their content (tree, commit, arch, config, toolchain)
 * so a build is made once; a done build registers its kernel. The
 * builder thread (orchestrator/builder.c) is the only writer. */
#include "db/db.h"
#include "db/dbint.h"

#include <stddef.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

/* The order of DBI_BUILD_COLUMNS, then a submission's side and reused */
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

#define BUILD_SELECT "SELECT " DBI_BUILD_COLUMNS " FROM builds b" \
	" LEFT JOIN kernels k ON k.id = b.kernel_id"

int db_build_find(struct db *db, const char *key, struct build_row *b)
{
	return dbi_row_one(dbi_stmt(db, BUILD_SELECT " WHERE b.key = ?", DBI_TEXT(key)),
			   db_build_fields, b, sizeof(*b));
}

int db_build_get(struct db *db, int64_t id, struct build_row *b)
{
	return dbi_row_one(dbi_stmt(db, BUILD_SELECT " WHERE b.id = ?", DBI_INT(id)),
			   db_build_fields, b, sizeof(*b));
}

int db_build_previous(struct db *db, const struct build_row *b, struct build_row *prev)
{
	return dbi_row_one(dbi_stmt(db, BUILD_SELECT " WHERE b.arch = ? AND b.config_hash = ?"
				    " AND b.state = 'done' AND b.id != ? ORDER BY b.ended_at DESC"
				    " LIMIT 1", DBI_TEXT(b->arch), DBI_TEXT(b->config_hash),
				    DBI_INT(b->id)),
			   db_build_fields, prev, sizeof(*prev));
}

int db_build_list(struct db *db, int limit, struct build_row **rows, size_t *n)
{
	return dbi_rows(dbi_stmt(db, BUILD_SELECT " ORDER BY b.id DESC LIMIT ?", DBI_INT(limit)),
			db_build_fields, sizeof(**rows), (size_t)limit, rows, n, NULL);
}

int db_build_start(struct db *db, const struct build_row *b, int64_t *id)
{
	return dbi_row_ints(dbi_stmt(db,
		"INSERT INTO builds (key, tree, commit_id, arch, config, config_hash, toolchain,"
		" state, dir, started_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'building', ?8, ?9)"
		" ON CONFLICT (key) DO UPDATE SET state = 'building', detail = NULL,"
		" errors = NULL, dropped = NULL, release = NULL, kernel_id = NULL,"
		" started_at = ?9, ended_at = NULL, ms = NULL RETURNING id",
		DBI_TEXT(b->key), DBI_TEXT(b->tree), DBI_TEXT(b->commit_id), DBI_TEXT(b->arch),
		DBI_TEXT(b->config), DBI_TEXT(b->config_hash), DBI_TEXT(b->toolchain),
		DBI_TEXT(b->dir), DBI_INT(now_ms())), id, 1) == 1 ? 0 : -1;
}

int db_build_done(struct db *db, int64_t id, const char *kernel_path, const char *sha256,
		  const char *release, const char *dropped, int64_t ms, int64_t commit_order)
{
	int64_t kid = 0;

	if (dbi_begin(db) < 0)
		return -1;
	if (dbi_row_ints(dbi_stmt(db,
		"INSERT INTO kernels (source, path, arch, sha256, tree, commit_id, config_hash,"
		" release, created_at, commit_order) SELECT 'built', ?1, arch, ?2, tree, commit_id,"
		" config_hash, ?3, ?4, ?6 FROM builds WHERE id = ?5"
		" ON CONFLICT (path, sha256) DO UPDATE SET source = 'built', tree = excluded.tree,"
		" commit_id = excluded.commit_id, config_hash = excluded.config_hash,"
		" release = excluded.release, commit_order = excluded.commit_order RETURNING id",
		DBI_TEXT(kernel_path), DBI_TEXT(sha256), DBI_TEXT(release), DBI_INT(now_ms()),
		DBI_INT(id), commit_order >= 0 ? DBI_INT(commit_order) : DBI_NULL), &kid, 1) < 0 ||
	    !kid)
		goto fail;
	if (dbi_exec(db, "UPDATE builds SET state = 'done', kernel_id = ?, release = ?,"
		     " dropped = ?, ended_at = ?, ms = ? WHERE id = ?", DBI_INT(kid),
		     DBI_TEXT(release), DBI_TEXT(dropped), DBI_INT(now_ms()), DBI_INT(ms),
		     DBI_INT(id)) < 0)
		goto fail;
	return dbi_commit(db);
fail:
	dbi_rollback(db);
	return -1;
}

int db_build_failed(struct db *db, int64_t id, const char *detail, const char *errors,
		    int64_t ms)
{
	return dbi_exec(db, "UPDATE builds SET state = 'failed', detail = ?,"
			" errors = ?, ended_at = ?, ms = ? WHERE id = ?", DBI_TEXT(detail),
			DBI_TEXT(errors), DBI_INT(now_ms()), DBI_INT(ms), DBI_INT(id));
}

int db_builds_recover(struct db *db)
{
	return dbi_step_done(dbi_prep(db, "UPDATE builds SET state = 'failed',"
				      " detail = 'interrupted: kfleetd stopped during the build',"
				      " ended_at = coalesce(ended_at, started_at)"
				      " WHERE state = 'building'"));
}
