/* SPDX-License-Identifier: GPL-2.0-only */
/* query.h: read-only queries the status pages need beyond db.h: the queue
 * (runs waiting and running) with each run's request, how long runs of the
 * same kind took, a request's progress and result rows, the hosts, and a
 * job's metric values and results across a tree's commits (trends). They
 * only read, on the caller's connection (db_sqlite()), so any thread with
 * its own struct db may call them. Symbols carry the dbq_ prefix; each
 * is defined beside its table (runs.c, requests.c, hosts.c) or in
 * trend_data.c. */
#ifndef KF_DB_QUERY_H
#define KF_DB_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define DBQ_QUEUE_MAX     2000     /* runs a queue listing returns */
#define DBQ_MEDIAN_RUNS   50       /* newest finished runs a median is taken over */
#define DBQ_RESULTS_MAX   200000   /* result rows of one request */

/* A run waiting or running. Strings owned; free the array with
 * dbq_queue_free(). */
struct dbq_queue_run {
	int64_t id;
	int64_t request_id;    /* 0: not part of a request */
	int64_t kernel_id;
	char *kernel_path;
	char *job;             /* or NULL for a plain command */
	char *command;
	char *arch;
	int vcpus;
	char *host;            /* or NULL while queued */
	enum run_state state;  /* RUN_QUEUED or RUN_RUNNING */
	int attempt;
	int64_t queued_at, started_at;   /* ms since the epoch, 0 when not reached */
	char *phase;           /* a running run's: "preparing", "booting", "running",
				  "storing"; NULL queued (or from before schema 16) */
	int64_t phase_at;      /* since when, ms since the epoch; 0 with no phase */
	char *watch;           /* the watch it is for, NULL: a person's */
	int64_t submission_id; /* its submission (its own or its request's), 0 none */
};

/* The running runs (oldest start first), then the queued ones in the order
 * the fair queue serves them when all fit: people's by id, then the
 * watches' taking turns (each watch's first run, then each one's second,
 * ...); at most max. 0 / -1 */
int dbq_queue(struct db *db, size_t max, struct dbq_queue_run **v, size_t *n);
void dbq_queue_free(struct dbq_queue_run *v, size_t n);

/* The median wall-clock time (started to ended) of the newest
 * DBQ_MEDIAN_RUNS finished runs of the same job (or, for a plain command,
 * the same command), arch and vCPUs; runs ended as infra or canceled do not
 * count. *n gets how many runs it is from; 1 found (*median_ms set), 0 no
 * such runs, -1 error. */
int dbq_median_duration(struct db *db, const char *job, const char *command,
			const char *arch, int vcpus, int64_t *median_ms, int *n);

/* A series a watch took, with when its work was queued (the submission),
 * started (its build) and finished (the build that failed, or its last
 * run), 0 when not yet; and its runs so far. Strings owned. */
struct dbq_series {
	int64_t id;            /* the watch_series row */
	char *watch;
	char *name;
	int64_t version;
	int64_t submission_id;
	char *state;           /* the submission's */
	int64_t queued_at, started_at, finished_at;
	int runs, done;
	int open;              /* not finished */
};
#define DBQ_SERIES_MAX 50
/* The watches' series whose work is not finished, then the newest finished
 * ones, at most max. Free with dbq_series_free(). 0 / -1 */
int dbq_series_times(struct db *db, size_t max, struct dbq_series **v, size_t *n);
void dbq_series_free(struct dbq_series *v, size_t n);

/* The request a run belongs to: 1 (*request_id set), 0 none or no such
 * run, -1 error. */
int dbq_run_request(struct db *db, int64_t run_id, int64_t *request_id);

/* A request's runs: all of them and those done. 0 / -1 */
int dbq_request_progress(struct db *db, int64_t request_id, int *runs, int *done);

/* The progress of every request with a run queued or running, by id, in
 * one statement (the queue's). Free *v. 0 / -1 */
struct dbq_progress {
	int64_t request_id;
	int runs, done;
};
int dbq_queue_progress(struct db *db, struct dbq_progress **v, size_t *n);

/* One results row of a request's run. Strings owned. */
struct dbq_result {
	int64_t run_id;
	char *path;
	char *status;
};
/* The results of the request's done runs, by run and path; at most max,
 * *truncated set when there were more. Free with dbq_results_free(). 0 / -1 */
int dbq_request_results(struct db *db, int64_t request_id, size_t max,
			struct dbq_result **v, size_t *n, int *truncated);
void dbq_results_free(struct dbq_result *v, size_t n);

/* A host as libvirt last described it. Strings owned (may be NULL). */
struct dbq_host {
	char *name;
	char *uri;
	char *accel;
	char *qemu_version;
	char *libvirt_version;
	int max_vcpus;
	int64_t memory_kb;
	int healthy;
	char *health_detail;   /* why it is out of placement, or NULL */
	int64_t updated_at;
	int running;           /* runs running there now */
	int64_t done;          /* runs that ended there (their last attempt) */
};
/* Every host by name; free with dbq_hosts_free(). 0 / -1 */
int dbq_hosts(struct db *db, struct dbq_host **v, size_t *n);
void dbq_hosts_free(struct dbq_host *v, size_t n);

/* ---- trends: a job's metric and results across a tree's commits ----
 * Kernels kfleet built know their tree, commit and commit_order (the
 * commit's ancestors, git rev-list --count); runs of a job on them, in one
 * cell (arch, vCPUs), make a trend. Commits come oldest first: by
 * commit_order (unknown, NULL or -1, first), then commit id. At most
 * DBQ_TREND_COMMITS commits (the newest) and DBQ_TREND_RUNS runs per
 * commit (the newest) are read. Runs count only when done; for metrics
 * only passed ones, for results any but infra and canceled. */

#define DBQ_TREND_COMMITS   500
#define DBQ_TREND_RUNS      100
#define DBQ_TREND_ROWS      1000000   /* sample or result rows one trend reads */
#define DBQ_TREND_SERIES    5000      /* series one listing returns */

/* What a trend can be drawn of. Strings owned. */
struct dbq_trend_series {
	char *tree, *job;
	char *metric;          /* NULL: a series of results (pass rates) */
	char *arch;
	int vcpus;
	int commits;
	int64_t runs;
	int64_t last_ms;       /* the newest run's end */
};
/* Every series with data, by tree, job, metric (results last), arch and
 * vCPUs; tree, job and metric (may be NULL: any) narrow it. results 0:
 * metric series only, 1: result series only. At most max, *truncated set
 * when there were more. Free with dbq_trend_series_free(). 0 / -1 */
int dbq_trend_series(struct db *db, const char *tree, const char *job, const char *metric,
		     int results, size_t max, struct dbq_trend_series **v, size_t *n,
		     int *truncated);
void dbq_trend_series_free(struct dbq_trend_series *v, size_t n);

/* One commit of a metric's trend. Strings and arrays owned. */
struct dbq_trend_commit {
	char *commit;
	int64_t order;         /* -1 when not known */
	double *v;             /* per passed run: the median of its samples */
	int64_t *run_ids;      /* the runs, newest first */
	size_t n;
};
struct dbq_trend_values {
	struct dbq_trend_commit *c;   /* oldest commit first */
	size_t n;
	char *unit;            /* of the first sample with one, or NULL */
	int commits_dropped;   /* older commits were left out */
	int64_t runs_dropped;  /* older runs of a commit past DBQ_TREND_RUNS */
	int rows_truncated;    /* more than DBQ_TREND_ROWS samples: the rest not read */
};
/* The values of metric in the job's passed runs on the tree's kernels in
 * one cell. Fills out (release with dbq_trend_values_release(), also after
 * a failure); no data is 0 with out->n 0. 0 / -1 */
int dbq_trend_values(struct db *db, const char *tree, const char *job, const char *metric,
		     const char *arch, int vcpus, struct dbq_trend_values *out);
void dbq_trend_values_release(struct dbq_trend_values *v);

/* One results row of a trend's run; path and status NULL for a run that
 * stored no results. Strings owned. */
struct dbq_trend_result {
	char *commit;
	int64_t order;
	int64_t run_id;
	char *path;
	char *status;
};
/* The result rows of the job's counted runs on the tree's kernels in one
 * cell, by commit (oldest first), run and path; at most DBQ_TREND_ROWS,
 * *truncated set when there were more (or commits were left out). Free
 * with dbq_trend_results_free(). 0 / -1 */
int dbq_trend_results(struct db *db, const char *tree, const char *job, const char *arch,
		      int vcpus, struct dbq_trend_result **v, size_t *n, int *truncated);
void dbq_trend_results_free(struct dbq_trend_result *v, size_t n);

/* ---- a flaky test's history (db/flaky.c): the /flaky page ---- */

/* One run's verdict on a test */
struct dbq_flaky_point {
	int64_t run_id, kernel_id;
	int failed;
};
/* The newest max runs of the cell (done, not infra or canceled) that gave
 * path a verdict (pass, xfail: passed; fail, error, timeout: failed; a run
 * whose rows hold a skip or missing and no failure gives none), oldest
 * first. Free *v. 0 / -1 */
int dbq_flaky_history(struct db *db, const struct db_flaky_cell *cell, const char *path,
		      size_t max, struct dbq_flaky_point **v, size_t *n);

/* What every counted run of kernel_id in the cell gave path: runs with a
 * verdict into *runs, of them failed into *fails. 0 / -1 */
int dbq_flaky_kernel_counts(struct db *db, const struct db_flaky_cell *cell,
			    int64_t kernel_id, const char *path, int *runs, int *fails);

/* ---- comparisons: what /api/compare reads (db/compare_data.c) ----
 * The samples of a job's passed runs on a kernel, with each run's cell
 * (web/comparisons.c groups them with analysis/cells.c), the done runs
 * that did not pass, and the state of the runs a comparison reads. */

/* Which runs of a kernel: the job's done runs, in one arch and vCPUs when
 * given. Borrowed. */
struct db_compare_runs {
	int64_t kernel_id;
	const char *job;
	const char *arch;      /* NULL: any */
	long long vcpus;       /* 0: any */
};

/* One sample of a passed run, with the run's cell. Borrowed, valid during
 * the callback only. */
struct db_compare_sample {
	int64_t run_id;
	const char *arch;
	int vcpus;
	int memory_mb;
	const char *accel;
	const char *host;      /* NULL when not known */
	const char *topology;
	int numa_nodes;
	const char *boot;      /* the guest setup, NULL before it was recorded */
	const char *metric;
	const char *unit;      /* or NULL */
	double value;
};

/* Calls fn for each sample of the passed runs of q, by run id and metric,
 * at most limit; fn returns 0 to go on, anything else to stop. 0 when
 * every sample was given, fn's value when it stopped, -1 on database
 * errors (a sample without a metric is one). */
int db_compare_samples(struct db *db, const struct db_compare_runs *q, size_t limit,
		       int (*fn)(const struct db_compare_sample *s, void *ctx), void *ctx);
/* How many done runs of q did not pass, into *n. 0 / -1 */
int db_compare_left_out(struct db *db, const struct db_compare_runs *q, int64_t *n);
/* The state of the job's runs on kernels a and b: how many are done and
 * the newest of them (0: none), a run that ends adding one. 0 / -1 */
int db_compare_state(struct db *db, int64_t a, int64_t b, const char *job, int64_t *done,
		     int64_t *last);

#endif
