// SPDX-License-Identifier: GPL-2.0-only
/* fairq.c: the fair queue's choice, a pure function of the queue's
 * classes as one host sees them (db_queue_classes(): per class, people's
 * or one watch's, its oldest run that fits the host now and its oldest
 * that has waited for room it does not find). The workers (sched.c)
 * claim what it says; the unit tests drive it with made-up queues. */
#include "orchestrator/fairq.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"

/* People first; then the watches with the fewest runs going, then the
 * one whose last run started longest ago (never first), then the one
 * whose oldest run is oldest */
static int class_cmp(const void *pa, const void *pb)
{
	const struct queue_class *a = pa, *b = pb;

	if (!a->watch || !b->watch)
		return (a->watch != NULL) - (b->watch != NULL);
	if (a->running != b->running)
		return a->running < b->running ? -1 : 1;
	if (a->last_start != b->last_start)
		return a->last_start < b->last_start ? -1 : 1;
	if (a->oldest_id != b->oldest_id)
		return a->oldest_id < b->oldest_id ? -1 : 1;
	return strcmp(a->watch, b->watch);
}

void fairq_order(struct queue_class *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof(*v), class_cmp);
}

static void who(const struct queue_class *c, char *out, size_t n)
{
	if (c->watch)
		snprintf(out, n, "watch '%s'", c->watch);
	else
		snprintf(out, n, "a person");
}

void fairq_pick(struct queue_class *v, size_t n, struct fairq_choice *c)
{
	int capped = 0;
	char w[96];

	memset(c, 0, sizeof(*c));
	for (size_t i = 0; i < n; i++) {
		const struct queue_class *k = &v[i];

		if (k->watch && k->max_running > 0 && k->running >= k->max_running) {
			capped++;
			continue;
		}
		who(k, w, sizeof(w));
		/* an older run waits for room: the host makes it, taking
		 * nothing from here on until that run fits */
		if (k->held_id && (!k->fit_id || k->held_id < k->fit_id)) {
			c->act = FAIRQ_HOLD;
			c->run_id = k->held_id;
			c->watch = k->watch;
			snprintf(c->why, sizeof(c->why), "run %" PRId64 " (for %s) has waited for room: "
				 "the host starts nothing else until it fits", k->held_id, w);
			return;
		}
		if (k->fit_id) {
			c->act = FAIRQ_TAKE;
			c->run_id = k->fit_id;
			c->watch = k->watch;
			if (!k->watch)
				snprintf(c->why, sizeof(c->why), "for a person: people's runs first, "
					 "oldest first");
			else
				snprintf(c->why, sizeof(c->why), "for %s: its turn (%d of its runs "
					 "going%s)", w, k->running, capped ? ", another watch at its "
					 "cap" : "");
			return;
		}
	}
	snprintf(c->why, sizeof(c->why), capped ? "nothing fits, or its watch is at its cap" :
		 "nothing queued fits");
}
