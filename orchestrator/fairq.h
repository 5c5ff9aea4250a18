/* SPDX-License-Identifier: GPL-2.0-only */
/* fairq.h: the fair queue (fairq.c): which queued run a host takes next.
 * People's runs go first, oldest first; then the watches' runs, the
 * watches taking turns (the one with the fewest runs going, then the one
 * whose last run started longest ago), each under its cap, oldest first
 * within a watch; and a run that has waited reserve_after for room it
 * does not find keeps the host for itself until it fits. Pure: the
 * workers (sched.c) read the queue's classes (db_queue_classes()) and
 * claim what this says. */
#ifndef KF_FAIRQ_H
#define KF_FAIRQ_H

#include <stddef.h>
#include <stdint.h>

struct queue_class;

enum fairq_act {
	FAIRQ_NONE,      /* nothing the host can take */
	FAIRQ_TAKE,      /* claim run_id */
	FAIRQ_HOLD,      /* take nothing: the host is kept for run_id, which waited
			    long enough and fits once runs end */
};

struct fairq_choice {
	enum fairq_act act;
	int64_t run_id;
	const char *watch;       /* whom run_id is for (NULL: a person); borrowed
				    from the classes */
	char why[200];           /* one line for the log */
};

/* Sorts v (n classes) into the order they are served: people, then the
 * watches by turn */
void fairq_order(struct queue_class *v, size_t n);
/* The host's next move with the classes as they are (v sorted by
 * fairq_order() first) */
void fairq_pick(struct queue_class *v, size_t n, struct fairq_choice *c);

#endif
