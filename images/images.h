/* SPDX-License-Identifier: GPL-2.0-only */
/* images.h: what a guest boots besides its kernel.
 * The base initramfs (busybox, the kfleet agent, /init) is built with
 * libarchive as a gzip-compressed cpio "newc" archive and cached by the
 * content hash of everything in it. Each run gets its own initrd: a small
 * uncompressed cpio with the run's command and settings, followed by the
 * cached base (the kernel unpacks concatenated cpio archives in order). */
#ifndef KF_IMAGES_H
#define KF_IMAGES_H

#include <stddef.h>
#include <stdint.h>

/* Paths inside the guest */
#define IMG_AGENT_PATH   "/sbin/kfleet-agent"
#define IMG_CMD_PATH     "/kfleet/cmd"       /* the command, run with /bin/sh -c */
#define IMG_RUNCONF_PATH "/kfleet/run.conf"  /* key=value lines, see struct img_run */
#define IMG_AGENT_TTY    "/dev/ttyS1"        /* the agent channel on x86_64 ... */
#define IMG_VIRTIO_PORT  "org.kfleet.agent.0" /* ... or this virtio-serial port */
#define IMG_MODULES_PATH "/kfleet/modules"   /* modules to load, in order, one a line */
#define IMG_ROOT_DEV     "/dev/vda"          /* a job's root disk (virtio-blk) */

/* The largest results archive the agent streams on its channel (in hex
 * frames, so twice this in the channel file): a bigger directory is copied
 * out of the disk by libguestfs instead */
#define IMG_RESULTS_STREAM_MAX (32ull << 20)
#define IMG_RESULTS_FILES_MAX  10000u

struct img_run {
	int64_t run_id;
	const char *command;
	int timeout_s;              /* the agent kills the command after this */
	unsigned long long output_max; /* bytes of output the agent sends at most */
	int virtio;                 /* the channel is the virtio port, not ttyS1 */
	const char *root_dev;       /* "/dev/vda": the agent mounts this ext4 disk and makes it
				       the root before the command, or NULL */
	const char *results;        /* guest directory made for the command's files
				       (KFLEET_RESULTS), or NULL */
	unsigned long long results_max; /* the agent streams a results archive up to this
				       size (0: IMG_RESULTS_STREAM_MAX) */
	unsigned results_files;     /* and of at most this many entries (0: 10000) */
	const char *extra[4];       /* cached archives to add (modules, programs) */
	size_t nextra;
};

#define IMG_PROGRAMS_DIR "/kfleet/bin"        /* a job's programs, on the PATH */

/* Returns the path of the cached base initramfs for this busybox and agent,
 * building it into cache_dir if it is not there yet. Returns a string the
 * caller frees, or NULL with *err set (caller frees) saying what failed. */
char *img_base_initramfs(const char *busybox, const char *agent,
			 const char *cache_dir, char **err);

/* Returns the path of a cached archive holding the named kernel modules
 * (names as modprobe takes them, '-' and '_' alike; a leading '?' marks
 * one that may be missing) and everything they
 * depend on, from moddir (/lib/modules/RELEASE with its modules.dep), under
 * /lib/modules/RELEASE in the guest, plus IMG_MODULES_PATH listing them in
 * load order. Cached like the base. NULL with *err (caller frees). */
char *img_modules_initramfs(const char *moddir, const char *const *names, size_t n,
			    const char *cache_dir, char **err);

/* Returns the path of a cached archive holding the programs src[i] as
 * IMG_PROGRAMS_DIR/names[i] (mode 0755). NULL with *err (caller frees). */
char *img_programs_initramfs(const char *const *src, const char *const *names, size_t n,
			     const char *cache_dir, char **err);

/* Writes dir and everything under it (directories and regular files, in
 * name order, owner root, mtime 0) as a gzip'd cpio archive under prefix
 * ("kselftest") to out, atomically. 0 / -1 with *err (caller frees). */
#define IMG_TREE_FILES_MAX 100000
int img_tree_archive(const char *dir, const char *prefix, const char *out, char **err);

/* Writes the run's initrd to out (mode 0644): the run archive, the base,
 * then r->extra in order.
 * 0 / -1 with *err set (caller frees). */
int img_run_initrd(const char *base, const struct img_run *r, const char *out, char **err);

#endif
