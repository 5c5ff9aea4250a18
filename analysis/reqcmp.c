// SPDX-License-Identifier: GPL-2.0-only
/* reqcmp.c: a request's metric comparison (reqcmp.h): the samples of its
 * passed runs grouped by cell (analysis/cells.c, one value per run, the
 * median of its samples, as /api/compare takes them), then a report per
 * cell with both sides (analysis/compare.c), with the job's directions
 * and margins or the request's margin. */
#include "analysis/reqcmp.h"

#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "jobs/jobs.h"

static const char *const side_names[2] = { "base", "patched" };

int reqcmp_side(const struct request *q, size_t i, const struct run *run)
{
	if (run && q->base_kernel_id != q->patched_kernel_id)
		return run->kernel_id != q->base_kernel_id;
	return (int)(i % 2);
}

int reqcmp_metric_better(const struct job_def *d, const char *metric, const char **unit)
{
	for (size_t i = 0; d && metric && i < d->nmetrics; i++)
		if (!strcmp(d->metrics[i].name, metric)) {
			if (unit && !*unit)
				*unit = d->metrics[i].unit;
			return d->metrics[i].higher_better ? 1 : 0;
		}
	return -1;
}

double reqcmp_metric_margin(const struct job_def *d, const char *metric, double asked)
{
	if (asked > 0)
		return asked;
	for (size_t i = 0; d && metric && i < d->nmetrics; i++)
		if (!strcmp(d->metrics[i].name, metric))
			return d->metrics[i].margin;
	return 0;
}

void reqcmp_report_cell(struct cmp_report *r, const struct job_def *d, const struct cell *c,
			double asked, const char *const side_name[2])
{
	for (size_t j = 0; j < c->nm; j++) {
		const struct cell_metric *m = &c->m[j];
		struct cmp_metric_in in = {
			.name = m->name, .unit = m->unit,
			.higher_better = reqcmp_metric_better(d, m->name, NULL),
			.margin = reqcmp_metric_margin(d, m->name, asked),
			.v = { m->v[0], m->v[1] }, .run = { m->run[0], m->run[1] },
			.n = { m->n[0], m->n[1] },
		};

		if (!m->n[0] || !m->n[1])
			cmp_report_note(r, "metric '%s': no %s samples", m->name,
					side_name[m->n[0] ? 1 : 0]);
		else if (cmp_report_add_metric(r, &in) < 0)
			cmp_report_note(r, "metric '%s': left out (more than %d metrics?)", m->name,
					CMP_METRICS_MAX);
	}
}

void reqcmp_release(struct reqcmp *x)
{
	for (size_t i = 0; i < x->cells.n && i < REQCMP_CELLS_MAX; i++)
		if (x->have_rep[i])
			cmp_report_release(&x->rep[i]);
	cells_release(&x->cells);
	free(x->label[0]);
	free(x->label[1]);
	memset(x, 0, sizeof(*x));
}

char *reqcmp_label(struct db *db, const struct request *q, int side)
{
	char *s = NULL;

	if (db_kernel_label(db, side ? q->patched_kernel_id : q->base_kernel_id, "", &s) <= 0)
		return NULL;
	return s;
}

/* Feeds one passed run's samples to x's cells. 0, -1 database error, -2
 * out of memory. */
static int run_samples(struct db *db, const struct run *run, int side, struct reqcmp *x)
{
	struct cmp_cell cell = {
		run->arch, run->vcpus, run->memory_mb, run->accel, run->host, run->topology,
		run->numa_nodes, run->boot,
	};
	struct sample_row *rows = NULL;
	size_t n = 0;
	int rc = -2, s;

	if (db_run_samples(db, run->id, REQCMP_SAMPLES_MAX, &rows, &n) < 0)
		return -1;
	if (!n) {
		rc = 0;
		goto out;
	}
	x->samples[side]++;
	s = cells_run_id(&x->cells, &cell, side, run->id);
	if (s == -2) {
		x->cells_dropped++;
		rc = 0;
		goto out;
	}
	if (s < 0)
		goto out;
	/* rows come by metric and seq */
	for (size_t j = 0; j < n; j++)
		if (cells_sample(&x->cells, rows[j].metric, rows[j].unit, rows[j].value) < 0)
			goto out;
	if (cells_end(&x->cells) < 0)
		goto out;
	rc = 0;
out:
	sample_rows_free(rows, n);
	return rc;
}

/* The report of cell i, which has runs of both sides; 0 / -1 (memory) */
static int cell_report(const struct request *q, const struct job_def *def, struct reqcmp *x,
		       size_t i)
{
	const struct cell *c = &x->cells.v[i];
	struct cmp_report *rep = &x->rep[i];
	char err[256];

	x->have_rep[i] = 1;
	if (cmp_report_init(rep, q->job, x->label[0], x->label[1], &c->cell, &c->cell, err,
			    sizeof(err)) < 0)
		return -1;
	reqcmp_report_cell(rep, def, c, q->margin, side_names);
	if (!def && q->job)
		cmp_report_note(rep, "job '%s' is not loaded: metric directions not known", q->job);
	for (int s = 0; s < 2; s++)
		if (x->left_out[s])
			cmp_report_note(rep, "%s: %lld done run%s that did not pass left out",
					side_names[s], (long long)x->left_out[s],
					x->left_out[s] == 1 ? "" : "s");
	return 0;
}

int reqcmp_build(struct db *db, const struct request *q, const struct run *runs,
		 const int *side, const struct job_def *def, struct reqcmp *x)
{
	memset(x, 0, sizeof(*x));
	cells_init(&x->cells, REQCMP_CELLS_MAX, CMP_METRICS_MAX);
	x->label[0] = reqcmp_label(db, q, 0);
	x->label[1] = reqcmp_label(db, q, 1);
	if (!x->label[0] || !x->label[1])
		return -2;
	for (size_t i = 0; i < q->nruns; i++) {
		const struct run *run = &runs[i];
		int rc;

		if (!run->id || run->state != RUN_DONE)
			continue;
		if (run->outcome != RUN_OUT_PASSED) {
			x->left_out[side[i]]++;
			continue;
		}
		rc = run_samples(db, run, side[i], x);
		if (rc < 0)
			return rc;
	}
	for (size_t i = 0; i < x->cells.n; i++)
		if (x->cells.v[i].runs[0] && x->cells.v[i].runs[1] && cell_report(q, def, x, i) < 0)
			return -2;
	return 0;
}
