// SPDX-License-Identifier: GPL-2.0-only
/* disk.c: a job's root disk. A job names Debian packages (an image made
 * once per package set and arch and kept in the cache, images/rootfs.c) or
 * a disk image of its own (its root found once by libguestfs); each run
 * boots a qcow2 overlay on it, so that no run changes what the next one
 * boots. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"
#include "images/copyout.h"
#include "images/images.h"
#include "images/rootfs.h"

/* The image's format, key and root, the root from the cache when it was
 * found before. 0 / -1 with *err. */
static int distro_inspect(struct orch *o, const char *image, struct disk_image *di, char **err)
{
	unsigned char magic[4] = { 0 };
	char id[PATH_MAX + 64], *cache = NULL, *name = NULL;
	struct buf b = BUF_INIT(256);
	struct stat st;
	int fd, rc = -1;

	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic)) {
		set_errf(err, "image '%s': %s", image, fd < 0 ? strerror(errno) :
			 "not a regular file of a disk image's size");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(di->fmt, sizeof(di->fmt), "%s", memcmp(magic, "QFI\xfb", 4) ? "raw" : "qcow2");
	snprintf(id, sizeof(id), "%s\n%lld\n%lld.%09ld", image, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	sha256_mem(id, strlen(id), di->key);
	if (asprintf(&name, "distro-%s.root", di->key) < 0 || !(cache = path_join(o->cache_dir, name)))
		goto out;
	if (read_file(cache, &b, 256) == 0 &&
	    sscanf(buf_str(&b), "%31s %15s", di->dev, di->fstype) == 2) {
		rc = 0;
		goto out;
	}
	if (img_disk_root(image, di->fmt, di->dev, sizeof(di->dev), di->fstype,
			  sizeof(di->fstype), err) < 0)
		goto out;
	buf_reset(&b);
	buf_printf(&b, "%s %s\n", di->dev, di->fstype);
	if (write_file(cache, b.data, b.len, 0644) < 0)
		log_warn("image '%s': cannot keep its root in '%s': %s", image, cache,
			 strerror(errno));
	log_info("image '%s': root %s (%s), found by inspection", image, di->dev, di->fstype);
	rc = 0;
out:
	if (rc == 0 && strcmp(di->fstype, "ext4"))
		rc = set_errf(err, "image '%s': its root (%s) is %s; the agent mounts ext4 roots "
			      "only", image, di->dev, di->fstype);
	buf_release(&b);
	free(cache);
	free(name);
	return rc;
}

/* qemu-img on a local overlay: "create" a new one on image, or "rebase" it
 * (unsafe: only the pointer changes) onto image after it came back from a
 * host where its backing file had another path. 0 / -1 with *err. */
int disk_overlay(const char *verb, const char *image, const char *fmt,
		 const char *overlay, char **err)
{
	struct cmd *cmd = cmd_new("qemu-img");
	int rc;

	if (!strcmp(verb, "create"))
		cmd_args(cmd, "create", "-q", "-f", "qcow2", "-F", fmt, "-b", image, overlay,
			 NULL);
	else
		cmd_args(cmd, "rebase", "-u", "-f", "qcow2", "-F", fmt, "-b", image, overlay,
			 NULL);
	cmd_timeout(cmd, 60 * 1000);
	rc = cmd_run(cmd, err);
	cmd_free(cmd);
	return rc;
}


/* The cached image of the job's Debian packages for arch; caller frees. */
static char *job_root_image(struct orch *o, const struct job_def *d, const char *arch,
			    char **err)
{
	const struct config *c = o->conf;
	struct img_rootfs_spec spec = {
		.arch = arch, .suite = c->debian_suite, .mirror = c->debian_mirror,
		.packages = (const char *const *)d->rootfs, .npackages = d->nrootfs,
	};

	return img_rootfs(&spec, o->cache_dir, err);
}

/* dir/disk.base: which image the overlay is on, as it was then (a
 * reproducer checks that it is still the same file); not fatal */
static void base_note(const struct run_disk *rd, const char *dir)
{
	char *p = path_join(dir, RUN_FILE_DISK_BASE);
	struct buf b = BUF_INIT(PATH_MAX + 128);
	struct stat st;

	if (p && stat(rd->image, &st) == 0) {
		buf_printf(&b, "%s %lld %lld %s\n", rd->di.fmt, (long long)st.st_size,
			   (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
			   rd->image);
		if (write_file(p, b.data, b.len, 0644) < 0)
			log_warn("'%s': %s", p, strerror(errno));
	}
	buf_release(&b);
	free(p);
}

int disk_prepare(struct orch *o, const struct job_def *d, const char *arch, const char *dir,
		 int local, struct run_disk *rd, char **err)
{
	char *e = NULL;

	memset(rd, 0, sizeof(*rd));
	if (d->image) {
		rd->image = distro_inspect(o, d->image, &rd->di, &e) < 0 ? NULL : strdup(d->image);
	} else {
		rd->image = job_root_image(o, d, arch, &e);
		snprintf(rd->di.fmt, sizeof(rd->di.fmt), "raw");
		snprintf(rd->di.dev, sizeof(rd->di.dev), IMG_ROOT_DEV);
	}
	rd->overlay = path_join(dir, RUN_FILE_DISK);
	if (rd->overlay)
		unlink(rd->overlay);
	if (!rd->image || !rd->overlay ||
	    (local && disk_overlay("create", rd->image, rd->di.fmt, rd->overlay, &e) < 0)) {
		set_errf(err, "job '%s': root disk: %s", d->name, e ? e : "out of memory");
		free(e);
		return -1;
	}
	base_note(rd, dir);
	return 0;
}

void disk_release(struct run_disk *rd)
{
	if (rd->overlay)
		unlink(rd->overlay);   /* up to the image's size; results are out by now */
	free(rd->overlay);
	free(rd->image);
	rd->overlay = rd->image = NULL;
}
