/* watch.c: the watch poller, a thread of the orchestrator beside the
 * builder and decided.c. Each tick, for each watch: when its poll is due,
 * the patchwork project's series since the stored position are read
 * (watch_pw.c) and each new version is recorded, taken or skipped by the
 * rules (watch_spec.c); the ones taken are fetched and handed to the
 * series intake (orch_submit_series(), the path of `kfleet test`), a
 * newer version cancelling its older one's queued work; then what was
 * queued is reported (watch_report.c). Everything is in the database
 * (db/watches.c): a restart takes up where the last daemon stopped. */
#include "orchestrator/orchint.h"
#include "orchestrator/watch.h"
#include "orchestrator/watch_lore.h"
#include "orchestrator/watch_pw.h"
#include "orchestrator/watchint.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/redact.h"
#include "common/util.h"
#include "db/watches.h"
#include "kernels/kernels.h"

#define WATCH_TICK_S 1

struct watcher {
	pthread_t thread;
	struct db *db;
};

void wlog(struct db *db, const char *watch, const char *level, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* it quotes URLs and errors: their passwords are not logged nor stored */
	redact_secrets_in(text, sizeof(text));
	if (!strcmp(level, "error"))
		log_error("watch '%s': %s", watch, text);
	else if (!strcmp(level, "warn"))
		log_warn("watch '%s': %s", watch, text);
	else
		log_info("watch '%s': %s", watch, text);
	if (db_watch_log(db, watch, level, text) < 0)
		log_error("watch '%s': database: %s", watch, db_errmsg(db));
}

/* now as patchwork writes dates: "2026-12-02T13:37:07" (UTC) */
static void iso_now(char *out, size_t n, int64_t minus_s)
{
	time_t t = time(NULL) - minus_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* The date a little before d, so a series whose date is a few minutes
 * off the order of ids is not missed (ids taken are skipped anyway) */
static void since_of(const char *d, char *out, size_t n)
{
	struct tm tm;
	const char *end;
	time_t t;

	memset(&tm, 0, sizeof(tm));
	end = strptime(d, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end) {
		snprintf(out, n, "%s", d);
		return;
	}
	t = timegm(&tm) - WATCH_SINCE_SLACK_S;
	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* --- polling ------------------------------------------------------------ */

/* err (n bytes) prefixed with "'URL': " */
static void prefix_url(char *err, size_t n, const char *url)
{
	struct buf b = BUF_INIT(0);

	buf_printf(&b, "'%s': %s", url, err);
	snprintf(err, n, "%s", buf_str(&b));
	buf_release(&b);
}

static char *patches_json(const struct pw_series *s)
{
	json_t *a = json_array();
	char *out;

	for (size_t i = 0; i < s->npatches; i++)
		json_array_append_new(a, json_integer(s->patches[i]));
	out = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return out;
}

/* Seconds since a patchwork date ("2026-12-02T13:37:07", UTC); 0 when
 * it does not read as one */
static int64_t age_s(const char *d)
{
	struct tm tm;

	memset(&tm, 0, sizeof(tm));
	if (!d || !strptime(d, "%Y-%m-%dT%H:%M:%S", &tm))
		return 0;
	return (int64_t)time(NULL) - (int64_t)timegm(&tm);
}

/* Records one series of the list (skipped, saying skip, when skip is
 * set): 1 new, 0 seen already, -1 error */
static int record(struct db *db, const struct watch_spec *sp, const struct pw_series *s,
		  const char *skip)
{
	struct watch_series_row r;
	const char *tree, *branch;
	char why[512];
	int taken = watch_rules_match(sp, s->name, s->subject, &tree, &branch, why, sizeof(why));
	int rc;

	if (skip) {
		taken = 0;
		snprintf(why, sizeof(why), "%s", skip);
	}

	memset(&r, 0, sizeof(r));
	r.watch = sp->name;
	r.remote_id = s->id;
	r.msgid = s->msgid;
	r.version = s->version;
	r.name = s->name;
	r.subject = s->subject;
	r.submitter = s->submitter;
	r.web_url = s->web_url;
	r.mbox_url = s->mbox;
	r.patches = patches_json(s);
	r.state = taken ? "new" : "skipped";
	r.detail = why;
	rc = r.patches ? db_watch_series_add(db, &r) : -1;
	free(r.patches);
	if (rc < 0)
		return -1;
	if (rc == 1)
		return 0;
	if (s->id)
		wlog(db, sp->name, "info", "series %" PRId64 " v%d '%.200s' <%s>: %s%s", s->id,
		     s->version, s->subject ? s->subject : s->name, s->msgid,
		     taken ? "to take: " : "skipped: ", why);
	else
		wlog(db, sp->name, "info", "v%d '%.200s' <%s>: %s%s", s->version,
		     s->subject ? s->subject : s->name, s->msgid, taken ? "to take: " : "skipped: ",
		     why);
	return 1;
}

/* One series of a page: recorded, the position advanced past it unless
 * a series before it is still incomplete. 0, or -1 with err */
static int poll_one(struct db *db, const struct watch_spec *sp, const struct watch_row *w,
		    const struct pw_series *s, int64_t *position, int *hold, int *found,
		    char *err, size_t errn)
{
	int r;

	if (s->id <= w->position)
		return 0;
	if (!s->received_all && age_s(s->date) < WATCH_INCOMPLETE_S) {
		/* the rest of its patches are on their way: not past it */
		if (!*hold)
			log_debug("watch '%s': series %" PRId64 " is not complete yet", sp->name,
				  s->id);
		*hold = 1;
		return 0;
	}
	r = record(db, sp, s, s->received_all ? NULL : "not all its patches arrived within an hour");
	if (r < 0)
		return snprintf(err, errn, "database: %s", db_errmsg(db)), -1;
	*found += r;
	if (!*hold && s->id > *position) {
		*position = s->id;
		if (db_watch_advance(db, sp->name, *position, s->date) < 0)
			return snprintf(err, errn, "database: %s", db_errmsg(db)), -1;
	}
	return 0;
}

/* The page after this one: its Link: header's rel="next" when the answer
 * has one (patchwork's: a full last page has none, and the page after it
 * is a 404), which must be on the watch's patchwork; without a Link:
 * header, the next page number when this page was full. NULL when this
 * was the last; -1 with err when the link leads elsewhere. */
static int next_page(const struct watch_spec *sp, const char *since, int page, size_t n,
		     const char *link, char **next, char *err, size_t errn)
{
	size_t bl = strlen(sp->patchwork);

	*next = NULL;
	if (!link) {
		if (n >= WATCH_PER_PAGE && !(*next = pw_series_url(sp->patchwork, sp->project,
								     since, page + 1)))
			return snprintf(err, errn, "out of memory"), -1;
		return 0;
	}
	*next = fetch_link_next(link);
	while (bl && sp->patchwork[bl - 1] == '/')
		bl--;
	if (*next && (strncmp(*next, sp->patchwork, bl) || (*next)[bl] != '/')) {
		snprintf(err, errn, "its Link: header's next page '%.200s' is not on '%.200s'",
			 *next, sp->patchwork);
		free(*next);
		*next = NULL;
		return -1;
	}
	return 0;
}

/* How a watch asks its server's API: the watch's timeout, answers capped
 * at WATCH_API_MAX, the Link: header into *link when link is not NULL */
static struct fetch_opts api_opts(const struct watch_spec *sp, char **link)
{
	struct fetch_opts fo = { .connect_timeout_ms = sp->timeout_s * 1000L,
				 .timeout_ms = sp->timeout_s * 1000L, .max_bytes = WATCH_API_MAX,
				 .link_out = link };

	return fo;
}

/* The series patchwork completed since the last good poll (less the
 * slack), by its events API: patchwork's own time of receipt, where the
 * list's since is the mail's Date:, so a series sent with an old Date:
 * (a delayed mail, a clock off, a queue sent days later) that the list
 * never shows is found here. Each one not seen yet is fetched
 * (GET /api/1.2/series/ID/) and recorded as the list's would be; the
 * position is the list's and is not moved. A patchwork without the
 * events API (404) is no error. 0, or -1 with err */
static int poll_events(struct db *db, const struct watch_spec *sp, const struct watch_row *w,
		       int *found, char *err, size_t errn)
{
	char *link = NULL;
	struct fetch_opts fo = api_opts(sp, &link), one_fo = api_opts(sp, NULL);
	int64_t from = (w->last_ok_at ? w->last_ok_at : w->created_at) / 1000 - WATCH_SINCE_SLACK_S;
	char since[32], *url;
	struct tm tm;
	time_t t = (time_t)from;
	int rc = 0;

	gmtime_r(&t, &tm);
	strftime(since, sizeof(since), "%Y-%m-%dT%H:%M:%S", &tm);
	url = pw_events_url(sp->patchwork, sp->project, since, 1);
	if (!url)
		return snprintf(err, errn, "out of memory"), -1;
	for (int page = 1; rc == 0 && url && page <= WATCH_PAGES_MAX; page++) {
		struct buf body = BUF_INIT(0);
		int64_t *ids = NULL;
		char *e = NULL, *next = NULL;
		size_t n = 0;

		if (fetch_url(url, &fo, &body, &e) < 0) {
			if (!(e && strstr(e, "': HTTP 404")))
				snprintf(err, errn, "%s", e ? e : url), rc = -1;
			free(e);
			buf_release(&body);
			break;
		}
		free(e);
		e = NULL;
		if (pw_events_parse(body.data, body.len, &ids, &n, err, errn) < 0) {
			prefix_url(err, errn, url);
			rc = -1;
		}
		buf_release(&body);
		for (size_t i = 0; rc == 0 && i < n; i++) {
			struct buf one = BUF_INIT(0);
			struct pw_series *s = NULL;
			char *surl = NULL;
			int known = db_watch_series_known(db, sp->name, ids[i]), r;

			if (known != 0) {
				if (known < 0)
					snprintf(err, errn, "database: %s", db_errmsg(db)), rc = -1;
				continue;
			}
			if (asprintf(&surl, "%s/api/1.2/series/%" PRId64 "/", sp->patchwork, ids[i]) < 0)
				surl = NULL;
			if (!surl || fetch_url(surl, &one_fo, &one, &e) < 0) {
				snprintf(err, errn, "%s", e ? e : "out of memory");
				rc = -1;
			} else if (pw_series_parse_one(one.data, one.len, &s, err, errn) < 0) {
				prefix_url(err, errn, surl);
				rc = -1;
			} else if ((r = record(db, sp, s, NULL)) < 0) {
				snprintf(err, errn, "database: %s", db_errmsg(db));
				rc = -1;
			} else if (r) {
				*found += r;
				wlog(db, sp->name, "info", "series %" PRId64 ": found by patchwork's "
				     "series-completed event (its mail's Date: %s)", s->id,
				     s->date ? s->date : "?");
			}
			free(e);
			e = NULL;
			free(surl);
			buf_release(&one);
			pw_series_free(s, s ? 1 : 0);
		}
		free(ids);
		/* only a Link: header leads on (next_page() checks it is on the
		 * watch's patchwork): without one, it would guess a page of the
		 * series list */
		if (rc == 0 && link && next_page(sp, since, page, n, link, &next, err, errn) < 0) {
			prefix_url(err, errn, url);
			rc = -1;
		}
		free(link);
		link = NULL;
		free(url);
		url = next;
	}
	free(url);
	return rc;
}

/* One poll. 0, or -1 with err. *found: the new series versions seen */
static int poll_once(struct db *db, const struct watch_spec *sp, const struct watch_row *w,
		     int *found, char *err, size_t errn)
{
	char *link = NULL;
	struct fetch_opts fo = api_opts(sp, &link);
	int64_t position = w->position;
	char since[64], *url;
	int hold = 0, rc = 0;

	since_of(w->position_date, since, sizeof(since));
	url = pw_series_url(sp->patchwork, sp->project, since, 1);
	if (!url)
		return snprintf(err, errn, "out of memory"), -1;
	for (int page = 1; rc == 0 && url && page <= WATCH_PAGES_MAX; page++) {
		struct buf body = BUF_INIT(0);
		struct pw_series *list = NULL;
		char *e = NULL, *next = NULL;
		size_t n = 0;

		if (fetch_url(url, &fo, &body, &e) < 0) {
			snprintf(err, errn, "%s", e ? e : url);
			rc = -1;
		} else if (pw_series_parse(body.data, body.len, &list, &n, err, errn) < 0) {
			prefix_url(err, errn, url);
			rc = -1;
		}
		free(e);
		buf_release(&body);
		for (size_t i = 0; rc == 0 && i < n; i++)
			rc = poll_one(db, sp, w, &list[i], &position, &hold, found, err, errn);
		pw_series_free(list, n);
		if (rc == 0 && next_page(sp, since, page, n, link, &next, err, errn) < 0) {
			prefix_url(err, errn, url);
			rc = -1;
		}
		free(link);
		link = NULL;
		free(url);
		url = next;
	}
	free(url);
	return rc;
}

/* Whether the public-inbox at sp->lore exists (its config is served:
 * LIST/_/text/config/raw), for a feed that is a 404: an empty inbox's is
 * one, and so is a list that is not there */
static int lore_inbox_exists(const struct watch_spec *sp, const struct fetch_opts *fo)
{
	struct buf b = BUF_INIT(0);
	char *url = NULL, *e = NULL;
	int ok;

	if (asprintf(&url, "%s/_/text/config/raw", sp->lore) < 0)
		return 0;
	ok = fetch_url(url, fo, &b, &e) == 0;
	free(e);
	free(url);
	buf_release(&b);
	return ok;
}

#define LORE_FEED_ENTRIES 25   /* public-inbox's LIST/new.atom: its newest 25 messages */
#define LORE_SEARCH_PAGES 10
#define LORE_SEARCH_PAGE  200  /* results a page: public-inbox's most (SearchQuery.pm) */

/* Newest first, as the feed */
static int by_updated_desc(const void *a, const void *b)
{
	return strcmp(((const struct lore_entry *)b)->updated,
		      ((const struct lore_entry *)a)->updated);
}

/* The messages dated from from ("2026-12-02T13:37:07Z") on, through the
 * inbox's search as Atom (LIST/?q=dt:FROM..&x=A, 200 a page, the next
 * at o=OFFSET: public-inbox's own paging), appended to *e. 0 / -1 (err
 * says why: an inbox without a search index answers no Atom) */
static int lore_search(const struct watch_spec *sp, const struct fetch_opts *fo,
		       const char *from, struct lore_entry **e, size_t *n, char *err,
		       size_t errn)
{
	char dt[16] = "";
	size_t k = 0, off = 0;

	for (const char *p = from; *p && k < 14; p++)
		if (*p >= '0' && *p <= '9')
			dt[k++] = *p;
	if (k != 14)
		return snprintf(err, errn, "position '%.40s' is not a date", from), -1;
	for (int page = 0; page < LORE_SEARCH_PAGES; page++) {
		struct buf body = BUF_INIT(0);
		struct lore_entry *pe = NULL, *grown;
		char *url = NULL, *ferr = NULL;
		size_t pn = 0;
		int rc;

		if (asprintf(&url, "%s/?q=dt:%s..&x=A&l=%d&o=%zu", sp->lore, dt, LORE_SEARCH_PAGE,
			     off) < 0)
			return snprintf(err, errn, "out of memory"), -1;
		rc = fetch_url(url, fo, &body, &ferr);
		if (rc < 0)
			snprintf(err, errn, "%s", ferr ? ferr : url);
		else if ((rc = lore_feed_parse(body.data, body.len, &pe, &pn, err, errn)) < 0)
			prefix_url(err, errn, url);
		buf_release(&body);
		free(ferr);
		free(url);
		if (rc < 0)
			return -1;
		if (!pn) {
			free(pe);
			return 0;
		}
		grown = realloc(*e, (*n + pn + 1) * sizeof(**e));
		if (!grown) {
			lore_entries_free(pe, pn);
			return snprintf(err, errn, "out of memory"), -1;
		}
		*e = grown;
		memcpy(*e + *n, pe, pn * sizeof(*pe));
		*n += pn;
		free(pe);   /* its strings are *e's now */
		off += pn;
		if (pn < LORE_SEARCH_PAGE)
			return 0;   /* the last page (one past it is no Atom at all) */
	}
	return 0;
}

/* A lore list: its Atom feed; each message that starts a series, newer
 * than the position, recorded (one per message-id and version). The feed
 * holds the newest 25 messages: when all of them came after the position
 * (a busy list, a long series), the ones before may have been dropped
 * from it, and the inbox's search gives every message since the
 * position. 0 / -1 */
static int poll_lore(struct db *db, const struct watch_spec *sp, const struct watch_row *w,
		     int *found, char *err, size_t errn)
{
	struct fetch_opts fo = api_opts(sp, NULL);
	struct buf body = BUF_INIT(0);
	struct lore_entry *e = NULL;
	char *url = NULL, *ferr = NULL, newest[64] = "", oldest[64] = "";
	size_t n = 0;
	int rc = -1;

	if (asprintf(&url, "%s/new.atom", sp->lore) < 0) {
		url = NULL;
		goto out;
	}
	if (fetch_url(url, &fo, &body, &ferr) < 0) {
		/* an inbox with no message yet has no feed: 404, and nothing new */
		if (ferr && strstr(ferr, "': HTTP 404") && lore_inbox_exists(sp, &fo)) {
			rc = 0;
			goto out;
		}
		snprintf(err, errn, "%s", ferr ? ferr : url);
		goto out;
	}
	if (lore_feed_parse(body.data, body.len, &e, &n, err, errn) < 0) {
		prefix_url(err, errn, url);
		goto out;
	}
	for (size_t k = 0; k < n; k++)
		if (!*oldest || strcmp(e[k].updated, oldest) < 0)
			snprintf(oldest, sizeof(oldest), "%s", e[k].updated);
	if (n >= LORE_FEED_ENTRIES && *w->position_date && strcmp(oldest, w->position_date) > 0) {
		char serr[512] = "";
		size_t before = n;

		if (lore_search(sp, &fo, w->position_date, &e, &n, serr, sizeof(serr)) < 0)
			wlog(db, sp->name, "warn", "the feed's %zu messages all came after %s: the "
			     "ones before %s may be missed, as the inbox's search did not answer: %s",
			     before, w->position_date, oldest, serr);
		else
			wlog(db, sp->name, "info", "the feed's %zu messages all came after %s: the "
			     "inbox's search gave %zu since then", before, w->position_date,
			     n - before);
		qsort(e, n, sizeof(*e), by_updated_desc);
	}
	/* newest first: taken oldest first */
	for (size_t k = n; k-- > 0;) {
		struct pw_series s;
		char mbox[1200], *title;
		int r;

		if (strcmp(e[k].updated, w->position_date) < 0)
			continue;
		if (strcmp(e[k].updated, newest) > 0)
			snprintf(newest, sizeof(newest), "%s", e[k].updated);
		if (!e[k].starts_series)
			continue;
		memset(&s, 0, sizeof(s));
		title = e[k].subject + strspn(e[k].subject, " ");
		while (*title == '[' && strchr(title, ']'))
			title = strchr(title, ']') + 1 + strspn(strchr(title, ']') + 1, " ");
		snprintf(mbox, sizeof(mbox), "%s/%s/t.mbox.gz", sp->lore, e[k].msgid);
		s.version = e[k].version;
		s.name = title;
		s.subject = e[k].subject;
		s.msgid = e[k].msgid;
		s.submitter = e[k].author;
		s.mbox = mbox;
		s.web_url = mbox;
		r = record(db, sp, &s, NULL);
		if (r < 0) {
			snprintf(err, errn, "database: %s", db_errmsg(db));
			goto out;
		}
		*found += r;
	}
	if (*newest && db_watch_advance_date(db, sp->name, newest) < 0) {
		snprintf(err, errn, "database: %s", db_errmsg(db));
		goto out;
	}
	rc = 0;
out:
	lore_entries_free(e, n);
	buf_release(&body);
	free(ferr);
	free(url);
	return rc;
}

static void poll_watch(struct db *db, const struct watch_spec *sp, const struct watch_row *w)
{
	char err[1024] = "";
	int found = 0, rc = sp->lore ? poll_lore(db, sp, w, &found, err, sizeof(err)) :
			poll_once(db, sp, w, &found, err, sizeof(err));

	if (rc == 0 && !sp->lore)
		rc = poll_events(db, sp, w, &found, err, sizeof(err));
	int64_t wait_s = sp->interval_s;

	if (rc < 0) {
		/* stored and shown: the patchwork URL's password is not */
		redact_secrets_in(err, sizeof(err));
		/* the interval doubled for each failure in a row, up to an hour */
		for (int64_t i = 0; i <= w->failing && wait_s < WATCH_BACKOFF_MAX; i++)
			wait_s *= 2;
		if (wait_s > WATCH_BACKOFF_MAX)
			wait_s = WATCH_BACKOFF_MAX;
		wlog(db, sp->name, "error", "poll failed (%" PRId64 " in a row; next in %" PRId64
		     " s): %s", w->failing + 1, wait_s, err);
	}
	if (db_watch_polled(db, sp->name, rc == 0, rc < 0 ? err : NULL,
			    now_ms() + wait_s * 1000, found, 0) < 0)
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
}

/* --- taking a series ---------------------------------------------------- */

/* Older versions of s still queued: their queued work canceled, each
 * saying by what */
static void supersede(struct db *db, const struct watch_spec *sp, const struct watch_series_row *s,
		      int64_t submission_id)
{
	struct watch_series_row *old = NULL;
	size_t n = 0;

	if (db_watch_series_older(db, sp->name, s->submitter, s->version, &old, &n) < 0) {
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char why[512];
		int canceled = 0;

		/* the same series: its title, whatever its tags say of its version */
		if (strcmp(watch_series_title(old[i].name), watch_series_title(s->name)))
			continue;
		snprintf(why, sizeof(why), "superseded by v%" PRId64 " (patchwork series %" PRId64
			 ", submission %" PRId64 ") of watch '%s'", s->version, s->remote_id,
			 submission_id, sp->name);
		if (old[i].submission_id)
			canceled = db_watch_cancel_submission(db, old[i].submission_id, why);
		if (canceled < 0 ||
		    db_watch_series_superseded(db, old[i].id, s->id, why) < 0) {
			log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
			continue;
		}
		wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": %s: %d queued run%s "
		     "canceled", old[i].remote_id, old[i].version, why, canceled,
		     canceled == 1 ? "" : "s");
	}
	db_rows_free(db_watch_series_fields, old, sizeof(*old), n);
}

/* A try that failed for a reason that may pass (the network): again
 * later, until WATCH_TRIES_MAX */
static void take_failed(struct db *db, const struct watch_spec *sp,
			const struct watch_series_row *s, const char *err)
{
	char d[1024];

	if (s->tries + 1 >= WATCH_TRIES_MAX) {
		snprintf(d, sizeof(d), "not taken after %d tries: %s", WATCH_TRIES_MAX, err);
		redact_secrets_in(d, sizeof(d));
		db_watch_series_state(db, s->id, "error", d);
		wlog(db, sp->name, "error", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, d);
		return;
	}
	snprintf(d, sizeof(d), "try %" PRId64 " failed: %s", s->tries + 1, err);
	redact_secrets_in(d, sizeof(d));
	db_watch_series_retry(db, s->id, d, now_ms() + (int64_t)(5 << s->tries) * 1000);
	wlog(db, sp->name, "warn", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id, s->version,
	     d);
}

/* A lore thread whose patches are not all in yet (a list delivers a
 * series' mails one by one, minutes apart at times): looked at again at
 * each poll (at most a minute apart), tries not counted, for up to
 * WATCH_PATCHES_WAIT_S from when it was first seen, as patchwork's
 * received_all is waited for; then skipped, saying which are missing */
static void wait_for_patches(struct db *db, const struct watch_spec *sp,
			     const struct watch_series_row *s, const char *err)
{
	int64_t waited = (now_ms() - s->seen_at) / 1000;
	int64_t again = sp->interval_s < 60 ? sp->interval_s : 60;
	char d[1024];

	if (waited >= WATCH_PATCHES_WAIT_S) {
		snprintf(d, sizeof(d), "not all its patches arrived within an hour: %s", err);
		redact_secrets_in(d, sizeof(d));
		db_watch_series_state(db, s->id, "skipped", d);
		wlog(db, sp->name, "warn", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, d);
		return;
	}
	snprintf(d, sizeof(d), "waiting for its patches (up to an hour from when it was seen): %s",
		 err);
	redact_secrets_in(d, sizeof(d));
	if (!s->detail || strncmp(s->detail, "waiting for its patches", 23))
		wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, d);
	db_watch_series_wait(db, s->id, d, now_ms() + again * 1000);
}

static void take_one(struct orch *o, struct db *db, const struct watch_spec *sp,
		     const struct watch_series_row *s)
{
	struct fetch_opts fo = { .connect_timeout_ms = sp->timeout_s * 1000L,
				 .timeout_ms = sp->timeout_s * 4000L };
	struct buf mbox = BUF_INIT(0);
	struct series *ser = NULL;
	struct submit_spec ss;
	const char *tree, *branch;
	char why[512], hash[65], *e = NULL, *path = NULL, *ref = NULL;
	int64_t id = 0;
	int rc;

	fo.lore_base = sp->lore;
	/* patchwork: through the series' API answer, for its cover letter */
	if (!sp->lore && asprintf(&ref, "%s/%" PRId64, sp->patchwork, s->remote_id) < 0)
		ref = NULL;
	if ((sp->lore ? fetch_msgid(s->msgid, &fo, &mbox, NULL, &e) :
	     fetch_patchwork(ref ? ref : "", &fo, &mbox, NULL, &e)) < 0) {
		take_failed(db, sp, s, e ? e : s->mbox_url);
		goto out;
	}
	/* the intake parses it again; here: what base it names */
	rc = series_parse_mem(s->mbox_url, mbox.data ? mbox.data : "", mbox.len, &ser, &e);
	if (rc == SERIES_INCOMPLETE && sp->lore) {
		wait_for_patches(db, sp, s, e ? e : "patches are missing");
		goto out;
	} else if (rc < 0 && sp->lore) {
		take_failed(db, sp, s, e ? e : "not a series");
		goto out;
	} else if (!ser) {
		db_watch_series_state(db, s->id, "error", e);
		wlog(db, sp->name, "error", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, e ? e : "not a series");
		goto out;
	}
	watch_rules_match(sp, s->name, s->subject, &tree, &branch, why, sizeof(why));
	if (!tree) {
		db_watch_series_state(db, s->id, "skipped", why);
		goto out;
	}
	/* a submission made for it before the daemon stopped is it */
	sha256_mem(mbox.data, mbox.len, hash);
	if (asprintf(&path, "%s/series/%.16s.mbox", o->state_dir, hash) < 0)
		path = NULL;
	if (path && db_watch_find_submission(db, path, s->seen_at, &id) == 1) {
		log_info("watch '%s': series %" PRId64 ": submission %" PRId64 " was made for it "
			 "already", sp->name, s->remote_id, id);
	} else {
		memset(&ss, 0, sizeof(ss));
		ss.tree = tree;
		ss.mbox = mbox.data;
		ss.mbox_len = mbox.len;
		ss.mbox_name = s->mbox_url;
		ss.base = ser->base_commit ? NULL : branch;
		ss.arches = sp->arches;
		ss.jobs = sp->jobs;
		ss.vcpus = sp->vcpus;
		ss.repeat = sp->repeat;
		ss.watch = sp->name;
		free(e);
		e = NULL;
		rc = orch_submit_series(o, &ss, &id, &e);
		if (rc == -2) {
			take_failed(db, sp, s, e ? e : "internal error");
			goto out;
		}
		if (rc < 0) {
			db_watch_series_state(db, s->id, "error", e);
			wlog(db, sp->name, "error", "series %" PRId64 " v%" PRId64 ": not queued: %s",
			     s->remote_id, s->version, e ? e : "?");
			goto out;
		}
	}
	if (ser->base_commit)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; base-commit %.12s from %s",
			 ser->base_commit, ser->base_commit_from ? ser->base_commit_from : "the series");
	if (db_watch_series_queued(db, s->id, id, tree, ser->base_commit ? ser->base_commit :
				   branch, ser->cover ? ser->cover->subject : ser->count ?
				   ser->patches[0].subject : NULL, why) < 0 || db_watch_count_queued(db, sp->name, 1) < 0) {
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
		goto out;
	}
	wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": queued as submission %" PRId64
	     " (%s)", s->remote_id, s->version, id, why);
	supersede(db, sp, s, id);
out:
	free(ref);
	free(path);
	free(e);
	series_free(ser);
	buf_release(&mbox);
}

static void take_new(struct orch *o, struct db *db, const struct watch_spec *sp)
{
	struct watch_series_row *rows = NULL;
	size_t n = 0;
	int64_t now = now_ms();

	if (db_watch_series_list(db, sp->name, "new", 8, &rows, &n) < 0) {
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
		return;
	}
	for (size_t i = 0; i < n && !orch_stopping(o); i++)
		if (rows[i].next_try_at <= now)
			take_one(o, db, sp, &rows[i]);
	db_rows_free(db_watch_series_fields, rows, sizeof(*rows), n);
}

/* --- the thread ---------------------------------------------------------- */

int orch_stopping(struct orch *o)
{
	int s;

	pthread_mutex_lock(&o->lock);
	s = o->stopping;
	pthread_mutex_unlock(&o->lock);
	return s;
}

static void tick(struct orch *o, struct db *db)
{
	struct watch_row *ws = NULL;
	size_t n = 0;

	if (db_watch_list(db, &ws, &n) < 0) {
		log_error("watches: database: %s", db_errmsg(db));
		return;
	}
	for (size_t i = 0; i < n && !orch_stopping(o); i++) {
		struct watch_spec sp;
		json_t *j = json_loads(ws[i].spec, 0, NULL);
		char msg[512];

		if (watch_spec_parse(ws[i].name, j, &sp, msg, sizeof(msg)) < 0) {
			if (!ws[i].last_error || strcmp(ws[i].last_error, msg)) {
				wlog(db, ws[i].name, "error", "spec: %s", msg);
				db_watch_polled(db, ws[i].name, 0, msg, now_ms() + 3600000, 0, 0);
			}
		} else {
			if (ws[i].next_poll_at <= now_ms())
				poll_watch(db, &sp, &ws[i]);
			take_new(o, db, &sp);
			watch_report(o, db, &sp);
		}
		watch_spec_release(&sp);
		json_decref(j);
	}
	db_rows_free(db_watch_fields, ws, sizeof(*ws), n);
}

static void *watcher_main(void *arg)
{
	struct orch *o = arg;
	struct db *db = o->watcher->db;

	while (!orch_stopping(o)) {
		struct timespec ts;

		tick(o, db);
		pthread_mutex_lock(&o->lock);
		if (!o->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += WATCH_TICK_S;
			pthread_cond_timedwait(&o->build_work, &o->lock, &ts);
		}
		pthread_mutex_unlock(&o->lock);
	}
	return NULL;
}

/* The [watch] sections into the database: added, their specs updated,
 * the ones gone from the config removed */
static void sync_config(struct orch *o, struct db *db)
{
	const struct config *c = o->conf;
	const char **names = calloc(c->nwatches + 1, sizeof(*names));
	char now[32];

	iso_now(now, sizeof(now), 0);
	for (size_t i = 0; names && i < c->nwatches; i++) {
		const struct config_watch *cw = &c->watches[i];
		json_t *j = watch_spec_json((const char *const *)cw->keys,
					    (const char *const *)cw->values, cw->n);
		const char *since = json_string_value(json_object_get(j, "since"));
		char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		int rc = s ? db_watch_sync_config(db, cw->name, s, since ? since : now) : -1;

		if (rc < 0)
			log_error("watch '%s': database: %s", cw->name, db_errmsg(db));
		else if (rc == 1)
			log_error("watch '%s': [watch %s] in the config, but `kfleet watch add` made "
				  "one of that name: the config's is left out (kfleet watch rm %s)",
				  cw->name, cw->name, cw->name);
		names[i] = cw->name;
		free(s);
		json_decref(j);
	}
	if (names && db_watch_drop_config_except(db, names, c->nwatches) < 0)
		log_error("watches: database: %s", db_errmsg(db));
	free(names);
}

int watcher_start(struct orch *o)
{
	char *err = NULL;

	o->watcher = calloc(1, sizeof(*o->watcher));
	if (!o->watcher)
		return -1;
	o->watcher->db = db_open(o->db_path, &err);
	if (!o->watcher->db) {
		log_error("watches: %s", err ? err : "cannot open the database");
		free(err);
		free(o->watcher);
		o->watcher = NULL;
		return -1;
	}
	sync_config(o, o->watcher->db);
	if (pthread_create(&o->watcher->thread, NULL, watcher_main, o) != 0) {
		db_close(o->watcher->db);
		free(o->watcher);
		o->watcher = NULL;
		return -1;
	}
	return 0;
}

void watcher_stop(struct orch *o)
{
	if (!o->watcher)
		return;
	orch_ask_stop(o);
	pthread_join(o->watcher->thread, NULL);
	db_close(o->watcher->db);
	free(o->watcher);
	o->watcher = NULL;
}

/* --- kfleet watch add / rm ------------------------------------------------ */

int orch_watch_add(struct orch *o, const char *name, const json_t *spec, char **err)
{
	struct watch_spec sp;
	char msg[512], now[32], *s;
	const char *since = json_string_value(json_object_get(spec, "since"));
	int rc;

	*err = NULL;
	rc = watch_spec_parse(name, spec, &sp, msg, sizeof(msg));
	watch_spec_release(&sp);
	if (rc < 0)
		return set_errf(err, "%s", msg);
	iso_now(now, sizeof(now), 0);
	s = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
	if (!s)
		return set_errf(err, "out of memory"), -2;
	pthread_mutex_lock(&o->db_lock);
	rc = db_watch_add(o->db, name, s, since ? since : now);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	free(s);
	if (rc < 0)
		return -2;
	if (rc == 1)
		return set_errf(err, "watch '%s': exists already (kfleet watch rm %s first)", name,
				name);
	log_info("watch '%s': added", name);
	orch_wake(o, &o->build_work, 1);
	return 0;
}

int orch_watch_remove(struct orch *o, const char *name, char **err)
{
	int rc;

	*err = NULL;
	pthread_mutex_lock(&o->db_lock);
	rc = db_watch_remove(o->db, name);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0)
		return -2;
	if (rc == 0)
		return set_errf(err, "watch '%.80s': no such watch (kfleet watch list)", name);
	if (rc == 2)
		return set_errf(err, "watch '%s': it is a [watch %s] section of the config: remove "
				"it there and restart kfleetd", name, name);
	log_info("watch '%s': removed", name);
	return 0;
}

void orch_set_url(struct orch *o, const char *url)
{
	snprintf(o->url, sizeof(o->url), "%s", url);
}
