// SPDX-License-Identifier: GPL-2.0-only
/* hostconn.c: opening a host's libvirt connection without hanging on it.
 * virConnectOpen() waits as long as the other end does (an ssh that gets
 * no banner, a libvirtd that accepts and never answers), so it runs in a
 * thread of its own; orch.c at start and hosts.c afterwards wait for its
 * answer at most the host's connect_timeout and take the host as down
 * meanwhile. An attempt nobody waits for any more closes what it opens. */
#include "orchestrator/orchint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/util.h"

struct hostconn {
	pthread_mutex_t lock;
	pthread_cond_t answered;
	char *uri;
	int done;                /* the thread has answered ... */
	virConnectPtr conn;      /* ... with this, or NULL and ... */
	char *err;               /* ... this */
	int orphaned;            /* nobody waits: the thread frees it */
	int64_t started;         /* mono_ms() */
};

static void hostconn_free(struct hostconn *c)
{
	if (c->conn)
		virConnectClose(c->conn);
	pthread_cond_destroy(&c->answered);
	pthread_mutex_destroy(&c->lock);
	free(c->err);
	free(c->uri);
	free(c);
}

static void *open_main(void *arg)
{
	struct hostconn *c = arg;
	virConnectPtr conn = virConnectOpen(c->uri);
	char *err = conn ? NULL : guest_last_error();
	int orphaned;

	pthread_mutex_lock(&c->lock);
	c->conn = conn;
	c->err = err;
	c->done = 1;
	orphaned = c->orphaned;
	pthread_cond_broadcast(&c->answered);
	pthread_mutex_unlock(&c->lock);
	if (orphaned)
		hostconn_free(c);
	return NULL;
}

int hostconn_start(struct host *h)
{
	struct hostconn *c;
	pthread_t t;

	if (h->conn_try)
		return 0;
	c = calloc(1, sizeof(*c));
	if (!c || !(c->uri = strdup(h->conf->uri))) {
		free(c);
		return -1;
	}
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->answered, NULL);
	c->started = mono_ms();
	if (pthread_create(&t, NULL, open_main, c)) {
		hostconn_free(c);
		return -1;
	}
	pthread_detach(t);
	h->conn_try = c;
	return 0;
}

/* Waits for c's answer until mono_ms() reaches until (0: not at all); 1 when it came */
static int wait_answer(struct hostconn *c, int64_t until)
{
	int done;

	pthread_mutex_lock(&c->lock);
	while (!c->done && until > mono_ms()) {
		int64_t ms = until - mono_ms();
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += (time_t)(ms / 1000);
		ts.tv_nsec += (long)(ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&c->answered, &c->lock, &ts);
	}
	done = c->done;
	pthread_mutex_unlock(&c->lock);
	return done;
}

int hostconn_take(struct host *h, int64_t until, virConnectPtr *conn, char **err)
{
	struct hostconn *c = h->conn_try;
	int timeout_ms = h->conf->connect_timeout_s * 1000;

	*conn = NULL;
	*err = NULL;
	if (!c)
		return set_errf(err, "host '%s' (%s): no connection attempt", h->conf->name,
				h->conf->uri);
	if (until > c->started + timeout_ms)
		until = c->started + timeout_ms;
	if (!wait_answer(c, until)) {
		if (mono_ms() < c->started + timeout_ms)
			return 0;
		/* still under way: no other attempt starts until it answers */
		return set_errf(err, "host '%s' (%s): no answer within %d s (connect_timeout); "
				"still trying", h->conf->name, h->conf->uri,
				h->conf->connect_timeout_s);
	}
	h->conn_try = NULL;
	*conn = c->conn;
	c->conn = NULL;
	if (!*conn)
		set_errf(err, "host '%s' (%s): %s", h->conf->name, h->conf->uri,
			 c->err ? c->err : "?");
	hostconn_free(c);
	return *conn ? 1 : -1;
}

void hostconn_drop(struct host *h)
{
	struct hostconn *c = h->conn_try;
	int done;

	if (!c)
		return;
	h->conn_try = NULL;
	pthread_mutex_lock(&c->lock);
	done = c->done;
	c->orphaned = 1;
	pthread_mutex_unlock(&c->lock);
	if (done)
		hostconn_free(c);
}
