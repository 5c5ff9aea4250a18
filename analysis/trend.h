/* SPDX-License-Identifier: GPL-2.0-only */
/* trend.h: a metric and the pass rates of a job's tests across the commits
 * of a tree. The web server (web/trends.c) reads, per commit in history
 * order, one value per passed run (the median of its samples) and the
 * result rows of the counted runs; this file summarises each commit, finds
 * the steps that hold (change points) and the tests that started or
 * stopped failing, and turns it all into JSON. Pure: no I/O, no state.
 *
 * Usage:
 *   struct trend_point_in in[] = { { "1a2b3c...", 812, vals, nvals }, ... };
 *   struct trend t;
 *   if (trend_build(&t, in, n, 1, err, sizeof(err)) < 0) ...
 *   t.v[i].median, t.c[j].index, trend_dir_name(t.c[j].dir) ...
 *   if (trend_passrate(&t, rows, nrows, err, sizeof(err)) < 0) ...
 *   json = trend_json(&t);
 *   trend_release(&t);
 *
 * Change points, by binary segmentation over the points that have runs:
 * in a segment, every split leaving at least TREND_MIN_POINTS points on
 * each side is scored by the Mann-Whitney z of the runs on either side
 * (ranks over the segment, so all splits cost one sort). The best scoring
 * split whose medians (over the runs of each side) differ by at least
 * TREND_MIN_CHANGE of the before median and that holds (more than half of
 * each side's points, and at least TREND_MIN_POINTS, have their median on
 * their own side of the midpoint of the two) is tested with
 * stats_mann_whitney(); with p times the number of splits scored (a
 * Bonferroni correction: the best of many splits looks better than it is)
 * below TREND_ALPHA it is a change point and both halves are searched
 * again. One noisy point is therefore never a step: the side it is on
 * would need a second point that agrees with it. When all are found, each
 * change point's medians, run counts and p are taken again between its
 * neighbours, so a step's "before" does not mix in an earlier step.
 *
 * Pass rates: per test path and point, the runs that passed it (pass,
 * xfail), failed it (fail, error, timeout) or skipped it (skip, missing, or
 * no row in a run that has other rows). A point is all-pass for a path
 * with pass >= 1 and fail == 0, failing with fail >= 1; other points gave
 * no verdict and are stepped over. Over the points with a verdict, a
 * stretch of TREND_HOLD or more in a row that fail is a regression at its
 * first point when the state held before was all-pass; all-pass after
 * failing is a fix. A shorter stretch changes nothing (one failure among
 * passes is flakiness, not a regression); the first stretch sets the state
 * held, however short.
 */
#ifndef KF_TREND_H
#define KF_TREND_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define TREND_POINTS_MAX    500       /* commits in one trend */
#define TREND_RUNS_MAX      100       /* runs (values) per commit */
#define TREND_MIN_POINTS    2         /* points on each side of a change point */
#define TREND_ALPHA         0.01      /* Mann-Whitney p below this */
#define TREND_MIN_CHANGE    0.03      /* and the medians differ by 3% or more */
#define TREND_CHANGES_MAX   64        /* change points reported */
#define TREND_HOLD          2         /* points a pass-rate change must hold */
#define TREND_ROWS_MAX      1000000   /* result rows trend_passrate() takes */
#define TREND_TESTS_MAX     5000      /* test paths tracked */

/* One commit as read. Borrowed; v may be NULL when n is 0 (a commit with
 * result rows but no passed run with the metric). */
struct trend_point_in {
	const char *commit;   /* the commit id, or any label */
	int64_t order;        /* kernels.commit_order: -1 when not known */
	const double *v;      /* one value per run */
	size_t n;
};

/* One commit's summary. commit and v owned by the trend. Quantiles are
 * linear interpolations between order statistics (R's type 7): with 3
 * runs p25 is halfway between the lowest two. NAN when n is 0. */
struct trend_point {
	char *commit;
	int64_t order;
	double *v;            /* the values, sorted */
	size_t n;
	double median, p25, p75, min, max;
};

enum trend_dir { TREND_BETTER, TREND_WORSE, TREND_CHANGED, TREND_DIR_COUNT };

/* A step that holds: the points from index on differ from those before. */
struct trend_change {
	size_t index;         /* the first point after the step */
	double before, after; /* medians of the runs of the segment on each side */
	size_t n_before, n_after;   /* runs on each side */
	double change_pct;    /* of after vs before; NAN when before is 0 */
	double p;             /* Mann-Whitney two-sided, times splits (at most 1) */
	size_t splits;        /* splits scored in the segment it was found in */
	enum trend_dir dir;   /* CHANGED when the metric's direction is unknown */
};

/* Counts of one test at one point */
struct trend_count {
	int pass, fail, skip;
};

enum trend_event_kind { TREND_REGRESSION, TREND_FIX };

/* One test path over the points. Owned by the trend.
 * Its flips across commits: over the points with a verdict (all-pass 0,
 * failing 1), the times a point's verdict differs from the one before
 * (flips) out of the pairs of such points (chances); and the points where
 * it passed and failed on that commit's kernel (flaky_points), the flips
 * on the same kernel that analysis/flaky.h quarantines by. */
struct trend_test {
	char *path;
	struct trend_count *c;   /* per point, t->n of them */
	int flips, chances, flaky_points;
};

struct trend_event {
	size_t test;             /* index into tests */
	size_t index;            /* the point where it starts */
	enum trend_event_kind kind;
};

struct trend {
	struct trend_point *v;   /* in the order given */
	size_t n;
	int higher_better;       /* 1, 0, or -1 when not known */
	struct trend_change *c;  /* by index */
	size_t nc;
	int changes_dropped;     /* more than TREND_CHANGES_MAX were found */
	/* pass rates (trend_passrate()) */
	int have_passrate;
	int *runs;               /* per point: its runs among the rows */
	struct trend_test *tests;   /* the paths that ever failed, by path */
	size_t ntests;
	size_t always_pass;      /* paths that never failed (not in tests) */
	size_t tests_dropped;    /* paths that failed, past TREND_TESTS_MAX */
	struct trend_event *ev;  /* by point, then test */
	size_t nev;
};

/* "better", "worse", "changed" */
const char *trend_dir_name(enum trend_dir d);
/* "regression", "fix" */
const char *trend_event_name(enum trend_event_kind k);

/* Quantile q (0..1) of sorted v[0..n), linear between order statistics;
 * NAN when n is 0 */
double trend_quantile(const double *sorted, size_t n, double q);

/* Summarises in[0..n) and finds the change points (the rule above);
 * higher_better 1, 0 or -1. 0, or -1 with err set when there are more
 * than TREND_POINTS_MAX points or TREND_RUNS_MAX values in one, a value is
 * not finite, a commit is NULL, or memory ran out. Release t in both
 * cases. */
int trend_build(struct trend *t, const struct trend_point_in *in, size_t n,
		int higher_better, char *err, size_t errlen);

/* One results row as read: point is an index into t's points, run any id
 * that tells the runs of a point apart. path NULL: the run had no rows
 * (it still counts among the point's runs). Borrowed. */
struct trend_result {
	size_t point;
	int64_t run;
	const char *path;
	const char *status;
};

/* Adds the pass rates of rows[0..n) to a built t (the rule above). 0, or
 * -1 with err set when a row names a point past t->n or has an unknown
 * status, there are more than TREND_ROWS_MAX rows, or memory ran out. */
int trend_passrate(struct trend *t, const struct trend_result *rows, size_t n,
		   char *err, size_t errlen);

void trend_release(struct trend *t);

/* {"better": "higher"|"lower"|null, "params": {"alpha", "min_change_pct",
 * "min_points"}, "points": [{"commit", "order", "n", "median", "p25",
 * "p75", "min", "max", "values": [...]}], "changes": [{"index", "commit",
 * "before", "after", "n_before", "n_after", "change_pct", "p", "splits",
 * "verdict"}], "changes_dropped", and with pass rates "passrate": {"runs":
 * [per point], "tests": [{"path", "pass": [...], "fail": [...], "skip":
 * [...], "flips", "chances", "flip_rate", "flaky_points"}] (only those
 * that ever failed), "always_pass": N, "events":
 * [{"path", "index", "commit", "kind"}], "tests_dropped"}}. Numbers that are
 * not finite are null. New reference, caller decrefs; NULL when out of
 * memory. */
json_t *trend_json(const struct trend *t);

#endif
