/* SPDX-License-Identifier: GPL-2.0-only */
/* rootfsint.h: what the files of a root disk image share (rootfs.h is the
 * part's face): the checked spec and its cache key (rootfs_key.c) and the
 * build of a missing image (rootfs_build.c); rootfs_cache.c drives them. */
#ifndef KF_ROOTFSINT_H
#define KF_ROOTFSINT_H

#include <stddef.h>

#include "common/buf.h"
#include "images/rootfs.h"

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

/* rootfs_key.c: a build error, prefixed with the image's description */
int img_rootfs_fail(struct rootfs *r, char **err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Debian policy 5.6.1: [a-z0-9][a-z0-9+.-]+, at most IMG_ROOTFS_NAME_MAX */
int img_rootfs_pkg_name_ok(const char *s);
/* Everything in spec and cache_dir checked before anything runs. 0 / -1 */
int img_rootfs_check_spec(const struct img_rootfs_spec *spec, const char *cache_dir, char **err);
/* Fills r from a checked spec: the package lists, the key, the paths; 0 / -1.
 * img_rootfs_release() frees what it holds, also after a failed init. */
int img_rootfs_init(struct rootfs *r, const struct img_rootfs_spec *spec, const char *cache_dir,
		    char **err);
void img_rootfs_release(struct rootfs *r);

/* rootfs_build.c: builds the image into tmp (a fresh directory) and moves
 * the image and its manifest into place. 0 / -1 */
int img_rootfs_build(struct rootfs *r, const char *tmp, char **err);
/* rm -rf that stays on path's file system. 0 / -1 */
int img_rootfs_tree_remove(const char *path);

#endif
