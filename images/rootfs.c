/* rootfs.c: root disk images from Debian packages (rootfs.h).
 * A job's package list (checked, sorted, plus dash) keys a cache entry; a
 * miss runs mmdebstrap --variant=extract into a temporary directory under
 * the cache, lists the packages from the .deb files apt downloaded, does
 * what no maintainer script ran for (/bin/sh, mount points, /etc/passwd),
 * and packs the tree with mkfs.ext4 -d into the image the orchestrator
 * attaches to the guest. */
#include "images/rootfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <linux/openat2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"

/* Changes whenever what goes into an image changes, so old entries go unused */
#define ROOTFS_FORMAT_VERSION "kfleet-rootfs-1"
#define ROOTFS_SUITE_MAX      64
#define ROOTFS_MIRROR_MAX     1024
#define ROOTFS_TIMEOUT_MAX_S  (24 * 3600)
#define ROOTFS_MKFS_MS        (600 * 1000)
#define ROOTFS_FREE_BYTES     (512ull << 20)   /* room the job gets to write */
#define ROOTFS_DEBS_MAX       20000            /* .deb files one image may list */
#define ROOTFS_LOG_TAIL       (64u << 10)
/* mke2fs.conf's inode_ratio for file systems above 512 MiB */
#define ROOTFS_INODE_RATIO    16384ull
#define ROOTFS_INODES_FREE    32768ull

/* One image being looked up or built */
struct rootfs {
	const struct img_rootfs_spec *spec;
	const char *debarch;            /* Debian's name of spec->arch */
	const char **req;               /* the job's packages, sorted, unique */
	size_t nreq;
	const char **pkgs;              /* the same plus dash: what is extracted */
	size_t npkgs;
	struct buf what;                /* "rootfs arm64 [bash, iproute2]" for messages */
	char hash[65];
	char *dir;                      /* the cache directory, absolute */
	char *image;                    /* DIR/rootfs-HASH.ext4 */
};

static int rfail(struct rootfs *r, char **err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A build error: prefixed with the image's description */
static int rfail(struct rootfs *r, char **err, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;

	if (!err)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || asprintf(err, "%s: %s", buf_str(&r->what), msg) < 0)
		*err = NULL;
	free(msg);
	return -1;
}

/* --- checking the spec ----------------------------------------------------- */

/* A value from outside, for a message: at most 64 bytes, control bytes as '?' */
static const char *shown(const char *s, char *out, size_t n)
{
	size_t k = 0;

	for (; *s && k + 4 < n && k < 64; s++)
		out[k++] = (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s;
	if (*s)
		out[k++] = '.', out[k++] = '.', out[k++] = '.';
	out[k] = '\0';
	return out;
}

static int is_lower_digit(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* Debian policy 5.6.1: [a-z0-9][a-z0-9+.-]+. What apt takes beyond that
 * (patterns, "pkg=ver", "pkg-", paths to .deb files, options) stays out. */
static int pkg_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 2 || n > IMG_ROOTFS_NAME_MAX || !is_lower_digit(s[0]))
		return 0;
	for (size_t i = 1; i < n; i++)
		if (!is_lower_digit(s[i]) && !strchr("+.-", s[i]))
			return 0;
	return 1;
}

static int suite_ok(const char *s)
{
	size_t n = strlen(s);

	/* first not '-': it goes on mmdebstrap's command line */
	if (n < 1 || n > ROOTFS_SUITE_MAX || !is_lower_digit(s[0]))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!is_lower_digit(s[i]) && s[i] != '-')
			return 0;
	return 1;
}

/* The mirror becomes a field of a sources.list line: whitespace would add
 * fields, a comma would split it in mmdebstrap's option parsing */
static int mirror_ok(const char *s)
{
	if (strlen(s) > ROOTFS_MIRROR_MAX ||
	    (strncmp(s, "http://", 7) && strncmp(s, "https://", 8) && strncmp(s, "file:/", 6)))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s <= 0x20 || *s == 0x7f || *s == ',')
			return 0;
	return 1;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Sorts v in place and drops repeats; returns the new count */
static size_t sort_unique(const char **v, size_t n)
{
	size_t k = 0;

	if (n)
		qsort(v, n, sizeof(*v), cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(v[k - 1], v[i]))
			v[k++] = v[i];
	return k;
}

static int check_spec(const struct img_rootfs_spec *spec, const char *cache_dir, char **err)
{
	char a[80];

	if (!spec || !cache_dir || !*cache_dir)
		return set_errf(err, "rootfs: no %s given", !spec ? "spec" : "cache directory");
	if (!spec->arch || (strcmp(spec->arch, "x86_64") && strcmp(spec->arch, "arm64")))
		return set_errf(err, "rootfs arch '%s': not x86_64 or arm64",
				spec->arch ? shown(spec->arch, a, sizeof(a)) : "(none)");
	if (!spec->suite || !suite_ok(spec->suite))
		return set_errf(err, "rootfs suite '%s': not a Debian suite name ([a-z0-9][a-z0-9-]*)",
				spec->suite ? shown(spec->suite, a, sizeof(a)) : "(none)");
	if (!spec->mirror || !mirror_ok(spec->mirror))
		return set_errf(err, "rootfs mirror '%s': not an http://, https:// or file:/ URL "
				"without whitespace and commas",
				spec->mirror ? shown(spec->mirror, a, sizeof(a)) : "(none)");
	if (spec->npackages > IMG_ROOTFS_PACKAGES_MAX)
		return set_errf(err, "rootfs: %zu packages, at most %d", spec->npackages,
				IMG_ROOTFS_PACKAGES_MAX);
	if (spec->npackages && !spec->packages)
		return set_errf(err, "rootfs: %zu packages but no list", spec->npackages);
	for (size_t i = 0; i < spec->npackages; i++) {
		if (!spec->packages[i])
			return set_errf(err, "rootfs package %zu: missing", i + 1);
		if (!pkg_name_ok(spec->packages[i]))
			return set_errf(err, "rootfs package '%s': not a Debian package name",
					shown(spec->packages[i], a, sizeof(a)));
	}
	if (spec->timeout_s < 0 || spec->timeout_s > ROOTFS_TIMEOUT_MAX_S)
		return set_errf(err, "rootfs timeout %d s: not within 0..%d", spec->timeout_s,
				ROOTFS_TIMEOUT_MAX_S);
	return 0;
}

static void rootfs_release(struct rootfs *r)
{
	free(r->req);
	free(r->pkgs);
	buf_release(&r->what);
	free(r->dir);
	free(r->image);
}

/* Fills r from a checked spec: the package lists, the key, the paths */
static int rootfs_init(struct rootfs *r, const struct img_rootfs_spec *spec,
		       const char *cache_dir, char **err)
{
	struct buf key = BUF_INIT(0);
	size_t n = spec->npackages;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	buf_init(&r->what, 0);
	r->spec = spec;
	r->debarch = strcmp(spec->arch, "x86_64") ? "arm64" : "amd64";
	r->req = calloc(n + 1, sizeof(*r->req));
	r->pkgs = calloc(n + 1, sizeof(*r->pkgs));
	if (!r->req || !r->pkgs)
		goto oom;
	if (n)
		memcpy(r->req, spec->packages, n * sizeof(*r->req));
	r->nreq = sort_unique(r->req, n);
	/* the agent runs the job's command with /bin/sh -c */
	memcpy(r->pkgs, r->req, r->nreq * sizeof(*r->pkgs));
	r->pkgs[r->nreq] = "dash";
	r->npkgs = sort_unique(r->pkgs, r->nreq + 1);

	if (buf_printf(&r->what, "rootfs %s [", spec->arch) < 0)
		goto oom;
	for (size_t i = 0; i < r->nreq; i++)
		if (buf_printf(&r->what, "%s%s", i ? ", " : "", r->req[i]) < 0)
			goto oom;
	if (buf_puts(&r->what, "]") < 0)
		goto oom;

	if (buf_printf(&key, "%s\narch %s\nsuite %s\nmirror %s\n", ROOTFS_FORMAT_VERSION,
		       spec->arch, spec->suite, spec->mirror) < 0)
		goto oom;
	for (size_t i = 0; i < r->npkgs; i++)
		if (buf_printf(&key, "package %s\n", r->pkgs[i]) < 0)
			goto oom;
	sha256_mem(key.data, key.len, r->hash);

	r->dir = path_abs(cache_dir);
	if (!r->dir) {
		rfail(r, err, "cache directory '%s': %s", cache_dir, strerror(errno));
		goto out;
	}
	if (asprintf(&r->image, "%s/rootfs-%s.ext4", r->dir, r->hash) < 0) {
		r->image = NULL;
		goto oom;
	}
	rc = 0;
	goto out;
oom:
	set_errf(err, "rootfs: out of memory");
out:
	buf_release(&key);
	return rc;
}

/* --- running mmdebstrap ---------------------------------------------------- */

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
			rfail(r, err, "mmdebstrap: exited with %d: %s", res->code, line);
		else
			rfail(r, err, "%s", why ? why : "mmdebstrap: out of memory");
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
	    !pkg_name_ok(name) ||
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
		rfail(r, err, "'%s' in the tree: %s", archives, strerror(errno));
		goto out;
	}
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		rfail(r, err, "'%s' in the tree: %s", archives, strerror(errno));
		goto out;
	}
	/* names first, then remove: readdir() need not be stable under unlink */
	while ((errno = 0, e = readdir(d))) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".deb"))
			continue;
		if (n == ROOTFS_DEBS_MAX) {
			rfail(r, err, "'%s': more than %d packages", archives, ROOTFS_DEBS_MAX);
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
		rfail(r, err, "'%s' in the tree: %s", archives, strerror(errno));
		goto out;
	}
	if (!n) {
		rfail(r, err, "mmdebstrap left no .deb files in '%s' to list", archives);
		goto out;
	}
	lines = calloc(n, sizeof(*lines));
	if (!lines)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		struct buf l = BUF_INIT(0);

		if (deb_parse(names[i], &l) < 0) {
			buf_release(&l);
			rfail(r, err, "'%s/%s': not a name apt gives a package (name_version_arch.deb)",
			      archives, names[i]);
			goto out;
		}
		lines[i] = buf_detach(&l);
		if (!lines[i])
			goto oom;
		if (unlinkat(dirfd(d), names[i], 0) < 0 && errno != ENOENT) {
			rfail(r, err, "'%s/%s': %s", archives, names[i], strerror(errno));
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
			rfail(r, err, "no /bin/dash in the tree to link /bin/sh to");
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
	rfail(r, err, "'%s' in the tree: %s", where, strerror(errno));
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
		return rfail(r, err, "'%s': %s", root, strerror(errno));
	while ((e = fts_read(fts))) {
		if (e->fts_info == FTS_DP)
			continue;
		if (e->fts_info == FTS_DNR || e->fts_info == FTS_ERR || e->fts_info == FTS_NS) {
			rc = rfail(r, err, "'%s': %s", e->fts_path, strerror(e->fts_errno));
			break;
		}
		*bytes += (unsigned long long)e->fts_statp->st_blocks * 512;
		(*files)++;
	}
	if (!rc && errno) {
		/* fts_read() returns NULL with errno 0 at the end */
		rc = rfail(r, err, "'%s': %s", root, strerror(errno));
	}
	fts_close(fts);
	return rc;
}

/* rm -rf that stays on path's file system: were something still mounted in
 * the tree (a /dev, a /proc), rm_tree() would delete through it into the
 * host's. 0 / -1 */
static int tree_remove(const char *path)
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
		rfail(r, err, "%s", why ? why : "mkfs.ext4: out of memory");
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
static int build(struct rootfs *r, const char *tmp, char **err)
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
		rfail(r, err, "mmdebstrap made no directory '%s': %s", root, strerror(errno));
		goto out;
	}
	if (list_packages(r, rootfd, &manifest, err) < 0 || fixup(r, rootfd, err) < 0 ||
	    run_mkfs(r, root, image, err) < 0)
		goto out;
	/* QEMU runs as libvirt-qemu and must read it */
	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0644) < 0 || fsync(fd) < 0) {
		rfail(r, err, "'%s': %s", image, strerror(errno));
		if (fd >= 0)
			close(fd);
		goto out;
	}
	close(fd);
	/* the manifest first: an image in place always has its manifest */
	if (write_file(mpath, manifest.data, manifest.len, 0644) < 0) {
		rfail(r, err, "manifest '%s': %s", mpath, strerror(errno));
		goto out;
	}
	if (rename(image, r->image) < 0) {
		rfail(r, err, "'%s': %s", r->image, strerror(errno));
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

/* --- the cache ----------------------------------------------------------------- */

/* Removes the trees of builders of this image that died (a killed daemon,
 * a power cut): they can be gigabytes, and with the lock held nobody else
 * is using them */
static void sweep_stale(struct rootfs *r)
{
	char prefix[80];
	struct dirent *e;
	DIR *d;

	snprintf(prefix, sizeof(prefix), ".rootfs-%s.", r->hash);
	d = opendir(r->dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		p = path_join(r->dir, e->d_name);
		if (p && tree_remove(p) < 0)
			log_warn("%s: could not remove '%s': %s", buf_str(&r->what), p,
				 strerror(errno));
		free(p);
	}
	closedir(d);
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *img_rootfs(const struct img_rootfs_spec *spec, const char *cache_dir, char **err)
{
	struct rootfs r;
	char *lock = NULL, *tmp = NULL, *result = NULL;
	int lockfd = -1, made = 0;
	int64_t t0;

	if (err)
		*err = NULL;
	if (check_spec(spec, cache_dir, err) < 0)
		return NULL;
	if (rootfs_init(&r, spec, cache_dir, err) < 0)
		goto out;
	if (is_file(r.image))
		goto done;

	if (mkdir_p(r.dir, 0755) < 0) {
		rfail(&r, err, "cache directory '%s': %s", r.dir, strerror(errno));
		goto out;
	}
	if (asprintf(&lock, "%s/rootfs-%s.lock", r.dir, r.hash) < 0)
		lock = NULL;
	if (asprintf(&tmp, "%s/.rootfs-%s.XXXXXX", r.dir, r.hash) < 0)
		tmp = NULL;
	if (!lock || !tmp) {
		set_errf(err, "rootfs: out of memory");
		goto out;
	}
	/* one builder per image; the lock file stays, as removing it would
	 * let a third party lock a new file while the second holds the old */
	lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0) {
		rfail(&r, err, "lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	while (flock(lockfd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			rfail(&r, err, "lock '%s': %s", lock, strerror(errno));
			goto out;
		}
	}
	if (is_file(r.image))
		goto done;   /* built while we waited */
	sweep_stale(&r);

	if (!mkdtemp(tmp)) {
		rfail(&r, err, "temporary directory '%s': %s", tmp, strerror(errno));
		goto out;
	}
	made = 1;
	t0 = mono_ms();
	log_info("%s: building '%s'", buf_str(&r.what), r.image);
	if (build(&r, tmp, err) < 0)
		goto out;
	log_info("%s: built '%s' in %lld s", buf_str(&r.what), r.image,
		 (long long)((mono_ms() - t0) / 1000));
done:
	result = strdup(r.image);
	if (!result)
		set_errf(err, "rootfs: out of memory");
out:
	if (made && tree_remove(tmp) < 0)
		log_warn("%s: could not remove '%s': %s", buf_str(&r.what), tmp, strerror(errno));
	if (lockfd >= 0)
		close(lockfd);   /* and with it the lock */
	free(lock);
	free(tmp);
	rootfs_release(&r);
	return result;
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
