/* SPDX-License-Identifier: GPL-2.0-only */
/* routes.h: the route table (routes.c): method and path pattern to the
 * handler, for http.c to dispatch a request through. */
#ifndef KF_WEB_ROUTES_H
#define KF_WEB_ROUTES_H

#include <microhttpd.h>
#include <stddef.h>

#include "web/handlers.h"

#define WEB_GET   0x1u   /* GET and HEAD */
#define WEB_POST  0x2u

#define WEB_ROUTE_UPLOAD 0x1u   /* the body may be up to WEB_UPLOAD_MAX */
/* the answer reads done runs only, and what does not change after start
 * (the job files): kept (cache.c) until another run is done */
#define WEB_ROUTE_DONE_RUNS 0x2u
/* the answer reads done runs and what db_kept_stamp() follows (the watch
 * tables, submissions, builds, requests, trees, hosts' names) and nothing
 * else that changes: kept until another run is done or that number grows.
 * Its handler calls web_cache_capture(w, NULL) for an answer that also
 * depends on the time it is asked at. */
#define WEB_ROUTE_STAMPED 0x4u

/* One route. A pattern is the path with {id} (a strict id: digits, no
 * leading zero), {name} (one segment, at most WEB_SEGMENT_MAX bytes, may
 * be empty), {rest} (the rest of the path, not empty) or * (the rest,
 * maybe empty) in it; handler NULL answers 404. */
struct web_route {
	unsigned methods;
	const char *pattern;
	WEB_HANDLER((*handler));
	unsigned flags;
};

/* The first route whose pattern matches url and whose methods hold
 * method, with a filled (a->name may point into seg, which must hold
 * WEB_SEGMENT_MAX + 1 bytes); NULL when none does, *allow then the
 * methods of the routes whose pattern matched (0: no such path). */
const struct web_route *web_route_find(const char *method, const char *url,
				       struct web_args *a, char *seg, unsigned *allow);
/* The largest body url may send (WEB_UPLOAD_MAX for an upload route) */
size_t web_route_body_max(const char *url);
/* Answers the request: its route's handler, else 405 (with Allow) or 404,
 * as JSON under /api, as HTML elsewhere. */
enum MHD_Result web_route(struct web *w, struct MHD_Connection *c, const char *method,
			  const char *url, struct web_req *req);

#endif
