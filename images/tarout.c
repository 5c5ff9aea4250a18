// SPDX-License-Identifier: GPL-2.0-only
/* tarout.c: copies a finished guest's results directory out of its disk
 * image (copyout.h). libguestfs's appliance (appliance.c) mounts the guest's
 * filesystem read-only inside its own QEMU and streams the directory back
 * as a tar archive into a file next to the destination, which extract.c
 * unpacks; the watchdog (watchdog.c) bounds the time and the archive's
 * size. kfleetd's workers call this after a run's guest has stopped. */
#include "images/copyoutint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

#define COPY_FS_MAX     16      /* filesystems tried at most on one disk */
/* The archive may hold more than max_bytes of file data: a 512-byte header
 * per entry, padding to 512, a GNU long-name entry for long names, and
 * entries that are skipped (symlinks, fifos). Allow that much per entry for
 * twice max_files entries before the transfer is cut off. */
#define COPY_TAR_ENTRY  2048ull
#define COPY_TAR_SLACK  (64ull << 10)

/* Is guest_dir a directory on the filesystem mounted now, reached without
 * a symlink? 1 yes, 0 no (*why may say why not), -1 error */
static int dir_here(struct copy *c, const char **why, char **err)
{
	char *real;
	int r;

	real = guestfs_realpath(c->g, c->guest_dir);
	if (!real) {
		int e = guestfs_last_errno(c->g);

		if (e == ENOENT || e == ENOTDIR)
			return 0;
		return img_appl_fail(c, "looking for the directory", err);
	}
	r = strcmp(real, c->guest_dir);
	free(real);
	if (r) {
		*why = "leads through a symlink";
		return 0;
	}
	r = guestfs_is_dir_opts(c->g, c->guest_dir, GUESTFS_IS_DIR_OPTS_FOLLOWSYMLINKS, 0, -1);
	if (r < 0)
		return img_appl_fail(c, "looking for the directory", err);
	if (!r)
		*why = "is not a directory";
	return r;
}

/* Mounts the first filesystem that has guest_dir on "/". 1 found, 0 when
 * none has it (rep->missing), -1 with *err (also when a filesystem could
 * not be mounted or the path is a symlink and none had it). */
static int find_dir(struct copy *c, char **err)
{
	char **fs, mount_err[COPY_ERRS_MAX + 64] = "";
	const char *why = NULL;
	size_t i, tried = 0;
	int rc = -1, r;

	if (img_appl_step(c, PHASE_FIND))
		return img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
	fs = guestfs_list_filesystems(c->g);
	if (!fs)
		return img_appl_fail(c, "listing filesystems", err);
	for (i = 0; fs[i] && fs[i + 1]; i += 2) {
		const char *dev = fs[i], *type = fs[i + 1];
		char q[COPY_NAME_MAX + 4];

		if (!strcmp(type, "swap") || !strcmp(type, "unknown") || !*type)
			continue;
		if (++tried > COPY_FS_MAX)
			break;
		if (img_appl_step(c, NULL)) {
			rc = img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
			goto out;
		}
		/* Nothing on it is ever run by the appliance; the options
		 * say so anyway */
		if (guestfs_mount_options(c->g, "ro,nosuid,nodev,noexec", dev, "/") < 0) {
			if (img_wd_phase(&c->wd, NULL)) {
				rc = img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
				goto out;
			}
			if (!*mount_err)
				snprintf(mount_err, sizeof(mount_err), "mounting '%s': %s",
					 img_quote(dev, strlen(dev), q, sizeof(q)),
					 c->errs_len ? c->errs : "failed");
			continue;
		}
		r = dir_here(c, &why, err);
		if (r != 0) {
			rc = r;
			goto out;
		}
		img_appl_step(c, NULL);
		if (guestfs_umount_all(c->g) < 0) {
			rc = img_appl_fail(c, "unmounting", err);
			goto out;
		}
	}
	if (!tried)
		rc = set_errf(err, "%s: no filesystem on the disk", c->what);
	else if (*mount_err)
		rc = set_errf(err, "%s: %s", c->what, mount_err);
	else if (why)
		rc = set_errf(err, "%s: '%s' %s", c->what, c->guest_dir, why);
	else
		rc = 0;
out:
	for (i = 0; fs[i]; i++)
		free(fs[i]);
	free(fs);
	return rc;
}

/* Refuses early what cannot fit. du counts allocated blocks: up to a block
 * (4 KiB) more than the data for every file and directory, and less for
 * sparse files. So only what is over max_bytes even after a block per
 * allowed entry is refused here; extraction enforces the limit exactly. */
static int check_size(struct copy *c, char **err)
{
	unsigned long long used, slack = (unsigned long long)c->max_files * 4096;
	char a[32], b[32];
	int64_t kib;

	if (img_appl_step(c, PHASE_DU))
		return img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
	kib = guestfs_du(c->g, c->guest_dir);
	if (kib < 0)
		return img_appl_fail(c, "measuring the directory", err);
	used = (unsigned long long)kib;
	used = used > ULLONG_MAX / 1024 ? ULLONG_MAX : used * 1024;
	if (used > c->max_bytes && used - c->max_bytes > slack)
		return set_errf(err, "%s: %s is over the %s limit", c->what, img_fmt_size(used, 1, a),
				img_fmt_size(c->max_bytes, 0, b));
	return 0;
}

static int tar_out(struct copy *c, const char *tar, int tar_fd, char **err)
{
	char a[32], b[32];
	int rc;

	if (img_appl_step(c, PHASE_TAR))
		return img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
	pthread_mutex_lock(&c->wd.mu);
	c->wd.tar_fd = tar_fd;
	c->wd.tar_cap = c->max_bytes + 2ull * c->max_files * COPY_TAR_ENTRY + COPY_TAR_SLACK;
	pthread_cond_signal(&c->wd.cv);         /* it sleeps until the deadline otherwise */
	pthread_mutex_unlock(&c->wd.mu);
	/* Numeric owners: nothing to look up in the appliance, and owners
	 * are dropped anyway */
	rc = guestfs_tar_out_opts(c->g, c->guest_dir, tar,
				  GUESTFS_TAR_OUT_OPTS_NUMERICOWNER, 1, -1);
	img_wd_set(&c->wd, c->g, -1);
	if (rc < 0 && img_wd_overflowed(&c->wd))
		return set_errf(err, "%s: files add up to more than the %s limit (copying "
				"stopped when the archive passed %s)", c->what,
				img_fmt_size(c->max_bytes, 0, b), img_fmt_size(c->wd.tar_cap, 1, a));
	if (rc < 0)
		return img_appl_fail(c, "reading the directory", err);
	return 0;
}

int img_copy_out(const char *disk, const char *format, const char *guest_dir,
		 const char *host_dir, const struct img_copy_limits *lim,
		 struct img_copy_report *rep, char **err)
{
	struct copy *c = calloc(1, sizeof(*c));
	struct img_copy_limits l;
	char host[PATH_MAX], work[PATH_MAX + 32], *tar = NULL;
	int tar_fd = -1, rc = -1, r, have_work = 0;
	sigset_t old;

	*err = NULL;
	memset(rep, 0, sizeof(*rep));
	if (!c)
		return set_errf(err, "disk '%s': out of memory", disk ? disk : "(null)");
	img_copy_limits_init(&l, lim);
	c->max_bytes = l.max_bytes;
	c->max_files = l.max_files;
	c->timeout_s = l.timeout_s;
	c->format = format;
	c->guest_dir = guest_dir;
	c->wd.tar_fd = -1;
	if (img_appl_check_args(c, disk, err) < 0 ||
	    img_copy_check_host(host_dir, host, sizeof(host), err) < 0) {
		free(c->disk);
		free(c);
		return -1;
	}
	if (img_copy_make_work(host, work, sizeof(work), err) < 0)
		goto out;
	have_work = 1;
	tar = path_join(work, "results.tar");
	if (!tar) {
		set_errf(err, "%s: out of memory", c->what);
		goto out;
	}
	/* Made here (0600, in a fresh 0700 directory) so the watchdog can
	 * watch its size through this fd; libguestfs reopens it by name */
	tar_fd = open(tar, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (tar_fd < 0) {
		set_errf(err, "%s: creating '%s': %s", c->what, tar, strerror(errno));
		goto out;
	}
	if (img_appl_start(c, &old, err) < 0)
		goto out_sig;
	r = find_dir(c, err);
	if (r < 0)
		goto out_sig;
	if (r == 0) {
		rep->missing = 1;
		rc = 0;
		goto out_sig;
	}
	if (check_size(c, err) < 0 || tar_out(c, tar, tar_fd, err) < 0)
		goto out_sig;
	/* The appliance is not needed for extracting: its memory and CPU
	 * go back now */
	img_appl_close(c);
	if (lseek(tar_fd, 0, SEEK_SET) < 0) {
		set_errf(err, "%s: '%s': %s", c->what, tar, strerror(errno));
		goto out_sig;
	}
	img_wd_phase(&c->wd, PHASE_UNTAR);
	rc = img_copy_extract_into(tar_fd, work, host, c->what, &l, &c->wd, rep, err);
out_sig:
	img_appl_end(c, &old);
out:
	if (tar_fd >= 0)
		close(tar_fd);
	if (have_work && rm_tree(work) < 0)
		log_warn("%s: could not remove '%s': %s", c->what, work, strerror(errno));
	if (rc < 0)
		memset(rep, 0, sizeof(*rep));
	free(tar);
	free(c->disk);
	free(c);
	return rc;
}
