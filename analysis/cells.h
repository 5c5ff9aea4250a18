/* SPDX-License-Identifier: GPL-2.0-only */
/* cells.h: metric samples grouped for a base vs patched comparison
 * (cells.c): by cell (the conditions runs ran under, struct cmp_cell:
 * different cells are never compared), then by metric, with one value per
 * run and side, the median of the run's samples (runs are the independent
 * repeats; samples within a run are not). The request pages and
 * /api/compare both feed their samples here, then hand each cell to
 * cmp_report_add(). No I/O.
 *
 *   cells_init(&cs, 64, 0);
 *   for each run: cells_run_id(&cs, &cell, side, run_id);   (or cells_run())
 *       for each sample, by metric: cells_sample(&cs, metric, unit, value);
 *   cells_end(&cs); cells_sort(&cs);   ... cs.v[i].m[j].v[side] ...
 *   cells_release(&cs);
 */
#ifndef KF_ANALYSIS_CELLS_H
#define KF_ANALYSIS_CELLS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/analysis.h"

#define CELLS_ALTERNATE (-1)   /* cells_run(): A/A, the cell's runs alternate sides */

/* One metric of a cell: a value per run, per side */
struct cell_metric {
	char *name;
	char *unit;          /* the first one given that is not NULL, or NULL */
	double *v[2];        /* per side (0 base, 1 patched), in the order the runs came */
	int64_t *run[2];     /* the runs' ids, parallel to v (0: not given) */
	size_t n[2], alloc[2];
};

struct cell {
	struct cmp_cell cell;       /* strings owned */
	size_t runs[2];             /* runs per side */
	struct cell_metric *m;      /* by name */
	size_t nm, alloc;
};

struct cells {
	struct cell *v;             /* in the order first seen, or cells_sort()'s */
	size_t n;
	size_t max;                 /* cells at most */
	size_t metrics_max;         /* metrics per cell at most; 0: no bound */
	/* the run and metric being read */
	struct cell *cur;
	int side;
	int64_t run_id;
	char *metric, *unit;
	double *gv;
	size_t gn, galloc;
};

void cells_init(struct cells *cs, size_t max, size_t metrics_max);
/* Starts a run on side (0, 1, or CELLS_ALTERNATE: the cell's 1st, 3rd...
 * run is side 0, its 2nd, 4th... side 1) in the cell c (borrowed, copied
 * when new), after ending the run before (cells_end()). Returns the side,
 * -1 when memory ran out or that end failed, -2 when c is new and there
 * are max cells already (the run's
 * samples are then not taken: cells_sample() ignores them until the next
 * cells_run()). */
int cells_run(struct cells *cs, const struct cmp_cell *c, int side);
/* cells_run() for the run with id run_id, kept beside its values (so
 * that outlying runs can be named) */
int cells_run_id(struct cells *cs, const struct cmp_cell *c, int side, int64_t run_id);
/* A sample of the current run; a run's samples come by metric. When the
 * metric changes the run's value of the one before is taken. 0, -1 when
 * memory ran out or a value is not finite, -2 past metrics_max metrics. */
int cells_sample(struct cells *cs, const char *metric, const char *unit, double value);
/* Takes the value of the current run's last metric. 0 / -1 / -2 as
 * cells_sample(). */
int cells_end(struct cells *cs);
/* Sorts the cells: arch, vcpus, memory, accel, host, topology, NUMA nodes,
 * guest setup */
void cells_sort(struct cells *cs);
void cells_release(struct cells *cs);

#endif
