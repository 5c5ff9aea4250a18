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

enum bisect_answer bisect_metric_decide(const struct bisect_samples *good,
					const struct bisect_samples *bad,
					const struct bisect_samples *step, double alpha,
					int runs_max, int *more, double *p, char *why, size_t n)
{
	struct stats_mw vg, vb;
	double mg, mb, ms, t;
	int sig_g, sig_b;

	*more = 0;
	*p = 1.0;
	if (!step->n) {
		*more = (int)(good->n < bad->n ? good->n : bad->n);
		*more = *more > 0 && *more <= runs_max ? *more : 1;
		snprintf(why, n, "no samples yet");
		return BISECT_MORE;
	}
	if (median_of(good, &mg) < 0 || median_of(bad, &mb) < 0 || median_of(step, &ms) < 0 ||
	    stats_mann_whitney(step->v, step->n, good->v, good->n, &vg) < 0 ||
	    stats_mann_whitney(step->v, step->n, bad->v, bad->n, &vb) < 0 || mb == mg) {
		snprintf(why, n, "the samples cannot be compared");
		return BISECT_SKIP;
	}
	t = (ms - mg) / (mb - mg);   /* 0 at good's median, 1 at bad's */
	sig_g = vg.p < alpha;
	sig_b = vb.p < alpha;
	if (sig_g && !sig_b && t > 0.5) {
		*p = alpha;
		snprintf(why, n, "median %g sits with bad (%g), not good (%g): p = %.3g over %zu "
			 "runs", ms, mb, mg, vg.p, step->n);
		return BISECT_BAD;
	}
	if (sig_b && !sig_g && t < 0.5) {
		*p = alpha;
		snprintf(why, n, "median %g sits with good (%g), not bad (%g): p = %.3g over %zu "
			 "runs", ms, mg, mb, vb.p, step->n);
		return BISECT_GOOD;
	}
	if (sig_g && sig_b) {
		snprintf(why, n, "median %g differs from both good (%g) and bad (%g): p = %.2g, "
			 "%.2g", ms, mg, mb, vg.p, vb.p);
		return BISECT_SKIP;
	}
	if ((int)step->n >= runs_max) {
		snprintf(why, n, "undecided after %zu runs (median %g between good %g and bad %g; "
			 "p = %.2g, %.2g)", step->n, ms, mg, mb, vg.p, vb.p);
		return BISECT_SKIP;
	}
	*more = (int)step->n;
	if ((int)step->n + *more > runs_max)
		*more = runs_max - (int)step->n;
	snprintf(why, n, "undecided after %zu runs (p = %.2g against good, %.2g against bad)",
		 step->n, vg.p, vb.p);
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
