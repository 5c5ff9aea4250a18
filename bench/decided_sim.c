// SPDX-License-Identifier: GPL-2.0-only
/* decided_sim.c: the until-decided loop (analysis/decided.c on the
 * verdicts of analysis/verdict.c) against known truth, by simulation: runs
 * around 100 with normal noise, A/A or the patched side lower by 1, 2 or
 * 3 CV; the loop starts at N0 runs a side and adds what the rule says up
 * to a cap. Per cell: how often it ends decided, the verdicts it ends on
 * (better/worse on A/A: false alarms), the runs a side it used, and beside
 * it one look at the cap's runs (what --repeat CAP would have said).
 * Usage: decided_sim [TRIALS] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/decided.h"

#define SIDE_MAX 128

static uint64_t rng = 0x6b666c656574ULL;

static void fill(double *v, size_t n, double f, double cv)
{
	for (size_t i = 0; i < n; i++)
		v[i] = 100 * f * (1 + cv * stats_normal(&rng));
}

static enum cmp_verdict verdict(const double *b, const double *p, size_t n, int *needed)
{
	struct cmp_decision d;

	if (cmp_decide(b, n, p, n, 1, 0, 0, &d, NULL, NULL) < 0)
		exit(1);
	*needed = d.runs_needed;
	return d.verdict;
}

struct tally {
	long decided, alarm, nochange, worse, runs, single_alarm, single_worse, single_nochange;
};

static void trial(double f, double cv, int n0, int cap, struct tally *t)
{
	double b[SIDE_MAX], p[SIDE_MAX];
	int n = n0, round = 1, added = 2 * n0, needed;
	struct decided_metric m = { "ops", CMP_UNCERTAIN, 0 };
	struct decided_out out;
	enum cmp_verdict v;

	fill(b, (size_t)cap, 1, cv);
	fill(p, (size_t)cap, f, cv);
	for (;;) {
		struct decided_in in = { .m = &m, .nm = 1, .queued = n, .samples = { n, n },
					 .new_samples = added, .round = round, .cap = cap };

		m.verdict = verdict(b, p, (size_t)n, &needed);
		m.runs_needed = needed;
		decided_next(&in, &out);
		if (out.action != DECIDED_MORE)
			break;
		n += out.pairs;
		added = 2 * out.pairs;
		round++;
	}
	v = m.verdict;
	t->decided += out.action == DECIDED_DONE;
	t->alarm += v == CMP_BETTER || (f == 1 && v == CMP_WORSE);
	t->nochange += v == CMP_NO_CHANGE;
	t->worse += f < 1 && v == CMP_WORSE;
	t->runs += n;
	v = verdict(b, p, (size_t)cap, &needed);
	t->single_alarm += v == CMP_BETTER || (f == 1 && v == CMP_WORSE);
	t->single_worse += f < 1 && v == CMP_WORSE;
	t->single_nochange += v == CMP_NO_CHANGE;
}

int main(int argc, char **argv)
{
	long trials = argc > 1 ? atol(argv[1]) : 1000;
	static const double shifts[] = { 0, 1, 2, 3 };
	static const double cvs[] = { 0.01, 0.03 };
	static const int n0s[] = { 2, 5 };
	const int cap = 20;

	printf("until decided (analysis/decided.c on analysis/verdict.c): start N0 a side, cap %d a side,\n"
	       "normal noise, %ld trials per cell; shift: patched lower by k CV (right verdict: worse)\n\n",
	       cap, trials);
	printf("%-5s %-3s %-6s | %-8s %-7s %-9s %-7s %-9s | one look at %d: %-6s %-9s %-7s\n",
	       "cv", "N0", "shift", "decided", "alarms", "no change", "worse", "runs/side", cap,
	       "alarms", "no change", "worse");
	for (size_t c = 0; c < sizeof(cvs) / sizeof(cvs[0]); c++)
		for (size_t k = 0; k < sizeof(n0s) / sizeof(n0s[0]); k++)
			for (size_t s = 0; s < sizeof(shifts) / sizeof(shifts[0]); s++) {
				struct tally t;
				double f = 1 - shifts[s] * cvs[c];
				char label[16];

				memset(&t, 0, sizeof(t));
				for (long i = 0; i < trials; i++)
					trial(f, cvs[c], n0s[k], cap, &t);
				snprintf(label, sizeof(label), s ? "-%.0f CV" : "A/A", shifts[s]);
				printf("%3.0f%%  %-3d %-6s | %6.1f%%  %5.2f%%  %7.1f%%  %5.1f%%  %9.1f | %15s %5.2f%%  %7.1f%%  %5.1f%%\n",
				       cvs[c] * 100, n0s[k], label,
				       100.0 * t.decided / trials, 100.0 * t.alarm / trials,
				       100.0 * t.nochange / trials, 100.0 * t.worse / trials,
				       (double)t.runs / trials, "",
				       100.0 * t.single_alarm / trials,
				       100.0 * t.single_nochange / trials,
				       100.0 * t.single_worse / trials);
			}
	return 0;
}
