/* SPDX-License-Identifier: GPL-2.0-only */
/* reply.h: what every handler of web/ calls (reply.c): this thread's
 * database and the daemon's jobs, the replies (JSON, HTML, errors, files),
 * text made safe for HTML and JSON (anything from a guest is valid UTF-8
 * and escaped after these), the frame of every page and small pieces of
 * HTML, the bearer token, and strict parsers of what a request sends. */
#ifndef KF_WEB_REPLY_H
#define KF_WEB_REPLY_H

#include <jansson.h>
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct db;
struct job_def;
struct job_set;
struct web;
struct web_req;

/* ---- the state a handler reads ---- */

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
/* Whether higher values of metric are better in the job d (may be NULL):
 * 1, 0, or -1 when not known. When unit is set and *unit NULL, *unit gets
 * the unit the job gives the metric (borrowed). */
int web_metric_better(const struct job_def *d, const char *metric, const char **unit);
/* The margin a comparison uses for metric: asked when > 0 (the query's
 * margin=), else the job's for the metric, else 0 (the default) */
double web_metric_margin(const struct job_def *d, const char *metric, double asked);

struct cmp_report;
struct cell;
/* Adds the metrics of cell c (analysis/cells.h) to r, the directions and
 * margins from the job d (may be NULL) unless asked (> 0) gives the
 * margin, the runs named by id; a metric with no runs on a side, or one
 * that cannot be added, becomes a note. side_name[0..1] names the sides
 * in those notes. */
void web_report_cell(struct cmp_report *r, const struct job_def *d, const struct cell *c,
		     double asked, const char *const side_name[2]);
struct cmp_quiet_side;
/* neighbours.c: counts the neighbours of each side's runs of c into s and
 * notes under r that the sides ran under different ones, when they did.
 * 0 / -1 (database, memory) */
int web_report_neighbours(struct db *db, struct cmp_report *r, const struct cell *c,
			  const char *const names[2], struct cmp_quiet_side *s);
/* {"base": {"runs", "recorded", "beside_build", "beside_run", "pinned",
 * "overcommitted"}, "patched": {...}, "warning": "..."|null}; new reference */
json_t *web_neighbours_json(const struct cmp_quiet_side *s, const char *warning);
/* A run's pinning and neighbours: {"attempt", "pin", "cores", "why",
 * "builds_mode", "runs", "builds", "load_start", "load_end", "ended"}, or
 * JSON null when not recorded; and the same as a section of the run page */
json_t *web_run_neighbours_json(struct db *db, int64_t id);
void web_run_neighbours_html(struct buf *b, struct db *db, int64_t id);

/* ---- replies ----
 * Each queues a response and returns what MHD_queue_response() did (MHD_NO
 * on allocation failure, which closes the connection). */
enum MHD_Result web_reply(struct MHD_Connection *c, unsigned status, const char *ctype,
			  struct buf *body);   /* body is taken (emptied) */
/* 200 with b as an HTML page; b is taken */
enum MHD_Result web_reply_page(struct MHD_Connection *c, struct buf *b);
enum MHD_Result web_reply_json(struct MHD_Connection *c, unsigned status,
			       json_t *j); /* j is taken (decref'd) */
enum MHD_Result web_reply_error(struct MHD_Connection *c, unsigned status,
				const char *fmt, ...) __attribute__((format(printf, 3, 4)));
enum MHD_Result web_reply_html_error(struct MHD_Connection *c, unsigned status,
				     const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* 405 with an Allow header; JSON or plain text */
enum MHD_Result web_reply_method(struct MHD_Connection *c, const char *allow, int json);
/* Sends at most the last max bytes of the file path (0: all of it);
 * 404 when it does not exist. */
enum MHD_Result web_reply_file(struct MHD_Connection *c, const char *path,
			       const char *ctype, uint64_t max, int64_t run_id);

/* ---- what a request sends ---- */

/* The request's body as a JSON object into *body (caller decrefs): MHD_YES
 * with *body set, or the answer already given (413, 400 with line and
 * column, 400 for a non-object) with *body NULL */
enum MHD_Result web_body_json(struct MHD_Connection *c, struct web_req *req, json_t **body);
/* Refuses fields other than known (NULL-terminated): 0, or -1 with msg
 * ("unknown field 'x'") */
int web_fields_only(json_t *body, const char *const *known, char *msg, size_t n);
/* 0 when the request carries the server's bearer token, else -1 with *why */
int web_check_token(struct web *w, struct MHD_Connection *c, const char **why);
/* 1 when it does not: the 401 saying why is queued in *rc; 0 when it does */
int web_unauthorized(struct web *w, struct MHD_Connection *c, enum MHD_Result *rc);
/* A JSON body's optional positive int (absent: 0, the configured default)
 * and its required or optional string field: 0, or -1 with msg saying
 * what is wrong */
int web_field_int(json_t *body, const char *key, int *out, char *msg, size_t msglen);
int web_field_str(json_t *body, const char *key, int required, const char **out,
		  char *msg, size_t msglen);
/* A body's run-until-decided fields: "until_decided" (true/false),
 * "max_runs" (a positive int) and "margin" (a percentage: 3, "3" or "3%").
 * Absent: 0. 0, or -1 with msg */
int web_field_decided(json_t *body, int *until_decided, int *max_runs, double *margin,
		      char *msg, size_t msglen);
/* Parses an id path segment "123" ending at the end or at '/': no sign,
 * no leading zero, not 0, no overflow. 0 / -1; *rest points after it. */
int web_parse_id(const char *s, int64_t *id, const char **rest);

/* ---- text ---- */

/* Appends s[0..n) with every invalid UTF-8 byte replaced by U+FFFD. */
void web_utf8(struct buf *b, const char *s, size_t n);
/* Appends s[0..n) as HTML text: UTF-8 made valid, & < > " ' escaped, C0
 * controls other than tab, newline and CR shown as their control pictures. */
void web_html(struct buf *b, const char *s, size_t n);
void web_html_str(struct buf *b, const char *s);   /* NULL: nothing */
/* At most the first max bytes of s as HTML (a commit's short id) */
void web_html_prefix(struct buf *b, const char *s, size_t max);
/* " UNIT" escaped, nothing for NULL */
void web_html_unit(struct buf *b, const char *unit);
/* v as "%.4g", or none when it is not finite */
void web_html_num(struct buf *b, double v, const char *none);
/* A JSON string of s[0..n) or s made valid UTF-8 (json_null() for a NULL
 * s); new reference, NULL when out of memory. */
json_t *web_json_strn(const char *s, size_t n);
json_t *web_json_str(const char *s);
/* The same with secrets masked (common/redact.h), for a URL or an error
 * that may quote one; "(not shown)" when memory runs out. NULL: nothing,
 * and json null. */
void web_html_redacted(struct buf *b, const char *s);
json_t *web_json_redacted(const char *s);
/* v's string, or "" when v is not a string (so never NULL) */
const char *web_json_text(const json_t *v);
/* ms since the epoch, or null for 0 */
json_t *web_json_time(int64_t ms);
/* "850 ms", "12.3 s", "4 min 05 s", "2 h 03 min"; "-" when not both set */
void web_fmt_duration(int64_t start_ms, int64_t end_ms, char out[32]);

/* ---- pieces of pages ---- */

/* The head (title, the shared CSS, the links to the other pages) and the
 * tail of every HTML page; refresh reloads it every 5 s. */
void web_page_head(struct buf *b, const char *title, int refresh);
void web_page_tail(struct buf *b);
/* A table row <tr><th>k</th><td>v</td></tr>, both escaped; none (HTML)
 * in place of a NULL v */
void web_html_kv(struct buf *b, const char *k, const char *v, const char *none);
/* A run's job as a link to its definition, or "command" for a plain one */
void web_job_link(struct buf *b, const char *job);
/* A table cell with a kernel's file name, its full path as the tooltip */
void web_kernel_cell(struct buf *b, const char *path);

#endif
