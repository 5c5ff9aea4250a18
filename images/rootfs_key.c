// SPDX-License-Identifier: GPL-2.0-only
/* rootfs_key.c: a root disk image's spec checked (package names, suite,
 * mirror, timeout: all from a job definition) and turned into what keys its
 * cache entry: the sorted package list plus dash, and the SHA-256 of it all. */
#include "images/rootfsint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* Changes whenever what goes into an image changes, so old entries go unused */
#define ROOTFS_FORMAT_VERSION "kfleet-rootfs-1"
#define ROOTFS_SUITE_MAX      64
#define ROOTFS_MIRROR_MAX     1024
#define ROOTFS_TIMEOUT_MAX_S  (24 * 3600)

/* A build error: prefixed with the image's description */
int img_rootfs_fail(struct rootfs *r, char **err, const char *fmt, ...)
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
int img_rootfs_pkg_name_ok(const char *s)
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

int img_rootfs_check_spec(const struct img_rootfs_spec *spec, const char *cache_dir, char **err)
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
		if (!img_rootfs_pkg_name_ok(spec->packages[i]))
			return set_errf(err, "rootfs package '%s': not a Debian package name",
					shown(spec->packages[i], a, sizeof(a)));
	}
	if (spec->timeout_s < 0 || spec->timeout_s > ROOTFS_TIMEOUT_MAX_S)
		return set_errf(err, "rootfs timeout %d s: not within 0..%d", spec->timeout_s,
				ROOTFS_TIMEOUT_MAX_S);
	return 0;
}

void img_rootfs_release(struct rootfs *r)
{
	free(r->req);
	free(r->pkgs);
	buf_release(&r->what);
	free(r->dir);
	free(r->image);
}

/* Fills r from a checked spec: the package lists, the key, the paths */
int img_rootfs_init(struct rootfs *r, const struct img_rootfs_spec *spec,
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
		img_rootfs_fail(r, err, "cache directory '%s': %s", cache_dir, strerror(errno));
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
