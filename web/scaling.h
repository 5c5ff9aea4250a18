/* SPDX-License-Identifier: GPL-2.0-only */
/* scaling.h: the request page's scaling section (scaling.c): the request
 * and its siblings at other vCPU counts, each metric drawn against vCPUs
 * for base and patched (analysis/scaling.h), with the vCPUs-as-rows
 * table under it. */
#ifndef KF_WEB_SCALING_H
#define KF_WEB_SCALING_H

#include <jansson.h>

#include "common/buf.h"

struct db;
struct request;
struct web;

#define WEB_SCALING_REQUESTS_MAX 32   /* sibling requests read for one page */

/* Appends the section to b when q and its siblings cover two vCPU counts
 * or more in some cell; nothing otherwise. Errors are said in the page. */
void web_scaling_section(struct buf *b, struct web *w, struct db *db, const struct request *q);
/* The same for the request's JSON: an array of {"cell", "vcpus": [...],
 * "requests": [{"vcpus", "id"}], "metrics": [{"name", "unit", "better",
 * "points": [{"vcpus", "base_n", "base_median", "patched_n",
 * "patched_median", "change_pct", "verdict"}]}]}, empty when there is no
 * scaling; {"error"} when it could not be read; NULL out of memory.
 * The caller owns it. */
json_t *web_scaling_json(struct web *w, struct db *db, const struct request *q);

#endif
