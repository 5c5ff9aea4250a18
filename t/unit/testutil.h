/* SPDX-License-Identifier: GPL-2.0-only */
/* testutil.h: small helpers the cmocka unit tests share: a temporary
 * directory per test (removed afterwards), whole-file reads and writes, and
 * golden-file comparison (REGENERATE=1 rewrites the golden instead).
 * Tests run from the source root (make does that), so fixtures are found
 * as t/data/NAME. Include after <cmocka.h>. */
#ifndef KF_TESTUTIL_H
#define KF_TESTUTIL_H

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

#define TU_DATA "t/data/"

/* Makes a fresh directory /tmp/kfleet-TAG-XXXXXX into dir (>= 64 bytes). */
static inline void tu_tmpdir(char *dir, size_t n, const char *tag)
{
	const char *base = getenv("TMPDIR");

	snprintf(dir, n, "%s/kfleet-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(dir))
		fail_msg("mkdtemp '%s': %s", dir, strerror(errno));
}

static inline int tu_rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st; (void)flag; (void)f;
	return remove(p) < 0 && errno != ENOENT ? -1 : 0;
}

/* rm -rf dir; silently does nothing for NULL or "" */
static inline void tu_rmrf(const char *dir)
{
	if (dir && *dir)
		nftw(dir, tu_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Returns dir/name, caller frees */
static inline char *tu_path(const char *dir, const char *name)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", dir, name) < 0)
		fail_msg("out of memory");
	return s;
}

/* Writes (replacing) or appends len bytes to path */
static inline void tu_write(const char *path, const void *data, size_t len, int append)
{
	int fd = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0644);
	const char *p = data;

	if (fd < 0)
		fail_msg("open '%s': %s", path, strerror(errno));
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			fail_msg("write '%s': %s", path, strerror(errno));
		}
		p += w;
		len -= (size_t)w;
	}
	close(fd);
}

static inline void tu_write_str(const char *path, const char *s)
{
	tu_write(path, s, strlen(s), 0);
}

/* Reads a whole file, NUL-terminated; NULL when it cannot be read.
 * *len (if not NULL) gets its size. Caller frees. */
static inline char *tu_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *s = NULL;
	size_t n = 0, alloc = 0, r;

	if (!f)
		return NULL;
	do {
		if (alloc - n < 65536) {
			alloc = alloc ? alloc * 2 : 65536;
			s = realloc(s, alloc + 1);
			if (!s)
				fail_msg("out of memory");
		}
		r = fread(s + n, 1, alloc - n, f);
		n += r;
	} while (r > 0);
	fclose(f);
	s[n] = '\0';
	if (len)
		*len = n;
	return s;
}

/* Compares text with the golden file t/data/NAME; with REGENERATE=1 in the
 * environment rewrites the golden instead. On a mismatch names the first
 * differing line. */
static inline void tu_golden(const char *name, const char *text, size_t len)
{
	char *path = tu_path("t/data", name), *want;
	const char *regen = getenv("REGENERATE");
	size_t wlen = 0, line = 1;

	if (regen && !strcmp(regen, "1")) {
		tu_write(path, text, len, 0);
		fprintf(stderr, "regenerated %s\n", path);
		free(path);
		return;
	}
	want = tu_slurp(path, &wlen);
	if (!want)
		fail_msg("golden '%s' is missing (run with REGENERATE=1 from the source root)",
			 path);
	for (size_t i = 0; i < len && i < wlen; i++) {
		if (text[i] != want[i]) {
			const char *a = text + i, *b = want + i;

			while (a > text && a[-1] != '\n')
				a--;
			while (b > want && b[-1] != '\n')
				b--;
			fail_msg("%s:%zu differs:\n  want: %.*s\n  got:  %.*s", path, line,
				 (int)strcspn(b, "\n"), b, (int)strcspn(a, "\n"), a);
		}
		if (text[i] == '\n')
			line++;
	}
	if (len != wlen)
		fail_msg("%s: %zu bytes generated, golden has %zu (differs after line %zu)",
			 path, len, wlen, line);
	free(want);
	free(path);
}

/* Runs fn(argc, argv) (a CLI command's entry point) with stdout and stderr
 * into files; returns its status, *out and *errout what it printed (caller
 * frees). */
static inline int tu_run_captured(int (*fn)(int, char **), char **argv, int argc, char **out,
				  char **errout)
{
	char dir[128], *po, *pe;
	int so = dup(1), se = dup(2), fo, fe, rc;

	tu_tmpdir(dir, sizeof(dir), "cli");
	po = tu_path(dir, "out");
	pe = tu_path(dir, "err");
	fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	fflush(stdout);
	fflush(stderr);
	dup2(fo, 1);
	dup2(fe, 2);
	rc = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	close(fo);
	close(fe);
	*out = tu_slurp(po, NULL);
	*errout = tu_slurp(pe, NULL);
	free(po);
	free(pe);
	tu_rmrf(dir);
	return rc;
}

/* The built agent (kfleet-agent-x86_64 is name) a test runs: $KFLEET_AGENT,
 * else B/bin/NAME next to this test's build tree (B/t/unit/PART/TEST),
 * else build/bin/NAME. Caller frees. Needs common/util.h's exe_dir(). */
static inline char *tu_agent_path(const char *name)
{
	const char *env = getenv("KFLEET_AGENT");
	char *dir, *p = NULL;

	if (env && *env)
		return strdup(env);
	dir = exe_dir();
	if (dir) {
		if (asprintf(&p, "%s/../../../bin/%s", dir, name) < 0)
			p = NULL;
		free(dir);
		if (p && access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return asprintf(&p, "build/bin/%s", name) < 0 ? NULL : p;
}

#endif
