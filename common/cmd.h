/* SPDX-License-Identifier: GPL-2.0-only */
/* cmd.h: the one way kfleet runs another program (git, make, qemu-img,
 * mkfs), after libvirt's virCommand and git's run-command. Building a
 * command never fails: a failure while building is kept and reported by
 * cmd_run(), which also reports spawn failures, signals, exit codes and
 * timeouts as one message ("git mailinfo: exited with 128: fatal: ...").
 * Code: cmd_build.c, cmd_run.c, cmd_wait.c, cmd_msg.c, sharing cmdint.h.
 *
 * The child gets:
 *   - an environment of only what the caller adds with cmd_env() and
 *     cmd_env_pass(), plus PATH=CMD_PATH unless the caller set PATH;
 *   - no fds but 0, 1 and 2; stdin from /dev/null, a buffer or a file;
 *     stdout to /dev/null (the default), a bounded struct buf or a file;
 *     stderr to a bounded buffer (by default an internal one, quoted in the
 *     error message), a file, or wherever stdout goes;
 *   - its own process group (at the deadline: SIGTERM to the group, then
 *     SIGKILL after the grace period), default signal dispositions and an
 *     empty signal mask (glibc's posix_spawn() leaves its two internal
 *     signals, 32 and 33, ignored; glibc programs cannot use them).
 * The program is looked up in the child's PATH when it has no '/'.
 * When the child has exited but something it started still holds its
 * stdout or stderr open, the rest of its process group is killed after
 * CMD_LINGER_MS.
 *
 * Callers must not reap children they did not start (no waitpid(-1) in a
 * SIGCHLD handler): cmd_run() waits for its own child by pid. */
#ifndef KF_CMD_H
#define KF_CMD_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

#define CMD_PATH          "/usr/sbin:/usr/bin:/sbin:/bin"
#define CMD_OUT_MAX       (64u << 20)  /* output into a buf whose cap is 0 */
#define CMD_ERR_MAX       (64u << 10)  /* the internal stderr capture */
#define CMD_KILL_GRACE_MS 2000         /* SIGTERM to SIGKILL after a timeout */
#define CMD_LINGER_MS     1000         /* child gone, its pipes still open */

enum cmd_end {
	CMD_END_NONE,      /* not run */
	CMD_END_EXIT,      /* exited: code */
	CMD_END_SIGNAL,    /* killed by signo */
	CMD_END_TIMEOUT,   /* ran past its timeout and was stopped (signo: what ended it) */
	CMD_END_SPAWN,     /* could not be started: err is the errno */
};

struct cmd_result {
	enum cmd_end end;
	int code;           /* exit status (CMD_END_EXIT, or a timed-out child that exited) */
	int signo;          /* the signal that ended the child, 0 when none */
	int err;            /* errno of a spawn failure */
	int64_t ms;         /* wall time from spawn to reaping */
	int canceled;       /* stopped because the cancel flag was set (end: CMD_END_TIMEOUT) */
	int out_truncated;  /* stdout went past its buffer's cap; the rest was discarded */
	int overflow;       /* stopped: stdout went past cmd_stdout_append_max()'s cap */
	char stopped[200];  /* stopped by cmd_watch()'s check: why */
	int err_truncated;  /* the same for stderr */
};

struct cmd;

/* A command running prog (a name looked up in the child's PATH, or a path)
 * with no arguments; cmd_newv() takes a NULL-terminated argv (argv[0] is the
 * program). NULL only when out of memory; every cmd_*() accepts NULL, and
 * cmd_run(NULL) reports "out of memory". Free with cmd_free(). */
struct cmd *cmd_new(const char *prog);
struct cmd *cmd_newv(const char *const *argv);

/* Arguments; strings are copied. cmd_args() takes a NULL-terminated list. */
void cmd_arg(struct cmd *c, const char *arg);
void cmd_argf(struct cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cmd_args(struct cmd *c, ...) __attribute__((sentinel));

/* The name used in messages; default: the program's basename, followed by
 * the first argument when that is a subcommand word ("git mailinfo"). */
void cmd_label(struct cmd *c, const char *label);

/* NAME=VALUE in the child's environment (replaces an earlier NAME).
 * cmd_env_pass() copies NAME from this process's environment if it is set. */
void cmd_env(struct cmd *c, const char *name, const char *value);
void cmd_env_pass(struct cmd *c, const char *name);

/* The child's working directory (copied). */
void cmd_dir(struct cmd *c, const char *dir);

/* stdin: len bytes of data (borrowed: valid until cmd_run() returns), or a
 * file (path copied). Default: /dev/null. */
void cmd_stdin_buf(struct cmd *c, const void *data, size_t len);
void cmd_stdin_file(struct cmd *c, const char *path);

/* stdout and stderr: appended to b (borrowed until cmd_run() returns; what
 * goes past b->cap, or CMD_OUT_MAX when b->cap is 0, is read and dropped,
 * and b->truncated set), or written to a file created or truncated with
 * mode 0644 (path copied). cmd_stderr_to_stdout() sends stderr wherever
 * stdout goes, in one stream. */
void cmd_stdout_buf(struct cmd *c, struct buf *b);
void cmd_stdout_file(struct cmd *c, const char *path);
/* The same, appending to the file (a build log several steps write to) */
void cmd_stdout_append(struct cmd *c, const char *path);
void cmd_stderr_buf(struct cmd *c, struct buf *b);
void cmd_stderr_file(struct cmd *c, const char *path);
void cmd_stderr_to_stdout(struct cmd *c);

/* stdout appended to the file path, at most max bytes of it: the child
 * writes into a pipe kfleet drains, so a command that writes more (a build
 * flooding its log) is stopped at the cap, like a timeout, and cmd_run()
 * says "output past N bytes". */
void cmd_stdout_append_max(struct cmd *c, const char *path, int64_t max);

/* Calls check(arg) every ms while the child runs; when it returns non-zero
 * the child is stopped like at a timeout, and cmd_run()'s message is the
 * text check left in why (up to 200 bytes): a build past its disk cap. */
typedef int cmd_check_fn(void *arg, char *why, size_t n);
void cmd_watch(struct cmd *c, cmd_check_fn *check, void *arg, int ms);

/* Stops the child (and its process group) ms after it started: SIGTERM,
 * then SIGKILL grace_ms later (default CMD_KILL_GRACE_MS). 0: no limit. */
void cmd_timeout(struct cmd *c, int ms);
void cmd_kill_grace(struct cmd *c, int grace_ms);
/* Stops the child the same way once *flag becomes non-zero (looked at every
 * 200 ms): a daemon shutting down during a long build. */
void cmd_cancel_on(struct cmd *c, const volatile int *flag);

/* Runs the command once and waits for it. Returns 0 when it exited with
 * status 0; else -1, and *err (when err is not NULL; caller frees) says
 * what happened, with the last line the child wrote to stderr:
 *   "LABEL: exited with 128: fatal: ..."
 *   "LABEL: killed by signal 11 (SIGSEGV)"
 *   "LABEL: timed out after 5 s"
 *   "LABEL: 'prog' not found in PATH '/usr/sbin:...'"
 *   "LABEL: cannot run '/bin/x': Permission denied"
 * The details are in cmd_result() afterwards. */
int cmd_run(struct cmd *c, char **err);

/* Borrowed, valid until cmd_free(); all zero (CMD_END_NONE) before a run
 * and for NULL. */
const struct cmd_result *cmd_result(const struct cmd *c);

/* The command as one shell-quoted line, environment first, for logs and to
 * rerun it by hand. Caller frees; NULL when out of memory. */
char *cmd_string(const struct cmd *c);

void cmd_free(struct cmd *c);

#endif
