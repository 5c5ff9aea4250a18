// SPDX-License-Identifier: GPL-2.0-only
/* cmd_build.c: runs programs for every part of kfleet (git for series intake,
 * later make, qemu-img, mkfs): posix_spawn() with a clean environment,
 * only fds 0-2, a process group of its own, bounded output capture and a
 * deadline, then one message for whatever went wrong. See cmd.h. This file
 * builds the command (argv, environment, redirections) and prints it;
 * cmd_run.c spawns it, cmd_wait.c supervises it, cmd_msg.c words its end. */
#include "common/cmdint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

ssize_t cmd_env_find(const struct cmd *c, const char *name, size_t n)
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
	at = cmd_env_find(c, name, strlen(name));
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
	c->out_max = 0;
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

void cmd_stdout_append_max(struct cmd *c, const char *path, int64_t max)
{
	cmd_stdout_append(c, path);
	if (c)
		c->out_max = max;
}

void cmd_watch(struct cmd *c, cmd_check_fn *check, void *arg, int ms)
{
	if (!c)
		return;
	c->check = check;
	c->check_arg = arg;
	c->check_ms = ms > 0 ? ms : 1000;
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
	path_set = cmd_env_find(c, "PATH", 4) >= 0;
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
