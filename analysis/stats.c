// SPDX-License-Identifier: GPL-2.0-only
/* stats.c: the statistics under a before/after comparison: a summary of
 * one side (n, median, mean, sample stddev, nearest-rank p99, min, max),
 * the Mann-Whitney U test (exact distribution for small samples without
 * ties, else the normal approximation with continuity and tie correction)
 * and a deterministic bootstrap interval of the ratio of medians.
 * compare.c builds verdicts from these; nothing here allocates for long. */
#include "analysis/analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int all_finite(const double *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return 0;
	return 1;
}

static int side_ok(const double *v, size_t n)
{
	return v && n > 0 && n <= STATS_N_MAX && all_finite(v, n);
}

int stats_summarize(const double *v, size_t n, struct stats_summary *s)
{
	double *t, sum = 0, ss = 0;
	size_t rank;

	memset(s, 0, sizeof(*s));
	if (!side_ok(v, n))
		return -1;
	t = malloc(n * sizeof(*t));
	if (!t)
		return -1;
	memcpy(t, v, n * sizeof(*t));
	qsort(t, n, sizeof(*t), cmp_dbl);
	s->n = n;
	s->min = t[0];
	s->max = t[n - 1];
	s->median = n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
	for (size_t i = 0; i < n; i++)
		sum += t[i];
	s->mean = sum / (double)n;
	/* two passes: no cancellation for large values with small spread */
	for (size_t i = 0; i < n; i++)
		ss += (t[i] - s->mean) * (t[i] - s->mean);
	s->stddev = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	/* nearest rank: the smallest value with at least 99% of them at or below it */
	rank = (size_t)ceil(0.99 * (double)n);
	if (rank < 1)
		rank = 1;
	s->p99 = t[rank - 1];
	free(t);
	return 0;
}

double stats_cv(const struct stats_summary *s)
{
	if (s->n < 2 || s->mean == 0)
		return NAN;
	return s->stddev / fabs(s->mean);
}

/* ---- Mann-Whitney U ---- */

struct tagged {
	double v;
	int side;   /* 0: x, 1: y */
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_dbl(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

/* Counts of each U = 0..m*n over all C(m+n, m) orderings without ties,
 * into cnt[0..m*n]: the coefficients of the Gaussian binomial [m+n, m]_q,
 * built as prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i). After step i the
 * polynomial is [n+i, i]_q, whose coefficients are at most
 * C(40, 20) < 2^53 here, so doubles hold them exactly. */
static void mw_exact_counts(size_t m, size_t n, double *cnt)
{
	size_t len = m * n + 1;

	memset(cnt, 0, len * sizeof(*cnt));
	cnt[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		size_t k = n + i, deg = (i - 1) * n;   /* degree before this step */

		/* multiply by (1 - q^k): from the top, terms past len vanish
		 * after the division below */
		for (size_t d = deg + 1; d-- > 0;)
			if (d + k < len)
				cnt[d + k] -= cnt[d];
		/* divide by (1 - q^i): q[d] = p[d] + q[d - i]; the division is
		 * exact, so the terms past degree i*n come out 0 */
		for (size_t d = i; d < len; d++)
			cnt[d] += cnt[d - i];
	}
}

int stats_mann_whitney(const double *x, size_t nx, const double *y, size_t ny,
		       struct stats_mw *out)
{
	size_t n = nx + ny, i = 0;
	struct tagged *t = NULL;
	double r1 = 0, tie_term = 0, *cnt = NULL;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->p = NAN;
	if (!side_ok(x, nx) || !side_ok(y, ny))
		return -1;
	t = malloc(n * sizeof(*t));
	if (!t)
		goto out;
	for (size_t k = 0; k < nx; k++)
		t[k] = (struct tagged){ x[k], 0 };
	for (size_t k = 0; k < ny; k++)
		t[nx + k] = (struct tagged){ y[k], 1 };
	qsort(t, n, sizeof(*t), cmp_tagged);
	/* midranks: a group of tied values shares the mean of its ranks */
	while (i < n) {
		size_t j = i;
		double rank, g;

		while (j + 1 < n && t[j + 1].v == t[i].v)
			j++;
		rank = ((double)(i + 1) + (double)(j + 1)) / 2;
		g = (double)(j - i + 1);
		if (g > 1) {
			out->ties = 1;
			tie_term += g * g * g - g;
		}
		for (size_t k = i; k <= j; k++)
			if (t[k].side == 0)
				r1 += rank;
		i = j + 1;
	}
	out->u = r1 - (double)nx * (double)(nx + 1) / 2;
	if (nx <= STATS_EXACT_MAX && ny <= STATS_EXACT_MAX && !out->ties) {
		size_t len = nx * ny + 1, u = (size_t)out->u;
		double total = 0, lower = 0, upper = 0;

		cnt = malloc(len * sizeof(*cnt));
		if (!cnt)
			goto out;
		mw_exact_counts(nx, ny, cnt);
		for (size_t k = 0; k < len; k++) {
			total += cnt[k];
			if (k <= u)
				lower += cnt[k];
			if (k >= u)
				upper += cnt[k];
		}
		out->exact = 1;
		out->p = 2 * (lower < upper ? lower : upper) / total;
	} else {
		double mu = (double)nx * (double)ny / 2, nn = (double)n;
		double var = (double)nx * (double)ny / 12 *
			((nn + 1) - tie_term / (nn * (nn - 1)));
		double z;

		if (!(var > 0)) {
			out->p = 1;   /* every value tied: no evidence of a difference */
		} else {
			z = (fabs(out->u - mu) - 0.5) / sqrt(var);
			out->p = erfc((z > 0 ? z : 0) / sqrt(2.0));
		}
	}
	if (out->p > 1)
		out->p = 1;
	rc = 0;
out:
	free(cnt);
	free(t);
	return rc;
}

/* ---- bootstrap ---- */

/* xorshift64* (Vigna): small, fast, and the same on every platform */
uint64_t stats_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

double stats_unif(uint64_t *s)
{
	return (double)(stats_rand(s) >> 11) / 9007199254740992.0;   /* 53 bits / 2^53 */
}

double stats_normal(uint64_t *s)
{
	double u = stats_unif(s), v = stats_unif(s);

	return sqrt(-2 * log(u > 0 ? u : 1e-300)) * cos(2 * M_PI * v);
}


/* One side, ready for resampling: its values sorted, and for each value
 * the place it has among them. A resample is then n draws of places,
 * counted; its median is read off the counts in O(n), without sorting or
 * selecting: the same draws and the same median as picking values. */
struct side {
	double *sorted;
	size_t *rank;
	unsigned *count;
	size_t n;
};

static int cmp_idx(const void *a, const void *b, void *ctx)
{
	const double *v = ctx;
	double x = v[*(const size_t *)a], y = v[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

static int side_init(struct side *sd, const double *v, size_t n)
{
	size_t *order = malloc(n * sizeof(*order));

	sd->n = n;
	sd->sorted = malloc(n * sizeof(*sd->sorted));
	sd->rank = malloc(n * sizeof(*sd->rank));
	sd->count = malloc(n * sizeof(*sd->count));
	if (!order || !sd->sorted || !sd->rank || !sd->count) {
		free(order);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_idx, (void *)v);
	for (size_t i = 0; i < n; i++) {
		sd->sorted[i] = v[order[i]];
		sd->rank[order[i]] = i;
	}
	free(order);
	return 0;
}

static void side_release(struct side *sd)
{
	free(sd->sorted);
	free(sd->rank);
	free(sd->count);
}

/* The value at order k (0-based) of the counted draws */
static double counted_at(const struct side *sd, size_t k)
{
	size_t seen = 0;

	for (size_t i = 0; i < sd->n; i++) {
		seen += sd->count[i];
		if (seen > k)
			return sd->sorted[i];
	}
	return sd->sorted[sd->n - 1];
}

static double resample_median(struct side *sd, uint64_t *s)
{
	size_t n = sd->n;

	memset(sd->count, 0, n * sizeof(*sd->count));
	for (size_t i = 0; i < n; i++)
		sd->count[sd->rank[stats_rand(s) % n]]++;
	if (n % 2)
		return counted_at(sd, n / 2);
	return (counted_at(sd, n / 2 - 1) + counted_at(sd, n / 2)) / 2;
}

int stats_bootstrap_ratio(const double *base, size_t nb, const double *patched, size_t np,
			  unsigned resamples, uint64_t seed, double *lo, double *hi)
{
	struct side sb = { 0 }, sp = { 0 };
	double *ratios = NULL;
	uint64_t s = seed ? seed : STATS_SEED;   /* xorshift must not start at 0 */
	int rc = -1;

	*lo = *hi = NAN;
	if (!side_ok(base, nb) || !side_ok(patched, np) || !resamples)
		return -1;
	ratios = malloc(resamples * sizeof(*ratios));
	if (!ratios || side_init(&sb, base, nb) < 0 || side_init(&sp, patched, np) < 0)
		goto out;
	for (unsigned i = 0; i < resamples; i++) {
		double mb = resample_median(&sb, &s);
		double mp = resample_median(&sp, &s);

		if (mb == 0)
			goto out;
		ratios[i] = mp / mb;
		if (!isfinite(ratios[i]))
			goto out;
	}
	qsort(ratios, resamples, sizeof(*ratios), cmp_dbl);
	{
		size_t l = (size_t)floor(0.025 * resamples);
		size_t h = (size_t)ceil(0.975 * resamples);

		if (h < 1)
			h = 1;
		*lo = ratios[l < resamples ? l : resamples - 1];
		*hi = ratios[h - 1];
	}
	rc = 0;
out:
	free(ratios);
	side_release(&sb);
	side_release(&sp);
	return rc;
}

/* ---- Student's t and the Benjamini-Hochberg adjustment ---- */

/* The continued fraction of the regularized incomplete beta function
 * I_x(a, b) (modified Lentz), good for x < (a + 1) / (a + b + 2) */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double c = 1, d = 1 - (a + b) * x / (a + 1), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m, aa, del;

		aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + aa * d;
		d = fabs(d) < tiny ? tiny : d;
		c = 1 + aa / c;
		c = fabs(c) < tiny ? tiny : c;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b), x in [0, 1] */
static double beta_reg(double a, double b, double x)
{
	double front;

	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_cf(a, b, x) / a;
	return 1 - front * beta_cf(b, a, 1 - x) / b;
}

double stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1 : 0;
	tail = 0.5 * beta_reg(df / 2, 0.5, df / (df + t * t));   /* P(T > |t|) */
	return t > 0 ? 1 - tail : tail;
}

double stats_t_quantile(double p, double df)
{
	double lo = -1e6, hi = 1e6;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	/* bisection: 200 halvings of 2e6 reach well below a double's step */
	for (int i = 0; i < 200 && hi - lo > 1e-12 * (1 + fabs(lo)); i++) {
		double mid = (lo + hi) / 2;

		if (stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *a, const void *b)
{
	return cmp_dbl(&((const struct pidx *)a)->p, &((const struct pidx *)b)->p);
}

int stats_bh_adjust(const double *p, size_t n, double *q)
{
	struct pidx *s;
	size_t m = 0, k = 0;
	double run = 1;

	for (size_t i = 0; i < n; i++)
		m += isfinite(p[i]);
	s = malloc((m ? m : 1) * sizeof(*s));
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (isfinite(p[i]))
			s[k++] = (struct pidx){ p[i], i };
		else
			q[i] = NAN;
	}
	qsort(s, m, sizeof(*s), cmp_pidx);
	/* q_(k) = min over j >= k of p_(j) m / j, capped at 1 */
	for (size_t j = m; j-- > 0;) {
		double v = s[j].p * (double)m / (double)(j + 1);

		if (v < run)
			run = v;
		q[s[j].i] = run;
	}
	free(s);
	return 0;
}
