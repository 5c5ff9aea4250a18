// SPDX-License-Identifier: GPL-2.0-only
/* buildlog.c: a build's log (builds/KEY/build.log, kselftest-TARGET.log).
 * make's and the compiler's output goes to it as it comes; kfleet adds its
 * own "### kfleet:" lines (what was built, options dropped, why it failed)
 * and, when a build fails, reads back the first error lines to show. */
#include "kernels/kernelsint.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"

#define LOG_TAIL_MAX (1u << 20)   /* the part of a failed build's log read back */

int kbuild_log_note(const char *log, const char *fmt, ...)
{
	FILE *f = fopen(log, "ae");
	va_list ap;

	if (!f)
		return -1;
	va_start(ap, fmt);
	fputs("### kfleet: ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	va_end(ap);
	return fclose(f);
}

char *kbuild_log_errors(const char *log, size_t len)
{
	static const char *const marks[] = { ": error:", ": fatal error:", "*** ", "Error ",
					     "ERROR: ", NULL };
	const char *p = log, *end = log + len, *first = NULL;
	struct buf b = BUF_INIT(KBUILD_ERRORS_MAX);
	int lines = 0;

	while (p < end && lines < 12) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int hit = 0;

		for (int i = 0; marks[i]; i++)
			if (memmem(p, l, marks[i], strlen(marks[i])))
				hit = 1;
		if (hit && !first)
			first = p;
		/* the error and the lines gcc prints under it (source, caret), not
		 * what make -j went on building ("  CC      x.o") */
		int built = l > 2 && p[0] == ' ' && p[1] == ' ' && isupper((unsigned char)p[2]);

		if (first && (hit || (lines && !built &&
				      (l == 0 || p[0] == ' ' || isdigit((unsigned char)p[0]))))) {
			buf_append(&b, p, l);
			buf_puts(&b, "\n");
			lines++;
		}
		p += l + 1;
	}
	if (!first) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

char *kbuild_log_file_errors(const char *log)
{
	struct buf b = BUF_INIT(LOG_TAIL_MAX);
	char *e = NULL;

	if (read_file_tail(log, &b, LOG_TAIL_MAX) == 0)
		e = kbuild_log_errors(buf_str(&b), b.len);
	buf_release(&b);
	return e;
}

/* A kbuild progress line: two spaces, a tag of capitals ("CC", "LD",
 * "HOSTCC", "CC [M]", "AR", "OBJCOPY"), spaces, a target */
static int kbuild_line(const char *p, const char *end)
{
	const char *t;

	if (end - p < 4 || p[0] != ' ' || p[1] != ' ' || p[2] < 'A' || p[2] > 'Z')
		return 0;
	for (t = p + 2; t < end && ((*t >= 'A' && *t <= 'Z') || (*t >= '0' && *t <= '9') ||
				    *t == '_'); t++)
		;
	if (t - p > 14)
		return 0;
	if (end - t >= 4 && !memcmp(t, " [M]", 4))
		t += 4;
	return t < end && *t == ' ';
}

/* The stage a step's name is part of */
static const char *stage_of(const char *step, size_t n)
{
	if ((n == 4 && !memcmp(step, "make", 4)))
		return "make";
	if (n == 15 && !memcmp(step, "modules_install", 15))
		return "modules";
	if ((n >= 13 && !memcmp(step, "make test_progs", 13)) ||
	    (n >= 17 && !memcmp(step, "kselftest-install", 17)))
		return "selftests";
	return "config";             /* defconfig, merge_config.sh, olddefconfig */
}

/* The count of an estimate note, "N kbuild lines ...": 0 when it is not one */
static long long estimate_of(const char *s, const char *end)
{
	char num[24];
	size_t n = strspn(s, "0123456789");
	long long v;

	if (!n || n >= sizeof(num) || s + n >= end || s[n] != ' ')
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	return parse_int(num, 1, 1LL << 40, &v) == 0 ? v : 0;
}

int kbuild_log_progress(const char *log, struct kbuild_progress *p)
{
	static const char mark[] = "### kfleet: step ", est[] = "### kfleet: " KBUILD_ESTIMATE_NOTE;
	struct buf b = BUF_INIT(KBUILD_PROGRESS_LOG_MAX);
	const char *s, *end;

	memset(p, 0, sizeof(*p));
	snprintf(p->stage, sizeof(p->stage), "prepare");
	if (read_file(log, &b, KBUILD_PROGRESS_LOG_MAX) < 0) {
		buf_release(&b);
		return -1;
	}
	s = buf_str(&b);
	end = s + b.len;
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;

		if (kbuild_line(s, e)) {
			p->objects++;
		} else if ((size_t)(e - s) > sizeof(mark) - 1 && !memcmp(s, mark, sizeof(mark) - 1)) {
			const char *step = s + sizeof(mark) - 1;

			snprintf(p->stage, sizeof(p->stage), "%s", stage_of(step, (size_t)(e - step)));
		} else if ((size_t)(e - s) > sizeof(est) - 1 && !memcmp(s, est, sizeof(est) - 1)) {
			p->estimate = estimate_of(s + sizeof(est) - 1, e);
		}
		s = nl ? nl + 1 : end;
	}
	p->truncated = b.truncated;
	buf_release(&b);
	return 0;
}
