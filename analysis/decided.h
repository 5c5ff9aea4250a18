/* SPDX-License-Identifier: GPL-2.0-only */
/* decided.h: the rule of a request run until decided (decided.c): after
 * a round of runs has ended, given each metric's verdict (cmp_decide(),
 * as the request page shows it), the runs a side that gave samples and
 * those queued, and the cap, either queue more interleaved pairs or stop,
 * and say why. A pure function: orchestrator/decided.c feeds it from the
 * database and does what it says. */
#ifndef KF_ANALYSIS_DECIDED_H
#define KF_ANALYSIS_DECIDED_H

#include <stddef.h>

#include "analysis/analysis.h"

#define DECIDED_MAX_RUNS      20    /* the cap of runs a side when none is given */
#define DECIDED_MAX_RUNS_MAX  100   /* the cap allowed at most (as --repeat) */
#define DECIDED_REASON_MAX    512

/* One metric of one cell, as decided so far (borrowed) */
struct decided_metric {
	const char *name;
	enum cmp_verdict verdict;
	int runs_needed;        /* for CMP_UNCERTAIN: runs a side that would settle it */
};

struct decided_in {
	const struct decided_metric *m;
	size_t nm;
	int queued;             /* runs a side queued in all rounds so far */
	int samples[2];         /* runs per side (0 base, 1 patched) that gave samples */
	int new_samples;        /* of those, how many the last round's runs gave */
	int round;              /* rounds so far, 1 after the first */
	int cap;                /* runs a side at most, >= 1 */
	int canceled;           /* the last round's runs were canceled */
	const char *failing;    /* why runs did not give samples ("3 runs failed: crashed"),
				 * or NULL */
};

enum decided_action {
	DECIDED_MORE,           /* queue pairs more runs a side */
	DECIDED_DONE,           /* every metric better, worse, changed or no change */
	DECIDED_CAP,            /* metrics still uncertain at the cap */
	DECIDED_FAILING,        /* a round gave no samples, or no metric could be compared */
	DECIDED_CANCELED,
};

struct decided_out {
	enum decided_action action;
	int pairs;              /* DECIDED_MORE: runs a side to add, >= 1 */
	char reason[DECIDED_REASON_MAX];   /* "decided: every metric ...", "cap reached
					    * (4 a side): metrics ops still uncertain" */
};

/* Fills out from in. The pairs of a round are those the most demanding
 * uncertain metric needs beyond the samples its sides have, bounded by
 * what the cap leaves. 0, or -1 when in is not valid (cap < 1). */
int decided_next(const struct decided_in *in, struct decided_out *out);

/* "deciding" for DECIDED_MORE, else "decided", "cap", "failing",
 * "canceled": the words the database keeps */
const char *decided_state_name(enum decided_action a);

#endif
