// SPDX-License-Identifier: GPL-2.0-only
/* watch/kcidb.c: a watch's KCIDB export (kcidb = file | DIR | URL): once a
 * series is reported (watch/report.c), the checkouts, builds and tests of
 * its submission (export/kcidb.c) are written to a file in report_dir (or
 * DIR), or POSTed as JSON to URL (watch/http.c). A POST that fails (refused,
 * not 2xx, slower than the watch's timeout) is logged, kept on the
 * series for /watches and tried again 10, 20, 40... s later, 6 times. */
#include "orchestrator/orchint.h"
#include "watch/watch.h"
#include "watch/pw.h"
#include "watch/watchint.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"
#include "db/watches.h"
#include "export/kcidb.h"

#define KCIDB_TRIES 6
static int is_url(const char *s)
{
	return !strncmp(s, "http://", 7) || !strncmp(s, "https://", 8);
}

/* One series' export: 0 done, -1 (err says why) */
static int export_one(struct orch *o, struct db *db, const struct watch_spec *sp,
		      const struct watch_series_row *s, char **path, char *err, size_t n)
{
	struct kcidb_opts ko = { o->conf->kcidb_origin, sp->link_base ? sp->link_base : o->url, 0,
				 s->submission_id };
	const char *dir = !strcmp(sp->kcidb, "file") ? sp->report_dir : sp->kcidb;
	json_t *j = kcidb_export(db, &ko, err, n);
	char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
	int rc = -1;

	*path = NULL;
	if (!j)
		goto out;
	if (!text) {
		snprintf(err, n, "out of memory");
	} else if (is_url(sp->kcidb)) {
		char *token = NULL, *auth = NULL;
		long status;

		/* kcidb-ng's REST submission takes "Authorization: Bearer TOKEN" */
		if (sp->kcidb_token_file &&
		    !(token = watch_token_file("kcidb_token_file", sp->kcidb_token_file, err, n)))
			;
		else if (token && asprintf(&auth, "Authorization: Bearer %s", token) < 0)
			snprintf(err, n, "out of memory"), auth = NULL;
		else
			rc = watch_http_post_json(sp->kcidb, auth, text, sp->timeout_s, &status, err,
						  n);
		free(token);
		free(auth);
	} else if (mkdir_p(dir, 0755) < 0 ||
		   asprintf(path, "%s/%s-%s%" PRId64 "-v%" PRId64 ".kcidb.json", dir, sp->name,
			    s->remote_id ? "" : "m", s->remote_id ? s->remote_id : s->id,
			    s->version) < 0 || write_file(*path, text, strlen(text), 0644) < 0) {
		snprintf(err, n, "'%s': %s", dir, strerror(errno));
	} else {
		rc = 0;
	}
	if (rc < 0) {
		free(*path);
		*path = NULL;
	}
out:
	free(text);
	json_decref(j);
	return rc;
}

void watch_kcidb_due(struct orch *o, struct db *db, const struct watch_spec *sp)
{
	struct watch_series_row *rows = NULL;
	size_t n = 0;

	if (!sp->kcidb || db_watch_series_kcidb_due(db, sp->name, KCIDB_TRIES, &rows, &n) < 0)
		return;
	for (size_t i = 0; i < n && !orch_stopping(o); i++) {
		const struct watch_series_row *s = &rows[i];
		int64_t again = 10LL << s->kcidb_tries;
		char err[1024], *path = NULL;

		if (export_one(o, db, sp, s, &path, err, sizeof(err)) == 0) {
			db_watch_series_kcidb(db, s->id, path, NULL, 0);
			wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": KCIDB export %s%s",
			     s->remote_id, s->version, path ? "written to " : "posted to ",
			     path ? path : sp->kcidb);
		} else {
			db_watch_series_kcidb(db, s->id, NULL, err, now_ms() + again * 1000);
			if (s->kcidb_tries + 1 >= KCIDB_TRIES)
				wlog(db, sp->name, "error", "series %" PRId64 ": KCIDB export not sent "
				     "after %d tries, given up: %s", s->remote_id, KCIDB_TRIES, err);
			else
				wlog(db, sp->name, "error", "series %" PRId64 ": KCIDB export not sent "
				     "(again in %" PRId64 " s): %s", s->remote_id, again, err);
		}
		free(path);
	}
	db_rows_free(db_watch_series_fields, rows, sizeof(*rows), n);
}
