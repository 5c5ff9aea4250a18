// SPDX-License-Identifier: GPL-2.0-only
/* stats_sim.c: the comparison's decision rule (analysis/verdict.c, and a
 * report's correction across metrics in compare.c) against known truth.
 * Synthetic runs around 100 with CV 3% noise: normal, lognormal, or normal
 * with 10% of the runs 1.5x (outliers); the patched side the same (A/A)
 * or lower by 1, 2 or 3 CV (a metric where higher is better, so the right
 * verdict is "worse"). Printed per noise model and runs per side: the
 * share of A/A trials called better or worse, and per shift the share
 * called "no change" and "worse" (the power), with the median of the
 * minimum detectable change the rule reported. Then a report of 10
 * metrics, all A/A: how often any of them is called better or worse,
 * with and without the correction. Run by bench/stats.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/analysis.h"

#define CV       0.03
#define NMAX     20

static uint64_t rng = 0x6b666c656574ULL;

enum model { NORMAL, LOGNORMAL, OUTLIERS, MODELS };
static const char *const model_name[MODELS] = { "normal", "lognormal", "10% outliers 1.5x" };

/* one run's value: mean 100 * f */
static double sample(enum model m, double f)
{
	double v;

	if (m == LOGNORMAL)
		return 100 * f * exp(CV * stats_normal(&rng));
	v = 100 * f * (1 + CV * stats_normal(&rng));
	if (m == OUTLIERS && stats_unif(&rng) < 0.10)
		v *= 1.5;
	return v;
}

static void fill(double *v, size_t n, enum model m, double f)
{
	for (size_t i = 0; i < n; i++)
		v[i] = sample(m, f);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct tally {
	int alarm, nochange, worse, better, uncertain;
	double *mdc;
	int nmdc;
};

static void run_case(enum model m, size_t n, double shift_cv, int trials, struct tally *t)
{
	double b[NMAX], p[NMAX];
	struct cmp_decision d;

	memset(t, 0, sizeof(*t));
	t->mdc = malloc((size_t)trials * sizeof(double));
	for (int i = 0; i < trials; i++) {
		fill(b, n, m, 1);
		fill(p, n, m, 1 - CV * shift_cv);
		if (cmp_decide(b, n, p, n, 1, 0, 0, &d, NULL, NULL) < 0) {
			fprintf(stderr, "stats_sim: cmp_decide failed\n");
			exit(1);
		}
		t->alarm += d.verdict == CMP_BETTER || d.verdict == CMP_WORSE;
		t->better += d.verdict == CMP_BETTER;
		t->worse += d.verdict == CMP_WORSE;
		t->nochange += d.verdict == CMP_NO_CHANGE;
		t->uncertain += d.verdict == CMP_UNCERTAIN;
		if (isfinite(d.mdc))
			t->mdc[t->nmdc++] = d.mdc;
	}
	qsort(t->mdc, (size_t)t->nmdc, sizeof(double), cmp_dbl);
}

static double pct(int k, int trials)
{
	return 100.0 * k / trials;
}

/* A report of nm A/A metrics at n runs a side: any better/worse, with the
 * report's correction and counting each metric's own p < alpha */
static void report_case(size_t nm, size_t n, int trials)
{
	static const struct cmp_cell cell = { "x86_64", 2, 1024, "kvm", NULL, NULL, 1, NULL };
	double b[NMAX], p[NMAX];
	int any = 0, any_raw = 0;

	for (int i = 0; i < trials; i++) {
		struct cmp_report r;
		int hit = 0, hit_raw = 0;

		if (cmp_report_init(&r, "sim", NULL, NULL, &cell, &cell, NULL, 0) < 0)
			exit(1);
		for (size_t k = 0; k < nm; k++) {
			char name[16];

			snprintf(name, sizeof(name), "m%zu", k);
			fill(b, n, NORMAL, 1);
			fill(p, n, NORMAL, 1);
			if (cmp_report_add(&r, name, NULL, 1, b, n, p, n) < 0)
				exit(1);
		}
		for (size_t k = 0; k < r.n; k++) {
			hit |= r.v[k].verdict == CMP_BETTER || r.v[k].verdict == CMP_WORSE;
			hit_raw |= isfinite(r.v[k].p) && r.v[k].p < CMP_ALPHA;
		}
		any += hit;
		any_raw += hit_raw;
		cmp_report_release(&r);
	}
	printf("report of %zu A/A metrics, normal noise, n=%zu: any false alarm %.2f%% "
	       "(without the correction %.2f%%)\n", nm, n, pct(any, trials), pct(any_raw, trials));
}

int main(int argc, char **argv)
{
	static const size_t ns[] = { 3, 5, 10, 20 };
	int trials = argc > 1 ? atoi(argv[1]) : 2000;
	struct timespec t0, t1;

	if (trials < 10) {
		fprintf(stderr, "usage: stats_sim [TRIALS >= 10]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	printf("decision rule (analysis/verdict.c): Student's t on logs, outlying runs (> %.0f "
	       "robust SDs, p x runs < %.2g) left out;\nbetter/worse at p < %.2g (a report: BH "
	       "q < %.2g); no change when the 90%% interval is within +-%.0f%%; mdc: median\n",
	       CMP_OUTLIER_K, CMP_OUTLIER_P, CMP_ALPHA, CMP_ALPHA, CMP_MARGIN * 100);
	printf("noise CV %.0f%%, %d trials per cell; shifts lower the patched side by k CV "
	       "(the right verdict: worse)\n\n", CV * 100, trials);
	printf("%-17s %2s | %-16s | %-24s | %-24s | %-24s\n", "", "", "A/A", "1 CV (-3%)",
	       "2 CV (-6%)", "3 CV (-9%)");
	printf("%-17s %2s | %6s %9s | %8s %6s %8s | %8s %6s %8s | %8s %6s %8s\n", "noise", "n",
	       "alarms", "no change", "nochange", "worse", "mdc", "nochange", "worse", "mdc",
	       "nochange", "worse", "mdc");
	for (int m = 0; m < MODELS; m++) {
		for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
			struct tally aa, s;

			run_case((enum model)m, ns[i], 0, trials, &aa);
			printf("%-17s %2zu | %5.2f%% %8.1f%% |", model_name[m], ns[i],
			       pct(aa.alarm, trials), pct(aa.nochange, trials));
			free(aa.mdc);
			for (int k = 1; k <= 3; k++) {
				run_case((enum model)m, ns[i], k, trials, &s);
				printf(" %7.2f%% %5.1f%% %7.1f%% |", pct(s.nochange, trials),
				       pct(s.worse, trials),
				       s.nmdc ? 100 * s.mdc[s.nmdc / 2] : NAN);
				free(s.mdc);
			}
			printf("\n");
		}
	}
	printf("\n");
	report_case(10, 5, trials);
	report_case(10, 10, trials);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("\n%.1f s\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
