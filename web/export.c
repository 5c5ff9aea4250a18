// SPDX-License-Identifier: GPL-2.0-only
/* export.c: GET /api/export/kcidb[?since=T][&submission=ID]: kfleet's
 * checkouts, builds and tests as KCIDB report data (export/kcidb.c), with
 * the daemon's origin and links to its pages. `kfleet export kcidb` is its
 * client. A since that is not a time, or a submission that is not an id,
 * is a 400 that says which. An answer since a date is kept until its data
 * change (WEB_ROUTE_STAMPED). */
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <stdio.h>
#include <string.h>

#include "common/util.h"
#include "export/kcidb.h"
#include "web/cache.h"

WEB_HANDLER(api_export_kcidb)
{
	const char *since = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "since");
	const char *sub = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "submission");
	struct kcidb_opts o = { w->kcidb_origin, w->link_base, 0, 0 };
	enum MHD_Result rc = MHD_NO;
	struct db *db;
	char err[512];
	json_t *j;
	int ago = since ? kcidb_parse_since(since, now_ms(), &o.since_ms, err, sizeof(err)) : 0;

	if (ago < 0)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "%s", err);
	/* kept (WEB_ROUTE_STAMPED) since a date, not since a time ago: the
	 * same query then names another span each time it is asked */
	if (ago)
		web_cache_capture(w, NULL);
	if (sub) {
		long long id;

		if (parse_int(sub, 1, INT64_MAX, &id) < 0)
			return web_reply_error(c, MHD_HTTP_BAD_REQUEST, "submission: '%.40s' is not "
					       "a submission id", sub);
		o.submission_id = id;
	}
	if (!(db = web_db_or_reply(w, c, 0, &rc)))
		return rc;
	if (!(j = kcidb_export(db, &o, err, sizeof(err))))
		return web_reply_error(c, strncmp(err, "more than", 9) ?
				       MHD_HTTP_INTERNAL_SERVER_ERROR : MHD_HTTP_CONTENT_TOO_LARGE,
				       "%s", err);
	return web_reply_json(c, MHD_HTTP_OK, j);
}
