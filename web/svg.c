// SPDX-License-Identifier: GPL-2.0-only
/* svg.c: the inline SVG charts of the pages: web/request.c's strip plots
 * of base vs patched metric values and web/trends.c's chart of a metric
 * across commits. Drawn from numbers only; labels, titles and units go
 * through web_html(), so a metric name from a guest cannot break out of
 * the markup. */
#include "web/svg.h"
#include "web/reply.h"

#include <math.h>
#include <string.h>

#include "analysis/trend.h"

#define SVG_W        560
#define SVG_LEFT     80     /* room for the row labels */
#define SVG_RIGHT    24
#define SVG_TOP      8
#define SVG_ROW      28
#define SVG_AXIS     34     /* the axis and its labels */

/* base, patched, then more */
static const char *const colors[SVG_SERIES_MAX] = {
	"#4a6fa5", "#d2691e", "#2e8b57", "#8b008b", "#b8860b", "#708090", "#a52a2a", "#008b8b",
};

static double xpos(double v, double lo, double hi)
{
	return SVG_LEFT + (v - lo) / (hi - lo) * (SVG_W - SVG_LEFT - SVG_RIGHT);
}

int svg_strip(struct buf *b, const char *title, const char *unit,
	      const struct svg_series *s, size_t ns)
{
	double lo = INFINITY, hi = -INFINITY, pad;
	int h;

	if (ns > SVG_SERIES_MAX)
		ns = SVG_SERIES_MAX;
	for (size_t i = 0; i < ns; i++)
		for (size_t j = 0; j < s[i].n; j++)
			if (isfinite(s[i].v[j])) {
				lo = s[i].v[j] < lo ? s[i].v[j] : lo;
				hi = s[i].v[j] > hi ? s[i].v[j] : hi;
			}
	if (!isfinite(lo) || !isfinite(hi))
		return -1;
	/* some room at both ends; a single value sits in the middle */
	pad = hi > lo ? (hi - lo) * 0.06 : (lo != 0 ? fabs(lo) * 0.05 : 1);
	lo -= pad;
	hi += pad;
	h = SVG_TOP + (int)ns * SVG_ROW + SVG_AXIS;

	buf_printf(b, "<svg class=\"strip\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", SVG_W, h,
		   SVG_W, h);
	web_html_str(b, title ? title : "strip plot");
	buf_puts(b, "\">\n<title>");
	web_html_str(b, title ? title : "strip plot");
	buf_puts(b, "</title>\n");
	for (size_t i = 0; i < ns; i++) {
		double y = SVG_TOP + (double)i * SVG_ROW + SVG_ROW / 2.0;
		size_t drawn = 0;

		if (i % 2)
			buf_printf(b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
				   "fill=\"#f6f6f6\"/>\n", SVG_LEFT, SVG_TOP + (int)i * SVG_ROW,
				   SVG_W - SVG_LEFT - SVG_RIGHT, SVG_ROW);
		buf_printf(b, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" "
			   "dominant-baseline=\"middle\" font-size=\"12\" fill=\"%s\">",
			   SVG_LEFT - 8, y, colors[i]);
		web_html_str(b, s[i].label);
		buf_puts(b, "</text>\n");
		for (size_t j = 0; j < s[i].n && drawn < SVG_POINTS_MAX; j++) {
			/* a small fixed vertical spread keeps equal values apart */
			double dy = (double)((int)(j * 7 % 5) - 2) * 2.5;

			if (!isfinite(s[i].v[j]))
				continue;
			buf_printf(b, "<circle class=\"dot\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
				   "fill=\"%s\" fill-opacity=\"0.65\"><title>",
				   xpos(s[i].v[j], lo, hi), y + dy, colors[i]);
			web_html_str(b, s[i].label);
			buf_puts(b, ": ");
			web_html_num(b, s[i].v[j], "-");
			web_html_unit(b, unit);
			buf_puts(b, "</title></circle>\n");
			drawn++;
		}
		if (isfinite(s[i].median)) {
			double x = xpos(s[i].median, lo, hi);

			buf_printf(b, "<line class=\"median\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				   "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"><title>", x,
				   y - SVG_ROW / 2.0 + 3, x, y + SVG_ROW / 2.0 - 3, colors[i]);
			web_html_str(b, s[i].label);
			buf_puts(b, " median: ");
			web_html_num(b, s[i].median, "-");
			web_html_unit(b, unit);
			buf_puts(b, "</title></line>\n");
		}
	}
	/* the axis: a line, ticks at both ends and the middle, the unit */
	{
		int ya = SVG_TOP + (int)ns * SVG_ROW + 4;
		double ticks[3] = { lo + pad, (lo + hi) / 2, hi - pad };

		buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n",
			   SVG_LEFT, ya, SVG_W - SVG_RIGHT, ya);
		for (int t = 0; t < (hi - lo > 2 * pad ? 3 : 1); t++) {
			double v = hi - lo > 2 * pad ? ticks[t] : ticks[1];
			double x = xpos(v, lo, hi);

			buf_printf(b, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
				   "stroke=\"#999\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" "
				   "font-size=\"11\" fill=\"#555\">", x, ya, x, ya + 4, x, ya + 16);
			web_html_num(b, v, "-");
			buf_puts(b, "</text>\n");
		}
		if (unit) {
			buf_printf(b, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" font-size=\"11\" "
				   "fill=\"#555\">", SVG_W - SVG_RIGHT, ya + 29);
			web_html_str(b, unit);
			buf_puts(b, "</text>\n");
		}
	}
	buf_puts(b, "</svg>\n");
	return b->truncated ? -1 : 0;
}

/* ---- a trend across commits ---- */

#define CH_W       860
#define CH_H       340
#define CH_LEFT    72
#define CH_RIGHT   24
#define CH_TOP     34     /* room for the change labels */
#define CH_BOTTOM  84     /* the commit labels, turned */
#define CH_SHORT   12     /* hex digits of a commit shown */

struct scale {
	double lo, hi, pad;
	size_t n;
};

static double sx(const struct scale *s, size_t i)
{
	double w = CH_W - CH_LEFT - CH_RIGHT;

	return s->n < 2 ? CH_LEFT + w / 2 : CH_LEFT + w * (double)i / (double)(s->n - 1);
}

static double sy(const struct scale *s, double v)
{
	return CH_H - CH_BOTTOM - (v - s->lo) / (s->hi - s->lo) * (CH_H - CH_TOP - CH_BOTTOM);
}

static const char *dir_color(enum trend_dir d)
{
	return d == TREND_WORSE ? "#b00" : d == TREND_BETTER ? "#070" : "#a60";
}

/* The y axis: 5 ticks, the unit above */
static void trend_y_axis(struct buf *b, const struct scale *s, const char *unit)
{
	for (int k = 0; k <= 4; k++) {
		double val = s->lo + s->pad + (s->hi - s->lo - 2 * s->pad) * k / 4.0, y = sy(s, val);

		buf_printf(b, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#eee\"/>"
			   "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dominant-baseline=\"middle\" "
			   "font-size=\"11\" fill=\"#555\">", CH_LEFT, y, CH_W - CH_RIGHT, y,
			   CH_LEFT - 6, y);
		web_html_num(b, val, "-");
		buf_puts(b, "</text>\n");
	}
	if (unit) {
		buf_printf(b, "<text x=\"%d\" y=\"%d\" font-size=\"11\" fill=\"#555\">", 4, CH_TOP - 18);
		web_html_str(b, unit);
		buf_puts(b, "</text>\n");
	}
}

/* The p25-p75 band, in pieces between commits without runs, and the
 * level of each stretch between change points */
static void trend_band(struct buf *b, const struct scale *s, const struct trend *t)
{
	for (size_t i = 0; i < t->n;) {
		size_t j = i;

		if (!t->v[i].n) {
			i++;
			continue;
		}
		while (j < t->n && t->v[j].n)
			j++;
		buf_puts(b, "<polygon class=\"band\" fill=\"#4a6fa5\" fill-opacity=\"0.18\" "
			 "points=\"");
		for (size_t k = i; k < j; k++)
			buf_printf(b, "%.1f,%.1f ", sx(s, k), sy(s, t->v[k].p75));
		for (size_t k = j; k-- > i;)
			buf_printf(b, "%.1f,%.1f ", sx(s, k), sy(s, t->v[k].p25));
		buf_puts(b, "\"/>\n");
		i = j;
	}
	for (size_t k = 0; k < t->nc; k++) {
		size_t from = k ? t->c[k - 1].index : 0, to = t->c[k].index;

		buf_printf(b, "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			   "stroke=\"#888\" stroke-dasharray=\"2 3\"/>\n", sx(s, from),
			   sy(s, t->c[k].before), sx(s, to - 1), sy(s, t->c[k].before));
		if (k + 1 == t->nc)
			buf_printf(b, "<line class=\"level\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
				   "y2=\"%.1f\" stroke=\"#888\" stroke-dasharray=\"2 3\"/>\n",
				   sx(s, to), sy(s, t->c[k].after), sx(s, t->n - 1),
				   sy(s, t->c[k].after));
	}
}

/* The line of the medians, a faint dot per run, a point per commit */
static void trend_points(struct buf *b, const struct scale *s, const struct trend *t,
			 const char *unit)
{
	buf_puts(b, "<polyline class=\"median\" fill=\"none\" stroke=\"#4a6fa5\" "
		 "stroke-width=\"2\" points=\"");
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].n)
			buf_printf(b, "%.1f,%.1f ", sx(s, i), sy(s, t->v[i].median));
	buf_puts(b, "\"/>\n");
	for (size_t i = 0; i < t->n; i++) {
		const struct trend_point *p = &t->v[i];

		for (size_t j = 0; j < p->n && j < TREND_RUNS_MAX; j++)
			buf_printf(b, "<circle class=\"run\" cx=\"%.1f\" cy=\"%.1f\" r=\"2\" "
				   "fill=\"#4a6fa5\" fill-opacity=\"0.35\"/>", sx(s, i), sy(s, p->v[j]));
		if (!p->n)
			continue;
		buf_printf(b, "\n<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" "
			   "fill=\"#4a6fa5\"><title>", sx(s, i), sy(s, p->median));
		web_html_prefix(b, p->commit, CH_SHORT);
		buf_printf(b, ": median ");
		web_html_num(b, p->median, "-");
		web_html_unit(b, unit);
		buf_puts(b, ", p25-p75 ");
		web_html_num(b, p->p25, "-");
		buf_puts(b, "-");
		web_html_num(b, p->p75, "-");
		buf_printf(b, ", %zu run%s</title></circle>\n", p->n, p->n == 1 ? "" : "s");
	}
}

/* A marker at each change point, between the last commit before and the
 * first after */
static void trend_changes(struct buf *b, const struct scale *s, const struct trend *t,
			  const char *unit)
{
	for (size_t k = 0; k < t->nc; k++) {
		const struct trend_change *ch = &t->c[k];
		double x = ch->index ? (sx(s, ch->index - 1) + sx(s, ch->index)) / 2 : sx(s, 0);

		buf_printf(b, "<g class=\"change %s\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
			   "y2=\"%d\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"5 3\"/>"
			   "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"12\" "
			   "fill=\"%s\">", trend_dir_name(ch->dir), x, CH_TOP - 4, x, CH_H - CH_BOTTOM,
			   dir_color(ch->dir), x, CH_TOP - 8 - (int)(k % 2) * 13,
			   dir_color(ch->dir));
		if (isfinite(ch->change_pct))
			buf_printf(b, "%+.1f%% ", ch->change_pct);
		buf_printf(b, "%s</text><title>step at ", trend_dir_name(ch->dir));
		web_html_prefix(b, t->v[ch->index].commit, CH_SHORT);
		buf_puts(b, ": ");
		web_html_num(b, ch->before, "-");
		buf_puts(b, " -&gt; ");
		web_html_num(b, ch->after, "-");
		web_html_unit(b, unit);
		buf_printf(b, ", p=%.2g</title></g>\n", ch->p);
	}
}

/* The x axis: the commits, at most ~40 labels */
static void trend_x_axis(struct buf *b, const struct scale *s, const struct trend *t)
{
	size_t every = t->n > 40 ? (t->n + 39) / 40 : 1;

	buf_printf(b, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>\n", CH_LEFT,
		   CH_H - CH_BOTTOM, CH_W - CH_RIGHT, CH_H - CH_BOTTOM);
	for (size_t i = 0; i < t->n; i++) {
		double x = sx(s, i);

		if (i % every && i + 1 != t->n)
			continue;
		buf_printf(b, "<text class=\"commit\" x=\"%.1f\" y=\"%d\" font-size=\"10\" "
			   "font-family=\"monospace\" fill=\"#555\" text-anchor=\"end\" "
			   "transform=\"rotate(-40 %.1f %d)\">", x, CH_H - CH_BOTTOM + 12, x,
			   CH_H - CH_BOTTOM + 12);
		web_html_prefix(b, t->v[i].commit, CH_SHORT);
		buf_puts(b, "</text>\n");
	}
}

int svg_trend(struct buf *b, const struct trend *t, const char *metric, const char *unit)
{
	struct scale s = { INFINITY, -INFINITY, 0, t->n };

	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].n) {
			s.lo = fmin(s.lo, t->v[i].min);
			s.hi = fmax(s.hi, t->v[i].max);
		}
	if (!isfinite(s.lo))
		return -1;
	s.pad = s.hi > s.lo ? (s.hi - s.lo) * 0.08 : (s.lo != 0 ? fabs(s.lo) * 0.05 : 1);
	s.lo -= s.pad;
	s.hi += s.pad;
	buf_printf(b, "<svg class=\"trend\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
		   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"", CH_W, CH_H,
		   CH_W, CH_H);
	web_html_str(b, metric);
	buf_puts(b, " across commits\">\n<title>");
	web_html_str(b, metric);
	buf_puts(b, " across commits: median per commit, p25-p75 band</title>\n");
	trend_y_axis(b, &s, unit);
	trend_band(b, &s, t);
	trend_points(b, &s, t, unit);
	trend_changes(b, &s, t, unit);
	trend_x_axis(b, &s, t);
	buf_puts(b, "</svg>\n");
	return b->truncated ? -1 : 0;
}
