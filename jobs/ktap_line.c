// SPDX-License-Identifier: GPL-2.0-only
/* ktap_line.c: one KTAP / TAP line's syntax for jobs/ktap.c (ktapint.h):
 * the prefix that tells its nesting, and version, plan and result lines
 * read strictly, each bounded by the line's length. */
#include "jobs/ktapint.h"

#include <strings.h>

/* Leading blanks and '#' markers (a '#' followed by a blank or the end) */
size_t ktap_line_prefix(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		if (ktap_blank(s[i]))
			i++;
		else if (s[i] == '#' && (i + 1 == n || ktap_blank(s[i + 1])))
			i++;
		else
			break;
	}
	return i;
}

/* Parses 1..KTAP_NUMBER_DIGITS digits at s[*i]; -1 when none or too many */
long ktap_number(const char *s, size_t n, size_t *i)
{
	long v = 0;
	size_t d = 0;

	while (*i < n && ktap_digit(s[*i])) {
		if (++d > KTAP_NUMBER_DIGITS)
			return -1;
		v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	return d ? v : -1;
}

int ktap_is_version(const char *s, size_t n)
{
	size_t i;

	if (ktap_starts(s, n, "KTAP version "))
		i = 13;
	else if (ktap_starts(s, n, "TAP version "))
		i = 12;
	else
		return 0;
	if (ktap_number(s, n, &i) < 0)
		return 0;
	ktap_skip_blanks(s, n, &i);
	return i == n;
}

/* "1..N [# directive]": N, or -1 when not a plan; *dir gets the text after '#' */
long ktap_plan(const char *s, size_t n, const char **dir, size_t *dlen)
{
	size_t i = 3;
	long v;

	*dir = NULL;
	*dlen = 0;
	if (!ktap_starts(s, n, "1.."))
		return -1;
	v = ktap_number(s, n, &i);
	if (v < 0)
		return -2 - (i < n && ktap_digit(s[i]));   /* -3: too many digits */
	ktap_skip_blanks(s, n, &i);
	if (i < n && s[i] == '#') {
		*dir = s + i + 1;
		*dlen = n - i - 1;
		return v;
	}
	return i == n ? v : -1;
}

int ktap_word_is(const char *s, size_t n, const char *w)
{
	size_t m = strlen(w);

	if (n < m || strncasecmp(s, w, m))
		return 0;
	return n == m || !((s[m] >= 'a' && s[m] <= 'z') || (s[m] >= 'A' && s[m] <= 'Z') ||
			   ktap_digit(s[m]) || s[m] == '_');
}

/* "ok N ..." / "not ok N ...": 1 and *t filled, 0 when not a result line */
int ktap_result_line(const char *s, size_t n, struct ktap_result *t)
{
	size_t i;
	size_t h;

	memset(t, 0, sizeof(*t));
	if (ktap_starts(s, n, "ok") && (n == 2 || ktap_blank(s[2]))) {
		t->ok = 1;
		i = 2;
	} else if (ktap_starts(s, n, "not ok") && (n == 6 || ktap_blank(s[6]))) {
		i = 6;
	} else {
		return 0;
	}
	ktap_skip_blanks(s, n, &i);
	t->num = ktap_number(s, n, &i);
	if (t->num < 0 || (i < n && !ktap_blank(s[i])))
		return 0;
	ktap_skip_blanks(s, n, &i);
	if (i + 1 < n && s[i] == '-' && ktap_blank(s[i + 1]))
		i += 2;   /* TAP's "ok 1 - name" */
	/* the directive starts at the first '#' that begins a word */
	for (h = i; h < n; h++)
		if (s[h] == '#' && (h == i || ktap_blank(s[h - 1])))
			break;
	t->desc = s + i;
	t->dlen = h - i;
	if (h < n) {
		t->dir = s + h + 1;
		t->dirlen = n - h - 1;
	}
	return 1;
}
