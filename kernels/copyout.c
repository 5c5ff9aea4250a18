// SPDX-License-Identifier: GPL-2.0-only
/* copyout.c: what a build leaves, taken out as hostile. A build (a series'
 * code) writes its O= directory and a stage directory as the build user;
 * kfleetd, root, then copies the kernel image, the .config, the modules
 * and a kselftest install into the artifact (builds/KEY), which only root
 * writes: every file opened beneath its directory with no link followed
 * (openat2 RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS), regular files only,
 * sizes capped, written with O_EXCL into a fresh directory. */
#include "kernels/kernelsint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define COPYOUT_DEPTH_MAX 32
#define COPYOUT_FILES_MAX 200000

static int open_beneath(int dirfd, const char *rel, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, dirfd, rel, &how, sizeof(how));
}

/* Copies the regular file open at in (size st) to a new file name in
 * the directory tofd. 0 / -1 (errno) */
static int copy_fd(int in, const struct stat *st, int tofd, const char *name)
{
	char chunk[1 << 16];
	int out = openat(tofd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			 (st->st_mode & 0111) ? 0755 : 0644);
	off_t left = st->st_size;
	int e = 0;

	if (out < 0)
		return -1;
	while (left > 0) {
		ssize_t r = read(in, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? errno : EIO;   /* shorter than it said */
			break;
		}
		if (r > left)
			r = (ssize_t)left;   /* grew meanwhile: what it was */
		for (ssize_t off = 0; off < r;) {
			ssize_t w = write(out, chunk + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				e = w < 0 ? errno : EIO;
				break;
			}
			off += w;
		}
		if (e)
			break;
		left -= r;
	}
	if (close(out) < 0 && !e)
		e = errno;
	if (e) {
		unlinkat(tofd, name, 0);
		errno = e;
		return -1;
	}
	return 0;
}

/* The regular file rel beneath root, opened for reading (its stat in
 * *st), at most max bytes: its fd, or -1 with *err */
static int take_file(const char *root, const char *rel, int64_t max, struct stat *st,
		     char **err)
{
	int rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int in = rfd < 0 ? -1 : open_beneath(rfd, rel, O_RDONLY | O_NONBLOCK);

	if (in < 0)
		set_errf(err, "'%s/%s': %s", root, rel,
			 errno == ELOOP || errno == EXDEV ? "a link, not taken" : strerror(errno));
	else if (fstat(in, st) < 0 || !S_ISREG(st->st_mode))
		set_errf(err, "'%s/%s': not a regular file, not taken", root, rel);
	else if (st->st_size > max)
		set_errf(err, "'%s/%s': %lld bytes, over the %lld a build may leave", root, rel,
			 (long long)st->st_size, (long long)max);
	else
		goto out;
	if (in >= 0)
		close(in);
	in = -1;
out:
	if (rfd >= 0)
		close(rfd);
	return in;
}

int kbuild_copyout_file(const char *root, const char *rel, const char *to, int64_t max,
			char **err)
{
	char *dir = strdup(to), *slash = dir ? strrchr(dir, '/') : NULL;
	int in = -1, tofd = -1, rc = -1;
	struct stat st;

	if (!slash) {
		set_errf(err, "'%s': not a path", to);
		goto out;
	}
	*slash = '\0';
	if ((in = take_file(root, rel, max, &st, err)) < 0)
		goto out;
	unlink(to);
	if ((tofd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    copy_fd(in, &st, tofd, slash + 1) < 0) {
		set_errf(err, "'%s': %s", to, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (tofd >= 0)
		close(tofd);
	if (in >= 0)
		close(in);
	free(dir);
	return rc;
}

int kbuild_read_beneath(const char *root, const char *rel, struct buf *b, size_t max,
			char **err)
{
	struct stat st;
	char chunk[1 << 16];
	int in = take_file(root, rel, (int64_t)max, &st, err);

	if (in < 0)
		return -1;
	for (;;) {
		ssize_t r = read(in, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (b->len + (size_t)r > max || buf_append(b, chunk, (size_t)r) < 0)
			break;
	}
	close(in);
	return 0;
}

int kbuild_copy(const char *from, const char *to, char **err)
{
	struct cmd *c = cmd_new("cp");
	int rc;

	cmd_args(c, "--", from, to, NULL);
	rc = cmd_run(c, err);
	cmd_free(c);
	return rc;
}

/* Whether a link's target, from the directory depth levels below the
 * tree's top, stays inside the tree: relative, and never above the top */
static int link_inside(const char *target, int depth)
{
	const char *p = target;
	int level = depth;

	if (!*target || target[0] == '/')
		return 0;
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2)) {
			if (--level < 0)
				return 0;
		} else if (n && !(n == 1 && *p == '.')) {
			level++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return 1;
}

struct tree_copy {
	int64_t budget;          /* bytes left */
	long files, skipped;
	char *err;
};

static int tree_dir(struct tree_copy *t, int from, int to, int depth);

/* One entry of a directory */
static int tree_entry(struct tree_copy *t, int from, int to, const char *name, int depth)
{
	struct stat st;
	int fd, rc = 0;

	if (fstatat(from, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return set_errf(&t->err, "'%s': %s", name, strerror(errno));
	if (++t->files > COPYOUT_FILES_MAX)
		return set_errf(&t->err, "more than %d files", COPYOUT_FILES_MAX);
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(from, name, target, sizeof(target) - 1);

		if (n > 0 && (target[n] = '\0', link_inside(target, depth)) &&
		    symlinkat(target, to, name) == 0)
			return 0;
		t->skipped++;
		return 0;
	}
	if (S_ISDIR(st.st_mode)) {
		int sub;

		if (depth >= COPYOUT_DEPTH_MAX)
			return set_errf(&t->err, "'%s': deeper than %d", name, COPYOUT_DEPTH_MAX);
		if (mkdirat(to, name, 0755) < 0)
			return set_errf(&t->err, "'%s': %s", name, strerror(errno));
		if ((fd = open_beneath(from, name, O_RDONLY | O_DIRECTORY)) < 0)
			return set_errf(&t->err, "'%s': %s", name, strerror(errno));
		if ((sub = openat(to, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
			close(fd);
			return set_errf(&t->err, "'%s': %s", name, strerror(errno));
		}
		rc = tree_dir(t, fd, sub, depth + 1);
		close(sub);
		close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		t->skipped++;   /* a device, a fifo, a socket */
		return 0;
	}
	if ((fd = open_beneath(from, name, O_RDONLY | O_NONBLOCK)) < 0)
		return set_errf(&t->err, "'%s': %s", name, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		t->skipped++;
	} else if (st.st_size > t->budget) {
		rc = set_errf(&t->err, "'%s': %lld bytes, past what a build may leave", name,
			      (long long)st.st_size);
	} else if (copy_fd(fd, &st, to, name) < 0) {
		rc = set_errf(&t->err, "'%s': %s", name, strerror(errno));
	} else {
		t->budget -= st.st_size;
	}
	close(fd);
	return rc;
}

static int tree_dir(struct tree_copy *t, int from, int to, int depth)
{
	int dup_fd = fcntl(from, F_DUPFD_CLOEXEC, 0);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	struct dirent *de;
	int rc = 0;

	if (!d) {
		if (dup_fd >= 0)
			close(dup_fd);
		return set_errf(&t->err, "a directory: %s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		rc = tree_entry(t, from, to, de->d_name, depth);
	}
	closedir(d);
	return rc;
}

int kbuild_copyout_tree(const char *from, const char *to, int64_t max, long *skipped,
			char **err)
{
	struct tree_copy t = { .budget = max };
	int ffd = -1, tfd = -1, rc = -1;

	if (mkdir_p(to, 0755) < 0) {
		set_errf(err, "'%s': %s", to, strerror(errno));
		return -1;
	}
	if ((ffd = open(from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    (tfd = open(to, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0) {
		set_errf(err, "'%s': %s", ffd < 0 ? from : to, strerror(errno));
		goto out;
	}
	if (tree_dir(&t, ffd, tfd, 0) < 0) {
		set_errf(err, "'%s': %s", from, t.err ? t.err : "?");
		goto out;
	}
	rc = 0;
out:
	if (skipped)
		*skipped = t.skipped;
	free(t.err);
	if (ffd >= 0)
		close(ffd);
	if (tfd >= 0)
		close(tfd);
	return rc;
}
