// SPDX-License-Identifier: GPL-2.0-only
/* appliance.c: the libguestfs session of one copy-out or inspection call:
 * a handle configured for a hostile disk (direct backend, read-only, no
 * network, QEMU unprivileged), its launch under the watchdog, and error
 * messages made of libguestfs's errors and the appliance console's tail. */
#include "images/copyoutint.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

#define COPY_MEMSIZE_MB 512     /* appliance RAM: tar streams, a mount needs little */
#define COPY_QEMU_USER  "nobody" /* who the appliance's QEMU runs as when we are root */

/* A guest directory in normal form: "/" or "/a/b" with no empty, "." or
 * ".." components. The appliance's realpath of it must come back the same,
 * which is how a symlink on the way is noticed. */
static int guest_dir_ok(const char *p)
{
	const char *c;

	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return 0;
	if (!p[1])
		return 1;
	for (c = p + 1;; ) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!c[n])
			return 1;
		c += n + 1;
	}
}

/* The appliance console (QEMU's stderr, the appliance kernel's errors when
 * not verbose): its tail goes into error messages. Warnings go to our log
 * instead of stderr. Called in the thread making the call. */
static void on_event(guestfs_h *g, void *opaque, uint64_t event, int handle, int flags,
		     const char *buf, size_t len, const uint64_t *array, size_t array_len)
{
	struct copy *c = opaque;
	char q[512];

	if (event == GUESTFS_EVENT_WARNING) {
		log_warn("%s: libguestfs: %s", c->what, img_quote(buf, len, q, sizeof(q)));
		return;
	}
	if (len >= COPY_TAIL_MAX) {
		buf += len - COPY_TAIL_MAX;
		len = COPY_TAIL_MAX;
	}
	if (c->tail_len + len > COPY_TAIL_MAX) {
		size_t drop = c->tail_len + len - COPY_TAIL_MAX;

		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, buf, len);
	c->tail_len += len;
}

/* libguestfs's errors, instead of its default handler printing them on
 * stderr: the first line of each (the rest is advice to run
 * libguestfs-test-tool), joined with "; ". */
static void on_error(guestfs_h *g, void *opaque, const char *msg)
{
	struct copy *c = opaque;
	char q[COPY_ERRS_MAX];
	size_t n;

	img_quote(msg, strcspn(msg, "\n"), q, sizeof(q));
	if (!*q || strstr(c->errs, q))
		return;
	n = strlen(q);
	if (c->errs_len + 2 + n + 1 > sizeof(c->errs))
		return;
	if (c->errs_len) {
		memcpy(c->errs + c->errs_len, "; ", 2);
		c->errs_len += 2;
	}
	memcpy(c->errs + c->errs_len, q, n + 1);
	c->errs_len += n;
}

/* Starts a step: clears the errors kept, sets the phase. Returns 1 when
 * the deadline has passed already: nothing more is asked of libguestfs. */
int img_appl_step(struct copy *c, const char *phase)
{
	c->errs_len = 0;
	c->errs[0] = '\0';
	return img_wd_phase(&c->wd, phase);
}

/* -1 with *err: what failed, libguestfs's messages and the console's tail;
 * or the timeout, when the watchdog got there first. */
int img_appl_fail(struct copy *c, const char *doing, char **err)
{
	const char *t = c->tail;
	size_t n = c->tail_len;
	char tail[400];
	const char *nl;

	if (img_wd_phase(&c->wd, NULL))
		return img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
	/* The last 300 bytes, from the start of a line when there is one */
	if (n > 300) {
		t += n - 300;
		n = 300;
		if ((nl = memchr(t, '\n', n)) && nl + 1 < t + n) {
			n -= (size_t)(nl + 1 - t);
			t = nl + 1;
		}
	}
	img_quote(t, n, tail, sizeof(tail));
	if (!c->errs_len) {
		const char *m = guestfs_last_error(c->g);

		if (m)
			on_error(c->g, c, m);
	}
	return set_errf(err, "%s: %s: %s%s%s%s", c->what, doing,
			c->errs_len ? c->errs : "unknown libguestfs error",
			*tail ? " (appliance: " : "", tail, *tail ? ")" : "");
}

/* Puts "kfleet_copyout=PPPPPPPPNNNNNNNN" (this process, a call counter;
 * fixed width, so one is never a prefix of another) on the appliance
 * kernel's command line, which is in QEMU's argv: how the watchdog tells
 * this call's QEMU from those of calls running in other threads. The
 * kernel hands unknown parameters to the appliance's init, which ignores
 * them. (guestfs_get_sockdir() names only the parent, "/tmp".) */
static int mark_appliance(struct copy *c)
{
	static unsigned calls;
	unsigned n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	const char *old = guestfs_get_append(c->g);
	char *append;
	int rc;

	pthread_mutex_lock(&c->wd.mu);
	snprintf(c->wd.mark, sizeof(c->wd.mark), "kfleet_copyout=%08x%08x",
		 (unsigned)getpid(), n);
	c->wd.g = c->g;
	pthread_mutex_unlock(&c->wd.mu);
	if (old && *old)
		rc = asprintf(&append, "%s %s", old, c->wd.mark);
	else
		rc = asprintf(&append, "%s", c->wd.mark);
	if (rc < 0) {
		on_error(c->g, c, "out of memory");
		return -1;
	}
	rc = guestfs_set_append(c->g, append);
	free(append);
	return rc;
}

/* The appliance's kernel parses a filesystem crafted by untrusted code; if
 * that gets it, QEMU's device emulation is the next wall, and with the
 * direct backend QEMU runs as we do: root, for kfleetd. QEMU's -runas drops
 * to COPY_QEMU_USER once it has opened its files and sockets. (libvirt's
 * backend runs QEMU as its own user already.) */
static int run_qemu_unprivileged(struct copy *c)
{
	struct passwd pw, *res = NULL;
	char buf[1024], *backend;
	int direct, rc = 0;

	if (geteuid() != 0)
		return 0;
	backend = guestfs_get_backend(c->g);
	if (!backend)
		return -1;
	direct = !strcmp(backend, "direct");
	free(backend);
	if (direct && getpwnam_r(COPY_QEMU_USER, &pw, buf, sizeof(buf), &res) == 0 && res)
		rc = guestfs_config(c->g, "-runas", COPY_QEMU_USER);
	return rc;
}

static int open_handle(struct copy *c, char **err)
{
	const char *env;

	/* The environment is read (LIBGUESTFS_PATH, _HV, _CACHEDIR, _DEBUG,
	 * TMPDIR... are how an operator makes the appliance work on a host
	 * or debugs it); the settings that matter for safety are forced
	 * after it. */
	c->g = guestfs_create_flags(0);
	if (!c->g)
		return set_errf(err, "%s: creating a libguestfs handle: %s", c->what,
				strerror(errno));
	guestfs_set_error_handler(c->g, on_error, c);
	/* Tracing would print every call to stderr, from every worker at
	 * once; errors come back in *err instead */
	guestfs_set_trace(c->g, 0);
	/* The console is kept for error messages; with LIBGUESTFS_DEBUG=1
	 * it goes to stderr as usual (a callback would swallow it) */
	if (guestfs_set_event_callback(c->g, on_event, GUESTFS_EVENT_WARNING |
				       (guestfs_get_verbose(c->g) ? 0 : GUESTFS_EVENT_APPLIANCE),
				       0, c) < 0)
		return img_appl_fail(c, "configuring libguestfs", err);
	/* "direct": QEMU is our child, so the watchdog can find and kill it.
	 * With libvirt the appliance would be a domain on the libvirtd that
	 * runs the fleet's guests, and the watchdog could only cancel
	 * transfers. An operator may still choose it. */
	env = getenv("LIBGUESTFS_BACKEND");
	if ((!env || !*env) && guestfs_set_backend(c->g, "direct") < 0)
		return img_appl_fail(c, "configuring libguestfs", err);
	env = getenv("LIBGUESTFS_BACKEND_SETTINGS");
	if ((!env || !*env) && !kvm_usable_here(NULL, 0) &&
	    guestfs_set_backend_setting(c->g, "force_tcg", "1") < 0)
		return img_appl_fail(c, "configuring libguestfs", err);
	/* Many of these may run at once: the default (1280 MiB on Debian)
	 * is far more than mounting and tar need */
	env = getenv("LIBGUESTFS_MEMSIZE");
	if ((!env || !*env) && guestfs_set_memsize(c->g, COPY_MEMSIZE_MB) < 0)
		return img_appl_fail(c, "configuring libguestfs", err);
	/* Nothing is written, so nothing to sync at close: one RPC less to
	 * a possibly wedged appliance. No network for it either. */
	if (guestfs_set_autosync(c->g, 0) < 0 || guestfs_set_network(c->g, 0) < 0)
		return img_appl_fail(c, "configuring libguestfs", err);
	if (mark_appliance(c) < 0 || run_qemu_unprivileged(c) < 0)
		return img_appl_fail(c, "configuring libguestfs", err);
	return 0;
}

static int launch(struct copy *c, char **err)
{
	if (img_appl_step(c, PHASE_LAUNCH))
		return img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
	/* readonly=1: QEMU opens the image read-only under a throwaway
	 * overlay (a dirty journal is still replayed, into the overlay);
	 * the format is given, never probed, so a raw image cannot pass
	 * itself off as qcow2 with a backing file of its choosing */
	if (guestfs_add_drive_opts(c->g, c->disk, GUESTFS_ADD_DRIVE_OPTS_READONLY, 1,
				   GUESTFS_ADD_DRIVE_OPTS_FORMAT, c->format, -1) < 0)
		return img_appl_fail(c, "adding the disk", err);
	/* Adding a read-only disk ran qemu-img: the deadline may be gone */
	if (img_appl_step(c, NULL))
		return img_wd_timed_out(c->what, &c->wd, c->timeout_s, err);
	if (guestfs_launch(c->g) < 0)
		return img_appl_fail(c, "starting the libguestfs appliance", err);
	return 0;
}

/* Stops the appliance. The handle leaves the watchdog first: it must not
 * call guestfs_user_cancel() on a freed handle. */
void img_appl_close(struct copy *c)
{
	if (!c->g)
		return;
	img_wd_phase(&c->wd, PHASE_CLOSE);
	if (c->wd.mu_ready)
		img_wd_set(&c->wd, NULL, -1);
	guestfs_close(c->g);
	c->g = NULL;
}

/* A guest's appliance dying writes to a closed socket: SIGPIPE, which
 * libguestfs does not guard against and which kills a process that has
 * not ignored it. It is blocked in this thread for the call, and one that
 * came meanwhile is taken off before the old mask is back. */
static void sigpipe_block(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static void sigpipe_restore(const sigset_t *old)
{
	struct timespec zero = { 0, 0 };
	sigset_t s;

	if (sigismember(old, SIGPIPE))
		return;         /* the caller blocks it: theirs to handle */
	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	while (sigtimedwait(&s, NULL, &zero) == SIGPIPE)
		;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The appliance up, with its watchdog and SIGPIPE blocked in this thread:
 * what both callers start with. 0, or -1 with *err; either way
 * img_appl_end() undoes what was done. */
int img_appl_start(struct copy *c, sigset_t *old, char **err)
{
	int r;

	sigpipe_block(old);
	if ((r = img_wd_start(&c->wd, c->timeout_s)))
		return set_errf(err, "%s: starting the watchdog thread: %s", c->what, strerror(r));
	if (open_handle(c, err) < 0 || launch(c, err) < 0)
		return -1;
	return 0;
}

void img_appl_end(struct copy *c, const sigset_t *old)
{
	img_appl_close(c);
	img_wd_stop(&c->wd);
	sigpipe_restore(old);
}

/* Checks what can be checked on the host before anything starts */
int img_appl_check_args(struct copy *c, const char *disk, char **err)
{
	unsigned char magic[4];
	struct stat st;
	int fd;
	ssize_t n;

	if (!disk || !*disk)
		return set_errf(err, "no disk image given");
	if (!c->format || (strcmp(c->format, "qcow2") && strcmp(c->format, "raw")))
		return set_errf(err, "disk '%s': format '%s' is not qcow2 or raw", disk,
				c->format ? c->format : "(null)");
	if (!c->guest_dir || !guest_dir_ok(c->guest_dir))
		return set_errf(err, "disk '%s': guest directory '%s' is not an absolute path in "
				"normal form", disk, c->guest_dir ? c->guest_dir : "(null)");
	c->disk = path_abs(disk);
	if (!c->disk)
		return set_errf(err, "disk '%s': %s", disk, strerror(errno));
	snprintf(c->what, sizeof(c->what), "results '%s' on disk '%s'", c->guest_dir, c->disk);
	fd = open(c->disk, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return set_errf(err, "disk '%s': %s", c->disk, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return set_errf(err, "disk '%s': not a regular file", c->disk);
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	/* libguestfs would only say "qemu-img exited with error status 1" */
	if (!strcmp(c->format, "qcow2") &&
	    (n != (ssize_t)sizeof(magic) || memcmp(magic, "QFI\xfb", 4)))
		return set_errf(err, "disk '%s': not a qcow2 image (no QFI magic)", c->disk);
	return 0;
}
