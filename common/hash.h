/* SPDX-License-Identifier: GPL-2.0-only */
/* hash.h: SHA-256 of files and memory (OpenSSL's libcrypto), kept apart
 * from util.h's plain helpers so the static guest agent links without it. */
#ifndef KF_HASH_H
#define KF_HASH_H

#include <stddef.h>

/* SHA-256 of a file or a memory block as 64 hex chars + NUL into out. 0 / -1 */
int sha256_file(const char *path, char out[65]);
void sha256_mem(const void *p, size_t n, char out[65]);

#endif
