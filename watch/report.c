// SPDX-License-Identifier: GPL-2.0-only
/* watch/report.c: what a watch says back about each series it took: a
 * patchwork check per patch, "pending" once the series is queued, then
 * success / warning / fail with a one-line description and the link to
 * its submission's page once its work is over; and a reply mail on the
 * thread (In-Reply-To and References of the cover letter, "Re:" its
 * subject), written to report_dir, and sent over SMTP (watch/mail.c)
 * only when the watch says send = yes, retried when refused. */
#include "orchestrator/orchint.h"
#include "watch/watch.h"
#include "watch/mail.h"
#include "watch/pw.h"
#include "watch/watchint.h"
#include "analysis/reqcmp.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pthread.h>

#include "common/hash.h"
#include "common/log.h"
#include "common/util.h"
#include "db/watches.h"

#define REPORT_RETRY_S 30
#define REFUSED_MAX    32    /* watches whose token patchwork refused, remembered */
#define MAIL_TRIES     6     /* sends of a reply before it is given up */

/* A header's value from outside (a name, a subject) on one line */
static void header(struct buf *m, const char *name, const char *v)
{
	buf_printf(m, "%s: ", name);
	for (const char *p = v ? v : ""; *p; p++)
		buf_append(m, *p == '\r' || *p == '\n' ? " " : p, 1);
	buf_puts(m, "\n");
}

/* The watch's token: the spec's, or its file's first line. NULL when
 * there is none (err says why); caller frees */
static char *token_of(const struct watch_spec *sp, char *err, size_t n)
{
	if (sp->token)
		return strdup(sp->token);
	return watch_token_file("token_file", sp->token_file, err, n);
}

/* A token patchwork refused (401, 403: not a maintainer of the project)
 * is refused again on every try: it is remembered, by watch and by the
 * token's sha256, and not sent again while it is the watch's token. The
 * operator gets one message saying what to fix; a new token (token_file
 * is read at each try) is used at the next try. */
static struct {
	char watch[64];
	char hash[65];
} refused[REFUSED_MAX];
static pthread_mutex_t refused_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 when watch's token (hash) was refused, else 0; set: remember it as
 * refused (1) or forget the watch's (0) */
static int token_refused(const char *watch, const char *hash, int set)
{
	int hit = 0, slot = -1;

	pthread_mutex_lock(&refused_lock);
	for (int i = 0; i < REFUSED_MAX; i++) {
		if (!strcmp(refused[i].watch, watch)) {
			slot = i;
			hit = !strcmp(refused[i].hash, hash);
			break;
		}
		if (slot < 0 && !refused[i].watch[0])
			slot = i;
	}
	if (set == 1 && slot >= 0) {
		snprintf(refused[slot].watch, sizeof(refused[slot].watch), "%s", watch);
		snprintf(refused[slot].hash, sizeof(refused[slot].hash), "%s", hash);
	} else if (set == 0 && slot >= 0 && !strcmp(refused[slot].watch, watch)) {
		refused[slot].watch[0] = refused[slot].hash[0] = '\0';
	}
	pthread_mutex_unlock(&refused_lock);
	return hit;
}

/* Seconds before a report that failed is tried again: the watch's poll
 * interval, at most REPORT_RETRY_S */
static int retry_s(const struct watch_spec *sp)
{
	return sp->interval_s > 0 && sp->interval_s < REPORT_RETRY_S ? sp->interval_s :
	       REPORT_RETRY_S;
}

/* The check on every patch of s: 0 all taken, -1 (logged and recorded) */
static int post_all(struct orch *o, struct db *db, const struct watch_spec *sp,
		    const struct watch_series_row *s, const char *state, const char *desc,
		    const char *url)
{
	json_t *ids = json_loads(s->patches, 0, NULL), *v;
	char err[1024] = "", *token = token_of(sp, err, sizeof(err)), *body, hash[65];
	size_t i;
	int rc = 0;

	(void)o;
	body = token ? pw_check_body(state, url, desc, sp->context) : NULL;
	if (!token || !body || !json_is_array(ids)) {
		wlog(db, sp->name, "error", "series %" PRId64 ": check '%s' not posted: %s",
		     s->remote_id, state, *err ? err : "out of memory");
		rc = -1;
		goto out;
	}
	sha256_mem(token, strlen(token), hash);
	if (token_refused(sp->name, hash, -1)) {
		rc = -1;   /* said once already; tried again when the token changes */
		goto out;
	}
	json_array_foreach(ids, i, v) {
		long status = 0;
		int64_t pid = json_integer_value(v);

		if (pw_post_check(sp->patchwork, pid, token, body, sp->timeout_s, &status, err,
				  sizeof(err)) < 0) {
			if (status == 401 || status == 403) {
				char why[2048];

				snprintf(why, sizeof(why), "patchwork refused the watch's token (%s): "
					 "it must be the API token of a user who maintains project "
					 "'%s' on %s (patchwork's admin pages: the user's profile, "
					 "\"Maintainer of\"); it is not sent again, and the checks "
					 "wait for a new token (%s%s)", err,
					 sp->project ? sp->project : "?", sp->patchwork,
					 sp->token ? "token = in the config: restart kfleetd" :
					 "token_file, read at each try: ", sp->token ? "" : sp->token_file);
				snprintf(err, sizeof(err), "%.1023s", why);
				token_refused(sp->name, hash, 1);
				wlog(db, sp->name, "error", "series %" PRId64 " patch %" PRId64 ": "
				     "check '%s' not posted: %s", s->remote_id, pid, state, err);
			} else {
				wlog(db, sp->name, "error", "series %" PRId64 " patch %" PRId64 ": "
				     "check '%s' not posted (again in %d s): %s", s->remote_id, pid,
				     state, retry_s(sp), err);
			}
			db_watch_check_add(db, s->id, pid, state, desc, url, status, err);
			rc = -1;
			break;
		}
		token_refused(sp->name, hash, 0);
		db_watch_check_add(db, s->id, pid, state, desc, url, status, NULL);
	}
out:
	if (rc < 0)
		db_watch_series_later(db, s->id, now_ms() + retry_s(sp) * 1000LL);
	free(body);
	free(token);
	json_decref(ids);
	return rc;
}

/* The verdict on s: 1 with state and desc, 0 not over yet, -1 error */
static int verdict(struct db *db, const struct watch_series_row *s, const char **state,
		   char *desc, size_t n)
{
	struct submission sub;
	struct watch_outcome oc;
	int f;

	if (!strcmp(s->state, "superseded")) {
		*state = "warning";
		snprintf(desc, n, "not tested: %s", s->detail ? s->detail : "superseded");
		return 1;
	}
	if (!strcmp(s->state, "error")) {
		*state = "warning";
		snprintf(desc, n, "kfleet could not take it: %s", s->detail ? s->detail : "?");
		return 1;
	}
	f = db_submission_get(db, s->submission_id, &sub);
	if (f <= 0)
		return f;
	f = 0;
	if (!strcmp(sub.state, "failed")) {
		int apply = sub.outcome && !strcmp(sub.outcome, "does-not-apply");

		*state = apply ? "warning" : "fail";
		snprintf(desc, n, "%s: %s", apply ? "does not apply" : sub.outcome &&
			 !strcmp(sub.outcome, "build-failed") ? "build failed" : "error",
			 sub.detail ? sub.detail : "?");
		f = 1;
	} else if (!strcmp(sub.state, "testing") || !strcmp(sub.state, "done")) {
		if (db_watch_submission_outcome(db, s->submission_id, &oc) < 0) {
			f = -1;
		} else if (!strcmp(sub.state, "done") && !oc.runs) {
			*state = "success";
			snprintf(desc, n, "applies and builds (no jobs to run)");
			f = 1;
		} else if (oc.runs && oc.done == oc.runs) {
			f = 1;
			if (oc.failed) {
				*state = "fail";
				snprintf(desc, n, "%d of %d runs failed", oc.failed, oc.runs);
			} else if (oc.passed < oc.runs) {
				*state = "warning";
				snprintf(desc, n, "%d of %d runs passed (%d infrastructure failures, %d "
					 "canceled)", oc.passed, oc.runs, oc.infra, oc.canceled);
			} else {
				*state = "success";
				snprintf(desc, n, "builds, and all %d runs passed", oc.runs);
			}
		}
	}
	db_row_release(db_submission_fields, &sub, sizeof(sub));
	return f;
}

/* One request's before/after tables (as `kfleet test` prints them) onto m */
static void request_tables(struct orch *o, struct db *db, int64_t id, struct buf *m)
{
	struct request q;
	struct reqcmp x;
	struct run *runs = NULL;
	int *side = NULL;
	const struct job_def *def;

	if (db_request_get(db, id, &q) != 1)
		return;
	runs = calloc(q.nruns + 1, sizeof(*runs));
	side = calloc(q.nruns + 1, sizeof(*side));
	for (size_t i = 0; runs && side && i < q.nruns; i++) {
		int f = db_run_get(db, q.run_ids[i], &runs[i]);

		side[i] = reqcmp_side(&q, i, f == 1 ? &runs[i] : NULL);
	}
	def = q.job ? job_set_find(&o->jobs, q.job) : NULL;
	memset(&x, 0, sizeof(x));
	if (runs && side && reqcmp_build(db, &q, runs, side, def, &x) == 0)
		for (size_t c = 0; c < REQCMP_CELLS_MAX && c < x.cells.n; c++)
			if (x.have_rep[c]) {
				cmp_render_text(&x.rep[c], CMP_COL_DEFAULT, m);
				buf_puts(m, "\n");
			}
	reqcmp_release(&x);
	for (size_t i = 0; runs && i < q.nruns; i++)
		run_release(&runs[i]);
	free(runs);
	free(side);
	request_release(&q);
}

static void tables(struct orch *o, struct db *db, int64_t submission_id, struct buf *m)
{
	int64_t *ids = NULL;
	size_t n = 0;

	if (db_submission_requests(db, submission_id, &ids, &n) < 0 || !n) {
		free(ids);
		return;
	}
	buf_puts(m, "Before (base) and after (patched):\n\n");
	for (size_t i = 0; i < n; i++)
		request_tables(o, db, ids[i], m);
	free(ids);
}

/* RFC 5322 date, now */
static void mail_date(char *out, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%a, %d %b %Y %H:%M:%S +0000", &tm);
}

/* The reply on the thread into report_dir; its path (caller frees) or NULL */
static char *write_mail(struct orch *o, struct db *db, const struct watch_spec *sp,
			const struct watch_series_row *s, const char *state, const char *desc,
			const char *url)
{
	struct buf m = BUF_INIT(1 << 20);
	char date[64], line[1200], *path = NULL, *subject = s->subject ? s->subject : s->name;

	if (!sp->report_dir)
		return NULL;
	mail_date(date, sizeof(date));
	buf_printf(&m, "From: %s\n", sp->from ? sp->from : "kfleet <kfleet@localhost>");
	header(&m, "To", s->submitter);
	if (sp->to)
		buf_printf(&m, "Cc: %s\n", sp->to);
	snprintf(line, sizeof(line), "%s%s", strncasecmp(subject, "Re:", 3) ? "Re: " : "", subject);
	header(&m, "Subject", line);
	buf_printf(&m, "Date: %s\n", date);
	buf_printf(&m, "Message-ID: <kfleet.%s.%" PRId64 ".%s@kfleet>\n", sp->name, s->id,
		   o->instance);
	snprintf(line, sizeof(line), "<%s>", s->msgid);
	header(&m, "In-Reply-To", line);
	header(&m, "References", line);
	buf_puts(&m, "MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n"
		 "Content-Transfer-Encoding: 8bit\n\n");
	if (s->remote_id)
		snprintf(line, sizeof(line), "patchwork series %" PRId64, s->remote_id);
	else
		snprintf(line, sizeof(line), "<%s>", s->msgid);
	buf_printf(&m, "kfleet tested v%" PRId64 " of this series (%s) on tree '%s'%s%s.\n\n",
		   s->version, line, s->tree ? s->tree : "?", s->base ? ", base " : "",
		   s->base ? s->base : "");
	buf_printf(&m, "Result: %s: %s\n\n", state, desc);
	if (s->submission_id) {
		buf_puts(&m, "Runs (job, arch, vCPUs):\n");
		if (db_watch_run_lines(db, s->submission_id, &m) < 0)
			buf_puts(&m, "  (the runs could not be read)\n");
		buf_puts(&m, "\n");
		tables(o, db, s->submission_id, &m);
	}
	buf_printf(&m, "Details: %s\n\n-- \nkfleet, watch '%s'\n", url, sp->name);
	if (mkdir_p(sp->report_dir, 0755) < 0 ||
	    asprintf(&path, "%s/%s-%s%" PRId64 "-v%" PRId64 ".eml", sp->report_dir, sp->name,
		     s->remote_id ? "" : "m", s->remote_id ? s->remote_id : s->id, s->version) < 0 ||
	    write_file(path, m.data, m.len, 0644) < 0) {
		wlog(db, sp->name, "error", "series %" PRId64 ": reply mail not written to '%s': %s",
		     s->remote_id, sp->report_dir, strerror(errno));
		free(path);
		path = NULL;
	}
	buf_release(&m);
	return path;
}

static void report_one(struct orch *o, struct db *db, const struct watch_spec *sp,
		       const struct watch_series_row *s)
{
	char desc[400], url[512], *mail = NULL;
	const char *state = NULL;
	const char *base = sp->link_base ? sp->link_base : o->url;
	int f;

	if (s->submission_id)
		snprintf(url, sizeof(url), "%s/submissions/%" PRId64, base, s->submission_id);
	else
		snprintf(url, sizeof(url), "%s/watches", base);
	if (sp->checks && !s->pending_posted && !strcmp(s->state, "queued")) {
		snprintf(desc, sizeof(desc), "queued as submission %" PRId64, s->submission_id);
		if (post_all(o, db, sp, s, "pending", desc, url) < 0)
			return;
		db_watch_series_pending(db, s->id);
		wlog(db, sp->name, "info", "series %" PRId64 ": check 'pending' posted on %s",
		     s->remote_id, "its patches");
	}
	f = verdict(db, s, &state, desc, sizeof(desc));
	if (f < 0)
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
	if (f <= 0)
		return;
	if (sp->checks && post_all(o, db, sp, s, state, desc, url) < 0)
		return;
	mail = write_mail(o, db, sp, s, state, desc, url);
	if (db_watch_series_reported(db, s->id, state, desc, mail) < 0)
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
	else
		wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": %s: %s%s%s",
		     s->remote_id, s->version, state, desc, mail ? "; mail written to " : "",
		     mail ? mail : "");
	free(mail);
}

/* The replies written and not sent yet, when the watch sends */
static void send_due(struct orch *o, struct db *db, const struct watch_spec *sp)
{
	struct watch_series_row *rows = NULL;
	size_t n = 0;
	int64_t now = now_ms();

	if (!sp->send || db_watch_series_unsent(db, sp->name, MAIL_TRIES, &rows, &n) < 0)
		return;
	for (size_t i = 0; i < n && !orch_stopping(o); i++) {
		char err[1024];
		int64_t again = 10 << rows[i].mail_tries;

		if (rows[i].next_try_at > now)
			continue;
		if (watch_mail_send(sp->smtp, sp->from, rows[i].submitter, sp->to, rows[i].mail_path,
				    sp->timeout_s, err, sizeof(err)) == 0) {
			db_watch_series_mailed(db, rows[i].id, NULL, 0);
			wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": reply mail sent "
			     "(%s)", rows[i].remote_id, rows[i].version, rows[i].mail_path);
			continue;
		}
		db_watch_series_mailed(db, rows[i].id, err, now + again * 1000);
		if (rows[i].mail_tries + 1 >= MAIL_TRIES)
			wlog(db, sp->name, "error", "series %" PRId64 ": reply mail not sent after %d "
			     "tries, given up (it stays in '%s'): %s", rows[i].remote_id, MAIL_TRIES,
			     rows[i].mail_path, err);
		else
			wlog(db, sp->name, "error", "series %" PRId64 ": reply mail not sent (again in "
			     "%" PRId64 " s): %s", rows[i].remote_id, again, err);
	}
	db_rows_free(db_watch_series_fields, rows, sizeof(*rows), n);
}

void watch_report(struct orch *o, struct db *db, const struct watch_spec *sp)
{
	static const char *const states[] = { "queued", "superseded", "error" };
	int64_t now = now_ms();

	for (size_t k = 0; k < 3; k++) {
		struct watch_series_row *rows = NULL;
		size_t n = 0;

		if (db_watch_series_list(db, sp->name, states[k], 64, &rows, &n) < 0) {
			log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
			return;
		}
		for (size_t i = 0; i < n && !orch_stopping(o); i++) {
			if (rows[i].verdict || rows[i].next_try_at > now)
				continue;
			/* a series kfleet could not take is reported only on patchwork */
			if (k == 2 && !sp->checks)
				continue;
			report_one(o, db, sp, &rows[i]);
		}
		db_rows_free(db_watch_series_fields, rows, sizeof(*rows), n);
	}
	send_due(o, db, sp);
	watch_kcidb_due(o, db, sp);
}
