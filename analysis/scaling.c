// SPDX-License-Identifier: GPL-2.0-only
/* scaling.c: one job's base vs patched comparison at several vCPU counts
 * (scaling.h): the per-cell reports that differ only in vcpus, as a table
 * per metric with vCPUs as rows (kfleet test / kfleet compare, text and
 * markdown) and as an SVG chart of the metric against vCPUs (the request
 * page, web/scaling.c). Pure: the reports in, text out. */
#include "analysis/scaling.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
	return s ? s : "";
}

int scaling_same(const struct cmp_report *a, const struct cmp_report *b)
{
	const struct cmp_cell *x = &a->cell, *y = &b->cell;

	return !strcmp(nz(a->job), nz(b->job)) && !strcmp(nz(x->arch), nz(y->arch)) &&
	       x->memory_mb == y->memory_mb && !strcmp(nz(x->accel), nz(y->accel)) &&
	       !strcmp(nz(x->host), nz(y->host)) && !strcmp(nz(x->topology), nz(y->topology)) &&
	       (x->numa_nodes > 1 ? x->numa_nodes : 1) == (y->numa_nodes > 1 ? y->numa_nodes : 1) &&
	       !strcmp(cmp_cell_boot(x), cmp_cell_boot(y));
}

size_t scaling_group(const struct cmp_report *const *reps, size_t n, size_t *group)
{
	size_t ng = 0;

	for (size_t i = 0; i < n; i++) {
		group[i] = ng;
		for (size_t j = 0; j < i; j++)
			if (scaling_same(reps[i], reps[j])) {
				group[i] = group[j];
				break;
			}
		if (group[i] == ng)
			ng++;
	}
	return ng;
}

/* The metric named so in s, added when new; NULL past the maximum or
 * when memory ran out (*bad set then) */
static struct scaling_metric *metric_get(struct scaling *s, const struct cmp_metric *cm,
					 int *bad)
{
	struct scaling_metric *m;

	for (size_t i = 0; i < s->nm; i++)
		if (!strcmp(s->m[i].name, cm->name))
			return &s->m[i];
	if (s->nm == SCALING_METRICS_MAX) {
		s->dropped++;
		return NULL;
	}
	m = realloc(s->m, (s->nm + 1) * sizeof(*s->m));
	if (!m) {
		*bad = 1;
		return NULL;
	}
	s->m = m;
	m = &s->m[s->nm++];
	memset(m, 0, sizeof(*m));
	m->name = cm->name;
	m->unit = cm->unit;
	m->higher_better = cm->higher_better;
	return m;
}

/* The point of vcpus in m, in order; a later one replaces it */
static void point_put(struct scaling *s, struct scaling_metric *m, int vcpus,
		      const struct cmp_metric *cm)
{
	size_t at = 0;

	while (at < m->n && m->p[at].vcpus < vcpus)
		at++;
	if (at < m->n && m->p[at].vcpus == vcpus) {
		m->p[at].m = cm;
		return;
	}
	if (m->n == SCALING_POINTS_MAX) {
		s->dropped++;
		return;
	}
	memmove(&m->p[at + 1], &m->p[at], (m->n - at) * sizeof(m->p[0]));
	m->p[at] = (struct scaling_point){ vcpus, cm };
	m->n++;
}

static void vcpus_put(struct scaling *s, int vcpus)
{
	size_t at = 0;

	while (at < s->nv && s->vcpus[at] < vcpus)
		at++;
	if ((at < s->nv && s->vcpus[at] == vcpus) || s->nv == SCALING_POINTS_MAX)
		return;
	memmove(&s->vcpus[at + 1], &s->vcpus[at], (s->nv - at) * sizeof(s->vcpus[0]));
	s->vcpus[at] = vcpus;
	s->nv++;
}

int scaling_build(struct scaling *s, const struct cmp_report *const *reps, size_t n)
{
	int bad = 0;

	memset(s, 0, sizeof(*s));
	if (!n)
		return -1;
	s->first = reps[0];
	for (size_t i = 0; i < n && !bad; i++) {
		vcpus_put(s, reps[i]->cell.vcpus);
		for (size_t j = 0; j < reps[i]->n && !bad; j++) {
			struct scaling_metric *m = metric_get(s, &reps[i]->v[j], &bad);

			if (m)
				point_put(s, m, reps[i]->cell.vcpus, &reps[i]->v[j]);
		}
	}
	return bad ? -1 : 0;
}

void scaling_release(struct scaling *s)
{
	free(s->m);
	memset(s, 0, sizeof(*s));
}

void scaling_cell_describe(const struct scaling *s, struct buf *b)
{
	const struct cmp_cell *c = &s->first->cell;

	buf_printf(b, "%s, %d MiB, %s", *nz(c->arch) ? c->arch : "arch ?", c->memory_mb,
		   *nz(c->accel) ? c->accel : "accel ?");
	cmp_cell_describe_rest(c, b);
}

/* ---- tables ---- */

#define SC_CELL 64
#define SC_COLS 6

/* About four significant digits, no exponent for the sizes metrics have */
static void fmt_value(char *out, size_t n, double v)
{
	double a = fabs(v);
	int dec;

	if (!isfinite(v)) {
		snprintf(out, n, "n/a");
		return;
	}
	if (a == 0 || a >= 1e12 || a < 1e-4) {
		snprintf(out, n, a == 0 ? "0" : "%.4g", v);
		return;
	}
	dec = 4 - ((int)floor(log10(a)) + 1);
	snprintf(out, n, "%.*f", dec < 0 ? 0 : dec > 8 ? 8 : dec, v);
}

static void fmt_change(char *out, size_t n, double pct)
{
	if (!isfinite(pct))
		snprintf(out, n, "n/a");
	else if (fabs(pct) < 0.05)
		snprintf(out, n, "0.0%%");
	else
		snprintf(out, n, "%+.1f%%", pct);
}

/* The cells of one row: vCPUs, n, base, patched, change, verdict */
static void row_cells(const struct scaling_point *p, char c[SC_COLS][SC_CELL])
{
	const struct cmp_metric *m = p->m;

	snprintf(c[0], SC_CELL, "%d", p->vcpus);
	if (m->base.n == m->patched.n)
		snprintf(c[1], SC_CELL, "%zu", m->base.n);
	else
		snprintf(c[1], SC_CELL, "%zu/%zu", m->base.n, m->patched.n);
	fmt_value(c[2], SC_CELL, m->base.median);
	fmt_value(c[3], SC_CELL, m->patched.median);
	fmt_change(c[4], SC_CELL, m->change_pct);
	if (m->verdict == CMP_UNCERTAIN && m->runs_needed > 0)
		snprintf(c[5], SC_CELL, "uncertain (%s%d runs)",
			 m->runs_needed >= CMP_RUNS_CAP ? ">=" : "~", m->runs_needed);
	else
		snprintf(c[5], SC_CELL, "%s", cmp_verdict_name(m->verdict));
}

static const char *const heads[SC_COLS] = { "vCPUs", "n", "base", "patched", "change",
					    "verdict" };

static void metric_heading(const struct scaling_metric *m, struct buf *b)
{
	buf_puts(b, m->name);
	if (m->unit || m->higher_better >= 0) {
		buf_puts(b, " (");
		if (m->unit)
			buf_printf(b, "%s%s", m->unit, m->higher_better >= 0 ? ", " : "");
		if (m->higher_better >= 0)
			buf_printf(b, "%s is better", m->higher_better ? "higher" : "lower");
		buf_puts(b, ")");
	}
}

static void scaling_heading(const struct scaling *s, struct buf *b, const char *bold)
{
	buf_printf(b, "%sscaling: %s%s%s vs %s%s", bold, nz(s->first->job),
		   s->first->job ? ": " : "", s->first->base_label ? s->first->base_label : "base",
		   s->first->patched_label ? s->first->patched_label : "patched", bold);
	buf_puts(b, *bold ? "  \n" : "\n");
	scaling_cell_describe(s, b);
	buf_puts(b, ", vCPUs");
	for (size_t i = 0; i < s->nv; i++)
		buf_printf(b, "%s%d", i ? ", " : " ", s->vcpus[i]);
	buf_puts(b, "\n");
}

static void scaling_footer(const struct scaling *s, struct buf *b, const char *bullet)
{
	buf_printf(b, "\n%sbase, patched: the median of the runs at that vCPU count; change and "
		   "verdict: that count's comparison (the per-cell tables' rule)\n", bullet);
	if (s->dropped)
		buf_printf(b, "%s%zu points left out: more than %d vCPU counts or %d metrics\n",
			   bullet, s->dropped, SCALING_POINTS_MAX, SCALING_METRICS_MAX);
}

int scaling_render_text(const struct scaling *s, struct buf *b)
{
	scaling_heading(s, b, "");
	for (size_t i = 0; i < s->nm; i++) {
		const struct scaling_metric *m = &s->m[i];
		char (*c)[SC_COLS][SC_CELL] = calloc(m->n + 1, sizeof(*c));
		size_t w[SC_COLS] = { 0 };

		if (!c)
			return -1;
		for (int k = 0; k < SC_COLS; k++)
			snprintf(c[0][k], SC_CELL, "%s", heads[k]);
		for (size_t r = 0; r < m->n; r++)
			row_cells(&m->p[r], c[r + 1]);
		for (size_t r = 0; r <= m->n; r++)
			for (int k = 0; k < SC_COLS; k++)
				if (strlen(c[r][k]) > w[k])
					w[k] = strlen(c[r][k]);
		buf_puts(b, "\n");
		metric_heading(m, b);
		buf_puts(b, "\n");
		for (size_t r = 0; r <= m->n; r++) {
			/* numbers right, the verdict left and last (no trailing blanks) */
			for (int k = 0; k < SC_COLS - 1; k++)
				buf_printf(b, "%s%*s", k ? "  " : "", (int)w[k], c[r][k]);
			buf_printf(b, "  %s\n", c[r][SC_COLS - 1]);
		}
		free(c);
	}
	scaling_footer(s, b, "");
	return b->truncated ? -1 : 0;
}

static void md_text(struct buf *b, const char *s)
{
	for (; *s; s++)
		buf_puts(b, *s == '|' ? "\\|" : (char[2]){ *s, 0 });
}

int scaling_render_markdown(const struct scaling *s, struct buf *b)
{
	scaling_heading(s, b, "**");
	for (size_t i = 0; i < s->nm; i++) {
		const struct scaling_metric *m = &s->m[i];
		struct buf h = BUF_INIT(1024);

		metric_heading(m, &h);
		buf_puts(b, "\n*");
		md_text(b, buf_str(&h));
		buf_puts(b, "*\n\n| vCPUs | n | base | patched | change | verdict |\n"
			 "| ---: | ---: | ---: | ---: | ---: | :--- |\n");
		buf_release(&h);
		for (size_t r = 0; r < m->n; r++) {
			char c[SC_COLS][SC_CELL];

			row_cells(&m->p[r], c);
			buf_puts(b, "|");
			for (int k = 0; k < SC_COLS; k++) {
				buf_puts(b, " ");
				md_text(b, c[k]);
				buf_puts(b, " |");
			}
			buf_puts(b, "\n");
		}
	}
	scaling_footer(s, b, "- ");
	return b->truncated ? -1 : 0;
}

/* ---- the chart ---- */

#define SV_W      600
#define SV_H      300
#define SV_LEFT   72
#define SV_RIGHT  120    /* the legend */
#define SV_TOP    34
#define SV_BOTTOM 48

static const char *const side_color[2] = { "#4a6fa5", "#d2691e" };
static const char *const side_name[2] = { "base", "patched" };

/* s escaped for XML text and attributes */
static void xml(struct buf *b, const char *s)
{
	for (s = nz(s); *s; s++) {
		switch (*s) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '"': buf_puts(b, "&quot;"); break;
		case '\'': buf_puts(b, "&#39;"); break;
		default: buf_append(b, s, 1);
		}
	}
}

static void xml_num(struct buf *b, double v)
{
	char t[SC_CELL];

	fmt_value(t, sizeof(t), v);
	buf_puts(b, t);
}

struct frame {
	double lo, hi, pad;
	int vmin, vmax, logx;
};

static double fx(const struct frame *f, int v)
{
	double w = SV_W - SV_LEFT - SV_RIGHT - 40, t;

	if (f->vmax == f->vmin)
		return SV_LEFT + 20 + w / 2;
	t = f->logx ? (log((double)v) - log((double)f->vmin)) /
		      (log((double)f->vmax) - log((double)f->vmin))
		    : (double)(v - f->vmin) / (double)(f->vmax - f->vmin);
	return SV_LEFT + 20 + w * t;
}

static double fy(const struct frame *f, double v)
{
	return SV_H - SV_BOTTOM - (v - f->lo) / (f->hi - f->lo) * (SV_H - SV_TOP - SV_BOTTOM);
}

static const struct stats_summary *side_of(const struct cmp_metric *m, int side)
{
	return side ? &m->patched : &m->base;
}

static void sv_axes(struct buf *b, const struct frame *f, const struct scaling_metric *m)
{
	for (int k = 0; k <= 4; k++) {
		double v = f->lo + f->pad + (f->hi - f->lo - 2 * f->pad) * k / 4.0, y = fy(f, v);

		buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\" "
			   "font-size=\"11\" fill=\"#555\">", SV_LEFT, y, SV_W - SV_RIGHT, y,
			   SV_LEFT - 6, y);
		xml_num(b, v);
		buf_puts(b, "</text>\n");
	}
	buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", SV_LEFT,
		   SV_H - SV_BOTTOM, SV_W - SV_RIGHT, SV_H - SV_BOTTOM);
	for (size_t i = 0; i < m->n; i++) {
		double x = fx(f, m->p[i].vcpus);

		buf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#999\"/>"
			   "<text class=\"vcpus\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
			   "font-size=\"11\" fill=\"#555\">%d</text>\n", x, SV_H - SV_BOTTOM, x,
			   SV_H - SV_BOTTOM + 4, x, SV_H - SV_BOTTOM + 17, m->p[i].vcpus);
	}
	buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" "
		   "fill=\"#333\">vCPUs%s</text>\n", (SV_LEFT + SV_W - SV_RIGHT) / 2, SV_H - 10,
		   f->logx ? " (log scale)" : "");
	if (m->unit) {
		buf_printf(b, "<text x=\"4\" y=\"%d\" font-size=\"11\" fill=\"#555\">", SV_TOP - 16);
		xml(b, m->unit);
		buf_printf(b, "%s</text>\n", m->higher_better < 0 ? "" :
			   m->higher_better ? " (higher is better)" : " (lower is better)");
	}
}

/* A side's line through its medians, and per point a whisker (min-max)
 * and a dot with the numbers as its tooltip */
static void sv_side(struct buf *b, const struct frame *f, const struct scaling_metric *m,
		    int side)
{
	double dx = side ? 4 : -4;

	buf_printf(b, "<polyline class=\"line %s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		   "points=\"", side_name[side], side_color[side]);
	for (size_t i = 0; i < m->n; i++) {
		const struct stats_summary *st = side_of(m->p[i].m, side);

		if (st->n && isfinite(st->median))
			buf_printf(b, "%.1f,%.1f ", fx(f, m->p[i].vcpus) + dx, fy(f, st->median));
	}
	buf_puts(b, "\"/>\n");
	for (size_t i = 0; i < m->n; i++) {
		const struct stats_summary *st = side_of(m->p[i].m, side);
		double x = fx(f, m->p[i].vcpus) + dx;

		if (!st->n || !isfinite(st->median))
			continue;
		if (isfinite(st->min) && isfinite(st->max))
			buf_printf(b, "<line class=\"whisker\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				   "y2=\"%.1f\" stroke=\"%s\" stroke-opacity=\"0.6\"/>", x,
				   fy(f, st->min), x, fy(f, st->max), side_color[side]);
		buf_printf(b, "<circle class=\"point %s\" cx=\"%.1f\" cy=\"%.1f\" r=\"4.5\" "
			   "fill=\"%s\"><title>%s at %d vCPU%s: median ", side_name[side], x,
			   fy(f, st->median), side_color[side], side_name[side], m->p[i].vcpus,
			   m->p[i].vcpus == 1 ? "" : "s");
		xml_num(b, st->median);
		if (m->unit) {
			buf_puts(b, " ");
			xml(b, m->unit);
		}
		buf_puts(b, ", runs from ");
		xml_num(b, st->min);
		buf_puts(b, " to ");
		xml_num(b, st->max);
		buf_printf(b, ", %zu run%s</title></circle>\n", st->n, st->n == 1 ? "" : "s");
	}
}

/* The change at each count, above the higher median, colored by verdict */
static void sv_changes(struct buf *b, const struct frame *f, const struct scaling_metric *m)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct cmp_metric *cm = m->p[i].m;
		double top = fmax(isfinite(cm->base.max) ? cm->base.max : cm->base.median,
				  isfinite(cm->patched.max) ? cm->patched.max : cm->patched.median);
		const char *color = cm->verdict == CMP_WORSE ? "#b00" : cm->verdict == CMP_BETTER ?
			"#070" : "#666";
		char ch[SC_CELL];

		if (!isfinite(top))
			continue;
		fmt_change(ch, sizeof(ch), cm->change_pct);
		buf_printf(b, "<text class=\"change\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
			   "font-size=\"11\" fill=\"%s\">%s<title>%d vCPU%s: %s, %s</title></text>\n",
			   fx(f, m->p[i].vcpus), fmax(fy(f, top) - 8, SV_TOP - 4), color, ch,
			   m->p[i].vcpus, m->p[i].vcpus == 1 ? "" : "s", ch,
			   cmp_verdict_name(cm->verdict));
	}
}

static void sv_legend(struct buf *b, const struct scaling *s)
{
	const char *label[2] = { s->first->base_label, s->first->patched_label };

	for (int side = 0; side < 2; side++) {
		int y = SV_TOP + 10 + side * 34;

		buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
			   "stroke-width=\"2\"/><circle cx=\"%d\" cy=\"%d\" r=\"4\" fill=\"%s\"/>"
			   "<text x=\"%d\" y=\"%d\" dominant-baseline=\"middle\" font-size=\"12\" "
			   "fill=\"%s\">%s</text>\n", SV_W - SV_RIGHT + 12, y, SV_W - SV_RIGHT + 32, y,
			   side_color[side], SV_W - SV_RIGHT + 22, y, side_color[side],
			   SV_W - SV_RIGHT + 38, y, side_color[side], side_name[side]);
		if (label[side]) {
			/* "kernel 3" of "kernel 3 (6.1.192-g..., ...)": the rest is on the page */
			size_t n = strcspn(label[side], "(");
			struct buf t = BUF_INIT(256);

			buf_append(&t, label[side], n > 24 ? 24 : n);
			buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"10\" fill=\"#777\">",
				   SV_W - SV_RIGHT + 12, y + 15);
			xml(b, buf_str(&t));
			buf_puts(b, "</text>\n");
			buf_release(&t);
		}
	}
}

int scaling_svg(const struct scaling *s, size_t i, struct buf *b)
{
	const struct scaling_metric *m;
	struct frame f = { INFINITY, -INFINITY, 0, 0, 0, 0 };

	if (i >= s->nm || !s->m[i].n)
		return -1;
	m = &s->m[i];
	for (size_t k = 0; k < m->n; k++)
		for (int side = 0; side < 2; side++) {
			const struct stats_summary *st = side_of(m->p[k].m, side);

			if (!st->n)
				continue;
			if (isfinite(st->median)) {
				f.lo = fmin(f.lo, st->median);
				f.hi = fmax(f.hi, st->median);
			}
			if (isfinite(st->min) && isfinite(st->max)) {
				f.lo = fmin(f.lo, st->min);
				f.hi = fmax(f.hi, st->max);
			}
		}
	if (!isfinite(f.lo) || !isfinite(f.hi))
		return -1;
	f.pad = f.hi > f.lo ? (f.hi - f.lo) * 0.08 : (f.lo != 0 ? fabs(f.lo) * 0.05 : 1);
	f.lo -= f.pad;
	f.hi += f.pad;
	f.vmin = m->p[0].vcpus;
	f.vmax = m->p[m->n - 1].vcpus;
	f.logx = f.vmin > 0 && f.vmax > 4 * f.vmin;
	buf_printf(b, "<svg class=\"scaling\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SV_W, SV_H,
		   SV_W, SV_H);
	xml(b, m->name);
	buf_puts(b, " against vCPUs, base and patched\">\n<title>");
	xml(b, m->name);
	buf_puts(b, " against vCPUs: median per side, whiskers from the lowest to the highest "
		 "run</title>\n");
	sv_axes(b, &f, m);
	for (int side = 0; side < 2; side++)
		sv_side(b, &f, m, side);
	sv_changes(b, &f, m);
	sv_legend(b, s);
	buf_puts(b, "</svg>\n");
	return b->truncated ? -1 : 0;
}
