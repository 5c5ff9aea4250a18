/* webint.h: what the files of web/ share and nobody else sees: the server
 * state, the per-thread database, the daemon's job set, reply helpers
 * (http.c), the JSON API (api.c), the HTML pages (pages.c), and the text
 * helpers that make anything from a guest safe to put into JSON or HTML. */
#ifndef KF_WEBINT_H
#define KF_WEBINT_H

#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "db/db.h"

#define WEB_BODY_MAX       (64 * 1024)          /* request bodies */
#define WEB_UPLOAD_MAX     (96 * 1024 * 1024)   /* POST /api/submissions: an mbox, base64 */
#define WEB_OUTPUT_MAX     (1024 * 1024)        /* output in GET /api/runs/ID */
#define WEB_CONSOLE_MAX    (16 * 1024 * 1024)   /* GET /runs/ID/console: its tail */
#define WEB_PAGE_OUTPUT    (256 * 1024)         /* output shown on a run page */
#define WEB_PAGE_CONSOLE   (256 * 1024)         /* console tail shown on a run page */
#define WEB_PAGE_MAX       (16 * 1024 * 1024)   /* one generated page */
#define WEB_RESULTS_MAX    1000                 /* result rows in a run's JSON and page */
#define WEB_SAMPLES_MAX    5000                 /* metric samples in a run's JSON and page */
#define WEB_FEW_VALUES     10                   /* a metric's values listed on the page */
#define WEB_LIST_DEFAULT   50
#define WEB_LIST_MAX       500
#define WEB_POOL_THREADS   4

struct job_set;

struct web {
	struct MHD_Daemon *mhd;
	int port;
	char *db_path;
	char *token;
	struct orch *orch;             /* NULL: no submitting, no jobs */
	pthread_mutex_t submit_lock;   /* orch_submit() calls, one at a time */
	pthread_key_t db_key;          /* this thread's struct db */
	pthread_mutex_t dbs_lock;
	struct db **dbs;               /* every connection opened, closed at web_stop */
	size_t ndbs;
	struct compare_cache *ccache;  /* compare.c: answers until the runs change */
};

/* One request being received (MHD's con_cls). */
struct web_req {
	struct buf body;   /* capped at WEB_BODY_MAX */
	int too_big;       /* the body went past the cap */
};

/* http.c */

/* This thread's database connection, opened on first use. NULL with *err
 * (caller frees). Borrowed: closed by web_stop(). */
struct db *web_db(struct web *w, char **err);

/* web_db(), or NULL after replying 500 with why (an HTML page when html is
 * set, else JSON) into *rc. Borrowed, like web_db()'s. */
struct db *web_db_or_reply(struct web *w, struct MHD_Connection *c, int html,
			   enum MHD_Result *rc);

/* The daemon's jobs, sorted by name; an empty set when the server has no
 * orchestrator. Borrowed; read-only after start, so no lock is needed. */
const struct job_set *web_jobs(const struct web *w);

/* Replies. Each queues a response and returns what MHD_queue_response()
 * did (MHD_NO on allocation failure, which closes the connection). */
enum MHD_Result web_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			  struct buf *body);   /* body is taken (emptied) */
enum MHD_Result web_reply_json(struct MHD_Connection *c, unsigned status,
			       json_t *j); /* j is taken (decref'd) */
enum MHD_Result web_reply_error(struct MHD_Connection *c, unsigned status,
				const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum MHD_Result web_reply_html_error(struct MHD_Connection *c, unsigned status,
				     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Sends at most the last max bytes of the file path (0: all of it);
 * 404 when it does not exist. */
enum MHD_Result web_reply_file(struct MHD_Connection *c, const char *path,
			       const char *ctype, uint64_t max, int64_t run_id);
/* The files a job left in its results directory (web/results.c): a table
 * for the run page (nothing when there are none), a JSON array of
 * {path, bytes, url} (NULL when memory ran out), and one of them, rel being
 * its path under the directory. */
void web_results_html(struct buf *b, const char *run_dir, int64_t run_id);
json_t *web_results_json(const char *run_dir, int64_t run_id);
enum MHD_Result web_results_file(struct MHD_Connection *c, const char *run_dir, int64_t run_id,
				 const char *rel);
/* 405 with an Allow header */
enum MHD_Result web_reply_method(struct MHD_Connection *c, const char *allow, int json);

/* Parses a run id path segment "123" ending at end or at '/'; 0 / -1.
 * *rest points after the digits. */
int web_parse_id(const char *s, int64_t *id, const char **rest);

/* Appends s[0..n) with every invalid UTF-8 byte replaced by U+FFFD. */
void web_utf8(struct buf *b, const char *s, size_t n);
/* Appends s[0..n) as HTML text: UTF-8 made valid, & < > " ' escaped, C0
 * controls other than tab, newline and CR shown as their control pictures. */
void web_html(struct buf *b, const char *s, size_t n);
void web_html_str(struct buf *b, const char *s);   /* NULL: nothing */

/* "2024-01-02 03:04:05" in UTC, "-" for 0 */
void web_fmt_time(int64_t ms, char out[32]);
/* "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min"; "-" when not both set */
void web_fmt_duration(int64_t start_ms, int64_t end_ms, char out[32]);

/* api.c: everything under /api/ */
/* web/compare.c: GET /api/compare, base vs patched samples of a job */
enum MHD_Result web_compare(struct web *w, struct MHD_Connection *c);
/* Frees the comparisons kept by web_compare() (web_stop) */
void web_compare_cache_free(struct web *w);
/* The bearer token check of state-changing calls: 0, or -1 with *why */
int web_check_token(struct web *w, struct MHD_Connection *c, const char **why);
/* A JSON body's optional positive int and (required or optional) string
 * fields: 0, or -1 with msg saying what is wrong */
int web_field_int(json_t *body, const char *key, int *out, char *msg, size_t msglen);
int web_field_str(json_t *body, const char *key, int required, const char **out,
		  char *msg, size_t msglen);

/* builds.c: trees, submissions and builds, as JSON under /api and as pages */
enum MHD_Result api_builds_route(struct web *w, struct MHD_Connection *c, const char *method,
				 const char *url, struct web_req *req);
enum MHD_Result builds_pages_route(struct web *w, struct MHD_Connection *c, const char *url);
/* Whether url takes an upload larger than WEB_BODY_MAX (an mbox) */
int web_big_upload(const char *url);

enum MHD_Result api_route(struct web *w, struct MHD_Connection *c, const char *method,
			  const char *url, struct web_req *req);

/* pages.c: /, /runs/ID, the run files, /jobs and /jobs/NAME */
enum MHD_Result pages_route(struct web *w, struct MHD_Connection *c, const char *method,
			    const char *url);

#endif
