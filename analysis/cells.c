// SPDX-License-Identifier: GPL-2.0-only
/* cells.c: metric samples grouped by cell, metric and run for a base vs
 * patched comparison (cells.h): the request pages (web/request.c) and
 * /api/compare (web/comparisons.c) feed the samples of their runs here as
 * they read them, a run at a time and its samples by metric, and get per
 * cell and metric one value per run and side, the median of the run's
 * samples, for cmp_report_add(). */
#include "analysis/cells.h"

#include <stdlib.h>
#include <string.h>

void cells_init(struct cells *cs, size_t max, size_t metrics_max)
{
	memset(cs, 0, sizeof(*cs));
	cs->max = max;
	cs->metrics_max = metrics_max;
}

static void cell_release(struct cell *c)
{
	for (size_t j = 0; j < c->nm; j++) {
		free(c->m[j].name);
		free(c->m[j].unit);
		free(c->m[j].v[0]);
		free(c->m[j].v[1]);
		free(c->m[j].run[0]);
		free(c->m[j].run[1]);
	}
	free(c->m);
	free(c->cell.arch);
	free(c->cell.accel);
	free(c->cell.host);
	free(c->cell.topology);
	free(c->cell.boot);
}

void cells_release(struct cells *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		cell_release(&cs->v[i]);
	free(cs->v);
	free(cs->metric);
	free(cs->unit);
	free(cs->gv);
	memset(cs, 0, sizeof(*cs));
}

static char *dup_or_null(const char *s, int *bad)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*bad = 1;
	return d;
}

/* The cell c, added when new; NULL when memory ran out (*full 0) or there
 * are max (*full 1) */
static struct cell *cell_find(struct cells *cs, const struct cmp_cell *c, int *full)
{
	struct cell *n;
	int bad = 0;

	*full = 0;
	for (size_t i = 0; i < cs->n; i++)
		if (cmp_cell_same(&cs->v[i].cell, c))
			return &cs->v[i];
	if (cs->n == cs->max) {
		*full = 1;
		return NULL;
	}
	if (!cs->n) {
		cs->v = calloc(cs->max, sizeof(*cs->v));
		if (!cs->v)
			return NULL;
	}
	n = &cs->v[cs->n++];   /* counted now: cells_release frees it */
	memset(n, 0, sizeof(*n));
	n->cell = *c;
	n->cell.arch = dup_or_null(c->arch, &bad);
	n->cell.accel = dup_or_null(c->accel, &bad);
	n->cell.host = dup_or_null(c->host, &bad);
	n->cell.topology = dup_or_null(c->topology, &bad);
	n->cell.boot = *cmp_cell_boot(c) ? dup_or_null(c->boot, &bad) : NULL;
	return bad ? NULL : n;
}

/* The metric name of cell, added in name order when new; NULL when memory
 * ran out (*full 0) or there are metrics_max (*full 1) */
static struct cell_metric *metric_find(struct cells *cs, struct cell *c, const char *name,
				       int *full)
{
	size_t lo = 0, hi = c->nm;
	struct cell_metric *m;

	*full = 0;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int d = strcmp(c->m[mid].name, name);

		if (!d)
			return &c->m[mid];
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (cs->metrics_max && c->nm == cs->metrics_max) {
		*full = 1;
		return NULL;
	}
	if (c->nm == c->alloc) {
		size_t na = c->alloc ? c->alloc * 2 : 8;
		struct cell_metric *nv = realloc(c->m, na * sizeof(*nv));

		if (!nv)
			return NULL;
		c->m = nv;
		c->alloc = na;
	}
	memmove(&c->m[lo + 1], &c->m[lo], (c->nm - lo) * sizeof(*c->m));
	c->nm++;
	m = &c->m[lo];
	memset(m, 0, sizeof(*m));
	m->name = strdup(name);
	return m->name ? m : NULL;
}

static int push(double **v, size_t *n, size_t *alloc, double x)
{
	if (*n == *alloc) {
		size_t na = *alloc ? *alloc * 2 : 16;
		double *nv = realloc(*v, na * sizeof(*nv));

		if (!nv)
			return -1;
		*v = nv;
		*alloc = na;
	}
	(*v)[(*n)++] = x;
	return 0;
}

/* A value and its run's id onto side s of m: 0 / -1 */
static int push_run(struct cell_metric *m, int s, double x, int64_t run)
{
	size_t alloc = m->alloc[s];

	if (m->n[s] == alloc) {
		/* the ids grow with the values, to the size push() is about to give */
		size_t na = alloc ? alloc * 2 : 16;
		int64_t *nr = realloc(m->run[s], na * sizeof(*nr));

		if (!nr)
			return -1;
		m->run[s] = nr;
	}
	if (push(&m->v[s], &m->n[s], &m->alloc[s], x) < 0)
		return -1;
	m->run[s][m->n[s] - 1] = run;
	return 0;
}

/* Files the value of the run's metric being read: 0 / -1 / -2 */
static int take(struct cells *cs)
{
	struct stats_summary s;
	struct cell_metric *m;
	int full;

	if (stats_summarize(cs->gv, cs->gn, &s) < 0)
		return -1;
	m = metric_find(cs, cs->cur, cs->metric, &full);
	if (!m)
		return full ? -2 : -1;
	if (!m->unit && cs->unit && !(m->unit = strdup(cs->unit)))
		return -1;
	return push_run(m, cs->side, s.median, cs->run_id);
}

int cells_end(struct cells *cs)
{
	int rc = cs->metric && cs->cur ? take(cs) : 0;

	free(cs->metric);
	free(cs->unit);
	cs->metric = cs->unit = NULL;
	cs->gn = 0;
	return rc;
}

int cells_run(struct cells *cs, const struct cmp_cell *c, int side)
{
	return cells_run_id(cs, c, side, 0);
}

int cells_run_id(struct cells *cs, const struct cmp_cell *c, int side, int64_t run_id)
{
	int full;

	if (cells_end(cs) < 0)
		return -1;
	cs->cur = cell_find(cs, c, &full);
	if (!cs->cur)
		return full ? -2 : -1;
	if (side == CELLS_ALTERNATE)
		side = (int)((cs->cur->runs[0] + cs->cur->runs[1]) % 2);
	cs->side = side;
	cs->run_id = run_id;
	cs->cur->runs[side]++;
	return side;
}

int cells_sample(struct cells *cs, const char *metric, const char *unit, double value)
{
	int rc = 0;

	if (!cs->cur)
		return 0;   /* a run whose cell did not fit */
	if (cs->metric && strcmp(cs->metric, metric))
		rc = cells_end(cs);
	if (rc < 0)
		return rc;
	if (!cs->metric) {
		cs->metric = strdup(metric);
		cs->unit = unit ? strdup(unit) : NULL;
		if (!cs->metric || (unit && !cs->unit))
			return -1;
	}
	return push(&cs->gv, &cs->gn, &cs->galloc, value);
}

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_cells(const void *pa, const void *pb)
{
	const struct cmp_cell *a = &((const struct cell *)pa)->cell;
	const struct cmp_cell *b = &((const struct cell *)pb)->cell;
	int d = cmp_str(a->arch, b->arch);

	if (d)
		return d;
	if (a->vcpus != b->vcpus)
		return a->vcpus < b->vcpus ? -1 : 1;
	if (a->memory_mb != b->memory_mb)
		return a->memory_mb < b->memory_mb ? -1 : 1;
	d = cmp_str(a->accel, b->accel);
	if (d)
		return d;
	d = cmp_str(a->host, b->host);
	if (d)
		return d;
	d = cmp_str(a->topology, b->topology);
	if (d)
		return d;
	if (a->numa_nodes != b->numa_nodes)
		return a->numa_nodes - b->numa_nodes;
	return strcmp(cmp_cell_boot(a), cmp_cell_boot(b));   /* the default first */
}

void cells_sort(struct cells *cs)
{
	cs->cur = NULL;
	if (cs->n > 1)
		qsort(cs->v, cs->n, sizeof(*cs->v), cmp_cells);
}
