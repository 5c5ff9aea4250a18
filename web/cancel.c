// SPDX-License-Identifier: GPL-2.0-only
/* cancel.c: POST /api/runs/ID/cancel, /api/requests/ID/cancel and
 * /api/submissions/ID/cancel (token): a user's cancel, in the database
 * (db/cancel.c). Queued runs end as canceled at once; running ones are
 * asked to stop (their worker destroys the guest within a second or so);
 * a submission's builds not started are not made. A cancel may be
 * repeated; one that finds everything ended by itself is 409, saying so. */
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/buf.h"
#include "common/log.h"
#include "db/db.h"

#define CANCEL_WHY "canceled by the user"

/* The answer's counts: {"id", "canceled", "stopping", "already", "ended"} */
static json_t *counts_json(int64_t id, const struct db_cancel *c)
{
	return json_pack("{s:I, s:i, s:i, s:i, s:i}", "id", (json_int_t)id, "canceled",
			 c->canceled, "stopping", c->stopping, "already", c->already, "ended",
			 c->ended);
}

/* A run's cancel: its state and outcome now in the answer */
static enum MHD_Result run_answer(struct MHD_Connection *c, struct db *db, int64_t id,
				  const struct db_cancel *dc)
{
	struct run r;
	enum MHD_Result rc;
	json_t *o;

	if (db_run_get(db, id, &r) != 1)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "run %" PRId64
				       ": database: %s", id, db_errmsg(db));
	if (db_cancel_nothing(dc)) {
		rc = web_reply_error(c, MHD_HTTP_CONFLICT, "run %" PRId64 ": nothing to cancel: "
				     "it is %s already (%s)", id, run_state_name(r.state),
				     run_outcome_name(r.outcome));
		run_release(&r);
		return rc;
	}
	o = counts_json(id, dc);
	if (o)
		json_object_update_new(o, json_pack("{s:s, s:o}", "state", run_state_name(r.state),
					"outcome", r.outcome == RUN_OUT_NONE ? json_null() :
					json_string(run_outcome_name(r.outcome))));
	run_release(&r);
	return web_reply_json(c, MHD_HTTP_OK, o);
}

/* 409 for a request or a submission that ended by itself, saying how */
static enum MHD_Result nothing(struct MHD_Connection *c, struct db *db, const char *what,
			       int64_t id, const struct db_cancel *dc)
{
	struct buf how = BUF_INIT(256);
	struct submission s;
	enum MHD_Result rc;

	if (!strcmp(what, "submission") && db_submission_get(db, id, &s) == 1) {
		/* a testing one whose runs all ended is done (kernel_builds.c) */
		buf_printf(&how, "it is %s", strcmp(s.state, "testing") ? s.state : "done");
		if (s.outcome)
			buf_printf(&how, " (%s)", s.outcome);
		db_row_release(db_submission_fields, &s, sizeof(s));
	}
	if (dc->ended)
		buf_printf(&how, "%sits %d run%s ended already", how.len ? ", " : "", dc->ended,
			   dc->ended == 1 ? "" : "s");
	rc = web_reply_error(c, MHD_HTTP_CONFLICT, "%s %" PRId64 ": nothing to cancel: %s", what,
			     id, how.len ? buf_str(&how) : "it ended already");
	buf_release(&how);
	return rc;
}

/* The handlers' common part: what (a "run", "request", "submission") id
 * canceled by fn */
static enum MHD_Result cancel(struct web *w, struct MHD_Connection *c, const char *what,
			      int64_t id,
			      int (*fn)(struct db *, int64_t, const char *, struct db_cancel *))
{
	struct db_cancel dc;
	enum MHD_Result rc;
	struct db *db;
	json_t *o;
	int found;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!(db = web_db_or_reply(w, c, 0, &rc)))
		return rc;
	found = fn(db, id, CANCEL_WHY, &dc);
	if (found < 0)
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s %" PRId64
				       ": cancel: database: %s", what, id, db_errmsg(db));
	if (!found)
		return web_reply_error(c, MHD_HTTP_NOT_FOUND, "%s %" PRId64 ": no such %s", what,
				       id, what);
	if (dc.canceled || dc.stopping || dc.sub_now)
		log_info("%s %" PRId64 ": canceled by the user: %d queued run%s canceled, %d "
			 "running asked to stop%s", what, id, dc.canceled,
			 dc.canceled == 1 ? "" : "s", dc.stopping,
			 dc.sub_now ? ", its builds not started dropped" : "");
	if (!strcmp(what, "run"))
		return run_answer(c, db, id, &dc);
	if (db_cancel_nothing(&dc))
		return nothing(c, db, what, id, &dc);
	o = counts_json(id, &dc);
	if (o && !strcmp(what, "submission"))
		json_object_update_new(o, json_pack("{s:b}", "builds_dropped", dc.sub_now));
	return web_reply_json(c, MHD_HTTP_OK, o);
}

WEB_HANDLER(api_run_cancel)
{
	return cancel(w, c, "run", arg->id, db_run_cancel);
}

WEB_HANDLER(api_request_cancel)
{
	return cancel(w, c, "request", arg->id, db_request_cancel);
}

WEB_HANDLER(api_submission_cancel)
{
	return cancel(w, c, "submission", arg->id, db_submission_cancel);
}
