// SPDX-License-Identifier: GPL-2.0-only
/* initramfs.c: builds what a guest boots besides its kernel (images.h).
 * The base (busybox, the agent, /init) is a gzip'd cpio "newc" archive
 * cached under the SHA-256 of its inputs; each run's initrd is a small
 * uncompressed cpio with /kfleet/cmd and /kfleet/run.conf followed by the
 * bytes of the base. The orchestrator hands the result to libvirt. */
#include "images/images.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"

/* Changes whenever the layout below changes, so old cache entries go unused */
#define IMG_FORMAT_VERSION "kfleet-initramfs-1"
/* The agent refuses longer commands: one argv string is at most 128 KiB */
#define IMG_CMD_MAX (128 * 1024 - 1)

static const char init_script[] =
	"#!/bin/busybox sh\n"
	"# kfleet: PID 1 of a test guest. Runs the agent, which ends the guest;\n"
	"# if it returns, power off here: PID 1 must never exit.\n"
	"/bin/busybox --install -s\n"
	"# kselftest's runner calls /usr/bin/timeout --foreground, which busybox\n"
	"# does not take: a timeout that drops it\n"
	"rm -f /usr/bin/timeout\n"
	"printf '#!/bin/sh\\n[ \"$1\" = --foreground ] && shift\\nexec /bin/busybox timeout \"$@\"\\n' "
	"> /usr/bin/timeout\n"
	"chmod 755 /usr/bin/timeout\n"
	"/sbin/kfleet-agent\n"
	"echo \"kfleet-init: agent returned $?, powering off\"\n"
	"/bin/busybox poweroff -f\n"
	"while :; do /bin/busybox sleep 60; done\n";

/* One archive being written, with a counter for inode numbers */
struct cpio {
	struct archive *a;
	struct archive_entry *e;
	const char *path;       /* the file written, for messages */
	unsigned ino;
};

static int cpio_open(struct cpio *c, int fd, int gzip, const char *path, char **err)
{
	memset(c, 0, sizeof(*c));
	c->path = path;
	c->a = archive_write_new();
	c->e = archive_entry_new();
	if (!c->a || !c->e) {
		set_errf(err, "archive '%s': out of memory", path);
		return -1;
	}
	if (archive_write_set_format_cpio_newc(c->a) != ARCHIVE_OK ||
	    (gzip && archive_write_add_filter_gzip(c->a) != ARCHIVE_OK) ||
	    (gzip && archive_write_set_filter_option(c->a, "gzip", "timestamp", NULL) != ARCHIVE_OK) ||
	    archive_write_set_bytes_in_last_block(c->a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(c->a, fd) != ARCHIVE_OK) {
		set_errf(err, "archive '%s': %s", path, archive_error_string(c->a));
		return -1;
	}
	return 0;
}

/* Frees the archive; with close set, finishes it first (writes the trailer) */
static int cpio_finish(struct cpio *c, int finish, char **err)
{
	int rc = 0;

	if (finish && c->a && archive_write_close(c->a) != ARCHIVE_OK) {
		set_errf(err, "archive '%s': %s", c->path, archive_error_string(c->a));
		rc = -1;
	}
	if (c->a)
		archive_write_free(c->a);
	archive_entry_free(c->e);
	c->a = NULL;
	c->e = NULL;
	return rc;
}

/* Writes one header: uid/gid 0, mtime 0, so the archive is reproducible */
static int cpio_header(struct cpio *c, const char *name, unsigned mode, int64_t size,
		       unsigned rmajor, unsigned rminor, char **err)
{
	struct archive_entry *e = c->e;

	archive_entry_clear(e);
	archive_entry_set_pathname(e, name);
	archive_entry_set_mode(e, mode);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	archive_entry_set_mtime(e, 0, 0);
	archive_entry_set_ino(e, ++c->ino);
	archive_entry_set_nlink(e, (mode & AE_IFMT) == AE_IFDIR ? 2 : 1);
	archive_entry_set_size(e, size);
	if ((mode & AE_IFMT) == AE_IFCHR) {
		archive_entry_set_rdevmajor(e, rmajor);
		archive_entry_set_rdevminor(e, rminor);
	}
	if (archive_write_header(c->a, e) != ARCHIVE_OK) {
		set_errf(err, "archive '%s': entry '%s': %s", c->path, name,
			 archive_error_string(c->a));
		return -1;
	}
	return 0;
}

static int cpio_data(struct cpio *c, const char *name, const void *p, size_t n, char **err)
{
	if (n && archive_write_data(c->a, p, n) != (la_ssize_t)n) {
		set_errf(err, "archive '%s': entry '%s': %s", c->path, name,
			 archive_error_string(c->a));
		return -1;
	}
	return 0;
}

static int cpio_dir(struct cpio *c, const char *name, unsigned perm, char **err)
{
	return cpio_header(c, name, AE_IFDIR | perm, 0, 0, 0, err);
}

static int cpio_mem(struct cpio *c, const char *name, unsigned perm,
		    const void *p, size_t n, char **err)
{
	if (cpio_header(c, name, AE_IFREG | perm, (int64_t)n, 0, 0, err) < 0)
		return -1;
	return cpio_data(c, name, p, n, err);
}

/* Adds the regular file src as name; what names src in messages */
static int cpio_file(struct cpio *c, const char *name, unsigned perm,
		     const char *what, const char *src, char **err)
{
	char chunk[65536];
	struct stat st;
	int64_t left;
	ssize_t r;
	int fd, rc = -1;

	fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		set_errf(err, "%s '%s': %s", what, src, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		set_errf(err, "%s '%s': %s", what, src, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_errf(err, "%s '%s': not a regular file", what, src);
		goto out;
	}
	if (cpio_header(c, name, AE_IFREG | perm, (int64_t)st.st_size, 0, 0, err) < 0)
		goto out;
	/* exactly the size in the header, even if the file changes meanwhile */
	for (left = st.st_size; left > 0; left -= r) {
		r = read(fd, chunk, left < (int64_t)sizeof(chunk) ? (size_t)left : sizeof(chunk));
		if (r < 0 && errno == EINTR) {
			r = 0;
			continue;
		}
		if (r <= 0) {
			set_errf(err, "%s '%s': %s", what, src,
				 r < 0 ? strerror(errno) : "file shrank while reading");
			goto out;
		}
		if (cpio_data(c, name, chunk, (size_t)r, err) < 0)
			goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static int write_base(struct cpio *c, const char *busybox, const char *agent, char **err)
{
	static const struct {
		const char *name;
		unsigned perm;
	} dirs[] = {
		{ "bin", 0755 }, { "sbin", 0755 }, { "usr", 0755 }, { "usr/bin", 0755 },
		{ "usr/sbin", 0755 }, { "dev", 0755 }, { "proc", 0555 }, { "sys", 0555 },
		{ "tmp", 01777 }, { "root", 0700 }, { "etc", 0755 }, { "kfleet", 0755 },
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (cpio_dir(c, dirs[i].name, dirs[i].perm, err) < 0)
			return -1;
	/* the kernel opens it for init's stdin, stdout and stderr */
	if (cpio_header(c, "dev/console", AE_IFCHR | 0600, 0, 5, 1, err) < 0)
		return -1;
	if (cpio_mem(c, "init", 0755, init_script, strlen(init_script), err) < 0)
		return -1;
	if (cpio_file(c, "bin/busybox", 0755, "busybox", busybox, err) < 0)
		return -1;
	if (cpio_file(c, &IMG_AGENT_PATH[1], 0755, "agent", agent, err) < 0)
		return -1;
	return 0;
}

/* Finishes the temporary file tmp written on *fd: mode 0644, synced when
 * sync is set, closed (*fd = -1 once it is) and renamed to path. 0, or -1
 * with *err "KIND 'FILE': why". */
static int commit_tmp(int *fd, const char *tmp, const char *path, const char *kind, int sync,
		      char **err)
{
	if (fchmod(*fd, 0644) < 0 || (sync && fsync(*fd) < 0))
		return set_errf(err, "%s '%s': %s", kind, tmp, strerror(errno));
	if (close(*fd) < 0) {
		*fd = -1;
		return set_errf(err, "%s '%s': %s", kind, tmp, strerror(errno));
	}
	*fd = -1;
	if (rename(tmp, path) < 0)
		return set_errf(err, "%s '%s': %s", kind, path, strerror(errno));
	return 0;
}

/* Returns cache_dir/KIND-HASH.cpio.gz, writing it with write() first when it
 * is not there yet: into a temporary file, then renamed (atomic: a
 * concurrent builder renames the same bytes over it). Caller frees. */
static char *cache_build(const char *cache_dir, const char *kind, const char *hash,
			 int (*write)(struct cpio *c, void *ctx, char **err), void *ctx,
			 char **err)
{
	struct cpio c = { 0 };
	char *path = NULL, *tmp = NULL, *result = NULL;
	struct stat st;
	int fd = -1, made = 0;

	if (asprintf(&path, "%s/%s-%s.cpio.gz", cache_dir, kind, hash) < 0 ||
	    asprintf(&tmp, "%s/.%s-%s.XXXXXX", cache_dir, kind, hash) < 0) {
		path = tmp = NULL;
		set_errf(err, "%s cache path: out of memory", kind);
		goto out;
	}
	if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		result = path;
		path = NULL;
		goto out;
	}
	if (mkdir_p(cache_dir, 0755) < 0) {
		set_errf(err, "cache directory '%s': %s", cache_dir, strerror(errno));
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		set_errf(err, "%s '%s': %s", kind, tmp, strerror(errno));
		goto out;
	}
	made = 1;
	if (cpio_open(&c, fd, 1, tmp, err) < 0 || write(&c, ctx, err) < 0 ||
	    cpio_finish(&c, 1, err) < 0)
		goto out;
	if (commit_tmp(&fd, tmp, path, kind, 1, err) < 0)
		goto out;
	made = 0;
	result = path;
	path = NULL;
out:
	cpio_finish(&c, 0, NULL);
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	free(path);
	free(tmp);
	return result;
}

struct base_ctx {
	const char *busybox, *agent;
};

static int write_base_cb(struct cpio *c, void *ctx, char **err)
{
	struct base_ctx *b = ctx;

	return write_base(c, b->busybox, b->agent, err);
}

char *img_base_initramfs(const char *busybox, const char *agent,
			 const char *cache_dir, char **err)
{
	struct buf key = BUF_INIT(0);
	struct base_ctx ctx = { busybox, agent };
	char bb_hash[65], agent_hash[65], hash[65];
	char *result = NULL;

	if (err)
		*err = NULL;
	if (sha256_file(busybox, bb_hash) < 0) {
		set_errf(err, "busybox '%s': %s", busybox, strerror(errno));
		goto out;
	}
	if (sha256_file(agent, agent_hash) < 0) {
		set_errf(err, "agent '%s': %s", agent, strerror(errno));
		goto out;
	}
	if (buf_printf(&key, "%s\nbusybox %s\nagent %s\ninit\n%s",
		       IMG_FORMAT_VERSION, bb_hash, agent_hash, init_script) < 0) {
		set_errf(err, "initramfs cache key: out of memory");
		goto out;
	}
	sha256_mem(key.data, key.len, hash);
	result = cache_build(cache_dir, "initramfs", hash, write_base_cb, &ctx, err);
out:
	buf_release(&key);
	return result;
}

/* --- kernel modules ------------------------------------------------------ */

#define MODDEP_MAX (16u << 20)
#define MODULES_MAX 256

struct mods {
	const char *moddir;
	const char *release;
	char *paths[MODULES_MAX];  /* relative to moddir, in load order */
	size_t n;
	struct buf list;           /* IMG_MODULES_PATH's text */
};

/* "kernel/drivers/virtio/virtio_pci.ko" -> "virtio_pci" ('-' as '_') */
static void mod_name(const char *path, size_t len, char *out, size_t n)
{
	const char *base = path, *dot;
	size_t k;

	for (const char *p = path; p < path + len; p++)
		if (*p == '/')
			base = p + 1;
	dot = memchr(base, '.', (size_t)(path + len - base));
	k = (size_t)((dot ? dot : path + len) - base);
	if (k >= n)
		k = n - 1;
	for (size_t i = 0; i < k; i++)
		out[i] = base[i] == '-' ? '_' : base[i];
	out[k] = '\0';
}

static int mods_add(struct mods *m, const char *path, size_t len, char **err)
{
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->paths[i]) == len && !memcmp(m->paths[i], path, len))
			return 0;
	if (m->n == MODULES_MAX) {
		set_errf(err, "modules: more than %d needed", MODULES_MAX);
		return -1;
	}
	if (len < 3 || memcmp(path + len - 3, ".ko", 3)) {
		set_errf(err, "module '%.*s': only uncompressed .ko modules are supported",
			 (int)len, path);
		return -1;
	}
	m->paths[m->n] = strndup(path, len);
	if (!m->paths[m->n]) {
		set_errf(err, "modules: out of memory");
		return -1;
	}
	m->n++;
	return 0;
}

/* Adds name and its dependencies (modules.dep lists all of them, the one to
 * load first last) to the load order. */
static int mods_resolve(struct mods *m, const char *dep, size_t dep_len,
			const struct buf *builtin, const char *name, char **err)
{
	char want[128], have[128];
	const char *p = dep, *end = dep + dep_len;
	int optional = name[0] == '?';

	name += optional;
	snprintf(want, sizeof(want), "%s", name);
	for (char *q = want; *q; q++)
		if (*q == '-')
			*q = '_';
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *colon = memchr(p, ':', (size_t)(le - p));

		if (colon) {
			mod_name(p, (size_t)(colon - p), have, sizeof(have));
			if (!strcmp(have, want)) {
				const char *deps[MODULES_MAX];
				size_t lens[MODULES_MAX], nd = 0;
				const char *d = colon + 1;

				while (d < le) {
					while (d < le && *d == ' ')
						d++;
					if (d >= le)
						break;
					if (nd == MODULES_MAX) {
						set_errf(err, "module '%s': too many dependencies", name);
						return -1;
					}
					deps[nd] = d;
					while (d < le && *d != ' ')
						d++;
					lens[nd] = (size_t)(d - deps[nd]);
					nd++;
				}
				while (nd--)
					if (mods_add(m, deps[nd], lens[nd], err) < 0)
						return -1;
				return mods_add(m, p, (size_t)(colon - p), err);
			}
		}
		p = nl ? nl + 1 : end;
	}
	/* built into the kernel: nothing to load */
	for (p = buf_str(builtin), end = p + builtin->len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;

		mod_name(p, (size_t)(le - p), have, sizeof(have));
		if (!strcmp(have, want))
			return 0;
		p = nl ? nl + 1 : end;
	}
	if (optional)
		return 0;
	set_errf(err, "module '%s': not in '%s/modules.dep' nor built in", name, m->moddir);
	return -1;
}

/* Guest path of a module: flat under /lib/modules/RELEASE/kfleet/, so the
 * archive needs no directory per kernel subsystem. */
static char *mod_guest_path(const struct mods *m, const char *rel)
{
	const char *base = strrchr(rel, '/');
	char *s = NULL;

	if (asprintf(&s, "lib/modules/%s/kfleet/%s", m->release, base ? base + 1 : rel) < 0)
		return NULL;
	return s;
}

static int write_mods_cb(struct cpio *c, void *ctx, char **err)
{
	struct mods *m = ctx;
	char dir[PATH_MAX];
	int rc = 0;

	if (cpio_dir(c, "lib", 0755, err) < 0 || cpio_dir(c, "lib/modules", 0755, err) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "lib/modules/%s", m->release);
	if (cpio_dir(c, dir, 0755, err) < 0)
		return -1;
	snprintf(dir, sizeof(dir), "lib/modules/%s/kfleet", m->release);
	if (cpio_dir(c, dir, 0755, err) < 0)
		return -1;
	for (size_t i = 0; i < m->n && rc == 0; i++) {
		char *src = path_join(m->moddir, m->paths[i]), *dst = mod_guest_path(m, m->paths[i]);

		rc = src && dst ? cpio_file(c, dst, 0644, "module", src, err) : -1;
		free(src);
		free(dst);
	}
	if (rc == 0)
		rc = cpio_mem(c, &IMG_MODULES_PATH[1], 0644, m->list.data, m->list.len, err);
	return rc;
}

char *img_modules_initramfs(const char *moddir, const char *const *names, size_t n,
			    const char *cache_dir, char **err)
{
	struct mods m;
	struct buf dep = BUF_INIT(0), key = BUF_INIT(0), builtin = BUF_INIT(0);
	char *dep_path = NULL, *builtin_path = NULL, *result = NULL, hash[65];
	const char *slash;

	if (err)
		*err = NULL;
	memset(&m, 0, sizeof(m));
	buf_init(&m.list, 0);
	m.moddir = moddir;
	slash = strrchr(moddir, '/');
	m.release = slash && slash[1] ? slash + 1 : moddir;
	dep_path = path_join(moddir, "modules.dep");
	if (!dep_path || read_file(dep_path, &dep, MODDEP_MAX) < 0) {
		set_errf(err, "modules '%s': %s", dep_path ? dep_path : moddir, strerror(errno));
		goto out;
	}
	if (dep.truncated) {
		set_errf(err, "modules '%s': larger than %u bytes", dep_path, MODDEP_MAX);
		goto out;
	}
	/* optional: a kernel without it has everything as modules or nothing */
	builtin_path = path_join(moddir, "modules.builtin");
	if (builtin_path && read_file(builtin_path, &builtin, MODDEP_MAX) < 0)
		buf_reset(&builtin);
	for (size_t i = 0; i < n; i++)
		if (mods_resolve(&m, buf_str(&dep), dep.len, &builtin, names[i], err) < 0)
			goto out;
	buf_printf(&key, "%s\nmodules %s\n", IMG_FORMAT_VERSION, m.release);
	for (size_t i = 0; i < m.n; i++) {
		char *src = path_join(moddir, m.paths[i]), *dst = mod_guest_path(&m, m.paths[i]);
		char h[65];

		if (!src || !dst || sha256_file(src, h) < 0) {
			set_errf(err, "module '%s': %s", src ? src : m.paths[i], strerror(errno));
			free(src);
			free(dst);
			goto out;
		}
		for (size_t j = 0; j < i; j++) {
			char *other = mod_guest_path(&m, m.paths[j]);
			int same = other && !strcmp(other, dst);

			free(other);
			if (same) {
				set_errf(err, "modules '%s' and '%s' have the same file name",
					 m.paths[j], m.paths[i]);
				free(src);
				free(dst);
				goto out;
			}
		}
		buf_printf(&key, "%s %s\n", m.paths[i], h);
		buf_printf(&m.list, "/%s\n", dst);
		free(src);
		free(dst);
	}
	sha256_mem(key.data ? key.data : "", key.len, hash);
	result = cache_build(cache_dir, "modules", hash, write_mods_cb, &m, err);
out:
	for (size_t i = 0; i < m.n; i++)
		free(m.paths[i]);
	buf_release(&m.list);
	buf_release(&key);
	buf_release(&dep);
	buf_release(&builtin);
	free(dep_path);
	free(builtin_path);
	return result;
}

/* --- a job's programs ---------------------------------------------------- */

struct progs {
	const char *const *src, *const *names;
	size_t n;
};

static int write_progs_cb(struct cpio *c, void *ctx, char **err)
{
	struct progs *p = ctx;

	if (cpio_dir(c, "kfleet", 0755, err) < 0 || cpio_dir(c, &IMG_PROGRAMS_DIR[1], 0755, err) < 0)
		return -1;
	for (size_t i = 0; i < p->n; i++) {
		char name[300];

		snprintf(name, sizeof(name), "%s/%s", &IMG_PROGRAMS_DIR[1], p->names[i]);
		if (cpio_file(c, name, 0755, "program", p->src[i], err) < 0)
			return -1;
	}
	return 0;
}

char *img_programs_initramfs(const char *const *src, const char *const *names, size_t n,
			     const char *cache_dir, char **err)
{
	struct buf key = BUF_INIT(0);
	struct progs p = { src, names, n };
	char *result = NULL, hash[65];

	if (err)
		*err = NULL;
	buf_printf(&key, "%s\nprograms\n", IMG_FORMAT_VERSION);
	for (size_t i = 0; i < n; i++) {
		char h[65];

		if (strchr(names[i], '/') || !*names[i]) {
			set_errf(err, "program '%s': not a file name", names[i]);
			goto out;
		}
		if (sha256_file(src[i], h) < 0) {
			set_errf(err, "program '%s': %s", src[i], strerror(errno));
			goto out;
		}
		buf_printf(&key, "%s %s\n", names[i], h);
	}
	sha256_mem(key.data, key.len, hash);
	result = cache_build(cache_dir, "programs", hash, write_progs_cb, &p, err);
out:
	buf_release(&key);
	return result;
}

/* Appends the whole file src to fd */
static int append_file(int fd, const char *src, const char *out, char **err)
{
	char chunk[65536];
	ssize_t r, w;
	size_t off;
	int in, rc = -1;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		set_errf(err, "base '%s': %s", src, strerror(errno));
		return -1;
	}
	for (;;) {
		r = read(in, chunk, sizeof(chunk));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			set_errf(err, "base '%s': %s", src, strerror(errno));
			goto out;
		}
		if (r == 0)
			break;
		for (off = 0; off < (size_t)r; off += (size_t)w) {
			w = write(fd, chunk + off, (size_t)r - off);
			if (w < 0 && errno == EINTR) {
				w = 0;
				continue;
			}
			if (w < 0) {
				set_errf(err, "initrd '%s': %s", out, strerror(errno));
				goto out;
			}
		}
	}
	rc = 0;
out:
	close(in);
	return rc;
}

/* A run.conf path value: absent, or absolute and on one line */
static int conf_value_ok(const char *v)
{
	return !v || (v[0] == '/' && strlen(v) < 256 && !strpbrk(v, "\n\r"));
}

int img_run_initrd(const char *base, const struct img_run *r, const char *out, char **err)
{
	struct buf conf = BUF_INIT(0);
	struct cpio c = { 0 };
	struct stat st;
	char *tmp = NULL;
	size_t cmd_len;
	int fd = -1, rc = -1, made = 0;

	if (err)
		*err = NULL;
	if (!r || !r->command) {
		set_errf(err, "initrd '%s': no command", out);
		goto out;
	}
	cmd_len = strlen(r->command);
	if (cmd_len > IMG_CMD_MAX) {
		set_errf(err, "run %lld: command is %zu bytes, more than %d",
			 (long long)r->run_id, cmd_len, IMG_CMD_MAX);
		goto out;
	}
	if (r->timeout_s < 1) {
		set_errf(err, "run %lld: timeout %d s is not positive", (long long)r->run_id, r->timeout_s);
		goto out;
	}
	if (stat(base, &st) < 0) {
		set_errf(err, "base '%s': %s", base, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		set_errf(err, "base '%s': not a regular file", base);
		goto out;
	}
	if (!conf_value_ok(r->root_dev) || !conf_value_ok(r->results)) {
		set_errf(err, "run %lld: root disk '%s' or results '%s' is not an absolute path "
			 "on one line", (long long)r->run_id, r->root_dev ? r->root_dev : "",
			 r->results ? r->results : "");
		goto out;
	}
	if (buf_printf(&conf, "run=%lld\ntimeout=%d\noutput_max=%llu\nchannel=%s\n",
		       (long long)r->run_id, r->timeout_s, r->output_max,
		       r->virtio ? "virtio" : "ttyS1") < 0 ||
	    (r->root_dev && buf_printf(&conf, "root=%s\n", r->root_dev) < 0) ||
	    (r->results && buf_printf(&conf, "results=%s\nresults_max=%llu\nresults_files=%u\n",
				      r->results, r->results_max ? r->results_max :
				      IMG_RESULTS_STREAM_MAX, r->results_files ? r->results_files :
				      IMG_RESULTS_FILES_MAX) < 0) ||
	    asprintf(&tmp, "%s.tmp", out) < 0) {
		tmp = NULL;
		set_errf(err, "initrd '%s': out of memory", out);
		goto out;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		set_errf(err, "initrd '%s': %s", tmp, strerror(errno));
		goto out;
	}
	made = 1;
	if (cpio_open(&c, fd, 0, tmp, err) < 0 ||
	    cpio_dir(&c, "kfleet", 0755, err) < 0 ||
	    cpio_mem(&c, &IMG_CMD_PATH[1], 0644, r->command, cmd_len, err) < 0 ||
	    cpio_mem(&c, &IMG_RUNCONF_PATH[1], 0644, conf.data, conf.len, err) < 0 ||
	    cpio_finish(&c, 1, err) < 0 ||
	    append_file(fd, base, tmp, err) < 0)
		goto out;
	for (size_t i = 0; i < r->nextra && i < sizeof(r->extra) / sizeof(r->extra[0]); i++)
		if (r->extra[i] && append_file(fd, r->extra[i], tmp, err) < 0)
			goto out;
	if (commit_tmp(&fd, tmp, out, "initrd", 0, err) < 0)
		goto out;
	made = 0;
	rc = 0;
out:
	cpio_finish(&c, 0, NULL);
	if (fd >= 0)
		close(fd);
	if (made)
		unlink(tmp);
	buf_release(&conf);
	free(tmp);
	return rc;
}

/* --- a directory tree (kselftests) ------------------------------------------ */

static int fts_by_name(const FTSENT **a, const FTSENT **b)
{
	return strcmp((*a)->fts_name, (*b)->fts_name);
}

int img_tree_archive(const char *dir, const char *prefix, const char *out, char **err)
{
	char *const roots[] = { (char *)dir, NULL };
	struct cpio c = { 0 };
	char *tmp = NULL;
	size_t dlen = strlen(dir);
	FTS *fts = NULL;
	FTSENT *e;
	int fd = -1, rc = -1, files = 0;

	if (err)
		*err = NULL;
	if (asprintf(&tmp, "%s.tmp", out) < 0) {
		set_errf(err, "archive '%s': out of memory", out);
		return -1;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		set_errf(err, "archive '%s': %s", tmp, strerror(errno));
		goto out;
	}
	if (cpio_open(&c, fd, 1, out, err) < 0 || cpio_dir(&c, prefix, 0755, err) < 0)
		goto out;
	fts = fts_open(roots, FTS_PHYSICAL | FTS_NOCHDIR, fts_by_name);
	if (!fts) {
		set_errf(err, "'%s': %s", dir, strerror(errno));
		goto out;
	}
	while ((e = fts_read(fts))) {
		char *name = NULL;
		unsigned perm = e->fts_statp ? e->fts_statp->st_mode & 0777 : 0644;
		int r = 0;

		if (e->fts_info == FTS_DP || e->fts_level == 0)
			continue;
		if (e->fts_info == FTS_ERR || e->fts_info == FTS_DNR || e->fts_info == FTS_NS) {
			set_errf(err, "'%s': %s", e->fts_path, strerror(e->fts_errno));
			goto out;
		}
		if (++files > IMG_TREE_FILES_MAX) {
			set_errf(err, "'%s': more than %d files", dir, IMG_TREE_FILES_MAX);
			goto out;
		}
		if (asprintf(&name, "%s%s", prefix, e->fts_path + dlen) < 0) {
			set_errf(err, "archive '%s': out of memory", out);
			goto out;
		}
		if (e->fts_info == FTS_D)
			r = cpio_dir(&c, name, perm, err);
		else if (e->fts_info == FTS_F)
			r = cpio_file(&c, name, perm, "file", e->fts_path, err);
		/* symlinks and the rest are left out: tests are files */
		free(name);
		if (r < 0)
			goto out;
	}
	if (cpio_finish(&c, 1, err) < 0)
		goto out;
	if (close(fd) < 0 || rename(tmp, out) < 0) {
		fd = -1;
		set_errf(err, "archive '%s': %s", out, strerror(errno));
		goto out;
	}
	fd = -1;
	rc = 0;
out:
	if (fts)
		fts_close(fts);
	cpio_finish(&c, 0, NULL);
	if (fd >= 0)
		close(fd);
	if (rc < 0 && tmp)
		unlink(tmp);
	free(tmp);
	return rc;
}
