// SPDX-License-Identifier: GPL-2.0-only
/* cmd_run.c: cmd_run(), the one way kfleet starts a program (cmd.h): finds
 * it in the child's PATH, sets up its stdin, stdout and stderr, spawns it
 * with posix_spawn() in a process group of its own with only fds 0-2, and
 * hands it to cmd_wait.c; the message for a bad end comes from cmd_msg.c. */
#include "common/cmdint.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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
static int open_stdio(struct cmd *c, int fds[3], int rd[2], int *outfile, const char **why)
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
	} else if (c->out == CMD_OUT_FILE && c->out_max > 0) {
		/* the file stays kfleet's: the child only has the pipe */
		if ((*outfile = high_fd(open_out(c->out_path, c->out_append))) < 0 ||
		    capture_pipe(&rd[0], &fds[1]) < 0)
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

/* What can be checked before the child exists: the environment names,
 * memory, the program in the child's PATH (set to CMD_PATH when the caller
 * gave none), the working directory. Returns the program's path (caller
 * frees), or NULL with c->res.err and *err set. */
static char *check_spawn(struct cmd *c, const char *label, char **err)
{
	const char *child_path;
	struct stat st;
	char *path;

	if (c->bad_env) {
		c->res.err = EINVAL;
		cmd_set_err(err, label, "'%s' is not an environment variable name", c->bad_env);
		return NULL;
	}
	if (cmd_env_find(c, "PATH", 4) < 0)
		cmd_env(c, "PATH", CMD_PATH);
	if (c->oom || !label || !c->argc) {
		c->res.err = ENOMEM;
		cmd_set_err(err, label, "out of memory");
		return NULL;
	}
	child_path = c->env[cmd_env_find(c, "PATH", 4)] + 5;
	path = find_program(c->argv[0], child_path);
	if (!path) {
		c->res.err = ENOENT;
		cmd_set_err(err, label, "'%s' not found in PATH '%s'", c->argv[0], child_path);
		return NULL;
	}
	if (c->dir && (stat(c->dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		c->res.err = access(c->dir, F_OK) < 0 ? errno : ENOTDIR;
		cmd_set_err(err, label, "working directory '%s': %s", c->dir,
			    strerror(c->res.err));
		free(path);
		return NULL;
	}
	return path;
}

/* *err for open_stdio()'s failure on stream why: with the file's name
 * when the stream was one */
static void stdio_error(struct cmd *c, const char *label, const char *why, char **err)
{
	const char *file = !strcmp(why, "stdin") ? c->in_path :
			   !strcmp(why, "stdout") ? c->out_path : c->err_path;

	if (file && ((!strcmp(why, "stdin") && c->in == CMD_IN_FILE) ||
		     (!strcmp(why, "stdout") && c->out == CMD_OUT_FILE) ||
		     (!strcmp(why, "stderr") && c->errto == CMD_OUT_FILE)))
		cmd_set_err(err, label, "%s '%s': %s", why, file, strerror(c->res.err));
	else
		cmd_set_err(err, label, "%s: %s", why, strerror(c->res.err));
}

/* The captured streams' read ends (rd, taken: set to -1) as sinks for
 * cmd_supervise(), non-blocking; returns how many */
static int take_sinks(struct cmd *c, int rd[2], int outfile, struct cmd_sink sinks[2])
{
	int nsinks = 0;

	for (int i = 0; i < 2; i++) {
		if (rd[i] < 0)
			continue;
		fcntl(rd[i], F_SETFL, O_NONBLOCK);
		sinks[nsinks].fd = rd[i];
		sinks[nsinks].b = i == 0 ? c->out_buf :
				  c->errto == CMD_OUT_BUF ? c->err_buf : &c->capture;
		sinks[nsinks].file_fd = -1;
		sinks[nsinks].max = sinks[nsinks].written = 0;
		if (i == 0 && outfile >= 0) {
			sinks[nsinks].b = NULL;
			sinks[nsinks].file_fd = outfile;
			sinks[nsinks].max = c->out_max;
		}
		sinks[nsinks++].truncated = i == 0 ? &c->res.out_truncated : &c->res.err_truncated;
		rd[i] = -1;
	}
	return nsinks;
}

int cmd_run(struct cmd *c, char **err)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	int fa_ok = 0, attr_ok = 0, rc = -1, e;
	int fds[3] = { -1, -1, -1 }, rd[2] = { -1, -1 }, outfile = -1;
	struct cmd_sink sinks[2];
	int nsinks = 0;
	char *label = NULL, *path = NULL;
	const char *why;
	pid_t pid;

	if (err)
		*err = NULL;
	if (!c) {
		cmd_set_err(err, "command", "out of memory");
		return -1;
	}
	label = c->label ? strdup(c->label) : cmd_default_label(c);
	if (c->ran) {
		cmd_set_err(err, label, "already run");
		goto out;
	}
	c->ran = 1;
	memset(&c->res, 0, sizeof(c->res));
	c->res.end = CMD_END_SPAWN;
	path = check_spawn(c, label, err);
	if (!path)
		goto out;
	if (open_stdio(c, fds, rd, &outfile, &why) < 0) {
		stdio_error(c, label, why, err);
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
		cmd_set_err(err, label, "cannot run '%s': %s", path, strerror(e));
		goto out;
	}

	/* the child has its ends; keep only the read ends */
	for (int i = 0; i < 3; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
	nsinks = take_sinks(c, rd, outfile, sinks);
	cmd_supervise(c, pid, sinks, nsinks);
	if (c->res.end == CMD_END_EXIT && c->res.code == 0)
		rc = 0;
	else if (c->res.end == CMD_END_SPAWN)
		cmd_set_err(err, label, "lost the child: %s", strerror(c->res.err));
	else
		cmd_end_message(c, label, err);
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
	if (outfile >= 0)
		close(outfile);
	free(path);
	free(label);
	return rc;
}
