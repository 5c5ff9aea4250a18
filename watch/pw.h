/* SPDX-License-Identifier: GPL-2.0-only */
/* watch/pw.h: patchwork's REST API (v1.2) as a watch uses it: the list
 * of a project's series since a date (watch/pw.c reads the answer into
 * struct pw_series, refusing what is not patchwork's shape), and a check
 * posted on a patch with the watch's token; the POST they and the KCIDB
 * export share. Private to the watch files. */
#ifndef KF_WATCH_PW_H
#define KF_WATCH_PW_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct pw_series {
	int64_t id;
	int version;
	int received_all;
	char *name;               /* the series' name */
	char *date;               /* as given: "2026-12-02T13:37:07" */
	char *msgid;              /* the cover letter's, else patch 1's, without <> */
	char *subject;            /* the cover letter's, else patch 1's name (tags in) */
	char *submitter;          /* "Name <email>" */
	char *web_url, *mbox;
	int64_t *patches;         /* the patch ids, in order */
	size_t npatches;
};

/* The URL of page (from 1) of the project's series since date, oldest
 * first; caller frees */
char *pw_series_url(const char *base, const char *project, const char *since, int page);
/* One page of the list into *out (n of them; free with pw_series_free()).
 * -1 with err ("not JSON: ...", "series 3: no 'mbox'") when the answer is
 * not patchwork's shape. */
int pw_series_parse(const char *data, size_t len, struct pw_series **out, size_t *n,
		    char *err, size_t errn);
void pw_series_free(struct pw_series *s, size_t n);
/* One series (GET /api/1.2/series/ID/) into *out (free with
 * pw_series_free(*out, 1)); -1 with err as above */
int pw_series_parse_one(const char *data, size_t len, struct pw_series **out, char *err,
			size_t errn);
/* The URL of page (from 1) of the project's series-completed events since
 * date (patchwork's time of receipt, not the mail's Date:), oldest first;
 * caller frees */
char *pw_events_url(const char *base, const char *project, const char *since, int page);
/* The series ids of a page of events (the series-completed ones) into
 * *ids (caller frees); -1 with err when it is not patchwork's shape */
int pw_events_parse(const char *data, size_t len, int64_t **ids, size_t *n, char *err,
		    size_t errn);

/* The JSON body of a check; caller frees */
char *pw_check_body(const char *state, const char *target_url, const char *description,
		    const char *context);
/* POSTs a check (body from pw_check_body()) to BASE/api/1.2/patches/ID/checks/
 * with "Authorization: Token TOKEN". 0 when the answer is 2xx; -1 with
 * err (the HTTP status in *status, 0 when there was no answer) */
int pw_post_check(const char *base, int64_t patch_id, const char *token, const char *body,
		  long timeout_s, long *status, char *err, size_t errn);

/* POSTs body (JSON) to url with header (a whole header line such as
 * "Authorization: Token T", or NULL) besides the JSON ones, within
 * timeout_s. 0 when the answer is 2xx; -1 with err ("'URL': HTTP 500:
 * ANSWER", "'URL': Connection refused"), the status in *status (0 when
 * there was no answer). watch/http.c */
int watch_http_post_json(const char *url, const char *header, const char *body,
			 long timeout_s, long *status, char *err, size_t errn);

#endif
