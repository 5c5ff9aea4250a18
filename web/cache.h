/* cache.h: answers kept by a key that names the query and the state of the
 * data it read (cache.c), so that a page loaded again, or by many at once,
 * is answered without computing it again until that data changes. */
#ifndef KF_WEB_CACHE_H
#define KF_WEB_CACHE_H

#include <stddef.h>

#include "common/buf.h"

struct web;

/* A kept answer for key (NULL: none) appended to b: 1 (*json set: the
 * answer is JSON), 0 none */
int web_cache_get(struct web *w, const char *key, struct buf *b, int *json);
/* Keeps body[0..len) under key, the oldest answer dropped when full;
 * bigger answers and a NULL key are not kept. */
void web_cache_put(struct web *w, const char *key, const char *body, size_t len, int json);
/* Frees every kept answer (web_stop) */
void web_cache_free(struct web *w);

#endif
