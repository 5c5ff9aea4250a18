// SPDX-License-Identifier: GPL-2.0-only
/* poll.c: one poll of a watch (watch.c's tick calls poll_watch() when it
 * is due): the patchwork project's series since the stored position, with
 * its series-completed events for the late ones, or the public-inbox
 * list's Atom feed (its search when the feed has no room for all that is
 * new); each new series version recorded as seen, the position moved on.
 * Taking what was seen is watch.c's. */
#include "orchestrator/orchint.h"
#include "watch/watch.h"
#include "watch/lore.h"
#include "watch/pw.h"
#include "watch/watchint.h"

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

void poll_watch(struct db *db, const struct watch_spec *sp, const struct watch_row *w)
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
