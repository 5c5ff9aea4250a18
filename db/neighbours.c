// SPDX-License-Identifier: GPL-2.0-only
/* neighbours.c: the run_neighbours table, a run's quiet measurement
 * record (orchestrator/quiet.c writes it around the run's guest): whether
 * it had host cores of its own, and what else ran on its host from its
 * start to its end. The run page, /api/runs/ID and the comparisons'
 * warning read it. */
#include "db/db.h"
#include "db/dbint.h"

#include <stddef.h>

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

static const struct db_field quiet_fields[] = {
	F(run_quiet, run_id, INT), F(run_quiet, attempt, INT), F(run_quiet, pin, TEXT),
	F(run_quiet, cores, TEXT), F(run_quiet, why, TEXT), F(run_quiet, builds_mode, TEXT),
	F(run_quiet, runs, TEXT), F(run_quiet, builds, TEXT),
	F(run_quiet, has_load_start, HAS), F(run_quiet, load_start, REAL),
	F(run_quiet, has_load_end, HAS), F(run_quiet, load_end, REAL),
	F(run_quiet, ended, INT), { NULL, 0, 0 },
};

static struct dbi_arg load_arg(double load)
{
	return load < 0 ? DBI_NULL : DBI_REAL(load);
}

int db_quiet_begin(struct db *db, int64_t id, int attempt, const char *pin, const char *cores,
		   const char *why, const char *builds_mode, double load)
{
	return dbi_exec(db, "INSERT OR REPLACE INTO run_neighbours (run_id, attempt, pin, cores,"
			" why, builds_mode, load_start) VALUES (?, ?, ?, ?, ?, ?, ?)", DBI_INT(id),
			DBI_INT(attempt), DBI_TEXT(pin), DBI_TEXT(cores), DBI_TEXT(why),
			DBI_TEXT(builds_mode), load_arg(load));
}

int db_quiet_end(struct db *db, int64_t id, const char *runs, const char *builds, double load)
{
	return dbi_exec(db, "UPDATE run_neighbours SET runs = ?2, builds = ?3, load_end = ?4,"
			" ended = 1 WHERE run_id = ?1", DBI_INT(id), DBI_TEXT(runs),
			DBI_TEXT(builds), load_arg(load));
}

int db_quiet_get(struct db *db, int64_t id, struct run_quiet *q)
{
	return dbi_row_one(dbi_stmt(db, "SELECT run_id, attempt, pin, cores, why, builds_mode,"
				    " runs, builds, load_start, load_end, ended FROM run_neighbours"
				    " WHERE run_id = ?", DBI_INT(id)), quiet_fields, q, sizeof(*q));
}

void db_quiet_release(struct run_quiet *q)
{
	db_row_release(quiet_fields, q, sizeof(*q));
}
