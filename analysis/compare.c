// SPDX-License-Identifier: GPL-2.0-only
/* compare.c: one job's metrics, base vs patched, in one cell. For each
 * metric it summarises both sides (stats.c) and decides it (verdict.c:
 * analysis.h at cmp_decide()); across the report's metrics the p-values
 * are adjusted (Benjamini-Hochberg) and every verdict settled on its
 * q-value. The web server fills a report from the database; render.c
 * prints it. */
#include "analysis/analysis.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const verdict_names[CMP_VERDICT_COUNT] = {
	[CMP_BETTER] = "better",
	[CMP_WORSE] = "worse",
	[CMP_CHANGED] = "changed",
	[CMP_NO_CHANGE] = "no change",
	[CMP_UNCERTAIN] = "uncertain",
};

const char *cmp_verdict_name(enum cmp_verdict v)
{
	return (unsigned)v < CMP_VERDICT_COUNT ? verdict_names[v] : "?";
}

int cmp_verdict_parse(const char *s, enum cmp_verdict *out)
{
	for (int i = 0; i < CMP_VERDICT_COUNT; i++)
		if (s && !strcmp(s, verdict_names[i])) {
			*out = (enum cmp_verdict)i;
			return 0;
		}
	return -1;
}

/* ---- cells ---- */

static const char *nz(const char *s)
{
	return s ? s : "";
}

const char *cmp_cell_boot(const struct cmp_cell *c)
{
	return !c->boot || !strcmp(c->boot, "default") ? "" : c->boot;
}

const char *cmp_cell_boot_name(const struct cmp_cell *c)
{
	return *cmp_cell_boot(c) ? c->boot : "default";
}

int cmp_cell_same(const struct cmp_cell *a, const struct cmp_cell *b)
{
	return !strcmp(nz(a->arch), nz(b->arch)) && a->vcpus == b->vcpus &&
	       a->memory_mb == b->memory_mb && !strcmp(nz(a->accel), nz(b->accel)) &&
	       !strcmp(nz(a->host), nz(b->host)) && !strcmp(nz(a->topology), nz(b->topology)) &&
	       (a->numa_nodes > 1 ? a->numa_nodes : 1) == (b->numa_nodes > 1 ? b->numa_nodes : 1) &&
	       !strcmp(cmp_cell_boot(a), cmp_cell_boot(b));
}

void cmp_cell_describe(const struct cmp_cell *c, struct buf *b)
{
	buf_printf(b, "%s, %d vcpus, %d MiB, %s", *nz(c->arch) ? c->arch : "arch ?", c->vcpus,
		   c->memory_mb, *nz(c->accel) ? c->accel : "accel ?");
	cmp_cell_describe_rest(c, b);
}

void cmp_cell_describe_rest(const struct cmp_cell *c, struct buf *b)
{
	if (*nz(c->host))
		buf_printf(b, ", host %s", c->host);
	if (*nz(c->topology))
		buf_printf(b, ", topology %s", c->topology);
	if (c->numa_nodes > 1)
		buf_printf(b, ", %d NUMA nodes", c->numa_nodes);
	if (*cmp_cell_boot(c))
		buf_printf(b, ", boot %s", c->boot);
}

static void cell_release(struct cmp_cell *c)
{
	free(c->arch);
	free(c->accel);
	free(c->host);
	free(c->topology);
	free(c->boot);
	memset(c, 0, sizeof(*c));
}

/* a copy, or NULL for NULL; *bad set when memory ran out */
static char *dup_or_null(const char *s, int *bad)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*bad = 1;
	return d;
}

/* ---- the report ---- */

int cmp_report_init(struct cmp_report *r, const char *job, const char *base_label,
		    const char *patched_label, const struct cmp_cell *base,
		    const struct cmp_cell *patched, char *err, size_t errlen)
{
	int bad = 0;

	memset(r, 0, sizeof(*r));
	if (err && errlen)
		err[0] = '\0';
	if (!cmp_cell_same(base, patched)) {
		struct buf b = BUF_INIT(0);

		buf_puts(&b, "cells differ:");
		if (strcmp(nz(base->arch), nz(patched->arch)))
			buf_printf(&b, " arch '%s' vs '%s',", nz(base->arch), nz(patched->arch));
		if (base->vcpus != patched->vcpus)
			buf_printf(&b, " vcpus %d vs %d,", base->vcpus, patched->vcpus);
		if (base->memory_mb != patched->memory_mb)
			buf_printf(&b, " memory %d vs %d MiB,", base->memory_mb,
				   patched->memory_mb);
		if (strcmp(nz(base->accel), nz(patched->accel)))
			buf_printf(&b, " accel '%s' vs '%s',", nz(base->accel), nz(patched->accel));
		if (strcmp(nz(base->host), nz(patched->host)))
			buf_printf(&b, " host '%s' vs '%s',", nz(base->host), nz(patched->host));
		if (strcmp(nz(base->topology), nz(patched->topology)))
			buf_printf(&b, " topology '%s' vs '%s',", nz(base->topology),
				   nz(patched->topology));
		if ((base->numa_nodes > 1 ? base->numa_nodes : 1) !=
		    (patched->numa_nodes > 1 ? patched->numa_nodes : 1))
			buf_printf(&b, " NUMA nodes %d vs %d,",
				   base->numa_nodes > 1 ? base->numa_nodes : 1,
				   patched->numa_nodes > 1 ? patched->numa_nodes : 1);
		if (strcmp(cmp_cell_boot(base), cmp_cell_boot(patched)))
			buf_printf(&b, " boot '%s' vs '%s',", cmp_cell_boot_name(base),
				   cmp_cell_boot_name(patched));
		if (b.len && b.data[b.len - 1] == ',')
			b.data[--b.len] = '\0';
		if (err && errlen)
			snprintf(err, errlen, "%s", buf_str(&b));
		buf_release(&b);
		return -1;
	}
	r->job = dup_or_null(job, &bad);
	r->base_label = dup_or_null(base_label, &bad);
	r->patched_label = dup_or_null(patched_label, &bad);
	r->cell.arch = dup_or_null(base->arch, &bad);
	r->cell.vcpus = base->vcpus;
	r->cell.memory_mb = base->memory_mb;
	r->cell.accel = dup_or_null(base->accel, &bad);
	r->cell.host = dup_or_null(base->host, &bad);
	r->cell.topology = dup_or_null(base->topology, &bad);
	r->cell.numa_nodes = base->numa_nodes > 1 ? base->numa_nodes : 1;
	r->cell.boot = *cmp_cell_boot(base) ? dup_or_null(base->boot, &bad) : NULL;
	if (bad) {
		if (err && errlen)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

void cmp_report_note(struct cmp_report *r, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (r->nnotes >= CMP_NOTES_MAX) {
		r->notes_dropped++;
		return;
	}
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		r->notes_dropped++;
		return;
	}
	r->notes[r->nnotes++] = s;
}

void cmp_report_release(struct cmp_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].unit);
	}
	free(r->v);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->job);
	free(r->base_label);
	free(r->patched_label);
	cell_release(&r->cell);
	memset(r, 0, sizeof(*r));
}

/* ---- verdicts ---- */

/* Every metric's verdict settled again on its q-value among the report's
 * p-values: 0, -1 memory */
static int adjust(struct cmp_report *r)
{
	double *q = malloc((r->n ? r->n : 1) * sizeof(*q));

	if (!q)
		return -1;
	for (size_t i = 0; i < r->n; i++)
		q[i] = r->v[i].p;
	if (stats_bh_adjust(q, r->n, q) < 0) {
		free(q);
		return -1;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct cmp_metric *m = &r->v[i];

		m->q = q[i];
		cmp_decision_settle(&m->dec, m->q, m->higher_better);
		m->verdict = m->dec.verdict;
		m->runs_needed = m->dec.runs_needed;
	}
	r->corrected = 1;
	free(q);
	return 0;
}

/* The CV of the runs of v not flagged; NAN when it has none (or memory) */
static double kept_cv(const double *v, const unsigned char *flag, size_t n)
{
	double *k = malloc(n * sizeof(*k)), cv = NAN;
	struct stats_summary s;
	size_t nk = 0;

	if (!k)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (!flag[i])
			k[nk++] = v[i];
	if (nk && stats_summarize(k, nk, &s) == 0)
		cv = stats_cv(&s);
	free(k);
	return cv;
}

/* The outlying runs of side s into m: ids when given, else places */
static void keep_outliers(struct cmp_metric *m, int s, const unsigned char *flag, size_t n,
			  const int64_t *run)
{
	for (size_t i = 0; i < n; i++) {
		if (!flag[i])
			continue;
		if (m->noutliers[s] < CMP_OUTLIERS_MAX)
			m->outlier[s][m->noutliers[s]] = run ? run[i] : (int64_t)i + 1;
		m->noutliers[s]++;
	}
}

int cmp_report_add_metric(struct cmp_report *r, const struct cmp_metric_in *in)
{
	struct cmp_metric m;
	unsigned char *flag[2] = { NULL, NULL };
	int bad = 0, rc = -1;

	if (!in->name || r->n >= CMP_METRICS_MAX)
		return -1;
	memset(&m, 0, sizeof(m));
	if (stats_summarize(in->v[0], in->n[0], &m.base) < 0 ||
	    stats_summarize(in->v[1], in->n[1], &m.patched) < 0)
		return -1;
	flag[0] = malloc(in->n[0]);
	flag[1] = malloc(in->n[1]);
	if (!flag[0] || !flag[1])
		goto out;
	m.higher_better = in->higher_better > 0 ? 1 : in->higher_better == 0 ? 0 : -1;
	if (cmp_decide(in->v[0], in->n[0], in->v[1], in->n[1], m.higher_better,
		       in->margin ? in->margin : r->margin, CMP_ALPHA, &m.dec, flag[0],
		       flag[1]) < 0)
		goto out;
	m.change_pct = m.base.median != 0
		? (m.patched.median - m.base.median) / fabs(m.base.median) * 100 : NAN;
	m.p = m.dec.p;
	m.q = m.dec.p;
	m.have_ci = m.dec.tested;
	m.ci_lo = m.have_ci ? m.dec.ci_lo : NAN;
	m.ci_hi = m.have_ci ? m.dec.ci_hi : NAN;
	m.margin = m.dec.margin;
	m.mdc = m.dec.mdc;
	m.base_cv = stats_cv(&m.base);
	m.noisy = kept_cv(in->v[0], flag[0], in->n[0]) > CMP_NOISE_CV;
	m.verdict = m.dec.verdict;
	m.runs_needed = m.dec.runs_needed;
	m.outlier_by_id = in->run[0] && in->run[1];
	for (int s = 0; s < 2; s++)
		keep_outliers(&m, s, flag[s], in->n[s], m.outlier_by_id ? in->run[s] : NULL);
	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 16;
		struct cmp_metric *nv = realloc(r->v, na * sizeof(*nv));

		if (!nv)
			goto out;
		r->v = nv;
		r->alloc = na;
	}
	m.name = dup_or_null(in->name, &bad);
	m.unit = dup_or_null(in->unit, &bad);
	if (bad) {
		free(m.name);
		free(m.unit);
		goto out;
	}
	r->v[r->n++] = m;
	rc = adjust(r);
out:
	free(flag[0]);
	free(flag[1]);
	return rc;
}

int cmp_report_add(struct cmp_report *r, const char *metric, const char *unit,
		   int higher_better, const double *base, size_t nb, const double *patched,
		   size_t np)
{
	struct cmp_metric_in in = {
		.name = metric, .unit = unit, .higher_better = higher_better,
		.v = { base, patched }, .n = { nb, np },
	};

	return cmp_report_add_metric(r, &in);
}
