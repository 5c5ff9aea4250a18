// SPDX-License-Identifier: GPL-2.0-only
/* watch/http.c: the watches' one HTTP POST of a JSON body, with libcurl:
 * a patchwork check (watch/pw.c) and a KCIDB export (watch/kcidb.c) go
 * out through it, http and https only, within the watch's timeout, the
 * receiver's answer bounded and quoted in the error when it is not 2xx.
 * (GETs go through kernels/fetch.c's fetch_url(), the series intake's.)
 * And the token such a call sends, read from its file. */
#include "watch/pw.h"
#include "watch/watchint.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/redact.h"
#include "common/util.h"

#define ANSWER_MAX (64 * 1024)   /* of the receiver's answer: only quoted */

static size_t sink(char *p, size_t size, size_t nmemb, void *ud)
{
	struct buf *b = ud;
	size_t n = size * nmemb;

	if (b->len + n > ANSWER_MAX)
		return 0;
	return buf_append(b, p, n) < 0 ? 0 : n;
}

int watch_http_post_json(const char *url, const char *header, const char *body,
			 long timeout_s, long *status, char *err, size_t errn)
{
	const char *lines[] = { header, "Content-Type: application/json",
				"Accept: application/json" };
	char cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = NULL;
	struct buf ans = BUF_INIT(0);
	CURL *c = curl_easy_init();
	CURLcode rc;
	int ret = -1;

	*status = 0;
	if (!c)
		return snprintf(err, errn, "cannot start libcurl"), -1;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct curl_slist *t;

		if (!lines[i])
			continue;
		t = curl_slist_append(h, lines[i]);

		if (!t) {
			snprintf(err, errn, "out of memory");
			goto out;
		}
		h = t;
	}
	if (curl_easy_setopt(c, CURLOPT_URL, url) != CURLE_OK ||
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
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, status);
	if (rc != CURLE_OK && rc != CURLE_WRITE_ERROR) {
		snprintf(err, errn, "'%s': %s", url, cerr[0] ? cerr : curl_easy_strerror(rc));
		goto out;
	}
	if (*status < 200 || *status > 299) {
		const char *a = buf_str(&ans);

		snprintf(err, errn, "'%s': HTTP %ld%s%.200s", url, *status, *a ? ": " : "", a);
		for (char *p = err; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
		goto out;
	}
	ret = 0;
out:
	if (ret < 0)
		redact_secrets_in(err, errn);   /* the URL's password: err is shown */
	buf_release(&ans);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return ret;
}

char *watch_token_file(const char *key, const char *path, char *err, size_t n)
{
	struct buf b = BUF_INIT(4096);
	char *t;

	if (!path || read_file(path, &b, 4096) < 0) {
		snprintf(err, n, "%s '%s': %s", key, path ? path : "", strerror(errno));
		buf_release(&b);
		return NULL;
	}
	t = buf_detach(&b);
	if (t)
		t[strcspn(t, "\r\n")] = '\0';
	if (!t || !*t) {
		snprintf(err, n, "%s '%s': empty", key, path);
		free(t);
		return NULL;
	}
	/* it goes into an HTTP header: no blank, no control byte */
	for (const char *q = t; *q; q++)
		if ((unsigned char)*q <= ' ' || *q == 0x7f) {
			snprintf(err, n, "%s '%s': byte %d of its first line (0x%02x) cannot be in "
				 "a token", key, path, (int)(q - t) + 1, (unsigned char)*q);
			free(t);
			return NULL;
		}
	return t;
}
