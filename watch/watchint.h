/* SPDX-License-Identifier: GPL-2.0-only */
/* watchint.h: what the watch files share among themselves: the watch's
 * log (the daemon's log and the watch_log table at once) and the report
 * step (watch/report.c) that watch.c calls each tick. */
#ifndef KF_WATCHINT_H
#define KF_WATCHINT_H

#include <stddef.h>

struct orch;
struct db;
struct watch_spec;
struct watch_row;

#define WATCH_SINCE_SLACK_S 600   /* ?since= this much before the position's date */

/* Logs a line of watch's, level "info", "warn" or "error" */
void wlog(struct db *db, const char *watch, const char *level, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* One poll of the watch w (poll.c): the series since its position seen
 * and recorded, the position moved on */
void poll_watch(struct db *db, const struct watch_spec *sp, const struct watch_row *w);
/* Posts the checks and writes the reply mails that are due for the
 * watch's series (pending once queued, the verdict once its runs ended) */
void watch_report(struct orch *o, struct db *db, const struct watch_spec *sp);
/* Writes or POSTs the KCIDB exports that are due for the watch's reported
 * series (watch/kcidb.c) */
void watch_kcidb_due(struct orch *o, struct db *db, const struct watch_spec *sp);

/* http.c: the first line of the file at path, a token for an HTTP header (no
 * blank or control byte): caller frees; NULL with err ("KEY 'PATH': why") */
char *watch_token_file(const char *key, const char *path, char *err, size_t n);

#endif
