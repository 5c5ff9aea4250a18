// SPDX-License-Identifier: GPL-2.0-only
/* trailers.c: the lines of a commit message that say something to tools.
 * Its trailer block (Signed-off-by:, Reviewed-by:, ...: the last paragraph,
 * when git interpret-trailers would take it as one, continuation lines
 * folded), the trailers a reply gives a patch (Reviewed-by: anywhere in
 * the reply's own text, as b4 collects them), and the first "key: value"
 * line anywhere (base-commit:, change-id:, or git mailinfo's "Subject:"). */
#include "kernels/kernelsint.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "Token: value" with a token of letters, digits and '-'; the key length */
static size_t trailer_key(const char *l, size_t len)
{
	size_t k = 0;

	while (k < len && (isalnum((unsigned char)l[k]) || l[k] == '-'))
		k++;
	if (k == 0 || k >= len || l[k] != ':' || !isalnum((unsigned char)l[0]))
		return 0;
	return k;
}

void series_trailers_free(struct series_trailer *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(t[i].key);
		free(t[i].value);
		free(t[i].msgid);
	}
	free(t);
}

/* The last paragraph of [b, end): after the last blank line, trailing
 * blanks off; its start into *start, its end returned */
static const char *last_paragraph(const char *b, const char *end, const char **start)
{
	const char *s;

	while (end > b && isspace((unsigned char)end[-1]))
		end--;
	s = end;
	while (s > b) {
		const char *ls = s - 1, *q;

		while (ls > b && ls[-1] != '\n')
			ls--;
		/* ls..s-1 is the previous line (with its '\n') */
		for (q = ls; q < s && isspace((unsigned char)*q); q++)
			;
		if (q == s)
			break;  /* a blank line */
		s = ls;
	}
	*start = s;
	return end;
}

/* Whether git takes [p, end) as a trailer block: all its lines are
 * trailers, or a git-made one is there and trailers are at least a
 * quarter of the lines */
static int trailer_block(const char *p, const char *end)
{
	size_t lines = 0, trailers = 0;
	int recognised = 0;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (len && !(p[0] == ' ' || p[0] == '\t')) {
			lines++;
			if (trailer_key(p, len)) {
				trailers++;
				if (!strncmp(p, "Signed-off-by:", 14))
					recognised = 1;
			} else if (!strncmp(p, "(cherry picked from commit ", 27)) {
				recognised = 1;
			}
		}
		p = nl ? nl + 1 : end;
	}
	return trailers && (trailers == lines || (recognised && trailers * 4 >= lines));
}

/* Trailers being collected */
struct trailers {
	struct series_trailer *t;
	size_t n, alloc;
};

/* A line of the block (len bytes, trailing blanks off): a continuation
 * of the last trailer, a new trailer, or neither. 0 / -1 out of memory */
static int trailer_line(struct trailers *tr, const char *p, size_t len)
{
	size_t k;

	if (len && (p[0] == ' ' || p[0] == '\t') && tr->n) {
		/* a continuation line */
		struct series_trailer *last = &tr->t[tr->n - 1];
		const char *v = p + strspn(p, " \t");
		char *nv = NULL;

		if (asprintf(&nv, "%s %.*s", last->value, (int)(len - (size_t)(v - p)), v) < 0)
			return -1;
		free(last->value);
		last->value = nv;
	} else if ((k = trailer_key(p, len))) {
		const char *v = p + k + 1;

		v += strspn(v, " \t");
		if (v > p + len)
			v = p + len;    /* "Key: " with nothing after it */
		if (tr->n == tr->alloc) {
			size_t na = tr->alloc ? tr->alloc * 2 : 8;
			struct series_trailer *nt = realloc(tr->t, na * sizeof(*nt));

			if (!nt)
				return -1;
			tr->t = nt;
			tr->alloc = na;
		}
		tr->t[tr->n].key = strndup(p, k);
		tr->t[tr->n].value = strndup(v, len - (size_t)(v - p));
		tr->t[tr->n].msgid = NULL;
		tr->n++;
		if (!tr->t[tr->n - 1].key || !tr->t[tr->n - 1].value)
			return -1;
	}
	return 0;
}

int series_trailers(const char *body, struct series_trailer **out, size_t *n)
{
	const char *b = body ? body : "", *start, *end, *p;
	struct trailers tr = { NULL, 0, 0 };
	int rc = -1;

	*out = NULL;
	*n = 0;
	end = last_paragraph(b, b + strlen(b), &start);
	if (!trailer_block(start, end))
		return 0;
	for (p = start; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (trailer_line(&tr, p, len) < 0)
			goto out;
		p = nl ? nl + 1 : end;
	}
	*out = tr.t;
	*n = tr.n;
	tr.t = NULL;
	tr.n = 0;
	rc = 0;
out:
	series_trailers_free(tr.t, tr.n);
	return rc;
}

/* ---- a reply's trailers ---- */

/* Whether the trailer line [p, p+len) is one a reviewer gives: a key
 * ending in "-by" ("Reviewed-by", "Acked-by", "Tested-by") and a value
 * with an address in it */
static int person_trailer(const char *p, size_t len)
{
	size_t k = trailer_key(p, len);

	if (k < 4 || strncasecmp(p + k - 3, "-by", 3))
		return 0;
	return memchr(p + k, '@', len - k) != NULL;
}

int series_reply_trailers(const char *body, struct series_trailer **out, size_t *n)
{
	struct trailers tr = { NULL, 0, 0 };
	const char *p = body ? body : "";

	*out = NULL;
	*n = 0;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 2 && !strncmp(p, "--", 2) && nl && p[2] == ' ')
			break;      /* "-- ", the signature (its blank cut above) */
		if (len && p[0] != '>' && person_trailer(p, len) && trailer_line(&tr, p, len) < 0) {
			series_trailers_free(tr.t, tr.n);
			return -1;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	*out = tr.t;
	*n = tr.n;
	return 0;
}

/* ---- "key: value" lines ---- */

char *series_line_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen)) {
			const char *v = p + klen + strspn(p + klen, " \t");
			size_t vl = len - (size_t)(v - p);

			while (vl && isspace((unsigned char)v[vl - 1]))
				vl--;
			if (vl)
				return strndup(v, vl);
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}
