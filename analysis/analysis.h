/* analysis.h: the statistics and before/after comparison core. The web
 * server (web/comparisons.c, web/request.c) reads metric samples of a base
 * and a patched side from the database, groups them (cells.h) and hands
 * them here; this part summarises each side, tests the difference
 * (Mann-Whitney U and a bootstrap interval of the ratio of medians),
 * gives a verdict that respects the metric's direction,
 * and renders the result as a plain table, markdown or JSON. It does no
 * I/O and keeps no state: the same samples always give the same output.
 *
 * Usage:
 *   struct cmp_report r;
 *   if (cmp_report_init(&r, "job", "kernel 3", "kernel 4", &cell_a, &cell_b,
 *                       err, sizeof(err)) < 0) ...   the cells differ: err says how
 *   cmp_report_add(&r, "ops", "1/s", 1, base, nb, patched, np);
 *   cmp_render_text(&r, CMP_COL_DEFAULT, &buf);
 *   cmp_report_release(&r);
 */
#ifndef KF_ANALYSIS_H
#define KF_ANALYSIS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* ---- stats.c: descriptive statistics and tests over arrays of doubles ---- */

#define STATS_N_MAX          1000000  /* values per side any stats_ call takes */
#define STATS_EXACT_MAX      20       /* Mann-Whitney is exact up to this n per side */
#define STATS_RESAMPLES      2000     /* bootstrap resamples */
#define STATS_SEED           0x6b666c656574ULL   /* "kfleet": the bootstrap's fixed seed */

struct stats_summary {
	size_t n;
	double median;
	double mean;
	double stddev;   /* sample standard deviation (n - 1); 0 when n == 1 */
	double p99;      /* nearest rank: the ceil(0.99 n)-th smallest (the max when n < 100) */
	double min, max;
};

/* Summarises v[0..n). 0, or -1 when n is 0 or above STATS_N_MAX, a value
 * is not finite, or memory ran out. v is not changed. */
int stats_summarize(const double *v, size_t n, struct stats_summary *s);

/* Coefficient of variation stddev / |mean|; NAN when n < 2 or mean == 0 */
double stats_cv(const struct stats_summary *s);

/* Mann-Whitney U test, two-sided, of x against y. */
struct stats_mw {
	double u;        /* U of x: pairs (x_i, y_j) with x_i > y_j, ties counting 1/2 */
	double p;        /* two-sided p-value, in [0, 1] */
	int exact;       /* 1: from the exact distribution of U (both n <= STATS_EXACT_MAX
			  * and no ties); 0: normal approximation with continuity and
			  * tie correction */
	int ties;        /* the pooled sample has tied values */
};

/* 0, or -1 when a side is empty or above STATS_N_MAX, a value is not
 * finite, or memory ran out. All values tied gives p = 1. */
int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct stats_mw *out);

/* Percentile bootstrap 95% confidence interval of median(patched) /
 * median(base): resamples both sides with replacement (xorshift64* seeded
 * with seed, so the interval is reproducible), sorts the ratios and takes
 * the 2.5% and 97.5% nearest ranks (ratios[floor(0.025 B)] and
 * ratios[ceil(0.975 B) - 1]). 0, or -1 when a side is empty or too big, a
 * value is not finite, a resampled base median is 0 (the ratio is
 * undefined), resamples is 0, or memory ran out. */
int stats_bootstrap_ratio(const double *base, size_t nb, const double *patched, size_t np,
			  unsigned resamples, uint64_t seed, double *lo, double *hi);

/* Student's t distribution with df degrees of freedom (df > 0, need not be
 * whole): P(T <= t), and the t with P(T <= t) = p for p in (0, 1). NAN for
 * arguments outside those ranges. */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double p, double df);

/* Benjamini-Hochberg adjusted p-values (q-values) of p[0..n) into q[0..n)
 * (q may be p): q_(k) = min over j >= k of p_(j) n' / j, at most 1, where
 * p_(j) is the j-th smallest and n' the number of finite p-values; a p
 * that is not finite gives q NAN and is not counted. Rejecting every q <
 * alpha keeps the expected share of false discoveries at most alpha, and
 * the chance of any when nothing changed (the family-wise error under the
 * global null) at most alpha, for independent tests. 0, -1 memory. */
int stats_bh_adjust(const double *p, size_t n, double *q);

/* ---- compare.c: one metric, base vs patched, in one cell ---- */

#define CMP_ALPHA         0.05   /* p below this is significant */
#define CMP_EQUIV         0.02   /* a ratio CI within [0.98, 1.02] is no change */
#define CMP_MIN_N         5      /* runs per side for "p >= alpha" to mean no change */
#define CMP_NOISE_CV      0.10   /* a base side varying more than this is noisy */
#define CMP_RUNS_CAP      1000   /* runs_needed is capped here */
#define CMP_METRICS_MAX   1024   /* metrics in one report */
#define CMP_NOTES_MAX     64     /* notes kept in one report */

/* The conditions runs ran under. Runs of different cells are never
 * compared: TCG and KVM, different vCPUs, memory or hosts differ too much. */
struct cmp_cell {
	char *arch;      /* owned in a report; borrowed when passed in */
	int vcpus;
	int memory_mb;
	char *accel;     /* "kvm", "tcg"; NULL or "" when not known */
	char *host;      /* NULL or "" when not known */
	char *topology;  /* "S:C:T" sockets:cores:threads; NULL or "" when the default */
	int numa_nodes;  /* 0 or 1: one node */
};

/* 1 when a and b are the same cell (NULL and "" are the same), else 0 */
int cmp_cell_same(const struct cmp_cell *a, const struct cmp_cell *b);
/* Appends "x86_64, 2 vcpus, 1024 MiB, tcg, host h1" to b, then
 * ", topology 1:2:1" and ", 2 NUMA nodes" when set */
void cmp_cell_describe(const struct cmp_cell *c, struct buf *b);

enum cmp_verdict {
	CMP_BETTER,      /* p < CMP_ALPHA and the ratio CI excludes 1, the good way */
	CMP_WORSE,       /* the same, the bad way */
	CMP_CHANGED,     /* significant, but the metric's direction is not known */
	CMP_NO_CHANGE,   /* CI within +-CMP_EQUIV, or p >= CMP_ALPHA with n >= CMP_MIN_N
			  * per side and a base that is not noisy */
	CMP_UNCERTAIN,   /* anything else; runs_needed says how many runs would settle it */
	CMP_VERDICT_COUNT
};

/* "better", "worse", "changed", "no change", "uncertain" */
const char *cmp_verdict_name(enum cmp_verdict v);
/* 0 / -1 */
int cmp_verdict_parse(const char *s, enum cmp_verdict *out);

/* The comparison of one metric. Strings owned by the report. */
struct cmp_metric {
	char *name;
	char *unit;              /* or NULL */
	int higher_better;       /* 1 higher, 0 lower, -1 not known */
	struct stats_summary base, patched;
	double change_pct;       /* of the median, patched vs base; NAN when the base median is 0 */
	double p;                /* Mann-Whitney two-sided; NAN when not computed */
	int p_exact;
	int have_ci;             /* ci_lo, ci_hi hold the bootstrap 95% CI of the ratio */
	double ci_lo, ci_hi;
	double base_cv;          /* NAN when n < 2 or the mean is 0 */
	int noisy;               /* base_cv > CMP_NOISE_CV */
	enum cmp_verdict verdict;
	int runs_needed;         /* for CMP_UNCERTAIN: runs per side that would likely
				  * settle it (see compare.c), at most CMP_RUNS_CAP; else 0 */
};

/* A comparison of one job in one cell: base vs patched, metric by metric. */
struct cmp_report {
	char *job;
	char *base_label, *patched_label;   /* "kernel 3" */
	struct cmp_cell cell;
	struct cmp_metric *v;
	size_t n, alloc;
	char *notes[CMP_NOTES_MAX];         /* "metric 'x': no patched samples" */
	size_t nnotes;
	size_t notes_dropped;
};

/* Fills r for a comparison of base against patched. Returns 0, or -1 when
 * the cells differ (err gets "cells differ: vcpus 2 vs 16") or memory ran
 * out. job and the labels may be NULL. Release r in both cases. */
int cmp_report_init(struct cmp_report *r, const char *job, const char *base_label,
		    const char *patched_label, const struct cmp_cell *base,
		    const struct cmp_cell *patched, char *err, size_t errlen);
/* Compares one metric: higher_better 1, 0 or -1 (not known). The arrays
 * are copied. 0, or -1 when a side is empty or above STATS_N_MAX, a value
 * is not finite, the report holds CMP_METRICS_MAX metrics, or memory ran
 * out. */
int cmp_report_add(struct cmp_report *r, const char *metric, const char *unit,
		   int higher_better, const double *base, size_t nb, const double *patched,
		   size_t np);
/* Adds a line shown under the table; past CMP_NOTES_MAX only counted. */
void cmp_report_note(struct cmp_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cmp_report_release(struct cmp_report *r);

/* ---- render.c: the report as text ---- */

/* Extra columns; the table always has metric, unit, n, both medians,
 * change and verdict. */
#define CMP_COL_MEAN     0x1u    /* avg of each side */
#define CMP_COL_P99      0x2u
#define CMP_COL_MAX      0x4u
#define CMP_COL_TEST     0x8u    /* p-value and the ratio's 95% CI */
#define CMP_COL_DEFAULT  0u
#define CMP_COL_ALL      (CMP_COL_MEAN | CMP_COL_P99 | CMP_COL_MAX | CMP_COL_TEST)

/* A fixed-width plain table for a commit message, headed by the job, the
 * sides and the cell, with the notes under it. Appends to b; 0 / -1. */
int cmp_render_text(const struct cmp_report *r, unsigned cols, struct buf *b);
/* The same as a markdown table. 0 / -1 */
int cmp_render_markdown(const struct cmp_report *r, unsigned cols, struct buf *b);
/* {"job", "base": {"label"}, "patched": {"label"}, "cell": {"arch", "vcpus",
 * "memory_mb", "accel", "host", "topology", "numa_nodes"}, "metrics": [{"name", "unit", "better":
 * "higher"|"lower"|null, "base": {"n", "median", "mean", "stddev", "p99",
 * "min", "max", "cv"}, "patched": {...}, "change_pct", "p", "p_exact",
 * "ci": [lo, hi]|null, "noisy", "verdict", "runs_needed"}], "notes": [...],
 * "notes_dropped"}. Numbers that are not finite are null. New reference,
 * caller decrefs; NULL when out of memory. */
json_t *cmp_report_json(const struct cmp_report *r);
/* The reverse, for the CLI: fills r (release it) from such JSON. 0, or -1
 * with err saying what is missing or wrong. */
int cmp_report_from_json(json_t *j, struct cmp_report *r, char *err, size_t errlen);

#endif
