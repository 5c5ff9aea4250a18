/* SPDX-License-Identifier: GPL-2.0-only */
/* kcidb.h: what a KCIDB export reads (db/kcidb.c): the submissions (the
 * checkouts), their builds and the done runs on those builds, with each
 * run's results and metric samples, in one scope: everything since a time,
 * or one submission's. Read-only, on the caller's connection; the mapping
 * to KCIDB's JSON is export/kcidb.c's. Every row struct has a field table,
 * and db_rows_free() frees an array of them. */
#ifndef KF_DB_KCIDB_H
#define KF_DB_KCIDB_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define DBK_ROWS_MAX  200000   /* rows of one kind one export reads */

/* What is exported: runs that ended, builds that ended (or started) and
 * submissions made at since_ms or later, and the builds and submissions
 * those runs and builds belong to; submission_id > 0 narrows all of it to
 * that submission. */
struct dbk_scope {
	int64_t since_ms;
	int64_t submission_id;     /* 0: any */
};

/* A submission: a base checkout, and one of the series when it has one */
struct dbk_checkout {
	int64_t id, created_at, started_at;
	char *tree, *tree_url, *tree_branch;
	char *base_commit, *patched_commit;   /* NULL: not reached */
	char *series_name, *series_subject, *series_json, *mbox_path;
	char *state, *outcome, *detail;
};
extern const struct db_field dbk_checkout_fields[];

/* A build, with the side and the first submission in scope it served */
struct dbk_build {
	int64_t id;
	char *tree, *commit_id, *arch, *config, *config_hash, *toolchain, *state;
	char *detail, *errors, *release;
	int64_t started_at, ended_at, ms;
	int64_t submission_id;
	char *side;                /* base, patched */
	char *base_commit, *patched_commit;   /* the submission's */
	char *fragments;
};
extern const struct db_field dbk_build_fields[];

/* A done run on a kernel kfleet built (build_id: its build) */
struct dbk_run {
	int64_t id, build_id, submission_id;
	char *job, *command, *arch;
	int64_t vcpus, memory_mb;
	char *outcome, *detail;
	char *host, *accel, *machine, *cpu_model, *qemu_version, *topology;
	int64_t numa_nodes;
	int64_t started_at, ended_at;
	char *guest_release;
};
extern const struct db_field dbk_run_fields[];

struct dbk_result {
	int64_t id, run_id;
	char *path, *status;
	int64_t duration_ms;       /* -1: not known */
	char *detail;
};
extern const struct db_field dbk_result_fields[];

/* A run's metric: its samples' median, count and unit */
struct dbk_metric {
	int64_t run_id;
	char *metric, *unit;
	double median;
	int64_t n;
};

/* Each reads its rows in scope, by id (results and metrics by run),
 * into a new array (db_rows_free() it with the field table; dbk_metrics_free()
 * for metrics). More than DBK_ROWS_MAX: *truncated set, the rest not read.
 * 0 / -1 */
int dbk_checkouts(struct db *db, const struct dbk_scope *s, struct dbk_checkout **v,
		  size_t *n, int *truncated);
int dbk_builds(struct db *db, const struct dbk_scope *s, struct dbk_build **v, size_t *n,
	       int *truncated);
int dbk_runs(struct db *db, const struct dbk_scope *s, struct dbk_run **v, size_t *n,
	     int *truncated);
int dbk_results(struct db *db, const struct dbk_scope *s, struct dbk_result **v, size_t *n,
		int *truncated);
int dbk_metrics(struct db *db, const struct dbk_scope *s, struct dbk_metric **v, size_t *n,
		int *truncated);
void dbk_metrics_free(struct dbk_metric *v, size_t n);

#endif
