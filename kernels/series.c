// SPDX-License-Identifier: GPL-2.0-only
/* series.c: patch series intake. An mbox (a file, or what fetch.c got) is
 * read into messages (mbox.c: git mailsplit and git mailinfo), and here
 * assembled into a series: each message classified by its subject tags
 * (subject.c), diff (diffstat.c) and parent (In-Reply-To), one version of
 * patches 1..N chosen (the newest of each patch in a partial reroll) and
 * checked complete, the cover letter found (also one without [PATCH 0/N]),
 * with their trailers and those replies give them (trailers.c),
 * base-commit and change-id. b4's rules (mricon/b4, LoreMailbox) are the
 * reference. The next step, git am (apply.c), takes the mails kept in
 * struct series_patch. */
#include "kernels/seriesint.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/buf.h"
#include "common/util.h"

static int is_commit_id(const char *s)
{
	size_t n = strlen(s);

	if (n < 7 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/* ---- the series ---- */

static void patch_release(struct series_patch *p)
{
	if (!p)
		return;
	free(p->subject);
	free(p->title);
	free(p->author);
	free(p->email);
	free(p->date);
	free(p->msgid);
	series_trailers_free(p->trailers, p->ntrailers);
	series_trailers_free(p->followups, p->nfollowups);
	free(p->mail);
	memset(p, 0, sizeof(*p));
}

void series_free(struct series *s)
{
	if (!s)
		return;
	free(s->name);
	free(s->tree);
	if (s->cover) {
		patch_release(s->cover);
		free(s->cover);
	}
	for (int i = 0; s->patches && i < s->count; i++)
		patch_release(&s->patches[i]);
	free(s->patches);
	free(s->base_commit);
	free(s->base_commit_from);
	free(s->change_id);
	free(s->change_id_from);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	free(s);
}

/* Moves message m into patch p */
static int take_patch(struct series_patch *p, struct series_msg *m, const struct classified *c,
		      int index)
{
	memset(p, 0, sizeof(*p));
	p->index = index;
	p->line = m->line;
	p->subject = m->subject ? m->subject : strdup("");
	m->subject = NULL;
	p->title = strdup(c->tags.title ? c->tags.title : "");
	p->author = m->author ? m->author : strdup("");
	m->author = NULL;
	p->email = m->email ? m->email : strdup("");
	m->email = NULL;
	p->date = m->date ? m->date : strdup("");
	m->date = NULL;
	p->version = c->version;
	p->lossy = m->lossy;
	p->msgid = m->msgid ? m->msgid : strdup("");
	m->msgid = NULL;
	p->mail = m->mail;
	p->mail_len = m->mail_len;
	m->mail = NULL;
	p->has_diff = c->files > 0;
	p->files = c->files;
	p->insertions = c->ins;
	p->deletions = c->del;
	if (!p->subject || !p->title || !p->author || !p->email || !p->date || !p->msgid)
		return -1;
	if (index > 0 && series_trailers(m->body, &p->trailers, &p->ntrailers) < 0)
		return -1;
	return 0;
}

/* The newest version among the numbered patches and cover letters */

/* The newest version among the numbered patches and cover letters */
static int newest_version(const struct classified *c, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++)
		if ((c[i].kind == MSG_PATCH && c[i].numbered) || c[i].kind == MSG_COVER)
			v = c[i].version > v ? c[i].version : v;
	return v;
}

/* Is version v complete: a count agreed on, every patch 1..count once,
 * no patch beyond the count? */
static int version_complete(const struct classified *c, size_t n, int v)
{
	int count = -1, seen[SERIES_PATCHES_MAX + 1];
	int patches = 0;

	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i < n; i++) {
		if (c[i].version != v || !(c[i].kind == MSG_COVER ||
					   (c[i].kind == MSG_PATCH && c[i].numbered)))
			continue;
		if (count < 0)
			count = c[i].tags.count;
		if (c[i].tags.count != count || count < 1 || count > SERIES_PATCHES_MAX)
			return 0;
		if (c[i].kind == MSG_COVER)
			continue;
		if (c[i].tags.index < 1 || c[i].tags.index > count || seen[c[i].tags.index]++)
			return 0;
		patches++;
	}
	return count > 0 && patches == count;
}

/* "patch 2/3" or "the cover letter" for messages */
static const char *what(char *out, size_t n, const struct classified *c)
{
	if (c->kind == MSG_COVER)
		snprintf(out, n, "the cover letter");
	else
		snprintf(out, n, "patch %d/%d", c->tags.index, c->tags.count);
	return out;
}

/* A patch taken must have a whole diff and an author; loc is where its
 * message starts, count the series' */
static int check_patch(const char *loc, const struct series_msg *m, const struct classified *c,
		       int count, char **err)
{
	if (!c->diff_ok)
		return set_errf(err, "%s: patch %d/%d: %s", loc, c->tags.index, count, c->diff_why);
	if (!c->files)
		return set_errf(err, "%s: patch %d/%d has no diff", loc, c->tags.index, count);
	if (!m->author || !*m->author)
		return set_errf(err, "%s: patch %d/%d has no author (no From: header)", loc,
				c->tags.index, count);
	return 0;
}

/* Checks the chosen version's messages (sel[] true) one by one, in mbox
 * order, then that none is missing. */
static int check_version(const char *name, struct series_msg *msgs, const struct classified *c,
			 size_t n, const char *sel, int *count_out, char **err)
{
	unsigned first_at[SERIES_PATCHES_MAX + 1];
	int count = -1, first = -1, cover_seen = -1;
	char loc[PATH_MAX + 32], w1[64], w2[64];
	struct buf missing = BUF_INIT(0);
	int nmissing = 0, rc = -1;

	memset(first_at, 0, sizeof(first_at));
	for (size_t i = 0; i < n; i++) {
		if (!sel[i])
			continue;
		where(loc, sizeof(loc), name, msgs[i].line);
		if (count < 0) {
			count = c[i].tags.count;
			first = (int)i;
		}
		if (c[i].tags.count > SERIES_PATCHES_MAX) {
			set_errf(err, "%s: %s: more than %d patches", loc, what(w1, sizeof(w1), &c[i]),
				 SERIES_PATCHES_MAX);
			goto out;
		}
		if (c[i].tags.count < 1) {
			set_errf(err, "%s: %s: a series of no patches", loc, what(w1, sizeof(w1), &c[i]));
			goto out;
		}
		if (c[i].tags.count != count) {
			set_errf(err, "%s: %s says %d patches, %s says %d", loc,
				 what(w1, sizeof(w1), &c[i]), c[i].tags.count,
				 what(w2, sizeof(w2), &c[first]), count);
			goto out;
		}
		if (c[i].kind == MSG_COVER) {
			if (cover_seen >= 0) {
				set_errf(err, "%s: a second cover letter for v%d (the first at line %u)",
					 loc, c[i].version, msgs[cover_seen].line);
				goto out;
			}
			cover_seen = (int)i;
			continue;
		}
		if (c[i].tags.index > count) {
			set_errf(err, "%s: patch %d/%d: its number is larger than the count", loc,
				 c[i].tags.index, count);
			goto out;
		}
		if (first_at[c[i].tags.index]) {
			set_errf(err, "%s: patch %d/%d appears twice (also at line %u)", loc,
				 c[i].tags.index, count, first_at[c[i].tags.index]);
			goto out;
		}
		first_at[c[i].tags.index] = msgs[i].line ? msgs[i].line : 1;
		if (check_patch(loc, &msgs[i], &c[i], count, err) < 0)
			goto out;
	}
	for (int k = 1; k <= count; k++) {
		if (first_at[k])
			continue;
		/* a mail that is patch k but for its diff was taken for a reply */
		for (size_t i = 0; i < n; i++) {
			if (!c[i].diffless || c[i].tags.index != k || c[i].tags.count != count)
				continue;
			set_errf(err, "%s: patch %d/%d has no diff", where(loc, sizeof(loc), name,
				 msgs[i].line), k, count);
			goto out;
		}
		buf_printf(&missing, "%s%d/%d", nmissing ? ", " : "", k, count);
		nmissing++;
	}
	if (nmissing) {
		set_errf(err, "%s: %s %s %s missing", name, nmissing > 1 ? "patches" : "patch",
			 buf_str(&missing), nmissing > 1 ? "are" : "is");
		rc = SERIES_INCOMPLETE;
		goto out;
	}
	*count_out = count;
	rc = 0;
out:
	buf_release(&missing);
	return rc;
}

/* Where base-commit: or change-id: is said: the cover letter first, then
 * the patches in order (git format-patch without a cover letter puts it
 * after the first patch's diff, other tools after the last one's). */
static int find_marker(struct series *s, struct series_msg *msgs, const int *order,
		       int cover, const char *key, char **value, char **from)
{
	char *v = NULL;
	int at = -1;

	if (cover >= 0) {
		v = series_line_value(msgs[cover].body, key);
		if (!v)
			v = series_line_value(msgs[cover].patch, key);
		if (v)
			at = 0;
	}
	for (int k = 1; !v && k <= s->count; k++) {
		struct series_msg *m = &msgs[order[k]];

		v = series_line_value(m->patch, key);
		if (!v)
			v = series_line_value(m->body, key);
		if (v)
			at = k;
	}
	if (!v)
		return 0;
	*value = v;
	if (at == 0)
		*from = strdup("the cover letter");
	else if (asprintf(from, "patch %d/%d", at, s->count) < 0)
		*from = NULL;
	return *from ? 0 : -1;
}

static int classify(const char *name, struct series_msg *m, struct classified *c, char **err)
{
	char loc[PATH_MAX + 32];

	memset(c, 0, sizeof(*c));
	where(loc, sizeof(loc), name, m->line);
	if ((!m->subject || !*m->subject) && (!m->author || !*m->author) &&
	    (!m->email || !*m->email))
		return set_errf(err, "%s: not a mail (no From: or Subject: header)", loc);
	series_subject_parse(m->subject, &c->tags);
	c->version = c->tags.version > 0 ? c->tags.version : 1;
	c->numbered = c->tags.index >= 0;
	c->diff_ok = series_diffstat(m->patch, &c->files, &c->ins, &c->del, &c->diff_why) == 0;
	/* a mail with a patch tag, no diff at all and a parent is someone's
	 * answer whose mailer kept the subject without "Re:" (b4 takes such
	 * a mail with trailers for a follow-up); a cover letter has no diff */
	c->diffless = c->tags.tagged && !c->tags.reply && c->tags.index != 0 &&
		      c->diff_ok && !c->files && m->in_reply_to && *m->in_reply_to;
	if (c->tags.reply || c->diffless)
		c->kind = MSG_REPLY;
	else if (c->numbered && c->tags.index == 0)
		c->kind = MSG_COVER;
	else if (c->tags.tagged || c->files)
		c->kind = MSG_PATCH;
	else
		c->kind = MSG_OTHER;
	return 0;
}

/* A numbered patch or a cover letter: what a version is made of */
static int in_version(const struct classified *c)
{
	return (c->kind == MSG_PATCH && c->numbered) || c->kind == MSG_COVER;
}

static int by_msgid(const void *x, const void *y, void *arg)
{
	const struct series_msg *m = arg;
	int r = strcmp(m[*(const int *)x].msgid, m[*(const int *)y].msgid);

	return r ? r : *(const int *)x - *(const int *)y;
}

/* Each message's parent: the message its In-Reply-To names (the first
 * of that Message-Id in the mbox), -1 when it is not in the mbox */
static int find_parents(struct assembly *a, char **err)
{
	int *idx = calloc(a->n ? a->n : 1, sizeof(*idx)), nidx = 0;

	if (!idx)
		return set_errf(err, "%s: out of memory", a->name);
	for (size_t i = 0; i < a->n; i++)
		if (a->msgs[i].msgid && *a->msgs[i].msgid)
			idx[nidx++] = (int)i;
	qsort_r(idx, (size_t)nidx, sizeof(*idx), by_msgid, a->msgs);
	for (size_t i = 0; i < a->n; i++) {
		const char *want = a->msgs[i].in_reply_to;
		int lo = 0, hi = nidx;

		a->c[i].parent = -1;
		if (!want || !*want)
			continue;
		while (lo < hi) {
			int mid = lo + (hi - lo) / 2;

			if (strcmp(a->msgs[idx[mid]].msgid, want) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < nidx && !strcmp(a->msgs[idx[lo]].msgid, want) && idx[lo] != (int)i)
			a->c[i].parent = idx[lo];
	}
	free(idx);
	return 0;
}

static int classify_all(struct assembly *a, char **err)
{
	struct classified *c = a->c;

	for (size_t i = 0; i < a->n; i++) {
		if (classify(a->name, &a->msgs[i], &c[i], err) < 0)
			return -1;
		if (c[i].kind == MSG_PATCH && c[i].numbered)
			a->numbered++;
		else if (c[i].kind == MSG_PATCH)
			a->untagged++;
	}
	a->v = newest_version(c, a->n);
	return find_parents(a, err);
}

/* Whether message i (a patch) replies, directly or further up its
 * thread, to a patch of an older version with the same N/M */
static int replies_to_older(const struct assembly *a, size_t i)
{
	const struct classified *c = a->c;
	int p = c[i].parent;

	for (int hops = 0; p >= 0 && hops < 64; hops++, p = c[p].parent)
		if (c[p].kind == MSG_PATCH && c[p].numbered && c[p].version < c[i].version &&
		    c[p].tags.index == c[i].tags.index && c[p].tags.count == c[i].tags.count)
			return 1;
	return 0;
}

/* A partial reroll, as b4 takes one (LoreMailbox.partial_reroll): the
 * newest version lacks patches, all agree on N, and each of its patches
 * replies to the older patch it replaces. Then each patch, and the cover
 * letter, is the newest there is of it. Sets a->sel, a->cover and
 * s->partial when it is one, with a note of what came from where; else
 * leaves them. 0, -1 out of memory */
static int partial_reroll(struct assembly *a)
{
	const struct classified *c = a->c;
	int count = -1, *best = NULL, rc = 0;
	struct buf from = BUF_INIT(0);

	for (size_t i = 0; i < a->n; i++) {
		if (!in_version(&c[i]) || c[i].version != a->v)
			continue;
		if (count < 0)
			count = c[i].tags.count;
		if (c[i].tags.count != count ||
		    (c[i].kind == MSG_PATCH && !replies_to_older(a, i)))
			return 0;
	}
	if (count < 1 || count > SERIES_PATCHES_MAX)
		return 0;
	if (!(best = calloc((size_t)count + 1, sizeof(*best))))
		return -1;
	for (int k = 0; k <= count; k++)
		best[k] = -1;
	/* the newest of each; two of one version make it no reroll */
	for (size_t i = 0; i < a->n; i++) {
		int k = c[i].kind == MSG_COVER ? 0 : c[i].tags.index;

		if (!in_version(&c[i]) || c[i].tags.count != count || c[i].version > a->v ||
		    k < 0 || k > count)
			continue;
		if (best[k] >= 0 && c[best[k]].version == c[i].version)
			goto out;
		if (best[k] < 0 || c[best[k]].version < c[i].version)
			best[k] = (int)i;
	}
	for (int k = 1; k <= count; k++)
		if (best[k] < 0)
			goto out;
	for (int k = 0; k <= count; k++) {
		if (best[k] < 0)
			continue;
		a->sel[best[k]] = 1;
		if (k == 0)
			a->cover = best[k];
		if (c[best[k]].version == a->v)
			continue;
		if (k == 0)
			buf_printf(&from, "%sthe cover letter from v%d", from.len ? ", " : "",
				   c[best[k]].version);
		else
			buf_printf(&from, "%spatch %d/%d from v%d", from.len ? ", " : "", k, count,
				   c[best[k]].version);
	}
	a->s->partial = 1;
	rc = series_note(a->s, "v%d is a partial reroll: %s (the newest of each)", a->v,
		  buf_str(&from));
out:
	free(best);
	buf_release(&from);
	return rc;
}

/* Numbered patches: one version of them, the newest, which must be
 * complete when the mbox holds others (or a partial reroll of them) */
static int pick_numbered(struct assembly *a, char **err)
{
	const struct classified *c = a->c;
	char loc[PATH_MAX + 32], w1[64], w2[64];
	size_t n = a->n;
	int r;

	for (size_t i = 0; i < n; i++) {
		int seen = 0;

		if (!in_version(&c[i]) || c[i].version == a->v)
			continue;
		for (int k = 0; k < a->nothers; k++)
			seen |= a->others[k] == c[i].version;
		if (!seen && a->nothers < (int)(sizeof(a->others) / sizeof(a->others[0])))
			a->others[a->nothers++] = c[i].version;
	}
	if (a->nothers && !version_complete(c, n, a->v) && partial_reroll(a) < 0)
		return set_errf(err, "%s: out of memory", a->name);
	if (a->nothers && !a->s->partial && !version_complete(c, n, a->v)) {
		/* not a thread of complete versions: patches from two */
		size_t x = n, y = n;

		for (size_t i = 0; i < n; i++) {
			if (in_version(&c[i]) && c[i].version == a->v && x == n)
				x = i;
			if (in_version(&c[i]) && c[i].version != a->v && y == n)
				y = i;
		}
		return set_errf(err, "%s: %s is v%d but %s is v%d: patches from two versions",
				where(loc, sizeof(loc), a->name, a->msgs[x].line),
				what(w1, sizeof(w1), &c[x]), c[x].version,
				what(w2, sizeof(w2), &c[y]), c[y].version);
	}
	for (size_t i = 0; i < n && !a->s->partial; i++) {
		a->sel[i] = in_version(&c[i]) && c[i].version == a->v;
		if (a->sel[i] && c[i].kind == MSG_COVER)
			a->cover = (int)i;
	}
	r = check_version(a->name, a->msgs, c, n, a->sel, &a->count, err);
	if (r < 0)
		return r;
	a->versions = 1 + a->nothers;
	return 0;
}

/* Patches without N/M: all of them, in mbox order */
static int pick_untagged(struct assembly *a, char **err)
{
	struct classified *c = a->c;
	char loc[PATH_MAX + 32];
	size_t n = a->n;

	for (size_t i = 0; i < n; i++) {
		if (c[i].kind != MSG_PATCH)
			continue;
		a->sel[i] = 1;
		c[i].tags.index = ++a->count;
		c[i].numbered = 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!a->sel[i])
			continue;
		c[i].tags.count = a->count;
		where(loc, sizeof(loc), a->name, a->msgs[i].line);
		if (check_patch(loc, &a->msgs[i], &c[i], a->count, err) < 0)
			return -1;
	}
	if (a->count > SERIES_PATCHES_MAX)
		return set_errf(err, "%s: more than %d patches", a->name, SERIES_PATCHES_MAX);
	for (size_t i = 0; i < n; i++)
		if (a->sel[i] && c[i].version > a->v)
			a->v = c[i].version;
	if (a->count > 1 && series_note(a->s, "%d patches without N/M in their subjects: taken in "
				 "mbox order", a->count) < 0)
		return -1;
	return 0;
}

/* base-commit and change-id, wherever the series says them; a base that
 * is no commit id is dropped with a note */
static int fill_markers(struct assembly *a, char **err)
{
	struct series *s = a->s;

	if (find_marker(s, a->msgs, a->order, a->cover, "base-commit:", &s->base_commit,
			&s->base_commit_from) < 0 ||
	    find_marker(s, a->msgs, a->order, a->cover, "change-id:", &s->change_id,
			&s->change_id_from) < 0)
		return set_errf(err, "%s: out of memory", a->name);
	if (s->base_commit && !is_commit_id(s->base_commit)) {
		if (series_note(s, "base-commit '%s' (%s) is not a commit id: ignored", s->base_commit,
			 s->base_commit_from) < 0)
			return -1;
		free(s->base_commit);
		free(s->base_commit_from);
		s->base_commit = s->base_commit_from = NULL;
	}
	return 0;
}

/* The series out of the messages taken: its patches in order, the cover
 * letter, what the first of them says of the whole */
static int fill_series(struct assembly *a, char **err)
{
	const struct classified *c = a->c, *lead;
	struct series *s = a->s;

	s->count = a->count;
	s->patches = calloc((size_t)a->count, sizeof(*s->patches));
	a->order = calloc((size_t)a->count + 1, sizeof(*a->order));
	if (!s->patches || !a->order)
		return set_errf(err, "%s: out of memory", a->name);
	for (size_t i = 0; i < a->n; i++)
		if (a->sel[i] && c[i].kind != MSG_COVER)
			a->order[c[i].tags.index] = (int)i;
	s->version = a->v > 0 ? a->v : 1;
	/* what the series is (RFC, its tree) is said by a tagged cover letter,
	 * else by patch 1 */
	lead = a->cover >= 0 && !a->naked ? &c[a->cover] : &c[a->order[1]];
	s->rfc = lead->tags.rfc;
	if (lead->tags.tree[0] && !(s->tree = strdup(lead->tags.tree)))
		return set_errf(err, "%s: out of memory", a->name);
	if (fill_markers(a, err) < 0)
		return -1;
	if (a->cover >= 0) {
		s->cover = calloc(1, sizeof(*s->cover));
		if (!s->cover || take_patch(s->cover, &a->msgs[a->cover], &c[a->cover], 0) < 0)
			return -1;
	}
	for (int k = 1; k <= a->count; k++)
		if (take_patch(&s->patches[k - 1], &a->msgs[a->order[k]], &c[a->order[k]], k) < 0)
			return -1;
	return 0;
}

int series_assemble(const char *name, struct series_msg *msgs, size_t n,
		    struct series **out, char **err)
{
	struct assembly a = {
		.name = name, .msgs = msgs, .n = n, .cover = -1,
		.c = calloc(n ? n : 1, sizeof(*a.c)),
		.sel = calloc(n ? n : 1, 1),
		.s = calloc(1, sizeof(*a.s)),
	};
	int rc = -1;

	*out = NULL;
	if (err)
		*err = NULL;
	if (!a.c || !a.sel || !a.s || !(a.s->name = strdup(name))) {
		set_errf(err, "%s: out of memory", name);
		goto out;
	}
	a.s->messages = (int)n;
	if (n == 0) {
		set_errf(err, "%s: no mail in it", name);
		goto out;
	}
	if (classify_all(&a, err) < 0)
		goto out;
	if (a.numbered || a.v) {
		int r = pick_numbered(&a, err);

		if (r < 0) {
			rc = r;   /* SERIES_INCOMPLETE: patches may be on their way */
			goto out;
		}
	} else if (a.untagged) {
		if (pick_untagged(&a, err) < 0)
			goto out;
	} else {
		no_patches(&a, err);
		goto out;
	}
	if (find_naked_cover(&a) < 0 || fill_series(&a, err) < 0 || collect_followups(&a) < 0 ||
	    note_left_out(&a) < 0)
		goto out;
	*out = a.s;
	a.s = NULL;
	rc = 0;
out:
	if (rc < 0 && err && !*err)
		set_errf(err, "%s: out of memory", name);
	for (size_t i = 0; a.c && i < n; i++)
		free(a.c[i].diff_why);
	free(a.c);
	free(a.sel);
	free(a.order);
	series_free(a.s);
	return rc;
}

int series_parse_mem(const char *name, const char *data, size_t len,
		     struct series **out, char **err)
{
	struct series_msg *msgs = NULL;
	size_t n = 0;
	int rc;

	*out = NULL;
	if (err)
		*err = NULL;
	rc = series_mbox_read(name, data, len, &msgs, &n, err);
	if (rc == 0)
		rc = series_assemble(name, msgs, n, out, err);
	for (size_t i = 0; i < n; i++)
		series_msg_release(&msgs[i]);
	free(msgs);
	return rc;
}

int series_parse_mbox(const char *path, struct series **out, char **err)
{
	struct buf b = BUF_INIT(0);
	int rc = -1;

	*out = NULL;
	if (err)
		*err = NULL;
	if (read_file(path, &b, SERIES_MBOX_MAX) < 0) {
		set_errf(err, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (b.truncated) {
		set_errf(err, "%s: larger than %u MiB", path, SERIES_MBOX_MAX >> 20);
		goto out;
	}
	rc = series_parse_mem(path, b.data ? b.data : "", b.len, out, err);
out:
	buf_release(&b);
	return rc;
}
