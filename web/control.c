// SPDX-License-Identifier: GPL-2.0-only
/* control.c: POST /api/reload and POST /api/shutdown (token): the daemon's
 * own controls, for `kfleet reload` and `kfleet shutdown`. web/ knows no
 * daemon: kfleetd hands it the two calls (struct web_opts), the reload's
 * answer made by the daemon; the shutdown is called once its answer is
 * sent (http.c's on_completed), so that the client reads it before the
 * server stops. */
#include "web/handlers.h"
#include "web/reply.h"
#include "web/server.h"

#include <stdlib.h>
#include <unistd.h>

#include "common/log.h"

WEB_HANDLER(api_reload)
{
	enum MHD_Result rc;
	json_t *ans = NULL;
	char *err = NULL;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->reload)
		return web_reply_error(c, MHD_HTTP_NOT_IMPLEMENTED,
				       "this server has no daemon to reload");
	log_info("web: reload asked for (POST /api/reload)");
	if (w->reload(w->control_arg, &ans, &err) < 0) {
		rc = web_reply_error(c, MHD_HTTP_CONFLICT, "%s", err ? err : "out of memory");
		free(err);
		return rc;
	}
	return web_reply_json(c, MHD_HTTP_OK, ans);
}

WEB_HANDLER(api_shutdown)
{
	enum MHD_Result rc;

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (!w->shutdown)
		return web_reply_error(c, MHD_HTTP_NOT_IMPLEMENTED,
				       "this server has no daemon to stop");
	log_info("web: shutdown asked for (POST /api/shutdown)");
	arg->req->stop_after = 1;
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:I, s:b}", "pid", (json_int_t)getpid(),
							"stopping", 1));
}
