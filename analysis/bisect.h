/* SPDX-License-Identifier: GPL-2.0-only */
/* bisect.h: the decision rules of a bisection, apart from the driver that
 * builds commits and queues their runs. Given what the runs of the two
 * ends and of one step showed, they say good, bad, skip or "more runs",
 * with the evidence in a line and how sure the answer is. Pure: no I/O, no
 * state, the same inputs give the same answer; made-up results drive them
 * in the unit tests and in bench/bisect-sim.
 *
 * Two kinds of symptom:
 *   - a test that fails (or a crash): seen or not in each run. The symptom
 *     may be flaky: its rate at the bad end says how many clean runs make
 *     "good" unlikely to be a miss (at 30%, 13 runs for a miss chance under
 *     1%); one that always shows needs one run a step.
 *   - a metric that got worse: a step's samples must sit with the bad end's
 *     or with the good end's, by the comparisons' rule (cmp_decide(): t
 *     on logs, equivalence within half the regression); otherwise more runs, as
 *     many as that rule says, up to a cap, then a skip with that reason. */
#ifndef KF_BISECT_H
#define KF_BISECT_H

#include <stddef.h>

#define BISECT_MISS_MAX   0.01   /* a "good" step's chance of hiding the symptom */
#define BISECT_ALPHA      0.005  /* a metric step's significance */
#define BISECT_RUNS_MAX   50     /* runs per step at most, whatever the rate */
#define BISECT_END_RUNS   10     /* runs an end gets at a time ... */
#define BISECT_END_RUNS_MAX 40   /* ... and at most, for a flaky symptom's rate */

enum bisect_answer {
	BISECT_GOOD,
	BISECT_BAD,
	BISECT_SKIP,     /* cannot tell: did not build or boot, failed otherwise, undecided */
	BISECT_MORE,     /* queue `more` runs and ask again */
};

/* "good", "bad", "skip", "more" */
const char *bisect_answer_name(enum bisect_answer a);

/* ---- a failing test or a crash ---- */

/* What the runs of one commit showed. A run "other" failed for a reason
 * that is not the symptom (no boot, another test, a crash with another
 * signature, infrastructure): it hides whether the symptom would show. */
struct bisect_pf {
	int runs;        /* runs that ended */
	int seen;        /* ... that showed the symptom */
	int other;       /* ... that failed otherwise */
};

/* The symptom's rate at the bad end, from its runs: seen / (runs - other).
 * 0 when no clean run showed it. */
double bisect_pf_rate(const struct bisect_pf *bad);

/* The least rate the bad end's runs allow: the lower end of Wilson's
 * one-sided 95% interval of seen / clean runs; 1 when every clean run
 * showed the symptom (taken as one that always does), 0 when none did.
 * The runs a step needs are counted at this rate, so a bad end that
 * happened to fail often does not make "good" come too soon. */
double bisect_pf_rate_low(const struct bisect_pf *bad);

/* Clean runs without the symptom that make "good" a miss with chance
 * below miss_max, at the bad end's rate: the least m with (1 - rate)^m <
 * miss_max; 1 for a symptom that always shows; BISECT_RUNS_MAX + 1 when
 * more than that would be needed (or the rate is 0). */
int bisect_pf_runs_needed(double rate, double miss_max);

/* More runs the bad end needs before bisecting: while the runs a step
 * would need at bisect_pf_rate_low() pass runs_max, BISECT_END_RUNS more
 * (up to BISECT_END_RUNS_MAX in all); else 0. */
int bisect_pf_end_runs(const struct bisect_pf *bad, int runs_max);

/* The ends before anything is bisected: good must not show the symptom
 * in any clean run, bad must show it. 0 when they hold; -1 with why
 * ("bad passed 5 of 5 runs: nothing to bisect"). */
int bisect_pf_check_ends(const struct bisect_pf *good, const struct bisect_pf *bad, char *why,
			 size_t n);

/* One step: bad when a clean run showed the symptom; good when enough
 * clean runs did not, at bisect_pf_rate_low() (*miss: the chance that was
 * a miss at that rate); skip when the
 * runs that failed otherwise are half or more of them, or when the clean
 * runs needed would pass runs_max; else more (*more: how many). why says
 * what was seen. */
enum bisect_answer bisect_pf_decide(const struct bisect_pf *bad_end, const struct bisect_pf *step,
				    int runs_max, int *more, double *miss, char *why, size_t n);

/* ---- a metric that got worse ---- */

struct bisect_samples {
	const double *v;
	size_t n;
};

/* The ends of a metric bisection: bad must differ from good with p <
 * alpha, the worse way when higher_better is 0 or 1 (-1: either way).
 * 0, *change_pct = the bad end's median against the good end's; -1 with
 * why. */
int bisect_metric_check_ends(const struct bisect_samples *good, const struct bisect_samples *bad,
			     int higher_better, double alpha, double *change_pct, char *why,
			     size_t n);

/* One step, by cmp_decide() of each end against the step's samples at
 * alpha, with the ends' difference (the regression) as the measure: bad
 * when it differs from good (p < alpha) the way bad lies and is the same
 * as bad (the 90% interval of step / bad within half the regression, on
 * logs when the ends compare on logs: bad at 0.03 of good leaves a factor
 * 5.8 either side) or not different from bad where the whole regression
 * would have shown (its mdc at most the regression); good the other way
 * round; skip when it differs from both ends (a change of another size:
 * a second commit, or noise); otherwise more runs: those that would see the regression at
 * the noise seen (cmp_runs_to_detect()), 5 more when that many are there
 * already, and skip once runs_max is reached. *p: the chance the answer is
 * wrong, bounded by the test's level: alpha for good and bad (why has the
 * p-value itself, the ratios and the interval). */
enum bisect_answer bisect_metric_decide(const struct bisect_samples *good,
					const struct bisect_samples *bad,
					const struct bisect_samples *step, double alpha,
					int runs_max, int *more, double *p, char *why, size_t n);

/* ---- the whole path ---- */

/* The chance the path went wrong, from each decided step's error chance
 * (a good step's miss chance, a metric step's p): the union bound, at most
 * 1. */
double bisect_path_error(const double *step_error, size_t n);

/* Build rounds a bisection of n commits needs at most when every step is
 * decided: ceil(log2 n) + 1 (the +1: the ends' own builds are shared). */
int bisect_rounds_bound(size_t n);

#endif
