// SPDX-License-Identifier: GPL-2.0-only
/* agent.c: kfleet-agent, the static program the guest's /init runs.
 * It reads the run's command and settings from the initramfs (/kfleet), runs
 * the command with /bin/sh -c, and reports to kfleetd in frames (frame.h) on
 * the agent channel: HELLO, OUT chunks, TRUNC, EXIT; then reboots, which
 * ends the domain (on_reboot). The channel is the second serial port
 * (x86_64) or a virtio-serial port, after
 * loading the kernel modules the initramfs lists in /kfleet/modules.
 * With --root DIR --channel FILE it does the same on the host for tests,
 * without mounting anything or powering off. The guest's own setup around
 * the run (mounts, modules, the channel's device, a root disk) is boot.c. */
#include "guest/guest.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "common/frame.h"
#include "common/util.h"
#include "guest/agent_tar.h"
#include "images/images.h"

static int write_all(int fd, const void *p, size_t n)
{
	const char *s = p;
	ssize_t w;

	while (n) {
		w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

static int send_frame(struct agent *a, enum frame_type t, const void *p, size_t n)
{
	char line[FRAME_MAX_LINE + 1];
	int len;

	if (a->chan_fd < 0)
		return -1;
	len = frame_encode(line, a->seq, t, p, n);
	if (len < 0)
		return -1;
	a->seq++;
	if (write_all(a->chan_fd, line, (size_t)len) < 0) {
		say("channel: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int send_text(struct agent *a, enum frame_type t, const char *s)
{
	size_t n = strlen(s);

	return send_frame(a, t, s, n > FRAME_MAX_PAYLOAD ? FRAME_MAX_PAYLOAD : n);
}

static int parse_ull(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (unsigned)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned)(*s - '0');
	}
	*out = v;
	return 0;
}

/* Reads run.conf; a missing file or bad values leave the defaults in place */
static void read_conf(struct agent *a, const char *path)
{
	unsigned long long v;
	char *data, *line, *next, *eq;
	int lineno = 0;

	data = slurp(path, AGENT_CONF_MAX, NULL);
	if (!data) {
		say("run.conf '%s': %s", path, strerror(errno));
		return;
	}
	for (line = data; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		line[strcspn(line, "\r")] = '\0';
		if (!*line || *line == '#')
			continue;
		eq = strchr(line, '=');
		if (!eq) {
			say("run.conf:%d: line '%s' has no '='", lineno, line);
			continue;
		}
		*eq++ = '\0';
		if (strcmp(line, "run") == 0) {
			if (parse_ull(eq, LLONG_MAX, &v) < 0)
				say("run.conf:%d: run '%s' is not a run id", lineno, eq);
			else
				a->run_id = (long long)v;
		} else if (strcmp(line, "timeout") == 0) {
			if (parse_ull(eq, AGENT_TIMEOUT_MAX, &v) < 0 || v == 0)
				say("run.conf:%d: timeout '%s' is not 1 to %d seconds",
				    lineno, eq, AGENT_TIMEOUT_MAX);
			else
				a->timeout_s = (int)v;
		} else if (strcmp(line, "channel") == 0) {
			if (strcmp(eq, "virtio") == 0)
				a->virtio = 1;
			else if (strcmp(eq, "ttyS1") == 0)
				a->virtio = 0;
			else
				say("run.conf:%d: channel '%s' is not virtio or ttyS1", lineno, eq);
		} else if (strcmp(line, "root") == 0) {
			/* a device node, never a path that leaves /dev */
			if (strncmp(eq, "/dev/", 5) || strchr(eq + 5, '/') || strstr(eq, "..") ||
			    strlen(eq) >= sizeof(a->root_dev))
				say("run.conf:%d: root '%s' is not a /dev node", lineno, eq);
			else
				snprintf(a->root_dev, sizeof(a->root_dev), "%s", eq);
		} else if (strcmp(line, "results") == 0) {
			if (eq[0] != '/' || strlen(eq) >= sizeof(a->results))
				say("run.conf:%d: results '%s' is not an absolute path", lineno, eq);
			else
				snprintf(a->results, sizeof(a->results), "%s", eq);
		} else if (strcmp(line, "output_max") == 0) {
			if (parse_ull(eq, ULLONG_MAX, &v) < 0)
				say("run.conf:%d: output_max '%s' is not a byte count", lineno, eq);
			else
				a->output_max = v;
		} else if (strcmp(line, "results_max") == 0) {
			if (parse_ull(eq, ULLONG_MAX, &v) < 0)
				say("run.conf:%d: results_max '%s' is not a byte count", lineno, eq);
			else
				a->results_max = v;
		} else if (strcmp(line, "results_files") == 0) {
			if (parse_ull(eq, UINT_MAX, &v) < 0)
				say("run.conf:%d: results_files '%s' is not a count", lineno, eq);
			else
				a->results_files = (unsigned)v;
		}
	}
	free(data);
}

/* "MemTotal:  123456 kB" from /proc/meminfo; 0 when unknown */
static unsigned long long mem_total_kb(void)
{
	unsigned long long kb = 0;
	char *data, *p;

	data = slurp("/proc/meminfo", 64 * 1024, NULL);
	if (!data)
		return 0;
	p = strstr(data, "MemTotal:");
	if (p)
		kb = strtoull(p + strlen("MemTotal:"), NULL, 10);
	free(data);
	return kb;
}

/* First field of /proc/uptime ("12.34 56.78") in ms; 0 when unknown */
static unsigned long long uptime_ms(void)
{
	unsigned long long ms = 0, frac = 0, scale = 100;
	char buf[128], *p;
	ssize_t r;
	int fd;

	fd = open("/proc/uptime", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	r = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (r <= 0)
		return 0;
	buf[r] = '\0';
	for (p = buf; *p >= '0' && *p <= '9'; p++)
		ms = ms * 10 + (unsigned)(*p - '0');
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9' && scale; p++, scale /= 10)
			frac += (unsigned)(*p - '0') * scale;
	return ms * 1000 + frac;
}

static void send_hello(struct agent *a)
{
	char payload[FRAME_MAX_PAYLOAD + 1];
	struct utsname u;
	long nproc;

	if (uname(&u) < 0)
		snprintf(u.release, sizeof(u.release), "unknown");
	nproc = sysconf(_SC_NPROCESSORS_ONLN);
	snprintf(payload, sizeof(payload),
		 "release=%s\nnproc=%ld\nmem_kb=%llu\nuptime_ms=%llu\nrun=%lld\n",
		 u.release, nproc, mem_total_kb(), uptime_ms(), a->run_id);
	send_text(a, FRAME_HELLO, payload);
}

/* Sends a chunk of output, or counts it as dropped past output_max */
static void output(struct agent *a, const char *p, size_t n)
{
	unsigned long long room = a->output_max - a->sent;
	size_t keep = n;

	if ((unsigned long long)keep > room)
		keep = (size_t)room;
	if (keep) {
		send_frame(a, FRAME_OUT, p, keep);
		a->sent += keep;
	}
	a->dropped += n - keep;
}

/* The child: its own session, clean environment, output into the pipe */
static void exec_child(const char *cmd, const char *results, int out_fd)
{
	char res_env[sizeof(((struct agent *)0)->results) + 16];
	char *envp[] = {
		"PATH=/kfleet/bin:/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/root", "TERM=linux",
		*results ? res_env : NULL, NULL,
	};
	char *argv[] = { "sh", "-c", (char *)cmd, NULL };
	struct sigaction sa;
	sigset_t none;
	int fd, sig;

	snprintf(res_env, sizeof(res_env), "KFLEET_RESULTS=%s", results);
	setsid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) {
		dprintf(out_fd, "kfleet-agent: child stdio: %s\n", strerror(errno));
		_exit(127);
	}
	if (fd > 2)
		close(fd);
	if (out_fd > 2)
		close(out_fd);
	execve("/bin/sh", argv, envp);
	dprintf(2, "kfleet-agent: exec '/bin/sh': %s\n", strerror(errno));
	_exit(127);
}

/* Reads what the pipe has right now (it is non-blocking), at most 64 KiB so
 * a flood does not keep the caller from its deadlines; returns 1 on EOF */
static int drain_ready(struct agent *a, int fd)
{
	char buf[FRAME_MAX_PAYLOAD];
	ssize_t r;
	int i;

	for (i = 0; i < 64; i++) {
		r = read(fd, buf, sizeof(buf));
		if (r > 0) {
			output(a, buf, (size_t)r);
			continue;
		}
		if (r == 0)
			return 1;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN)
			return 0;
		say("command output: %s", strerror(errno));
		return 1;
	}
	return 0;
}

static void record_status(struct agent *a, int status)
{
	if (WIFEXITED(status))
		set_exit(a, "code=%d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		set_exit(a, "signal=%d", WTERMSIG(status));
	else
		set_exit(a, "error=unexpected wait status %d", status);
}

static void kill_group(pid_t pid)
{
	/* the child may not have run setsid() yet: then it is alone */
	if (kill(-pid, SIGKILL) < 0 && errno == ESRCH)
		kill(pid, SIGKILL);
}

/* Runs cmd and streams its output; sets a->exit_payload */
static void run_command(struct agent *a, const char *cmd)
{
	int64_t deadline, drain_deadline = 0, now, until;
	int pfd[2] = { -1, -1 };
	int pipe_open = 1, exited = 0, status = 0, timed_out = 0, failed = 0;
	struct pollfd pf;
	pid_t pid, w;

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		set_exit(a, "error=pipe: %s", strerror(errno));
		return;
	}
	pid = fork();
	if (pid < 0) {
		set_exit(a, "error=fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (pid == 0) {
		close(pfd[0]);
		exec_child(cmd, a->results, pfd[1]);
	}
	close(pfd[1]);
	fcntl(pfd[0], F_SETFL, fcntl(pfd[0], F_GETFL) | O_NONBLOCK);
	deadline = mono_ms() + (int64_t)a->timeout_s * 1000;

	while (pipe_open || !exited) {
		now = mono_ms();
		if (!exited && now >= deadline) {
			timed_out = 1;
			break;
		}
		if (exited && now >= drain_deadline)
			break; /* background children still hold the pipe */
		if (exited) {
			until = drain_deadline;
		} else {
			/* wake up now and then to reap the child */
			until = now + (pipe_open ? 100 : 10);
			if (until > deadline)
				until = deadline;
		}
		pf.fd = pfd[0];
		pf.events = POLLIN;
		pf.revents = 0;
		if (poll(&pf, pipe_open ? 1 : 0, (int)(until - now)) < 0 && errno != EINTR) {
			set_exit(a, "error=poll: %s", strerror(errno));
			failed = 1;
			break;
		}
		if (pipe_open && pf.revents && drain_ready(a, pfd[0]))
			pipe_open = 0;
		if (!exited) {
			w = waitpid(pid, &status, WNOHANG);
			if (w == pid) {
				exited = 1;
				drain_deadline = mono_ms() + AGENT_DRAIN_MS;
			} else if (w < 0 && errno != EINTR) {
				set_exit(a, "error=waitpid: %s", strerror(errno));
				failed = 1;
				exited = 1; /* nothing to reap */
				break;
			}
		}
	}

	if (timed_out || failed || pipe_open)
		kill_group(pid);
	if (pipe_open) {
		/* what the killed group wrote before it died */
		until = mono_ms() + AGENT_KILL_DRAIN_MS;
		while (pipe_open && (now = mono_ms()) < until) {
			pf.fd = pfd[0];
			pf.events = POLLIN;
			pf.revents = 0;
			if (poll(&pf, 1, (int)(until - now)) > 0 && drain_ready(a, pfd[0]))
				pipe_open = 0;
		}
	}
	close(pfd[0]);
	if (!exited) {
		while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
			;
	}
	if (timed_out)
		set_exit(a, "timeout=%d", a->timeout_s);
	else if (!failed)
		record_status(a, status);
}

static int usage(void)
{
	fprintf(stderr, "usage: kfleet-agent                      (in the guest, started by /init)\n"
			"       kfleet-agent --root DIR --channel FILE  (test mode)\n");
	return 2;
}

/* Reads the arguments: none in a guest (where it must be init's child in
 * a kfleet initramfs), --root and --channel together in test mode. 0, or
 * the exit code */
static int parse_args(struct agent *a, int argc, char **argv, const char **channel)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--root") == 0 && i + 1 < argc)
			a->root = argv[++i];
		else if (strcmp(argv[i], "--channel") == 0 && i + 1 < argc)
			*channel = argv[++i];
		else
			return usage();
	}
	if (*a->root || *channel) {          /* *channel: given, even if "" */
		if (!*a->root || !*channel)
			return usage();
		a->test_mode = 1;
		return 0;
	}
	/* Never mount or power off anything but a guest */
	if (getppid() != 1) {
		say("not started by the guest's init; use --root/--channel to test");
		return 2;
	}
	if (!in_initramfs()) {
		say("'/' is not a kfleet initramfs; use --root/--channel to test");
		return 2;
	}
	return 0;
}

/* The results directory and the root disk, before the command: 0, or -1
 * with the exit payload set */
static int prepare_run(struct agent *a)
{
	if (*a->results && a->test_mode) {
		/* the command runs on the host: its results go under --root */
		char r[sizeof(a->results)];

		if (snprintf(r, sizeof(r), "%s%s", a->root, a->results) >= (int)sizeof(r)) {
			set_exit(a, "error=results directory '%s%s': path too long", a->root,
				 a->results);
			return -1;
		}
		memcpy(a->results, r, sizeof(r));
	}
	if (*a->root_dev && a->test_mode)
		say("root disk '%s' left alone in test mode", a->root_dev);
	else if (*a->root_dev && switch_to_disk(a) < 0)
		return -1;
	if (*a->results && mkdir_p(a->results, 0755) < 0) {
		set_exit(a, "error=results directory '%s': %s", a->results, strerror(errno));
		return -1;
	}
	return 0;
}

/* Reads the command from cmd_path and runs it */
static void run_job(struct agent *a, const char *cmd_path)
{
	char *cmd = slurp(cmd_path, AGENT_CMD_MAX, NULL);

	if (!cmd) {
		if (errno == EFBIG)
			set_exit(a, "error=command '%s' longer than %d bytes", IMG_CMD_PATH, AGENT_CMD_MAX);
		else
			set_exit(a, "error=command '%s': %s", IMG_CMD_PATH, strerror(errno));
		return;
	}
	say("run %lld: starting command", a->run_id);
	run_command(a, cmd);
	free(cmd);
}

/* The results archive, a frame's payload at a time */
struct res_out {
	struct agent *a;
	size_t n;
	unsigned char buf[FRAME_MAX_PAYLOAD];
};

static int res_emit(void *ctx, const void *p, size_t n)
{
	struct res_out *r = ctx;
	const unsigned char *s = p;

	while (n) {
		size_t k = sizeof(r->buf) - r->n < n ? sizeof(r->buf) - r->n : n;

		memcpy(r->buf + r->n, s, k);
		r->n += k;
		s += k;
		n -= k;
		if (r->n == sizeof(r->buf)) {
			if (send_frame(r->a, FRAME_RES, r->buf, r->n) < 0)
				return -1;
			r->n = 0;
		}
	}
	return 0;
}

/* Sends the results directory as an archive (RES frames, then RES_END)
 * when it is within the limits kfleetd gave; otherwise kfleetd copies it
 * out of the disk after the guest stops. Only on the virtio port: on the
 * second serial port every byte is a trap into QEMU. */
static void send_results(struct agent *a)
{
	struct agent_tar_stats st;
	struct res_out *r;
	char end[160];

	if (!*a->results || (!a->virtio && !a->test_mode) || a->chan_fd < 0)
		return;
	if (agent_tar_measure(a->results, &st) < 0) {
		if (errno == ENOENT)
			send_text(a, FRAME_RES_END, "missing");
		else
			snprintf(end, sizeof(end), "error=%s: %s", a->results, strerror(errno)),
			send_text(a, FRAME_RES_END, end);
		return;
	}
	if (st.size > (a->results_max ? a->results_max : IMG_RESULTS_STREAM_MAX) ||
	    st.files + st.dirs > (a->results_files ? a->results_files : IMG_RESULTS_FILES_MAX)) {
		snprintf(end, sizeof(end), "over files=%u bytes=%llu", st.files + st.dirs, st.size);
		send_text(a, FRAME_RES_END, end);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r)
		return;
	r->a = a;
	if (agent_tar_write(a->results, res_emit, r, &st) == 0 &&
	    (!r->n || send_frame(a, FRAME_RES, r->buf, r->n) == 0)) {
		snprintf(end, sizeof(end), "ok files=%u dirs=%u bytes=%llu skipped=%u size=%llu",
			 st.files, st.dirs, st.bytes, st.skipped, st.size);
		send_text(a, FRAME_RES_END, end);
		say("run %lld: results: %u files, %llu bytes sent", a->run_id, st.files, st.bytes);
	}
	free(r);
}

/* Reports the end (TRUNC, EXIT), lets go of the channel and the disk, and
 * in a guest reboots; returns the exit code in test mode or when the
 * reboot failed */
static int finish(struct agent *a)
{
	if (a->dropped) {
		char n[32];

		snprintf(n, sizeof(n), "%llu", a->dropped);
		send_text(a, FRAME_TRUNC, n);
	}
	send_text(a, FRAME_EXIT, a->exit_payload);
	if (a->virtio && !a->test_mode && a->chan_fd >= 0)
		wait_ack(a->chan_fd);

	if (a->chan_fd >= 0) {
		if (isatty(a->chan_fd))
			tcdrain(a->chan_fd);
		close(a->chan_fd);
	}
	if (*a->root_dev && !a->test_mode)
		settle_disk();
	sync();
	say("run %lld: %s", a->run_id, a->exit_payload);
	if (a->test_mode)
		return 0;
	/* a reboot, which the domain's on_reboot turns into its end: unlike a
	 * power-off it needs no ACPI (a tinyconfig kernel only halts) */
	reboot(RB_AUTOBOOT);
	say("reboot: %s", strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct agent a;
	char conf_path[PATH_MAX], cmd_path[PATH_MAX];
	const char *channel = NULL;
	struct sigaction sa;
	int rc;

	memset(&a, 0, sizeof(a));
	a.root = "";
	a.chan_fd = -1;
	a.run_id = -1;
	a.timeout_s = AGENT_TIMEOUT_DEF;
	a.output_max = AGENT_OUTPUT_DEF;
	if ((rc = parse_args(&a, argc, argv, &channel)) != 0)
		return rc;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	if (snprintf(conf_path, sizeof(conf_path), "%s%s", a.root, IMG_RUNCONF_PATH) >= (int)sizeof(conf_path) ||
	    snprintf(cmd_path, sizeof(cmd_path), "%s%s", a.root, IMG_CMD_PATH) >= (int)sizeof(cmd_path)) {
		say("root '%s': path too long", a.root);
		return 2;
	}

	read_conf(&a, conf_path);
	if (a.test_mode) {
		a.chan_fd = open(channel, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (a.chan_fd < 0) {
			say("channel '%s': %s", channel, strerror(errno));
			return 1;
		}
	} else {
		mount_guest();
		load_modules();
		a.chan_fd = a.virtio ? open_virtio_port() : open_tty(IMG_AGENT_TTY);
	}
	send_hello(&a);
	if (prepare_run(&a) == 0) {
		run_job(&a, cmd_path);
		send_results(&a);
	}
	return finish(&a);
}
