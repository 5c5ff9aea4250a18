/* SPDX-License-Identifier: GPL-2.0-only */
/* copyoutint.h: what the files of a results copy-out share (copyout.h is
 * the part's face for it): the watchdog (watchdog.c), the libguestfs
 * appliance session (appliance.c), the quoting of guest text (quote.c) and
 * the extraction (extract.c); tarout.c and inspect.c drive them. */
#ifndef KF_COPYOUTINT_H
#define KF_COPYOUTINT_H

#include <guestfs.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "images/copyout.h"

#define COPY_TAIL_MAX   1024    /* appliance console kept for error messages */
#define COPY_ERRS_MAX   600     /* libguestfs errors kept for one step's message */
#define COPY_NAME_MAX   120     /* bytes of a guest's name quoted in a message */

/* What the timeout message says the copy was doing */
#define PHASE_LAUNCH "starting the appliance"
#define PHASE_FIND   "looking for the directory"
#define PHASE_DU     "measuring the directory"
#define PHASE_TAR    "reading the directory"
#define PHASE_CLOSE  "stopping the appliance"
#define PHASE_UNTAR  "extracting the archive"

/* One per img_copy_out() call. libguestfs calls are synchronous and hold
 * the handle's lock, and libguestfs has no per-call timeout (only a 20 min
 * one for the launch), so a blocked call cannot be interrupted through the
 * handle: the thread finds the appliance's QEMU in /proc by a marker this
 * call put on the appliance kernel's command line (so it is in QEMU's argv)
 * and kills it, which makes the blocked call fail at once.
 * guestfs_user_cancel() is the one call that takes no lock: it stops a
 * transfer between chunks, which is how an archive that grows past its cap
 * is cut off. */
struct watchdog {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int mu_ready, cv_ready, running;
	int done;                       /* asks the thread to return */
	int64_t deadline;               /* mono_ms() */
	guestfs_h *g;                   /* NULL once the handle is closed */
	char mark[48];                  /* in our QEMU's argv; "" until set */
	int tar_fd;                     /* the archive being written, or -1 */
	unsigned long long tar_cap;
	const char *phase;
	int expired;                    /* the deadline passed */
	int overflowed;                 /* the archive passed tar_cap */
};

struct copy {
	const char *guest_dir;
	char *disk;                     /* absolute */
	const char *format;
	char what[PATH_MAX + 256];      /* "results '/r' on disk '/d.qcow2'", for messages */
	unsigned long long max_bytes;
	unsigned max_files;
	int timeout_s;
	guestfs_h *g;
	struct watchdog wd;
	char tail[COPY_TAIL_MAX];       /* the appliance console's last bytes */
	size_t tail_len;
	char errs[COPY_ERRS_MAX];       /* libguestfs's errors in the current step */
	size_t errs_len;
};

/* quote.c: s (n bytes at most, or up to a NUL) into out for a message,
 * control and non-ASCII bytes as '?'; returns out */
const char *img_quote(const char *s, size_t n, char *out, size_t outn);
/* quote.c: "912 MiB", rounded up (up) or down; returns out */
const char *img_fmt_size(unsigned long long v, int up, char out[32]);

/* watchdog.c: the thread that bounds a call's time and archive size.
 * img_wd_start() returns 0 or an errno value; img_wd_stop() undoes what
 * start did, also after a failed start. */
int img_wd_start(struct watchdog *wd, int timeout_s);
void img_wd_stop(struct watchdog *wd);
/* Sets the phase (NULL: keeps it); returns 1 when the deadline has passed */
int img_wd_phase(struct watchdog *wd, const char *phase);
/* The handle (NULL once closed) and the archive fd (-1: none) it watches */
void img_wd_set(struct watchdog *wd, guestfs_h *g, int tar_fd);
int img_wd_overflowed(struct watchdog *wd);
/* -1 with *err: "WHAT: not copied out in N s (stopped while PHASE)" */
int img_wd_timed_out(const char *what, struct watchdog *wd, int timeout_s, char **err);

/* extract.c: lim with the defaults filled in (in may be NULL) */
void img_copy_limits_init(struct img_copy_limits *l, const struct img_copy_limits *in);
/* host_dir without trailing slashes into out; it must not exist or be empty */
int img_copy_check_host(const char *host_dir, char *out, size_t n, char **err);
/* "HOST.copyout-XXXXXX" made next to host, into work */
int img_copy_make_work(const char *host, char *work, size_t n, char **err);
/* Extracts the archive on tar_fd into WORK/tree and renames that to host;
 * wd may be NULL (no deadline). 0, or -1 with *err */
int img_copy_extract_into(int tar_fd, const char *work, const char *host, const char *what,
			  const struct img_copy_limits *lim, struct watchdog *wd,
			  struct img_copy_report *rep, char **err);

/* appliance.c: the libguestfs session of one call. check_args checks the
 * disk, format and guest_dir on the host and sets c->disk and c->what. */
int img_appl_check_args(struct copy *c, const char *disk, char **err);
/* The appliance up, with its watchdog and SIGPIPE blocked in this thread.
 * 0, or -1 with *err; either way img_appl_end() undoes what was done. */
int img_appl_start(struct copy *c, sigset_t *old, char **err);
void img_appl_end(struct copy *c, const sigset_t *old);
/* Stops the appliance (the watchdog lets go of the handle first) */
void img_appl_close(struct copy *c);
/* Starts a step: clears the errors kept, sets the phase (NULL: keeps it);
 * 1 when the deadline has passed already */
int img_appl_step(struct copy *c, const char *phase);
/* -1 with *err: what failed, libguestfs's messages, the console's tail */
int img_appl_fail(struct copy *c, const char *doing, char **err);

#endif
