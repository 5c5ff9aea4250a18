/* SPDX-License-Identifier: GPL-2.0-only */
/* server.h: the server's state that every file of web/ reads (struct web:
 * the per-thread databases, the token, the orchestrator, the reply cache)
 * and one request's body, with the bounds on what a request may send and a
 * page or answer may hold. Shared by the files of web/ only. */
#ifndef KF_WEB_SERVER_H
#define KF_WEB_SERVER_H

#include <pthread.h>
#include <stddef.h>

#include "common/buf.h"

#define WEB_BODY_MAX       (64 * 1024)          /* request bodies */
#define WEB_UPLOAD_MAX     (96 * 1024 * 1024)   /* POST /api/submissions: an mbox, base64 */
#define WEB_OUTPUT_MAX     (1024 * 1024)        /* output in GET /api/runs/ID */
#define WEB_CONSOLE_MAX    (16 * 1024 * 1024)   /* GET /runs/ID/console: its tail */
#define WEB_PAGE_OUTPUT    (256 * 1024)         /* output shown on a run page */
#define WEB_PAGE_CONSOLE   (256 * 1024)         /* console tail shown on a run page */
#define WEB_PAGE_MAX       (16 * 1024 * 1024)   /* one generated page */
#define WEB_RESULTS_MAX    1000                 /* result rows in a run's JSON */
#define WEB_RESULTS_PAGE   200                  /* result rows on a page of a run's page */
#define WEB_SAMPLES_MAX    5000                 /* metric samples in a run's JSON and page */
#define WEB_FEW_VALUES     10                   /* a metric's values listed on the page */
#define WEB_LIST_DEFAULT   50
#define WEB_LIST_MAX       500
#define WEB_QUEUE_PAGE     100                  /* runs on a page of /queue, /api/queue */
#define WEB_POOL_THREADS   4

struct db;
struct json_t;
struct orch;

#include "web/guard.h"
#include "web/hostcheck.h"

struct web {
	struct MHD_Daemon *mhd;
	int port;
	char *db_path;
	char *token;
	struct orch *orch;             /* NULL: no submitting, no jobs */
	struct bisect_driver *bisect;  /* NULL: no bisections started here */
	pthread_mutex_t submit_lock;   /* orch_submit() calls, one at a time */
	pthread_key_t db_key;          /* this thread's struct db */
	pthread_mutex_t dbs_lock;
	struct db **dbs;               /* every connection opened, closed at web_stop */
	size_t ndbs;
	struct web_cache *cache;       /* cache.c: answers kept until their data change */
	struct web_estimates *estimates;   /* estimates.c: the queue's medians and progress */
	struct web_guard guard;        /* guard.c: a deadline for a request's headers */
	struct web_hosts hosts;        /* hostcheck.c: the names a request's Host may give */
	char kcidb_origin[65];         /* the KCIDB export's origin (export.c) */
	char link_base[256];           /* public_url or "http://ADDR:PORT": the export's links */
	/* the daemon's reload and shutdown (control.c; web_opts says what they do) */
	int (*reload)(void *arg, struct json_t **answer, char **err);
	void (*shutdown)(void *arg);
	void *control_arg;
};

/* One request being received (MHD's con_cls). */
struct web_req {
	struct buf body;   /* capped at WEB_BODY_MAX, or WEB_UPLOAD_MAX for an upload */
	int too_big;       /* the body went past the cap */
	int stop_after;    /* answered POST /api/shutdown: w->shutdown() once it is sent */
};

#endif
