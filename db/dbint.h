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

extern const char *const db_migrations[];
extern const int db_migration_count;

#endif
