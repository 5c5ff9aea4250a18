/* cache.c: the last answers the server gave, by a key that holds the query
 * and the state of the data it read (web/comparisons.c: the decision
 * rule's version, how many of the runs ended, and when the last did).
 * Reading and grouping the samples of many runs costs most of a
 * comparison; here it is made once until another run ends. A few slots,
 * reused oldest first, under one lock. */
#include "web/cache.h"
#include "web/server.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SLOTS 16
#define CACHE_BODY  (1u << 20)   /* bigger answers are not kept */

struct web_cache {
	pthread_mutex_t lock;
	struct {
		char *key;
		char *body;
		size_t len;
		int json;
	} e[CACHE_SLOTS];
	unsigned next;
};

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

int web_cache_get(struct web *w, const char *key, struct buf *b, int *json)
{
	struct web_cache *cc = w->cache;
	int hit = 0;

	if (!cc || !key)
		return 0;
	pthread_mutex_lock(&cc->lock);
	for (size_t i = 0; i < CACHE_SLOTS && !hit; i++)
		if (cc->e[i].key && !strcmp(cc->e[i].key, key) &&
		    buf_append(b, cc->e[i].body, cc->e[i].len) == 0) {
			*json = cc->e[i].json;
			hit = 1;
		}
	pthread_mutex_unlock(&cc->lock);
	return hit;
}

void web_cache_put(struct web *w, const char *key, const char *body, size_t len, int json)
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
	i = cc->next++ % CACHE_SLOTS;
	free(cc->e[i].key);
	free(cc->e[i].body);
	cc->e[i].key = k;
	cc->e[i].body = v;
	cc->e[i].len = len;
	cc->e[i].json = json;
	pthread_mutex_unlock(&cc->lock);
}
