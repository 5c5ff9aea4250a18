/* SPDX-License-Identifier: GPL-2.0-only */
/* guest.h: what the agent's two files share: agent.c (the run: its
 * settings, the command, its output and results in frames, the end) and
 * boot.c (the guest's own setup around it: filesystems, modules, the
 * channel's device, the root disk). Built into the static kfleet-agent
 * alone, never into the host's library. */
#ifndef KF_GUEST_GUEST_H
#define KF_GUEST_GUEST_H

#include <stddef.h>
#include <stdint.h>

#define AGENT_CONF_MAX    4096
/* one argv string may not exceed MAX_ARG_STRLEN (32 pages) */
#define AGENT_CMD_MAX     (128 * 1024 - 1)
#define AGENT_TIMEOUT_DEF 600
#define AGENT_TIMEOUT_MAX (7 * 24 * 3600)
#define AGENT_OUTPUT_DEF  (1024ULL * 1024)
#define AGENT_DRAIN_MS    1000   /* output drained after the command exited */
#define AGENT_KILL_DRAIN_MS 200  /* output drained after killing the group */
#define AGENT_ERR_MAX     512

struct agent {
	int test_mode;
	const char *root;          /* "" in the guest */
	int chan_fd;               /* -1 when the channel could not be opened */
	uint32_t seq;
	long long run_id;
	int timeout_s;
	unsigned long long output_max;
	unsigned long long sent;   /* output bytes sent in OUT frames */
	unsigned long long dropped;/* output bytes past output_max */
	char exit_payload[AGENT_ERR_MAX];
	int virtio;                /* channel=virtio in run.conf, else ttyS1 */
	char root_dev[64];         /* root= in run.conf: the disk to switch to, or "" */
	char results[256];         /* results= in run.conf: made for the command, or "" */
	unsigned long long results_max; /* its archive is streamed up to this size */
	unsigned results_files;    /* and this many entries */
};

#define AGENT_PORT_WAIT_MS 10000 /* for the virtio port to appear after modprobe */
#define AGENT_ACK_WAIT_MS  10000 /* for kfleetd to say it has read everything */

/* boot.c: a line on the console (stderr), "kfleet-agent: ..." */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The EXIT frame's payload when the run cannot go on (printf-like) */
void set_exit(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Reads at most max bytes of path into a new NUL-terminated string (caller
 * frees). Returns NULL with errno set; EFBIG when the file is longer. */
char *slurp(const char *path, size_t max, size_t *lenp);

/* /proc, /sys, /dev (devtmpfs) and /tmp mounted; failures said */
void mount_guest(void);
/* The serial channel's tty at path, raw at 115200, for writing; fd or -1 */
int open_tty(const char *path);
/* The modules the initramfs lists in /kfleet/modules, loaded in order */
void load_modules(void);
/* The virtio-serial port of the agent channel, once it appears; fd or -1 */
int open_virtio_port(void);
/* Waits (bounded) for kfleetd to say it has read all of the channel */
void wait_ack(int fd);
/* The root disk (root= in run.conf) mounted and switched to; 0 / -1
 * with the run's exit set */
int switch_to_disk(struct agent *a);
/* The root disk's writes settled (synced, remounted read-only) */
void settle_disk(void);
/* Whether / is the initramfs: a ramfs or tmpfs holding run.conf */
int in_initramfs(void);

#endif
