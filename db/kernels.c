// SPDX-License-Identifier: GPL-2.0-only
/* kernels.c: the kernels table: every kernel image a run boots, imported
 * by path and content hash (or registered by a build, builds.c), and the
 * one-line label the pages and the CLI show for it. */
#include "db/db.h"
#include "db/dbint.h"

#include <stdio.h>
#include <string.h>

#include "common/util.h"

int db_kernel_import(struct db *db, const char *path, const char *arch,
		     const char *sha256, int64_t *id)
{
	int rc = dbi_row_ints(dbi_stmt(db,
		"INSERT INTO kernels (source, path, arch, sha256, created_at)"
		" VALUES ('imported', ?1, ?2, ?3, ?4)"
		" ON CONFLICT (path, sha256) DO UPDATE SET arch = arch RETURNING id",
		DBI_TEXT(path), DBI_TEXT(arch), DBI_TEXT(sha256), DBI_INT(now_ms())), id, 1);

	return rc == 1 ? 0 : -1;
}

int db_kernel_label(struct db *db, int64_t id, const char *suffix, char **label)
{
	sqlite3_stmt *st = dbi_stmt(db, "SELECT path, source, release, tree, commit_id"
				    " FROM kernels WHERE id = ?", DBI_INT(id));
	int rc = -1, s;

	*label = NULL;
	if (!st)
		return -1;
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
