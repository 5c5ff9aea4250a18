// SPDX-License-Identifier: GPL-2.0-only
/* trees.c: the trees table: kernel git trees kfleet clones and fetches
 * (the builder thread, orchestrator/builder.c, does the git work and
 * records what came of it here). */
#include "db/db.h"
#include "db/dbint.h"

#include <stddef.h>

#include "common/util.h"

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

const struct db_field db_tree_fields[] = {
	F(tree_row, id, INT), F(tree_row, name, TEXT), F(tree_row, url, TEXT),
	F(tree_row, branch, TEXT), F(tree_row, state, TEXT), F(tree_row, detail, TEXT),
	F(tree_row, head, TEXT), F(tree_row, fetch_wanted, INT), F(tree_row, added_at, TIME),
	F(tree_row, fetched_at, TIME), { NULL, 0, 0 },
};

int db_tree_add(struct db *db, const char *name, const char *url, const char *branch)
{
	if (dbi_exec(db, "INSERT INTO trees (name, url, branch, state, added_at)"
		     " VALUES (?, ?, ?, 'new', ?) ON CONFLICT (name) DO NOTHING",
		     DBI_TEXT(name), DBI_TEXT(url), DBI_TEXT(branch), DBI_INT(now_ms())) < 0)
		return -1;
	return sqlite3_changes(db->sql) ? 0 : 1;
}

int db_tree_get(struct db *db, const char *name, struct tree_row *t)
{
	sqlite3_stmt *st = dbi_select(db, db_tree_fields, "trees", "WHERE name = ?");

	if (st)
		dbi_bind(st, DBI_TEXT(name));
	return dbi_row_one(st, db_tree_fields, t, sizeof(*t));
}

int db_tree_list(struct db *db, struct tree_row **rows, size_t *n)
{
	return dbi_rows(dbi_select(db, db_tree_fields, "trees", "ORDER BY name"),
			db_tree_fields, sizeof(**rows), 10000, rows, n, NULL);
}

int db_tree_want_fetch(struct db *db, const char *name)
{
	if (dbi_exec(db, "UPDATE trees SET fetch_wanted = 1 WHERE name = ?", DBI_TEXT(name)) < 0)
		return -1;
	return sqlite3_changes(db->sql) ? 1 : 0;
}

int db_tree_next_fetch(struct db *db, struct tree_row *t)
{
	return dbi_row_one(dbi_select(db, db_tree_fields, "trees",
				      "WHERE fetch_wanted = 1 ORDER BY id LIMIT 1"),
			   db_tree_fields, t, sizeof(*t));
}

int db_tree_synced(struct db *db, const char *name, const char *head, const char *detail)
{
	return dbi_exec(db,
		"UPDATE trees SET fetch_wanted = 0, fetched_at = ?1,"
		" state = CASE WHEN ?2 IS NOT NULL THEN 'ready'"
		"              WHEN head IS NOT NULL THEN 'ready' ELSE 'error' END,"
		" head = coalesce(?2, head), detail = ?3 WHERE name = ?4",
		DBI_INT(now_ms()), DBI_TEXT(head), DBI_TEXT(detail), DBI_TEXT(name));
}
