// SPDX-License-Identifier: GPL-2.0-only
/* estimates.c: the database reads behind the queue's estimates (queue.c),
 * kept between requests under one lock: each kind's median duration (one
 * statement a kind, dbq_median_duration()) until a run ends, and every
 * queued request's progress (one statement, dbq_queue_progress()) until a
 * run is queued, claimed or ends; the runs' counts per state, kept by
 * triggers (schema 6), tell when. Reads run outside the lock. */
#include "web/estimates.h"
#include "web/server.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "db/query.h"

#define EST_KINDS_MAX 4096   /* kinds kept; past it, asked each time */

struct est_kind {
	char *job, *command, *arch;
	int vcpus;
	int found;             /* dbq_median_duration()'s 1 or 0 */
	int64_t median_ms;
	int n;
};

struct web_estimates {
	pthread_mutex_t lock;
	int64_t done;                  /* counts[RUN_DONE] of the kinds' medians */
	struct est_kind *k;
	size_t nk, ak;
	int64_t key[RUN_STATE_COUNT];  /* the counts of the progress */
	int have_progress;
	struct dbq_progress *p;
	size_t np;
};

static void kinds_clear(struct web_estimates *e)
{
	for (size_t i = 0; i < e->nk; i++) {
		free(e->k[i].job);
		free(e->k[i].command);
		free(e->k[i].arch);
	}
	e->nk = 0;
}

void web_estimates_free(struct web *w)
{
	struct web_estimates *e = w->estimates;

	if (!e)
		return;
	kinds_clear(e);
	free(e->k);
	free(e->p);
	pthread_mutex_destroy(&e->lock);
	free(e);
	w->estimates = NULL;
}

/* The kept state, made on first use; NULL when out of memory */
static struct web_estimates *get(struct web *w)
{
	struct web_estimates *e;

	pthread_mutex_lock(&w->dbs_lock);   /* made once, under a lock that exists */
	if (!w->estimates && (w->estimates = calloc(1, sizeof(*w->estimates)))) {
		pthread_mutex_init(&w->estimates->lock, NULL);
		w->estimates->done = -1;
	}
	e = w->estimates;
	pthread_mutex_unlock(&w->dbs_lock);
	return e;
}

int web_estimates_state(struct db *db, int64_t counts[RUN_STATE_COUNT])
{
	return db_run_counts(db, counts);
}

static int str_eq(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static char *dup_or_null(const char *s, int *bad)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*bad = 1;
	return d;
}

/* Keeps a kind's median (under e->lock); nothing when out of memory */
static void kind_add(struct web_estimates *e, const char *job, const char *command,
		     const char *arch, int vcpus, int found, int64_t median_ms, int n)
{
	struct est_kind *k;
	int bad = 0;

	if (e->nk == EST_KINDS_MAX)
		return;
	if (e->nk == e->ak) {
		size_t na = e->ak ? 2 * e->ak : 32;

		if (!(k = realloc(e->k, na * sizeof(*k))))
			return;
		e->k = k;
		e->ak = na;
	}
	k = &e->k[e->nk];
	k->job = dup_or_null(job, &bad);
	k->command = dup_or_null(job ? NULL : command, &bad);
	k->arch = dup_or_null(arch, &bad);
	if (bad) {
		free(k->job);
		free(k->command);
		free(k->arch);
		return;
	}
	k->vcpus = vcpus;
	k->found = found;
	k->median_ms = median_ms;
	k->n = n;
	e->nk++;
}

int web_estimates_median(struct web *w, struct db *db, const int64_t counts[RUN_STATE_COUNT],
			 const char *job, const char *command, const char *arch, int vcpus,
			 int64_t *median_ms, int *n)
{
	struct web_estimates *e = get(w);
	int r = -2;

	if (e) {
		pthread_mutex_lock(&e->lock);
		if (e->done != counts[RUN_DONE]) {
			kinds_clear(e);
			e->done = counts[RUN_DONE];
		}
		for (size_t i = 0; i < e->nk && r == -2; i++) {
			const struct est_kind *k = &e->k[i];

			if (str_eq(k->job, job) && (job || str_eq(k->command, command)) &&
			    str_eq(k->arch, arch) && k->vcpus == vcpus) {
				*median_ms = k->median_ms;
				*n = k->n;
				r = k->found;
			}
		}
		pthread_mutex_unlock(&e->lock);
		if (r != -2)
			return r;
	}
	r = dbq_median_duration(db, job, command, arch, vcpus, median_ms, n);
	if (r >= 0 && e) {
		pthread_mutex_lock(&e->lock);
		if (e->done == counts[RUN_DONE])
			kind_add(e, job, command, arch, vcpus, r, r ? *median_ms : -1, *n);
		pthread_mutex_unlock(&e->lock);
	}
	return r;
}

/* The request's progress in p[0..np) (sorted by id): 0 and 0 when not there */
static void progress_find(const struct dbq_progress *p, size_t np, int64_t id, int *runs,
			  int *done)
{
	size_t lo = 0, hi = np;

	*runs = *done = 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (p[mid].request_id < id) {
			lo = mid + 1;
		} else if (p[mid].request_id > id) {
			hi = mid;
		} else {
			*runs = p[mid].runs;
			*done = p[mid].done;
			return;
		}
	}
}

int web_estimates_progress(struct web *w, struct db *db, const int64_t counts[RUN_STATE_COUNT],
			   int64_t id, int *runs, int *done)
{
	struct web_estimates *e = get(w);
	struct dbq_progress *p = NULL;
	size_t np = 0;

	if (e) {
		pthread_mutex_lock(&e->lock);
		if (e->have_progress && !memcmp(e->key, counts, sizeof(e->key))) {
			progress_find(e->p, e->np, id, runs, done);
			pthread_mutex_unlock(&e->lock);
			return 0;
		}
		pthread_mutex_unlock(&e->lock);
	}
	if (dbq_queue_progress(db, &p, &np) < 0)
		return -1;
	progress_find(p, np, id, runs, done);
	if (!e) {
		free(p);
		return 0;
	}
	pthread_mutex_lock(&e->lock);
	free(e->p);
	e->p = p;
	e->np = np;
	memcpy(e->key, counts, sizeof(e->key));
	e->have_progress = 1;
	pthread_mutex_unlock(&e->lock);
	return 0;
}
