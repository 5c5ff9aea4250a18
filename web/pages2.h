/* pages2.h: the pages and JSON of the fleet beyond single runs: the queue
 * with expected turnarounds (queue.c), the hosts (queue.c), and a request
 * of base and patched runs with its pass/fail per subtest, its metric
 * comparison and strip plots (request.c). Shared by the files of web/
 * only, like webint.h. */
#ifndef KF_WEB_PAGES2_H
#define KF_WEB_PAGES2_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdint.h>

#include "common/buf.h"
#include "db/db.h"

struct web;

/* pages.c: the head (title, the shared CSS, the links to the other pages)
 * and the tail of every HTML page; refresh reloads it every 5 s. */
void web_page_head(struct buf *b, const char *title, int refresh);
void web_page_tail(struct buf *b);
/* A run's job as a link to its definition, or "command" for a plain one */
void web_job_link(struct buf *b, const char *job);

/* queue.c */
/* A JSON string of s made valid UTF-8 (json_null() for NULL); new
 * reference, NULL when out of memory. */
json_t *web_json_str(const char *s);
/* GET /queue: the runs running and waiting, how long each has waited or
 * run, and per request its progress and expected turnaround. */
enum MHD_Result pages_queue(struct web *w, struct MHD_Connection *c);
/* GET /hosts: every host, its accelerator, versions, size and health. */
enum MHD_Result pages_hosts(struct web *w, struct MHD_Connection *c);
/* GET /api/queue: {"runs": [...], "requests": [...], "running", "queued",
 * "truncated"}; the same as /queue. */
enum MHD_Result api_queue(struct web *w, struct MHD_Connection *c);
/* GET /api/hosts: {"hosts": [...]}; the same as /hosts. */
enum MHD_Result api_hosts(struct web *w, struct MHD_Connection *c);

/* request.c */
/* GET /requests/ID: the request, its runs as a grid (side x repeat), the
 * pass/fail per subtest (new failures first), the metric comparison of its
 * passed runs and a strip plot per metric. */
enum MHD_Result pages_request(struct web *w, struct MHD_Connection *c, int64_t id);
/* GET /api/requests/ID: what api.c's request_get() gives (id, created_at,
 * job, repeat, base_kernel_id, patched_kernel_id, runs [{id, side, repeat,
 * state, outcome}], done) plus "passfail" (request_passfail_json()) and
 * "comparisons" (cmp_report_json() per cell, as in /api/compare, of this
 * request's passed runs only). */
enum MHD_Result api_request(struct web *w, struct MHD_Connection *c, int64_t id);
/* The pass/fail per subtest of the request's finished runs as
 * passfail_json() gives it (at most WEB_RESULTS_MAX subtests), plus
 * "results_truncated" when the request had more result rows than were
 * read; {"error": "..."} in its place when a side has no finished run
 * yet. New reference; NULL with *err (caller frees) when the database or
 * memory failed. */
json_t *request_passfail_json(struct db *db, const struct request *q, char **err);

#endif
