/* SPDX-License-Identifier: GPL-2.0-only */
/* dbint.h: what only db/ itself sees: the connection struct, the
 * statement helpers (db.c), the row mapper (row.c) and the pieces one
 * table's file lends another. The table files (runs.c, results.c, ...)
 * sit on these; db.h and query.h are what the rest of kfleet sees.
 * Include it after db/db.h. */
#ifndef KF_DBINT_H
#define KF_DBINT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct db_field;
struct run_request;

struct db {
	sqlite3 *sql;
	char instance[17];
};

/* --- statements (db.c) ----------------------------------------------------
 * A statement's parameters as a list: dbi_stmt(db, sql, DBI_INT(id),
 * DBI_TEXT(name)) binds ?1, ?2, ... in order. Strings are copied. */
enum dbi_arg_type { DBI_ARG_INT, DBI_ARG_OPT, DBI_ARG_REAL, DBI_ARG_TEXT, DBI_ARG_NULL };
struct dbi_arg {
	enum dbi_arg_type type;
	union {
		int64_t i;
		double d;
		const char *s;
	};
};
#define DBI_INT(x)  ((struct dbi_arg){ .type = DBI_ARG_INT, .i = (x) })
#define DBI_OPT(x)  ((struct dbi_arg){ .type = DBI_ARG_OPT, .i = (x) })   /* 0 binds NULL */
#define DBI_REAL(x) ((struct dbi_arg){ .type = DBI_ARG_REAL, .d = (x) })
#define DBI_TEXT(x) ((struct dbi_arg){ .type = DBI_ARG_TEXT, .s = (x) })  /* NULL binds NULL */
#define DBI_NULL    ((struct dbi_arg){ .type = DBI_ARG_NULL })
#define DBI_ARGS_(...) (const struct dbi_arg[]){ __VA_ARGS__ }, \
	sizeof((const struct dbi_arg[]){ __VA_ARGS__ }) / sizeof(struct dbi_arg)

sqlite3_stmt *dbi_prep(struct db *db, const char *sql);   /* NULL on error */
void dbi_bind_text(sqlite3_stmt *st, int i, const char *s); /* NULL binds NULL */
void dbi_bind_args(sqlite3_stmt *st, const struct dbi_arg *a, size_t n);
char *dbi_col_text(sqlite3_stmt *st, int i);               /* strdup'd or NULL */
int dbi_step_done(sqlite3_stmt *st);  /* steps a no-row statement, finalizes; 0 / -1 */
/* Prepared with its parameters bound; NULL on error */
sqlite3_stmt *dbi_stmt_(struct db *db, const char *sql, const struct dbi_arg *a, size_t n);
#define dbi_stmt(db, sql, ...) dbi_stmt_(db, sql, DBI_ARGS_(__VA_ARGS__))
#define dbi_bind(st, ...) dbi_bind_args(st, DBI_ARGS_(__VA_ARGS__))
/* A statement that returns no rows, run with its parameters: 0 / -1 */
#define dbi_exec(db, sql, ...) dbi_step_done(dbi_stmt(db, sql, __VA_ARGS__))
/* The first row's first n columns as integers (NULL reads 0); finalizes
 * st (NULL: an error). 1 a row, 0 none, -1 error */
int dbi_row_ints(sqlite3_stmt *st, int64_t *v, int n);

/* Transactions: BEGIN IMMEDIATE, COMMIT (0 / -1), ROLLBACK */
int dbi_begin(struct db *db);
int dbi_commit(struct db *db);
void dbi_rollback(struct db *db);

/* --- the row mapper (row.c) ------------------------------------------------
 * A field table (db.h: struct db_field) names a struct's members in the
 * order of a statement's columns; one row becomes one struct. */

/* Fills row (zeroed first) from st's current row. 0, or -1 when memory ran
 * out (row released) */
int dbi_row_fill(sqlite3_stmt *st, const struct db_field *fields, void *row, size_t size);
/* The first row of st into row; finalizes st (NULL: an error). 1 found,
 * 0 not, -1 error */
int dbi_row_one(sqlite3_stmt *st, const struct db_field *fields, void *row, size_t size);
/* Every row of st, at most max, into a new array *rows (free with
 * db_rows_free()); finalizes st (NULL: an error). With truncated, st is
 * asked for max + 1 rows, and *truncated is set when that one came.
 * 0 / -1 (nothing is returned) */
int dbi_rows(sqlite3_stmt *st, const struct db_field *fields, size_t size, size_t max,
	     void *rows, size_t *n, int *truncated);
/* "SELECT f1, f2, ... FROM table rest" for a field table whose names are
 * the columns; NULL on error */
sqlite3_stmt *dbi_select(struct db *db, const struct db_field *fields, const char *table,
			 const char *rest);
/* v (*alloc elements of sz) grown to hold one more than n, doubling; NULL
 * when memory ran out (v is left as it was) */
void *dbi_grow(void *v, size_t n, size_t *alloc, size_t sz);

/* A list of ids: rows of one int64_t column */
extern const struct db_field dbi_id_fields[];

/* --- what one table's file lends another ---------------------------------- */

/* Inserts one run inside the caller's transaction (runs.c); request_id 0:
 * none. 0 / -1 */
int dbi_run_insert(struct db *db, const struct run_request *req, int64_t request_id,
		   int64_t *id);

/* A build row's columns, in the order of db_build_fields (builds.c) */
#define DBI_BUILD_COLUMNS \
	"b.id, b.key, b.tree, b.commit_id, b.arch, b.config, b.config_hash, b.toolchain," \
	" b.state, b.detail, b.errors, b.dropped, b.dir, b.release, b.kernel_id, k.path," \
	" b.started_at, b.ended_at, b.ms"

/* A result row's place on its run's page: those that did not pass first,
 * then skipped ones, then passes. The index results_run_order (schema 18)
 * holds this very expression, so a page of a run's results ordered by it,
 * path, status and id is read in order without sorting them all
 * (results.c). */
#define DB_RESULT_RANK \
	"CASE status WHEN 'pass' THEN 2 WHEN 'skip' THEN 1 WHEN 'xfail' THEN 1 ELSE 0 END"

extern const char *const db_migrations[];
extern const int db_migration_count;

/* How long a statement waits for another writer before "database is locked" */
#define DB_BUSY_MS 10000

#endif
