// SPDX-License-Identifier: GPL-2.0-only
/* storage.c: the storage pass's rows (orchestrator/storage.c): the runs
 * whose directories it looks at, page by page, and the files it pruned,
 * which the run page and its JSON list so a missing file says why. */
#include "db/db.h"
#include "db/dbint.h"

#include <stddef.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

const struct db_field db_pruned_fields[] = {
	F(db_pruned, id, INT), F(db_pruned, run_id, INT), F(db_pruned, dir, TEXT),
	F(db_pruned, name, TEXT), F(db_pruned, bytes, INT), F(db_pruned, pruned_at, TIME),
	F(db_pruned, why, TEXT), { NULL, 0, 0 },
};

const struct db_field db_storage_run_fields[] = {
	F(db_storage_run, id, INT), F(db_storage_run, state, TEXT),
	F(db_storage_run, ended_at, TIME), F(db_storage_run, run_dir, TEXT), { NULL, 0, 0 },
};

const struct db_field db_storage_kernel_fields[] = {
	F(db_storage_kernel, path, TEXT), { NULL, 0, 0 },
};

int db_storage_kernels_busy(struct db *db, size_t max, struct db_storage_kernel **v, size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT DISTINCT k.path FROM runs r JOIN kernels k"
				 " ON k.id = r.kernel_id WHERE r.state != 'done'"
				 " UNION SELECT b.dir || '/vmlinuz' FROM builds b"
				 " JOIN submission_builds sb ON sb.build_id = b.id"
				 " JOIN submissions s ON s.id = sb.submission_id"
				 " WHERE s.state IN ('queued', 'building') LIMIT ?1",
				 DBI_INT((int64_t)max)),
			db_storage_kernel_fields, sizeof(**v), max, v, n, NULL);
}

int db_pruned_add(struct db *db, int64_t run_id, const char *dir, const char *name,
		  int64_t bytes, const char *why)
{
	return dbi_exec(db, "INSERT INTO pruned_files (run_id, dir, name, bytes, pruned_at, why)"
			" VALUES (?1, ?2, ?3, ?4, ?5, ?6)", DBI_OPT(run_id), DBI_TEXT(dir),
			DBI_TEXT(name), DBI_INT(bytes), DBI_INT(now_ms()), DBI_TEXT(why));
}

int db_pruned_list(struct db *db, int64_t run_id, size_t max, struct db_pruned **v,
		   size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT id, run_id, dir, name, bytes, pruned_at, why"
				 " FROM pruned_files WHERE run_id = ?1 ORDER BY id",
				 DBI_INT(run_id)),
			db_pruned_fields, sizeof(**v), max, v, n, NULL);
}

int db_storage_runs(struct db *db, int64_t after, size_t max, struct db_storage_run **v,
		    size_t *n)
{
	return dbi_rows(dbi_stmt(db, "SELECT id, state, ended_at, run_dir FROM runs"
				 " WHERE id > ?1 AND run_dir IS NOT NULL ORDER BY id LIMIT ?2",
				 DBI_INT(after), DBI_INT((int64_t)max)),
			db_storage_run_fields, sizeof(**v), max, v, n, NULL);
}
