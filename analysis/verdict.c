// SPDX-License-Identifier: GPL-2.0-only
/* verdict.c: the decision over two sets of runs (analysis.h at
 * cmp_decide()): scale, outlying runs flagged and left out, Student's t on
 * the rest, then better / worse / no change (by equivalence within a
 * margin) / uncertain with the runs that would settle it. compare.c calls
 * it per metric and adjusts across a report's metrics; bisection steps and
 * "run until decided" loops can call it alone. Pure: no I/O, no state. */
#include "analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define Z_POWER  0.841621   /* z of 80% power */

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the median of v[0..n), n > 0; sorts v */
static double median_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int side_ok(const double *v, size_t n)
{
	if (!v || !n || n > STATS_N_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

/* The two sides on the compared scale, and what 2. and 3. need */
struct work {
	double *x[2];       /* transformed values, per side */
	double *tmp;        /* nb + np */
	size_t n[2];
	double med[2];
	double mb;          /* the base's median, as given */
	unsigned char *out[2];
};

static void work_release(struct work *w)
{
	free(w->x[0]);
	free(w->x[1]);
	free(w->tmp);
	free(w->out[0]);
	free(w->out[1]);
}

/* 1. the scale: logs when every value is > 0, else v / |median(base)|.
 * 0, 1 no scale, -1 memory */
static int transform(struct work *w, const double *v[2], struct cmp_decision *d)
{
	double mb;
	int pos = 1;

	for (int s = 0; s < 2; s++) {
		w->x[s] = malloc(w->n[s] * sizeof(double));
		w->out[s] = calloc(w->n[s], 1);
		if (!w->x[s] || !w->out[s])
			return -1;
		for (size_t i = 0; i < w->n[s]; i++)
			pos &= v[s][i] > 0;
	}
	w->tmp = malloc((w->n[0] + w->n[1]) * sizeof(double));
	if (!w->tmp)
		return -1;
	memcpy(w->tmp, v[0], w->n[0] * sizeof(double));
	mb = w->mb = median_sort(w->tmp, w->n[0]);
	d->log_scale = pos;
	if (!pos && mb == 0)
		return 1;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < w->n[s]; i++)
			w->x[s][i] = pos ? log(v[s][i]) : v[s][i] / fabs(mb);
	return 0;
}

/* 2. outliers, in two steps. Candidates: |x - median of its side| > K *
 * 1.4826 * MAD, the MAD of both sides' deviations from their own medians
 * together (robust, so that one wild run does not hide another; an odd
 * side's median run left out of it), and as far from the other side's
 * median. Each is
 * then confirmed against the runs that are not candidates, as a new run
 * would be: t = |x - mean of its side's rest| / (pooled SD of the rest *
 * sqrt(1 + 1 / rest of its side)), with n_rest - 2 df; flagged when its
 * two-sided p times the runs there are is below CMP_OUTLIER_P, so that
 * runs of normal noise are flagged with a chance of about CMP_OUTLIER_P in
 * all. At most (n - 1) / 2 of a side and only with 3 of it left, else
 * none of it (no majority there to call typical; and with 2 left, a
 * normal run flagged by chance leaves a spread too small to trust, which
 * at 3 runs a side raised A/A alarms to 1.5%). */
static void flag_outliers(struct work *w, struct cmp_decision *d)
{
	size_t k = 0, rest[2] = { 0, 0 }, total = w->n[0] + w->n[1];
	double scale, mean[2] = { 0, 0 }, ss = 0, sd, df;

	for (int s = 0; s < 2; s++) {
		memcpy(w->tmp, w->x[s], w->n[s] * sizeof(double));
		w->med[s] = median_sort(w->tmp, w->n[s]);
	}
	for (int s = 0; s < 2; s++) {
		size_t k0 = k;

		for (size_t i = 0; i < w->n[s]; i++)
			w->tmp[k++] = fabs(w->x[s][i] - w->med[s]);
		/* an odd side's median is its own run: its deviation of 0 says
		 * nothing of the spread and would pull the MAD down */
		if (w->n[s] % 2 && w->n[s] > 1) {
			size_t z = k0;

			for (size_t i = k0; i < k; i++)
				if (w->tmp[i] < w->tmp[z])
					z = i;
			w->tmp[z] = w->tmp[--k];
		}
	}
	scale = 1.4826 * median_sort(w->tmp, k);
	if (!(scale > 0))
		return;   /* most runs agree exactly: nothing to measure outliers by */
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < w->n[s]; i++) {
			/* far from both sides: a run like the other side's is no
			 * outlier but a mixed side, whose spread must count */
			w->out[s][i] = fabs(w->x[s][i] - w->med[s]) > CMP_OUTLIER_K * scale &&
				       fabs(w->x[s][i] - w->med[!s]) > CMP_OUTLIER_K * scale;
			if (!w->out[s][i]) {
				mean[s] += w->x[s][i];
				rest[s]++;
			}
		}
	df = (double)(rest[0] + rest[1]) - 2;
	for (int s = 0; s < 2; s++)
		mean[s] = rest[s] ? mean[s] / (double)rest[s] : 0;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < w->n[s]; i++)
			if (!w->out[s][i])
				ss += (w->x[s][i] - mean[s]) * (w->x[s][i] - mean[s]);
	sd = df > 0 ? sqrt(ss / df) : 0;
	for (int s = 0; s < 2; s++) {
		size_t c = 0;

		for (size_t i = 0; i < w->n[s]; i++) {
			double t, pv;

			if (!w->out[s][i])
				continue;
			if (!rest[s] || !(df > 0)) {
				w->out[s][i] = 0;
				continue;
			}
			t = fabs(w->x[s][i] - mean[s]) / (sd * sqrt(1 + 1.0 / (double)rest[s]));
			pv = sd > 0 ? 2 * stats_t_cdf(-t, df) : 0;
			w->out[s][i] = pv * (double)total < CMP_OUTLIER_P;
			c += w->out[s][i];
		}
		if (c > (w->n[s] - 1) / 2 || w->n[s] - c < 3) {
			memset(w->out[s], 0, w->n[s]);
			c = 0;
		}
		d->outliers[s] = c;
	}
}

/* the ratio for a difference x on the compared scale */
static double to_ratio(const struct cmp_decision *d, double x, int neg_base)
{
	return d->log_scale ? exp(x) : neg_base ? 1 - x : 1 + x;
}

/* 3. Student's t on the kept values; d->tested 0 when fewer than 3 runs
 * are kept in all or a side has none */
static void t_test(struct work *w, struct cmp_decision *d, int neg_base)
{
	double mean[2] = { 0, 0 }, ss = 0, diff, se, tq, lo, hi;
	size_t n[2] = { 0, 0 };

	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < w->n[s]; i++)
			if (!w->out[s][i]) {
				mean[s] += w->x[s][i];
				n[s]++;
			}
		mean[s] /= (double)n[s];
		d->kept[s] = n[s];
	}
	if (n[0] + n[1] < 3)
		return;
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < w->n[s]; i++)
			if (!w->out[s][i])
				ss += (w->x[s][i] - mean[s]) * (w->x[s][i] - mean[s]);
	d->df = (double)(n[0] + n[1] - 2);
	d->sd = sqrt(ss / d->df);
	se = d->sd * sqrt(1.0 / (double)n[0] + 1.0 / (double)n[1]);
	diff = mean[1] - mean[0];
	d->diff = diff;
	d->tested = 1;
	if (se == 0) {
		/* every kept run of a side gave one value: the difference is exact */
		d->p = diff == 0 ? 1 : 0;
		d->ratio = d->ci_lo = d->ci_hi = to_ratio(d, diff, neg_base);
		d->mdc = 0;
		return;
	}
	d->p = 2 * stats_t_cdf(-fabs(diff) / se, d->df);
	tq = stats_t_quantile(1 - CMP_EQUIV_ALPHA, d->df);
	lo = to_ratio(d, diff - tq * se, neg_base);
	hi = to_ratio(d, diff + tq * se, neg_base);
	d->ratio = to_ratio(d, diff, neg_base);
	d->ci_lo = lo < hi ? lo : hi;
	d->ci_hi = lo < hi ? hi : lo;
	d->mdc = (stats_t_quantile(1 - d->alpha / 2, d->df) + stats_t_quantile(0.8, d->df)) * se;
	if (d->log_scale)
		d->mdc = expm1(d->mdc);
}

/* runs per side for a test at normal quantile z to see a gap of delta
 * (on the compared scale) with 80% power, at per-run variance s2 */
static double runs_for(double s2, double z, double delta)
{
	return 2 * s2 * (z + Z_POWER) * (z + Z_POWER) / (delta * delta);
}

/* the runs per side from runs_for(): rounded up, +2 for the t test's few
 * df at small n */
static double runs_up(double n)
{
	return ceil(n) + 2;
}

/* n within [CMP_MIN_N, CMP_RUNS_CAP] */
static int runs_clamp(double n)
{
	if (n < CMP_MIN_N)
		n = CMP_MIN_N;
	return n > CMP_RUNS_CAP ? CMP_RUNS_CAP : (int)n;
}

/* runs per side to settle it, from the noise seen (d->sd) and the
 * observed change: detect it, or show it is inside the margin */
static int runs_needed(const struct cmp_decision *d, double diff)
{
	size_t have = d->kept[0] > d->kept[1] ? d->kept[0] : d->kept[1];
	double m = d->log_scale ? log1p(d->margin) : d->margin;
	double n = INFINITY, s2 = d->sd * d->sd;

	if (!d->tested || !(d->sd > 0))
		return CMP_MIN_N > (int)have ? CMP_MIN_N : (int)have + CMP_MIN_N;
	diff = fabs(diff);
	if (diff > 0)
		n = runs_for(s2, d->z_alpha, diff);
	if (diff < m) {
		double ne = runs_for(s2, d->z_equiv, m - diff);

		if (ne < n)
			n = ne;
	}
	n = runs_up(n);
	if (n <= (double)have)   /* borderline: the estimate says it should have settled */
		n = (double)have + CMP_MIN_N;
	return runs_clamp(n);
}

int cmp_runs_to_detect(double sd, double change, double alpha, int log_scale)
{
	double delta;

	if (!(sd >= 0) || !isfinite(sd) || !(change > 0) || !(alpha > 0 && alpha < 0.5))
		return -1;
	delta = log_scale ? log1p(change) : change;
	return runs_clamp(runs_up(runs_for(sd * sd, -stats_t_quantile(alpha / 2, 1e6), delta)));
}

void cmp_decision_settle(struct cmp_decision *d, double p_adj, int higher_better)
{
	d->runs_needed = 0;
	if (d->tested && isfinite(p_adj) && p_adj < d->alpha && d->diff != 0) {
		int up = d->diff > 0;   /* the values went up */

		if (higher_better < 0)
			d->verdict = CMP_CHANGED;
		else
			d->verdict = up == (higher_better == 1) ? CMP_BETTER : CMP_WORSE;
		return;
	}
	if (d->tested && d->ci_lo >= 1 - d->margin && d->ci_hi <= 1 + d->margin) {
		d->verdict = CMP_NO_CHANGE;
		return;
	}
	d->verdict = CMP_UNCERTAIN;
	d->runs_needed = runs_needed(d, d->diff);
}

int cmp_decide(const double *base, size_t nb, const double *patched, size_t np,
	       int higher_better, double margin, double alpha, struct cmp_decision *d,
	       unsigned char *out_b, unsigned char *out_p)
{
	const double *v[2] = { base, patched };
	struct work w = { .n = { nb, np } };
	int rc = -1, r;

	memset(d, 0, sizeof(*d));
	d->p = d->ratio = d->ci_lo = d->ci_hi = d->df = d->sd = d->mdc = NAN;
	d->verdict = CMP_UNCERTAIN;
	d->margin = margin == 0 ? CMP_MARGIN : margin;
	d->alpha = alpha == 0 ? CMP_ALPHA : alpha;
	if (!side_ok(base, nb) || !side_ok(patched, np) || !(d->margin > 0) ||
	    d->margin > CMP_MARGIN_MAX || !(d->alpha > 0 && d->alpha < 0.5))
		return -1;
	/* once here: a report settles every metric again after each add */
	d->z_alpha = -stats_t_quantile(d->alpha / 2, 1e6);
	d->z_equiv = -stats_t_quantile(CMP_EQUIV_ALPHA, 1e6);
	r = transform(&w, v, d);
	if (r < 0)
		goto out;
	if (r == 0) {
		flag_outliers(&w, d);
		t_test(&w, d, w.mb < 0);
	}
	cmp_decision_settle(d, d->p, higher_better);
	if (out_b)
		memcpy(out_b, w.out[0], nb);
	if (out_p)
		memcpy(out_p, w.out[1], np);
	rc = 0;
out:
	work_release(&w);
	return rc;
}
