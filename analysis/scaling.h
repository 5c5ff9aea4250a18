/* SPDX-License-Identifier: GPL-2.0-only */
/* scaling.h: the same comparison at several vCPU counts, as the cover
 * letters put 16 and 96 vCPUs side by side (scaling.c). Takes the
 * per-cell reports of analysis.h (one per vCPU count, the cells the same
 * but for vcpus), lays each metric out by vCPUs, and renders it as a text
 * or markdown table (vCPUs as rows, base / patched / change / verdict as
 * columns) or as an inline SVG chart (the metric against vCPUs, a line
 * per side). No I/O; every text that goes into the SVG is escaped.
 *
 *   size_t g[n], ng = scaling_group(reps, n, g);
 *   for each group k: the reports with g[i] == k into sub[], then
 *     scaling_build(&s, sub, nsub); if (s.nv >= 2) scaling_render_text(&s, &b);
 *     scaling_release(&s);
 */
#ifndef KF_ANALYSIS_SCALING_H
#define KF_ANALYSIS_SCALING_H

#include <stddef.h>

#include "analysis/analysis.h"
#include "common/buf.h"

#define SCALING_POINTS_MAX   32    /* vCPU counts in one scaling; more are left out */
#define SCALING_METRICS_MAX  64    /* metrics in one scaling; more are left out */

/* One vCPU count of a metric: the report's comparison there (borrowed) */
struct scaling_point {
	int vcpus;
	const struct cmp_metric *m;
};

struct scaling_metric {
	const char *name, *unit;    /* borrowed from the first report that has it */
	int higher_better;
	struct scaling_point p[SCALING_POINTS_MAX];
	size_t n;                   /* by vcpus, ascending */
};

/* A metric across vCPU counts for one cell but vcpus. Borrows the reports
 * it was built from: release it before them. */
struct scaling {
	const struct cmp_report *first;   /* job, labels and the cell (but vcpus) */
	struct scaling_metric *m;         /* owned; in the order the metrics came */
	size_t nm;
	int vcpus[SCALING_POINTS_MAX];    /* the distinct counts, ascending */
	size_t nv;
	size_t dropped;                   /* points or metrics past the maxima */
};

/* 1 when a and b are the same cell but for vcpus (and for the same job) */
int scaling_same(const struct cmp_report *a, const struct cmp_report *b);
/* Groups reps[0..n): group[i] gets the index (from 0, in order of first
 * appearance) of the group of reps[i], the reports scaling_same() to each
 * other. Returns the number of groups. */
size_t scaling_group(const struct cmp_report *const *reps, size_t n, size_t *group);
/* Fills s from reps[0..n) (one group; a later report of a vCPU count
 * stands for it over an earlier one). 0, or -1 when n is 0 or memory ran
 * out (release s in both cases). s->nv < 2 is no scaling to show. */
int scaling_build(struct scaling *s, const struct cmp_report *const *reps, size_t n);
void scaling_release(struct scaling *s);

/* "x86_64, 1024 MiB, tcg, host h1" (the cell without vcpus) onto b */
void scaling_cell_describe(const struct scaling *s, struct buf *b);
/* A table per metric, vCPUs as rows: "vCPUs  n  base  patched  change
 * verdict"; the text for a terminal, the markdown for a cover letter.
 * 0, or -1 when b's cap cut it. */
int scaling_render_text(const struct scaling *s, struct buf *b);
int scaling_render_markdown(const struct scaling *s, struct buf *b);
/* An <svg class="scaling"> chart of metric s->m[i] against vCPUs (x on a
 * log scale when the counts span more than 4x): the base and patched
 * medians as lines, each run's min-max as a whisker, a tooltip per point
 * and the change at each count above the patched point. 0, or -1 when i
 * is out of range, nothing is finite, or b's cap cut it. */
int scaling_svg(const struct scaling *s, size_t i, struct buf *b);

#endif
