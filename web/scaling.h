/* scaling.h: the request page's scaling section (scaling.c): the request
 * and its siblings at other vCPU counts, each metric drawn against vCPUs
 * for base and patched (analysis/scaling.h), with the vCPUs-as-rows
 * table under it. */
#ifndef KF_WEB_SCALING_H
#define KF_WEB_SCALING_H

#include "common/buf.h"

struct db;
struct request;
struct web;

#define WEB_SCALING_REQUESTS_MAX 32   /* sibling requests read for one page */

/* Appends the section to b when q and its siblings cover two vCPU counts
 * or more in some cell; nothing otherwise. Errors are said in the page. */
void web_scaling_section(struct buf *b, struct web *w, struct db *db, const struct request *q);

#endif
