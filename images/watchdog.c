// SPDX-License-Identifier: GPL-2.0-only
/* watchdog.c: one thread per copy-out call (copyoutint.h) that bounds its
 * time, by killing the libguestfs appliance's QEMU at the deadline, and
 * the size of the archive being written, by cancelling the transfer. */
#include "images/copyoutint.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

#define COPY_POLL_MS    100     /* how often the archive's size is looked at */
#define COPY_KILL_MS    500     /* after the deadline, how often QEMU is looked for */
#define COPY_CMDLINE_MAX 65536  /* QEMU's command line as read from /proc */

/* Reads at most n - 1 bytes of a /proc file into buf, NUL-terminated;
 * returns the length or -1 */
static int read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;
	size_t len = 0;

	if (fd < 0)
		return -1;
	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	return (int)len;
}

/* SIGKILLs this process's children whose command line has mark: the
 * appliance's QEMU (direct backend), started by this call's thread. */
static void kill_appliance(const char *mark)
{
	char path[64], st[1024], *paren, *cl;
	size_t slen = strlen(mark);
	pid_t self = getpid();
	struct dirent *de;
	DIR *d;

	if (!slen || !(cl = malloc(COPY_CMDLINE_MAX)))
		return;
	if (!(d = opendir("/proc"))) {
		free(cl);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		int ppid = 0, n;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		/* the name in parentheses may hold anything: parse after the last ')' */
		if (read_small(path, st, sizeof(st)) <= 0 || !(paren = strrchr(st, ')')) ||
		    sscanf(paren + 1, " %*c %d", &ppid) != 1 || ppid != self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		n = read_small(path, cl, COPY_CMDLINE_MAX);
		if (n > 0 && memmem(cl, (size_t)n, mark, slen))
			kill((pid_t)pid, SIGKILL);
	}
	closedir(d);
	free(cl);
}

static void *wd_main(void *arg)
{
	struct watchdog *wd = arg;
	struct timespec ts;

	pthread_mutex_lock(&wd->mu);
	while (!wd->done) {
		int64_t now = mono_ms(), next;

		if (now >= wd->deadline) {
			if (!wd->expired && wd->g)
				guestfs_user_cancel(wd->g);
			wd->expired = 1;
			/* Again and again: during the appliance build QEMU
			 * is not running yet, and it must not get away. */
			kill_appliance(wd->mark);
			next = now + COPY_KILL_MS;
		} else {
			next = wd->deadline;
			if (wd->tar_fd >= 0) {
				struct stat st;

				if (!wd->overflowed && fstat(wd->tar_fd, &st) == 0 &&
				    (unsigned long long)st.st_size > wd->tar_cap && wd->g) {
					wd->overflowed = 1;
					guestfs_user_cancel(wd->g);
				}
				if (next > now + COPY_POLL_MS)
					next = now + COPY_POLL_MS;
			}
		}
		ts.tv_sec = next / 1000;
		ts.tv_nsec = (next % 1000) * 1000000;
		pthread_cond_timedwait(&wd->cv, &wd->mu, &ts);
	}
	pthread_mutex_unlock(&wd->mu);
	return NULL;
}

int img_wd_start(struct watchdog *wd, int timeout_s)
{
	pthread_condattr_t ca;
	int rc;

	wd->tar_fd = -1;
	wd->phase = PHASE_LAUNCH;
	wd->deadline = mono_ms() + (int64_t)timeout_s * 1000;
	if ((rc = pthread_mutex_init(&wd->mu, NULL)))
		return rc;
	wd->mu_ready = 1;
	if ((rc = pthread_condattr_init(&ca)))
		return rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(&wd->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		return rc;
	wd->cv_ready = 1;
	if ((rc = pthread_create(&wd->thread, NULL, wd_main, wd)))
		return rc;
	wd->running = 1;
	return 0;
}

void img_wd_stop(struct watchdog *wd)
{
	if (wd->running) {
		pthread_mutex_lock(&wd->mu);
		wd->done = 1;
		pthread_cond_signal(&wd->cv);
		pthread_mutex_unlock(&wd->mu);
		pthread_join(wd->thread, NULL);
		wd->running = 0;
	}
	if (wd->cv_ready)
		pthread_cond_destroy(&wd->cv);
	if (wd->mu_ready)
		pthread_mutex_destroy(&wd->mu);
	wd->cv_ready = wd->mu_ready = 0;
}

/* Sets what the copy is doing; returns 1 when the deadline has passed */
int img_wd_phase(struct watchdog *wd, const char *phase)
{
	int expired;

	if (!wd->running)
		return 0;
	pthread_mutex_lock(&wd->mu);
	if (phase && !wd->expired)
		wd->phase = phase;
	expired = wd->expired;
	pthread_mutex_unlock(&wd->mu);
	return expired;
}

void img_wd_set(struct watchdog *wd, guestfs_h *g, int tar_fd)
{
	pthread_mutex_lock(&wd->mu);
	wd->g = g;
	wd->tar_fd = tar_fd;
	pthread_mutex_unlock(&wd->mu);
}

int img_wd_overflowed(struct watchdog *wd)
{
	int o;

	pthread_mutex_lock(&wd->mu);
	o = wd->overflowed;
	pthread_mutex_unlock(&wd->mu);
	return o;
}

int img_wd_timed_out(const char *what, struct watchdog *wd, int timeout_s, char **err)
{
	return set_errf(err, "%s: not copied out in %d s (stopped while %s)", what, timeout_s,
			wd->phase);
}
