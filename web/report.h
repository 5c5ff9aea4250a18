/* SPDX-License-Identifier: GPL-2.0-only */
/* report.h: one cell's metric comparison as HTML (web/report.c), for the
 * request page. web/ only. */
#ifndef KF_WEB_REPORT_H
#define KF_WEB_REPORT_H

#include "common/buf.h"

struct cell;
struct cmp_report;

/* The comparison rep of cell c: its table, outliers, notes and plot, onto b */
void web_report_html(struct buf *b, const struct cell *c, const struct cmp_report *rep);

#endif
