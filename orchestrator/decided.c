// SPDX-License-Identifier: GPL-2.0-only
/* decided.c: the thread that moves requests run until decided on. When
 * every run of such a request has ended, its metrics are compared as the
 * request page compares them (reqcmp.c), and analysis/decided.c says
 * whether another round of interleaved pairs is worth queuing or why to
 * stop; the round, or the stop and its reason, is written in one
 * transaction (db/requests.c). Nothing is kept in memory between ticks:
 * after a restart the same database state gives the same answer, and a
 * round already queued has runs that have not ended, so it is not queued
 * again. */
#include "orchestrator/orchint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/decided.h"
#include "common/log.h"
#include "analysis/reqcmp.h"

#define DECIDED_TICK_S   2
#define DECIDED_BATCH    32     /* requests looked at per tick */

/* A request with its runs, as decide_one() reads it */
struct dreq {
	struct request q;
	struct run *runs;
	int *side;
	size_t last;            /* the last round's first run */
};

static void dreq_release(struct dreq *r)
{
	for (size_t i = 0; r->runs && i < r->q.nruns; i++)
		run_release(&r->runs[i]);
	free(r->runs);
	free(r->side);
	request_release(&r->q);
}

/* 1 loaded, 0 gone, -1 error */
static int dreq_load(struct db *db, int64_t id, struct dreq *r)
{
	struct request_round *rv = NULL;
	size_t nr = 0, before = 0;
	int found;

	memset(r, 0, sizeof(*r));
	found = db_request_get(db, id, &r->q);
	if (found <= 0)
		return found;
	r->runs = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*r->runs));
	r->side = calloc(r->q.nruns ? r->q.nruns : 1, sizeof(*r->side));
	if (!r->runs || !r->side)
		return -1;
	for (size_t i = 0; i < r->q.nruns; i++) {
		int f = db_run_get(db, r->q.run_ids[i], &r->runs[i]);

		if (f < 0)
			return -1;
		r->side[i] = reqcmp_side(&r->q, i, f ? &r->runs[i] : NULL);
	}
	if (db_request_rounds(db, id, &rv, &nr) < 0)
		return -1;
	for (size_t i = 0; i + 1 < nr; i++)
		before += 2 * (size_t)rv[i].pairs;
	r->last = before < r->q.nruns ? before : r->q.nruns;
	db_request_rounds_free(rv, nr);
	return 1;
}

/* The last round's runs that did not pass, onto b: "2 of 4 runs did not
 * pass (crashed: run 17)"; whether every one was canceled */
static int last_round(const struct dreq *r, struct buf *b)
{
	size_t bad = 0, canceled = 0, n = r->q.nruns - r->last;
	const struct run *first = NULL;

	for (size_t i = r->last; i < r->q.nruns; i++) {
		const struct run *run = &r->runs[i];

		if (run->id && run->outcome == RUN_OUT_PASSED)
			continue;
		bad++;
		canceled += run->id && run->outcome == RUN_OUT_CANCELED;
		if (!first && run->id)
			first = run;
	}
	if (bad)
		buf_printf(b, "%zu of %zu run%s did not pass", bad, n, n == 1 ? "" : "s");
	if (first)
		buf_printf(b, " (%s: run %" PRId64 ")", run_outcome_name(first->outcome), first->id);
	return n && canceled == n;
}

/* The metrics of every cell's report into *m (caller frees; names
 * borrowed from x). 0 / -1 */
static int metrics_of(const struct reqcmp *x, struct decided_metric **m, size_t *n)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < x->cells.n; i++)
		total += x->have_rep[i] ? x->rep[i].n : 0;
	*m = calloc(total ? total : 1, sizeof(**m));
	if (!*m)
		return -1;
	for (size_t i = 0; i < x->cells.n; i++)
		for (size_t j = 0; x->have_rep[i] && j < x->rep[i].n; j++)
			(*m)[k++] = (struct decided_metric){ x->rep[i].v[j].name,
							     x->rep[i].v[j].verdict,
							     x->rep[i].v[j].runs_needed };
	*n = k;
	return 0;
}

/* Decides one request whose runs have all ended: a round more, or the
 * stop. 0 / -1 */
static int decide_one(struct orch *o, struct db *db, int64_t id)
{
	struct dreq r;
	struct reqcmp all, before;
	struct decided_metric *m = NULL;
	struct buf fail = BUF_INIT(256);
	struct decided_in in;
	struct decided_out out;
	const struct job_def *def;
	struct request qb;
	size_t nm = 0;
	int rc = -1, found, canceled;

	memset(&all, 0, sizeof(all));
	memset(&before, 0, sizeof(before));
	found = dreq_load(db, id, &r);
	if (found <= 0) {
		rc = found == 0 ? 0 : -1;
		goto out;
	}
	def = r.q.job ? job_set_find(&o->jobs, r.q.job) : NULL;
	/* the samples before the last round: what it added is the difference */
	qb = r.q;
	qb.nruns = r.last;
	if (reqcmp_build(db, &r.q, r.runs, r.side, def, &all) < 0 ||
	    reqcmp_build(db, &qb, r.runs, r.side, def, &before) < 0 ||
	    metrics_of(&all, &m, &nm) < 0)
		goto out;
	canceled = last_round(&r, &fail);
	in = (struct decided_in){
		.m = m, .nm = nm, .queued = (int)(r.q.nruns / 2),
		.samples = { all.samples[0], all.samples[1] },
		.new_samples = all.samples[0] + all.samples[1] - before.samples[0] -
			       before.samples[1],
		.round = r.q.rounds, .cap = r.q.max_runs > 0 ? r.q.max_runs : DECIDED_MAX_RUNS,
		.canceled = canceled, .failing = fail.len ? buf_str(&fail) : NULL,
	};
	if (decided_next(&in, &out) < 0)
		goto out;
	if (out.action == DECIDED_MORE) {
		int q = db_request_round_add(db, id, r.q.rounds, out.pairs, out.reason);

		if (q < 0)
			goto out;
		if (q) {
			log_info("request %" PRId64 ": %s", id, out.reason);
			pthread_mutex_lock(&o->lock);
			pthread_cond_broadcast(&o->work);
			pthread_mutex_unlock(&o->lock);
		}
	} else {
		int e = db_request_decided_end(db, id, decided_state_name(out.action), out.reason);

		if (e < 0)
			goto out;
		if (e)
			log_info("request %" PRId64 ": stopped after %d round%s, %zu runs a side: %s",
				 id, r.q.rounds, r.q.rounds == 1 ? "" : "s", r.q.nruns / 2,
				 out.reason);
	}
	rc = 0;
out:
	if (rc < 0)
		log_error("request %" PRId64 ": until decided: %s", id,
			  found < 0 || found == 1 ? db_errmsg(db) : "?");
	free(m);
	buf_release(&fail);
	reqcmp_release(&all);
	reqcmp_release(&before);
	if (found == 1)
		dreq_release(&r);
	return rc;
}

static void *decided_main(void *arg)
{
	struct orch *o = arg;
	struct db *db = o->decided_db;

	for (;;) {
		int64_t *ids = NULL;
		size_t n = 0;
		struct timespec ts;
		int stop;

		pthread_mutex_lock(&o->lock);
		stop = o->stopping;
		pthread_mutex_unlock(&o->lock);
		if (stop)
			break;
		if (db_requests_deciding(db, DECIDED_BATCH, &ids, &n) < 0)
			log_error("until decided: %s", db_errmsg(db));
		for (size_t i = 0; i < n; i++)
			decide_one(o, db, ids[i]);
		free(ids);
		pthread_mutex_lock(&o->lock);
		if (!o->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += DECIDED_TICK_S;
			/* woken with the builder (broadcasts only) and at the stop */
			pthread_cond_timedwait(&o->build_work, &o->lock, &ts);
		}
		pthread_mutex_unlock(&o->lock);
	}
	return NULL;
}

int decided_start(struct orch *o)
{
	char *err = NULL;

	o->decided_db = db_open(o->db_path, &err);
	if (!o->decided_db) {
		log_error("until decided: %s", err ? err : "cannot open the database");
		free(err);
		return -1;
	}
	if (pthread_create(&o->decided_thread, NULL, decided_main, o) != 0) {
		db_close(o->decided_db);
		o->decided_db = NULL;
		return -1;
	}
	return 0;
}

void decided_stop(struct orch *o)
{
	if (!o->decided_db)
		return;
	orch_ask_stop(o);
	pthread_join(o->decided_thread, NULL);
	db_close(o->decided_db);
	o->decided_db = NULL;
}
