// SPDX-License-Identifier: GPL-2.0-only
/* cmd_msg.c: the words of common/'s subprocess helper (cmdint.h): a
 * command's label from its argv, and the one message for how it ended
 * (exit code, signal, timeout, cancel) with the last line of its stderr. */
#include "common/cmdint.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

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
char *cmd_default_label(const struct cmd *c)
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

void cmd_set_err(char **err, const char *label, const char *fmt, ...)
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

void cmd_end_message(struct cmd *c, const char *label, char **err)
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
		cmd_set_err(err, label, "exited with %d%s%s", r->code, sep, tail);
		break;
	case CMD_END_SIGNAL:
		cmd_set_err(err, label, "killed by %s%s%s", sig, sep, tail);
		break;
	case CMD_END_TIMEOUT:
		fmt_ms(when, sizeof(when), c->timeout_ms);
		if (c->res.canceled)
			cmd_set_err(err, label, "canceled%s%s", sep, tail);
		else if (c->res.overflow)
			cmd_set_err(err, label, "stopped: its output went past %lld bytes",
				    (long long)c->out_max);
		else if (c->res.stopped[0])
			cmd_set_err(err, label, "stopped: %s", c->res.stopped);
		else
			cmd_set_err(err, label, "timed out after %s%s%s", when, sep, tail);
		break;
	default:
		cmd_set_err(err, label, "did not run");
		break;
	}
}
