/* SPDX-License-Identifier: GPL-2.0-only */
/* cache.h: answers kept by a key that names the query and the state of the
 * data it read (cache.c), so that a page loaded again, or by many at once,
 * is answered without computing it again until that data changes. Whole
 * routes whose answers read done runs only (and what does not change
 * after start) are kept by their path, query and the count of done runs
 * (WEB_ROUTE_DONE_RUNS in routes.c), and those that also read what
 * db_kept_stamp() follows by that number too (WEB_ROUTE_STAMPED). */
#ifndef KF_WEB_CACHE_H
#define KF_WEB_CACHE_H

#include <microhttpd.h>
#include <stddef.h>

#include "common/buf.h"

struct db;
struct web;

/* A kept answer for key (NULL: none) appended to b: 1 (*ctype set to its
 * content type, a static string), 0 none */
int web_cache_get(struct web *w, const char *key, struct buf *b, const char **ctype);
/* Keeps body[0..len) of content type ctype (a static string) under key,
 * the oldest answer dropped when full; bigger answers and a NULL key are
 * not kept. */
void web_cache_put(struct web *w, const char *key, const char *body, size_t len,
		   const char *ctype);
/* The key of the answer to url with its query, as of the runs done now
 * ("done N url?k=v&..."; stamped: and db_kept_stamp(), "done N kept S
 * url?..."), into key: 0, or -1 when it cannot be made (a query longer
 * than n, the database): not kept then */
int web_cache_done_key(struct db *db, struct MHD_Connection *c, const char *url, int stamped,
		       char *key, size_t n);
/* While set (a route's handler runs), web_reply() of a 200 keeps its body
 * under key for w; NULL: nothing is kept. This thread's only. */
void web_cache_capture(struct web *w, const char *key);
/* What web_reply() calls with each 200 it sends */
void web_cache_captured(const char *body, size_t len, const char *ctype);
/* Frees every kept answer (web_stop) */
void web_cache_free(struct web *w);

#endif
