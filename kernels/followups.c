// SPDX-License-Identifier: GPL-2.0-only
/* followups.c: a series finished once its patches are chosen
 * (series.c): the cover letter found when it has no [PATCH 0/N], the
 * trailers that replies give a patch or the cover letter (b4's
 * follow-ups), and notes on what was left out (other versions, lossy
 * patches, mails that are none of the series). */
#include "kernels/seriesint.h"

#include <ctype.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/util.h"

int series_note(struct series *s, const char *fmt, ...)
{
	char **nn = realloc(s->notes, (s->nnotes + 1) * sizeof(*nn));
	va_list ap;
	int r;

	if (!nn)
		return -1;
	s->notes = nn;
	va_start(ap, fmt);
	r = vasprintf(&s->notes[s->nnotes], fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	s->nnotes++;
	return 0;
}

/* Whether a diffstat line ("2 files changed, 5 insertions(+)") is in text */
static int has_diffstat(const char *text)
{
	for (const char *p = text; p && *p;) {
		const char *q = p + strspn(p, " \t");

		if (isdigit((unsigned char)*q)) {
			q += strspn(q, "0123456789");
			if (!strncmp(q, " file changed", 13) || !strncmp(q, " files changed", 14))
				return 1;
		}
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	return 0;
}

static int same_addr(const char *x, const char *y)
{
	return x && y && *x && !strcasecmp(x, y);
}

/* A cover letter without [PATCH 0/N] (b4's "naked" one): the mail the
 * first patch that has a parent replies to, when it is no patch and no
 * reply, and is the patch author's or has a diffstat. A bug report
 * someone else wrote, that a patch answers, is not. */
int find_naked_cover(struct assembly *a)
{
	const struct classified *c = a->c;
	int first = -1, p;
	char loc[PATH_MAX + 32];

	if (a->cover >= 0)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->sel[i] && c[i].parent >= 0 &&
		    (first < 0 || c[i].tags.index < c[first].tags.index))
			first = (int)i;
	if (first < 0)
		return 0;
	p = c[first].parent;
	if (c[p].kind != MSG_OTHER || a->sel[p] ||
	    !(same_addr(a->msgs[p].email, a->msgs[first].email) ||
	      has_diffstat(a->msgs[p].body) || has_diffstat(a->msgs[p].patch)))
		return 0;
	a->cover = p;
	a->naked = 1;
	return series_note(a->s, "%s: '%s' taken as the cover letter: patch %d/%d replies to it, "
		    "and it %s", where(loc, sizeof(loc), a->name, a->msgs[p].line),
		    no_null(a->msgs[p].subject), c[first].tags.index, a->count,
		    same_addr(a->msgs[p].email, a->msgs[first].email) ? "is from the same author" :
		    "has a diffstat");
}

/* The patch (or cover letter) message i is, NULL when neither */
static struct series_patch *taken(struct assembly *a, int i)
{
	if (i == a->cover)
		return a->s->cover;
	if (!a->sel[i] || a->c[i].kind == MSG_COVER || a->c[i].tags.index < 1 ||
	    a->c[i].tags.index > a->s->count)
		return NULL;
	return &a->s->patches[a->c[i].tags.index - 1];
}

/* Whether trailer value v ("Name <addr>") names the sender of m */
static int by_sender(const char *v, const struct series_msg *m)
{
	const char *lt = strchr(v, '<'), *gt = lt ? strchr(lt, '>') : NULL;
	size_t nl;

	if (lt && gt && m->email && (size_t)(gt - lt - 1) == strlen(m->email) &&
	    !strncasecmp(lt + 1, m->email, (size_t)(gt - lt - 1)))
		return 1;
	if (!lt || !m->author || !*m->author)
		return 0;
	for (nl = (size_t)(lt - v); nl && (v[nl - 1] == ' ' || v[nl - 1] == '\t'); nl--)
		;
	return nl == strlen(m->author) && !strncasecmp(v, m->author, nl);
}

/* Adds the trailers reply i gives to p: those by its sender; others are
 * noted and left out (b4 does the same unless told to be sloppy) */
static int give_trailers(struct assembly *a, int i, struct series_patch *p)
{
	struct series_msg *m = &a->msgs[i];
	struct series_trailer *t = NULL, *nt;
	char loc[PATH_MAX + 32];
	size_t n = 0, k;
	int rc = -1;

	if (series_reply_trailers(m->body, &t, &n) < 0)
		return -1;
	if (!n)
		return 0;
	nt = realloc(p->followups, (p->nfollowups + n) * sizeof(*nt));
	if (!nt)
		goto out;
	p->followups = nt;
	for (k = 0; k < n; k++) {
		if (!by_sender(t[k].value, m)) {
			if (series_note(a->s, "%s: '%s: %s' in a reply from %s <%s> is not the sender's: "
				 "left out", where(loc, sizeof(loc), a->name, m->line), t[k].key,
				 t[k].value, no_null(m->author), no_null(m->email)) < 0)
				goto out;
			continue;
		}
		if (!(t[k].msgid = strdup(no_null(m->msgid))))
			goto out;
		p->followups[p->nfollowups++] = t[k];
		memset(&t[k], 0, sizeof(t[k]));
	}
	rc = 0;
out:
	series_trailers_free(t, n);
	return rc;
}

/* Replies' trailers (b4's follow-up trailers): a reply, or a mail without
 * a diff that answers another, gives its Reviewed-by:-style trailers to
 * the patch or cover letter it answers, directly or up its thread. A
 * reply to another version's patch gives nothing. */
int collect_followups(struct assembly *a)
{
	const struct classified *c = a->c;

	for (size_t i = 0; i < a->n; i++) {
		struct series_patch *to = NULL;
		int p = c[i].parent;

		if (a->sel[i] || (int)i == a->cover || p < 0 ||
		    !(c[i].kind == MSG_REPLY || (c[i].kind == MSG_OTHER && !c[i].files)))
			continue;
		for (int hops = 0; p >= 0 && hops < 64; hops++, p = c[p].parent) {
			if ((to = taken(a, p)) || (c[p].kind != MSG_REPLY && c[p].kind != MSG_OTHER))
				break;
		}
		if (to && give_trailers(a, (int)i, to) < 0)
			return -1;
	}
	return 0;
}

/* What of a taken mail was not UTF-8, said once per mail */
static int note_lossy(struct assembly *a, const struct series_patch *p)
{
	char loc[PATH_MAX + 32], w[64];
	const char *what_ = p->index ? w : "the cover letter", *part = "text is";

	if (!p->lossy)
		return 0;
	snprintf(w, sizeof(w), "patch %d/%d", p->index, a->s->count);
	where(loc, sizeof(loc), a->name, p->line);
	if (p->lossy & SERIES_LOSSY_CHARSET)
		return series_note(a->s, "%s: %s: a charset git cannot convert: its bytes kept, those "
			    "that are not UTF-8 shown as \\xNN", loc, what_);
	if (p->lossy & SERIES_LOSSY_SUBJECT)
		part = "subject is";
	else if (p->lossy & SERIES_LOSSY_AUTHOR)
		part = "headers are";
	return series_note(a->s, "%s: %s: its %s not UTF-8: those bytes shown as \\xNN", loc, what_,
		    part);
}

/* "the mbox holds v2, v3 and v4: took v4, ...", oldest first */
static int note_versions(struct assembly *a)
{
	struct buf vs = BUF_INIT(0);
	int all[9], nall = 0, rc;

	for (int k = 0; k < a->nothers; k++)
		all[nall++] = a->others[k];
	all[nall++] = a->v;
	for (int x = 1; x < nall; x++)
		for (int y = x; y > 0 && all[y - 1] > all[y]; y--) {
			int t = all[y];

			all[y] = all[y - 1];
			all[y - 1] = t;
		}
	for (int k = 0; k < nall; k++)
		buf_printf(&vs, "%sv%d", k == 0 ? "" : k == nall - 1 ? " and " : ", ", all[k]);
	rc = series_note(a->s, "the mbox holds %s: took v%d, the newest complete version",
		  buf_str(&vs), a->v);
	buf_release(&vs);
	return rc;
}

/* What was left out: how many messages, other versions, patches without
 * N/M in a numbered series */
int note_left_out(struct assembly *a)
{
	char loc[PATH_MAX + 32];

	for (size_t i = 0; i < a->n; i++)
		if (!a->sel[i] && (int)i != a->cover)
			a->s->others++;
	if (a->versions > 1 && !a->s->partial && note_versions(a) < 0)
		return -1;
	if (a->s->cover && note_lossy(a, a->s->cover) < 0)
		return -1;
	for (int k = 0; k < a->s->count; k++)
		if (note_lossy(a, &a->s->patches[k]) < 0)
			return -1;
	if (!a->untagged || !a->numbered)
		return 0;
	for (size_t i = 0; i < a->n; i++) {
		if (a->c[i].kind != MSG_PATCH || a->c[i].numbered)
			continue;
		if (series_note(a->s, "%s: '%s' has no N/M in a numbered series: left out",
			 where(loc, sizeof(loc), a->name, a->msgs[i].line),
			 no_null(a->msgs[i].subject)) < 0)
			return -1;
	}
	return 0;
}

/* Why there are no patches: a [PATCH] mail without a diff (that replies
 * to another, so taken for a reply), or nothing like a patch at all */
void no_patches(const struct assembly *a, char **err)
{
	char loc[PATH_MAX + 32];

	for (size_t i = 0; i < a->n; i++)
		if (a->c[i].diffless) {
			set_errf(err, "%s: '%s' has no diff (and replies to another mail): no "
				 "patches in it", where(loc, sizeof(loc), a->name, a->msgs[i].line),
				 no_null(a->msgs[i].subject));
			return;
		}
	set_errf(err, "%s: no patches in it (%zu %s, none with a diff or a [PATCH] subject)",
		 a->name, a->n, a->n == 1 ? "mail" : "mails");
}
