// SPDX-License-Identifier: GPL-2.0-only
/* fetch.c: gets a patch series' mbox from the network for series.c: a URL
 * (http(s), .mbox or .mbox.gz), a message-id on a lore-style archive
 * (BASE/ID/t.mbox.gz) or a patchwork series (its REST API names the mbox).
 * libcurl with timeouts, a size cap, bounded redirects and TLS verified;
 * gzip bodies are inflated here, under the same cap. */
#include "kernels/kernels.h"

#include <ctype.h>
#include <curl/curl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common/redact.h"
#include "common/util.h"

#define FETCH_API_MAX (4u << 20)   /* a patchwork API answer */

/* "64 MiB", "512 KiB", "100 bytes" */
static void fmt_size(char *out, size_t n, size_t v)
{
	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(out, n, "%zu MiB", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(out, n, "%zu KiB", v >> 10);
	else
		snprintf(out, n, "%zu bytes", v);
}

static int is_http(const char *url)
{
	return !strncasecmp(url, "http://", 7) || !strncasecmp(url, "https://", 8);
}

struct sink {
	struct buf *b;
	size_t start;     /* b->len before this transfer */
	size_t max;
	int too_big;
};

static size_t on_data(char *p, size_t size, size_t nmemb, void *ud)
{
	struct sink *s = ud;
	size_t n = size * nmemb;

	if (s->b->len - s->start + n > s->max) {
		s->too_big = 1;
		return 0;
	}
	if (buf_append(s->b, p, n) < 0)
		return 0;
	return n;
}

/* GETs url into out (appending at most max bytes). */
static int get(const char *url, const struct fetch_opts *o, size_t max, const char *accept,
	       struct buf *out, char **err)
{
	char errbuf[CURL_ERROR_SIZE] = "", size[32];
	struct curl_slist *hdrs = NULL;
	struct sink s = { out, out->len, max, 0 };
	long connect_ms = o && o->connect_timeout_ms > 0 ? o->connect_timeout_ms :
			  FETCH_CONNECT_TIMEOUT_MS;
	long total_ms = o && o->timeout_ms > 0 ? o->timeout_ms : FETCH_TIMEOUT_MS;
	long status = 0;
	CURL *h = NULL;
	CURLcode rc;
	int ret = -1;

	fmt_size(size, sizeof(size), max);
	if (!is_http(url))
		return set_errf(err, "'%s': not an http(s) URL", url);
	h = curl_easy_init();
	if (!h)
		return set_errf(err, "'%s': cannot start libcurl", url);
	if (accept) {
		hdrs = curl_slist_append(NULL, accept);
		if (!hdrs) {
			set_errf(err, "'%s': out of memory", url);
			goto out;
		}
	}
	if (curl_easy_setopt(h, CURLOPT_URL, url) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https") != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_MAXREDIRS, FETCH_MAX_REDIRECTS) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, connect_ms) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, total_ms) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, "") != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_USERAGENT, "kfleet") != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_data) != CURLE_OK ||
	    curl_easy_setopt(h, CURLOPT_WRITEDATA, &s) != CURLE_OK) {
		set_errf(err, "'%s': this libcurl lacks an option kfleet needs", url);
		goto out;
	}
	rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
	if (s.too_big || rc == CURLE_FILESIZE_EXCEEDED) {
		set_errf(err, "'%s': larger than %s", url, size);
		goto out;
	}
	if (rc == CURLE_OPERATION_TIMEDOUT) {
		set_errf(err, "'%s': timed out: %s", url, errbuf[0] ? errbuf : "no answer in time");
		goto out;
	}
	if (rc == CURLE_TOO_MANY_REDIRECTS) {
		set_errf(err, "'%s': more than %ld redirects", url, FETCH_MAX_REDIRECTS);
		goto out;
	}
	if (rc != CURLE_OK) {
		set_errf(err, "'%s': %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		goto out;
	}
	if (status < 200 || status > 299) {
		char *eff = NULL;

		curl_easy_getinfo(h, CURLINFO_EFFECTIVE_URL, &eff);
		if (eff && strcmp(eff, url))
			set_errf(err, "'%s': HTTP %ld (from '%s')", url, status, eff);
		else
			set_errf(err, "'%s': HTTP %ld", url, status);
		goto out;
	}
	if (o && o->link_out) {
		struct curl_header *hh = NULL;

		*o->link_out = NULL;
		if (curl_easy_header(h, "Link", 0, CURLH_HEADER, -1, &hh) == CURLHE_OK && hh->value &&
		    !(*o->link_out = strdup(hh->value))) {
			set_errf(err, "'%s': out of memory", url);
			goto out;
		}
	}
	ret = 0;
out:
	if (ret < 0) {
		/* leave out as it was */
		out->len = s.start;
		if (out->data)
			out->data[out->len] = '\0';
	}
	curl_slist_free_all(hdrs);
	curl_easy_cleanup(h);
	return ret;
}

/* Inflates a gzip (or zlib) body in place of itself, at most max bytes;
 * several gzip members one after another are one stream (as gunzip). */
static int gunzip(const char *url, struct buf *b, size_t start, size_t max, char **err)
{
	struct buf o = BUF_INIT(0);
	unsigned char chunk[65536];
	char size[32];
	z_stream z;
	int zr, rc = -1, inited = 0;

	memset(&z, 0, sizeof(z));
	fmt_size(size, sizeof(size), max);
	if (inflateInit2(&z, 15 + 32) != Z_OK) {
		set_errf(err, "'%s': cannot start zlib", url);
		goto out;
	}
	inited = 1;
	z.next_in = (unsigned char *)b->data + start;
	z.avail_in = (uInt)(b->len - start);
	for (;;) {
		size_t got;

		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = inflate(&z, Z_NO_FLUSH);
		if (zr == Z_BUF_ERROR) {
			/* no input left and no end of stream */
			set_errf(err, "'%s': the gzip file is cut short", url);
			goto out;
		}
		if (zr != Z_OK && zr != Z_STREAM_END) {
			set_errf(err, "'%s': not a valid gzip file (%s)", url, z.msg ? z.msg : "corrupt");
			goto out;
		}
		got = sizeof(chunk) - z.avail_out;
		if (o.len + got > max) {
			set_errf(err, "'%s': larger than %s once inflated", url, size);
			goto out;
		}
		if (buf_append(&o, chunk, got) < 0) {
			set_errf(err, "'%s': out of memory", url);
			goto out;
		}
		if (zr == Z_STREAM_END) {
			/* another member may follow, or the zeros some servers pad with */
			while (z.avail_in && *z.next_in == 0) {
				z.next_in++;
				z.avail_in--;
			}
			if (!z.avail_in)
				break;
			if (inflateReset(&z) != Z_OK) {
				set_errf(err, "'%s': not a valid gzip file", url);
				goto out;
			}
		}
	}
	b->len = start;
	if (buf_append(b, o.data ? o.data : "", o.len) < 0) {
		set_errf(err, "'%s': out of memory", url);
		b->len = start;
		goto out;
	}
	rc = 0;
out:
	if (inited)
		inflateEnd(&z);
	buf_release(&o);
	return rc;
}

/* *err with the secrets of the URL it quotes masked (a password in its
 * userinfo, a token= in its query): it is shown on pages and stored */
static int masked(char **err)
{
	char *r = err && *err ? redact_secrets(*err) : NULL;

	if (r) {
		free(*err);
		*err = r;
	}
	return -1;
}

int fetch_url(const char *url, const struct fetch_opts *o, struct buf *out, char **err)
{
	size_t max = o && o->max_bytes ? o->max_bytes : SERIES_MBOX_MAX, start = out->len;

	if (err)
		*err = NULL;
	if (get(url, o, max, NULL, out, err) < 0)
		return masked(err);
	/* .mbox.gz, whatever the name or the Content-Type said */
	if (out->len - start >= 2 && (unsigned char)out->data[start] == 0x1f &&
	    (unsigned char)out->data[start + 1] == 0x8b) {
		if (gunzip(url, out, start, max, err) < 0) {
			out->len = start;
			if (out->data)
				out->data[start] = '\0';
			return masked(err);
		}
	}
	return 0;
}

char *fetch_link_next(const char *link)
{
	const char *p = link;

	/* <URL>; rel="next"; title="x", <URL>; rel=next */
	while (p && (p = strchr(p, '<'))) {
		const char *end = strchr(p, '>'), *params, *stop;

		if (!end)
			return NULL;
		params = end + 1;
		stop = strchr(params, '<');
		if (!stop)
			stop = params + strlen(params);
		for (const char *r = params; (r = strstr(r, "rel")) && r < stop; r += 3) {
			const char *v = r + 3;

			while (*v == ' ')
				v++;
			if (*v++ != '=')
				continue;
			while (*v == ' ' || *v == '"')
				v++;
			if (!strncasecmp(v, "next", 4) && strchr("\"; ,", v[4] ? v[4] : ' '))
				return strndup(p + 1, (size_t)(end - p - 1));
		}
		p = end;
	}
	return NULL;
}

/* ---- lore ---- */

/* The bare message-id of "<id>", "id:<id>", " id " */
static char *bare_msgid(const char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	if (!strncasecmp(s, "id:", 3))
		s += 3;
	while (isspace((unsigned char)*s) || *s == '<')
		s++;
	n = strlen(s);
	while (n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == '>'))
		n--;
	return strndup(s, n);
}

int fetch_msgid(const char *msgid, const struct fetch_opts *o, struct buf *out,
		char **url_out, char **err)
{
	const char *base = o && o->lore_base && *o->lore_base ? o->lore_base : NULL;
	const char *keep = "-._~@!$&'()*+,;=:";
	char *id = bare_msgid(msgid ? msgid : "");
	struct buf url = BUF_INIT(0);
	size_t blen;
	int rc = -1;

	if (err)
		*err = NULL;
	if (url_out)
		*url_out = NULL;
	if (!base)
		base = getenv("KFLEET_LORE_BASE");
	if (!base || !*base)
		base = FETCH_LORE_BASE;
	if (!id) {
		set_errf(err, "message-id: out of memory");
		goto out;
	}
	if (!*id || strlen(id) > 998) {
		set_errf(err, "message-id '%s': %s", msgid ? msgid : "", *id ? "too long" : "empty");
		goto out;
	}
	if (!is_http(base)) {
		set_errf(err, "lore base '%s': not an http(s) URL", base);
		goto out;
	}
	blen = strlen(base);
	while (blen && base[blen - 1] == '/')
		blen--;
	buf_append(&url, base, blen);
	buf_puts(&url, "/");
	for (const char *p = id; *p; p++) {
		unsigned char ch = (unsigned char)*p;

		if (isalnum(ch) || strchr(keep, ch))
			buf_append(&url, p, 1);
		else
			buf_printf(&url, "%%%02X", ch);
	}
	if (buf_puts(&url, "/t.mbox.gz") < 0) {
		set_errf(err, "message-id: out of memory");
		goto out;
	}
	if (fetch_url(buf_str(&url), o, out, err) < 0)
		goto out;
	if (url_out)
		*url_out = buf_detach(&url);
	rc = 0;
out:
	free(id);
	buf_release(&url);
	return rc;
}

/* ---- patchwork ---- */

/* Splits a patchwork reference into its instance's base URL and the series
 * id: BASE/ID, BASE/series/ID/, BASE/api[/1.3]/series/ID/, or a page with
 * ?series=ID (the base is what precedes /project/, else the origin). */
static int pw_split(const char *ref, char **base, char **id)
{
	const char *q = strstr(ref, "series="), *api = strstr(ref, "/api/"), *e;
	size_t n = strlen(ref);

	*base = *id = NULL;
	if (!is_http(ref))
		return -1;
	if (q && (q[-1] == '?' || q[-1] == '&')) {
		const char *host = strstr(ref, "://") + 3, *proj = strstr(ref, "/project/");
		const char *slash = strchr(host, '/');

		e = q + 7;
		*id = strndup(e, strspn(e, "0123456789"));
		if (proj)
			*base = strndup(ref, (size_t)(proj - ref));
		else
			*base = strndup(ref, slash ? (size_t)(slash - ref) : n);
	} else {
		const char *end = ref + n, *start;

		while (end > ref && end[-1] == '/')
			end--;
		start = end;
		while (start > ref && isdigit((unsigned char)start[-1]))
			start--;
		if (start == end || start[-1] != '/')
			return -1;
		*id = strndup(start, (size_t)(end - start));
		e = start - 1;           /* the '/' before the id */
		if (api)
			e = api;
		else if (e - ref >= 7 && !strncmp(e - 7, "/series", 7))
			e -= 7;
		*base = strndup(ref, (size_t)(e - ref));
	}
	if (!*base || !*id || !**id || strlen(*id) > 12 || !is_http(*base)) {
		free(*base);
		free(*id);
		*base = *id = NULL;
		return -1;
	}
	return 0;
}

int fetch_patchwork(const char *ref, const struct fetch_opts *o, struct buf *out,
		    char **url_out, char **err)
{
	struct buf body = BUF_INIT(0);
	char *base = NULL, *id = NULL, *api = NULL, *mbox = NULL;
	json_t *j = NULL, *m;
	json_error_t jerr;
	size_t blen;
	int rc = -1;

	if (err)
		*err = NULL;
	if (url_out)
		*url_out = NULL;
	if (pw_split(ref ? ref : "", &base, &id) < 0) {
		set_errf(err, "patchwork '%s': not BASE/ID, BASE/api/series/ID/ or a URL with "
			 "?series=ID", ref ? ref : "");
		goto out;
	}
	blen = strlen(base);
	while (blen && base[blen - 1] == '/')
		base[--blen] = '\0';
	if (asprintf(&api, "%s/api/series/%s/", base, id) < 0) {
		api = NULL;
		set_errf(err, "patchwork: out of memory");
		goto out;
	}
	if (get(api, o, FETCH_API_MAX, "Accept: application/json", &body, err) < 0)
		goto out;
	j = json_loadb(body.data ? body.data : "", body.len, 0, &jerr);
	if (!j || !json_is_object(j)) {
		set_errf(err, "'%s': not a patchwork series (%s)", api,
			 j ? "not a JSON object" : jerr.text);
		goto out;
	}
	m = json_object_get(j, "mbox");
	if (!json_is_string(m) || !is_http(json_string_value(m))) {
		set_errf(err, "'%s': no \"mbox\" URL in the answer", api);
		goto out;
	}
	mbox = strdup(json_string_value(m));
	if (!mbox) {
		set_errf(err, "patchwork: out of memory");
		goto out;
	}
	/* the series' mbox holds its patches only: the cover letter (and
	 * its base-commit) has an mbox of its own, which goes first */
	m = json_object_get(json_object_get(j, "cover_letter"), "mbox");
	if (json_is_string(m) && is_http(json_string_value(m)) &&
	    (fetch_url(json_string_value(m), o, out, err) < 0 || buf_append(out, "\n", 1) < 0))
		goto out;
	if (fetch_url(mbox, o, out, err) < 0)
		goto out;
	if (url_out) {
		*url_out = mbox;
		mbox = NULL;
	}
	rc = 0;
out:
	json_decref(j);
	buf_release(&body);
	free(base);
	free(id);
	free(api);
	free(mbox);
	return rc;
}
