// SPDX-License-Identifier: GPL-2.0-only
/* agent_tar.c: a results directory as a ustar stream (agent_tar.h). The
 * tree is walked by directory descriptors (openat, O_NOFOLLOW), so a
 * symlink that the job left, or swapped in while the walk runs, is never
 * followed; names are relative to the results directory. */
#include "guest/agent_tar.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 512

struct walk {
	int measure;                 /* count only */
	agent_tar_emit emit;
	void *ctx;
	struct agent_tar_stats *st;
	char name[PATH_MAX];         /* the entry's name in the archive */
	char io[16 * BLOCK];
	int failed;                  /* emit failed: stop */
};

static int emit(struct walk *w, const void *p, size_t n)
{
	w->st->size += n;
	if (w->measure || w->failed)
		return w->failed ? -1 : 0;
	if (w->emit(w->ctx, p, n) < 0) {
		w->failed = 1;
		return -1;
	}
	return 0;
}

static int pad(struct walk *w, unsigned long long n)
{
	static const char zero[BLOCK];
	size_t r = (size_t)(n % BLOCK);

	return r ? emit(w, zero, BLOCK - r) : 0;
}

/* v as an octal field of width bytes: width - 1 digits, zero-padded, and
 * a NUL (a value too big for the field keeps its low digits; the callers'
 * values fit: 8 GiB in 11 digits, far over any results limit) */
static void octal(char *field, size_t width, unsigned long long v)
{
	field[width - 1] = '\0';
	for (size_t i = width - 1; i-- > 0; v >>= 3)
		field[i] = (char)('0' + (v & 7));
}

static int header(struct walk *w, const char *name, char type, unsigned mode,
		  unsigned long long size, long long mtime)
{
	char h[BLOCK];
	unsigned sum = 0;

	memset(h, 0, sizeof(h));
	memcpy(h, name, strnlen(name, 100));
	octal(h + 100, 8, mode & 07777);
	octal(h + 108, 8, 0);
	octal(h + 116, 8, 0);
	octal(h + 124, 12, size);
	octal(h + 136, 12, mtime > 0 ? (unsigned long long)mtime : 0);
	memset(h + 148, ' ', 8);
	h[156] = type;
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	for (size_t i = 0; i < sizeof(h); i++)
		sum += (unsigned char)h[i];
	octal(h + 148, 7, sum);         /* six digits, a NUL, and the space */
	return emit(w, h, sizeof(h));
}

/* An entry's header, preceded by a GNU long name when the name does not
 * fit ustar's 100 bytes */
static int entry(struct walk *w, char type, unsigned mode, unsigned long long size,
		 long long mtime)
{
	size_t n = strlen(w->name);

	if (n > 100 && (header(w, "././@LongLink", 'L', 0644, n + 1, 0) < 0 ||
			emit(w, w->name, n + 1) < 0 || pad(w, n + 1) < 0))
		return -1;
	return header(w, w->name, type, mode, size, mtime);
}

/* A regular file's data: exactly size bytes, zeros where it came up short */
static int data(struct walk *w, int fd, unsigned long long size)
{
	unsigned long long left = size;

	while (left) {
		size_t want = left < sizeof(w->io) ? (size_t)left : sizeof(w->io);
		ssize_t r = fd >= 0 ? read(fd, w->io, want) : 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {                  /* shrank or unreadable: zeros */
			memset(w->io, 0, want);
			r = (ssize_t)want;
		}
		if (emit(w, w->io, (size_t)r) < 0)
			return -1;
		left -= (unsigned long long)r;
	}
	return pad(w, size);
}

/* The size a file's data takes in the archive, counted without reading */
static int skip_data(struct walk *w, unsigned long long size)
{
	w->st->size += size + (BLOCK - size % BLOCK) % BLOCK;
	return 0;
}

static int walk_dir(struct walk *w, int dfd, size_t len, int depth);

/* One name in the directory dfd; w->name holds its archive name */
static int one(struct walk *w, int dfd, const char *base, size_t len, int depth)
{
	struct stat st;
	int fd;

	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		w->st->skipped++;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		if (depth >= AGENT_TAR_DEPTH || len + 2 >= sizeof(w->name)) {
			w->st->skipped++;
			return 0;
		}
		fd = openat(dfd, base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			w->st->skipped++;
			return 0;
		}
		w->name[len] = '/';
		w->name[len + 1] = '\0';
		w->st->dirs++;
		if (entry(w, '5', st.st_mode, 0, st.st_mtime) < 0) {
			close(fd);
			return -1;
		}
		return walk_dir(w, fd, len + 1, depth + 1);   /* closes fd */
	}
	if (!S_ISREG(st.st_mode)) {
		w->st->skipped++;
		return 0;
	}
	fd = -1;
	if (!w->measure) {
		struct stat now;

		fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		/* swapped for something else since the fstatat: left out */
		if (fd < 0 || fstat(fd, &now) < 0 || !S_ISREG(now.st_mode)) {
			if (fd >= 0)
				close(fd);
			w->st->skipped++;
			return 0;
		}
	}
	w->st->files++;
	w->st->bytes += (unsigned long long)st.st_size;
	if (entry(w, '0', st.st_mode, (unsigned long long)st.st_size, st.st_mtime) < 0 ||
	    (w->measure ? skip_data(w, (unsigned long long)st.st_size) :
	     data(w, fd, (unsigned long long)st.st_size)) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

/* The entries of the directory dfd (closed here), whose archive name is
 * w->name[0..len) (empty or ending in '/') */
static int walk_dir(struct walk *w, int dfd, size_t len, int depth)
{
	DIR *d = fdopendir(dfd);
	struct dirent *e;
	int rc = 0;

	if (!d) {
		close(dfd);
		w->st->skipped++;
		return 0;
	}
	while (rc == 0 && (e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (len + n + 2 >= sizeof(w->name)) {
			w->st->skipped++;
			continue;
		}
		memcpy(w->name + len, e->d_name, n + 1);
		rc = one(w, dirfd(d), e->d_name, len + n, depth);
		w->name[len] = '\0';
	}
	closedir(d);
	return rc;
}

static int run(struct walk *w, const char *dir)
{
	static const char zero[2 * BLOCK];
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	memset(w->st, 0, sizeof(*w->st));
	if (fd < 0)
		return -1;
	w->name[0] = '\0';
	if (walk_dir(w, fd, 0, 0) < 0 || emit(w, zero, sizeof(zero)) < 0)
		return -1;
	return 0;
}

int agent_tar_measure(const char *dir, struct agent_tar_stats *st)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -1;
	w->measure = 1;
	w->st = st;
	rc = run(w, dir);
	free(w);
	return rc;
}

int agent_tar_write(const char *dir, agent_tar_emit fn, void *ctx, struct agent_tar_stats *st)
{
	struct walk *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return -1;
	w->emit = fn;
	w->ctx = ctx;
	w->st = st;
	rc = run(w, dir);
	free(w);
	return rc;
}
