/* trend.h: trends across a tree's commits (web/trend.c): the page listing
 * what has data (/trends), one trend as a chart and tables
 * (/trends/view?tree=T&job=J&metric=M&arch=A&vcpus=N) and as JSON
 * (/api/trend?...). Shared by the files of web/ only, like webint.h. */
#ifndef KF_WEB_TREND_H
#define KF_WEB_TREND_H

#include <microhttpd.h>

struct web;

/* GET /trends and /trends/view (any other /trends/... is 404; methods
 * other than GET and HEAD are 405). url is the path without the query. */
enum MHD_Result pages_trends_route(struct web *w, struct MHD_Connection *c, const char *method,
				   const char *url);

/* GET /api/trend?tree=T&job=J[&metric=M][&arch=A][&vcpus=N]: analysis/
 * trend.h's trend_json() plus "tree", "job", "metric" (null: pass rates
 * only), "unit", "arch", "vcpus", "picked" (how what was not given was
 * chosen, or null), "cells" [{"arch", "vcpus", "commits", "runs"}] (every
 * cell with data), "commits_dropped", "runs_dropped", "rows_truncated",
 * "results_truncated". 400 for a bad parameter, 404 when there is no data. */
enum MHD_Result api_trend(struct web *w, struct MHD_Connection *c);

#endif
