/* SPDX-License-Identifier: GPL-2.0-only */
/* redact.h: secrets taken out of text that is shown or stored (redact.c) */
#ifndef KF_REDACT_H
#define KF_REDACT_H

#include <stddef.h>

#include "common/buf.h"

#define REDACT_MASK "***"

/* Appends s (NULL: nothing) to b with its secrets masked:
 * - a URL's password: "scheme://user:PASS@host" -> "scheme://user:***@host";
 *   a user alone stays when it reads as a login name (1 to 32 of
 *   A-Z a-z 0-9 . _ -), else it is taken for a token and masked whole;
 * - the value of a parameter whose name ends in pass, passwd, password, pwd,
 *   token, secret, key, keyfile, auth, credential(s) or signature (any case),
 *   after ? & ; a blank or the start: "?keyfile=/root/.ssh/x" -> "?keyfile=***".
 * 0, or -1 when b's cap cut it or memory ran out. */
int redact_append(struct buf *b, const char *s);

/* s with its secrets masked, as redact_append() does; a new string the
 * caller frees (NULL: s is NULL or memory ran out) */
char *redact_secrets(const char *s);

/* The same in place, within s's n bytes (the result cut to fit); when
 * memory runs out s says that it is not shown rather than keep a secret */
void redact_secrets_in(char *s, size_t n);

#endif
