/* SPDX-License-Identifier: GPL-2.0-only */
/* guard.h: a deadline for a request's headers (guard.c) */
#ifndef KF_WEB_GUARD_H
#define KF_WEB_GUARD_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

#define WEB_HEADER_DEADLINE_S 10   /* a request's headers, from the connection's start */
#define WEB_CONN_PER_CLIENT 32     /* connections at once from one address */
#define WEB_CONN_MAX 512           /* in all */

struct gconn;
struct web_guard {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t thread;
	int started, stop;
	struct gconn *head;
	long long shut_total;      /* connections shut for being slow */
};

/* Starts the thread that shuts connections past the deadline. 0 / -1 */
int web_guard_start(struct web_guard *g);
void web_guard_stop(struct web_guard *g);
/* MHD_OPTION_NOTIFY_CONNECTION's callback (cls: the guard) */
void web_guard_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
		      enum MHD_ConnectionNotificationCode toe);
/* A request's headers are in (begins 1) or it ended (0) */
void web_guard_request(struct web_guard *g, struct MHD_Connection *connection, int begins);

#endif
