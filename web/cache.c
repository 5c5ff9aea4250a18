// SPDX-License-Identifier: GPL-2.0-only
/* cache.c: the last answers the server gave, by a key that holds the query
 * and the state of the data it read: a comparison (web/comparisons.c: the
 * decision rule's version, how many of the runs ended), a done run's page
 * and JSON (its attempt and end), and the routes whose answers read done
 * runs only (the count of done runs, kept by triggers: any run that ends
 * makes a new key), and those that also read the watch tables,
 * submissions and builds (the watch pages, the KCIDB export: with the
 * number schema step 21's triggers make grow on any change to those).
 * Reading and grouping the samples of many runs costs most of such an
 * answer; here it is made once until another run ends.
 * A few slots, reused oldest first, under one lock. */
#include "web/cache.h"
#include "web/server.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"

#define CACHE_SLOTS 48
#define CACHE_BODY  (1u << 20)   /* bigger answers are not kept */

struct web_cache {
	pthread_mutex_t lock;
	struct {
		char *key;
		char *body;
		size_t len;
		const char *ctype;
	} e[CACHE_SLOTS];
	unsigned next;
};

/* web_cache_capture()'s: where web_reply() keeps this thread's answer */
static _Thread_local struct web *capture_w;
static _Thread_local const char *capture_key;

void web_cache_free(struct web *w)
{
	struct web_cache *cc = w->cache;

	if (!cc)
		return;
	for (size_t i = 0; i < CACHE_SLOTS; i++) {
		free(cc->e[i].key);
		free(cc->e[i].body);
	}
	pthread_mutex_destroy(&cc->lock);
	free(cc);
	w->cache = NULL;
}

int web_cache_get(struct web *w, const char *key, struct buf *b, const char **ctype)
{
	struct web_cache *cc = w->cache;
	int hit = 0;

	if (!cc || !key)
		return 0;
	pthread_mutex_lock(&cc->lock);
	for (size_t i = 0; i < CACHE_SLOTS && !hit; i++)
		if (cc->e[i].key && !strcmp(cc->e[i].key, key) &&
		    buf_append(b, cc->e[i].body, cc->e[i].len) == 0) {
			*ctype = cc->e[i].ctype;
			hit = 1;
		}
	pthread_mutex_unlock(&cc->lock);
	return hit;
}

void web_cache_put(struct web *w, const char *key, const char *body, size_t len,
		   const char *ctype)
{
	struct web_cache *cc;
	char *k, *v;
	unsigned i;

	if (!key || len > CACHE_BODY)
		return;
	pthread_mutex_lock(&w->dbs_lock);   /* made once, under a lock that exists */
	if (!w->cache && (w->cache = calloc(1, sizeof(*w->cache))))
		pthread_mutex_init(&w->cache->lock, NULL);
	cc = w->cache;
	pthread_mutex_unlock(&w->dbs_lock);
	k = strdup(key);
	v = malloc(len ? len : 1);
	if (!cc || !k || !v) {
		free(k);
		free(v);
		return;
	}
	memcpy(v, body, len);
	pthread_mutex_lock(&cc->lock);
	/* the same key again (two requests made it at once): one slot */
	for (i = 0; i < CACHE_SLOTS && !(cc->e[i].key && !strcmp(cc->e[i].key, key)); i++)
		;
	if (i == CACHE_SLOTS)
		i = cc->next++ % CACHE_SLOTS;
	free(cc->e[i].key);
	free(cc->e[i].body);
	cc->e[i].key = k;
	cc->e[i].body = v;
	cc->e[i].len = len;
	cc->e[i].ctype = ctype;
	pthread_mutex_unlock(&cc->lock);
}

/* MHD_get_connection_values()' iterator: "k=v&" of each query argument */
static enum MHD_Result add_arg(void *cls, enum MHD_ValueKind kind, const char *k,
			       const char *v)
{
	struct buf *b = cls;

	buf_printf(b, "%s=%s&", k, v ? v : "");
	return MHD_YES;
}

int web_cache_done_key(struct db *db, struct MHD_Connection *c, const char *url, int stamped,
		       char *key, size_t n)
{
	int64_t counts[RUN_STATE_COUNT], kept = 0;
	struct buf b = BUF_INIT(n);
	int rc = -1;

	if (db_run_counts(db, counts) < 0 || (stamped && db_kept_stamp(db, &kept) < 0))
		goto out;
	buf_printf(&b, "done %lld", (long long)counts[RUN_DONE]);
	if (stamped)
		buf_printf(&b, " kept %lld", (long long)kept);
	buf_printf(&b, " %s?", url);
	MHD_get_connection_values(c, MHD_GET_ARGUMENT_KIND, add_arg, &b);
	if (b.truncated || b.len >= n)
		goto out;
	memcpy(key, buf_str(&b), b.len + 1);
	rc = 0;
out:
	buf_release(&b);
	return rc;
}

void web_cache_capture(struct web *w, const char *key)
{
	capture_w = key ? w : NULL;
	capture_key = key;
}

void web_cache_captured(const char *body, size_t len, const char *ctype)
{
	if (capture_w && capture_key)
		web_cache_put(capture_w, capture_key, body, len, ctype);
}
