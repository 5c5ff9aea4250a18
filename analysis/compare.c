/* compare.c: one job's metrics, base vs patched, in one cell. For each
 * metric it summarises both sides (stats.c), tests the difference, and
 * turns p-value, bootstrap interval, direction and spread into a verdict
 * (rules in analysis.h at enum cmp_verdict and at verdict() below). The
 * web server fills a report from the database; render.c prints it. */
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

int cmp_cell_same(const struct cmp_cell *a, const struct cmp_cell *b)
{
	return !strcmp(nz(a->arch), nz(b->arch)) && a->vcpus == b->vcpus &&
	       a->memory_mb == b->memory_mb && !strcmp(nz(a->accel), nz(b->accel)) &&
	       !strcmp(nz(a->host), nz(b->host)) && !strcmp(nz(a->topology), nz(b->topology)) &&
	       (a->numa_nodes > 1 ? a->numa_nodes : 1) == (b->numa_nodes > 1 ? b->numa_nodes : 1);
}

void cmp_cell_describe(const struct cmp_cell *c, struct buf *b)
{
	buf_printf(b, "%s, %d vcpus, %d MiB, %s", *nz(c->arch) ? c->arch : "arch ?", c->vcpus,
		   c->memory_mb, *nz(c->accel) ? c->accel : "accel ?");
	if (*nz(c->host))
		buf_printf(b, ", host %s", c->host);
	if (*nz(c->topology))
		buf_printf(b, ", topology %s", c->topology);
	if (c->numa_nodes > 1)
		buf_printf(b, ", %d NUMA nodes", c->numa_nodes);
}

static void cell_release(struct cmp_cell *c)
{
	free(c->arch);
	free(c->accel);
	free(c->host);
	free(c->topology);
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

/* Runs per side that would likely settle an uncertain comparison. The
 * rule: the normal-approximation sample size of a two-sided two-sample
 * test at alpha 0.05 with 80% power,
 *     n = 2 (z_0.975 + z_0.8)^2 s^2 / d^2,
 * divided by 0.955, the Mann-Whitney test's efficiency relative to the t
 * test on normal data. s is the pooled relative spread
 * sqrt((sd_base^2 + sd_patched^2) / 2) / |median_base| and d the observed
 * relative change of the median, at least CMP_EQUIV (to tell a change
 * that small from none takes as many runs). When that is not more than
 * the runs already there (a borderline result), another CMP_MIN_N runs
 * are asked for. At least CMP_MIN_N, at most CMP_RUNS_CAP. */
static int runs_needed(const struct cmp_metric *m)
{
	const double z = 1.959964 + 0.841621, are = 0.955;
	size_t have = m->base.n > m->patched.n ? m->base.n : m->patched.n;
	double scale = fabs(m->base.median), s, d, n;

	if (scale == 0)
		scale = fabs(m->base.mean);
	if (scale == 0)
		return CMP_MIN_N;
	s = sqrt((m->base.stddev * m->base.stddev + m->patched.stddev * m->patched.stddev) / 2) /
	    scale;
	d = isfinite(m->change_pct) ? fabs(m->change_pct) / 100 : 0;
	if (d < CMP_EQUIV)
		d = CMP_EQUIV;
	if (s == 0)   /* no spread yet: all it takes is enough runs for the test */
		return CMP_MIN_N > (int)have ? CMP_MIN_N : (int)have + CMP_MIN_N;
	n = ceil(2 * z * z * s * s / (d * d) / are);
	if (n <= (double)have)
		n = (double)have + CMP_MIN_N;
	if (n < CMP_MIN_N)
		n = CMP_MIN_N;
	return n > CMP_RUNS_CAP ? CMP_RUNS_CAP : (int)n;
}

/* better / worse / changed when p < CMP_ALPHA and the ratio's CI lies on
 * one side of 1; no change when the CI lies within [1 - CMP_EQUIV, 1 +
 * CMP_EQUIV], or when p >= CMP_ALPHA with at least CMP_MIN_N runs per side
 * and a base that is not noisy (a noisy base with few runs hides real
 * changes, so it stays uncertain); uncertain otherwise. */
static void verdict(struct cmp_metric *m)
{
	int sig = isfinite(m->p) && m->p < CMP_ALPHA && m->have_ci &&
		  (m->ci_lo > 1 || m->ci_hi < 1);

	m->runs_needed = 0;
	if (sig) {
		/* with a negative base median a ratio above 1 is a lower value */
		int up = (m->ci_lo > 1) == (m->base.median > 0);

		if (m->higher_better < 0)
			m->verdict = CMP_CHANGED;
		else
			m->verdict = up == (m->higher_better == 1) ? CMP_BETTER : CMP_WORSE;
		return;
	}
	if (m->have_ci && m->ci_lo >= 1 - CMP_EQUIV && m->ci_hi <= 1 + CMP_EQUIV) {
		m->verdict = CMP_NO_CHANGE;
		return;
	}
	if (isfinite(m->p) && m->p >= CMP_ALPHA && m->base.n >= CMP_MIN_N &&
	    m->patched.n >= CMP_MIN_N && !m->noisy) {
		m->verdict = CMP_NO_CHANGE;
		return;
	}
	m->verdict = CMP_UNCERTAIN;
	m->runs_needed = runs_needed(m);
}

int cmp_report_add(struct cmp_report *r, const char *metric, const char *unit,
		   int higher_better, const double *base, size_t nb, const double *patched,
		   size_t np)
{
	struct cmp_metric m;
	struct stats_mw mw;
	int bad = 0;

	if (!metric || r->n >= CMP_METRICS_MAX)
		return -1;
	memset(&m, 0, sizeof(m));
	if (stats_summarize(base, nb, &m.base) < 0 ||
	    stats_summarize(patched, np, &m.patched) < 0)
		return -1;
	m.higher_better = higher_better > 0 ? 1 : higher_better == 0 ? 0 : -1;
	m.change_pct = m.base.median != 0
		? (m.patched.median - m.base.median) / fabs(m.base.median) * 100 : NAN;
	if (stats_mann_whitney(patched, np, base, nb, &mw) < 0)
		return -1;
	m.p = mw.p;
	m.p_exact = mw.exact;
	/* fails only for a base median of 0 somewhere: no interval then */
	m.have_ci = stats_bootstrap_ratio(base, nb, patched, np, STATS_RESAMPLES, STATS_SEED,
					  &m.ci_lo, &m.ci_hi) == 0;
	if (!m.have_ci)
		m.ci_lo = m.ci_hi = NAN;
	m.base_cv = stats_cv(&m.base);
	m.noisy = isfinite(m.base_cv) && m.base_cv > CMP_NOISE_CV;
	verdict(&m);
	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 16;
		struct cmp_metric *nv = realloc(r->v, na * sizeof(*nv));

		if (!nv)
			return -1;
		r->v = nv;
		r->alloc = na;
	}
	m.name = dup_or_null(metric, &bad);
	m.unit = dup_or_null(unit, &bad);
	if (bad) {
		free(m.name);
		free(m.unit);
		return -1;
	}
	r->v[r->n++] = m;
	return 0;
}
