// SPDX-License-Identifier: GPL-2.0-only
/* bisect.c: the decision rules of a bisection (see bisect.h): how many runs
 * a step needs, and whether what they showed is good, bad, skip or not yet
 * enough, for a failing test and for a metric. Pure functions over counts
 * and samples; the driver stores them and queues the runs. */
#include "analysis/bisect.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

const char *bisect_answer_name(enum bisect_answer a)
{
	switch (a) {
	case BISECT_GOOD: return "good";
	case BISECT_BAD: return "bad";
	case BISECT_SKIP: return "skip";
	case BISECT_MORE: return "more";
	}
	return "?";
}

static int clean(const struct bisect_pf *s)
{
	return s->runs - s->other > 0 ? s->runs - s->other : 0;
}

double bisect_pf_rate(const struct bisect_pf *bad)
{
	int c = clean(bad);

	return c > 0 && bad->seen > 0 ? (double)bad->seen / c : 0.0;
}

double bisect_pf_rate_low(const struct bisect_pf *bad)
{
	const double z = 1.645;  /* one-sided 95% */
	double c = clean(bad), p, mid, half;

	if (c <= 0 || bad->seen <= 0)
		return 0.0;
	if (bad->seen >= c)
		return 1.0;      /* it always showed: taken as a symptom that always does */
	/* Wilson's score interval, its lower end */
	p = bad->seen / c;
	mid = p + z * z / (2 * c);
	half = z * sqrt(p * (1 - p) / c + z * z / (4 * c * c));
	return (mid - half) / (1 + z * z / c);
}

int bisect_pf_runs_needed(double rate, double miss_max)
{
	double m;

	if (!(rate > 0.0))
		return BISECT_RUNS_MAX + 1;
	if (rate >= 1.0)
		return 1;
	/* the least m with (1 - rate)^m < miss_max */
	m = floor(log(miss_max) / log1p(-rate)) + 1;
	return m > BISECT_RUNS_MAX ? BISECT_RUNS_MAX + 1 : (int)m;
}

int bisect_pf_end_runs(const struct bisect_pf *bad, int runs_max)
{
	int left = BISECT_END_RUNS_MAX - bad->runs;

	if (left <= 0 || bad->seen == 0 ||
	    bisect_pf_runs_needed(bisect_pf_rate_low(bad), BISECT_MISS_MAX) <= runs_max)
		return 0;
	return left < BISECT_END_RUNS ? left : BISECT_END_RUNS;
}

int bisect_pf_check_ends(const struct bisect_pf *good, const struct bisect_pf *bad, char *why,
			 size_t n)
{
	if (clean(bad) == 0) {
		snprintf(why, n, "bad: none of %d runs got far enough to show the symptom "
			 "(%d failed otherwise)", bad->runs, bad->other);
		return -1;
	}
	if (bad->seen == 0) {
		snprintf(why, n, "bad passed %d of %d runs: nothing to bisect", clean(bad),
			 bad->runs);
		return -1;
	}
	if (clean(good) == 0) {
		snprintf(why, n, "good: none of %d runs got far enough to show the symptom "
			 "(%d failed otherwise)", good->runs, good->other);
		return -1;
	}
	if (good->seen > 0) {
		snprintf(why, n, "good shows the symptom too (%d of %d runs): it is not good",
			 good->seen, clean(good));
		return -1;
	}
	return 0;
}

enum bisect_answer bisect_pf_decide(const struct bisect_pf *bad_end, const struct bisect_pf *step,
				    int runs_max, int *more, double *miss, char *why, size_t n)
{
	double rate = bisect_pf_rate_low(bad_end);
	int need = bisect_pf_runs_needed(rate, BISECT_MISS_MAX), c = clean(step);

	*more = 0;
	*miss = 0.0;
	if (step->seen > 0) {
		snprintf(why, n, "the symptom in %d of %d runs", step->seen, step->runs);
		return BISECT_BAD;
	}
	if (step->runs > 0 && 2 * step->other >= step->runs) {
		snprintf(why, n, "%d of %d runs failed for another reason", step->other, step->runs);
		return BISECT_SKIP;
	}
	if (need > runs_max) {
		snprintf(why, n, "%d clean runs would be needed (the symptom's rate is %.0f%%), "
			 "more than %d", need, rate * 100, runs_max);
		return BISECT_SKIP;
	}
	if (c >= need) {
		*miss = pow(1.0 - rate, c);
		snprintf(why, n, "no symptom in %d runs (at a rate of %.0f%%, the least the "
			 "bad end's runs allow, a miss has chance %.2g)", c, rate * 100, *miss);
		return BISECT_GOOD;
	}
	/* runs that fail otherwise keep coming at their own rate */
	*more = need - c;
	if (step->runs + *more > runs_max) {
		snprintf(why, n, "%d more clean runs needed, over the cap of %d", *more, runs_max);
		*more = 0;
		return BISECT_SKIP;
	}
	snprintf(why, n, "no symptom in %d runs, %d needed", c, need);
	return BISECT_MORE;
}

/* ---- metrics ---- */

static int median_of(const struct bisect_samples *s, double *out)
{
	struct stats_summary sum;

	if (stats_summarize(s->v, s->n, &sum) < 0)
		return -1;
	*out = sum.median;
	return 0;
}

int bisect_metric_check_ends(const struct bisect_samples *good, const struct bisect_samples *bad,
			     int higher_better, double alpha, double *change_pct, char *why,
			     size_t n)
{
	struct stats_mw mw;
	double mg, mb;

	if (!good->n || !bad->n || median_of(good, &mg) < 0 || median_of(bad, &mb) < 0 ||
	    stats_mann_whitney(bad->v, bad->n, good->v, good->n, &mw) < 0) {
		snprintf(why, n, "no samples at %s", !good->n ? "good" : "bad");
		return -1;
	}
	*change_pct = mg != 0 ? (mb - mg) / fabs(mg) * 100 : NAN;
	if (mw.p >= alpha) {
		snprintf(why, n, "bad (median %g, %zu runs) does not differ from good (median %g, "
			 "%zu runs): p = %.3g: nothing to bisect", mb, bad->n, mg, good->n, mw.p);
		return -1;
	}
	if ((higher_better == 1 && mb > mg) || (higher_better == 0 && mb < mg)) {
		snprintf(why, n, "bad (median %g) is better than good (median %g): swap them",
			 mb, mg);
		return -1;
	}
	return 0;
}

/* The regression the ends show, which a step is measured against: half of
 * it is how near a step must sit to an end to be called the same as it,
 * and the whole of it is the change a step's runs must be able to see */
struct gap {
	int log_scale;   /* the ends compared as logs */
	double half;     /* half of it: of log(bad / good) when log_scale, else of
			  * bad / good - 1 */
	double whole;    /* the whole of it as a fraction (for cmp_runs_to_detect()
			  * and a comparison's mdc) */
	double margin;   /* what cmp_decide() is given: within its range */
};

/* What a step's runs showed against one end: cmp_decide() of the end
 * (base) against the step (patched) */
struct side {
	struct cmp_decision d;
	int differs;     /* p < alpha */
	int same;        /* the 90% interval of step / end within half the gap */
	int toward;      /* differs, and the step lies the way of the other end */
	int gap_runs;    /* runs a side that would see the whole regression at the
			  * noise seen, by cmp_decide()'s rule */
	int alike;       /* same, or not different where the regression would show */
};

/* Within half the gap, on the scale the ends were compared on: a 97%
 * regression (bad 0.03 of good) leaves room of a factor 5.8 either side
 * on logs, where half of it as a fraction (0.485) would not hold a noisy
 * step that sits with bad */
static int within(const struct gap *g, double lo, double hi)
{
	if (!(lo > 0) || !(hi > 0) || !isfinite(lo) || !isfinite(hi))
		return 0;
	if (g->log_scale)
		return log(lo) >= -g->half && log(hi) <= g->half;
	return lo >= 1 - g->half && hi <= 1 + g->half;
}

static int side_decide(const struct bisect_samples *end, const struct bisect_samples *step,
		       const struct gap *gp, double alpha, int away, struct side *o)
{
	struct cmp_decision *d = &o->d;

	if (cmp_decide(end->v, end->n, step->v, step->n, -1, gp->margin, alpha, d, NULL,
		       NULL) < 0)
		return -1;
	o->differs = d->tested && d->p < alpha && d->diff != 0;
	o->same = d->tested && within(gp, d->ci_lo, d->ci_hi);
	o->toward = o->differs && (d->diff > 0) == (away > 0);
	o->gap_runs = d->tested ? cmp_runs_to_detect(d->sd, gp->whole, alpha, d->log_scale)
		      : CMP_MIN_N;
	if (o->gap_runs < 0)
		o->gap_runs = CMP_RUNS_CAP;
	/* not different with runs enough to have seen the whole regression
	 * with 80% chance: the ends' runs count as they are (its mdc), not as
	 * many as the step's */
	o->alike = o->same || (d->tested && !o->differs && d->mdc <= gp->whole);
	return 0;
}

/* Runs the step needs for x to be what is asked (done): none more, or
 * those that would see the regression */
static int needs(const struct side *x, int done)
{
	return done ? 0 : x->gap_runs;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* Runs the step needs in all to be called bad or good, whichever is
 * nearer: for bad, toward bad from good and alike bad (for good the
 * other way round); each side with the runs that would see the
 * regression, from the noise seen (not cmp_decide()'s runs_needed: that
 * counts the ends' runs as the step's too) */
static int step_needs(const struct side *g, const struct side *b)
{
	int nbad = max_int(needs(g, g->toward), needs(b, b->alike));
	int ngood = max_int(needs(b, b->toward), needs(g, g->alike));

	return nbad < ngood ? nbad : ngood;
}

enum bisect_answer bisect_metric_decide(const struct bisect_samples *good,
					const struct bisect_samples *bad,
					const struct bisect_samples *step, double alpha,
					int runs_max, int *more, double *p, char *why, size_t n)
{
	struct cmp_decision ends;
	struct side g, b;
	struct gap gp;
	int dir, need;

	*more = 0;
	*p = 1.0;
	if (!step->n) {
		*more = (int)(good->n < bad->n ? good->n : bad->n);
		*more = *more > 0 && *more <= runs_max ? *more : 1;
		snprintf(why, n, "no samples yet");
		return BISECT_MORE;
	}
	/* the regression: its direction, and half of it as the room a step
	 * has to be called the same as an end */
	if (cmp_decide(good->v, good->n, bad->v, bad->n, -1, CMP_MARGIN, alpha, &ends, NULL,
		       NULL) < 0 || !ends.tested || ends.diff == 0 || !(ends.ratio > 0) ||
	    ends.ratio == 1 || !isfinite(ends.ratio)) {
		snprintf(why, n, "the samples cannot be compared");
		return BISECT_SKIP;
	}
	dir = ends.diff > 0 ? 1 : -1;
	gp.log_scale = ends.log_scale;
	if (gp.log_scale) {
		gp.half = fabs(log(ends.ratio)) / 2;
		gp.whole = expm1(2 * gp.half);
	} else {
		gp.half = fabs(ends.ratio - 1) / 2;
		gp.whole = 2 * gp.half;
	}
	gp.margin = gp.log_scale ? expm1(gp.half) : gp.half;
	if (gp.margin > CMP_MARGIN_MAX)
		gp.margin = CMP_MARGIN_MAX;
	if (side_decide(good, step, &gp, alpha, dir, &g) < 0 ||
	    side_decide(bad, step, &gp, alpha, -dir, &b) < 0) {
		snprintf(why, n, "the samples cannot be compared");
		return BISECT_SKIP;
	}
	if (g.toward && b.alike) {
		*p = alpha;
		snprintf(why, n, "sits with bad: %.3g of good (p = %.3g), %.3g of bad (90%% "
			 "interval %.3g-%.3g, within half the regression) over %zu runs",
			 g.d.ratio, g.d.p, b.d.ratio, b.d.ci_lo, b.d.ci_hi, step->n);
		return BISECT_BAD;
	}
	if (b.toward && g.alike) {
		*p = alpha;
		snprintf(why, n, "sits with good: %.3g of bad (p = %.3g), %.3g of good (90%% "
			 "interval %.3g-%.3g, within half the regression) over %zu runs",
			 b.d.ratio, b.d.p, g.d.ratio, g.d.ci_lo, g.d.ci_hi, step->n);
		return BISECT_GOOD;
	}
	if (g.differs && b.differs) {
		snprintf(why, n, "differs from both good (%.3g of it, p = %.2g) and bad (%.3g of "
			 "it, p = %.2g)", g.d.ratio, g.d.p, b.d.ratio, b.d.p);
		return BISECT_SKIP;
	}
	need = step_needs(&g, &b);
	if (need <= (int)step->n)
		need = (int)step->n + CMP_MIN_N;   /* borderline: as verdict.c does */
	if (need > runs_max)
		need = runs_max;
	if ((int)step->n >= need) {
		snprintf(why, n, "undecided after %zu runs (%.3g of good, p = %.2g; %.3g of bad, "
			 "p = %.2g)", step->n, g.d.ratio, g.d.p, b.d.ratio, b.d.p);
		return BISECT_SKIP;
	}
	*more = need - (int)step->n;
	snprintf(why, n, "undecided after %zu runs (p = %.2g against good, %.2g against bad), "
		 "%d needed", step->n, g.d.p, b.d.p, need);
	return BISECT_MORE;
}

double bisect_path_error(const double *step_error, size_t n)
{
	double sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += step_error[i] > 0 ? step_error[i] : 0;
	return sum < 1 ? sum : 1;
}

int bisect_rounds_bound(size_t n)
{
	int r = 0;

	while (n > 1 && ((size_t)1 << r) < n)
		r++;
	return r + 1;
}
