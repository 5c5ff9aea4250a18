/* SPDX-License-Identifier: GPL-2.0-only */
/* copyout.h: copying a finished guest's results directory out of its disk.
 * The disk was written by untrusted kernel code and a job's commands, so it
 * is never mounted on the host: libguestfs's appliance (its own kernel, in
 * its own QEMU) reads it read-only and sends back a tar stream, which is
 * checked and extracted here (regular files and directories only, bounded).
 * kfleetd's workers call img_copy_out() after a run's guest has stopped;
 * each call uses its own libguestfs handle, so calls may run concurrently.
 * Code: tarout.c (img_copy_out), extract.c, appliance.c, watchdog.c,
 * quote.c, inspect.c (img_disk_root), sharing copyoutint.h. */
#ifndef KF_COPYOUT_H
#define KF_COPYOUT_H

#include <stddef.h>

#define IMG_COPY_MAX_BYTES (256ull << 20)  /* default max_bytes */
#define IMG_COPY_MAX_FILES 10000u          /* default max_files */
#define IMG_COPY_TIMEOUT_S 300             /* default timeout_s */

struct img_copy_limits {
	unsigned long long max_bytes;   /* total bytes of regular files; 0: 256 MiB */
	unsigned max_files;             /* regular files + directories; 0: 10000 */
	int timeout_s;                  /* whole operation incl. appliance start; 0: 300 */
};

struct img_copy_report {
	unsigned files, dirs;           /* copied */
	unsigned long long bytes;
	unsigned skipped;               /* symlinks, devices, fifos, sockets, hard links: not copied */
	int missing;                    /* guest_dir does not exist on the disk: nothing copied, not an error */
};

/* Copies the contents of guest_dir (absolute path inside the filesystem on disk) from the
 * disk image (format "qcow2" or "raw"; a qcow2 overlay with a backing file is fine) into
 * host_dir (created, must not exist yet or be empty). The disk holds one ext4 filesystem
 * directly (no partition table) or a partitioned disk: mount the first filesystem that
 * has guest_dir. Never mounts anything on the host: libguestfs's appliance reads it, read-only.
 * 0 with *rep filled, or -1 with *err (caller frees) saying what failed and where;
 * on -1 host_dir holds nothing half-copied (remove what was written).
 *
 * lim may be NULL (all defaults). guest_dir must be in normal form ("/a/b":
 * no "." or ".." components, no repeated or trailing '/'), and may not lead
 * through a symlink on the disk. host_dir appears complete or not at all:
 * the tree is built next to it ("HOST_DIR.copyout-XXXXXX") and renamed onto
 * it at the end. When rep->missing is set, host_dir is left as it was.
 * Names that are absolute or have a ".." component are skipped and counted in
 * rep->skipped, like symlinks; going over max_bytes or max_files is an error.
 * Files get mode 0755 when the guest's had an execute bit, else 0644, and
 * keep their mtime; directories get 0755; owners are not kept.
 *
 * libguestfs is configured from the environment as usual (LIBGUESTFS_PATH,
 * LIBGUESTFS_HV, LIBGUESTFS_DEBUG, TMPDIR...), except that the backend is
 * "direct" unless LIBGUESTFS_BACKEND says otherwise, TCG is forced
 * (backend setting force_tcg) when KVM is not usable here and
 * LIBGUESTFS_BACKEND_SETTINGS is not set, the appliance gets 512 MiB unless
 * LIBGUESTFS_MEMSIZE says otherwise, and as root the appliance's QEMU runs
 * as "nobody" (-runas). timeout_s is enforced by killing the appliance's
 * QEMU, which only the direct backend lets us find; with another backend
 * only a transfer in progress is cancelled at the deadline. */
int img_copy_out(const char *disk, const char *format, const char *guest_dir,
		 const char *host_dir, const struct img_copy_limits *lim,
		 struct img_copy_report *rep, char **err);

/* The root filesystem of a disk image the user names (a distro's cloud
 * image, say), found by libguestfs's inspection in its appliance: the
 * device it is in a guest that has the disk as vda ("/dev/vda1") and its
 * type ("ext4"). 0, or -1 with *err (caller frees); also when the root is
 * not on a partition of the disk itself (LVM, RAID). */
int img_disk_root(const char *disk, const char *format, char *dev, size_t dev_n, char *fstype,
		  size_t fstype_n, char **err);

/* The second half of img_copy_out(), for tests and fuzzing: extracts the tar
 * archive at path (as guestfs_tar_out() writes it) into host_dir with the
 * same rules and the same all-or-nothing result (no timeout). 0 with *rep
 * filled, or -1 with *err (caller frees). */
int img_copy_extract(const char *tar, const char *host_dir, const struct img_copy_limits *lim,
		     struct img_copy_report *rep, char **err);

#endif
