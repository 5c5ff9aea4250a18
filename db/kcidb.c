// SPDX-License-Identifier: GPL-2.0-only
/* kcidb.c: the reads of a KCIDB export (kcidb.h): submissions, builds,
 * done runs with their results and metric samples, in a scope (since a
 * time, or one submission's). Every kind is one statement over the same
 * scope, so the builds a run names and the submissions a build names are
 * always read with it. export/kcidb.c maps the rows to KCIDB's JSON. */
#include "db/kcidb.h"
#include "db/dbint.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(st, f, t) { #f, offsetof(struct st, f), DB_FIELD_##t }

/* ?1 since (ms), ?2 the submission (0: any): its plain runs and its
 * requests' runs */
#define RUN_BUILD "(SELECT b2.id FROM builds b2 WHERE b2.kernel_id = r.kernel_id" \
	" AND b2.state = 'done' ORDER BY b2.id LIMIT 1)"
#define RUNS_IN "r.state = 'done' AND coalesce(r.outcome, '') != 'canceled'" \
	" AND (?2 = 0 OR r.submission_id = ?2 OR r.request_id IN" \
	" (SELECT q.id FROM requests q WHERE q.submission_id = ?2))" \
	" AND coalesce(r.ended_at, 0) >= ?1" \
	" AND " RUN_BUILD " IS NOT NULL"
#define BUILD_IDS "SELECT b.id FROM builds b JOIN submission_builds sb ON sb.build_id = b.id" \
	" WHERE b.state != 'building' AND (?2 = 0 OR sb.submission_id = ?2)" \
	" AND (coalesce(b.ended_at, b.started_at) >= ?1" \
	" OR b.id IN (SELECT " RUN_BUILD " FROM runs r%1$s WHERE " RUNS_IN "))"

const struct db_field dbk_checkout_fields[] = {
	F(dbk_checkout, id, INT), F(dbk_checkout, created_at, TIME),
	F(dbk_checkout, started_at, TIME), F(dbk_checkout, tree, TEXT),
	F(dbk_checkout, tree_url, TEXT), F(dbk_checkout, tree_branch, TEXT),
	F(dbk_checkout, base_commit, TEXT), F(dbk_checkout, patched_commit, TEXT),
	F(dbk_checkout, series_name, TEXT), F(dbk_checkout, series_subject, TEXT),
	F(dbk_checkout, series_json, TEXT), F(dbk_checkout, mbox_path, TEXT),
	F(dbk_checkout, state, TEXT), F(dbk_checkout, outcome, TEXT),
	F(dbk_checkout, detail, TEXT), { NULL, 0, 0 },
};

const struct db_field dbk_build_fields[] = {
	F(dbk_build, id, INT), F(dbk_build, tree, TEXT), F(dbk_build, commit_id, TEXT),
	F(dbk_build, arch, TEXT), F(dbk_build, config, TEXT), F(dbk_build, config_hash, TEXT),
	F(dbk_build, toolchain, TEXT), F(dbk_build, state, TEXT), F(dbk_build, detail, TEXT),
	F(dbk_build, errors, TEXT), F(dbk_build, release, TEXT), F(dbk_build, started_at, TIME),
	F(dbk_build, ended_at, TIME), F(dbk_build, ms, INT), F(dbk_build, submission_id, INT),
	F(dbk_build, side, TEXT), F(dbk_build, base_commit, TEXT),
	F(dbk_build, patched_commit, TEXT), F(dbk_build, fragments, TEXT), { NULL, 0, 0 },
};

const struct db_field dbk_run_fields[] = {
	F(dbk_run, id, INT), F(dbk_run, build_id, INT), F(dbk_run, submission_id, INT),
	F(dbk_run, job, TEXT), F(dbk_run, command, TEXT), F(dbk_run, arch, TEXT),
	F(dbk_run, vcpus, INT), F(dbk_run, memory_mb, INT), F(dbk_run, outcome, TEXT),
	F(dbk_run, detail, TEXT), F(dbk_run, host, TEXT), F(dbk_run, accel, TEXT),
	F(dbk_run, machine, TEXT), F(dbk_run, cpu_model, TEXT), F(dbk_run, qemu_version, TEXT),
	F(dbk_run, topology, TEXT), F(dbk_run, numa_nodes, INT), F(dbk_run, started_at, TIME),
	F(dbk_run, ended_at, TIME), F(dbk_run, guest_release, TEXT), { NULL, 0, 0 },
};

const struct db_field dbk_result_fields[] = {
	F(dbk_result, id, INT), F(dbk_result, run_id, INT), F(dbk_result, path, TEXT),
	F(dbk_result, status, TEXT), F(dbk_result, duration_ms, INT),
	F(dbk_result, detail, TEXT), { NULL, 0, 0 },
};

#define SCOPE(s) DBI_INT((s)->since_ms), DBI_INT((s)->submission_id), \
	DBI_INT((int64_t)DBK_ROWS_MAX + 1)

/* sql (its runs as "runs r%1$s") prepared for scope s with SCOPE(s)
 * bound. Since a time, for any submission, the runs are read by their end
 * (runs_ended, schema 18): SQLite would else take every done run
 * (runs_state) and test each one's end. NULL on error. */
static sqlite3_stmt *scope_stmt(struct db *db, const struct dbk_scope *s, const char *sql)
{
	const char *hint = s->since_ms > 0 && !s->submission_id ? " INDEXED BY runs_ended" : "";
	sqlite3_stmt *st;
	char *q = NULL;

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	if (asprintf(&q, sql, hint) < 0)
		return NULL;
#pragma GCC diagnostic pop
	st = dbi_stmt(db, q, SCOPE(s));
	free(q);
	return st;
}

int dbk_checkouts(struct db *db, const struct dbk_scope *s, struct dbk_checkout **v,
		  size_t *n, int *truncated)
{
	return dbi_rows(scope_stmt(db, s,
		"SELECT s.id, s.created_at, s.started_at, s.tree, t.url, t.branch, s.base_commit,"
		" s.patched_commit, s.series_name, s.series_subject, s.series_json, s.mbox_path,"
		" s.state, s.outcome, s.detail FROM submissions s LEFT JOIN trees t ON t.name = s.tree"
		" WHERE s.kernel IS NULL AND s.state IN ('testing', 'done', 'failed')"
		" AND s.base_commit IS NOT NULL AND (?2 = 0 OR s.id = ?2)"
		" AND (s.created_at >= ?1 OR s.id IN (SELECT sb.submission_id FROM"
		" submission_builds sb WHERE sb.build_id IN (" BUILD_IDS ")))"
		" ORDER BY s.id LIMIT ?3"),
		dbk_checkout_fields, sizeof(**v), DBK_ROWS_MAX, v, n, truncated);
}

int dbk_builds(struct db *db, const struct dbk_scope *s, struct dbk_build **v, size_t *n,
	       int *truncated)
{
	/* a build several submissions share: the first one's side and commits
	 * (SQLite takes the bare columns from the min() row) */
	return dbi_rows(scope_stmt(db, s,
		"SELECT b.id, b.tree, b.commit_id, b.arch, b.config, b.config_hash, b.toolchain,"
		" b.state, b.detail, b.errors, b.release, b.started_at, b.ended_at, b.ms,"
		" min(sb.submission_id), sb.side, s.base_commit, s.patched_commit, s.fragments"
		" FROM builds b JOIN submission_builds sb ON sb.build_id = b.id"
		" JOIN submissions s ON s.id = sb.submission_id"
		" WHERE b.id IN (" BUILD_IDS ") AND (?2 = 0 OR sb.submission_id = ?2)"
		" AND s.base_commit IS NOT NULL GROUP BY b.id ORDER BY b.id LIMIT ?3"),
		dbk_build_fields, sizeof(**v), DBK_ROWS_MAX, v, n, truncated);
}

int dbk_runs(struct db *db, const struct dbk_scope *s, struct dbk_run **v, size_t *n,
	     int *truncated)
{
	return dbi_rows(scope_stmt(db, s,
		"SELECT r.id, " RUN_BUILD ", coalesce(r.submission_id, 0), r.job, r.command, r.arch,"
		" r.vcpus, r.memory_mb, r.outcome, r.detail, h.name, r.accel, r.machine,"
		" r.cpu_model, r.qemu_version, r.topology, r.numa_nodes, r.started_at, r.ended_at,"
		" r.guest_release FROM runs r%1$s LEFT JOIN hosts h ON h.id = r.host_id"
		" WHERE " RUNS_IN " ORDER BY r.id LIMIT ?3"),
		dbk_run_fields, sizeof(**v), DBK_ROWS_MAX, v, n, truncated);
}

int dbk_results(struct db *db, const struct dbk_scope *s, struct dbk_result **v, size_t *n,
		int *truncated)
{
	return dbi_rows(scope_stmt(db, s,
		"SELECT x.id, x.run_id, x.path, x.status, coalesce(x.duration_ms, -1), x.detail"
		" FROM results x JOIN runs r%1$s ON r.id = x.run_id WHERE " RUNS_IN
		" ORDER BY x.run_id, x.id LIMIT ?3"),
		dbk_result_fields, sizeof(**v), DBK_ROWS_MAX, v, n, truncated);
}

/* The median of v[0..n) (sorted) */
static double median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One metric of a run, its sorted samples vals[0..nv), appended to *out */
static int metric_close(struct dbk_metric **out, size_t *n, size_t *alloc, int64_t run_id,
			const char *metric, const char *unit, const double *vals, size_t nv)
{
	struct dbk_metric *m = dbi_grow(*out, *n, alloc, sizeof(**out));

	if (!m)
		return -1;
	*out = m;
	m = &(*out)[(*n)++];
	memset(m, 0, sizeof(*m));
	m->run_id = run_id;
	m->metric = strdup(metric);
	m->unit = unit ? strdup(unit) : NULL;
	m->median = median(vals, nv);
	m->n = (int64_t)nv;
	return m->metric && (!unit || m->unit) ? 0 : -1;
}

int dbk_metrics(struct db *db, const struct dbk_scope *s, struct dbk_metric **out, size_t *n,
		int *truncated)
{
	sqlite3_stmt *st = scope_stmt(db, s,
		"SELECT x.run_id, x.metric, x.unit, x.value FROM samples x JOIN runs r%1$s"
		" ON r.id = x.run_id WHERE " RUNS_IN " ORDER BY x.run_id, x.metric, x.value"
		" LIMIT ?3");
	double *vals = NULL;
	size_t nv = 0, valloc = 0, alloc = 0, rows = 0;
	char *metric = NULL, *unit = NULL;
	int64_t run_id = 0;
	int rc = -1, step;

	*out = NULL;
	*n = 0;
	*truncated = 0;
	if (!st)
		return -1;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t rid = sqlite3_column_int64(st, 0);
		const char *m = (const char *)sqlite3_column_text(st, 1);
		const char *u = (const char *)sqlite3_column_text(st, 2);

		if (++rows > DBK_ROWS_MAX) {
			*truncated = 1;
			break;
		}
		if (!m)
			continue;
		if (metric && (rid != run_id || strcmp(m, metric))) {
			if (metric_close(out, n, &alloc, run_id, metric, unit, vals, nv) < 0)
				goto out;
			free(metric);
			free(unit);
			metric = unit = NULL;
			nv = 0;
		}
		if (!metric) {
			run_id = rid;
			if (!(metric = strdup(m)) || (u && !(unit = strdup(u))))
				goto out;
		}
		{
			double *nvals = dbi_grow(vals, nv, &valloc, sizeof(*vals));

			if (!nvals)
				goto out;
			vals = nvals;
		}
		vals[nv++] = sqlite3_column_double(st, 3);
	}
	if (step != SQLITE_DONE && step != SQLITE_ROW)
		goto out;
	if (metric && metric_close(out, n, &alloc, run_id, metric, unit, vals, nv) < 0)
		goto out;
	rc = 0;
out:
	sqlite3_finalize(st);
	free(vals);
	free(metric);
	free(unit);
	if (rc < 0) {
		dbk_metrics_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

void dbk_metrics_free(struct dbk_metric *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].metric);
		free(v[i].unit);
	}
	free(v);
}
