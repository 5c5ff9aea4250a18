/* dbint.h: what only db/ itself sees: the connection struct and the
 * migration steps. */
#ifndef KF_DBINT_H
#define KF_DBINT_H

#include <sqlite3.h>

#include "db/db.h"

struct db {
	sqlite3 *sql;
	char instance[17];
};

/* Statement helpers every db/ file uses (db.c) */
sqlite3_stmt *dbi_prep(struct db *db, const char *sql);   /* NULL on error */
void dbi_bind_text(sqlite3_stmt *st, int i, const char *s); /* NULL binds NULL */
void dbi_bind_time(sqlite3_stmt *st, int i, int64_t t);     /* 0 binds NULL */
char *dbi_col_text(sqlite3_stmt *st, int i);               /* strdup'd or NULL */
int dbi_step_done(sqlite3_stmt *st);  /* steps a no-row statement, finalizes; 0 / -1 */

extern const char *const db_migrations[];
extern const int db_migration_count;

#endif
