// SPDX-License-Identifier: GPL-2.0-only
/* watch/lore.c: a public-inbox list (lore) as a watch reads it: the
 * Atom feed of the list's newest messages (LIST/new.atom) parsed with
 * libxml2 (no network, no entities), and which of its messages start a
 * series: a [PATCH ...] subject that is not a reply, the cover letter
 * (0/N) or, without one, patch 1/N or a lone patch. The series itself is
 * then the thread's mbox, fetched as `kfleet test --msgid` does. */
#include "watch/lore.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#define LORE_ENTRIES_MAX 1000

static char *text_of(xmlNode *n)
{
	xmlChar *t = xmlNodeGetContent(n);
	char *s = t ? strdup((const char *)t) : NULL;

	xmlFree(t);
	return s;
}

static int named(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

/* The message-id a lore link names: ".../LIST/ID/" -> ID, %XX decoded */
static char *msgid_of_link(const char *href)
{
	size_t n = strlen(href), start;
	char *out, *o;

	while (n && href[n - 1] == '/')
		n--;
	start = n;
	while (start && href[start - 1] != '/')
		start--;
	if (start == n)
		return NULL;
	out = o = malloc(n - start + 1);
	if (!out)
		return NULL;
	for (size_t i = start; i < n; i++) {
		if (href[i] == '%' && i + 2 < n && isxdigit((unsigned char)href[i + 1]) &&
		    isxdigit((unsigned char)href[i + 2])) {
			char hex[3] = { href[i + 1], href[i + 2], 0 };

			*o++ = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			*o++ = href[i];
		}
	}
	*o = '\0';
	return out;
}

int lore_series_start(const char *subject, int is_reply, int *version)
{
	const char *p = subject, *end;
	int patch = 0, k = -1, total = -1;

	*version = 1;
	while (*p == ' ')
		p++;
	if (!strncasecmp(p, "re:", 3) || !strncasecmp(p, "aw:", 3) || *p != '[')
		return 0;
	end = strchr(p, ']');
	if (!end)
		return 0;
	for (const char *w = p + 1; w < end;) {
		size_t l;

		w += strspn(w, " ,");
		l = strcspn(w, " ,]");
		if (l == 5 && !strncasecmp(w, "PATCH", 5))
			patch = 1;
		else if ((w[0] == 'v' || w[0] == 'V') && l > 1 && l < 5 && isdigit((unsigned char)w[1]) &&
			 atoi(w + 1) >= 1)   /* "v0" names no version (lore_fuzz) */
			*version = atoi(w + 1);
		else if (isdigit((unsigned char)w[0]) && memchr(w, '/', l))
			sscanf(w, "%d/%d", &k, &total);
		w += l ? l : 1;
	}
	if (!patch)
		return 0;
	if (k == 0)
		return 1;              /* the cover letter */
	if (is_reply)
		return 0;              /* a patch of a series with a cover letter */
	return k == -1 || k == 1;  /* a lone patch, or 1/N of a series without one */
}

static void entry(xmlNode *e, struct lore_entry *out)
{
	for (xmlNode *c = e->children; c; c = c->next) {
		if (named(c, "title") && !out->subject) {
			out->subject = text_of(c);
		} else if (named(c, "updated") && !out->updated) {
			out->updated = text_of(c);
		} else if (named(c, "link") && !out->msgid) {
			xmlChar *href = xmlGetProp(c, (const xmlChar *)"href");

			if (href)
				out->msgid = msgid_of_link((const char *)href);
			xmlFree(href);
		} else if (named(c, "in-reply-to")) {
			out->is_reply = 1;
		} else if (named(c, "author")) {
			char *nm = NULL, *em = NULL;

			for (xmlNode *a = c->children; a; a = a->next) {
				if (named(a, "name") && !nm)
					nm = text_of(a);
				else if (named(a, "email") && !em)
					em = text_of(a);
			}
			free(out->author);
			if (asprintf(&out->author, "%s <%s>", nm ? nm : "", em ? em : "") < 0)
				out->author = NULL;
			free(nm);
			free(em);
		}
	}
	if (out->subject)
		for (char *p = out->subject; *p; p++)
			if (*p == '\n' || *p == '\r' || *p == '\t')
				*p = ' ';
}

int lore_feed_parse(const char *data, size_t len, struct lore_entry **out, size_t *n,
		    char *err, size_t errn)
{
	xmlDoc *doc;
	xmlNode *root;
	size_t count = 0, i = 0;

	*out = NULL;
	*n = 0;
	if (len > (size_t)0x7fffffff)
		return snprintf(err, errn, "too large"), -1;
	doc = xmlReadMemory(data ? data : "", (int)len, "new.atom", NULL,
			    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	if (!doc) {
		const xmlError *e = xmlGetLastError();

		snprintf(err, errn, "not XML%s%.200s", e && e->message ? ": " : "",
			 e && e->message ? e->message : "");
		if (strlen(err) && err[strlen(err) - 1] == '\n')
			err[strlen(err) - 1] = '\0';
		return -1;
	}
	root = xmlDocGetRootElement(doc);
	if (!root || !named(root, "feed")) {
		snprintf(err, errn, "not an Atom feed (the root is <%s>)",
			 root ? (const char *)root->name : "nothing");
		xmlFreeDoc(doc);
		return -1;
	}
	for (xmlNode *c = root->children; c; c = c->next)
		count += named(c, "entry");
	if (count > LORE_ENTRIES_MAX)
		count = LORE_ENTRIES_MAX;
	*out = calloc(count + 1, sizeof(**out));
	if (!*out) {
		xmlFreeDoc(doc);
		return snprintf(err, errn, "out of memory"), -1;
	}
	for (xmlNode *c = root->children; c && i < count; c = c->next) {
		struct lore_entry *le = &(*out)[i];

		if (!named(c, "entry"))
			continue;
		entry(c, le);
		if (!le->msgid || !le->subject || !le->updated) {
			snprintf(err, errn, "entry %zu: no %s", i + 1, !le->msgid ? "link to its message" :
				 !le->subject ? "title" : "updated");
			lore_entries_free(*out, i + 1);
			*out = NULL;
			xmlFreeDoc(doc);
			return -1;
		}
		le->starts_series = lore_series_start(le->subject, le->is_reply, &le->version);
		i++;
	}
	*n = i;
	xmlFreeDoc(doc);
	return 0;
}

void lore_entries_free(struct lore_entry *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		free(e[i].msgid);
		free(e[i].subject);
		free(e[i].author);
		free(e[i].updated);
	}
	free(e);
}
