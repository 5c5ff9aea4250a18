/* SPDX-License-Identifier: GPL-2.0-only */
/* analysis.h: the statistics and before/after comparison core. The web
 * server (web/comparisons.c, web/request.c) reads metric samples of a base
 * and a patched side from the database, groups them (cells.h) and hands
 * them here; this part summarises each side, decides each metric
 * (cmp_decide(): outlying runs flagged, Student's t on logs, no change
 * only by equivalence within a margin), corrects across a report's
 * metrics (Benjamini-Hochberg), gives a verdict that respects the
 * metric's direction,
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

/* xorshift64* (Vigna), the bootstrap's generator, for whatever needs the
 * same random numbers on every host (the simulations, fixed-seed tests):
 * the next 64 bits, a uniform in [0, 1), a standard normal (Box-Muller).
 * *s must not start at 0. */
uint64_t stats_rand(uint64_t *s);
double stats_unif(uint64_t *s);
double stats_normal(uint64_t *s);

/* ---- verdict.c and compare.c: one metric, base vs patched, in one cell ---- */

#define CMP_ALPHA         0.01   /* better/worse: a (report-adjusted) p below this */
#define CMP_EQUIV_ALPHA   0.05   /* no change: the 1 - 2 * this (90%) interval in the margin */
#define CMP_MARGIN        0.02   /* the default margin: changes within +-2% are no change */
#define CMP_MARGIN_MAX    0.5    /* margins are fractions in (0, CMP_MARGIN_MAX] */
#define CMP_OUTLIER_K     5.0    /* a run this many robust SDs from its side's median is
				  * a candidate outlier ... */
#define CMP_OUTLIER_P     0.001  /* ... and one when the rest make it this unlikely
				  * (Bonferroni over the runs) */
#define CMP_MIN_N         5      /* runs per side asked for at least */
#define CMP_NOISE_CV      0.10   /* a base side varying more than this is noisy */
#define CMP_RUNS_CAP      1000   /* runs_needed is capped here */
#define CMP_METRICS_MAX   1024   /* metrics in one report */
#define CMP_NOTES_MAX     64     /* notes kept in one report */
#define CMP_OUTLIERS_MAX  16     /* outlying runs named per metric and side */

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
	char *boot;      /* the guest setup ([host] boot) when not the default ("fast:
			    qboot pvh loglevel=5 nokaslr tsc=reliable": another kernel
			    entry and console, not the same measurement); NULL, "" or
			    "default" when the default */
};

/* c's guest setup as cells tell them apart: "" for the default */
const char *cmp_cell_boot(const struct cmp_cell *c);
/* ... as it is shown: "default" for the default */
const char *cmp_cell_boot_name(const struct cmp_cell *c);

/* 1 when a and b are the same cell (NULL and "" are the same), else 0 */
int cmp_cell_same(const struct cmp_cell *a, const struct cmp_cell *b);
/* Appends "x86_64, 2 vcpus, 1024 MiB, tcg, host h1" to b, then
 * ", topology 1:2:1" and ", 2 NUMA nodes" when set */
void cmp_cell_describe(const struct cmp_cell *c, struct buf *b);
/* Its end, after the accel: ", host H", ", topology T", ", N NUMA nodes",
 * ", boot B" where they are set */
void cmp_cell_describe_rest(const struct cmp_cell *c, struct buf *b);

enum cmp_verdict {
	CMP_BETTER,      /* p (in a report: its BH q) < alpha, the good way */
	CMP_WORSE,       /* the same, the bad way */
	CMP_CHANGED,     /* significant, but the metric's direction is not known */
	CMP_NO_CHANGE,   /* not significant, and the 90% interval of the ratio lies
			  * within [1 - margin, 1 + margin]: equivalence, never just
			  * the absence of evidence */
	CMP_UNCERTAIN,   /* anything else; runs_needed says how many runs would settle it */
	CMP_VERDICT_COUNT
};

/* "better", "worse", "changed", "no change", "uncertain" */
const char *cmp_verdict_name(enum cmp_verdict v);
/* 0 / -1 */
int cmp_verdict_parse(const char *s, enum cmp_verdict *out);

/* The decision over two sets of runs (verdict.c), for reports, bisection
 * steps and "run until decided" loops alike:
 *
 *  1. Scale: with every value > 0 the runs are compared as logs (a change
 *     is a ratio, lognormal noise becomes normal); else as values over
 *     |median(base)| (a base median of 0: no scale, uncertain).
 *  2. Outliers: a run more than CMP_OUTLIER_K robust SDs (1.4826 times the
 *     median absolute deviation of both sides from their own medians)
 *     from its side's median, and that the other runs make unlikely (a t
 *     test of it against them, p times the runs below CMP_OUTLIER_P), is
 *     flagged and left out of 3., unless that would leave out half of its
 *     side or more, or leave fewer than 3 of it. Runs of normal noise are flagged with a chance of
 *     about CMP_OUTLIER_P in all.
 *  3. Test: Student's two-sample t on the kept values (pooled variance,
 *     n_b + n_p - 2 df): the estimate d (the difference of means, as a
 *     ratio of geometric means on logs), p two-sided, the 90% interval.
 *  4. Verdict (cmp_decision_settle()): p < alpha: better or worse by
 *     higher_better (changed when -1); else the 90% interval of the ratio
 *     within [1 - margin, 1 + margin]: no change; else uncertain, with
 *     the runs per side that would likely settle it: the fewer of those
 *     that would detect the observed change at alpha with 80% power and
 *     those that would put the interval inside the margin (80% power,
 *     when the observed change is inside it), assuming the noise seen.
 *
 * bench/stats.sh measures it: A/A alarms at most alpha, "no change" for a
 * change past the margin at most CMP_EQUIV_ALPHA. */
struct cmp_decision {
	enum cmp_verdict verdict;
	int log_scale;          /* 1: compared as logs */
	int tested;             /* 0: too few runs or no scale: p, interval NAN */
	double diff;            /* the estimate on the compared scale: > 0, the values
				 * went up */
	double ratio;           /* estimate of patched / base (for a negative base
				 * median, above 1 is a lower value) */
	double ci_lo, ci_hi;    /* its 90% interval */
	double p;               /* two-sided */
	double df;              /* of the t test */
	double sd;              /* per-run SD on the compared scale (pooled) */
	double mdc;             /* minimum detectable change at this n and noise, a
				 * fraction: a change this big is called with 80%
				 * chance at alpha; NAN when not tested */
	double margin, alpha;
	double z_alpha, z_equiv; /* normal quantiles runs_needed uses (computed once) */
	size_t kept[2];         /* runs per side in the test */
	size_t outliers[2];     /* runs per side flagged */
	int runs_needed;        /* for CMP_UNCERTAIN, runs per side, at most
				 * CMP_RUNS_CAP; else 0 */
};

/* Decides base[0..nb) against patched[0..np) (one value per run) with
 * margin (a fraction in (0, CMP_MARGIN_MAX]; 0 means CMP_MARGIN) and
 * alpha (in (0, 0.5); 0 means CMP_ALPHA). higher_better 1, 0, or -1 (not
 * known: CMP_CHANGED). out_b and out_p, when not NULL, get 1 for each run
 * flagged as an outlier, else 0 (caller storage of nb and np bytes).
 * 0, or -1 when a side is empty or above STATS_N_MAX, a value is not
 * finite, margin or alpha is out of range, or memory ran out. */
int cmp_decide(const double *base, size_t nb, const double *patched, size_t np,
	       int higher_better, double margin, double alpha, struct cmp_decision *d,
	       unsigned char *out_b, unsigned char *out_p);
/* Sets d's verdict and runs_needed again with p_adj in place of d->p (a
 * report's Benjamini-Hochberg q-value); cmp_decide() calls it with d->p. */
void cmp_decision_settle(struct cmp_decision *d, double p_adj, int higher_better);
/* The runs per side cmp_decide() would need to call a change of the
 * given size (a fraction, > 0) better or worse with 80% chance at alpha,
 * for runs whose per-run SD on the compared scale is sd (on logs when
 * log_scale, else of values over the base median): its runs_needed rule
 * for a change that far from none, without the runs already had, in
 * [CMP_MIN_N, CMP_RUNS_CAP]. -1 when sd is negative or not finite, change
 * is not > 0, or alpha not in (0, 0.5). */
int cmp_runs_to_detect(double sd, double change, double alpha, int log_scale);

/* The comparison of one metric. Strings owned by the report. */
struct cmp_metric {
	char *name;
	char *unit;              /* or NULL */
	int higher_better;       /* 1 higher, 0 lower, -1 not known */
	struct stats_summary base, patched;
	double change_pct;       /* of the median, patched vs base; NAN when the base median is 0 */
	double p;                /* the decision's t test, two-sided; NAN when not computed
				  * (a report from old JSON: Mann-Whitney's) */
	int p_exact;             /* 0 (old JSON: 1 for Mann-Whitney's exact p) */
	double q;                /* p adjusted across the report's metrics (Benjamini-
				  * Hochberg); the verdict uses it; NAN when not known */
	int have_ci;             /* ci_lo, ci_hi hold the 90% interval of the ratio */
	double ci_lo, ci_hi;
	double margin;           /* no change within +-margin (a fraction); NAN when not
				  * known (old JSON) */
	double mdc;              /* minimum detectable change, a fraction (cmp_decision);
				  * NAN when not known */
	double base_cv;          /* NAN when n < 2 or the mean is 0 */
	int noisy;               /* the CV of the base runs the test kept > CMP_NOISE_CV
				  * (shown; the rule uses the noise itself) */
	enum cmp_verdict verdict;
	int runs_needed;         /* for CMP_UNCERTAIN: runs per side that would likely
				  * settle it (cmp_decide()), at most CMP_RUNS_CAP; else 0 */
	/* runs left out as outliers, per side (0 base, 1 patched): how many, and
	 * the first CMP_OUTLIERS_MAX by run id (outlier_by_id) or else by their
	 * place (1-based) in the order given */
	size_t noutliers[2];
	int64_t outlier[2][CMP_OUTLIERS_MAX];
	int outlier_by_id;
	struct cmp_decision dec; /* the decision as made; zero in a report from JSON */
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
	double margin;                      /* for metrics added without one; 0: CMP_MARGIN */
	int corrected;                      /* verdicts use q across the metrics (1 unless
					     * read from old JSON) */
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

/* One metric for cmp_report_add_metric(): all borrowed */
struct cmp_metric_in {
	const char *name, *unit;
	int higher_better;
	double margin;               /* 0: the report's margin */
	const double *v[2];          /* per side (0 base, 1 patched), one value per run */
	const int64_t *run[2];       /* the runs' ids, parallel to v, or NULL */
	size_t n[2];
};

/* cmp_report_add() with a margin and run ids. Each add decides the metric
 * (cmp_decide()) and then settles every metric of the report again with
 * the Benjamini-Hochberg q-values of all their p-values, so the chance of
 * any false better/worse in a report where nothing changed stays at most
 * CMP_ALPHA. 0 / -1 as cmp_report_add(), and -1 for a margin out of
 * range. */
int cmp_report_add_metric(struct cmp_report *r, const struct cmp_metric_in *in);
/* Adds a line shown under the table; past CMP_NOTES_MAX only counted. */
void cmp_report_note(struct cmp_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void cmp_report_release(struct cmp_report *r);

/* ---- render.c: the report as text ---- */

/* Extra columns; the table always has metric, unit, n, both medians,
 * change, mdc ("can see changes of at least") and verdict, and a margin
 * column when the metrics' margins differ (else the line under the table
 * says it). Outlying runs are listed under the table. */
#define CMP_COL_MEAN     0x1u    /* avg of each side */
#define CMP_COL_P99      0x2u
#define CMP_COL_MAX      0x4u
#define CMP_COL_TEST     0x8u    /* p, q and the ratio's 90% interval */
#define CMP_COL_DEFAULT  0u
#define CMP_COL_ALL      (CMP_COL_MEAN | CMP_COL_P99 | CMP_COL_MAX | CMP_COL_TEST)

/* The outlying runs of m onto b: "base runs 12, 19; patched run 31" (run
 * ids), or "base run #3" (places in the order given) */
void cmp_outliers_describe(const struct cmp_metric *m, struct buf *b);
/* A fixed-width plain table for a commit message, headed by the job, the
 * sides and the cell, with the notes under it. Appends to b; 0 / -1. */
int cmp_render_text(const struct cmp_report *r, unsigned cols, struct buf *b);
/* The same as a markdown table. 0 / -1 */
int cmp_render_markdown(const struct cmp_report *r, unsigned cols, struct buf *b);
/* {"job", "base": {"label"}, "patched": {"label"}, "cell": {"arch", "vcpus",
 * "memory_mb", "accel", "host", "topology", "numa_nodes", "boot"}, "metrics": [{"name", "unit", "better":
 * "higher"|"lower"|null, "base": {"n", "median", "mean", "stddev", "p99",
 * "min", "max", "cv"}, "patched": {...}, "change_pct", "p", "p_exact",
 * "ci": [lo, hi]|null, "noisy", "verdict", "runs_needed", "q", "margin",
 * "mdc", "ratio", "ci_level": 0.9, "outliers": {"base": [...], "patched":
 * [...], "by": "run"|"position", "count": [nb, np]}}], "notes": [...],
 * "notes_dropped", "rule": {"alpha", "correction": "benjamini-hochberg",
 * "test", "margin"}}. Numbers that are not finite are null. New reference,
 * caller decrefs; NULL when out of memory. */
json_t *cmp_report_json(const struct cmp_report *r);
/* The reverse, for the CLI: fills r (release it) from such JSON, also
 * from JSON before q, margin, mdc and outliers (those are then NAN or
 * none, and corrected 0). 0, or -1 with err saying what is missing or
 * wrong. */
int cmp_report_from_json(json_t *j, struct cmp_report *r, char *err, size_t errlen);

/* ---- neighbours.c: whether the two sides ran under the same neighbours ---- */

#define CMP_QUIET_SHARE 0.25   /* shares of runs this far apart (or more) differ */

/* What one side's runs ran beside (db/neighbours.c's records) */
struct cmp_quiet_side {
	size_t runs;             /* the side's runs */
	size_t known;            /* ... with a record of their neighbours */
	size_t beside_build;     /* ... of those, beside a build that was not paused */
	size_t beside_run;       /* ... beside another run on their host */
	size_t pinned;           /* ... on host cores of their own */
	size_t overcommitted;    /* ... with more vCPUs than host cores */
};

/* Counts one run into s: known 0 when it has no record; else its pin
 * ("pinned", "unpinned", "overcommitted"), and its runs ("12:1 13:2") and
 * builds ("5 6:paused") as recorded, NULL or "" for none */
void cmp_quiet_count(struct cmp_quiet_side *s, int known, const char *pin, const char *runs,
		     const char *builds);
/* The warning when the sides ran under different neighbours: the share of
 * their (recorded) runs beside a build, beside another run, or pinned is
 * CMP_QUIET_SHARE or more apart, or one side has records and the other
 * none. Appends one line to b ("neighbours differ: base 3 of 5 runs beside
 * a build, patched 0 of 5") and returns 1; 0 (b untouched) when alike. */
int cmp_quiet_warning(const struct cmp_quiet_side s[2], const char *const names[2],
		      struct buf *b);

#endif

