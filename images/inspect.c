// SPDX-License-Identifier: GPL-2.0-only
/* inspect.c: the root filesystem of a disk image the user names (a
 * distro's cloud image), found by libguestfs's inspection in its appliance
 * (appliance.c), as the device and type a guest with that disk mounts. */
#include "images/copyoutint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* "/dev/sda1" in the appliance (virtio-scsi) is "/dev/vda1" in a guest
 * that has the disk as its only virtio-blk disk */
static int guest_dev(const char *dev, char *out, size_t n)
{
	if (strncmp(dev, "/dev/sda", 8) || dev[8 + strspn(dev + 8, "0123456789")])
		return -1;
	snprintf(out, n, "/dev/vda%s", dev + 8);
	return 0;
}

int img_disk_root(const char *disk, const char *format, char *dev, size_t dev_n, char *fstype,
		  size_t fstype_n, char **err)
{
	struct copy *c = calloc(1, sizeof(*c));
	char **roots = NULL, *type = NULL;
	int rc = -1;
	sigset_t old;

	*err = NULL;
	if (!c)
		return set_errf(err, "disk '%s': out of memory", disk ? disk : "(null)");
	c->format = format;
	c->guest_dir = "/";
	c->timeout_s = IMG_COPY_TIMEOUT_S;
	c->wd.tar_fd = -1;
	if (img_appl_check_args(c, disk, err) < 0) {
		free(c->disk);
		free(c);
		return -1;
	}
	snprintf(c->what, sizeof(c->what), "disk '%s'", c->disk);
	if (img_appl_start(c, &old, err) < 0)
		goto out_sig;
	if (img_appl_step(c, "inspecting the disk")) {
		img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
		goto out_sig;
	}
	/* libguestfs's inspection reads the disk's filesystems in its own
	 * appliance, the way it finds an OS's root for virt-* tools */
	roots = guestfs_inspect_os(c->g);
	if (!roots) {
		img_appl_fail(c, "inspecting the disk", err);
		goto out_sig;
	}
	if (!roots[0]) {
		set_errf(err, "%s: no operating system found on it", c->what);
		goto out_sig;
	}
	type = guestfs_vfs_type(c->g, roots[0]);
	if (!type) {
		img_appl_fail(c, "reading the root filesystem's type", err);
		goto out_sig;
	}
	if (guest_dev(roots[0], dev, dev_n) < 0) {
		set_errf(err, "%s: its root is on '%.64s', not a partition of the disk itself "
			 "(LVM and RAID roots are not supported)", c->what, roots[0]);
		goto out_sig;
	}
	snprintf(fstype, fstype_n, "%s", type);
	rc = 0;
out_sig:
	img_appl_end(c, &old);
	for (size_t i = 0; roots && roots[i]; i++)
		free(roots[i]);
	free(roots);
	free(type);
	free(c->disk);
	free(c);
	return rc;
}
