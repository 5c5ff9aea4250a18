/* SPDX-License-Identifier: GPL-2.0-only */
/* reqcmp.h: a request's metric comparison (reqcmp.c), one report per cell
 * of its passed runs, as the request page and /api/requests/ID show it
 * (web/request.c) and as a request run until decided is decided on
 * (decided.c): one reading for both, so the page's verdicts are the ones
 * the loop stopped on. */
#ifndef KF_ANALYSIS_REQCMP_H
#define KF_ANALYSIS_REQCMP_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"
#include "analysis/cells.h"

struct db;
struct job_def;
struct request;
struct run;

#define REQCMP_CELLS_MAX    16     /* cells of one request's comparison */
#define REQCMP_SAMPLES_MAX  5000   /* samples read per run */

struct reqcmp {
	struct cells cells;
	struct cmp_report rep[REQCMP_CELLS_MAX];   /* of the cells with both sides */
	int have_rep[REQCMP_CELLS_MAX];
	size_t cells_dropped;    /* runs in cells past REQCMP_CELLS_MAX */
	int64_t left_out[2];     /* done runs that did not pass, per side */
	int samples[2];          /* passed runs per side that gave samples */
	char *label[2];          /* "kernel 3 (...)" of each side */
};

/* The side of the request's i-th run (run: NULL when it was not found):
 * base and patched alternate (db_request_insert()); the kernel says it
 * too unless both sides are the same kernel. 0 base, 1 patched */
int reqcmp_side(const struct request *q, size_t i, const struct run *run);

/* "kernel 3 (6.1.192-g..., linux c0a315baf863)" of a side (0 base, 1
 * patched): a string the caller frees, NULL when not found or out of memory */
char *reqcmp_label(struct db *db, const struct request *q, int side);

/* Reads the samples of the request's passed runs (runs[0..q->nruns),
 * id 0 when not found, side[] from reqcmp_side()) and makes a report per
 * cell that has runs of both sides, the metrics' directions and margins
 * from the job def (may be NULL) unless the request asked for a margin.
 * 0, -1 database error, -2 out of memory; release x in every case. */
int reqcmp_build(struct db *db, const struct request *q, const struct run *runs,
		 const int *side, const struct job_def *def, struct reqcmp *x);
void reqcmp_release(struct reqcmp *x);

/* Whether higher values of metric are better in the job d (may be NULL):
 * 1, 0, or -1 when not known. When unit is set and *unit NULL, *unit gets
 * the unit the job gives the metric (borrowed). */
int reqcmp_metric_better(const struct job_def *d, const char *metric, const char **unit);
/* The margin for metric: asked when > 0, else the job's, else 0 (the default) */
double reqcmp_metric_margin(const struct job_def *d, const char *metric, double asked);
/* Adds the metrics of cell c to r, the directions and margins from the
 * job d (may be NULL) unless asked (> 0) gives the margin, the runs named
 * by id; a metric with no runs on a side, or one that cannot be added,
 * becomes a note. side_name[0..1] names the sides in those notes. */
void reqcmp_report_cell(struct cmp_report *r, const struct job_def *d, const struct cell *c,
			double asked, const char *const side_name[2]);

#endif
