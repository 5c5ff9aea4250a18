/* SPDX-License-Identifier: GPL-2.0-only */
/* calib.h: a job's noise per metric and cell, from the runs it already
 * has (A/A runs, the base sides of comparisons, any passed run): the
 * per-run SD on the scale cmp_decide() compares (logs: about the CV),
 * pooled within each kernel so that kernels that differ do not count as
 * noise, and the runs a side that changes of 2%, 5% and 10% would need
 * under cmp_decide()'s rule (cmp_runs_to_detect()). db/calib.c reads the
 * runs, web/calib.c shows them. Pure: no I/O, no state. */
#ifndef KF_ANALYSIS_CALIB_H
#define KF_ANALYSIS_CALIB_H

#include <stddef.h>
#include <stdint.h>

#define CALIB_NCHANGES 3
/* the changes the runs needed are given for: 2%, 5%, 10% */
extern const double calib_changes[CALIB_NCHANGES];

struct calib_noise {
	size_t runs;          /* runs the estimate is from */
	size_t kernels;       /* ... on this many kernels */
	double df;            /* runs - kernels: the pooled variance's degrees of freedom */
	int log_scale;        /* 1: every value > 0, the SD is of the logs */
	double cv;            /* the pooled per-run SD on that scale (logs: about the
			       * CV; else of values over |median| of all); NAN when df < 1 */
	int runs_needed[CALIB_NCHANGES];  /* runs a side for calib_changes[i] at
					   * CMP_ALPHA, 80% power; 0 when cv is NAN */
};

/* The noise of one metric in one cell from one value per run v[0..n)
 * and each run's kernel in kernel[0..n) (runs of one kernel need not be
 * next to each other). 0, or -1 when n is 0 or above STATS_N_MAX, a value
 * is not finite, or memory ran out. */
int calib_estimate(const double *v, const int64_t *kernel, size_t n, struct calib_noise *out);

#endif
