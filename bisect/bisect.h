/* SPDX-License-Identifier: GPL-2.0-only */
/* bisect.h: bisections, a driver above the run path (DESIGN.md). A
 * bisection finds the commit between a good and a bad one that brought a
 * symptom in: a job that fails, one subtest that fails, any kernel crash,
 * or a metric that got worse. It measures both ends first, lets git choose
 * each commit to test (kernels/bisect.c), builds and runs it through
 * ordinary submissions, asks the decision rules (analysis/bisect.c) for
 * good, bad, skip or more runs, and at the end checks the culprit's parent
 * and reverts the culprit on top of bad. Its state is in SQLite
 * (db/bisections.c): a restart carries on from the last decided step.
 *
 * driver.c: the thread and the stages; evidence.c: a step's runs read as
 * the rules take them; report.c: the report and the JSON. */
#ifndef KF_BISECT_BISECT_H
#define KF_BISECT_BISECT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/bisect.h"
#include "analysis/crash.h"
#include "common/buf.h"

struct orch;
struct config;
struct db;
struct bisection_run;
struct json_t;

/* What a user asks for; strings borrowed, NULL/0 take the defaults. Exactly
 * one of test, metric and crash may be set; none: the job failing. */
struct bisect_spec {
	const char *tree;
	const char *good, *bad;      /* revisions: hashes, branches, tags */
	const char *job;
	const char *test;            /* a subtest's path as results name it */
	const char *metric;
	int crash;
	const char *signature;       /* crash: the title to look for (or a part); NULL:
					the bad end's most common crash */
	const char *arch;            /* default x86_64 */
	int vcpus;                   /* default 2 */
	int memory_mb;
	const char *config;          /* as for a submission */
	const char *fragments;       /* ',' separated */
	int repeat;                  /* runs per end and per metric step to start with; 0: 5 */
	int first_parent;            /* git bisect --first-parent */
	int64_t from_request;        /* > 0: tree, good (its base), bad (patched), job and
					cell from this request, for what is not given */
};

struct bisect_driver;

/* Starts the thread that advances every bisection not ended. c and o are
 * borrowed and must outlive it. NULL with *err (caller frees). */
struct bisect_driver *bisect_driver_start(struct orch *o, const struct config *c, char **err);
/* Stops the thread (bisections carry on after a restart). Accepts NULL. */
void bisect_driver_stop(struct bisect_driver *d);
/* Wakes the thread: a submission or run of a bisection may have ended. */
void bisect_driver_kick(struct bisect_driver *d);

/* Checks s (the tree, both revisions and that good is an ancestor of bad,
 * the job and its metric) and queues the builds and runs of both ends.
 * 0 with *id; -1 when the request is bad (*err for the user); -2 on an
 * internal error (*err). *err: caller frees. */
int bisect_submit(struct bisect_driver *d, const struct bisect_spec *s, int64_t *id,
		  char **err);
/* Stops a bisection: its queued runs are canceled. 0; -1 no such or ended
 * already (*err); -2 internal. */
int bisect_cancel(struct bisect_driver *d, int64_t id, char **err);

/* ---- evidence.c ---- */

enum bisect_kind { BISECT_KIND_JOB, BISECT_KIND_TEST, BISECT_KIND_CRASH, BISECT_KIND_METRIC };
/* "job", "test", "crash", "metric"; parse: 0 / -1 */
const char *bisect_kind_name(enum bisect_kind k);
int bisect_kind_parse(const char *s, enum bisect_kind *k);

/* A step's runs as the rules read them: for a test, a job or a crash the
 * counts (pf), for a metric the values of the runs that passed (v, nv,
 * allocated; free it) and in other the runs that could not give one.
 * Runs not ended are counted in pending. 0 / -1 (out of memory). */
struct bisect_evidence {
	struct bisect_pf pf;
	double *v;
	size_t nv;
	int other;                   /* metric: runs without a value */
	int pending;
	int runs;
	char other_crash[CRASH_TITLE_MAX];   /* a crash: the first other title seen */
};
/* signature: for a crash, the title the symptom's crash has (a part of
 * one will do, crash_title_matches()); a crash titled otherwise is a
 * failure for another reason. NULL: any crash is the symptom. */
int bisect_evidence_read(enum bisect_kind k, const char *signature,
			 const struct bisection_run *runs, size_t n, struct bisect_evidence *e);
/* The title most of the runs' crashes have (the first of a tie), into
 * out; 0, or -1 when none of them crashed with a report */
int bisect_crash_signature(const struct bisection_run *runs, size_t n, char *out, size_t len);
void bisect_evidence_release(struct bisect_evidence *e);
/* One line of what the runs showed: "3 runs: symptom in 1, 1 no-boot" */
void bisect_evidence_describe(enum bisect_kind k, const struct bisect_evidence *e,
			      struct buf *b);

/* ---- report.c ---- */

/* The bisection as JSON (its fields, its steps with their submissions and
 * the metric's median per step): a new reference, NULL when there is no
 * such bisection or on error. */
struct json_t *bisect_json(struct db *db, int64_t id);
/* The report for a mailing list: the first bad commit (sha, subject,
 * author), the evidence per step, the revert check and `git bisect log`.
 * 1 written, 0 no such bisection, -1 error. */
int bisect_report_text(struct db *db, int64_t id, struct buf *b);

#endif
