/* SPDX-License-Identifier: GPL-2.0-only */
/* util.h: the few helpers every part uses: time, files, paths, numbers;
 * it hands on hash.h and host.h, so one include serves the host side. */
#ifndef KF_UTIL_H
#define KF_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/hash.h"   /* sha256_file, sha256_mem (hash.c) */
#include "common/host.h"   /* kvm_usable_here (host.c) */

int64_t now_ms(void);                  /* wall clock, ms since the epoch */
int64_t mono_ms(void);                 /* monotonic clock, ms */
/* ms since the epoch as "YYYY-MM-DD HH:MM:SS" in UTC, or in local time
 * with the zone's name after it (local != 0); "-" for ms <= 0 */
void fmt_time_ms(int64_t ms, int local, char *out, size_t n);

/* mkdir -p with mode for every created component; 0 / -1 (errno set) */
int mkdir_p(const char *path, unsigned mode);
/* Sets *err to a formatted message (caller frees; NULL when out of memory)
 * and returns -1, for `return set_errf(err, "...", ...);` */
int set_errf(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The length of the valid UTF-8 sequence at s (n bytes left), its code
 * point into *cp (may be NULL); 0 when invalid (overlong, a surrogate,
 * past U+10FFFF, cut short) */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

/* Bytes on disk under path (du: blocks, links not followed, one file
 * system, a hard link counted each time); what cannot be read counts 0 */
unsigned long long disk_use(const char *path);

/* Removes path and everything under it, not following symlinks; a path
 * that does not exist is fine. 0 / -1 (errno) */
int rm_tree(const char *path);
/* Reads at most max bytes of path into b (appending); sets b->truncated when
 * the file was longer. 0 / -1 (errno set). */
int read_file(const char *path, struct buf *b, size_t max);
/* Reads the last max bytes of a file (for big consoles); 0 / -1 */
int read_file_tail(const char *path, struct buf *b, size_t max);
/* Writes data to path atomically (temp file + rename), mode as given. */
int write_file(const char *path, const void *data, size_t len, unsigned mode);
/* Writes all n bytes of p to fd, a short write continued: 0, or -1 with
 * errno (ENOSPC on a full disk) */
int fd_write_all(int fd, const void *p, size_t n);
/* Returns a newly allocated "a/b", caller frees. */
char *path_join(const char *a, const char *b);
/* 1 when path is strictly inside dir (both resolved, as realpath gives
 * them: no "..", no trailing '/' but for "/" itself), else 0 */
int path_inside(const char *path, const char *dir);
/* Returns the absolute form of path (need not exist), caller frees; NULL on error */
char *path_abs(const char *path);
/* Directory of the running executable, caller frees */
char *exe_dir(void);

/* Strict integer parse of a whole string within [min, max]. 0 / -1 */
int parse_int(const char *s, long long min, long long max, long long *out);
/* Strict parse of a percentage "3", "3%", "2.5%" (digits, at most one
 * point, an optional '%'; no sign, blanks or exponent) into a fraction
 * (0.03), which must lie in (0, max]. 0 / -1 */
int parse_percent(const char *s, double max, double *out);
/* Parses a size like 512, 64K, 16M, 2G into bytes. 0 / -1 */
int parse_size(const char *s, unsigned long long *out);
/* Strict parse of "NAME", "NAME:PORT", "[IPV6]" or "[IPV6]:PORT" (an HTTP
 * Host header, an allowed_hosts entry): the name lowercased, without its
 * brackets, into name (n bytes), *port 1 to 65535 or -1 when none is given.
 * A NAME is A-Z a-z 0-9 . - _ and an IPV6 hex digits, ':' and '.'. 0 / -1 */
int parse_hostport(const char *s, char *name, size_t n, int *port);

#endif
