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
