// SPDX-License-Identifier: GPL-2.0-only
/* pidfile.c: kfleetd's pid file (state_dir/kfleetd.pid), for init scripts
 * (start-stop-daemon --pidfile) and to keep a second kfleetd off a state
 * directory in use: the file is flock()ed for the daemon's life, so a lock
 * that is free means whatever pid the file holds is stale. */
#include "common/pidfile.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/util.h"

#define PIDFILE_TRIES 10

/* The pid written in the file open at fd; 0 when none is (yet) */
static pid_t read_pid(int fd)
{
	char s[32];
	ssize_t n = pread(fd, s, sizeof(s) - 1, 0);
	long long v;

	if (n <= 0)
		return 0;
	s[n] = '\0';
	s[strcspn(s, "\n")] = '\0';
	return parse_int(s, 1, INT_MAX, &v) == 0 ? (pid_t)v : 0;
}

/* This process's pid into the locked file at fd, in place of what it held */
static int write_pid(int fd)
{
	char s[32];
	int n = snprintf(s, sizeof(s), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) < 0 || pwrite(fd, s, (size_t)n, 0) != n)
		return -1;
	return 0;
}

int pidfile_lock(struct pidfile *p, const char *path, pid_t *other)
{
	p->fd = -1;
	p->path = NULL;
	*other = 0;
	for (int i = 0; i < PIDFILE_TRIES; i++) {
		int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644), e;
		struct stat held, now;

		if (fd < 0)
			return -1;
		if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
			e = errno;
			if (e == EWOULDBLOCK)
				*other = read_pid(fd);
			close(fd);
			errno = e;
			return -1;
		}
		/* a daemon that was stopping removed the file after it was
		 * opened here: what is locked is no longer the pid file */
		if (fstat(fd, &held) < 0 || stat(path, &now) < 0 || held.st_ino != now.st_ino ||
		    held.st_dev != now.st_dev) {
			close(fd);
			continue;
		}
		p->path = strdup(path);
		if (!p->path || write_pid(fd) < 0) {
			e = p->path ? errno : ENOMEM;
			unlink(path);
			close(fd);
			free(p->path);
			p->path = NULL;
			errno = e;
			return -1;
		}
		p->fd = fd;
		return 0;
	}
	errno = EAGAIN;
	return -1;
}

void pidfile_release(struct pidfile *p)
{
	if (p->fd >= 0) {
		/* removed before the lock is dropped: a daemon starting finds no
		 * file, or a new one of its own (see pidfile_lock()) */
		unlink(p->path);
		close(p->fd);
	}
	free(p->path);
	p->fd = -1;
	p->path = NULL;
}
