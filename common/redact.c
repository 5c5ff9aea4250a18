// SPDX-License-Identifier: GPL-2.0-only
/* redact.c: the one place that says what a secret looks like in text: the
 * password (or a token standing as the user) in a URL's userinfo, and the
 * value of a secret-named parameter (keyfile=, password=, token=, ...).
 * Whatever shows or stores a URL, or an error that quotes one (web/'s pages
 * and API, the watches' errors and log, fetch errors), passes it through
 * here first. Pure: no I/O. */
#include "common/redact.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LOGIN_MAX 32
#define NAME_MAX_LEN 64

/* The end of a URL or a value in running text */
static int ends_text(char ch)
{
	return !ch || isspace((unsigned char)ch) || strchr("'\"<>`", ch);
}

/* s[i] starts "://" after a scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) */
static int after_scheme(const char *s, size_t i)
{
	size_t j = i;

	while (j > 0 && (isalnum((unsigned char)s[j - 1]) || strchr("+-.", s[j - 1])))
		j--;
	return j < i && isalpha((unsigned char)s[j]);
}

static int login_like(const char *s, size_t n)
{
	if (!n || n > LOGIN_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("._-", s[i]))
			return 0;
	return 1;
}

/* The last '@' from p to the end of the authority (the path, query or
 * fragment), or at when there is none */
static const char *last_at(const char *p, const char *at)
{
	for (; !ends_text(*p) && !strchr("/?#", *p); p++)
		if (*p == '@')
			at = p;
	return at;
}

/* The '@' that ends the userinfo of the authority at s (just after "://"),
 * or NULL. The last '@' before the path, query or fragment; and when the
 * authority has none but a ':' not followed by a port, the first '@' of the
 * URL's text (a password with an unencoded / ? or # in it), or the last
 * one of the authority that follows it (so that the masked text, read
 * again, masks the same) */
static const char *userinfo_at(const char *s)
{
	const char *at = last_at(s, NULL), *p, *colon;

	if (at || s[0] == '[')
		return at;
	for (p = s; !ends_text(*p) && !strchr("/?#", *p); p++)
		;
	colon = memchr(s, ':', (size_t)(p - s));
	if (!colon || strspn(colon + 1, "0123456789") == (size_t)(p - colon - 1))
		return NULL;
	for (; !ends_text(*p); p++)
		if (*p == '@')
			return last_at(p + 1, p);
	return NULL;
}

/* The userinfo of the URL whose authority starts at s: its length (0: no
 * userinfo), *keep the bytes of it shown as they are */
static size_t userinfo(const char *s, size_t *keep)
{
	const char *at = userinfo_at(s), *colon;
	size_t n;

	if (!at)
		return 0;
	n = (size_t)(at - s);
	colon = memchr(s, ':', n);
	if (colon)
		*keep = (size_t)(colon - s) + 1;
	else
		*keep = login_like(s, n) ? n : 0;
	return n;
}

static int secret_name(const char *s, size_t n)
{
	static const char *const ends[] = {
		"pass", "passwd", "password", "pwd", "token", "secret", "key", "keyfile", "auth",
		"credential", "credentials", "signature", NULL,
	};

	for (int i = 0; ends[i]; i++) {
		size_t k = strlen(ends[i]);

		if (n >= k && !strncasecmp(s + n - k, ends[i], k))
			return 1;
	}
	return 0;
}

/* A secret parameter at s ("NAME=VALUE"): its length (0: none), *keep
 * the bytes of "NAME=" */
static size_t secret_param(const char *s, size_t *keep)
{
	size_t n = 0, v;

	while (n < NAME_MAX_LEN && s[n] && (isalnum((unsigned char)s[n]) || strchr("_.-", s[n])))
		n++;
	if (!n || s[n] != '=' || !secret_name(s, n))
		return 0;
	*keep = n + 1;
	for (v = n + 1; !ends_text(s[v]) && !strchr("&;#", s[v]); v++)
		;
	return v;
}

static int param_starts(const char *s, size_t i)
{
	return i == 0 || strchr("?&;", s[i - 1]) || isspace((unsigned char)s[i - 1]);
}

int redact_append(struct buf *b, const char *s)
{
	size_t i = 0, from = 0, n, keep = 0;  /* s[from, i) goes out as it is */
	int rc = 0;

	if (!s)
		return 0;
	while (s[i]) {
		int url = !strncmp(s + i, "://", 3) && after_scheme(s, i);

		if (url) {
			i += 3;
			keep = 0;
			n = userinfo(s + i, &keep);
		} else if (!param_starts(s, i) || !(n = secret_param(s + i, &keep))) {
			i++;
			continue;
		}
		if (keep < n) {
			rc |= buf_append(b, s + from, i + keep - from);
			rc |= buf_puts(b, REDACT_MASK);
			from = i + n;
		}
		i += n;
		/* the host and port: no parameters there (a masked value must
		 * not change where the authority ends) */
		while (url && !ends_text(s[i]) && !strchr("/?#", s[i]))
			i++;
	}
	rc |= buf_append(b, s + from, i - from);
	return rc ? -1 : 0;
}

char *redact_secrets(const char *s)
{
	struct buf b = BUF_INIT(0);

	if (!s)
		return NULL;
	if (redact_append(&b, s) < 0) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

void redact_secrets_in(char *s, size_t n)
{
	char *r;

	if (!s || !n)
		return;
	r = redact_secrets(s);
	snprintf(s, n, "%s", r ? r : "(not shown: out of memory while masking its secrets)");
	free(r);
}
