/* util.h: the few helpers every part uses: time, files, paths, hashing. */
#ifndef KF_UTIL_H
#define KF_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

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
/* Returns a newly allocated "a/b", caller frees. */
char *path_join(const char *a, const char *b);
/* Returns the absolute form of path (need not exist), caller frees; NULL on error */
char *path_abs(const char *path);
/* Directory of the running executable, caller frees */
char *exe_dir(void);

/* SHA-256 of a file or a memory block as 64 hex chars + NUL into out. 0 / -1 */
/* This machine's KVM is usable: /dev/kvm opens and the CPU shows VMX or
 * SVM (nested setups expose a /dev/kvm whose guests never run). 1, or 0
 * with why (when why is not NULL). */
int kvm_usable_here(char *why, size_t n);

int sha256_file(const char *path, char out[65]);
void sha256_mem(const void *p, size_t n, char out[65]);

/* Strict integer parse of a whole string within [min, max]. 0 / -1 */
int parse_int(const char *s, long long min, long long max, long long *out);
/* Parses a size like 512, 64K, 16M, 2G into bytes. 0 / -1 */
int parse_size(const char *s, unsigned long long *out);

#endif
