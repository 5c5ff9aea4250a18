// SPDX-License-Identifier: GPL-2.0-only
/* watch/pw.c: patchwork's REST shapes for the watch poller: reads a page
 * of GET /api/1.2/series/ (fetched by kernels/fetch.c's fetch_url(), the
 * series intake's own client, under the watch's size cap and timeout),
 * and posts a check (POST /api/1.2/patches/ID/checks/, "Authorization:
 * Token ...") through watch/http.c. */
#include "watch/pw.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "watch/watch.h"

static void urlenc(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("-._~", *p))
			buf_append(b, p, 1);
		else
			buf_printf(b, "%%%02X", *p);
}

char *pw_series_url(const char *base, const char *project, const char *since, int page)
{
	struct buf b = BUF_INIT(0);

	buf_printf(&b, "%s/api/1.2/series/?project=", base);
	urlenc(&b, project);
	if (since && *since) {
		buf_puts(&b, "&since=");
		urlenc(&b, since);
	}
	buf_printf(&b, "&order=id&per_page=%d&page=%d", WATCH_PER_PAGE, page);
	return buf_detach(&b);
}

static char *str(const json_t *o, const char *k)
{
	const char *v = json_string_value(json_object_get(o, k));

	return v ? strdup(v) : NULL;
}

/* "<id>" -> "id" */
static char *bare(const char *m)
{
	size_t n;

	if (!m)
		return NULL;
	while (*m == '<' || *m == ' ')
		m++;
	n = strlen(m);
	while (n && (m[n - 1] == '>' || m[n - 1] == ' '))
		n--;
	return strndup(m, n);
}

char *pw_events_url(const char *base, const char *project, const char *since, int page)
{
	struct buf b = BUF_INIT(0);

	buf_printf(&b, "%s/api/1.2/events/?project=", base);
	urlenc(&b, project);
	buf_puts(&b, "&category=series-completed");
	if (since && *since) {
		buf_puts(&b, "&since=");
		urlenc(&b, since);
	}
	buf_printf(&b, "&order=date&per_page=%d&page=%d", WATCH_PER_PAGE, page);
	return buf_detach(&b);
}

int pw_events_parse(const char *data, size_t len, int64_t **ids, size_t *n, char *err,
		    size_t errn)
{
	json_error_t je;
	json_t *j = json_loadb(data ? data : "", len, 0, &je), *e;
	size_t i;

	*ids = NULL;
	*n = 0;
	if (!j)
		return snprintf(err, errn, "not JSON: %s (line %d)", je.text, je.line), -1;
	if (!json_is_array(j)) {
		json_decref(j);
		return snprintf(err, errn, "not a list of events"), -1;
	}
	*ids = calloc(json_array_size(j) + 1, sizeof(**ids));
	if (!*ids) {
		json_decref(j);
		return snprintf(err, errn, "out of memory"), -1;
	}
	json_array_foreach(j, i, e) {
		const json_t *id = json_object_get(json_object_get(json_object_get(e, "payload"),
								   "series"), "id");
		const char *cat = json_string_value(json_object_get(e, "category"));

		if (!json_is_object(e) || !cat || !json_is_integer(id) || json_integer_value(id) < 1) {
			snprintf(err, errn, "event %zu: no category or payload.series.id", i + 1);
			free(*ids);
			*ids = NULL;
			*n = 0;
			json_decref(j);
			return -1;
		}
		if (!strcmp(cat, "series-completed"))
			(*ids)[(*n)++] = json_integer_value(id);
	}
	json_decref(j);
	return 0;
}

static int one(const json_t *j, size_t i, struct pw_series *s, char *err, size_t errn)
{
	const json_t *cover = json_object_get(j, "cover_letter");
	const json_t *patches = json_object_get(j, "patches");
	const json_t *sub = json_object_get(j, "submitter"), *first;
	const json_t *id = json_object_get(j, "id");
	size_t k;
	json_t *p;

	if (!json_is_object(j))
		return snprintf(err, errn, "series %zu: not an object", i), -1;
	if (!json_is_integer(id) || json_integer_value(id) < 1)
		return snprintf(err, errn, "series %zu: no 'id'", i), -1;
	s->id = json_integer_value(id);
	if (!json_is_array(patches))
		return snprintf(err, errn, "series %lld: no 'patches' list", (long long)s->id), -1;
	s->version = json_is_integer(json_object_get(j, "version")) ?
		     (int)json_integer_value(json_object_get(j, "version")) : 1;
	s->received_all = json_is_true(json_object_get(j, "received_all"));
	s->name = str(j, "name");
	s->date = str(j, "date");
	s->web_url = str(j, "web_url");
	s->mbox = str(j, "mbox");
	if (!s->mbox || !s->date)
		return snprintf(err, errn, "series %lld: no '%s'", (long long)s->id,
				s->mbox ? "date" : "mbox"), -1;
	if (!s->name)
		s->name = strdup("");
	if (json_array_size(patches) > 1000)
		return snprintf(err, errn, "series %lld: more than 1000 patches", (long long)s->id), -1;
	s->patches = calloc(json_array_size(patches) + 1, sizeof(*s->patches));
	if (!s->patches)
		return snprintf(err, errn, "out of memory"), -1;
	json_array_foreach(patches, k, p) {
		const json_t *pid = json_object_get(p, "id");

		if (!json_is_integer(pid))
			return snprintf(err, errn, "series %lld: patch %zu has no 'id'",
					(long long)s->id, k + 1), -1;
		s->patches[s->npatches++] = json_integer_value(pid);
	}
	first = json_is_object(cover) ? cover : json_array_get(patches, 0);
	s->msgid = bare(json_string_value(json_object_get(first, "msgid")));
	s->subject = str(first, "name");
	if (!first && !s->received_all) {
		/* patchwork lists a series as its first mail is being parsed,
		 * before the mail is linked to it: not complete yet */
		free(s->msgid);
		s->msgid = strdup("");
		return s->msgid ? 0 : (snprintf(err, errn, "out of memory"), -1);
	}
	if (!s->msgid || !*s->msgid)
		return snprintf(err, errn, "series %lld: no message-id (cover letter or patch 1)",
				(long long)s->id), -1;
	if (json_is_object(sub)) {
		const char *nm = json_string_value(json_object_get(sub, "name"));
		const char *em = json_string_value(json_object_get(sub, "email"));

		if (asprintf(&s->submitter, "%s <%s>", nm ? nm : "", em ? em : "") < 0)
			s->submitter = NULL;
	}
	return 0;
}

int pw_series_parse(const char *data, size_t len, struct pw_series **out, size_t *n,
		    char *err, size_t errn)
{
	json_error_t je;
	json_t *j = json_loadb(data ? data : "", len, 0, &je), *e;
	size_t i;
	int rc = -1;

	*out = NULL;
	*n = 0;
	if (!j)
		return snprintf(err, errn, "not JSON: %s (line %d)", je.text, je.line), -1;
	if (!json_is_array(j)) {
		snprintf(err, errn, "not a list of series (a JSON %s)",
			 json_is_object(j) ? "object" : "value");
		goto out;
	}
	*out = calloc(json_array_size(j) + 1, sizeof(**out));
	if (!*out)
		goto out;
	json_array_foreach(j, i, e) {
		if (one(e, i + 1, &(*out)[i], err, errn) < 0) {
			pw_series_free(*out, i + 1);
			*out = NULL;
			goto out;
		}
		*n = i + 1;
	}
	rc = 0;
out:
	if (rc < 0)
		*n = 0;
	json_decref(j);
	return rc;
}

int pw_series_parse_one(const char *data, size_t len, struct pw_series **out, char *err,
			size_t errn)
{
	json_error_t je;
	json_t *j = json_loadb(data ? data : "", len, 0, &je);
	int rc = -1;

	*out = NULL;
	if (!j)
		return snprintf(err, errn, "not JSON: %s (line %d)", je.text, je.line), -1;
	if (!json_is_object(j)) {
		snprintf(err, errn, "not a series (a JSON %s)", json_is_array(j) ? "list" : "value");
	} else if (!(*out = calloc(1, sizeof(**out)))) {
		snprintf(err, errn, "out of memory");
	} else if (one(j, 1, *out, err, errn) < 0) {
		pw_series_free(*out, 1);
		*out = NULL;
	} else {
		rc = 0;
	}
	json_decref(j);
	return rc;
}

void pw_series_free(struct pw_series *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++) {
		free(s[i].name);
		free(s[i].date);
		free(s[i].msgid);
		free(s[i].subject);
		free(s[i].submitter);
		free(s[i].web_url);
		free(s[i].mbox);
		free(s[i].patches);
	}
	free(s);
}

char *pw_check_body(const char *state, const char *target_url, const char *description,
		    const char *context)
{
	json_t *j = json_pack("{s:s, s:s, s:s, s:s}", "state", state, "target_url",
			      target_url ? target_url : "", "description",
			      description ? description : "", "context", context);
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL;

	json_decref(j);
	return s;
}

int pw_post_check(const char *base, int64_t patch_id, const char *token, const char *body,
		  long timeout_s, long *status, char *err, size_t errn)
{
	char url[1200], auth[600];

	snprintf(url, sizeof(url), "%s/api/1.2/patches/%lld/checks/", base, (long long)patch_id);
	snprintf(auth, sizeof(auth), "Authorization: Token %s", token);
	return watch_http_post_json(url, auth, body, timeout_s, status, err, errn);
}
