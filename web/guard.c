// SPDX-License-Identifier: GPL-2.0-only
/* guard.c: slow clients do not stop the page for everyone. libmicrohttpd's
 * idle timeout restarts with every byte, so a client that sends one header
 * line every few seconds keeps its connection for ever; with enough of them
 * every slot is taken. Each connection is followed from the moment it
 * opens: a request's headers must be in within WEB_HEADER_DEADLINE_S of
 * the connection opening (or of the previous request's end, on a
 * keep-alive connection), or the connection is shut down. With the limit
 * per client address (http.c), one client cannot take every slot, and the
 * rest answer. */
#include "web/guard.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "common/log.h"

struct gconn {
	int fd;
	int64_t since;            /* ms: opened, or its last request ended */
	int in_request;           /* its headers are in: the handler has it */
	int shut;
	struct gconn *prev, *next;
};

static int64_t mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void *sweep(void *arg)
{
	struct web_guard *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		struct timespec ts;
		int64_t now = mono_now();
		int shut = 0;

		for (struct gconn *c = g->head; c; c = c->next)
			if (!c->in_request && !c->shut &&
			    now - c->since > (int64_t)WEB_HEADER_DEADLINE_S * 1000) {
				/* MHD owns the descriptor: shutdown, not close, so
				 * that its next read ends the connection */
				shutdown(c->fd, SHUT_RDWR);
				c->shut = 1;
				shut++;
				g->shut_total++;
			}
		if (shut)
			log_debug("web: %d connection%s without a whole request in %d s: closed",
				  shut, shut == 1 ? "" : "s", WEB_HEADER_DEADLINE_S);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&g->cond, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int web_guard_start(struct web_guard *g)
{
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	g->head = NULL;
	g->stop = 0;
	g->shut_total = 0;
	if (pthread_create(&g->thread, NULL, sweep, g) != 0)
		return -1;
	g->started = 1;
	return 0;
}

void web_guard_stop(struct web_guard *g)
{
	if (g->started) {
		pthread_mutex_lock(&g->lock);
		g->stop = 1;
		pthread_cond_signal(&g->cond);
		pthread_mutex_unlock(&g->lock);
		pthread_join(g->thread, NULL);
		g->started = 0;
	}
	while (g->head) {
		struct gconn *c = g->head;

		g->head = c->next;
		free(c);
	}
	pthread_cond_destroy(&g->cond);
	pthread_mutex_destroy(&g->lock);
}

void web_guard_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe)
{
	struct web_guard *g = cls;
	struct gconn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = NULL;
		if (!ci || !(c = calloc(1, sizeof(*c))))
			return;
		c->fd = ci->connect_fd;
		c->since = mono_now();
		pthread_mutex_lock(&g->lock);
		c->next = g->head;
		if (g->head)
			g->head->prev = c;
		g->head = c;
		pthread_mutex_unlock(&g->lock);
		*socket_context = c;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && c) {
		pthread_mutex_lock(&g->lock);
		if (c->prev)
			c->prev->next = c->next;
		else
			g->head = c->next;
		if (c->next)
			c->next->prev = c->prev;
		pthread_mutex_unlock(&g->lock);
		free(c);
		*socket_context = NULL;
	}
}

/* The connection's follower, from MHD's socket context */
static struct gconn *conn_of(struct MHD_Connection *connection)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

void web_guard_request(struct web_guard *g, struct MHD_Connection *connection, int begins)
{
	struct gconn *c = conn_of(connection);

	if (!c)
		return;
	pthread_mutex_lock(&g->lock);
	c->in_request = begins;
	if (!begins)
		c->since = mono_now();
	pthread_mutex_unlock(&g->lock);
}
