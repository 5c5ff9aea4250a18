/* SPDX-License-Identifier: GPL-2.0-only */
/* cmdint.h: what the files of common/'s subprocess helper share (cmd.h is
 * its face): the command being built (cmd_build.c), the messages that name it and
 * its end (cmd_msg.c), spawning (cmd_run.c) and supervising (cmd_wait.c). */
#ifndef KF_CMDINT_H
#define KF_CMDINT_H

#include <sys/types.h>

#include "common/buf.h"
#include "common/cmd.h"

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
	int64_t out_max;        /* > 0: stdout goes through a pipe into its file, this much */
	cmd_check_fn *check;    /* cmd_watch() */
	void *check_arg;
	int check_ms;
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
	struct buf *b;          /* NULL: into file_fd, at most max bytes in all */
	int file_fd;
	int64_t max, written;
	int *truncated;
};

/* cmd_build.c: the index of NAME (n bytes) in c->env, or -1 */
ssize_t cmd_env_find(const struct cmd *c, const char *name, size_t n);

/* cmd_msg.c: "git mailinfo", "sh", "qemu-img create" from the argv; caller frees */
char *cmd_default_label(const struct cmd *c);
/* Replaces *err (when err is not NULL) with "LABEL: MESSAGE" */
void cmd_set_err(char **err, const char *label, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* *err for a child that ended badly (exit code, signal, timeout, cancel),
 * with the last line it wrote on stderr */
void cmd_end_message(struct cmd *c, const char *label, char **err);

/* cmd_wait.c: waits for the child while draining its pipes into their
 * bounded buffers and enforcing the deadline, then reaps it. Fills c->res. */
void cmd_supervise(struct cmd *c, pid_t pid, struct cmd_sink *sinks, int nsinks);

#endif
