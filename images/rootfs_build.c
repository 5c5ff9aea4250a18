// SPDX-License-Identifier: GPL-2.0-only
/* rootfs_build.c: builds one missing root disk image (rootfsint.h): runs
 * mmdebstrap --variant=extract into a temporary tree, lists the packages
 * from the .deb files apt downloaded (the manifest), does what no maintainer
 * script ran for (/bin/sh, mount points, /etc/passwd), and packs the tree
 * with mkfs.ext4 -d into an image sized for the job. */
#include "images/rootfsint.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"

#define ROOTFS_MKFS_MS        (600 * 1000)
#define ROOTFS_FREE_BYTES     (512ull << 20)   /* room the job gets to write */
#define ROOTFS_DEBS_MAX       20000            /* .deb files one image may list */
#define ROOTFS_LOG_TAIL       (64u << 10)
/* mke2fs.conf's inode_ratio for file systems above 512 MiB */
#define ROOTFS_INODE_RATIO    16384ull
#define ROOTFS_INODES_FREE    32768ull

/* The first "E: " line of the log's tail into out (>= 304 bytes): apt's
 * reason ("E: Unable to locate package foo") comes before mmdebstrap's own
 * closing lines, which only say that it failed. 0 when there is none. */
static int first_error_line(const char *log, char *out, size_t n)
{
	struct buf b = BUF_INIT(0);
	const char *p, *end;
	int found = 0;

	if (read_file_tail(log, &b, ROOTFS_LOG_TAIL) < 0 || !b.data) {
		buf_release(&b);
		return 0;
	}
	for (p = b.data; *p; p = *end ? end + 1 : end) {
		size_t k = 0;

		end = strchrnul(p, '\n');
		if (strncmp(p, "E: ", 3))
			continue;
		for (const char *q = p; q < end && k + 1 < n && k < 300; q++)
			out[k++] = (unsigned char)*q < 0x20 || *q == 0x7f ? '?' : *q;
		out[k] = '\0';
		found = 1;
		break;
	}
	buf_release(&b);
	return found;
}

static int run_mmdebstrap(struct rootfs *r, const char *root, const char *log, char **err)
{
	const struct img_rootfs_spec *s = r->spec;
	struct buf inc = BUF_INIT(0);
	char *why = NULL, *mirror = NULL, line[320];
	struct cmd *c = NULL;
	int rc = -1;

	for (size_t i = 0; i < r->npkgs; i++)
		if (buf_printf(&inc, "%s%s", i ? "," : "", r->pkgs[i]) < 0)
			goto oom;
	/* apt reads file: archives in place, and mmdebstrap then cannot extract
	 * them from inside the tree; copy: makes apt copy them in. mmdebstrap
	 * takes only "scheme://" URLs as mirrors: file:/srv/m is copy:///srv/m */
	if (!strncmp(s->mirror, "file:", 5)) {
		const char *p = s->mirror + 5;

		p += strspn(p, "/");
		if (asprintf(&mirror, "copy:///%s", p) < 0)
			mirror = NULL;
	} else {
		mirror = strdup(s->mirror);
	}
	if (!mirror)
		goto oom;
	c = cmd_new(s->mmdebstrap ? s->mmdebstrap : "mmdebstrap");
	cmd_label(c, "mmdebstrap");
	cmd_args(c, "--variant=extract", "--mode=root", "--format=directory", NULL);
	cmd_argf(c, "--arch=%s", r->debarch);
	cmd_argf(c, "--include=%s", buf_str(&inc));
	/* Nothing runs inside the tree in the extract variant, so it needs no
	 * /dev, /proc and /sys mounts, which a killed mmdebstrap would leave
	 * behind in a tree we then delete */
	cmd_arg(c, "--skip=chroot/mount");
	/* keeps the .deb files: the manifest is made from their names */
	cmd_arg(c, "--skip=cleanup/apt/cache");
	cmd_args(c, "--", s->suite, root, mirror, NULL);
	cmd_env_pass(c, "http_proxy");
	cmd_env_pass(c, "https_proxy");
	cmd_env_pass(c, "no_proxy");
	cmd_stderr_file(c, log);
	cmd_timeout(c, (s->timeout_s ? s->timeout_s : IMG_ROOTFS_TIMEOUT_S) * 1000);
	if (cmd_run(c, &why) < 0) {
		const struct cmd_result *res = cmd_result(c);

		if (res->end == CMD_END_EXIT && first_error_line(log, line, sizeof(line)))
			img_rootfs_fail(r, err, "mmdebstrap: exited with %d: %s", res->code, line);
		else
			img_rootfs_fail(r, err, "%s", why ? why : "mmdebstrap: out of memory");
		goto out;
	}
	rc = 0;
	goto out;
oom:
	set_errf(err, "rootfs: out of memory");
out:
	cmd_free(c);
	free(why);
	free(mirror);
	buf_release(&inc);
	return rc;
}

/* --- the tree ---------------------------------------------------------------- */

/* Opens path inside the tree at rootfd the way the guest will see it: an
 * absolute symlink a package ships (bin -> /usr/bin) resolves inside the
 * tree, never to the host's directory of the same name. */
static int open_in_root(int rootfd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (unsigned long long)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	char part[256];
	int fd, next;

	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
		return fd;
	/* Before Linux 5.6 (or under a seccomp filter that does not know
	 * openat2): follow no symlink at all, a failure but never a way out */
	fd = fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
	while (fd >= 0 && *path) {
		size_t n = strcspn(path, "/");

		if (n >= sizeof(part)) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(part, path, n);
		part[n] = '\0';
		path += n + (path[n] == '/');
		next = openat(fd, part, (*path ? O_RDONLY | O_DIRECTORY : flags) |
			      O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	return fd;
}

/* Decodes one field of an apt archive name (apt writes ':' and '_' and
 * bytes outside printable ASCII as %xx) into out; it must then consist of
 * the bytes in ok. 0 / -1 */
static int deb_field(const char *p, size_t n, const char *ok, char *out, size_t outn)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		char c = p[i];

		if (c == '%') {
			char hex[3] = { 0 };

			if (i + 2 >= n || !isxdigit((unsigned char)p[i + 1]) ||
			    !isxdigit((unsigned char)p[i + 2]))
				return -1;
			hex[0] = p[i + 1];
			hex[1] = p[i + 2];
			c = (char)strtol(hex, NULL, 16);
			i += 2;
		}
		if (!c || !strchr(ok, c) || k + 1 >= outn)
			return -1;
		out[k++] = c;
	}
	out[k] = '\0';
	return k ? 0 : -1;
}

/* "busybox_1%3a1.35.0-4_amd64.deb" -> "busybox 1:1.35.0-4 amd64\n" on b.
 * apt names the archives it downloads from the package's control fields
 * (Package_Version_Architecture.deb), none of which may hold a '_'. 0 / -1 */
static int deb_parse(const char *file, struct buf *b)
{
	static const char name_ok[] = "abcdefghijklmnopqrstuvwxyz0123456789+.-";
	static const char ver_ok[] = "abcdefghijklmnopqrstuvwxyz0123456789"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ.+~:-";
	static const char arch_ok[] = "abcdefghijklmnopqrstuvwxyz0123456789-";
	char name[IMG_ROOTFS_NAME_MAX + 1], ver[256], arch[64];
	const char *u1, *u2, *end = file + strlen(file) - 4;

	u1 = strchr(file, '_');
	u2 = u1 ? strchr(u1 + 1, '_') : NULL;
	if (!u1 || !u2 || u2 >= end || memchr(u2 + 1, '_', (size_t)(end - u2 - 1)))
		return -1;
	if (deb_field(file, (size_t)(u1 - file), name_ok, name, sizeof(name)) < 0 ||
	    !img_rootfs_pkg_name_ok(name) ||
	    deb_field(u1 + 1, (size_t)(u2 - u1 - 1), ver_ok, ver, sizeof(ver)) < 0 ||
	    deb_field(u2 + 1, (size_t)(end - u2 - 1), arch_ok, arch, sizeof(arch)) < 0)
		return -1;
	return buf_printf(b, "%s %s %s\n", name, ver, arch);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Writes the manifest of the packages extracted into out, from the .deb
 * files mmdebstrap left in var/cache/apt/archives (the extract variant
 * keeps no dpkg status), and deletes them: the guest needs none. */
static int list_packages(struct rootfs *r, int rootfd, struct buf *out, char **err)
{
	static const char archives[] = "var/cache/apt/archives";
	char **names = NULL, **lines = NULL;
	size_t n = 0, alloc = 0;
	struct dirent *e;
	DIR *d = NULL;
	int fd, rc = -1;

	fd = open_in_root(rootfd, archives, O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		img_rootfs_fail(r, err, "'%s' in the tree: %s", archives, strerror(errno));
		goto out;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		img_rootfs_fail(r, err, "'%s' in the tree: %s", archives, strerror(errno));
		goto out;
	}
	/* names first, then remove: readdir() need not be stable under unlink */
	while ((errno = 0, e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".deb"))
			continue;
		if (n == ROOTFS_DEBS_MAX) {
			img_rootfs_fail(r, err, "'%s': more than %d packages", archives, ROOTFS_DEBS_MAX);
			goto out;
		}
		if (n == alloc) {
			char **nn = realloc(names, (alloc = alloc ? 2 * alloc : 64) * sizeof(*nn));

			if (!nn)
				goto oom;
			names = nn;
		}
		if (!(names[n] = strdup(e->d_name)))
			goto oom;
		n++;
	}
	if (errno) {
		img_rootfs_fail(r, err, "'%s' in the tree: %s", archives, strerror(errno));
		goto out;
	}
	if (!n) {
		img_rootfs_fail(r, err, "mmdebstrap left no .deb files in '%s' to list", archives);
		goto out;
	}
	lines = calloc(n, sizeof(*lines));
	if (!lines)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct buf l = BUF_INIT(0);

		if (deb_parse(names[i], &l) < 0) {
			buf_release(&l);
			img_rootfs_fail(r, err, "'%s/%s': not a name apt gives a package (name_version_arch.deb)",
			      archives, names[i]);
			goto out;
		}
		lines[i] = buf_detach(&l);
		if (!lines[i])
			goto oom;
		if (unlinkat(dirfd(d), names[i], 0) < 0 && errno != ENOENT) {
			img_rootfs_fail(r, err, "'%s/%s': %s", archives, names[i], strerror(errno));
			goto out;
		}
	}
	qsort(lines, n, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < n; i++)
		if (buf_puts(out, lines[i]) < 0)
			goto oom;
	rc = 0;
	goto out;
oom:
	set_errf(err, "rootfs: out of memory");
out:
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		if (lines)
			free(lines[i]);
	}
	free(names);
	free(lines);
	if (d)
		closedir(d);
	return rc;
}

/* Creates dir/name (mode exactly mode) unless it exists; a symlink a
 * package put there stays as it is. 0 / -1 (errno) */
static int make_dir(int dir, const char *name, unsigned mode)
{
	struct stat st;

	if (mkdirat(dir, name, 0700) < 0 && errno != EEXIST)
		return -1;
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (S_ISLNK(st.st_mode))
		return 0;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return fchmodat(dir, name, mode, 0);
}

/* Writes text to dir/name unless something is there already. 0 / -1 */
static int put_file(int dir, const char *name, const char *text)
{
	size_t len = strlen(text);
	int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno == EEXIST ? 0 : -1;
	if (write(fd, text, len) != (ssize_t)len || fchmod(fd, 0644) < 0) {
		int e = errno;

		close(fd);
		errno = e ? e : EIO;
		return -1;
	}
	return close(fd);
}

/* Does what the maintainer scripts the extract variant skips would have
 * done, as far as the agent and a job's command need it. */
static int fixup(struct rootfs *r, int rootfd, char **err)
{
	static const struct { const char *name; unsigned mode; } dirs[] = {
		/* what the guest mounts on or writes to */
		{ "proc", 0755 }, { "sys", 0755 }, { "dev", 0755 }, { "tmp", 01777 },
		{ "run", 0755 }, { "kfleet", 0755 }, { "root", 0755 }, { "etc", 0755 },
	};
	struct stat st;
	const char *where = NULL;
	int bin = -1, etc = -1, cache = -1, rc = -1;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (make_dir(rootfd, dirs[i].name, dirs[i].mode) < 0) {
			where = dirs[i].name;
			goto fail;
		}

	/* dash's postinst would make /bin/sh; bookworm's dash ships it, but
	 * not every suite's does */
	where = "bin";
	if (make_dir(rootfd, "bin", 0755) < 0)
		goto fail;
	bin = open_in_root(rootfd, "bin", O_RDONLY | O_DIRECTORY);
	if (bin < 0)
		goto fail;
	if (fstatat(bin, "sh", &st, AT_SYMLINK_NOFOLLOW) < 0) {
		where = "bin/sh";
		if (errno != ENOENT)
			goto fail;
		if (fstatat(bin, "dash", &st, AT_SYMLINK_NOFOLLOW) < 0) {
			img_rootfs_fail(r, err, "no /bin/dash in the tree to link /bin/sh to");
			goto out;
		}
		if (symlinkat("dash", bin, "sh") < 0)
			goto fail;
	}

	/* base-passwd's postinst would write them; the agent runs as root */
	where = "etc";
	etc = open_in_root(rootfd, "etc", O_RDONLY | O_DIRECTORY);
	if (etc < 0)
		goto fail;
	where = "etc/passwd";
	if (put_file(etc, "passwd", "root:x:0:0:root:/root:/bin/sh\n") < 0)
		goto fail;
	where = "etc/group";
	if (put_file(etc, "group", "root:x:0:\n") < 0)
		goto fail;
	/* mmdebstrap copies in the host's: the guest is not the host */
	if (unlinkat(etc, "resolv.conf", 0) < 0 && errno != ENOENT) {
		where = "etc/resolv.conf";
		goto fail;
	}
	if (unlinkat(etc, "hostname", 0) < 0 && errno != ENOENT) {
		where = "etc/hostname";
		goto fail;
	}

	/* what apt-get clean, skipped for the manifest, would have removed */
	cache = open_in_root(rootfd, "var/cache/apt", O_RDONLY | O_DIRECTORY);
	if (cache >= 0) {
		unlinkat(cache, "pkgcache.bin", 0);
		unlinkat(cache, "srcpkgcache.bin", 0);
	}
	rc = 0;
	goto out;
fail:
	img_rootfs_fail(r, err, "'%s' in the tree: %s", where, strerror(errno));
out:
	if (bin >= 0)
		close(bin);
	if (etc >= 0)
		close(etc);
	if (cache >= 0)
		close(cache);
	return rc;
}

/* Bytes the tree takes on disk and how many files it holds. 0 / -1 */
static int tree_size(struct rootfs *r, const char *root, unsigned long long *bytes,
		     unsigned long long *files, char **err)
{
	char *paths[] = { (char *)root, NULL };
	FTSENT *e;
	FTS *fts;
	int rc = 0;

	*bytes = *files = 0;
	fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, NULL);
	if (!fts)
		return img_rootfs_fail(r, err, "'%s': %s", root, strerror(errno));
	while ((e = fts_read(fts))) {
		if (e->fts_info == FTS_DP)
			continue;
		if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR || e->fts_info == FTS_NS) {
			rc = img_rootfs_fail(r, err, "'%s': %s", e->fts_path, strerror(e->fts_errno));
			break;
		}
		*bytes += (unsigned long long)e->fts_statp->st_blocks * 512;
		(*files)++;
	}
	if (!rc && errno) {
		/* fts_read() returns NULL with errno 0 at the end */
		rc = img_rootfs_fail(r, err, "'%s': %s", root, strerror(errno));
	}
	fts_close(fts);
	return rc;
}

/* rm -rf that stays on path's file system: were something still mounted in
 * the tree (a /dev, a /proc), rm_tree() would delete through it into the
 * host's. 0 / -1 */
int img_rootfs_tree_remove(const char *path)
{
	char *paths[] = { (char *)path, NULL };
	int rc = 0, saved = 0;
	FTSENT *e;
	FTS *fts;

	fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, NULL);
	if (!fts)
		return -1;
	while ((e = fts_read(fts))) {
		int r = 0;

		switch (e->fts_info) {
		case FTS_D:
			break;
		case FTS_DP:
			r = rmdir(e->fts_accpath);
			break;
		case FTS_DNR:
		case FTS_ERR:
		case FTS_NS:
			errno = e->fts_errno;
			r = -1;
			break;
		default:
			r = unlink(e->fts_accpath);
			break;
		}
		if (r < 0 && errno != ENOENT && !saved) {
			saved = errno;
			rc = -1;
		}
	}
	fts_close(fts);
	errno = saved;
	return rc;
}

static int run_mkfs(struct rootfs *r, const char *root, const char *image, char **err)
{
	unsigned long long bytes, files, mib, inodes;
	struct cmd *c;
	char *why = NULL;
	int rc = -1;

	if (tree_size(r, root, &bytes, &files, err) < 0)
		return -1;
	/* the image is sparse: the free room costs nothing until used */
	mib = (bytes + bytes / 5 + ROOTFS_FREE_BYTES + (1ull << 20) - 1) >> 20;
	inodes = files + files / 5 + ROOTFS_INODES_FREE;

	c = cmd_new("mkfs.ext4");
	cmd_args(c, "-q", "-F", "-L", "kfleet-root", "-d", root, "-E", "root_owner=0:0", NULL);
	/* a tree of many small files can need more inodes than the size gives */
	if (inodes > (mib << 20) / ROOTFS_INODE_RATIO)
		cmd_argf(c, "-N%llu", inodes);
	cmd_arg(c, image);
	cmd_argf(c, "%lluM", mib);
	cmd_timeout(c, ROOTFS_MKFS_MS);
	if (cmd_run(c, &why) < 0) {
		img_rootfs_fail(r, err, "%s", why ? why : "mkfs.ext4: out of memory");
		goto out;
	}
	rc = 0;
out:
	cmd_free(c);
	free(why);
	return rc;
}

/* Builds the image into tmp (a fresh directory) and moves the image and
 * its manifest into place. 0 / -1 */
int img_rootfs_build(struct rootfs *r, const char *tmp, char **err)
{
	struct buf manifest = BUF_INIT(0);
	char *root = path_join(tmp, "root"), *log = path_join(tmp, "mmdebstrap.log");
	char *image = path_join(tmp, "image.ext4"), *mpath = img_rootfs_manifest_path(r->image);
	int rootfd = -1, fd, rc = -1;

	if (!root || !log || !image || !mpath) {
		set_errf(err, "rootfs: out of memory");
		goto out;
	}
	if (run_mmdebstrap(r, root, log, err) < 0)
		goto out;
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (rootfd < 0) {
		img_rootfs_fail(r, err, "mmdebstrap made no directory '%s': %s", root, strerror(errno));
		goto out;
	}
	if (list_packages(r, rootfd, &manifest, err) < 0 || fixup(r, rootfd, err) < 0 ||
	    run_mkfs(r, root, image, err) < 0)
		goto out;
	/* QEMU runs as libvirt-qemu and must read it */
	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		img_rootfs_fail(r, err, "'%s': %s", image, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	/* the manifest first: an image in place always has its manifest */
	if (write_file(mpath, manifest.data, manifest.len, 0644) < 0) {
		img_rootfs_fail(r, err, "manifest '%s': %s", mpath, strerror(errno));
		goto out;
	}
	if (rename(image, r->image) < 0) {
		img_rootfs_fail(r, err, "'%s': %s", r->image, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (rootfd >= 0)
		close(rootfd);
	buf_release(&manifest);
	free(root);
	free(log);
	free(image);
	free(mpath);
	return rc;
}

char *img_rootfs_manifest_path(const char *image)
{
	size_t n = strlen(image);
	char *s = NULL;

	if (n > 5 && !strcmp(image + n - 5, ".ext4")) {
		if (asprintf(&s, "%.*s.manifest", (int)(n - 5), image) < 0)
			s = NULL;
	} else if (asprintf(&s, "%s.manifest", image) < 0) {
		s = NULL;
	}
	return s;
}
