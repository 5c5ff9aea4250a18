// SPDX-License-Identifier: GPL-2.0-only
/* extract.c: the second half of a results copy-out: the tar archive a
 * guest's disk yielded, extracted with libarchive into a fresh tree next to
 * the destination, trusting nothing in it (regular files and directories
 * only, no name that leaves the tree, bounded in bytes and entries), then
 * renamed into place. img_copy_out() and img_copy_extract() use it. */
#include "images/copyoutint.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

#define COPY_CHUNK      65536   /* extraction buffer */

/* One archive being extracted */
struct extract {
	struct archive *a;
	int root;                       /* the tree being built */
	const char *what;
	unsigned long long max_bytes;
	unsigned max_files;
	struct watchdog *wd;            /* NULL: no deadline */
	struct img_copy_report *rep;
	char *chunk;
};


static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Cleans an archive entry's name into out: "a/b", without "." and empty
 * components. 1: a name; 0: the top directory itself ("./"); -1: refused
 * (absolute, a ".." component, too long). */
static int clean_name(const char *name, char *out, size_t n)
{
	const char *p = name;
	size_t len = 0;

	if (*p == '/')
		return -1;
	while (*p) {
		size_t cl = strcspn(p, "/");

		if (cl == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (cl > NAME_MAX)
			return -1;
		if (cl && !(cl == 1 && p[0] == '.')) {
			if (len + 1 + cl + 1 > n)
				return -1;
			if (len)
				out[len++] = '/';
			memcpy(out + len, p, cl);
			len += cl;
		}
		p += cl;
		if (*p == '/')
			p++;
	}
	out[len] = '\0';
	return len ? 1 : 0;
}

static int x_room(struct extract *x, const char *name, char **err)
{
	char q[COPY_NAME_MAX + 4];

	if ((unsigned long long)x->rep->files + x->rep->dirs < x->max_files)
		return 0;
	return set_errf(err, "%s: more than the %u files and directories allowed (at '%s')",
			x->what, x->max_files, img_quote(name, strlen(name), q, sizeof(q)));
}

static int x_io(struct extract *x, const char *doing, const char *name, char **err)
{
	char q[COPY_NAME_MAX + 4];
	int e = errno;

	return set_errf(err, "%s: %s '%s': %s", x->what, doing,
			img_quote(name, strlen(name), q, sizeof(q)), strerror(e));
}

/* Makes directory comp in dirfd with mode 0755 (whatever the umask) and
 * returns it open, counted in rep->dirs; -1 with *err. name: for messages. */
static int x_mkdir(struct extract *x, int dirfd, const char *comp, const char *name, char **err)
{
	int fd;

	if (x_room(x, name, err) < 0)
		return -1;
	if (mkdirat(dirfd, comp, 0700) < 0)
		return x_io(x, "creating directory", name, err);
	fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0755) < 0) {
		x_io(x, "creating directory", name, err);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	x->rep->dirs++;
	return fd;
}

/* Opens (making it when missing) directory comp in dirfd. -1 with *err;
 * -2 when something else is in the way (a file listed before a name under
 * it): the entry is skipped. Never follows a symlink: none is ever made
 * here, but the tree must not be escaped even if one were. */
static int x_dir(struct extract *x, int dirfd, const char *comp, const char *name, char **err)
{
	int fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOTDIR || errno == ELOOP)
		return -2;
	if (errno != ENOENT)
		return x_io(x, "opening directory", name, err);
	return x_mkdir(x, dirfd, comp, name, err);
}

/* Opens the directory that holds name's last component (*last), making the
 * ones on the way. Returns an fd, -1 with *err, or -2 (skip the entry). */
static int x_parent(struct extract *x, char *name, const char **last, char **err)
{
	int fd = dup(x->root), nfd;
	char *p = name, *slash;

	if (fd < 0)
		return x_io(x, "opening", ".", err);
	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		nfd = x_dir(x, fd, p, name, err);
		*slash = '/';
		close(fd);
		if (nfd < 0)
			return nfd;
		fd = nfd;
		p = slash + 1;
	}
	*last = p;
	return fd;
}

static int x_archive_err(struct extract *x, char **err)
{
	const char *m = archive_error_string(x->a);
	char q[COPY_NAME_MAX * 2 + 4];

	return set_errf(err, "%s: reading the archive: %s", x->what,
			m ? img_quote(m, strlen(m), q, sizeof(q)) : "unknown error");
}

/* Writes one regular file's data. 0, 1 (skipped: the name exists already,
 * a guest's filesystem can list one name twice) or -1 with *err. */
static int x_file(struct extract *x, struct archive_entry *e, int dirfd, const char *last,
		  const char *name, char **err)
{
	char q[COPY_NAME_MAX + 4], lim[32];
	unsigned long long left = x->max_bytes - x->rep->bytes;
	la_ssize_t r;
	int fd, rc = -1;

	if (x_room(x, name, err) < 0)
		return -1;
	/* The size in the header is known before anything is written */
	if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0 &&
	    (unsigned long long)archive_entry_size(e) > left)
		goto too_big;
	fd = openat(dirfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == EEXIST)
			return 1;
		return x_io(x, "creating", name, err);
	}
	while ((r = archive_read_data(x->a, x->chunk, COPY_CHUNK)) > 0) {
		if ((unsigned long long)r > left) {
			close(fd);
			goto too_big;
		}
		left -= (unsigned long long)r;
		x->rep->bytes += (unsigned long long)r;
		if (write_all(fd, x->chunk, (size_t)r) < 0) {
			x_io(x, "writing", name, err);
			goto out;
		}
	}
	if (r < 0) {
		x_archive_err(x, err);
		goto out;
	}
	/* 0755 or 0644, never setuid, setgid or sticky, whoever's umask */
	if (fchmod(fd, archive_entry_perm(e) & 0111 ? 0755 : 0644) < 0) {
		x_io(x, "setting the mode of", name, err);
		goto out;
	}
	if (archive_entry_mtime_is_set(e)) {
		struct timespec ts[2] = {
			{ .tv_nsec = UTIME_OMIT },
			{ .tv_sec = archive_entry_mtime(e),
			  .tv_nsec = archive_entry_mtime_nsec(e) },
		};

		/* Only for the reader's benefit: a time the host cannot
		 * store leaves the file with the time it was written */
		if (ts[1].tv_nsec < 0 || ts[1].tv_nsec >= 1000000000)
			ts[1].tv_nsec = 0;
		(void)futimens(fd, ts);
	}
	x->rep->files++;
	rc = 0;
out:
	if (close(fd) < 0 && rc == 0)
		rc = x_io(x, "writing", name, err);
	return rc;
too_big:
	return set_errf(err, "%s: files add up to more than the %s limit (at '%s')", x->what,
			img_fmt_size(x->max_bytes, 0, lim), img_quote(name, strlen(name), q, sizeof(q)));
}

/* Reads every entry of the archive on fd into the tree at x->root. -1 with
 * *err, or -2 when the watchdog's deadline passed. */
static int extract_fd(struct extract *x, int fd, char **err)
{
	struct archive_entry *e;
	char name[PATH_MAX];
	int rc;

	x->a = archive_read_new();
	x->chunk = malloc(COPY_CHUNK);
	if (!x->a || !x->chunk)
		return set_errf(err, "%s: out of memory", x->what);
	/* tar only (guestfs_tar_out writes GNU tar): no compression, no
	 * other formats for a hostile stream to pick */
	if (archive_read_support_format_tar(x->a) != ARCHIVE_OK ||
	    archive_read_open_fd(x->a, fd, COPY_CHUNK) != ARCHIVE_OK)
		return x_archive_err(x, err);
	for (;;) {
		const char *raw, *last = NULL;
		int type, pfd, sub;

		if (x->wd && img_wd_phase(x->wd, NULL))
			return -2;
		rc = archive_read_next_header(x->a, &e);
		if (rc == ARCHIVE_EOF)
			break;
		if (rc < ARCHIVE_WARN)
			return x_archive_err(x, err);
		raw = archive_entry_pathname(e);
		type = archive_entry_filetype(e);
		/* Links, devices, fifos and sockets are not results */
		if (archive_entry_hardlink(e) || (type != AE_IFREG && type != AE_IFDIR)) {
			x->rep->skipped++;
			continue;
		}
		rc = raw ? clean_name(raw, name, sizeof(name)) : -1;
		if (rc == 0)
			continue;       /* "./": the directory itself */
		if (rc < 0) {
			x->rep->skipped++;
			continue;
		}
		pfd = x_parent(x, name, &last, err);
		if (pfd == -2) {
			x->rep->skipped++;
			continue;
		}
		if (pfd < 0)
			return -1;
		if (type == AE_IFDIR) {
			sub = x_dir(x, pfd, last, name, err);
			if (sub >= 0)
				close(sub);
			else if (sub == -2)
				x->rep->skipped++;
		} else {
			sub = x_file(x, e, pfd, last, name, err);
			if (sub == 1)
				x->rep->skipped++;
		}
		close(pfd);
		if (sub == -1)
			return -1;
	}
	return 0;
}

/* The destination: host_dir without trailing slashes into out; it must
 * not exist, or be an empty directory (not a symlink to one) */
int img_copy_check_host(const char *host_dir, char *out, size_t n, char **err)
{
	size_t len = host_dir ? strlen(host_dir) : 0;
	struct stat st;
	struct dirent *de;
	DIR *d;

	while (len > 1 && host_dir[len - 1] == '/')
		len--;
	if (!len || len >= n || (len == 1 && host_dir[0] == '/'))
		return set_errf(err, "host directory '%s' is not a usable path",
				host_dir ? host_dir : "(null)");
	memcpy(out, host_dir, len);
	out[len] = '\0';
	if (lstat(out, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return set_errf(err, "host directory '%s': %s", out, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return set_errf(err, "host directory '%s' exists and is not a directory", out);
	if (!(d = opendir(out)))
		return set_errf(err, "host directory '%s': %s", out, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de)
		return set_errf(err, "host directory '%s' is not empty", out);
	return 0;
}

/* The work directory next to host (same filesystem, so the finished tree
 * is renamed into place): "HOST.copyout-XXXXXX", holding "tree". */
int img_copy_make_work(const char *host, char *work, size_t n, char **err)
{
	char *parent = strdup(host), *slash;
	int rc = 0;

	if (!parent)
		return set_errf(err, "host directory '%s': out of memory", host);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir_p(parent, 0755) < 0)
			rc = set_errf(err, "host directory '%s': creating '%s': %s", host, parent,
				      strerror(errno));
	}
	free(parent);
	if (rc)
		return rc;
	if ((size_t)snprintf(work, n, "%s.copyout-XXXXXX", host) >= n)
		return set_errf(err, "host directory '%s': path too long", host);
	if (!mkdtemp(work))
		return set_errf(err, "host directory '%s': creating '%s': %s", host, work,
				strerror(errno));
	return 0;
}

/* Extracts the archive on tar_fd into WORK/tree and renames that to host */
int img_copy_extract_into(int tar_fd, const char *work, const char *host, const char *what,
			  const struct img_copy_limits *lim, struct watchdog *wd,
			  struct img_copy_report *rep, char **err)
{
	struct extract x = {
		.root = -1, .what = what, .wd = wd, .rep = rep,
		.max_bytes = lim->max_bytes, .max_files = lim->max_files,
	};
	char *tree = path_join(work, "tree");
	int rc = -1;

	if (!tree)
		return set_errf(err, "%s: out of memory", what);
	if (mkdir(tree, 0700) < 0 ||
	    (x.root = open(tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fchmod(x.root, 0755) < 0) {
		set_errf(err, "%s: creating '%s': %s", what, tree, strerror(errno));
		goto out;
	}
	rc = extract_fd(&x, tar_fd, err);
	if (rc == -2)
		rc = img_wd_timed_out(what, wd, lim->timeout_s, err);
	if (rc < 0)
		goto out;
	if (rename(tree, host) < 0) {
		rc = set_errf(err, "%s: moving '%s' to '%s': %s", what, tree, host,
			      strerror(errno));
		goto out;
	}
out:
	if (x.root >= 0)
		close(x.root);
	if (x.a)
		archive_read_free(x.a);
	free(x.chunk);
	free(tree);
	return rc;
}

void img_copy_limits_init(struct img_copy_limits *l, const struct img_copy_limits *in)
{
	memset(l, 0, sizeof(*l));
	if (in)
		*l = *in;
	if (!l->max_bytes)
		l->max_bytes = IMG_COPY_MAX_BYTES;
	if (!l->max_files)
		l->max_files = IMG_COPY_MAX_FILES;
	if (l->timeout_s <= 0)
		l->timeout_s = IMG_COPY_TIMEOUT_S;
}

int img_copy_extract(const char *tar, const char *host_dir, const struct img_copy_limits *lim,
		     struct img_copy_report *rep, char **err)
{
	struct img_copy_limits l;
	char host[PATH_MAX], work[PATH_MAX + 32], what[PATH_MAX + 16];
	int fd, rc;

	*err = NULL;
	memset(rep, 0, sizeof(*rep));
	img_copy_limits_init(&l, lim);
	snprintf(what, sizeof(what), "archive '%s'", tar);
	if ((fd = open(tar, O_RDONLY | O_CLOEXEC)) < 0)
		return set_errf(err, "%s: %s", what, strerror(errno));
	rc = img_copy_check_host(host_dir, host, sizeof(host), err);
	if (!rc)
		rc = img_copy_make_work(host, work, sizeof(work), err);
	if (!rc) {
		rc = img_copy_extract_into(fd, work, host, what, &l, NULL, rep, err);
		rm_tree(work);
	}
	close(fd);
	if (rc)
		memset(rep, 0, sizeof(*rep));
	return rc;
}
