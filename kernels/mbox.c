// SPDX-License-Identifier: GPL-2.0-only
/* mbox.c: an mbox into its messages. Before git runs, a look at each
 * message's Subject: refuses a series larger than kfleet takes. git
 * mailsplit splits it (lore's archives are mboxrd) and git mailinfo reads
 * each message (git does MIME, encodings and quoted-printable), in a
 * scratch directory outside any repository; what it leaves that is not
 * UTF-8 is escaped and marked. What is computed here besides (where each
 * message starts, for "series.mbox:120:" messages, its Message-ID and
 * parent) follows git's own rules. series.c assembles the messages into a
 * series. */
#include "kernels/kernelsint.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define SERIES_GIT_TIMEOUT_MS 60000
#define SERIES_INFO_MAX       (1u << 20)   /* mailinfo's stdout: four header lines */

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

/* Past blanks within [s, end): the buffer need not be NUL-terminated */
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

/* ---- UTF-8 ---- */

/* The length of the well-formed UTF-8 sequence at p (at most n bytes), 0
 * when there is none (RFC 3629: no overlongs, no surrogates, <= U+10FFFF) */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	size_t need;
	unsigned lo = 0x80, hi = 0xbf;

	if (p[0] >= 0x01 && p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		need = 2;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		need = 3, lo = p[0] == 0xe0 ? 0xa0 : 0x80, hi = p[0] == 0xed ? 0x9f : 0xbf;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		need = 4, lo = p[0] == 0xf0 ? 0x90 : 0x80, hi = p[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < need || p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i < need; i++)
		if (p[i] < 0x80 || p[i] > 0xbf)
			return 0;
	return need;
}

char *series_utf8(const char *s, size_t len, int *lossy)
{
	static const char hex[] = "0123456789ABCDEF";
	const unsigned char *p = (const unsigned char *)s;
	char *out, *o;
	size_t i = 0;

	if (lossy)
		*lossy = 0;
	if (len > (SIZE_MAX - 1) / 4 || !(out = malloc(len * 4 + 1)))
		return NULL;
	o = out;
	while (i < len) {
		size_t k = utf8_seq(p + i, len - i);

		if (k) {
			memcpy(o, s + i, k);
			o += k;
			i += k;
			continue;
		}
		/* "\xNN": the byte, visibly */
		*o++ = '\\';
		*o++ = 'x';
		*o++ = hex[p[i] >> 4];
		*o++ = hex[p[i] & 0xf];
		if (lossy)
			*lossy = 1;
		i++;
	}
	*o = '\0';
	return out;
}

/* Replaces *sp (NUL-terminated, may be NULL) with a valid UTF-8 copy;
 * bit into *lossy when it was not. 0 / -1 out of memory */
static int utf8_field(char **sp, unsigned bit, unsigned *lossy)
{
	char *c;
	int l;

	if (!*sp)
		return 0;
	if (!(c = series_utf8(*sp, strlen(*sp), &l)))
		return -1;
	free(*sp);
	*sp = c;
	if (l)
		*lossy |= bit;
	return 0;
}

/* A message-id without its <> and white space; caller frees */
static char *clean_msgid(const char *raw)
{
	const char *s = raw, *lt = strchr(raw, '<'), *gt;

	if (lt && (gt = strchr(lt, '>')))
		return strndup(lt + 1, (size_t)(gt - lt - 1));
	s += strspn(s, " \t");
	return strndup(s, strcspn(s, " \t\r\n"));
}

/* ---- running git ---- */

/* Where git runs: a fresh directory, outside any repository */
struct scratch {
	char path[PATH_MAX];     /* $TMPDIR/kfleet-series-XXXXXX */
	char parent[PATH_MAX];   /* where git stops looking for a repository */
	char *split;             /* path/split: a file per message */
	int made;
};

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	remove(p);
	return 0;
}

/* git with a neutral configuration, run in the scratch directory, which is
 * not inside any repository */
static struct cmd *git(const struct scratch *t, const char *sub)
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
	char *v = series_line_value(info, key);

	*out = v ? v : strdup("");
	return *out ? 0 : -1;
}

/* git mailinfo -k of message file path: its header lines into info, the
 * message and patch into msgf and patchf. reencode: -u, to UTF-8 from the
 * charsets the mail names (git refuses a charset iconv does not know), or
 * -n, the bytes as they are. (Not --encoding=UTF-8: git 2.29 to 2.4x take
 * it and convert nothing.) 0 / -1 (*cerr) */
static int mailinfo(const struct scratch *t, const char *path, const char *msgf,
		    const char *patchf, int reencode, struct buf *info, char **cerr)
{
	struct cmd *c = git(t, "mailinfo");
	int rc;

	buf_reset(info);
	cmd_args(c, "-k", reencode ? "-u" : "-n", msgf, patchf, NULL);
	cmd_stdin_file(c, path);
	cmd_stdout_buf(c, info);
	rc = cmd_run(c, cerr);
	cmd_free(c);
	return rc;
}

/* What mailinfo left that is not UTF-8, escaped (SERIES_LOSSY_*) */
static int clean_fields(struct series_msg *m)
{
	if (utf8_field(&m->subject, SERIES_LOSSY_SUBJECT, &m->lossy) < 0 ||
	    utf8_field(&m->author, SERIES_LOSSY_AUTHOR, &m->lossy) < 0 ||
	    utf8_field(&m->email, SERIES_LOSSY_AUTHOR, &m->lossy) < 0 ||
	    utf8_field(&m->date, SERIES_LOSSY_AUTHOR, &m->lossy) < 0 ||
	    utf8_field(&m->msgid, SERIES_LOSSY_AUTHOR, &m->lossy) < 0 ||
	    utf8_field(&m->in_reply_to, SERIES_LOSSY_AUTHOR, &m->lossy) < 0 ||
	    utf8_field(&m->body, SERIES_LOSSY_BODY, &m->lossy) < 0 ||
	    utf8_field(&m->patch, SERIES_LOSSY_BODY, &m->lossy) < 0)
		return -1;
	return 0;
}

/* The parent a reply names: In-Reply-To, else the last of References */
static char *parent_msgid(const char *mail, size_t len)
{
	char *raw = series_header(mail, len, "In-Reply-To"), *id = NULL;

	if (!raw || !strchr(raw, '<')) {
		char *refs = series_header(mail, len, "References"), *lt;

		free(raw);
		raw = NULL;
		if (refs && (lt = strrchr(refs, '<')))
			raw = strdup(lt);
		free(refs);
	}
	if (raw)
		id = clean_msgid(raw);
	free(raw);
	if (id && !*id) {
		free(id);
		id = NULL;
	}
	return id;
}

/* Reads message file path with git mailinfo into m */
static int read_message(const struct scratch *t, const char *path, const char *loc,
			struct series_msg *m, char **err)
{
	char *msgf = path_join(t->path, "msg"), *patchf = path_join(t->path, "patch");
	struct buf info = BUF_INIT(SERIES_INFO_MAX);
	char *cerr = NULL, *raw;
	int rc = -1;

	if (!msgf || !patchf || !(m->mail = slurp(path, &m->mail_len))) {
		set_errf(err, "%s: cannot read the split message: %s", loc, strerror(errno));
		goto out;
	}
	if (mailinfo(t, path, msgf, patchf, 1, &info, &cerr) < 0) {
		/* a charset git cannot convert: the bytes, marked */
		free(cerr);
		cerr = NULL;
		if (mailinfo(t, path, msgf, patchf, 0, &info, &cerr) < 0) {
			set_errf(err, "%s: %s", loc, cerr ? cerr : "git mailinfo failed");
			goto out;
		}
		m->lossy |= SERIES_LOSSY_CHARSET;
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
	m->in_reply_to = parent_msgid(m->mail, m->mail_len);
	if (!m->msgid || clean_fields(m) < 0) {
		set_errf(err, "%s: out of memory", loc);
		goto out;
	}
	rc = 0;
out:
	free(cerr);
	buf_release(&info);
	free(msgf);
	free(patchf);
	return rc;
}

void series_msg_release(struct series_msg *m)
{
	free(m->subject);
	free(m->author);
	free(m->email);
	free(m->date);
	free(m->msgid);
	free(m->in_reply_to);
	free(m->body);
	free(m->patch);
	free(m->mail);
	memset(m, 0, sizeof(*m));
}

/* An mbox git can split: not too large, no NUL byte, not empty, not too
 * many messages; how many git mailsplit should find into *nlines */
static int mbox_check(const char *name, const char *data, size_t len, size_t *nlines,
		      char **err)
{
	const char *nul;

	if (len > SERIES_MBOX_MAX)
		return set_errf(err, "%s: larger than %u MiB", name, SERIES_MBOX_MAX >> 20);
	if ((nul = memchr(data, '\0', len))) {
		unsigned line = 1;

		for (const char *p = data; p < nul; p++)
			line += *p == '\n';
		return set_errf(err, "%s:%u: a NUL byte: not an mbox", name, line);
	}
	*nlines = series_mbox_lines(data, len, NULL, 0);
	if (*nlines == 0)
		return set_errf(err, "%s: empty", name);
	if (*nlines > SERIES_MESSAGES_MAX)
		return set_errf(err, "%s: more than %d mails", name, SERIES_MESSAGES_MAX);
	return 0;
}

/* Whether the message [m, m+len) holds a diff: a "diff --git" line, or a
 * "--- " line followed by a "+++ " one */
static int has_diff_lines(const char *m, size_t len)
{
	const char *p = m, *end = m + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *next = nl ? nl + 1 : end;
		size_t l = (size_t)(next - p);

		if (l > 11 && !memcmp(p, "diff --git ", 11))
			return 1;
		if (l > 4 && !memcmp(p, "--- ", 4) && (size_t)(end - next) > 4 &&
		    !memcmp(next, "+++ ", 4))
			return 1;
		p = next;
	}
	return 0;
}

/* Before any git runs: the subjects' N/M (and the patches without one)
 * against SERIES_PATCHES_MAX, from the raw headers of each message
 * (lines[0..n-1] where they start), so that a series too large is
 * refused at once, naming the mail that says so, not after git mailinfo
 * read every mail */
static int prescan(const char *name, const char *data, size_t len, const unsigned *lines,
		   size_t n, char **err)
{
	size_t *off = calloc(n + 1, sizeof(*off)), i = 0, k = 0;
	unsigned line = 1, untagged_at = 0;
	int numbered = 0, untagged = 0, rc = -1;

	if (!off)
		return set_errf(err, "%s: out of memory", name);
	/* the byte offsets of the start lines */
	for (k = 0; k < n && i <= len;) {
		if (line == lines[k]) {
			off[k++] = i;
			continue;
		}
		const char *nl = memchr(data + i, '\n', len - i);

		if (!nl)
			break;
		i = (size_t)(nl - data) + 1;
		line++;
	}
	for (; k <= n; k++)
		off[k] = len;
	for (k = 0; k < n; k++) {
		size_t mlen = off[k + 1] - off[k];
		char *subj = series_header(data + off[k], mlen, "Subject");
		struct series_tags t;

		series_subject_parse(subj, &t);
		if (!t.reply && t.index >= 0) {
			numbered = 1;
			if (t.count > SERIES_PATCHES_MAX || t.index > SERIES_PATCHES_MAX) {
				if (t.index == 0)
					set_errf(err, "%s:%u: the cover letter: more than %d patches",
						 name, lines[k], SERIES_PATCHES_MAX);
				else
					set_errf(err, "%s:%u: patch %d/%d: more than %d patches", name,
						 lines[k], t.index, t.count, SERIES_PATCHES_MAX);
				free(subj);
				goto out;
			}
		} else if (!t.reply && has_diff_lines(data + off[k], mlen) &&
			   ++untagged == SERIES_PATCHES_MAX + 1) {
			untagged_at = lines[k];
		}
		free(subj);
	}
	if (!numbered && untagged > SERIES_PATCHES_MAX) {
		set_errf(err, "%s:%u: more than %d patches (this is patch %d, none has N/M)", name,
			 untagged_at, SERIES_PATCHES_MAX, SERIES_PATCHES_MAX + 1);
		goto out;
	}
	rc = 0;
out:
	free(off);
	return rc;
}

static int scratch_make(struct scratch *t, const char *name, char **err)
{
	const char *tmp = getenv("TMPDIR");
	char *slash;

	snprintf(t->path, sizeof(t->path), "%s/kfleet-series-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(t->path))
		return set_errf(err, "%s: scratch directory '%s': %s", name, t->path, strerror(errno));
	t->made = 1;
	snprintf(t->parent, sizeof(t->parent), "%s", t->path);
	if ((slash = strrchr(t->parent, '/')))
		*(slash == t->parent ? slash + 1 : slash) = '\0';
	t->split = path_join(t->path, "split");
	if (!t->split || mkdir(t->split, 0700) < 0)
		return set_errf(err, "%s: scratch directory: %s", name, strerror(errno));
	return 0;
}

static void scratch_remove(struct scratch *t)
{
	if (t->made)
		nftw(t->path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(t->split);
}

/* git mailsplit of the mbox into t->split; how many mails into *n */
static int mailsplit(const struct scratch *t, const char *name, const char *data, size_t len,
		     long long *n, char **err)
{
	struct buf count = BUF_INIT(1024);
	struct cmd *c = git(t, "mailsplit");
	char *cerr = NULL;
	int rc = -1;

	/* lore's archives are mboxrd, where ">From " lines are escaped */
	cmd_args(c, "--mboxrd", "-b", NULL);
	cmd_argf(c, "-o%s", t->split);
	cmd_stdin_buf(c, data, len);
	cmd_stdout_buf(c, &count);
	if (cmd_run(c, &cerr) < 0) {
		set_errf(err, "%s: %s", name, cerr ? cerr : "git mailsplit failed");
		goto out;
	}
	if (count.data)
		count.data[strcspn(count.data, "\n")] = '\0';
	if (parse_int(buf_str(&count), 0, SERIES_MESSAGES_MAX, n) < 0) {
		set_errf(err, "%s: git mailsplit said '%s' mails", name, buf_str(&count));
		goto out;
	}
	if (*n == 0) {
		set_errf(err, "%s: empty", name);
		goto out;
	}
	rc = 0;
out:
	cmd_free(c);
	free(cerr);
	buf_release(&count);
	return rc;
}

/* Each split mail through git mailinfo into msgs[0..n-1], with its line
 * in the mbox when git split where series_mbox_lines() said (nlines of
 * them); *done how many msgs[] hold something to release */
static int read_messages(const struct scratch *t, const char *name, struct series_msg *msgs,
			 size_t n, const unsigned *lines, size_t nlines, size_t *done, char **err)
{
	for (*done = 0; *done < n; (*done)++) {
		char file[PATH_MAX + 16], loc[PATH_MAX + 32];
		size_t i = *done;

		/* line numbers only when git split where we think it did */
		msgs[i].line = n == nlines ? lines[i] : 0;
		snprintf(file, sizeof(file), "%s/%04zu", t->split, i + 1);
		if (msgs[i].line)
			snprintf(loc, sizeof(loc), "%s:%u", name, msgs[i].line);
		else
			snprintf(loc, sizeof(loc), "%s: mail %zu", name, i + 1);
		if (read_message(t, file, loc, &msgs[i], err) < 0) {
			(*done)++;
			return -1;
		}
	}
	return 0;
}

int series_mbox_read(const char *name, const char *data, size_t len, struct series_msg **out,
		     size_t *nout, char **err)
{
	struct scratch t = { .made = 0 };
	struct series_msg *msgs = NULL;
	unsigned *lines = NULL;
	size_t nlines = 0, done = 0;
	long long n = 0;
	int rc = -1;

	*out = NULL;
	*nout = 0;
	if (!data)
		data = "";
	if (mbox_check(name, data, len, &nlines, err) < 0)
		return -1;
	lines = calloc(nlines, sizeof(*lines));
	if (!lines)
		return set_errf(err, "%s: out of memory", name);
	series_mbox_lines(data, len, lines, nlines);
	if (prescan(name, data, len, lines, nlines, err) < 0)
		goto out;
	if (scratch_make(&t, name, err) < 0 || mailsplit(&t, name, data, len, &n, err) < 0)
		goto out;
	msgs = calloc((size_t)n, sizeof(*msgs));
	if (!msgs) {
		set_errf(err, "%s: out of memory", name);
		goto out;
	}
	if (read_messages(&t, name, msgs, (size_t)n, lines, nlines, &done, err) < 0)
		goto out;
	*out = msgs;
	*nout = done;
	msgs = NULL;
	rc = 0;
out:
	for (size_t i = 0; msgs && i < done; i++)
		series_msg_release(&msgs[i]);
	free(msgs);
	scratch_remove(&t);
	free(lines);
	return rc;
}
