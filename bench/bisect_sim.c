// SPDX-License-Identifier: GPL-2.0-only
/* bisect_sim.c: the decision rules of analysis/bisect.c (a metric step by
 * verdict.c's cmp_decide(), so both are built in) checked against
 * known truth. A linear history of N commits with the culprit at a random
 * place, some commits that do not build (skipped), and a symptom that is a
 * flaky test (rate r) or a metric step (normal noise, CV 3%, a shift of k
 * CV, optionally 10% of runs 1.5x outliers; or many times lower and
 * noisier there). The bisection is a binary
 * search that asks the rules at each step and queues what they ask for.
 * Printed per case: how often the answer was the culprit (or a candidate
 * list holding it), how often it was wrong, the mean error the rules
 * claimed, runs per step and steps. Run by bench/bisect-sim.sh. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/bisect.h"

static uint64_t rng = 0x6b666c656574ULL;

struct world {
	int n;            /* commits 0..n-1: 0 is good, n-1 bad */
	int culprit;      /* first bad commit */
	char *broken;     /* does not build */
	int metric;       /* 0: pass/fail */
	double rate;      /* pass/fail: the symptom's rate */
	double shift_cv;  /* metric: the change in CVs (worse = lower) */
	double outliers;  /* metric: share of 1.5x slow runs */
	double slower;    /* metric: bad is this many times lower (instead of shift_cv) */
	double bad_cv;    /* ... with this CV on the bad side */
};

static double sample(const struct world *w, int c)
{
	int bad = c >= w->culprit;
	double m = 100 * (bad ? w->slower > 0 ? 1 / w->slower : 1 - 0.03 * w->shift_cv : 1);
	double cv = bad && w->bad_cv > 0 ? w->bad_cv : 0.03;
	double v = m * (1 + cv * stats_normal(&rng));

	if (v <= 0)
		v = m * 0.01;   /* a count a second stays above 0 */

	return stats_unif(&rng) < w->outliers ? v / 1.5 : v;
}

/* runs of commit c until the rules decide; returns the answer, adds the
 * runs and the step's error chance */
static enum bisect_answer ask(const struct world *w, int c, const struct bisect_pf *bad_pf,
			      double *good_v, double *bad_v, size_t ne, int *runs, double *err)
{
	struct bisect_pf s = { 0 };
	double v[BISECT_RUNS_MAX];
	size_t nv = 0;
	int more = 1;
	char why[256];

	if (w->broken[c])
		return BISECT_SKIP;
	for (;;) {
		enum bisect_answer a;
		double e = 0;

		for (int i = 0; i < more; i++) {
			if (w->metric) {
				v[nv++] = sample(w, c);
			} else {
				s.runs++;
				s.seen += c >= w->culprit && stats_unif(&rng) < w->rate;
			}
		}
		*runs += more;
		if (w->metric) {
			struct bisect_samples g = { good_v, ne }, b = { bad_v, ne }, st = { v, nv };

			a = bisect_metric_decide(&g, &b, &st, BISECT_ALPHA, 20, &more, &e, why,
						 sizeof(why));
		} else {
			a = bisect_pf_decide(bad_pf, &s, BISECT_RUNS_MAX, &more, &e, why, sizeof(why));
		}
		if (a != BISECT_MORE) {
			if (a != BISECT_SKIP)
				*err += e;
			return a;
		}
		if (!w->metric && more < 1)
			more = 1;
	}
}

struct tally {
	int right, candidates, wrong, stopped, steps, runs;
	double claimed;
};

static void bisect_once(const struct world *w, struct tally *t, int repeat)
{
	double good_v[2 * BISECT_END_RUNS], bad_v[2 * BISECT_END_RUNS], err = 0;
	struct bisect_pf bad_pf = { 0 };
	int lo = 0, hi = w->n - 1, runs = 0, steps = 0;
	char *state = calloc((size_t)w->n, 1);   /* 's': skipped */
	char why[256];

	/* the ends, measured, with more runs while the rules ask for them */
	for (int more = repeat, ne = 0; more > 0;) {
		for (int i = 0; i < more; i++, ne++) {
			if (w->metric) {
				good_v[ne] = sample(w, 0);
				bad_v[ne] = sample(w, w->n - 1);
			} else {
				bad_pf.runs++;
				bad_pf.seen += stats_unif(&rng) < w->rate;
			}
		}
		if (w->metric) {
			struct bisect_samples g = { good_v, (size_t)ne }, b = { bad_v, (size_t)ne };
			double ch;

			more = 0;
			repeat = ne;
			if (bisect_metric_check_ends(&g, &b, 1, BISECT_ALPHA, &ch, why,
						     sizeof(why)) == 0)
				break;
			if (ne + BISECT_END_RUNS > 2 * BISECT_END_RUNS) {
				t->stopped++;
				free(state);
				return;
			}
			more = BISECT_END_RUNS;
		} else {
			more = bisect_pf_end_runs(&bad_pf, BISECT_RUNS_MAX);
		}
	}
	if (!w->metric && bad_pf.seen == 0) {
		t->stopped++;
		free(state);
		return;
	}
	while (hi - lo > 1) {
		int mid = (lo + hi) / 2, c = -1;

		/* the untested commit nearest the middle, as git bisect skip does */
		for (int d = 0; d < hi - lo && c < 0; d++) {
			if (mid + d < hi && !state[mid + d])
				c = mid + d;
			else if (mid - d > lo && !state[mid - d])
				c = mid - d;
		}
		if (c < 0)
			break;   /* only skipped commits left between lo and hi */
		steps++;
		switch (ask(w, c, &bad_pf, good_v, bad_v, (size_t)repeat, &runs, &err)) {
		case BISECT_GOOD: lo = c; break;
		case BISECT_BAD: hi = c; break;
		default: state[c] = 's'; break;
		}
	}
	if (hi - lo == 1 && hi == w->culprit)
		t->right++;
	else if (hi - lo > 1 && w->culprit > lo && w->culprit <= hi)
		t->candidates++;
	else
		t->wrong++;
	t->steps += steps;
	t->runs += runs;
	t->claimed += err < 1 ? err : 1;
	free(state);
}

static void run_case(const char *name, struct world w, int trials, int repeat)
{
	struct tally t = { 0 };
	int done;

	w.broken = calloc((size_t)w.n, 1);
	for (int i = 0; i < trials; i++) {
		w.culprit = 1 + (int)(stats_unif(&rng) * (w.n - 1));
		for (int c = 1; c < w.n - 1; c++)
			w.broken[c] = stats_unif(&rng) < 0.1;
		bisect_once(&w, &t, repeat);
	}
	done = trials - t.stopped;
	printf("%-28s %5d %6.1f%% %6.1f%% %6.1f%% %6.2f%% %8.2f%% %7.1f %6.1f\n", name, trials,
	       100.0 * t.stopped / trials, 100.0 * t.right / trials,
	       100.0 * t.candidates / trials, 100.0 * t.wrong / trials,
	       done ? 100.0 * t.claimed / done : 0.0, t.steps ? (double)t.runs / t.steps : 0.0,
	       done ? (double)t.steps / done : 0.0);
	free(w.broken);
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 2000;

	printf("256 commits, 10%% do not build, %d trials a case. ends: stopped at the ends' check;\n"
	       "right: the culprit; cands: a candidate list (skips) holding it; wrong: neither;\n"
	       "claimed: the mean path error the rules gave; runs/st: runs per step\n", trials);
	printf("%-28s %5s %7s %7s %7s %7s %9s %7s %6s\n", "case", "n", "ends", "right", "cands",
	       "wrong",
	       "claimed", "runs/st", "steps");
	run_case("test fails always", (struct world){ .n = 256, .rate = 1.0 }, trials, 5);
	run_case("test fails in 50% of runs", (struct world){ .n = 256, .rate = 0.5 }, trials, 10);
	run_case("test fails in 30% of runs", (struct world){ .n = 256, .rate = 0.3 }, trials, 10);
	run_case("metric -3 CV, normal", (struct world){ .n = 256, .metric = 1, .shift_cv = 3 },
		 trials, 10);
	run_case("metric -3 CV, 10% outliers",
		 (struct world){ .n = 256, .metric = 1, .shift_cv = 3, .outliers = 0.1 }, trials, 10);
	run_case("metric -2 CV, normal", (struct world){ .n = 256, .metric = 1, .shift_cv = 2 },
		 trials, 10);
	/* a getpgid() 30 times slower (t/e2e-linux.sh), its few calls a
	 * second noisy */
	run_case("metric 30x lower, CV 30%",
		 (struct world){ .n = 256, .metric = 1, .slower = 30, .bad_cv = 0.3 }, trials, 6);
	return 0;
}
