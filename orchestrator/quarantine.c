// SPDX-License-Identifier: GPL-2.0-only
/* quarantine.c: after a run's results are stored (run.c's conclude stage),
 * the tests of the run that may have flipped are measured over the newest
 * runs of the cell (db_flaky_window), analysis/flaky.c decides, and the
 * quarantine table is updated in one transaction. A failure here is
 * logged and leaves the table as it was: the run's own outcome does not
 * depend on it. */
#include "orchestrator/orchint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/flaky.h"
#include "common/log.h"

#define REASON_MAX 128

/* Decides one test: rows v[0..n) (one path, by run); fills op (and its
 * reason in why) and returns 1 when the table changes or its counts do */
static int decide_one(const struct run *r, const struct db_flaky_result *v, size_t n,
		      int quarantined, struct flaky_row *rows, struct flaky_run *runs,
		      struct db_quarantine_op *op, char *why)
{
	struct flaky_stats st;
	enum flaky_action a;
	size_t nr;

	for (size_t i = 0; i < n; i++)
		rows[i] = (struct flaky_row){ v[i].run_id, v[i].kernel_id, v[i].status };
	nr = flaky_collapse(rows, n, runs);
	a = flaky_decide(runs, nr, quarantined, &st);
	if (a == FLAKY_KEEP && !quarantined)
		return 0;
	memset(op, 0, sizeof(*op));
	op->path = v[0].path;
	op->runs = st.runs;
	op->fails = st.fails;
	op->flips = st.flips;
	op->chances = st.chances;
	op->release = a == FLAKY_RELEASE;
	if (op->release)
		snprintf(why, REASON_MAX, "no flip in the last %d runs", FLAKY_RELEASE_RUNS);
	else
		flaky_reason(&st, why, REASON_MAX);
	op->reason = why;
	if (a == FLAKY_QUARANTINE)
		log_info("run %" PRId64 ": test '%s' of job '%s' (%s, %d vCPUs) quarantined: %s",
			 r->id, op->path, r->job, r->arch, r->vcpus, why);
	else if (a == FLAKY_RELEASE)
		log_info("run %" PRId64 ": test '%s' of job '%s' (%s, %d vCPUs) released: %s",
			 r->id, op->path, r->job, r->arch, r->vcpus, why);
	return 1;
}

void quarantine_update(struct db *db, const struct run *r)
{
	struct db_flaky_cell cell = { r->job, r->arch, r->vcpus };
	struct db_flaky_result *v = NULL;
	struct db_quarantine_op *ops = NULL;
	struct flaky_row *rows = NULL;
	struct flaky_run *runs = NULL;
	char **qp = NULL, *why = NULL;
	size_t n = 0, nq = 0, nops = 0, npaths = 0;
	int truncated = 0;

	if (!r->job)
		return;
	if (db_flaky_window(db, &cell, r->id, FLAKY_SCAN_RUNS, &v, &n, &truncated) < 0 ||
	    db_quarantined_paths(db, &cell, &qp, &nq) < 0) {
		log_error("run %" PRId64 ": flaky tests not measured: %s", r->id, db_errmsg(db));
		goto out;
	}
	if (!n)
		goto out;
	if (truncated)
		log_warn("run %" PRId64 ": flaky tests: more than %d result rows in the newest %d "
			 "runs of job '%s', the rest not measured", r->id, DB_FLAKY_ROWS,
			 FLAKY_SCAN_RUNS, r->job);
	for (size_t i = 0; i < n; i++)
		npaths += !i || strcmp(v[i].path, v[i - 1].path);
	rows = malloc(n * sizeof(*rows));
	runs = malloc(n * sizeof(*runs));
	ops = malloc(npaths * sizeof(*ops));
	why = malloc(npaths * REASON_MAX);
	if (!rows || !runs || !ops || !why) {
		log_error("run %" PRId64 ": flaky tests not measured: out of memory", r->id);
		goto out;
	}
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && !strcmp(v[j].path, v[i].path); j++)
			;
		/* the last path of a truncated window may lack its newest rows */
		if (truncated && j == n)
			break;
		nops += decide_one(r, &v[i], j - i, flaky_path_listed(qp, nq, v[i].path), rows, runs,
				   &ops[nops], why + nops * REASON_MAX);
	}
	if (db_quarantine_apply(db, &cell, r->id, ops, nops) < 0)
		log_error("run %" PRId64 ": quarantine of %zu tests not stored: %s", r->id, nops,
			  db_errmsg(db));
out:
	db_flaky_results_free(v, n);
	db_paths_free(qp, nq);
	free(rows);
	free(runs);
	free(ops);
	free(why);
}
