/* SPDX-License-Identifier: GPL-2.0-only */
/* agent_tar.h: the in-guest agent's archive of a job's results directory,
 * sent to kfleetd on the agent channel (RES frames) before the EXIT frame,
 * so that a root-disk job's results need no libguestfs appliance to come
 * out (orchestrator/channel.c keeps the stream, images/extract.c reads it
 * with the rules of any archive from a guest). A plain ustar stream:
 * directories and regular files only (links, devices, fifos and sockets are
 * counted and left out), names longer than ustar's 100 bytes as GNU long
 * names, which libarchive reads. libc only: the static agent links it, and
 * so does kfleetd's library for its unit tests. */
#ifndef KF_AGENT_TAR_H
#define KF_AGENT_TAR_H

#include <stddef.h>

#define AGENT_TAR_DEPTH 64   /* directories below the results directory at most */

struct agent_tar_stats {
	unsigned files, dirs;        /* in the archive (the top directory not counted) */
	unsigned long long bytes;    /* of regular files' data */
	unsigned skipped;            /* links, special files, too deep, unreadable */
	unsigned long long size;     /* of the archive itself */
};

/* Where the archive's bytes go; 0, or -1 to stop (the channel failed) */
typedef int (*agent_tar_emit)(void *ctx, const void *p, size_t n);

/* Measures dir (what agent_tar_write would put in the archive) without
 * reading any file: 0 with *st filled, or -1 with errno (ENOENT: no such
 * directory). */
int agent_tar_measure(const char *dir, struct agent_tar_stats *st);

/* Writes dir's archive through emit, names relative to dir; 0 with *st
 * filled, -1 when emit failed or dir cannot be opened (errno). A file that
 * shrinks while it is read is padded with zeros, one that grows is cut at
 * the size its header said: the archive stays well formed. */
int agent_tar_write(const char *dir, agent_tar_emit emit, void *ctx, struct agent_tar_stats *st);

#endif
