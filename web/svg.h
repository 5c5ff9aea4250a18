/* SPDX-License-Identifier: GPL-2.0-only */
/* svg.h: small inline SVG charts the pages draw themselves, no JavaScript:
 * a strip plot (one row of dots per series, a mark at each series'
 * median) and a trend across commits. Every text that goes into a chart
 * is escaped. */
#ifndef KF_WEB_SVG_H
#define KF_WEB_SVG_H

#include <stddef.h>

#include "common/buf.h"

struct trend;

#define SVG_SERIES_MAX   8        /* rows in one chart */
#define SVG_POINTS_MAX   10000    /* dots drawn per row; the rest are counted */

/* One row of a strip plot. Borrowed. */
struct svg_series {
	const char *label;   /* "base", "patched" */
	const double *v;     /* values that are not finite are left out */
	size_t n;
	double median;       /* NAN: no median mark */
};

/* Appends an <svg> strip plot to b: a row per series (at most
 * SVG_SERIES_MAX, colored by its index), a dot per value with the value as
 * its tooltip, a vertical mark at the median, and an x axis with the range
 * and unit. title (may be NULL) becomes the chart's accessible name. 0, or
 * -1 when b's cap cut it or there is nothing finite to draw. */
int svg_strip(struct buf *b, const char *title, const char *unit,
	      const struct svg_series *s, size_t ns);

/* Appends an <svg> chart of a trend (analysis/trend.h): the medians as a
 * line over their p25-p75 band, a faint dot per run, a dashed level per
 * stretch between change points, a marker at each change point; the x
 * axis the commits (short ids), the y axis the unit (may be NULL). metric
 * names the chart. 0, or -1 when there is nothing to draw or b's cap cut
 * it. */
int svg_trend(struct buf *b, const struct trend *t, const char *metric, const char *unit);

#endif
