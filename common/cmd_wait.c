// SPDX-License-Identifier: GPL-2.0-only
/* cmd_wait.c: supervises a spawned child for cmd_run() (cmdint.h): its
 * stdout and stderr pipes pumped into buffers bounded by their caps, the
 * deadline and the cancel flag enforced on its whole process group, then
 * its end (exit code or signal) reaped into c->res. */
#include "common/cmdint.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

/* Writes all of n bytes to fd. 0 / -1 */
static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Reads what is there from a sink's pipe; 0 on EOF (closes it), 1 more */
static int sink_read(struct cmd_sink *s)
{
	char chunk[65536];

	for (;;) {
		ssize_t r = read(s->fd, chunk, sizeof(chunk));
		size_t cap, room, n;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (r <= 0) {
			close(s->fd);
			s->fd = -1;
			return 0;
		}
		n = (size_t)r;
		if (!s->b) {
			/* into the file, up to its cap */
			room = s->written < s->max ? (size_t)(s->max - s->written) : 0;
			if (n > room) {
				n = room;
				*s->truncated = 1;
			}
			if (n && write_all(s->file_fd, chunk, n) < 0)
				*s->truncated = 1;
			s->written += (int64_t)n;
			continue;
		}
		cap = s->b->cap ? s->b->cap : CMD_OUT_MAX;
		room = s->b->len < cap ? cap - s->b->len : 0;
		if (n > room) {
			n = room;
			s->b->truncated = 1;
			*s->truncated = 1;
		}
		if (n && buf_append(s->b, chunk, n) < 0)
			*s->truncated = 1;
	}
}

/* The child is not reaped before this, so its pid (the group's id) cannot
 * have been reused. */
static void kill_group(pid_t pid, int sig)
{
	kill(-pid, sig);
	kill(pid, sig);
}

/* Has the child exited? Leaves it a zombie (WNOWAIT): its pid stays
 * reserved until cmd_supervise() reaps it last, so signalling its process
 * group stays safe. */
static int exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;   /* someone else reaped it */
	return si.si_pid == pid;
}

/* What cmd_supervise() tracks about one child between its looks at it */
struct sup {
	struct cmd *c;
	pid_t pid;
	int pidfd, gone, timed_out;
	int64_t start, deadline, kill_at, linger_at, check_at;
};

/* How many of the sinks' pipes are still open */
static int sinks_open(const struct cmd_sink *sinks, int nsinks)
{
	int open_sinks = 0;

	for (int i = 0; i < nsinks; i++)
		if (sinks[i].fd >= 0)
			open_sinks++;
	return open_sinks;
}

/* The child is gone but something it started still holds its output: kills
 * that, takes what is in the pipes and closes them. */
static void sinks_abandon(pid_t pid, struct cmd_sink *sinks, int nsinks)
{
	kill_group(pid, SIGKILL);
	for (int i = 0; i < nsinks; i++) {
		if (sinks[i].fd >= 0 && sink_read(&sinks[i]))
			close(sinks[i].fd);
		sinks[i].fd = -1;
	}
}

/* Moves the deadline to now on a cancel, an output past its cap or a
 * failed check; past the deadline sends SIGTERM, past the grace SIGKILL. */
static void sup_enforce(struct sup *s, int64_t now)
{
	struct cmd *c = s->c;

	if (!s->timed_out && c->cancel && *c->cancel) {
		c->res.canceled = 1;
		s->deadline = now;
	}
	if (!s->timed_out && c->out_max > 0 && c->res.out_truncated && !c->res.overflow) {
		c->res.overflow = 1;   /* past the file's cap */
		s->deadline = now;
	}
	if (!s->timed_out && s->check_at >= 0 && now >= s->check_at) {
		s->check_at = now + c->check_ms;
		if (c->check(c->check_arg, c->res.stopped, sizeof(c->res.stopped)))
			s->deadline = now;
		else
			c->res.stopped[0] = '\0';
	}
	if (s->deadline >= 0 && !s->timed_out && now >= s->deadline) {
		s->timed_out = 1;
		kill_group(s->pid, SIGTERM);
		s->kill_at = now + c->grace_ms;
	}
	if (s->kill_at >= 0 && now >= s->kill_at) {
		kill_group(s->pid, SIGKILL);
		s->kill_at = -1;
	}
}

/* How long poll() may wait before the next thing to do: ms, -1 for ever */
static int sup_wait_ms(const struct sup *s, int64_t now)
{
	int64_t next = -1;
	int wait_ms = -1;

	if (!s->gone && s->deadline >= 0 && !s->timed_out)
		next = s->deadline;
	if (!s->gone && s->kill_at >= 0)
		next = next < 0 || s->kill_at < next ? s->kill_at : next;
	if (s->gone)
		next = s->linger_at;
	if (next >= 0)
		wait_ms = next > now ? (int)(next - now) : 0;
	if (!s->gone && s->pidfd < 0 && (wait_ms < 0 || wait_ms > 10))
		wait_ms = 10;   /* no pidfd: look for the exit now and then */
	if (!s->gone && s->c->cancel && (wait_ms < 0 || wait_ms > 200))
		wait_ms = 200;  /* look at the cancel flag now and then */
	if (!s->gone && s->check_at >= 0 && (wait_ms < 0 || s->check_at - now < wait_ms))
		wait_ms = s->check_at > now ? (int)(s->check_at - now) : 0;
	return wait_ms;
}

/* Waits up to wait_ms for output or the child's exit, then drains the pipes */
static void sup_poll(const struct sup *s, struct cmd_sink *sinks, int nsinks, int wait_ms)
{
	struct pollfd pfd[3];
	int n = 0;

	for (int i = 0; i < nsinks; i++) {
		if (sinks[i].fd >= 0) {
			pfd[n].fd = sinks[i].fd;
			pfd[n].events = POLLIN;
			n++;
		}
	}
	if (!s->gone && s->pidfd >= 0) {
		pfd[n].fd = s->pidfd;
		pfd[n].events = POLLIN;
		n++;
	}
	if (poll(pfd, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
		usleep(10000);
	for (int i = 0; i < nsinks; i++)
		if (sinks[i].fd >= 0)
			sink_read(&sinks[i]);
}

/* Reaps the child and fills c->res with how it ended */
static void sup_reap(struct cmd *c, pid_t pid, int timed_out)
{
	int status = 0;
	pid_t w;

	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w != pid) {
		c->res.end = CMD_END_SPAWN;
		c->res.err = errno ? errno : ECHILD;
		return;
	}
	if (WIFSIGNALED(status))
		c->res.signo = WTERMSIG(status);
	if (WIFEXITED(status))
		c->res.code = WEXITSTATUS(status);
	if (timed_out)
		c->res.end = CMD_END_TIMEOUT;
	else if (WIFSIGNALED(status))
		c->res.end = CMD_END_SIGNAL;
	else
		c->res.end = CMD_END_EXIT;
}

/* Waits for the child while draining its pipes and enforcing the deadline,
 * then reaps it. Fills c->res. */
void cmd_supervise(struct cmd *c, pid_t pid, struct cmd_sink *sinks, int nsinks)
{
	struct sup s = {
		.c = c, .pid = pid, .pidfd = pidfd_open(pid, 0), .start = mono_ms(),
		.deadline = -1, .kill_at = -1, .linger_at = -1, .check_at = -1,
	};

	if (c->timeout_ms)
		s.deadline = s.start + c->timeout_ms;
	if (c->check)
		s.check_at = s.start + c->check_ms;
	for (;;) {
		int64_t now = mono_ms();

		if (!s.gone && exited(pid)) {
			s.gone = 1;
			c->res.ms = now - s.start;
			if (s.timed_out)
				kill_group(pid, SIGKILL);   /* what is left of a timed-out command */
			s.linger_at = now + CMD_LINGER_MS;
		}
		if (s.gone && !sinks_open(sinks, nsinks))
			break;
		if (s.gone && (s.timed_out || now >= s.linger_at)) {
			sinks_abandon(pid, sinks, nsinks);
			break;
		}
		if (!s.gone)
			sup_enforce(&s, now);
		sup_poll(&s, sinks, nsinks, sup_wait_ms(&s, now));
	}
	if (s.pidfd >= 0)
		close(s.pidfd);
	sup_reap(c, pid, s.timed_out);
}
