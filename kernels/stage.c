// SPDX-License-Identifier: GPL-2.0-only
/* stage.c: where one build (a kernel, or a kselftest install) writes. The
 * build user owns what it may write: the stage (modules_install's and
 * kselftest-install's output, copied out by copyout.c) and, for a build
 * of the tree's own commit, the slot's O=. A series' build writes its O=
 * through an overlay: the slot's objects are its lower layer, what it
 * changes lands in an upper layer of its own, removed with the stage, so
 * the slot stays what the tree's own commits made it. Inputs kfleetd
 * writes for the build (the options fragment) are in a directory only
 * root writes. Under state/stage/: KEY/, KEY.in/, KEY.ovl/. */
#include "kernels/kernelsint.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

static __thread unsigned own_uid, own_gid;

static int own_one(const char *path, const struct stat *sb, int flag, struct FTW *f)
{
	(void)flag;
	(void)f;
	if ((sb->st_uid != own_uid || sb->st_gid != own_gid) &&
	    lchown(path, own_uid, own_gid) < 0)
		return -1;
	return 0;
}

int kbuild_own(const struct kbuild_env *e, const char *dir)
{
	struct stat st;

	if (!e->sandbox || geteuid() != 0)
		return 0;
	if (lstat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		return -1;
	if (st.st_uid == e->uid && st.st_gid == e->gid)
		return 0;   /* made by a build already: all of it */
	own_uid = e->uid;
	own_gid = e->gid;
	return nftw(dir, own_one, 32, FTW_PHYS | FTW_MOUNT) < 0 ? -1 : 0;
}

void kbuild_stage_release(struct kbuild_stage *sg)
{
	if (sg->mounted && umount2(sg->merged, MNT_DETACH) < 0)
		sg->mounted = 0;
	sg->mounted = 0;
	if (sg->dir)
		rm_tree(sg->dir);
	if (sg->in)
		rm_tree(sg->in);
	if (sg->ovl)
		rm_tree(sg->ovl);
	free(sg->dir);
	free(sg->in);
	free(sg->ovl);
	free(sg->upper);
	free(sg->work);
	free(sg->merged);
	memset(sg, 0, sizeof(*sg));
}

/* A directory made anew, the build user's (own) or root's */
static int fresh_dir(const struct kbuild_env *e, const char *dir, int own, char **err)
{
	rm_tree(dir);
	if (mkdir_p(dir, 0755) < 0 || (own && kbuild_own(e, dir) < 0))
		return set_errf(err, "'%s': %s", dir, strerror(errno));
	return 0;
}

/* The series' O=: an overlay of the slot's obj, mounted at sg->merged */
static int stage_overlay(const struct kbuild_env *e, struct kbuild_stage *sg, const char *obj,
			 char **err)
{
	char *opts = NULL;
	int rc;

	if (!(sg->upper = path_join(sg->ovl, "upper")) || !(sg->work = path_join(sg->ovl, "work")) ||
	    !(sg->merged = path_join(sg->ovl, "obj")))
		return set_errf(err, "out of memory");
	if (fresh_dir(e, sg->ovl, 0, err) < 0 || fresh_dir(e, sg->upper, 1, err) < 0 ||
	    fresh_dir(e, sg->work, 1, err) < 0 || fresh_dir(e, sg->merged, 1, err) < 0)
		return -1;
	if (mkdir_p(obj, 0755) < 0 || kbuild_own(e, obj) < 0)
		return set_errf(err, "'%s': %s", obj, strerror(errno));
	if (asprintf(&opts, "lowerdir=%s,upperdir=%s,workdir=%s", obj, sg->upper, sg->work) < 0)
		return set_errf(err, "out of memory");
	rc = mount("overlay", sg->merged, "overlay", MS_NOSUID | MS_NODEV, opts);
	free(opts);
	if (rc == 0) {
		sg->mounted = 1;
		return 0;
	}
	/* no overlay here (kfleetd not root, a kernel without it): the
	 * series builds from nothing in a directory of its own */
	sg->note = "no overlay of the slot's objects could be mounted: built from nothing";
	return 0;
}

int kbuild_stage_open(const struct kbuild_env *e, const char *key, const char *obj,
		      int untrusted, struct kbuild_stage *sg, char **err)
{
	char *base = NULL;
	int rc = -1;

	memset(sg, 0, sizeof(*sg));
	if (asprintf(&base, "%s/stage", e->state_dir) < 0 || asprintf(&sg->dir, "%s/%s", base, key) < 0 ||
	    asprintf(&sg->in, "%s/%s.in", base, key) < 0 ||
	    (untrusted && asprintf(&sg->ovl, "%s/%s.ovl", base, key) < 0)) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (mkdir_p(base, 0755) < 0) {
		set_errf(err, "'%s': %s", base, strerror(errno));
		goto out;
	}
	if (fresh_dir(e, sg->dir, 1, err) < 0 || fresh_dir(e, sg->in, 0, err) < 0)
		goto out;
	if (untrusted && stage_overlay(e, sg, obj, err) < 0)
		goto out;
	if (!untrusted && obj && (mkdir_p(obj, 0755) < 0 || kbuild_own(e, obj) < 0)) {
		set_errf(err, "'%s': %s", obj, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(base);
	return rc;
}

void kbuild_stage_sweep(const struct kbuild_env *e)
{
	char *base = NULL;
	FILE *f;
	char line[4096];

	if (asprintf(&base, "%s/stage/", e->state_dir) < 0)
		return;
	/* overlays a kfleetd that died left mounted */
	f = fopen("/proc/self/mounts", "re");
	while (f && fgets(line, sizeof(line), f)) {
		char *mp = strchr(line, ' ');
		char *end = mp ? strchr(mp + 1, ' ') : NULL;

		if (!end)
			continue;
		*end = '\0';
		if (!strncmp(mp + 1, base, strlen(base)))
			umount2(mp + 1, MNT_DETACH);
	}
	if (f)
		fclose(f);
	base[strlen(base) - 1] = '\0';
	rm_tree(base);
	free(base);
}
