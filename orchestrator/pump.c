// SPDX-License-Identifier: GPL-2.0-only
/* pump.c: copies what a guest sends into the run's files while it runs.
 * The agent's virtio port reaches the daemon through a unix socket QEMU
 * listens on (a local host) or as a libvirt stream (a host reached by
 * upload, for the console too); what arrives is appended, up to a cap, to
 * agent.log or console.log, where channel_poll() and the console scan read
 * it like the serial ports' files. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/util.h"

void pump_init(struct pump *p)
{
	memset(p, 0, sizeof(*p));
	p->sock = p->out = -1;
}

/* Appends what fits under max of the n bytes read; 1 once max is reached
 * or a write failed (p->werr: the run is over) */
static int pump_keep(struct pump *p, const char *chunk, long long n)
{
	if (p->werr)
		return 1;
	if (p->copied + n > p->max)
		n = p->max - p->copied;
	if (n > 0 && fd_write_all(p->out, chunk, (size_t)n) < 0) {
		p->werr = errno;
		return 1;
	}
	if (n > 0)
		p->copied += n;
	return p->copied >= p->max;
}

/* What a non-blocking stream has now; it ends with the guest */
static void pump_stream(struct pump *p, char *chunk, size_t size)
{
	for (;;) {
		int r = virStreamRecv(p->st, chunk, size);

		if (r == -2)
			break;
		if (r <= 0) {
			p->eof = 1;
			break;
		}
		if (pump_keep(p, chunk, r))
			break;
	}
}

void pump_poll(struct pump *p)
{
	char chunk[65536];

	if (p->eof || p->out < 0 || p->werr)
		return;
	if (p->st) {
		pump_stream(p, chunk, sizeof(chunk));
		return;
	}
	if (p->sock < 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p->path);
		if (fd < 0)
			return;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fd);
			return;  /* not listening yet: the next poll tries again */
		}
		p->sock = fd;
	}
	for (;;) {
		ssize_t r = read(p->sock, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (r < 0 && errno != EAGAIN)) {
			p->eof = 1;
			break;
		}
		if (r < 0)
			break;
		if (pump_keep(p, chunk, r))
			break;
	}
}

int pump_open_socket(struct pump *p, const char *sock, const char *file, long long max)
{
	p->path = sock;
	p->max = max;
	p->out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	return p->out < 0 ? -1 : 0;
}

int pump_open_stream(struct pump *p, virDomainPtr d, const char *dev, int channel,
		     const char *file, long long max, char **err)
{
	p->out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	p->max = max;
	p->st = virStreamNew(virDomainGetConnect(d), VIR_STREAM_NONBLOCK);
	if (p->out < 0 || !p->st ||
	    (channel ? virDomainOpenChannel(d, dev, p->st, VIR_DOMAIN_CHANNEL_FORCE)
		     : virDomainOpenConsole(d, dev, p->st, VIR_DOMAIN_CONSOLE_FORCE)) < 0) {
		char *e = p->out < 0 ? strdup(strerror(errno)) : guest_last_error();

		set_errf(err, "%s '%s': %s", channel ? "channel" : "console",
			 dev ? dev : "serial0", e ? e : "?");
		free(e);
		return -1;
	}
	return 0;
}

void pump_close(struct pump *p)
{
	if (p->st) {
		virStreamAbort(p->st);
		virStreamFree(p->st);
		p->st = NULL;
	}
	if (p->sock >= 0)
		close(p->sock);
	if (p->out >= 0)
		close(p->out);
	p->sock = p->out = -1;
}
