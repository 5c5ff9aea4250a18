/* SPDX-License-Identifier: GPL-2.0-only */
/* progress.h: where a kernel build is while it runs (progress.c), for the
 * JSON and the pages of builds and submissions */
#ifndef KF_WEB_PROGRESS_H
#define KF_WEB_PROGRESS_H

#include <jansson.h>

#include "common/buf.h"
#include "db/db.h"

struct web_progress {
	char stage[16];              /* prepare, config, make, modules, selftests */
	long long objects;           /* kbuild lines so far */
	long long expected;          /* the last build of its arch and config had, else the
				      * estimate from its .config; 0: none */
	const char *expected_from;   /* "previous build", "config" (static); NULL when
				      * expected is 0 */
	long long elapsed_ms, eta_ms;/* eta_ms -1: not known */
};

/* The progress of a build in state "building": 1, or 0 (not building, no
 * log yet) */
int web_build_progress(struct db *db, const struct build_row *b, struct web_progress *p);
/* {"stage", "objects", "expected", "expected_from", "elapsed_ms",
 * "eta_ms"}, or JSON null when b is not building */
json_t *web_build_progress_json(struct db *db, const struct build_row *b);
/* "make: 1234 of about 5000 objects (25%), about 3 min left" into out */
void web_progress_text(const struct web_progress *p, struct buf *out);

#endif
