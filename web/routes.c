// SPDX-License-Identifier: GPL-2.0-only
/* routes.c: the route table of kfleetd's HTTP server: each method and path
 * pattern with the handler that answers it. http.c hands every request
 * here once its body is in; a path that no pattern matches is 404, one
 * whose pattern matches but not for this method is 405 with the methods
 * that would do. Answers under /api are JSON, the rest HTML. */
#include "web/routes.h"
#include "web/cache.h"
#include "web/reply.h"
#include "web/server.h"

#include <stdlib.h>
#include <string.h>

static const struct web_route routes[] = {
	{ WEB_GET,  "/", pages_status, 0 },
	{ WEB_GET,  "/runs/{id}", pages_run, 0 },
	{ WEB_GET,  "/runs/{id}/results/*", pages_run_result, 0 },
	{ WEB_GET,  "/runs/{id}/console", pages_run_console, 0 },
	{ WEB_GET,  "/runs/{id}/output", pages_run_output, 0 },
	{ WEB_GET,  "/runs/{id}/domain.xml", pages_run_xml, 0 },
	{ WEB_GET,  "/trends", pages_trends, WEB_ROUTE_DONE_RUNS },
	{ WEB_GET,  "/trends/view", pages_trend, WEB_ROUTE_DONE_RUNS },
	{ WEB_GET,  "/jobs", pages_jobs, 0 },
	{ WEB_GET,  "/jobs/{rest}", pages_job, WEB_ROUTE_DONE_RUNS },
	{ WEB_GET,  "/queue", pages_queue, 0 },
	{ WEB_GET,  "/hosts", pages_hosts, 0 },
	{ WEB_GET,  "/requests/{id}", pages_request, 0 },
	{ WEB_GET,  "/trees", pages_trees, 0 },
	{ WEB_GET,  "/submissions", pages_submissions, 0 },
	{ WEB_GET,  "/submissions/{id}", pages_submission, 0 },
	{ WEB_GET,  "/submissions/{id}/log", pages_submission_log, 0 },
	{ WEB_GET,  "/builds/{id}", pages_build, 0 },
	{ WEB_GET,  "/builds/{id}/log", pages_build_log, 0 },
	{ WEB_GET,  "/bisections", pages_bisections, 0 },
	{ WEB_GET,  "/bisections/{id}", pages_bisection, 0 },
	{ WEB_GET,  "/flaky", pages_flaky, 0 },
	{ WEB_GET,  "/watches", pages_watches, WEB_ROUTE_STAMPED },
	/* any other path under these is 404 to GET, 405 to the rest */
	{ WEB_GET,  "/submissions*", NULL, 0 },
	{ WEB_GET,  "/builds*", NULL, 0 },

	{ WEB_GET,  "/api/health", api_health, 0 },
	{ WEB_GET,  "/api/runs", api_runs_list, 0 },
	{ WEB_POST, "/api/runs", api_runs_submit, 0 },
	{ WEB_GET,  "/api/runs/{id}", api_run, 0 },
	{ WEB_GET,  "/api/runs/{id}/tail", api_run_tail, 0 },
	{ WEB_GET,  "/api/runs/{id}/results", api_run_results, 0 },
	{ WEB_GET,  "/api/runs/{id}/samples", api_run_samples, 0 },
	{ WEB_POST, "/api/runs/{id}/cancel", api_run_cancel, 0 },
	{ WEB_POST, "/api/requests", api_requests_submit, 0 },
	{ WEB_GET,  "/api/requests/{id}", api_request, 0 },
	{ WEB_POST, "/api/requests/{id}/cancel", api_request_cancel, 0 },
	{ WEB_GET,  "/api/jobs", api_jobs, 0 },
	{ WEB_GET,  "/api/jobs/{rest}", api_job, WEB_ROUTE_DONE_RUNS },
	{ WEB_GET,  "/api/queue", api_queue, 0 },
	{ WEB_GET,  "/api/hosts", api_hosts, 0 },
	{ WEB_GET,  "/api/trees", api_trees, 0 },
	{ WEB_POST, "/api/trees", api_trees_add, 0 },
	{ WEB_POST, "/api/trees/{name}/fetch", api_tree_fetch, 0 },
	{ WEB_GET,  "/api/submissions", api_submissions, 0 },
	{ WEB_POST, "/api/submissions", api_submissions_add, WEB_ROUTE_UPLOAD },
	{ WEB_GET,  "/api/submissions/{id}", api_submission, 0 },
	{ WEB_POST, "/api/submissions/{id}/cancel", api_submission_cancel, 0 },
	{ WEB_GET,  "/api/builds", api_builds, 0 },
	{ WEB_GET,  "/api/builds/{id}", api_build, 0 },
	{ WEB_POST, "/api/import", api_import, WEB_ROUTE_UPLOAD },
	{ WEB_GET,  "/api/trend", api_trend, WEB_ROUTE_DONE_RUNS },
	{ WEB_GET,  "/api/compare", api_compare, 0 },
	{ WEB_GET,  "/api/bisections", api_bisections_list, 0 },
	{ WEB_POST, "/api/bisections", api_bisections_add, 0 },
	{ WEB_GET,  "/api/bisections/{id}", api_bisection, 0 },
	{ WEB_POST, "/api/bisections/{id}/cancel", api_bisection_cancel, 0 },
	{ WEB_GET,  "/api/flaky", api_flaky, 0 },
	{ WEB_GET,  "/api/watches", api_watches, WEB_ROUTE_STAMPED },
	{ WEB_GET,  "/api/export/kcidb", api_export_kcidb, WEB_ROUTE_STAMPED },
	{ WEB_POST, "/api/watches", api_watches_add, 0 },
	{ WEB_POST, "/api/watches/{name}/remove", api_watch_remove, 0 },
	{ WEB_POST, "/api/reload", api_reload, 0 },
	{ WEB_POST, "/api/shutdown", api_shutdown, 0 },
};

#define NROUTES (sizeof(routes) / sizeof(routes[0]))

/* Whether url matches pattern p; fills a (a->name into seg for {name}) */
static int match(const char *p, const char *url, struct web_args *a, char *seg)
{
	const char *u = url;

	while (*p) {
		if (*p == '*') {
			a->name = u;
			return 1;
		}
		if (!strncmp(p, "{rest}", 6)) {
			a->name = u;
			return *u != '\0';
		}
		if (!strncmp(p, "{id}", 4)) {
			if (web_parse_id(u, &a->id, &u) < 0)
				return 0;
			p += 4;
			continue;
		}
		if (!strncmp(p, "{name}", 6)) {
			size_t n = strcspn(u, "/");

			if (n > WEB_SEGMENT_MAX)
				return 0;
			memcpy(seg, u, n);
			seg[n] = '\0';
			a->name = seg;
			u += n;
			p += 6;
			continue;
		}
		if (*p++ != *u++)
			return 0;
	}
	return *u == '\0';
}

static unsigned method_bit(const char *method)
{
	if (!strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD))
		return WEB_GET;
	if (!strcmp(method, MHD_HTTP_METHOD_POST))
		return WEB_POST;
	return 0;
}

const struct web_route *web_route_find(const char *method, const char *url,
				       struct web_args *a, char *seg, unsigned *allow)
{
	unsigned m = method_bit(method);

	*allow = 0;
	for (size_t i = 0; i < NROUTES; i++) {
		struct web_args got = { 0, NULL, a->req };

		if (!match(routes[i].pattern, url, &got, seg))
			continue;
		if (routes[i].methods & m) {
			*a = got;
			return &routes[i];
		}
		*allow |= routes[i].methods;
	}
	return NULL;
}

size_t web_route_body_max(const char *url)
{
	char seg[WEB_SEGMENT_MAX + 1];

	for (size_t i = 0; i < NROUTES; i++) {
		struct web_args a = { 0, NULL, NULL };

		if ((routes[i].flags & WEB_ROUTE_UPLOAD) && match(routes[i].pattern, url, &a, seg))
			return WEB_UPLOAD_MAX;
	}
	return WEB_BODY_MAX;
}

/* A route of WEB_ROUTE_DONE_RUNS (or _STAMPED): its kept answer while no
 * other run is done (nor the stamp grew), else the handler's, kept as it
 * is sent */
static enum MHD_Result route_kept(struct web *w, struct MHD_Connection *c,
				  const struct web_route *r, const char *url,
				  const struct web_args *a)
{
	struct buf hit = BUF_INIT(0);
	const char *ctype;
	char key[1024], *err = NULL;
	enum MHD_Result rc;
	struct db *db = web_db(w, &err);

	free(err);   /* the handler says it, when it asks */
	if (!db || web_cache_done_key(db, c, url, !!(r->flags & WEB_ROUTE_STAMPED), key,
					    sizeof(key)) < 0)
		return r->handler(w, c, a);
	if (web_cache_get(w, key, &hit, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &hit);
		buf_release(&hit);
		return rc;
	}
	web_cache_capture(w, key);
	rc = r->handler(w, c, a);
	web_cache_capture(w, NULL);
	return rc;
}

enum MHD_Result web_route(struct web *w, struct MHD_Connection *c, const char *method,
			  const char *url, struct web_req *req)
{
	static const char *const allows[] = { "", "GET, HEAD", "POST", "GET, HEAD, POST" };
	int json = !strncmp(url, "/api/", 5) || !strcmp(url, "/api");
	char seg[WEB_SEGMENT_MAX + 1];
	struct web_args a = { 0, NULL, req };
	const struct web_route *r;
	unsigned allow;

	r = web_route_find(method, url, &a, seg, &allow);
	if (r && r->handler && (r->flags & (WEB_ROUTE_DONE_RUNS | WEB_ROUTE_STAMPED)))
		return route_kept(w, c, r, url, &a);
	if (r && r->handler)
		return r->handler(w, c, &a);
	if (!r && allow)
		return web_reply_method(c, allows[allow & 3], json);
	if (json)
		return web_reply_error(c, MHD_HTTP_NOT_FOUND, "'%.200s': no such path", url);
	return web_reply_html_error(c, MHD_HTTP_NOT_FOUND, "'%.200s': no such page", url);
}
