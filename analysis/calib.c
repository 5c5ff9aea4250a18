// SPDX-License-Identifier: GPL-2.0-only
/* calib.c: a job's noise per metric and cell (calib.h): one value per
 * run, grouped by kernel; the variance within each kernel pooled on the
 * scale cmp_decide() compares on, and the runs a side its rule would need
 * for a few sizes of change (verdict.c's cmp_runs_to_detect()). */
#include "analysis/calib.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"

const double calib_changes[CALIB_NCHANGES] = { 0.02, 0.05, 0.10 };

struct kv {
	int64_t kernel;
	double x;
};

static int cmp_kv(const void *a, const void *b)
{
	const struct kv *x = a, *y = b;

	return (x->kernel > y->kernel) - (x->kernel < y->kernel);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* the scale: logs when every value is > 0 (as cmp_decide()), else values
 * over |median of all| (1 when that is 0). 0 / -1 memory */
static int to_scale(const double *v, size_t n, struct kv *w, int *log_scale)
{
	double *tmp, med;
	int pos = 1;

	for (size_t i = 0; i < n; i++)
		pos &= v[i] > 0;
	*log_scale = pos;
	if (pos) {
		for (size_t i = 0; i < n; i++)
			w[i].x = log(v[i]);
		return 0;
	}
	if (!(tmp = malloc(n * sizeof(*tmp))))
		return -1;
	memcpy(tmp, v, n * sizeof(*tmp));
	qsort(tmp, n, sizeof(*tmp), cmp_dbl);
	med = fabs(n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2);
	free(tmp);
	for (size_t i = 0; i < n; i++)
		w[i].x = med > 0 ? v[i] / med : v[i];
	return 0;
}

int calib_estimate(const double *v, const int64_t *kernel, size_t n, struct calib_noise *out)
{
	struct kv *w;
	double ss = 0;

	memset(out, 0, sizeof(*out));
	out->cv = NAN;
	if (!n || n > STATS_N_MAX)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return -1;
	if (!(w = malloc(n * sizeof(*w))))
		return -1;
	if (to_scale(v, n, w, &out->log_scale) < 0) {
		free(w);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		w[i].kernel = kernel[i];
	qsort(w, n, sizeof(*w), cmp_kv);
	/* the sum of squares within each kernel's runs */
	for (size_t i = 0, j; i < n; i = j) {
		double mean = 0;

		for (j = i; j < n && w[j].kernel == w[i].kernel; j++)
			mean += w[j].x;
		mean /= (double)(j - i);
		for (size_t k = i; k < j; k++)
			ss += (w[k].x - mean) * (w[k].x - mean);
		out->kernels++;
	}
	free(w);
	out->runs = n;
	out->df = (double)(n - out->kernels);
	if (out->df < 1)
		return 0;
	out->cv = sqrt(ss / out->df);
	for (int c = 0; c < CALIB_NCHANGES; c++)
		out->runs_needed[c] = cmp_runs_to_detect(out->cv, calib_changes[c], CMP_ALPHA,
							 out->log_scale);
	return 0;
}
