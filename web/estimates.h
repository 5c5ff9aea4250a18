/* SPDX-License-Identifier: GPL-2.0-only */
/* estimates.h: what the queue's estimates read from the database, kept
 * between requests (estimates.c): the median duration of each kind of run
 * while no run ends, and the requests' progress while no run is queued,
 * claimed or ends. /queue and /api/queue (queue.c) ask it, so that a
 * page loaded again, or by many at once, reads the runs' counts only. */
#ifndef KF_WEB_ESTIMATES_H
#define KF_WEB_ESTIMATES_H

#include <stdint.h>

#include "db/db.h"

struct web;

/* The runs' counts per state (db_run_counts()) that the kept answers are
 * of; the caller reads them once per request. 0 / -1 */
int web_estimates_state(struct db *db, int64_t counts[RUN_STATE_COUNT]);
/* dbq_median_duration() of a kind of run, kept while counts[RUN_DONE]
 * stays. 1 found, 0 no such runs, -1 error */
int web_estimates_median(struct web *w, struct db *db, const int64_t counts[RUN_STATE_COUNT],
			 const char *job, const char *command, const char *arch, int vcpus,
			 int64_t *median_ms, int *n);
/* The progress of request id (one of those with a run queued or running:
 * dbq_queue_progress()), kept while counts stay. 0 (*runs and *done set;
 * 0 and 0 when the request has no run queued or running), -1 error */
int web_estimates_progress(struct web *w, struct db *db, const int64_t counts[RUN_STATE_COUNT],
			   int64_t id, int *runs, int *done);
/* Frees what is kept (web_stop) */
void web_estimates_free(struct web *w);

#endif
