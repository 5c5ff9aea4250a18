// SPDX-License-Identifier: GPL-2.0-only
/* series_json.c: a parsed series as JSON (series_json()), for `kfleet
 * series show --json`, the submission's record and the pages. Every
 * string goes through one escaping helper, so the JSON never fails on a
 * name or subject from outside that is not UTF-8. */
#include "kernels/kernelsint.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"

/* ---- JSON ---- */

/* A JSON string of s (NULL: ""); one that is not UTF-8 (a name from
 * outside) with its bytes as \xNN, so that JSON never fails on input */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	char *c;

	if (j || !s)
		return j;
	c = series_utf8(s, strlen(s), NULL);
	j = c ? json_string(c) : NULL;
	free(c);
	return j;
}

/* [{"key", "value"[, "message_id"]}, ...] */
static json_t *trailers_json(const struct series_trailer *t, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		json_t *o = json_object();

		if (!o || json_array_append_new(a, o) < 0 ||
		    json_object_set_new(o, "key", jstr(t[i].key)) < 0 ||
		    json_object_set_new(o, "value", jstr(t[i].value)) < 0 ||
		    (t[i].msgid && json_object_set_new(o, "message_id", jstr(t[i].msgid)) < 0)) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

/* ["subject", "author", "body", "charset"]: what was not UTF-8 */
static json_t *lossy_json(unsigned lossy)
{
	static const char *const names[] = { "subject", "headers", "text", "charset" };
	json_t *a = json_array();

	for (unsigned b = 0; a && b < 4; b++)
		if ((lossy & (1u << b)) && json_array_append_new(a, json_string(names[b])) < 0) {
			json_decref(a);
			return NULL;
		}
	return a;
}

static json_t *patch_json(const struct series_patch *p)
{
	json_t *j = json_object(), *ret = NULL;

	if (!j)
		goto out;
	if (json_object_set_new(j, "index", json_integer(p->index)) < 0 ||
	    json_object_set_new(j, "version", json_integer(p->version)) < 0 ||
	    json_object_set_new(j, "subject", jstr(p->subject)) < 0 ||
	    json_object_set_new(j, "title", jstr(p->title)) < 0 ||
	    json_object_set_new(j, "author", jstr(p->author)) < 0 ||
	    json_object_set_new(j, "email", jstr(p->email)) < 0 ||
	    json_object_set_new(j, "date", jstr(p->date)) < 0 ||
	    json_object_set_new(j, "message_id", jstr(p->msgid)) < 0 ||
	    json_object_set_new(j, "line", json_integer(p->line)) < 0 ||
	    json_object_set_new(j, "not_utf8", lossy_json(p->lossy)) < 0)
		goto out;
	if (p->index > 0 &&
	    (json_object_set_new(j, "has_diff", json_boolean(p->has_diff)) < 0 ||
	     json_object_set_new(j, "files", json_integer(p->files)) < 0 ||
	     json_object_set_new(j, "insertions", json_integer(p->insertions)) < 0 ||
	     json_object_set_new(j, "deletions", json_integer(p->deletions)) < 0 ||
	     json_object_set_new(j, "trailers", trailers_json(p->trailers, p->ntrailers)) < 0))
		goto out;
	if (json_object_set_new(j, "followup_trailers",
				trailers_json(p->followups, p->nfollowups)) < 0)
		goto out;
	ret = j;
	j = NULL;
out:
	json_decref(j);
	return ret;
}

/* {"id": ..., "from": ...} or null */
static json_t *marker_json(const char *id, const char *from)
{
	json_t *j;

	if (!id)
		return json_null();
	j = json_object();
	if (j && (json_object_set_new(j, "id", jstr(id)) < 0 ||
		  json_object_set_new(j, "from", jstr(from)) < 0)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

json_t *series_json(const struct series *s)
{
	json_t *j = json_object(), *patches = json_array(), *notes = json_array(), *ret = NULL;
	json_t *cover = s->cover ? patch_json(s->cover) : json_null();

	if (!j || !patches || !notes || !cover)
		goto out;
	for (int i = 0; i < s->count; i++)
		if (json_array_append_new(patches, patch_json(&s->patches[i])) < 0)
			goto out;
	for (size_t i = 0; i < s->nnotes; i++)
		if (json_array_append_new(notes, jstr(s->notes[i])) < 0)
			goto out;
	if (json_object_set_new(j, "name", jstr(s->name)) < 0 ||
	    json_object_set_new(j, "version", json_integer(s->version)) < 0 ||
	    json_object_set_new(j, "partial_reroll", json_boolean(s->partial)) < 0 ||
	    json_object_set_new(j, "tree", s->tree ? jstr(s->tree) : json_null()) < 0 ||
	    json_object_set_new(j, "rfc", json_boolean(s->rfc)) < 0 ||
	    json_object_set_new(j, "count", json_integer(s->count)) < 0 ||
	    json_object_set_new(j, "base_commit",
				marker_json(s->base_commit, s->base_commit_from)) < 0 ||
	    json_object_set_new(j, "change_id", marker_json(s->change_id, s->change_id_from)) < 0 ||
	    json_object_set(j, "cover", cover) < 0 ||
	    json_object_set(j, "patches", patches) < 0 ||
	    json_object_set_new(j, "messages", json_integer(s->messages)) < 0 ||
	    json_object_set_new(j, "others", json_integer(s->others)) < 0 ||
	    json_object_set(j, "notes", notes) < 0)
		goto out;
	ret = j;
	j = NULL;
out:
	json_decref(patches);
	json_decref(notes);
	json_decref(cover);
	json_decref(j);
	return ret;
}
