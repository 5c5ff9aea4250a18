/* SPDX-License-Identifier: GPL-2.0-only */
/* bisections.h: a bisection as stored: its range (commit ids, fixed at the
 * start), cell and symptom, its steps (each tested commit, with the answer
 * and why) and the submissions that built and ran each step. The driver
 * (bisect/) writes them; the pages and the CLI read them. */
#ifndef KF_DB_BISECTIONS_H
#define KF_DB_BISECTIONS_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* All strings owned; db_bisection_release() frees them. */
struct bisection {
	int64_t id, created_at, ended_at;
	char *tree;
	char *good, *bad;             /* 40 hex */
	char *good_spec, *bad_spec;   /* as the user named them */
	char *job;
	char *kind;                   /* "job", "test", "crash", "metric" */
	char *target;                 /* the test path, the metric name, a crash's
					 signature (crash.h), or NULL */
	int higher_better;            /* metric: 1, 0, or -1 not known */
	char *arch;
	int vcpus, memory_mb;
	char *config, *fragments;     /* NULL: the defaults */
	int repeats;
	int first_parent;
	char *state;                  /* "ends", "bisecting", "verifying", "done", "failed",
					 "canceled" */
	char *culprit;                /* the first bad commit, or NULL */
	char *candidates;             /* skips around it: commit ids, ' ' separated */
	char *verdict;                /* "verified", "not confirmed", "revert conflicts", ... */
	char *detail;                 /* why it ended so */
	char *revert;                 /* what the revert check saw */
	int has_change, has_error;    /* (the columns are not NULL) */
	double change_pct;            /* metric: bad against good; NAN otherwise */
	double error;                 /* the chance the path went wrong; NAN until known */
	char *log;                    /* git bisect log, replayable */
};

struct bisection_step {
	int64_t id, bisection_id;
	int n;                        /* 0, 1, ... in the order they were chosen */
	char *commit_id, *subject, *author;   /* author: "Name <mail>" */
	char *role;                   /* "good", "bad" (the ends), "step", "parent", "revert" */
	char *answer;                 /* "good", "bad", "skip", or NULL while undecided */
	char *why;
	int has_error;
	double error;                 /* the answer's error chance (NAN: none) */
	int commits_left;             /* git's count when it chose it; -1 unknown */
	int64_t commit_order;         /* its history's length (git rev-list --count); -1 */
	int64_t created_at, decided_at;
};

/* What one run of a step showed, for the decision rules */
struct bisection_run {
	int64_t run_id, submission_id;
	int done;                     /* the run ended */
	char *outcome;                /* "passed", "failed", "crash", ... or NULL */
	char *splat;                  /* a crash's first lines, or NULL */
	char *test_status;            /* the target test's result ("pass", "fail", ...),
					 NULL when the run has none */
	int have_value;
	double value;                 /* the target metric's mean in the run */
};

/* A step's submissions as they stand */
struct bisection_sub {
	int64_t submission_id;
	char *state, *outcome, *detail;
	char *errors;                 /* a failed build's first compiler errors, or NULL */
};

/* Inserts b (state "ends"); b->id is set. 0 / -1 */
int db_bisection_insert(struct db *db, struct bisection *b);
int db_bisection_get(struct db *db, int64_t id, struct bisection *b);   /* 1 / 0 / -1 */
/* Newest first, at most limit; with active, only those not ended */
int db_bisection_list(struct db *db, int active, int limit, struct bisection **rows,
		      size_t *n);
void db_bisection_release(struct bisection *b);
void db_bisection_free_rows(struct bisection *rows, size_t n);
int db_bisection_set_state(struct db *db, int64_t id, const char *state);
/* Ends it: state done, failed or canceled, with what was found; or
 * "verifying" with the culprit found, not ended yet */
int db_bisection_end(struct db *db, int64_t id, const char *state, const char *culprit,
		     const char *candidates, const char *verdict, const char *detail,
		     double error);
int db_bisection_set_revert(struct db *db, int64_t id, const char *revert, const char *verdict);
int db_bisection_set_log(struct db *db, int64_t id, const char *log);
int db_bisection_set_change(struct db *db, int64_t id, double change_pct);
/* A crash's signature, once the bad end's runs showed it */
int db_bisection_set_target(struct db *db, int64_t id, const char *target);

/* Adds step n; *id set. 0 / -1 */
int db_bisection_step_add(struct db *db, int64_t bisection_id, int n, const char *commit,
			  const char *subject, const char *author, const char *role,
			  int commits_left, int64_t order, int64_t *id);
/* Steps in order (free with db_bisection_steps_free) */
int db_bisection_steps(struct db *db, int64_t bisection_id, struct bisection_step **rows,
		       size_t *n);
void db_bisection_steps_free(struct bisection_step *rows, size_t n);
/* Records a step's answer; a decided step is never changed again. */
int db_bisection_step_decide(struct db *db, int64_t step_id, const char *answer,
			     const char *why, double error);
int db_bisection_step_link(struct db *db, int64_t step_id, int64_t submission_id);
/* The step's submissions, oldest first */
int db_bisection_step_subs(struct db *db, int64_t step_id, struct bisection_sub **rows,
			   size_t *n);
void db_bisection_subs_free(struct bisection_sub *rows, size_t n);
/* The runs of the step's submissions, with test's status and metric's
 * mean in each (either may be NULL): a commit's plain runs, and of a
 * series' submission (a revert) the runs of its patched kernel */
int db_bisection_step_runs(struct db *db, int64_t step_id, const char *test, const char *metric,
			   struct bisection_run **rows, size_t *n);
void db_bisection_runs_free(struct bisection_run *rows, size_t n);
/* What a request of a submission tested: the tree, base (good) and
 * patched (bad) commits, job, cell and config, for a bisection of what
 * the series broke. Strings owned (free with db_request_origin_release).
 * 1 found, 0 no such request or not a submission's, -1 error */
struct request_origin {
	char *tree, *base, *patched, *job, *arch, *config, *fragments;
	int vcpus, memory_mb;
};
int db_request_origin(struct db *db, int64_t request_id, struct request_origin *o);
void db_request_origin_release(struct request_origin *o);

/* Queued runs of the bisection's submissions: canceled, so a canceled
 * bisection frees its queue slots (bisection_id 0: of every canceled
 * bisection, for runs its builds queued after the cancel). Returns how
 * many or -1. */
int db_bisection_cancel_runs(struct db *db, int64_t bisection_id);

/* Speculative builds: a build-only submission of a commit the next step
 * may test, made while a step's runs are in the guests. add: 0 / -1;
 * has: 1 one was made for commit, 0 not, -1 error. drop: the bisection's
 * queued ones other than keep's (NULL: all of them; bisection_id 0: those
 * of every ended bisection) are not built; returns how many or -1. */
int db_bisection_spec_add(struct db *db, int64_t bisection_id, int64_t submission_id,
			  const char *commit);
int db_bisection_spec_has(struct db *db, int64_t bisection_id, const char *commit);
int db_bisection_spec_drop(struct db *db, int64_t bisection_id, const char *keep);

#endif
