// SPDX-License-Identifier: GPL-2.0-only
/* buf.c: growable, capped byte buffer used for HTTP bodies, file reads and
 * generated text (domain XML, HTML). */
#include "common/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b, size_t cap)
{
	memset(b, 0, sizeof(*b));
	b->cap = cap;
}

static int grow(struct buf *b, size_t need)
{
	size_t n;
	char *p;

	if (need + 1 <= b->alloc)
		return 0;
	n = b->alloc ? b->alloc : 64;
	while (n < need + 1)
		n *= 2;
	p = realloc(b->data, n);
	if (!p)
		return -1;
	b->data = p;
	b->alloc = n;
	return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	int rc = 0;

	if (b->cap && b->len + n > b->cap) {
		n = b->cap - b->len;
		b->truncated = 1;
		rc = -1;
	}
	if (grow(b, b->len + n) < 0)
		return -1;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return rc;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_append(b, s, strlen(s));
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	char small[512];
	va_list cp;
	int n;

	va_copy(cp, ap);
	n = vsnprintf(small, sizeof(small), fmt, cp);
	va_end(cp);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof(small))
		return buf_append(b, small, (size_t)n);
	{
		char *big = malloc((size_t)n + 1);
		int rc;

		if (!big)
			return -1;
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		rc = buf_append(b, big, (size_t)n);
		free(big);
		return rc;
	}
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return rc;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	b->truncated = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_release(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->alloc = 0;
	b->truncated = 0;
}

char *buf_detach(struct buf *b)
{
	char *s = b->data;

	if (!s)
		s = calloc(1, 1);
	b->data = NULL;
	b->len = b->alloc = 0;
	b->truncated = 0;
	return s;
}

const char *buf_str(const struct buf *b)
{
	return b->data ? b->data : "";
}

int buf_url_encode(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	int rc = 0;

	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
		    ch == '-' || ch == '_' || ch == '.' || ch == '~')
			rc |= buf_append(b, s, 1);
		else
			rc |= buf_printf(b, "%%%c%c", hex[ch >> 4], hex[ch & 15]);
	}
	return rc ? -1 : 0;
}
