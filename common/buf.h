/* SPDX-License-Identifier: GPL-2.0-only */
/* buf.h: a growable byte buffer with a hard cap (after curl's dynbuf and
 * git's strbuf). Everything read from outside is collected in one of these,
 * so no input can grow memory without bound. Always NUL-terminated. */
#ifndef KF_BUF_H
#define KF_BUF_H

#include <stdarg.h>
#include <stddef.h>

struct buf {
	char *data;     /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t alloc;
	size_t cap;     /* appends past this fail; 0 means no cap */
	int truncated;  /* an append was cut short by the cap */
};

#define BUF_INIT(capacity) { NULL, 0, 0, (capacity), 0 }

void buf_init(struct buf *b, size_t cap);
/* Appends; returns 0, or -1 when the cap cut it (b->truncated is set, what
 * fit is kept) or memory ran out. */
int buf_append(struct buf *b, const void *p, size_t n);
int buf_puts(struct buf *b, const char *s);
int buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_reset(struct buf *b);       /* len = 0, keeps memory */
void buf_release(struct buf *b);     /* frees contents */
char *buf_detach(struct buf *b);     /* returns the string, caller frees; b is empty */
const char *buf_str(const struct buf *b); /* "" when empty, borrowed */
/* Appends s (NULL: nothing) percent-encoded for a URL's path or query:
 * everything but ALPHA / DIGIT / "-._~" as %XX. */
int buf_url_encode(struct buf *b, const char *s);

#endif
