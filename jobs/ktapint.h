/* SPDX-License-Identifier: GPL-2.0-only */
/* ktapint.h: what jobs/ktap.c (the nesting, the rows) and jobs/ktap_line.c
 * (one line's syntax: version, plan and result lines, a line's prefix)
 * share. Private to the KTAP parser. */
#ifndef KF_KTAPINT_H
#define KF_KTAPINT_H

#include <stddef.h>
#include <string.h>

#define KTAP_NUMBER_DIGITS 9    /* test numbers and plans up to 999999999 */

static inline int ktap_blank(char c)
{
	return c == ' ' || c == '\t';
}

static inline int ktap_digit(char c)
{
	return c >= '0' && c <= '9';
}

static inline int ktap_alnum(char c)
{
	return ktap_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline int ktap_starts(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);

	return n >= m && !memcmp(s, lit, m);
}

static inline void ktap_skip_blanks(const char *s, size_t n, size_t *i)
{
	while (*i < n && ktap_blank(s[*i]))
		(*i)++;
}

/* Leading blanks and '#' markers (a '#' followed by a blank or the end) */
size_t ktap_line_prefix(const char *s, size_t n);
/* Parses 1..KTAP_NUMBER_DIGITS digits at s[*i]; -1 when none or too many */
long ktap_number(const char *s, size_t n, size_t *i);
/* 1 when s is "KTAP version N" or "TAP version N" (and blanks) */
int ktap_is_version(const char *s, size_t n);
/* "1..N [# directive]": N, or -1 when not a plan, -3 when N has too many
 * digits (-2 other bad numbers); *dir gets the text after '#' */
long ktap_plan(const char *s, size_t n, const char **dir, size_t *dlen);
/* 1 when s starts with the word w (any case), not a longer word */
int ktap_word_is(const char *s, size_t n, const char *w);

struct ktap_result {
	int ok;
	long num;
	const char *desc, *dir;   /* borrowed from the line */
	size_t dlen, dirlen;
};
/* "ok N ..." / "not ok N ...": 1 and *t filled, 0 when not a result line */
int ktap_result_line(const char *s, size_t n, struct ktap_result *t);

#endif
