// SPDX-License-Identifier: GPL-2.0-only
/* log.c: a watch's log: each line to the daemon's log and to the
 * watch_log table (its page and `kfleet watch log`), URLs' passwords
 * masked in both. */
#include "watch/watchint.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "common/redact.h"
#include "db/db.h"
#include "db/watches.h"

void wlog(struct db *db, const char *watch, const char *level, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	/* it quotes URLs and errors: their passwords are not logged nor stored */
	redact_secrets_in(text, sizeof(text));
	if (!strcmp(level, "error"))
		log_error("watch '%s': %s", watch, text);
	else if (!strcmp(level, "warn"))
		log_warn("watch '%s': %s", watch, text);
	else
		log_info("watch '%s': %s", watch, text);
	if (db_watch_log(db, watch, level, text) < 0)
		log_error("watch '%s': database: %s", watch, db_errmsg(db));
}

/* now as patchwork writes dates: "2026-12-02T13:37:07" (UTC) */
