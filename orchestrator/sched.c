// SPDX-License-Identifier: GPL-2.0-only
/* sched.c: the workers, a thread per slot of each host. Each asks whether
 * its host can take a run (hosts.c) and what fits it (place.c), reads the
 * queue's classes and claims the run the fair queue picks (fairq.c) in a
 * transaction, runs it to its end (run.c) and stores the outcome; a run
 * that ended as an infrastructure failure goes back to the queue for any
 * worker. */
#include "orchestrator/fairq.h"
#include "orchestrator/orchint.h"
#include "orchestrator/quiet.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

struct worker {
	struct orch *o;
	struct host *h;
	int slot;
};

/* The run the fair queue picks for the worker's host, claimed: 1 (r
 * filled, its CPUs in *cpus), 0 none now, -1 error. claim_lock held. */
static int claim(struct worker *wk, struct db *db, struct run *r, int *cpus)
{
	struct orch *o = wk->o;
	struct host *h = wk->h;
	struct claim_fit fit;
	struct queue_class *v = NULL;
	struct fairq_choice ch;
	size_t n = 0;
	int rc = 0;

	/* the database waits are not taken under o->lock, which the
	 * lifecycle events need */
	pthread_mutex_lock(&o->lock);
	place_fit(o, h, &fit);
	pthread_mutex_unlock(&o->lock);
	if (db_queue_classes(db, &fit, &v, &n) < 0)
		return -1;
	fairq_order(v, n);
	fairq_pick(v, n, &ch);
	if (ch.act == FAIRQ_HOLD && h->held_for != ch.run_id)
		log_info("host '%s': %s", h->conf->name, ch.why);
	h->held_for = ch.act == FAIRQ_HOLD ? ch.run_id : 0;
	if (ch.act == FAIRQ_TAKE)
		rc = db_run_claim_id(db, h->conf->name, ch.run_id, r);
	if (rc > 0) {
		*cpus = place_cpus_of(h, r->vcpus);
		log_debug("run %" PRId64 ": %s", r->id, ch.why);
		pthread_mutex_lock(&o->lock);
		h->busy++;
		h->mem_used_mb += r->memory_mb;
		h->cpus_used += *cpus;
		pthread_mutex_unlock(&o->lock);
		/* its cores, as placement saw them free: no other claim
		 * comes between */
		quiet_begin(o, h, db, r);
	}
	queue_classes_free(v, n);
	return rc;
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct orch *o = wk->o;
	struct db *db = NULL;
	char *err = NULL;

	db = db_open(o->db_path, &err);
	if (!db) {
		log_error("worker %s/%d: %s", wk->h->conf->name, wk->slot, err ? err : "?");
		free(err);
		free(wk);
		return NULL;
	}
	for (;;) {
		struct run r;
		struct outcome out;
		struct run_ctx *left;
		int rc, cpus = 0;

		pthread_mutex_lock(&o->lock);
		if (o->stopping) {
			pthread_mutex_unlock(&o->lock);
			break;
		}
		pthread_mutex_unlock(&o->lock);
		if (orch_host_ready(o, wk->h, db)) {
			pthread_mutex_lock(&o->claim_lock);
			rc = claim(wk, db, &r, &cpus);
			pthread_mutex_unlock(&o->claim_lock);
		} else {
			rc = 0;
		}
		if (rc <= 0) {
			struct timespec ts;

			if (rc < 0)
				log_error("worker %s/%d: claim: %s", wk->h->conf->name, wk->slot,
					  db_errmsg(db));
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_mutex_lock(&o->lock);
			if (!o->stopping)
				pthread_cond_timedwait(&o->work, &o->lock, &ts);
			pthread_mutex_unlock(&o->lock);
			continue;
		}
		log_info("run %" PRId64 ": claimed by %s/%d (attempt %d%s%s%s)", r.id,
			 wk->h->conf->name, wk->slot, r.attempt, r.watch ? ", for watch '" : "",
			 r.watch ? r.watch : "", r.watch ? "'" : "");
		memset(&out, 0, sizeof(out));
		left = run_guest(o, wk->h, db, &r, &out);
		quiet_end(o, db, &r);
		for (int i = 0; db_run_finish(db, r.id, out.o, out.detail, out.splat, out.has_exit,
					      out.exit_code) < 0; i++)
			if (!orch_store_retry(o, db, r.id, "outcome", i)) {
				log_error("run %" PRId64 ": cannot store outcome '%s': %s", r.id,
					  run_outcome_name(out.o), db_errmsg(db));
				break;
			}
		/* a guest still going down holds its place until it is gone */
		run_guest_end(left);
		pthread_mutex_lock(&o->lock);
		wk->h->busy--;
		wk->h->mem_used_mb -= r.memory_mb;
		wk->h->cpus_used -= cpus;
		pthread_mutex_unlock(&o->lock);
		if (out.o == RUN_OUT_INFRA) {
			/* a requeued run is for any worker; wake them */
			pthread_mutex_lock(&o->lock);
			pthread_cond_broadcast(&o->work);
			pthread_mutex_unlock(&o->lock);
		}
		free(out.splat);
		run_release(&r);
	}
	db_close(db);
	free(wk);
	return NULL;
}

int sched_start(struct orch *o)
{
	size_t total = 0;

	if (quiet_start(o) < 0)
		return -1;
	for (size_t i = 0; i < o->nhosts; i++)
		total += (size_t)o->hosts[i].conf->slots;
	o->workers = calloc(total ? total : 1, sizeof(*o->workers));
	if (!o->workers)
		return -1;
	for (size_t i = 0; i < o->nhosts; i++) {
		for (int s = 0; s < o->hosts[i].conf->slots; s++) {
			struct worker *wk = calloc(1, sizeof(*wk));

			if (!wk)
				return -1;
			wk->o = o;
			wk->h = &o->hosts[i];
			wk->slot = s;
			if (pthread_create(&o->workers[o->nworkers], NULL, worker_main, wk)) {
				free(wk);
				return -1;
			}
			o->nworkers++;
		}
	}
	return 0;
}

void sched_stop(struct orch *o)
{
	pthread_mutex_lock(&o->lock);
	o->stopping = 1;
	pthread_cond_broadcast(&o->work);
	pthread_cond_broadcast(&o->events);
	pthread_mutex_unlock(&o->lock);
	for (size_t i = 0; i < o->nworkers; i++)
		pthread_join(o->workers[i], NULL);
	free(o->workers);
	o->workers = NULL;
	o->nworkers = 0;
	quiet_stop(o);
}
