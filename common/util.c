// SPDX-License-Identifier: GPL-2.0-only
/* util.c: time, file and path helpers and strict number parsing, shared by
 * every part of kfleet and by the static guest agent (no library beyond libc:
 * hashing is in hash.c, host facts in host.c). */
#include "common/util.h"

#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void fmt_time_ms(int64_t ms, int local, char *out, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;

	if (ms <= 0) {
		snprintf(out, n, "-");
		return;
	}
	if (!(local ? localtime_r(&t, &tm) : gmtime_r(&t, &tm)) ||
	    !strftime(out, n, local ? "%Y-%m-%d %H:%M:%S %Z" : "%Y-%m-%d %H:%M:%S", &tm))
		snprintf(out, n, "?");
}

int set_errf(char **err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) < 0)
		*err = NULL;
	va_end(ap);
	return -1;
}

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) < 0 && errno != ENOENT ? -1 : 0;
	return unlink(path) < 0 && errno != ENOENT ? -1 : 0;
}

int rm_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlink(path);
	return nftw(path, rm_one, 32, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

int mkdir_p(const char *path, unsigned mode)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(tmp, path, n + 1);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(tmp, mode) < 0) {
		struct stat st;

		if (errno != EEXIST)
			return -1;
		if (stat(tmp, &st) < 0)
			return -1;
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			return -1;
		}
	}
	return 0;
}

static int read_fd(int fd, struct buf *b, size_t max)
{
	char chunk[65536];
	size_t got = 0;

	for (;;) {
		size_t want = sizeof(chunk);
		ssize_t r;

		if (got >= max) {
			/* one more byte tells whether the file was longer */
			r = read(fd, chunk, 1);
			if (r > 0)
				b->truncated = 1;
			return r < 0 ? -1 : 0;
		}
		if (want > max - got)
			want = max - got;
		r = read(fd, chunk, want);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			return 0;
		if (buf_append(b, chunk, (size_t)r) < 0 && !b->truncated)
			return -1;
		got += (size_t)r;
	}
}

int read_file(const char *path, struct buf *b, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc, saved;

	if (fd < 0)
		return -1;
	rc = read_fd(fd, b, max);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int read_file_tail(const char *path, struct buf *b, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int rc = -1, saved;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto out;
	if ((size_t)st.st_size > max) {
		if (lseek(fd, st.st_size - (off_t)max, SEEK_SET) < 0)
			goto out;
		b->truncated = 1;
	}
	{
		int t = b->truncated;

		rc = read_fd(fd, b, max);
		b->truncated |= t;
	}
out:
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int fd_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = ENOSPC;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

int write_file(const char *path, const void *data, size_t len, unsigned mode)
{
	char tmp[PATH_MAX];
	const char *p = data;
	int fd, saved;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >= (int)sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += w;
		len -= (size_t)w;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		fd = -1;
		goto fail;
	}
	return 0;
fail:
	saved = errno;
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	errno = saved;
	return -1;
}

int path_inside(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return n && !strncmp(path, dir, n) &&
	       ((dir[n - 1] == '/' && path[n]) || path[n] == '/');
}

char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	char *s = malloc(la + strlen(b) + 2);

	if (!s)
		return NULL;
	if (la && a[la - 1] == '/')
		sprintf(s, "%s%s", a, b);
	else
		sprintf(s, "%s/%s", a, b);
	return s;
}

char *path_abs(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)))
		return NULL;
	if (path[0] == '.' && path[1] == '/')
		path += 2;
	return path_join(cwd, path);
}

char *exe_dir(void)
{
	char p[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", p, sizeof(p) - 1);
	char *slash;

	if (n < 0)
		return NULL;
	p[n] = '\0';
	slash = strrchr(p, '/');
	if (slash)
		*slash = '\0';
	return strdup(p);
}

int parse_int(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v;

	if (!s || !((*s >= '0' && *s <= '9') || (*s == '-' && s[1] >= '0' && s[1] <= '9')))
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_hostport(const char *s, char *name, size_t n, int *port)
{
	const char *p;
	size_t len;
	long long v;

	*port = -1;
	if (!s)
		return -1;
	if (s[0] == '[') {
		s++;
		p = strchr(s, ']');
		if (!p)
			return -1;
		len = (size_t)(p - s);
		if (strspn(s, "0123456789abcdefABCDEF:.") < len || !memchr(s, ':', len))
			return -1;
		p++;
	} else {
		len = strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_");
		p = s + len;
	}
	if (*p == ':') {
		if (parse_int(p + 1, 1, 65535, &v) < 0)
			return -1;
		*port = (int)v;
	} else if (*p) {
		return -1;
	}
	if (!len || len >= n)
		return -1;
	for (size_t i = 0; i < len; i++)
		name[i] = (char)((s[i] >= 'A' && s[i] <= 'Z') ? s[i] - 'A' + 'a' : s[i]);
	name[len] = '\0';
	return 0;
}

int parse_percent(const char *s, double max, double *out)
{
	size_t n = s ? strlen(s) : 0, digits = 0, points = 0;
	char tmp[32];
	double v;

	if (n && s[n - 1] == '%')
		n--;
	if (!n || n >= sizeof(tmp))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			digits++;
		else if (s[i] == '.')
			points++;
		else
			return -1;
	}
	if (!digits || points > 1)
		return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	v = strtod(tmp, NULL) / 100;
	if (!(v > 0) || v > max)
		return -1;
	*out = v;
	return 0;
}

int parse_size(const char *s, unsigned long long *out)
{
	char *end;
	unsigned long long v, mul = 1;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case '\0': break;
	case 'K': case 'k': mul = 1ULL << 10; end++; break;
	case 'M': case 'm': mul = 1ULL << 20; end++; break;
	case 'G': case 'g': mul = 1ULL << 30; end++; break;
	default: return -1;
	}
	if (*end || (v && mul > ~0ULL / v))
		return -1;
	*out = v * mul;
	return 0;
}

size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned c = s[0];
	size_t len;
	uint32_t v;

	if (c < 0x80) {
		if (cp)
			*cp = c;
		return 1;
	}
	if (c < 0xc2)
		return 0;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : c < 0xf5 ? 4 : 0;
	if (!len || n < len)
		return 0;
	v = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && (v < 0x800 || (v >= 0xd800 && v <= 0xdfff))) ||
	    (len == 4 && (v < 0x10000 || v > 0x10ffff)))
		return 0;
	if (cp)
		*cp = v;
	return len;
}

unsigned long long disk_use(const char *path)
{
	char *argv[] = { (char *)path, NULL };
	unsigned long long sum = 0;
	FTS *fts = fts_open(argv, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, NULL);
	FTSENT *e;

	while (fts && (e = fts_read(fts)))
		if (e->fts_info != FTS_DP && e->fts_statp && e->fts_info != FTS_NS &&
		    e->fts_info != FTS_ERR && e->fts_info != FTS_DNR)
			sum += (unsigned long long)e->fts_statp->st_blocks * 512;
	if (fts)
		fts_close(fts);
	return sum;
}
