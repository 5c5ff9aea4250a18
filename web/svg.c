/* svg.c: the inline SVG charts of the pages (web/request.c's strip plots
 * of base vs patched metric values). Drawn from numbers only; labels,
 * titles and units go through web_html(), so a metric name from a guest
 * cannot break out of the markup. */
#include "web/svg.h"
#include "web/reply.h"

#include <math.h>
#include <string.h>

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

/* A value for a label: short, and the same for the same value */
static void num(struct buf *b, double v)
{
	buf_printf(b, "%.4g", v);
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
			num(b, s[i].v[j]);
			if (unit) {
				buf_puts(b, " ");
				web_html_str(b, unit);
			}
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
			num(b, s[i].median);
			if (unit) {
				buf_puts(b, " ");
				web_html_str(b, unit);
			}
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
			num(b, v);
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
