/* cmd.c: runs programs for every part of kfleet (git for series intake,
 * later make, qemu-img, mkfs): posix_spawn() with a clean environment,
 * only fds 0-2, a process group of its own, bounded output capture and a
 * deadline, then one message for whatever went wrong. See cmd.h. */
#include "common/cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/util.h"

enum cmd_in { CMD_IN_NULL, CMD_IN_BUF, CMD_IN_FILE };
enum cmd_out { CMD_OUT_NULL, CMD_OUT_BUF, CMD_OUT_FILE, CMD_OUT_STDOUT, CMD_OUT_CAPTURE };

struct cmd {
	char **argv;            /* NULL-terminated */
	size_t argc, argv_alloc;
	char **env;             /* "NAME=VALUE", NULL-terminated */
	size_t nenv, env_alloc;
	char *label;
	char *dir;

	enum cmd_in in;
	const void *in_data;
	size_t in_len;
	char *in_path;

	enum cmd_out out, errto;
	struct buf *out_buf, *err_buf;
	char *out_path, *err_path;
	int out_append;         /* stdout's file is appended to, not truncated */
	struct buf capture;     /* stderr when the caller did not ask for it */

	int timeout_ms;
	int grace_ms;
	const volatile int *cancel;  /* stop the child when this becomes non-zero */
	int oom;                /* building ran out of memory */
	char *bad_env;          /* a name cmd_env() refused */
	int ran;
	struct cmd_result res;
};

/* One output stream being read from its pipe */
struct cmd_sink {
	int fd;                 /* read end, -1 when closed */
	struct buf *b;
	int *truncated;
};

static char *xstrdup(struct cmd *c, const char *s)
{
	char *p = strdup(s ? s : "");

	if (!p)
		c->oom = 1;
	return p;
}

static int push(struct cmd *c, char ***v, size_t *n, size_t *alloc, char *s)
{
	if (!s) {
		c->oom = 1;
		return -1;
	}
	if (*n + 2 > *alloc) {
		size_t na = *alloc ? *alloc * 2 : 8;
		char **nv = realloc(*v, na * sizeof(*nv));

		if (!nv) {
			free(s);
			c->oom = 1;
			return -1;
		}
		*v = nv;
		*alloc = na;
	}
	(*v)[(*n)++] = s;
	(*v)[*n] = NULL;
	return 0;
}

struct cmd *cmd_new(const char *prog)
{
	struct cmd *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->grace_ms = CMD_KILL_GRACE_MS;
	c->errto = CMD_OUT_CAPTURE;
	buf_init(&c->capture, CMD_ERR_MAX);
	cmd_arg(c, prog);
	return c;
}

struct cmd *cmd_newv(const char *const *argv)
{
	struct cmd *c = cmd_new(argv && argv[0] ? argv[0] : "");

	for (size_t i = 1; c && argv && argv[0] && argv[i]; i++)
		cmd_arg(c, argv[i]);
	return c;
}

void cmd_arg(struct cmd *c, const char *arg)
{
	if (c)
		push(c, &c->argv, &c->argc, &c->argv_alloc, xstrdup(c, arg));
}

void cmd_argf(struct cmd *c, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (!c)
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	push(c, &c->argv, &c->argc, &c->argv_alloc, s);
}

void cmd_args(struct cmd *c, ...)
{
	va_list ap;
	const char *s;

	va_start(ap, c);
	while ((s = va_arg(ap, const char *)))
		cmd_arg(c, s);
	va_end(ap);
}

void cmd_label(struct cmd *c, const char *label)
{
	if (!c)
		return;
	free(c->label);
	c->label = xstrdup(c, label);
}

static ssize_t env_find(const struct cmd *c, const char *name, size_t n)
{
	for (size_t i = 0; i < c->nenv; i++)
		if (!strncmp(c->env[i], name, n) && c->env[i][n] == '=')
			return (ssize_t)i;
	return -1;
}

void cmd_env(struct cmd *c, const char *name, const char *value)
{
	char *s = NULL;
	ssize_t at;

	if (!c)
		return;
	if (!name || !*name || strchr(name, '=')) {
		/* not a variable name: an error the run reports */
		if (!c->bad_env)
			c->bad_env = xstrdup(c, name ? name : "");
		return;
	}
	if (asprintf(&s, "%s=%s", name, value ? value : "") < 0) {
		c->oom = 1;
		return;
	}
	at = env_find(c, name, strlen(name));
	if (at >= 0) {
		free(c->env[at]);
		c->env[at] = s;
		return;
	}
	push(c, &c->env, &c->nenv, &c->env_alloc, s);
}

void cmd_env_pass(struct cmd *c, const char *name)
{
	const char *v = name ? getenv(name) : NULL;

	if (v)
		cmd_env(c, name, v);
}

void cmd_dir(struct cmd *c, const char *dir)
{
	if (!c)
		return;
	free(c->dir);
	c->dir = xstrdup(c, dir);
}

void cmd_stdin_buf(struct cmd *c, const void *data, size_t len)
{
	if (!c)
		return;
	c->in = CMD_IN_BUF;
	c->in_data = data;
	c->in_len = data ? len : 0;
}

void cmd_stdin_file(struct cmd *c, const char *path)
{
	if (!c)
		return;
	free(c->in_path);
	c->in = CMD_IN_FILE;
	c->in_path = xstrdup(c, path);
}

void cmd_stdout_buf(struct cmd *c, struct buf *b)
{
	if (!c)
		return;
	c->out = b ? CMD_OUT_BUF : CMD_OUT_NULL;
	c->out_buf = b;
}

void cmd_stdout_file(struct cmd *c, const char *path)
{
	if (!c)
		return;
	free(c->out_path);
	c->out = CMD_OUT_FILE;
	c->out_path = xstrdup(c, path);
	c->out_append = 0;
}

void cmd_cancel_on(struct cmd *c, const volatile int *flag)
{
	if (c)
		c->cancel = flag;
}

void cmd_stdout_append(struct cmd *c, const char *path)
{
	cmd_stdout_file(c, path);
	if (c)
		c->out_append = 1;
}

void cmd_stderr_buf(struct cmd *c, struct buf *b)
{
	if (!c)
		return;
	c->errto = b ? CMD_OUT_BUF : CMD_OUT_CAPTURE;
	c->err_buf = b;
}

void cmd_stderr_file(struct cmd *c, const char *path)
{
	if (!c)
		return;
	free(c->err_path);
	c->errto = CMD_OUT_FILE;
	c->err_path = xstrdup(c, path);
}

void cmd_stderr_to_stdout(struct cmd *c)
{
	if (c)
		c->errto = CMD_OUT_STDOUT;
}

void cmd_timeout(struct cmd *c, int ms)
{
	if (c)
		c->timeout_ms = ms > 0 ? ms : 0;
}

void cmd_kill_grace(struct cmd *c, int grace_ms)
{
	if (c)
		c->grace_ms = grace_ms > 0 ? grace_ms : 0;
}

const struct cmd_result *cmd_result(const struct cmd *c)
{
	static const struct cmd_result none;

	return c ? &c->res : &none;
}

void cmd_free(struct cmd *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->argc; i++)
		free(c->argv[i]);
	free(c->argv);
	for (size_t i = 0; i < c->nenv; i++)
		free(c->env[i]);
	free(c->env);
	free(c->label);
	free(c->bad_env);
	free(c->dir);
	free(c->in_path);
	free(c->out_path);
	free(c->err_path);
	buf_release(&c->capture);
	free(c);
}

/* ---- naming and messages ---- */

static int is_word(const char *s)
{
	if (!s || *s < 'a' || *s > 'z')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return 0;
	return 1;
}

/* "git mailinfo", "sh", "qemu-img create"; caller frees */
static char *default_label(const struct cmd *c)
{
	const char *prog = c->argc ? c->argv[0] : "", *slash = strrchr(prog, '/');
	char *s = NULL;

	if (slash)
		prog = slash + 1;
	if (!*prog)
		prog = "command";
	if (c->argc > 1 && is_word(c->argv[1])) {
		if (asprintf(&s, "%s %s", prog, c->argv[1]) < 0)
			s = NULL;
		return s;
	}
	return strdup(prog);
}

/* The last non-empty line of text, made printable and at most 300 bytes,
 * into out (>= 304 bytes); "" when there is none. */
static void last_line(const char *text, size_t len, char *out, size_t n)
{
	size_t end = len, start, k = 0;

	out[0] = '\0';
	while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == '\r' ||
			   text[end - 1] == ' ' || text[end - 1] == '\t'))
		end--;
	start = end;
	while (start > 0 && text[start - 1] != '\n')
		start--;
	while (start < end && (text[start] == ' ' || text[start] == '\t'))
		start++;
	if (end - start > 300)
		start = end - 300;
	for (size_t i = start; i < end && k + 1 < n; i++) {
		unsigned char ch = (unsigned char)text[i];

		out[k++] = ch < 0x20 || ch == 0x7f ? '?' : (char)ch;
	}
	out[k] = '\0';
}

/* What the child said last on stderr, wherever that went */
static void stderr_tail(struct cmd *c, char *out, size_t n)
{
	const struct buf *b = NULL;

	out[0] = '\0';
	switch (c->errto) {
	case CMD_OUT_CAPTURE: b = &c->capture; break;
	case CMD_OUT_BUF: b = c->err_buf; break;
	case CMD_OUT_STDOUT:
		if (c->out == CMD_OUT_BUF)
			b = c->out_buf;
		else if (c->out == CMD_OUT_FILE && c->out_path) {
			struct buf t = BUF_INIT(0);

			if (read_file_tail(c->out_path, &t, 4096) == 0)
				last_line(buf_str(&t), t.len, out, n);
			buf_release(&t);
		}
		break;
	case CMD_OUT_FILE:
		if (c->err_path) {
			struct buf t = BUF_INIT(0);

			if (read_file_tail(c->err_path, &t, 4096) == 0)
				last_line(buf_str(&t), t.len, out, n);
			buf_release(&t);
		}
		break;
	default:
		break;
	}
	if (b)
		last_line(buf_str(b), b->len, out, n);
}

static void fmt_ms(char *out, size_t n, int ms)
{
	if (ms % 1000 == 0)
		snprintf(out, n, "%d s", ms / 1000);
	else
		snprintf(out, n, "%d ms", ms);
}

static void set_err(char **err, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set_err(char **err, const char *label, const char *fmt, ...)
{
	va_list ap;
	char *what = NULL;

	if (!err)
		return;
	free(*err);
	*err = NULL;
	va_start(ap, fmt);
	if (vasprintf(&what, fmt, ap) < 0)
		what = NULL;
	va_end(ap);
	if (!what || asprintf(err, "%s: %s", label ? label : "command", what) < 0)
		*err = NULL;
	free(what);
}

static void end_message(struct cmd *c, const char *label, char **err)
{
	char tail[320], when[32], sig[64];
	const struct cmd_result *r = &c->res;
	const char *sep;

	stderr_tail(c, tail, sizeof(tail));
	sep = tail[0] ? ": " : "";
	if (r->signo) {
		const char *abbrev = sigabbrev_np(r->signo);

		snprintf(sig, sizeof(sig), "signal %d (SIG%s)", r->signo, abbrev ? abbrev : "?");
	}
	switch (r->end) {
	case CMD_END_EXIT:
		set_err(err, label, "exited with %d%s%s", r->code, sep, tail);
		break;
	case CMD_END_SIGNAL:
		set_err(err, label, "killed by %s%s%s", sig, sep, tail);
		break;
	case CMD_END_TIMEOUT:
		fmt_ms(when, sizeof(when), c->timeout_ms);
		if (c->res.canceled)
			set_err(err, label, "canceled%s%s", sep, tail);
		else
			set_err(err, label, "timed out after %s%s%s", when, sep, tail);
		break;
	default:
		set_err(err, label, "did not run");
		break;
	}
}

/* ---- running ---- */

/* Moves fd to 3 or above (close-on-exec), so that the dup2()s onto 0-2 in
 * the child cannot clobber each other when this process lacks some of 0-2. */
static int high_fd(int fd)
{
	int n;

	if (fd < 0 || fd > 2)
		return fd;
	n = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return n;
}

/* The program's path: prog itself when it has a '/', else the first
 * executable regular file PATH names. Caller frees; NULL when none. */
static char *find_program(const char *prog, const char *path)
{
	const char *p = path;

	if (strchr(prog, '/'))
		return strdup(prog);
	if (!*prog)
		return NULL;
	while (p && *p) {
		size_t n = strcspn(p, ":");
		char *full = NULL;
		struct stat st;

		if (asprintf(&full, "%.*s/%s", (int)n, n ? p : ".", prog) < 0)
			return NULL;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0)
			return full;
		free(full);
		p += n;
		if (*p == ':')
			p++;
	}
	return NULL;
}

static int open_out(const char *path, int append)
{
	return open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC) | O_CLOEXEC |
		    O_NOCTTY, 0644);
}

/* Puts stdin's data in an anonymous file: no pipe to feed, no SIGPIPE. */
static int stdin_memfd(const void *data, size_t len)
{
	int fd = memfd_create("kfleet-cmd-stdin", MFD_CLOEXEC), ok = 0, e;
	const char *p = data;

	if (fd < 0)
		return -1;
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			goto out;
		p += w;
		len -= (size_t)w;
	}
	ok = lseek(fd, 0, SEEK_SET) == 0;
out:
	if (ok)
		return fd;
	e = errno;
	close(fd);
	errno = e;
	return -1;
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
 * reserved until supervise() reaps it last, so signalling its process
 * group stays safe. */
static int exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return errno == ECHILD;   /* someone else reaped it */
	return si.si_pid == pid;
}

/* Waits for the child while draining its pipes and enforcing the deadline,
 * then reaps it. Fills c->res. */
static void supervise(struct cmd *c, pid_t pid, struct cmd_sink *sinks, int nsinks)
{
	int64_t start = mono_ms(), deadline = -1, kill_at = -1, linger_at = -1;
	int pidfd = pidfd_open(pid, 0), status = 0, gone = 0, timed_out = 0;
	pid_t w;

	if (c->timeout_ms)
		deadline = start + c->timeout_ms;
	for (;;) {
		struct pollfd pfd[3];
		int n = 0, open_sinks = 0, wait_ms = -1;
		int64_t now = mono_ms(), next = -1;

		if (!gone && exited(pid)) {
			gone = 1;
			c->res.ms = now - start;
			if (timed_out)
				kill_group(pid, SIGKILL);   /* what is left of a timed-out command */
			linger_at = now + CMD_LINGER_MS;
		}
		for (int i = 0; i < nsinks; i++)
			if (sinks[i].fd >= 0)
				open_sinks++;
		if (gone && !open_sinks)
			break;
		if (gone && (timed_out || now >= linger_at)) {
			/* something the child started still holds its output */
			kill_group(pid, SIGKILL);
			for (int i = 0; i < nsinks; i++) {
				if (sinks[i].fd >= 0 && sink_read(&sinks[i]))
					close(sinks[i].fd);
				sinks[i].fd = -1;
			}
			break;
		}
		if (!gone && !timed_out && c->cancel && *c->cancel) {
			c->res.canceled = 1;
			deadline = now;
		}
		if (!gone && deadline >= 0 && !timed_out && now >= deadline) {
			timed_out = 1;
			kill_group(pid, SIGTERM);
			kill_at = now + c->grace_ms;
		}
		if (!gone && kill_at >= 0 && now >= kill_at) {
			kill_group(pid, SIGKILL);
			kill_at = -1;
		}
		/* when to look again */
		if (!gone && deadline >= 0 && !timed_out)
			next = deadline;
		if (!gone && kill_at >= 0)
			next = next < 0 || kill_at < next ? kill_at : next;
		if (gone)
			next = linger_at;
		if (next >= 0)
			wait_ms = next > now ? (int)(next - now) : 0;
		if (!gone && pidfd < 0 && (wait_ms < 0 || wait_ms > 10))
			wait_ms = 10;   /* no pidfd: look for the exit now and then */
		if (!gone && c->cancel && (wait_ms < 0 || wait_ms > 200))
			wait_ms = 200;  /* look at the cancel flag now and then */
		for (int i = 0; i < nsinks; i++) {
			if (sinks[i].fd >= 0) {
				pfd[n].fd = sinks[i].fd;
				pfd[n].events = POLLIN;
				n++;
			}
		}
		if (!gone && pidfd >= 0) {
			pfd[n].fd = pidfd;
			pfd[n].events = POLLIN;
			n++;
		}
		if (poll(pfd, (nfds_t)n, wait_ms) < 0 && errno != EINTR)
			usleep(10000);
		for (int i = 0; i < nsinks; i++)
			if (sinks[i].fd >= 0)
				sink_read(&sinks[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
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

/* The pipe for a captured stream: read end into *rd, write end into *wr */
static int capture_pipe(int *rd, int *wr)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0)
		return -1;
	*rd = high_fd(p[0]);
	*wr = high_fd(p[1]);
	return *rd < 0 || *wr < 0 ? -1 : 0;
}

/* Sets up stdin, stdout and stderr for the child: fds[0..2] its ends,
 * rd[0..1] the read ends of captured stdout and stderr (-1 when not
 * captured). 0, or -1 with c->res.err set and *why naming what failed. */
static int open_stdio(struct cmd *c, int fds[3], int rd[2], const char **why)
{
	*why = "stdin";
	if (c->in == CMD_IN_BUF)
		fds[0] = high_fd(stdin_memfd(c->in_data, c->in_len));
	else
		fds[0] = high_fd(open(c->in == CMD_IN_FILE ? c->in_path : "/dev/null",
				      O_RDONLY | O_CLOEXEC | O_NOCTTY));
	if (fds[0] < 0)
		goto out;
	*why = "stdout";
	if (c->out == CMD_OUT_BUF) {
		if (capture_pipe(&rd[0], &fds[1]) < 0)
			goto out;
	} else {
		fds[1] = high_fd(c->out == CMD_OUT_FILE ? open_out(c->out_path, c->out_append) :
				 open("/dev/null", O_WRONLY | O_CLOEXEC | O_NOCTTY));
		if (fds[1] < 0)
			goto out;
	}
	*why = "stderr";
	if (c->errto == CMD_OUT_BUF || c->errto == CMD_OUT_CAPTURE) {
		if (capture_pipe(&rd[1], &fds[2]) < 0)
			goto out;
	} else if (c->errto == CMD_OUT_FILE) {
		fds[2] = high_fd(open_out(c->err_path, 0));
		if (fds[2] < 0)
			goto out;
	}
	*why = NULL;
	return 0;
out:
	c->res.err = errno ? errno : EIO;
	return -1;
}

/* posix_spawn's file actions and attributes for the child; 0 or an errno */
static int spawn_setup(struct cmd *c, const int fds[3], posix_spawn_file_actions_t *fa,
		       posix_spawnattr_t *attr)
{
	sigset_t none, all;
	int e;

	sigemptyset(&none);
	sigfillset(&all);
	if ((e = posix_spawn_file_actions_adddup2(fa, fds[0], 0)) != 0 ||
	    (e = posix_spawn_file_actions_adddup2(fa, fds[1], 1)) != 0 ||
	    (e = posix_spawn_file_actions_adddup2(fa, fds[2] >= 0 ? fds[2] : fds[1], 2)) != 0 ||
	    (c->dir && (e = posix_spawn_file_actions_addchdir_np(fa, c->dir)) != 0) ||
	    (e = posix_spawn_file_actions_addclosefrom_np(fa, 3)) != 0 ||
	    (e = posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
					  POSIX_SPAWN_SETSIGMASK)) != 0 ||
	    (e = posix_spawnattr_setpgroup(attr, 0)) != 0 ||
	    (e = posix_spawnattr_setsigdefault(attr, &all)) != 0 ||
	    (e = posix_spawnattr_setsigmask(attr, &none)) != 0)
		return e;
	return 0;
}

int cmd_run(struct cmd *c, char **err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int fa_ok = 0, attr_ok = 0, rc = -1, e;
	int fds[3] = { -1, -1, -1 }, rd[2] = { -1, -1 };
	struct cmd_sink sinks[2];
	int nsinks = 0;
	char *label = NULL, *path = NULL;
	const char *child_path, *why;
	struct stat st;
	pid_t pid;

	if (err)
		*err = NULL;
	if (!c) {
		set_err(err, "command", "out of memory");
		return -1;
	}
	label = c->label ? strdup(c->label) : default_label(c);
	if (c->ran) {
		set_err(err, label, "already run");
		goto out;
	}
	c->ran = 1;
	memset(&c->res, 0, sizeof(c->res));
	c->res.end = CMD_END_SPAWN;
	if (c->bad_env) {
		c->res.err = EINVAL;
		set_err(err, label, "'%s' is not an environment variable name", c->bad_env);
		goto out;
	}
	if (env_find(c, "PATH", 4) < 0)
		cmd_env(c, "PATH", CMD_PATH);
	if (c->oom || !label || !c->argc) {
		c->res.err = ENOMEM;
		set_err(err, label, "out of memory");
		goto out;
	}
	child_path = c->env[env_find(c, "PATH", 4)] + 5;
	path = find_program(c->argv[0], child_path);
	if (!path) {
		c->res.err = ENOENT;
		set_err(err, label, "'%s' not found in PATH '%s'", c->argv[0], child_path);
		goto out;
	}
	if (c->dir && (stat(c->dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		c->res.err = access(c->dir, F_OK) < 0 ? errno : ENOTDIR;
		set_err(err, label, "working directory '%s': %s", c->dir, strerror(c->res.err));
		goto out;
	}
	if (open_stdio(c, fds, rd, &why) < 0) {
		const char *file = !strcmp(why, "stdin") ? c->in_path :
				   !strcmp(why, "stdout") ? c->out_path : c->err_path;

		if (file && ((!strcmp(why, "stdin") && c->in == CMD_IN_FILE) ||
			     (!strcmp(why, "stdout") && c->out == CMD_OUT_FILE) ||
			     (!strcmp(why, "stderr") && c->errto == CMD_OUT_FILE)))
			set_err(err, label, "%s '%s': %s", why, file, strerror(c->res.err));
		else
			set_err(err, label, "%s: %s", why, strerror(c->res.err));
		goto out;
	}
	e = posix_spawn_file_actions_init(&fa);
	fa_ok = e == 0;
	if (!e) {
		e = posix_spawnattr_init(&attr);
		attr_ok = e == 0;
	}
	if (!e)
		e = spawn_setup(c, fds, &fa, &attr);
	if (!e)
		e = posix_spawn(&pid, path, &fa, &attr, c->argv, c->env);
	if (e) {
		c->res.err = e;
		set_err(err, label, "cannot run '%s': %s", path, strerror(e));
		goto out;
	}

	/* the child has its ends; keep only the read ends */
	for (int i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	for (int i = 0; i < 2; i++) {
		if (rd[i] < 0)
			continue;
		fcntl(rd[i], F_SETFL, O_NONBLOCK);
		sinks[nsinks].fd = rd[i];
		sinks[nsinks].b = i == 0 ? c->out_buf :
				  c->errto == CMD_OUT_BUF ? c->err_buf : &c->capture;
		sinks[nsinks++].truncated = i == 0 ? &c->res.out_truncated : &c->res.err_truncated;
		rd[i] = -1;
	}
	supervise(c, pid, sinks, nsinks);
	if (c->res.end == CMD_END_EXIT && c->res.code == 0)
		rc = 0;
	else if (c->res.end == CMD_END_SPAWN)
		set_err(err, label, "lost the child: %s", strerror(c->res.err));
	else
		end_message(c, label, err);
out:
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < 2; i++)
		if (rd[i] >= 0)
			close(rd[i]);
	free(path);
	free(label);
	return rc;
}

/* ---- printing ---- */

static void quote(struct buf *b, const char *s)
{
	const char *safe = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789_@%+=:,./-";

	if (*s && strspn(s, safe) == strlen(s)) {
		buf_puts(b, s);
		return;
	}
	buf_puts(b, "'");
	for (; *s; s++) {
		if (*s == '\'')
			buf_puts(b, "'\\''");
		else
			buf_append(b, s, 1);
	}
	buf_puts(b, "'");
}

char *cmd_string(const struct cmd *c)
{
	struct buf b = BUF_INIT(0);
	int path_set;

	if (!c)
		return NULL;
	path_set = env_find(c, "PATH", 4) >= 0;
	if (!path_set)
		buf_puts(&b, "PATH=" CMD_PATH " ");
	for (size_t i = 0; i < c->nenv; i++) {
		const char *eq = strchr(c->env[i], '=');

		buf_append(&b, c->env[i], (size_t)(eq - c->env[i]) + 1);
		quote(&b, eq + 1);
		buf_puts(&b, " ");
	}
	for (size_t i = 0; i < c->argc; i++) {
		if (i)
			buf_puts(&b, " ");
		quote(&b, c->argv[i]);
	}
	return buf_detach(&b);
}
