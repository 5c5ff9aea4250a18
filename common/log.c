// SPDX-License-Identifier: GPL-2.0-only
/* log.c: one place where the daemon's own messages are written, with a level,
 * a timestamp and the program name. Thread-safe: one line is one write(). */
#include "common/log.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prog = "kfleet";
static enum log_level min_level = LOG_LVL_INFO;
static int log_fd = 2;
static const char *const names[] = { "debug", "info", "warn", "error" };

void log_init(const char *progname, enum log_level min)
{
	prog = progname;
	min_level = min;
}

/* kfleetd's reload changes the level while other threads log: the level is
 * read and written whole (relaxed: a message may take the old one) */
void log_set_level(enum log_level min)
{
	__atomic_store_n(&min_level, min, __ATOMIC_RELAXED);
}

int log_to_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	log_fd = fd;
	return 0;
}

const char *log_level_name(enum log_level l)
{
	return (unsigned)l < 4 ? names[l] : "?";
}

int log_level_parse(const char *s, enum log_level *out)
{
	for (int i = 0; i < 4; i++) {
		if (!strcmp(s, names[i])) {
			*out = (enum log_level)i;
			return 0;
		}
	}
	return -1;
}

void log_vmsg(enum log_level l, const char *fmt, va_list ap)
{
	char line[2048];
	struct timespec ts;
	struct tm tm;
	int n;

	if (l < __atomic_load_n(&min_level, __ATOMIC_RELAXED))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line), "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s %s: ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, prog, names[l]);
	if (n < 0)
		return;
	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(log_fd, line, (size_t)n) < 0)
		return;
}

void log_msg(enum log_level l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(l, fmt, ap);
	va_end(ap);
}
