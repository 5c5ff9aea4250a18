// SPDX-License-Identifier: GPL-2.0-only
/* subject.c: what a patch mail's subject says before its title. Reply
 * prefixes (Re:, Fwd:, Aw:, ...) and the bracket tags git format-patch and
 * b4 write ("[PATCH bpf-next v4 2/3]", "[RFC PATCH]", "[PATCHv2 0/5]"):
 * whether it is a patch, its version, N/M, RFC and the tree it is for.
 * series.c reads every message's subject through here. */
#include "kernels/kernelsint.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

static int ci_prefix(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

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
	p += strspn(p, " \t");
	while (again) {
		again = 0;
		for (int i = 0; replies[i]; i++) {
			if (ci_prefix(p, replies[i])) {
				t->reply = 1;
				p += strlen(replies[i]);
				p += strspn(p, " \t");
				again = 1;
			}
		}
	}
	while (*p == '[') {
		const char *close = strchr(p, ']');

		if (!close || !parse_group(p + 1, (size_t)(close - p - 1), t))
			break;
		p = close + 1;
		p += strspn(p, " \t");
	}
	t->title = p;
}
