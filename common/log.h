/* SPDX-License-Identifier: GPL-2.0-only */
/* log.h: the daemon's and the CLI's one logger (debug/info/warn/error).
 * Goes to stderr in the foreground, to a file when log_to_file() was called.
 * Build logs, consoles and job output never come here: they are files per run. */
#ifndef KF_LOG_H
#define KF_LOG_H

#include <stdarg.h>

enum log_level { LOG_LVL_DEBUG, LOG_LVL_INFO, LOG_LVL_WARN, LOG_LVL_ERROR };

void log_init(const char *progname, enum log_level min);
int log_to_file(const char *path);          /* 0 / -1 */
void log_set_level(enum log_level min);   /* any thread, any time */
int log_level_parse(const char *s, enum log_level *out); /* 0 / -1 */
const char *log_level_name(enum log_level l);

void log_msg(enum log_level l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void log_vmsg(enum log_level l, const char *fmt, va_list ap);

#define log_debug(...) log_msg(LOG_LVL_DEBUG, __VA_ARGS__)
#define log_info(...)  log_msg(LOG_LVL_INFO, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_LVL_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_LVL_ERROR, __VA_ARGS__)

#endif
