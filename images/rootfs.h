/* SPDX-License-Identifier: GPL-2.0-only */
/* rootfs.h: root disk images with a Debian userland, for jobs that need
 * more than the initramfs's busybox (bash, iproute2, python3, ...).
 * mmdebstrap extracts the packages a job names, with their dependencies,
 * into a directory; mkfs.ext4 -d turns that into a raw ext4 image that the
 * orchestrator attaches to the guest. Images are cached by the SHA-256 of
 * everything that went into them. Code: rootfs_cache.c (img_rootfs),
 * rootfs_key.c (the spec and the key), rootfs_build.c, sharing rootfsint.h. */
#ifndef KF_ROOTFS_H
#define KF_ROOTFS_H

#include <stddef.h>

#define IMG_ROOTFS_PACKAGES_MAX 64    /* packages one image may name */
#define IMG_ROOTFS_NAME_MAX     128   /* bytes of one package name */
#define IMG_ROOTFS_TIMEOUT_S    900   /* mmdebstrap's default timeout */

struct img_rootfs_spec {
	const char *arch;        /* guest arch: "x86_64" or "arm64" (Debian: amd64, arm64) */
	const char *suite;       /* "bookworm" */
	const char *mirror;      /* "http://deb.debian.org/debian"; file:/ is copied in */
	const char *const *packages;   /* Debian package names the job asked for */
	size_t npackages;
	const char *mmdebstrap;  /* program to run; NULL: "mmdebstrap" (tests pass a fake) */
	int timeout_s;           /* for mmdebstrap; 0: IMG_ROOTFS_TIMEOUT_S */
};

/* Returns the absolute path (caller frees) of a cached raw ext4 image
 * (label "kfleet-root", mode 0644, sparse, 512 MiB free for the job)
 * holding a Debian userland of spec->arch with the packages and their
 * dependencies, and dash as /bin/sh, building it into cache_dir when
 * missing; NULL with *err (caller frees) saying what failed. The extract
 * variant installs no Essential set: no coreutils unless a job names it.
 * Threads and processes asking for the same image build it once. Building
 * needs root (mmdebstrap --mode=root makes files owned by other users). */
char *img_rootfs(const struct img_rootfs_spec *spec, const char *cache_dir, char **err);

/* The image's manifest: "package version arch" lines, sorted, one per
 * package extracted. Its path is next to the image: image with ".ext4"
 * replaced by ".manifest" (or ".manifest" appended). Returns a string the
 * caller frees; NULL when out of memory. */
char *img_rootfs_manifest_path(const char *image);

#endif
