/* SPDX-License-Identifier: GPL-2.0-only */
/* pidfile.h: a daemon's pid file, held under an flock(2) for the daemon's
 * life (pidfile.c): a second daemon on it is refused, naming the first's
 * pid, and a file a killed daemon left (no lock on it) is taken over. */
#ifndef KF_PIDFILE_H
#define KF_PIDFILE_H

#include <sys/types.h>

struct pidfile {
	int fd;        /* open and locked while held; -1 when not */
	char *path;
};

/* Locks path (made 0644 when missing) and writes this process's pid into
 * it: 0 with p filled, held until pidfile_release(). -1 with errno:
 * EWOULDBLOCK when another process holds it, *other then its pid as the
 * file says (0 when it has not written one yet). */
int pidfile_lock(struct pidfile *p, const char *path, pid_t *other);
/* Removes the file and drops the lock; p is empty after. A p never locked
 * (fd -1) is fine. */
void pidfile_release(struct pidfile *p);

#endif
