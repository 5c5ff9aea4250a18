/* SPDX-License-Identifier: GPL-2.0-only */
/* flaky.h: how often a test flips, and when it is quarantined. The daemon
 * reads a test's newest runs in one cell (job, arch, vCPUs) after each run
 * it concludes (orchestrator/flaky.c), these rules say what they show, and
 * the quarantine table keeps the answer. Pure: no I/O, no state.
 *
 * A run gives a test a verdict, pass or fail, or none (skip, missing): the
 * worst of its rows, as analysis/passfail.h counts them. Runs without a
 * verdict are left out here. Runs come oldest first, each with its kernel.
 *
 * A flip is a run whose verdict differs from the one before it ON THE SAME
 * KERNEL (the same kernel build in the same cell). Only such a flip is
 * evidence that the test, not the kernel, changed its mind: a test that
 * starts failing at a commit and keeps failing is a regression, never a
 * flip. A window of the newest N runs holds the flips made at its runs
 * (the run before one may be older than the window). The flip rate is its
 * flips over its runs that had an earlier run of their kernel (the
 * chances to flip).
 *
 * Quarantine: a test not in quarantine goes in when its newest
 * FLAKY_WINDOW runs hold at least FLAKY_MIN_FLIPS flips. It comes out when
 * its newest FLAKY_RELEASE_RUNS runs hold no flip at all (it held steady on
 * every kernel it ran on, whether passing or failing). Release needs more
 * runs than the window, so a released test is never quarantined again by
 * the runs that released it.
 */
#ifndef KF_FLAKY_H
#define KF_FLAKY_H

#include <stddef.h>
#include <stdint.h>

#define FLAKY_WINDOW        20   /* newest runs a quarantine looks at */
#define FLAKY_MIN_FLIPS     2    /* flips among them that quarantine a test */
#define FLAKY_RELEASE_RUNS  30   /* newest runs without a flip that release it */
#define FLAKY_SCAN_RUNS     100  /* newest runs of a cell the daemon reads */

/* One run's verdict on one test */
struct flaky_run {
	int64_t run_id;
	int64_t kernel_id;
	int failed;          /* 1 fail, 0 pass */
};

/* What the newest runs of a test show */
struct flaky_stats {
	int runs;            /* runs looked at */
	int fails;           /* of them failed */
	int flips;           /* flips among them (same kernel) */
	int chances;         /* runs with an earlier run of their kernel among them */
};

/* Counts the newest max (0: all) of v[0..n), oldest first, into s */
void flaky_measure(const struct flaky_run *v, size_t n, size_t max, struct flaky_stats *s);

/* The flip rate of s: flips / chances, 0 without chances */
double flaky_rate(const struct flaky_stats *s);

enum flaky_action {
	FLAKY_KEEP,          /* nothing changes */
	FLAKY_QUARANTINE,    /* put it in quarantine */
	FLAKY_RELEASE,       /* take it out */
};

/* What a test with runs v[0..n) (oldest first) wants, given whether it is
 * in quarantine now: the rule above. s (may be NULL) gets the newest
 * FLAKY_WINDOW runs' counts, what a listing shows. */
enum flaky_action flaky_decide(const struct flaky_run *v, size_t n, int quarantined,
			       struct flaky_stats *s);

/* "2 flips in the last 20 runs (5 of 20 failed)" into out */
void flaky_reason(const struct flaky_stats *s, char *out, size_t len);

/* A results status as a verdict: 1 fail (fail, error, timeout), 0 pass
 * (pass, xfail), -1 none (skip, missing, or not a status) */
int flaky_verdict_of(const char *status);

/* One results row of a test: the run, its kernel and the row's status.
 * Borrowed. */
struct flaky_row {
	int64_t run_id;
	int64_t kernel_id;
	const char *status;
};

/* The rows of one test, oldest run first (several rows for one run
 * allowed), reduced to a verdict per run into out: a run with a failing
 * row failed; one with a skip or missing row and no failing row has no
 * verdict and is left out, as is a row with an unknown status. Writes at
 * most n runs and returns how many. */
size_t flaky_collapse(const struct flaky_row *rows, size_t n, struct flaky_run *out);

/* 1 when path is one of paths[0..n), sorted by strcmp (as
 * db_quarantined_paths gives them), else 0 */
int flaky_path_listed(char *const *paths, size_t n, const char *path);

#endif
