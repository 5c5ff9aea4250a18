/* watch_kcidb.c: a watch's KCIDB export (kcidb = file | DIR | URL): once a
 * series is reported (watch_report.c), the checkouts, builds and tests of
 * its submission (export/kcidb.c) are written to a file in report_dir (or
 * DIR), or POSTed as JSON to URL with libcurl. A POST that fails (refused,
 * not 2xx, slower than the watch's timeout) is logged, kept on the
 * series for /watches and tried again 10, 20, 40... s later, 6 times. */
#include "orchestrator/orchint.h"
#include "orchestrator/watch.h"
#include "orchestrator/watchint.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"
#include "db/watches.h"
#include "export/kcidb.h"

#define KCIDB_TRIES 6
#define ANSWER_MAX  (64 * 1024)   /* of the receiver's answer: only quoted */

static size_t sink(char *p, size_t size, size_t nmemb, void *ud)
{
	struct buf *b = ud;
	size_t n = size * nmemb;

	if (b->len + n > ANSWER_MAX)
		return 0;
	return buf_append(b, p, n) < 0 ? 0 : n;
}

/* POSTs body to url: 0, or -1 with err ("'URL': HTTP 500: ...") */
static int post(const char *url, const char *body, long timeout_s, char *err, size_t errn)
{
	char cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = NULL;
	struct buf ans = BUF_INIT(0);
	CURL *c = curl_easy_init();
	long status = 0;
	CURLcode rc;
	int ret = -1;

	if (!c)
		return snprintf(err, errn, "cannot start libcurl"), -1;
	h = curl_slist_append(h, "Content-Type: application/json");
	if (!h || curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, timeout_s) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_TIMEOUT, timeout_s) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_USERAGENT, "kfleet") != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, sink) != CURLE_OK ||
	    curl_easy_setopt(c, CURLOPT_WRITEDATA, &ans) != CURLE_OK) {
		snprintf(err, errn, "'%s': libcurl lacks an option kfleet needs", url);
		goto out;
	}
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
		snprintf(err, errn, "'%s': %s", url, cerr[0] ? cerr : curl_easy_strerror(rc));
		goto out;
	}
	if (status < 200 || status > 299) {
		snprintf(err, errn, "'%s': HTTP %ld%s%.200s", url, status, ans.len ? ": " : "",
			 buf_str(&ans));
		for (char *p = err; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		goto out;
	}
	ret = 0;
out:
	buf_release(&ans);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}

static int is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

/* One series' export: 0 done, -1 (err says why) */
static int export_one(struct orch *o, struct db *db, const struct watch_spec *sp,
		      const struct watch_series_row *s, char **path, char *err, size_t n)
{
	struct kcidb_opts ko = { o->conf->kcidb_origin, sp->link_base ? sp->link_base : o->url, 0,
				 s->submission_id };
	const char *dir = !strcmp(sp->kcidb, "file") ? sp->report_dir : sp->kcidb;
	json_t *j = kcidb_export(db, &ko, err, n);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	int rc = -1;

	*path = NULL;
	if (!j)
		goto out;
	if (!text) {
		snprintf(err, n, "out of memory");
	} else if (is_url(sp->kcidb)) {
		rc = post(sp->kcidb, text, sp->timeout_s, err, n);
	} else if (mkdir_p(dir, 0755) < 0 ||
		   asprintf(path, "%s/%s-%s%" PRId64 "-v%" PRId64 ".kcidb.json", dir, sp->name,
			    s->remote_id ? "" : "m", s->remote_id ? s->remote_id : s->id,
			    s->version) < 0 || write_file(*path, text, strlen(text), 0644) < 0) {
		snprintf(err, n, "'%s': %s", dir, strerror(errno));
	} else {
		rc = 0;
	}
	if (rc < 0) {
		free(*path);
		*path = NULL;
	}
out:
	free(text);
	json_decref(j);
	return rc;
}

void watch_kcidb_due(struct orch *o, struct db *db, const struct watch_spec *sp)
{
	struct watch_series_row *rows = NULL;
	size_t n = 0;

	if (!sp->kcidb || db_watch_series_kcidb_due(db, sp->name, KCIDB_TRIES, &rows, &n) < 0)
		return;
	for (size_t i = 0; i < n && !orch_stopping(o); i++) {
		const struct watch_series_row *s = &rows[i];
		int64_t again = 10LL << s->kcidb_tries;
		char err[1024], *path = NULL;

		if (export_one(o, db, sp, s, &path, err, sizeof(err)) == 0) {
			db_watch_series_kcidb(db, s->id, path, NULL, 0);
			wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": KCIDB export %s%s",
			     s->remote_id, s->version, path ? "written to " : "posted to ",
			     path ? path : sp->kcidb);
		} else {
			db_watch_series_kcidb(db, s->id, NULL, err, now_ms() + again * 1000);
			if (s->kcidb_tries + 1 >= KCIDB_TRIES)
				wlog(db, sp->name, "error", "series %" PRId64 ": KCIDB export not sent "
				     "after %d tries, given up: %s", s->remote_id, KCIDB_TRIES, err);
			else
				wlog(db, sp->name, "error", "series %" PRId64 ": KCIDB export not sent "
				     "(again in %" PRId64 " s): %s", s->remote_id, again, err);
		}
		free(path);
	}
	db_rows_free(db_watch_series_fields, rows, sizeof(*rows), n);
}
