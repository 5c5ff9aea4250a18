/* series.c: patch series intake. An mbox (a file, or what fetch.c got) is
 * split with git mailsplit and each message read with git mailinfo (git
 * does MIME, encodings and quoted-printable), then assembled here into a
 * series: cover letter, patches 1..N of one version, trailers, base-commit
 * and change-id. The next step, applying it with git am, takes the mails
 * kept in struct series_patch. */
#include "kernels/kernelsint.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define SERIES_GIT_TIMEOUT_MS 60000
#define SERIES_INFO_MAX       (1u << 20)   /* mailinfo's stdout: four header lines */

/* ---- small helpers ---- */

/* "name:120" or just "name" when the line is unknown; into out */
static const char *where(char *out, size_t n, const char *name, unsigned line)
{
	if (line)
		snprintf(out, n, "%s:%u", name, line);
	else
		snprintf(out, n, "%s", name);
	return out;
}

static char *dupn(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

static int ci_prefix(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* ---- subject tags ---- */

static int all_digits(const char *s, size_t n)
{
	if (n == 0 || n > 6)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static int num(const char *s, size_t n)
{
	int v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* A version word: v4, V4 */
static int version_word(const char *w, size_t n, int *v)
{
	if (n >= 2 && (w[0] == 'v' || w[0] == 'V') && all_digits(w + 1, n - 1)) {
		*v = num(w + 1, n - 1);
		return 1;
	}
	return 0;
}

/* One bracket group's words into t; returns 1 when the group is a patch
 * tag (names PATCH, RFC, ... or N/M), else leaves t alone and returns 0. */
static int parse_group(const char *g, size_t len, struct series_tags *t)
{
	struct series_tags tmp = *t;
	int patchy = 0;
	size_t i = 0;

	while (i < len) {
		const char *w;
		size_t n = 0;
		const char *slash;
		int v;

		while (i < len && (g[i] == ' ' || g[i] == '\t' || g[i] == ','))
			i++;
		w = g + i;
		while (i < len && g[i] != ' ' && g[i] != '\t' && g[i] != ',')
			i++, n++;
		if (!n)
			break;
		slash = memchr(w, '/', n);
		if (slash && all_digits(w, (size_t)(slash - w)) &&
		    all_digits(slash + 1, n - (size_t)(slash - w) - 1)) {
			tmp.index = num(w, (size_t)(slash - w));
			tmp.count = num(slash + 1, n - (size_t)(slash - w) - 1);
			patchy = 1;
		} else if (n == 5 && ci_prefix(w, "PATCH")) {
			patchy = 1;
		} else if (n > 5 && ci_prefix(w, "PATCH") &&
			   version_word(w + 5 + (w[5] == '-'), n - 5 - (w[5] == '-'), &v)) {
			tmp.version = v;     /* PATCHv2, PATCH-v2 */
			patchy = 1;
		} else if ((n == 3 && (ci_prefix(w, "RFC") || ci_prefix(w, "RFT")))) {
			tmp.rfc = tmp.rfc || ci_prefix(w, "RFC");
			patchy = 1;
		} else if (n == 6 && ci_prefix(w, "RESEND")) {
			patchy = 1;
		} else if (version_word(w, n, &v)) {
			tmp.version = v;
		} else if (!tmp.tree[0] && n < sizeof(tmp.tree)) {
			int ok = 1;

			for (size_t k = 0; k < n; k++)
				if ((unsigned char)w[k] < 0x21 || (unsigned char)w[k] >= 0x7f)
					ok = 0;
			if (ok) {
				memcpy(tmp.tree, w, n);
				tmp.tree[n] = '\0';
			}
		}
	}
	if (!patchy)
		return 0;
	tmp.tagged = 1;
	*t = tmp;
	return 1;
}

void series_subject_parse(const char *subject, struct series_tags *t)
{
	static const char *const replies[] = { "re:", "fwd:", "fw:", "aw:", "sv:", "antw:",
					       "re :", NULL };
	const char *p = subject ? subject : "";
	int again = 1;

	memset(t, 0, sizeof(*t));
	t->index = t->count = -1;
	p = skip_ws(p);
	while (again) {
		again = 0;
		for (int i = 0; replies[i]; i++) {
			if (ci_prefix(p, replies[i])) {
				t->reply = 1;
				p = skip_ws(p + strlen(replies[i]));
				again = 1;
			}
		}
	}
	while (*p == '[') {
		const char *close = strchr(p, ']');

		if (!close || !parse_group(p + 1, (size_t)(close - p - 1), t))
			break;
		p = skip_ws(close + 1);
	}
	t->title = p;
}

/* ---- where messages start (git mailsplit's is_from_line()) ---- */

static int is_from_line(const char *line, size_t len)
{
	const char *colon, *p, *end = line + len;
	long year = 0;

	if (len < 20 || memcmp("From ", line, 5))
		return 0;
	colon = line + len - 2;
	line += 5;
	for (;;) {
		if (colon < line)
			return 0;
		if (*--colon == ':')
			break;
	}
	if (!isdigit((unsigned char)colon[-4]) || !isdigit((unsigned char)colon[-2]) ||
	    !isdigit((unsigned char)colon[-1]) || !isdigit((unsigned char)colon[1]) ||
	    !isdigit((unsigned char)colon[2]))
		return 0;
	/* the year, as strtol() would read it */
	for (p = colon + 3; p < end && isspace((unsigned char)*p); p++)
		;
	if (p < end && (*p == '+' || *p == '-'))
		return 0;
	for (; p < end && isdigit((unsigned char)*p) && year < 100000; p++)
		year = year * 10 + (*p - '0');
	return year > 90;
}

size_t series_mbox_lines(const char *data, size_t len, unsigned *lines, size_t max)
{
	size_t i = 0, n = 0;
	unsigned line = 1;
	int bare;

	/* mailsplit skips leading white space */
	while (i < len && isspace((unsigned char)data[i])) {
		if (data[i] == '\n')
			line++;
		i++;
	}
	if (i >= len)
		return 0;
	{
		const char *nl = memchr(data + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - data - i) + 1 : len - i;

		bare = !is_from_line(data + i, l);
	}
	if (max)
		lines[0] = line;
	n = 1;
	if (bare)
		return 1;
	/* every From line after the first starts a message */
	for (;;) {
		const char *nl = memchr(data + i, '\n', len - i);

		if (!nl)
			break;
		i = (size_t)(nl - data) + 1;
		line++;
		if (i >= len)
			break;
		nl = memchr(data + i, '\n', len - i);
		if (is_from_line(data + i, nl ? (size_t)(nl - data - i) + 1 : len - i)) {
			if (n < max)
				lines[n] = line;
			n++;
		}
	}
	return n;
}

/* ---- headers ---- */

/* skip_ws() within [s, end): the buffer need not be NUL-terminated */
static const char *skip_ws_to(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

char *series_header(const char *mail, size_t len, const char *name)
{
	size_t nlen = strlen(name), i = 0;
	struct buf v = BUF_INIT(64 * 1024);
	int found = 0;

	while (i < len) {
		const char *line = mail + i, *nl = memchr(line, '\n', len - i), *end;
		size_t l = nl ? (size_t)(nl - line) : len - i;

		if (l && line[l - 1] == '\r')
			l--;
		if (l == 0)
			break;     /* end of the header block */
		end = line + l;
		if (found && (line[0] == ' ' || line[0] == '\t')) {
			const char *c = skip_ws_to(line, end);

			buf_append(&v, " ", 1);
			buf_append(&v, c, (size_t)(end - c));
		} else if (found) {
			break;
		} else if (l > nlen && line[nlen] == ':' && !strncasecmp(line, name, nlen)) {
			const char *val = skip_ws_to(line + nlen + 1, end);

			found = 1;
			buf_append(&v, val, (size_t)(end - val));
		}
		if (!nl)
			break;
		i = (size_t)(nl - mail) + 1;
	}
	if (!found)
		return NULL;
	while (v.len && (v.data[v.len - 1] == ' ' || v.data[v.len - 1] == '\t'))
		v.data[--v.len] = '\0';
	return buf_detach(&v);
}

/* A message-id without its <> and white space; caller frees */
static char *clean_msgid(const char *raw)
{
	const char *s = raw, *lt = strchr(raw, '<'), *gt;

	if (lt && (gt = strchr(lt, '>')))
		return dupn(lt + 1, (size_t)(gt - lt - 1));
	s = skip_ws(s);
	return dupn(s, strcspn(s, " \t\r\n"));
}

/* ---- diffs ---- */

/* "@@ -a[,b] +c[,d] @@": the line counts b and d */
static int hunk_header(const char *l, long *old_n, long *new_n)
{
	const char *p = l + 3;
	char *e;
	long v;

	if (*p != '-')
		return -1;
	v = strtol(p + 1, &e, 10);
	if (e == p + 1 || v < 0)
		return -1;
	*old_n = 1;
	if (*e == ',') {
		p = e + 1;
		*old_n = strtol(p, &e, 10);
		if (e == p || *old_n < 0 || *old_n > 100000000)
			return -1;
	}
	if (*e != ' ' || e[1] != '+')
		return -1;
	p = e + 2;
	v = strtol(p, &e, 10);
	if (e == p || v < 0)
		return -1;
	*new_n = 1;
	if (*e == ',') {
		p = e + 1;
		*new_n = strtol(p, &e, 10);
		if (e == p || *new_n < 0 || *new_n > 100000000)
			return -1;
	}
	return *e == ' ' ? 0 : -1;
}

/* The file a "diff --git a/X b/Y" or "+++ b/Y" line names, into out */
static void diff_file(const char *l, size_t len, char *out, size_t n)
{
	const char *b = NULL;

	if (!strncmp(l, "diff --git ", 11)) {
		/* the b/ side; paths with spaces are rare, take the last " b/" */
		for (const char *p = l; p + 3 <= l + len; p++)
			if (!strncmp(p, " b/", 3))
				b = p + 3;
		if (!b)
			b = l + 11;
	} else {
		b = l + 4;
		if (!strncmp(b, "b/", 2))
			b += 2;
	}
	snprintf(out, n, "%.*s", (int)(l + len - b), b);
	for (char *p = out; *p; p++)
		if (*p == '\t' || (unsigned char)*p < 0x20)
			*p = *p == '\t' ? '\0' : '?';
}

int series_diffstat(const char *patch, int *files, int *ins, int *del, char **why)
{
	const char *p = patch ? patch : "";
	long old_left = 0, new_left = 0;
	int git_header = 0;
	char file[256] = "";
	unsigned dline = 0;

	*files = *ins = *del = 0;
	if (why)
		*why = NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		dline++;
		if (len && p[len - 1] == '\r')
			len--;
		if (old_left > 0 || new_left > 0) {
			char c = len ? p[0] : ' ';

			if (c == ' ') {
				old_left--;
				new_left--;
			} else if (c == '-') {
				old_left--;
				(*del)++;
			} else if (c == '+') {
				new_left--;
				(*ins)++;
			} else if (c != '\\') {
				return set_errf(why, "the diff of '%s' is cut short (a hunk ends early, "
						"line %u of the diff)", file, dline);
			}
			if (old_left < 0 || new_left < 0)
				return set_errf(why, "the diff of '%s' is damaged (a hunk is longer "
						"than its header says, line %u of the diff)", file, dline);
		} else if (len >= 11 && !strncmp(p, "diff --git ", 11)) {
			(*files)++;
			git_header = 1;
			diff_file(p, len, file, sizeof(file));
		} else if (len >= 4 && !strncmp(p, "+++ ", 4)) {
			if (!git_header) {
				(*files)++;     /* a plain diff without a git header */
				diff_file(p, len, file, sizeof(file));
			}
			git_header = 0;
		} else if (len >= 4 && !strncmp(p, "@@ -", 4) && *files) {
			if (hunk_header(p, &old_left, &new_left) < 0)
				return set_errf(why, "the diff of '%s' has a bad hunk header "
						"(line %u of the diff)", file, dline);
			git_header = 0;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (old_left > 0 || new_left > 0)
		return set_errf(why, "the diff of '%s' is cut short (it ends inside a hunk)", file);
	return 0;
}

/* ---- trailers ---- */

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
	}
	free(t);
}

int series_trailers(const char *body, struct series_trailer **out, size_t *n)
{
	const char *b = body ? body : "", *end = b + strlen(b), *start, *p;
	size_t lines = 0, trailers = 0, alloc = 0, cnt = 0;
	int recognised = 0, rc = -1;
	struct series_trailer *t = NULL;

	*out = NULL;
	*n = 0;
	/* the last paragraph: after the last blank line, trailing blanks off */
	while (end > b && isspace((unsigned char)end[-1]))
		end--;
	start = end;
	while (start > b) {
		const char *ls = start - 1;

		while (ls > b && ls[-1] != '\n')
			ls--;
		/* ls..start-1 is the previous line (with its '\n') */
		{
			const char *q = ls;

			while (q < start && isspace((unsigned char)*q))
				q++;
			if (q == start)
				break;  /* a blank line */
		}
		start = ls;
	}
	/* git takes it when all lines are trailers, or when a git-made one is
	 * there and trailers are at least a quarter of the lines */
	for (p = start; p < end;) {
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
	if (!trailers || !(trailers == lines || (recognised && trailers * 4 >= lines)))
		return 0;
	for (p = start; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p), k;

		while (len && (p[len - 1] == '\r' || p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len && (p[0] == ' ' || p[0] == '\t') && cnt) {
			/* a continuation line */
			struct series_trailer *last = &t[cnt - 1];
			const char *v = skip_ws(p);
			char *nv = NULL;

			if (asprintf(&nv, "%s %.*s", last->value, (int)(len - (size_t)(v - p)), v) < 0)
				goto out;
			free(last->value);
			last->value = nv;
		} else if ((k = trailer_key(p, len))) {
			const char *v = skip_ws(p + k + 1);

			if (v > p + len)
				v = p + len;    /* "Key: " with nothing after it */
			if (cnt == alloc) {
				size_t na = alloc ? alloc * 2 : 8;
				struct series_trailer *nt = realloc(t, na * sizeof(*nt));

				if (!nt)
					goto out;
				t = nt;
				alloc = na;
			}
			t[cnt].key = dupn(p, k);
			t[cnt].value = dupn(v, len - (size_t)(v - p));
			cnt++;
			if (!t[cnt - 1].key || !t[cnt - 1].value)
				goto out;
		}
		p = nl ? nl + 1 : end;
	}
	*out = t;
	*n = cnt;
	t = NULL;
	cnt = 0;
	rc = 0;
out:
	series_trailers_free(t, cnt);
	return rc;
}

/* ---- base-commit and change-id ---- */

/* The value of the first line "key: value" in text; caller frees */
static char *line_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (len > klen && !strncmp(p, key, klen)) {
			const char *v = skip_ws(p + klen);
			size_t vl = len - (size_t)(v - p);

			while (vl && isspace((unsigned char)v[vl - 1]))
				vl--;
			if (vl)
				return dupn(v, vl);
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

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

void series_msg_release(struct series_msg *m)
{
	free(m->subject);
	free(m->author);
	free(m->email);
	free(m->date);
	free(m->msgid);
	free(m->body);
	free(m->patch);
	free(m->mail);
	memset(m, 0, sizeof(*m));
}

static int note(struct series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int note(struct series *s, const char *fmt, ...)
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

/* What one message is */
enum msg_kind { MSG_OTHER, MSG_REPLY, MSG_COVER, MSG_PATCH };

struct classified {
	enum msg_kind kind;
	struct series_tags tags;
	int version;         /* tags.version, 1 when none */
	int numbered;        /* has N/M */
	int files, ins, del;
	int diff_ok;
	char *diff_why;
};

static const char *no_null(const char *s)
{
	return s ? s : "";
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
		if (!c[i].diff_ok) {
			set_errf(err, "%s: patch %d/%d: %s", loc, c[i].tags.index, count, c[i].diff_why);
			goto out;
		}
		if (!c[i].files) {
			set_errf(err, "%s: patch %d/%d has no diff", loc, c[i].tags.index, count);
			goto out;
		}
		if (!msgs[i].author || !*msgs[i].author) {
			set_errf(err, "%s: patch %d/%d has no author (no From: header)", loc,
				 c[i].tags.index, count);
			goto out;
		}
	}
	for (int k = 1; k <= count; k++) {
		if (first_at[k])
			continue;
		buf_printf(&missing, "%s%d/%d", nmissing ? ", " : "", k, count);
		nmissing++;
	}
	if (nmissing) {
		set_errf(err, "%s: %s %s %s missing", name, nmissing > 1 ? "patches" : "patch",
			 buf_str(&missing), nmissing > 1 ? "are" : "is");
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
		v = line_value(msgs[cover].body, key);
		if (!v)
			v = line_value(msgs[cover].patch, key);
		if (v)
			at = 0;
	}
	for (int k = 1; !v && k <= s->count; k++) {
		struct series_msg *m = &msgs[order[k]];

		v = line_value(m->patch, key);
		if (!v)
			v = line_value(m->body, key);
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
	if (c->tags.reply)
		c->kind = MSG_REPLY;
	else if (c->numbered && c->tags.index == 0)
		c->kind = MSG_COVER;
	else if (c->tags.tagged || c->files)
		c->kind = MSG_PATCH;
	else
		c->kind = MSG_OTHER;
	return 0;
}

int series_assemble(const char *name, struct series_msg *msgs, size_t n,
		    struct series **out, char **err)
{
	struct classified *c = calloc(n ? n : 1, sizeof(*c));
	char *sel = calloc(n ? n : 1, 1);
	int *order = NULL;
	struct series *s = calloc(1, sizeof(*s));
	int rc = -1, v, numbered = 0, untagged = 0, cover = -1, count = 0, versions = 0;
	int others_versions[8], nov = 0;
	char loc[PATH_MAX + 32], w1[64], w2[64];

	*out = NULL;
	if (err)
		*err = NULL;
	if (!c || !sel || !s || !(s->name = strdup(name))) {
		set_errf(err, "%s: out of memory", name);
		goto out;
	}
	s->messages = (int)n;
	if (n == 0) {
		set_errf(err, "%s: no mail in it", name);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (classify(name, &msgs[i], &c[i], err) < 0)
			goto out;
		if (c[i].kind == MSG_PATCH && c[i].numbered)
			numbered++;
		else if (c[i].kind == MSG_PATCH)
			untagged++;
	}
	v = newest_version(c, n);
	if (numbered || v) {
		/* numbered patches: one version of them */
		for (size_t i = 0; i < n; i++) {
			int seen = 0;

			if (!((c[i].kind == MSG_PATCH && c[i].numbered) || c[i].kind == MSG_COVER) ||
			    c[i].version == v)
				continue;
			for (int k = 0; k < nov; k++)
				seen |= others_versions[k] == c[i].version;
			if (!seen && nov < (int)(sizeof(others_versions) / sizeof(others_versions[0])))
				others_versions[nov++] = c[i].version;
		}
		if (nov && !version_complete(c, n, v)) {
			/* not a thread of complete versions: patches from two */
			size_t a = n, b = n;

			for (size_t i = 0; i < n; i++) {
				int cand = (c[i].kind == MSG_PATCH && c[i].numbered) ||
					   c[i].kind == MSG_COVER;

				if (cand && c[i].version == v && a == n)
					a = i;
				if (cand && c[i].version != v && b == n)
					b = i;
			}
			set_errf(err, "%s: %s is v%d but %s is v%d: patches from two versions",
				 where(loc, sizeof(loc), name, msgs[a].line), what(w1, sizeof(w1), &c[a]),
				 c[a].version, what(w2, sizeof(w2), &c[b]), c[b].version);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			sel[i] = ((c[i].kind == MSG_PATCH && c[i].numbered) ||
				  c[i].kind == MSG_COVER) && c[i].version == v;
			if (sel[i] && c[i].kind == MSG_COVER)
				cover = (int)i;
		}
		if (check_version(name, msgs, c, n, sel, &count, err) < 0)
			goto out;
		versions = 1 + nov;
	} else if (untagged) {
		/* patches without N/M: in mbox order */
		for (size_t i = 0; i < n; i++) {
			if (c[i].kind != MSG_PATCH)
				continue;
			sel[i] = 1;
			c[i].tags.index = ++count;
			c[i].numbered = 1;
		}
		for (size_t i = 0; i < n; i++) {
			if (!sel[i])
				continue;
			c[i].tags.count = count;
			where(loc, sizeof(loc), name, msgs[i].line);
			if (!c[i].diff_ok) {
				set_errf(err, "%s: patch %d/%d: %s", loc, c[i].tags.index, count,
					 c[i].diff_why);
				goto out;
			}
			if (!c[i].files) {
				set_errf(err, "%s: patch %d/%d has no diff", loc, c[i].tags.index, count);
				goto out;
			}
			if (!msgs[i].author || !*msgs[i].author) {
				set_errf(err, "%s: patch %d/%d has no author (no From: header)", loc,
					 c[i].tags.index, count);
				goto out;
			}
		}
		if (count > SERIES_PATCHES_MAX) {
			set_errf(err, "%s: more than %d patches", name, SERIES_PATCHES_MAX);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			if (sel[i] && c[i].version > v)
				v = c[i].version;
		if (count > 1 && note(s, "%d patches without N/M in their subjects: taken in "
				      "mbox order", count) < 0)
			goto out;
	} else {
		set_errf(err, "%s: no patches in it (%zu %s, none with a diff or a [PATCH] subject)",
			 name, n, n == 1 ? "mail" : "mails");
		goto out;
	}

	/* the series */
	s->count = count;
	s->patches = calloc((size_t)count, sizeof(*s->patches));
	order = calloc((size_t)count + 1, sizeof(*order));
	if (!s->patches || !order) {
		set_errf(err, "%s: out of memory", name);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (sel[i] && c[i].kind != MSG_COVER)
			order[c[i].tags.index] = (int)i;
	s->version = v > 0 ? v : 1;
	{
		const struct classified *lead = cover >= 0 ? &c[cover] : &c[order[1]];

		s->rfc = lead->tags.rfc;
		if (lead->tags.tree[0] && !(s->tree = strdup(lead->tags.tree))) {
			set_errf(err, "%s: out of memory", name);
			goto out;
		}
	}
	if (find_marker(s, msgs, order, cover, "base-commit:", &s->base_commit,
			&s->base_commit_from) < 0 ||
	    find_marker(s, msgs, order, cover, "change-id:", &s->change_id,
			&s->change_id_from) < 0) {
		set_errf(err, "%s: out of memory", name);
		goto out;
	}
	if (s->base_commit && !is_commit_id(s->base_commit)) {
		if (note(s, "base-commit '%s' (%s) is not a commit id: ignored", s->base_commit,
			 s->base_commit_from) < 0)
			goto out;
		free(s->base_commit);
		free(s->base_commit_from);
		s->base_commit = s->base_commit_from = NULL;
	}
	if (cover >= 0) {
		s->cover = calloc(1, sizeof(*s->cover));
		if (!s->cover || take_patch(s->cover, &msgs[cover], &c[cover], 0) < 0)
			goto out;
	}
	for (int k = 1; k <= count; k++)
		if (take_patch(&s->patches[k - 1], &msgs[order[k]], &c[order[k]], k) < 0)
			goto out;

	/* what was left out */
	for (size_t i = 0; i < n; i++)
		if (!sel[i])
			s->others++;
	if (versions > 1) {
		struct buf vs = BUF_INIT(0);
		int all[9], nall = 0;

		/* "v2, v3 and v4", oldest first */
		for (int k = 0; k < nov; k++)
			all[nall++] = others_versions[k];
		all[nall++] = v;
		for (int a = 1; a < nall; a++)
			for (int b = a; b > 0 && all[b - 1] > all[b]; b--) {
				int t = all[b];

				all[b] = all[b - 1];
				all[b - 1] = t;
			}
		for (int k = 0; k < nall; k++)
			buf_printf(&vs, "%sv%d", k == 0 ? "" : k == nall - 1 ? " and " : ", ", all[k]);
		if (note(s, "the mbox holds %s: took v%d, the newest complete version",
			 buf_str(&vs), v) < 0) {
			buf_release(&vs);
			goto out;
		}
		buf_release(&vs);
	}
	if (untagged && numbered) {
		for (size_t i = 0; i < n; i++) {
			if (c[i].kind != MSG_PATCH || c[i].numbered)
				continue;
			if (note(s, "%s: '%s' has no N/M in a numbered series: left out",
				 where(loc, sizeof(loc), name, msgs[i].line), no_null(msgs[i].subject)) < 0)
				goto out;
		}
	}
	*out = s;
	s = NULL;
	rc = 0;
out:
	if (rc < 0 && err && !*err)
		set_errf(err, "%s: out of memory", name);
	for (size_t i = 0; c && i < n; i++)
		free(c[i].diff_why);
	free(c);
	free(sel);
	free(order);
	series_free(s);
	return rc;
}

/* ---- running git ---- */

struct tmpdir {
	char path[PATH_MAX];
	char parent[PATH_MAX];
};

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	remove(p);
	return 0;
}

/* git with a neutral configuration, run in the scratch directory, which is
 * not inside any repository */
static struct cmd *git(const struct tmpdir *t, const char *sub)
{
	struct cmd *c = cmd_new("git");

	cmd_env(c, "GIT_CONFIG_NOSYSTEM", "1");
	cmd_env(c, "GIT_CONFIG_GLOBAL", "/dev/null");
	cmd_env(c, "HOME", t->path);
	cmd_env(c, "LC_ALL", "C");
	cmd_env(c, "GIT_CEILING_DIRECTORIES", t->parent);
	cmd_dir(c, t->path);
	cmd_timeout(c, SERIES_GIT_TIMEOUT_MS);
	cmd_arg(c, sub);
	return c;
}

/* Reads a file git wrote; NULL when it cannot */
static char *slurp(const char *path, size_t *len)
{
	struct buf b = BUF_INIT(0);

	if (read_file(path, &b, SERIES_MBOX_MAX) < 0) {
		buf_release(&b);
		return NULL;
	}
	if (len)
		*len = b.len;
	return buf_detach(&b);
}

/* mailinfo's "Key: value" lines */
static int info_field(const char *info, const char *key, char **out)
{
	char *v = line_value(info, key);

	*out = v ? v : strdup("");
	return *out ? 0 : -1;
}

/* Reads message file path with git mailinfo into m */
static int read_message(const struct tmpdir *t, const char *path, const char *loc,
			struct series_msg *m, char **err)
{
	char *msgf = path_join(t->path, "msg"), *patchf = path_join(t->path, "patch");
	struct buf info = BUF_INIT(SERIES_INFO_MAX);
	struct cmd *c = NULL;
	char *cerr = NULL, *raw;
	int rc = -1;

	if (!msgf || !patchf || !(m->mail = slurp(path, &m->mail_len))) {
		set_errf(err, "%s: cannot read the split message: %s", loc, strerror(errno));
		goto out;
	}
	c = git(t, "mailinfo");
	cmd_args(c, "-k", "--encoding=UTF-8", msgf, patchf, NULL);
	cmd_stdin_file(c, path);
	cmd_stdout_buf(c, &info);
	if (cmd_run(c, &cerr) < 0) {
		set_errf(err, "%s: %s", loc, cerr ? cerr : "git mailinfo failed");
		goto out;
	}
	if (info_field(buf_str(&info), "Subject:", &m->subject) < 0 ||
	    info_field(buf_str(&info), "Author:", &m->author) < 0 ||
	    info_field(buf_str(&info), "Email:", &m->email) < 0 ||
	    info_field(buf_str(&info), "Date:", &m->date) < 0 ||
	    !(m->body = slurp(msgf, NULL)) || !(m->patch = slurp(patchf, NULL))) {
		set_errf(err, "%s: out of memory", loc);
		goto out;
	}
	raw = series_header(m->mail, m->mail_len, "Message-ID");
	m->msgid = raw ? clean_msgid(raw) : strdup("");
	free(raw);
	if (!m->msgid) {
		set_errf(err, "%s: out of memory", loc);
		goto out;
	}
	rc = 0;
out:
	cmd_free(c);
	free(cerr);
	buf_release(&info);
	free(msgf);
	free(patchf);
	return rc;
}

int series_parse_mem(const char *name, const char *data, size_t len,
		     struct series **out, char **err)
{
	struct tmpdir t;
	const char *tmp = getenv("TMPDIR");
	struct series_msg *msgs = NULL;
	unsigned *lines = NULL;
	size_t nlines, nmsgs = 0;
	struct buf count = BUF_INIT(1024);
	struct cmd *c = NULL;
	char *cerr = NULL, *splitdir = NULL, *slash;
	const char *nul;
	long long n = 0;
	int rc = -1, have_tmp = 0;

	*out = NULL;
	if (err)
		*err = NULL;
	if (!data)
		data = "";
	if (len > SERIES_MBOX_MAX)
		return set_errf(err, "%s: larger than %u MiB", name, SERIES_MBOX_MAX >> 20);
	if ((nul = memchr(data, '\0', len))) {
		unsigned line = 1;

		for (const char *p = data; p < nul; p++)
			line += *p == '\n';
		return set_errf(err, "%s:%u: a NUL byte: not an mbox", name, line);
	}
	nlines = series_mbox_lines(data, len, NULL, 0);
	if (nlines == 0)
		return set_errf(err, "%s: empty", name);
	if (nlines > SERIES_MESSAGES_MAX)
		return set_errf(err, "%s: more than %d mails", name, SERIES_MESSAGES_MAX);
	lines = calloc(nlines, sizeof(*lines));
	if (!lines)
		return set_errf(err, "%s: out of memory", name);
	series_mbox_lines(data, len, lines, nlines);

	snprintf(t.path, sizeof(t.path), "%s/kfleet-series-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t.path)) {
		set_errf(err, "%s: scratch directory '%s': %s", name, t.path, strerror(errno));
		goto out;
	}
	have_tmp = 1;
	snprintf(t.parent, sizeof(t.parent), "%s", t.path);
	if ((slash = strrchr(t.parent, '/')))
		*(slash == t.parent ? slash + 1 : slash) = '\0';
	splitdir = path_join(t.path, "split");
	if (!splitdir || mkdir(splitdir, 0700) < 0) {
		set_errf(err, "%s: scratch directory: %s", name, strerror(errno));
		goto out;
	}

	/* split: lore's archives are mboxrd, where ">From " lines are escaped */
	c = git(&t, "mailsplit");
	cmd_args(c, "--mboxrd", "-b", NULL);
	cmd_argf(c, "-o%s", splitdir);
	cmd_stdin_buf(c, data, len);
	cmd_stdout_buf(c, &count);
	if (cmd_run(c, &cerr) < 0) {
		set_errf(err, "%s: %s", name, cerr ? cerr : "git mailsplit failed");
		goto out;
	}
	if (count.data)
		count.data[strcspn(count.data, "\n")] = '\0';
	if (parse_int(buf_str(&count), 0, SERIES_MESSAGES_MAX, &n) < 0) {
		set_errf(err, "%s: git mailsplit said '%s' mails", name, buf_str(&count));
		goto out;
	}
	if (n == 0) {
		set_errf(err, "%s: empty", name);
		goto out;
	}
	msgs = calloc((size_t)n, sizeof(*msgs));
	if (!msgs) {
		set_errf(err, "%s: out of memory", name);
		goto out;
	}
	for (nmsgs = 0; nmsgs < (size_t)n; nmsgs++) {
		char file[PATH_MAX + 16], loc[PATH_MAX + 32];

		/* line numbers only when git split where we think it did */
		msgs[nmsgs].line = (size_t)n == nlines ? lines[nmsgs] : 0;
		snprintf(file, sizeof(file), "%s/%04zu", splitdir, nmsgs + 1);
		if (msgs[nmsgs].line)
			snprintf(loc, sizeof(loc), "%s:%u", name, msgs[nmsgs].line);
		else
			snprintf(loc, sizeof(loc), "%s: mail %zu", name, nmsgs + 1);
		if (read_message(&t, file, loc, &msgs[nmsgs], err) < 0) {
			nmsgs++;
			goto out;
		}
	}
	rc = series_assemble(name, msgs, nmsgs, out, err);
out:
	for (size_t i = 0; i < nmsgs; i++)
		series_msg_release(&msgs[i]);
	free(msgs);
	if (have_tmp)
		nftw(t.path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	cmd_free(c);
	free(cerr);
	free(splitdir);
	free(lines);
	buf_release(&count);
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

/* ---- JSON ---- */

static json_t *patch_json(const struct series_patch *p)
{
	json_t *j = json_object(), *tr = json_array(), *ret = NULL;

	if (!j || !tr)
		goto out;
	for (size_t i = 0; i < p->ntrailers; i++)
		if (json_array_append_new(tr, json_pack("{s:s, s:s}", "key", p->trailers[i].key,
							"value", p->trailers[i].value)) < 0)
			goto out;
	if (json_object_set_new(j, "index", json_integer(p->index)) < 0 ||
	    json_object_set_new(j, "subject", json_string(p->subject)) < 0 ||
	    json_object_set_new(j, "title", json_string(p->title)) < 0 ||
	    json_object_set_new(j, "author", json_string(p->author)) < 0 ||
	    json_object_set_new(j, "email", json_string(p->email)) < 0 ||
	    json_object_set_new(j, "date", json_string(p->date)) < 0 ||
	    json_object_set_new(j, "message_id", json_string(p->msgid)) < 0 ||
	    json_object_set_new(j, "line", json_integer(p->line)) < 0)
		goto out;
	if (p->index > 0 &&
	    (json_object_set_new(j, "has_diff", json_boolean(p->has_diff)) < 0 ||
	     json_object_set_new(j, "files", json_integer(p->files)) < 0 ||
	     json_object_set_new(j, "insertions", json_integer(p->insertions)) < 0 ||
	     json_object_set_new(j, "deletions", json_integer(p->deletions)) < 0 ||
	     json_object_set(j, "trailers", tr) < 0))
		goto out;
	ret = j;
	j = NULL;
out:
	json_decref(tr);
	json_decref(j);
	return ret;
}

/* {"id": ..., "from": ...} or null */
static json_t *marker_json(const char *id, const char *from)
{
	if (!id)
		return json_null();
	return json_pack("{s:s, s:s}", "id", id, "from", from ? from : "");
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
		if (json_array_append_new(notes, json_string(s->notes[i])) < 0)
			goto out;
	if (json_object_set_new(j, "name", json_string(s->name)) < 0 ||
	    json_object_set_new(j, "version", json_integer(s->version)) < 0 ||
	    json_object_set_new(j, "tree", s->tree ? json_string(s->tree) : json_null()) < 0 ||
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
