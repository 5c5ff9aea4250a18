// SPDX-License-Identifier: GPL-2.0-only
/* stop.c: kfleetd's threads asked to stop, and woken: the flag and the
 * condition variables they wait on, under orch's lock. The workers, the
 * builder, the decided-request thread and the watches all call these, and
 * orch.c starts them: here, below all of them, so none calls back up. */
#include "orchestrator/orchint.h"

void orch_wake(struct orch *o, pthread_cond_t *cond, int all)
{
	pthread_mutex_lock(&o->lock);
	if (all)
		pthread_cond_broadcast(cond);
	else
		pthread_cond_signal(cond);
	pthread_mutex_unlock(&o->lock);
}

void orch_ask_stop(struct orch *o)
{
	pthread_mutex_lock(&o->lock);
	if (!o->stopping)
		o->stopping = 1;
	pthread_cond_broadcast(&o->build_work);
	pthread_mutex_unlock(&o->lock);
}

int orch_stopping(struct orch *o)
{
	int s;

	pthread_mutex_lock(&o->lock);
	s = o->stopping;
	pthread_mutex_unlock(&o->lock);
	return s;
}
