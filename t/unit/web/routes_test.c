// SPDX-License-Identifier: GPL-2.0-only
/* routes_test.c: unit tests for web/routes.c without a server: each route
 * is found by a path of its own and the method it answers, with what its
 * pattern takes from the path ({id} strictly, {name}, {rest}, *); a path
 * that matches with another method gives the methods that would do (405),
 * one that matches nothing gives none (404); the body's bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "web/routes.h"
#include "web/server.h"

/* The handler of method url (NULL when none), with *allow and a */
static const struct web_route *find(const char *method, const char *url, struct web_args *a,
				    unsigned *allow)
{
	static char seg[WEB_SEGMENT_MAX + 1];

	memset(a, 0, sizeof(*a));
	return web_route_find(method, url, a, seg, allow);
}

static void test_each_route(void **state)
{
	static const struct {
		const char *method, *url;
		WEB_HANDLER((*handler));
		int64_t id;
		const char *name;
	} cases[] = {
		{ "GET", "/", pages_status, 0, NULL },
		{ "HEAD", "/", pages_status, 0, NULL },
		{ "GET", "/runs/42", pages_run, 42, NULL },
		{ "GET", "/runs/42/console", pages_run_console, 42, NULL },
		{ "GET", "/runs/42/output", pages_run_output, 42, NULL },
		{ "GET", "/runs/42/domain.xml", pages_run_xml, 42, NULL },
		{ "GET", "/runs/7/results/a/b.txt", pages_run_result, 7, "a/b.txt" },
		{ "GET", "/runs/7/results/", pages_run_result, 7, "" },
		{ "GET", "/trends", pages_trends, 0, NULL },
		{ "GET", "/trends/view", pages_trend, 0, NULL },
		{ "GET", "/jobs", pages_jobs, 0, NULL },
		{ "GET", "/jobs/kselftest-net", pages_job, 0, "kselftest-net" },
		{ "GET", "/jobs/a/b", pages_job, 0, "a/b" },
		{ "GET", "/queue", pages_queue, 0, NULL },
		{ "GET", "/hosts", pages_hosts, 0, NULL },
		{ "GET", "/requests/3", pages_request, 3, NULL },
		{ "GET", "/trees", pages_trees, 0, NULL },
		{ "GET", "/submissions", pages_submissions, 0, NULL },
		{ "GET", "/submissions/9", pages_submission, 9, NULL },
		{ "GET", "/builds/12", pages_build, 12, NULL },
		{ "GET", "/builds/12/log", pages_build_log, 12, NULL },
		{ "GET", "/api/health", api_health, 0, NULL },
		{ "GET", "/api/runs", api_runs_list, 0, NULL },
		{ "POST", "/api/runs", api_runs_submit, 0, NULL },
		{ "GET", "/api/runs/9223372036854775807", api_run, INT64_MAX, NULL },
		{ "POST", "/api/requests", api_requests_submit, 0, NULL },
		{ "GET", "/api/requests/5", api_request, 5, NULL },
		{ "GET", "/api/jobs", api_jobs, 0, NULL },
		{ "GET", "/api/jobs/x", api_job, 0, "x" },
		{ "GET", "/api/queue", api_queue, 0, NULL },
		{ "GET", "/api/hosts", api_hosts, 0, NULL },
		{ "GET", "/api/trees", api_trees, 0, NULL },
		{ "POST", "/api/trees", api_trees_add, 0, NULL },
		{ "POST", "/api/trees/net-next/fetch", api_tree_fetch, 0, "net-next" },
		{ "POST", "/api/trees//fetch", api_tree_fetch, 0, "" },
		{ "GET", "/api/submissions", api_submissions, 0, NULL },
		{ "POST", "/api/submissions", api_submissions_add, 0, NULL },
		{ "GET", "/api/submissions/1", api_submission, 1, NULL },
		{ "GET", "/api/builds", api_builds, 0, NULL },
		{ "GET", "/api/builds/2", api_build, 2, NULL },
		{ "POST", "/api/import", api_import, 0, NULL },
		{ "GET", "/api/trend", api_trend, 0, NULL },
		{ "GET", "/api/compare", api_compare, 0, NULL },
		{ "POST", "/api/reload", api_reload, 0, NULL },
		{ "POST", "/api/shutdown", api_shutdown, 0, NULL },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct web_args a;
		unsigned allow;
		const struct web_route *r = find(cases[i].method, cases[i].url, &a, &allow);

		if (!r || r->handler != cases[i].handler)
			fail_msg("%s %s: not its route", cases[i].method, cases[i].url);
		assert_int_equal(a.id, cases[i].id);
		if (cases[i].name)
			assert_string_equal(a.name, cases[i].name);
	}
}

static void test_wrong_method(void **state)
{
	static const struct {
		const char *method, *url;
		unsigned allow;
	} cases[] = {
		{ "POST", "/", WEB_GET },
		{ "DELETE", "/runs/1", WEB_GET },
		{ "POST", "/runs/1/console", WEB_GET },
		{ "PUT", "/api/runs", WEB_GET | WEB_POST },
		{ "DELETE", "/api/trees", WEB_GET | WEB_POST },
		{ "GET", "/api/requests", WEB_POST },
		{ "GET", "/api/import", WEB_POST },
		{ "GET", "/api/trees/linux/fetch", WEB_POST },
		{ "GET", "/api/reload", WEB_POST },
		{ "GET", "/api/shutdown", WEB_POST },
		{ "POST", "/trends", WEB_GET },
		{ "get", "/api/health", WEB_GET },   /* methods are case-sensitive */
		/* anything under /submissions and /builds: 405 to all but GET */
		{ "POST", "/submissions/1", WEB_GET },
		{ "POST", "/buildsX", WEB_GET },
		{ "DELETE", "/builds", WEB_GET },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct web_args a;
		unsigned allow;

		if (find(cases[i].method, cases[i].url, &a, &allow))
			fail_msg("%s %s: found", cases[i].method, cases[i].url);
		if (allow != cases[i].allow)
			fail_msg("%s %s: allow %u, not %u", cases[i].method, cases[i].url, allow,
				 cases[i].allow);
	}
}

static void test_unknown(void **state)
{
	static const char *const paths[] = {
		"", "/nope", "/api", "/api/", "/api/nope", "/api/runs/", "/api/runs/abc",
		"/api/runs/0", "/api/runs/07", "/api/runs/-1", "/api/runs/+1", "/api/runs/1x",
		"/api/runs/1/x", "/api/runs/99999999999999999999", "/api/runs/9223372036854775808",
		"/runs", "/runs/", "/runs/abc", "/runs/1/", "/runs/1/nope", "/runs/1/console/",
		"/runs/1/results", "/jobs/", "/api/jobs/", "/requests/1/x", "/trends/", "/trends/nope",
		"/trends/view/", "/treesX", "/api/treesX", "/api/trees/x", "/api/trees/a/b/fetch",
		"/api/trees/x/fetch/", "//", "/api//runs",
		"/api/trees/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/fetch",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct web_args a;
		unsigned allow;

		for (int m = 0; m < 2; m++) {
			if (find(m ? "POST" : "GET", paths[i], &a, &allow))
				fail_msg("%s: found", paths[i]);
			if (allow)
				fail_msg("%s: allow %u", paths[i], allow);
		}
	}
}

/* Under /submissions and /builds a GET of any other path is the 404 route */
static void test_not_found_routes(void **state)
{
	static const char *const paths[] = {
		"/submissionsX", "/submissions/x", "/submissions/1/x", "/builds", "/builds/x",
		"/builds/1/logs", "/buildsX",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		struct web_args a;
		unsigned allow;
		const struct web_route *r = find("GET", paths[i], &a, &allow);

		if (!r || r->handler)
			fail_msg("%s: not the 404 route", paths[i]);
	}
}

static void test_name_bound(void **state)
{
	char url[256];
	struct web_args a;
	unsigned allow;
	const struct web_route *r;

	snprintf(url, sizeof(url), "/api/trees/%.*s/fetch", WEB_SEGMENT_MAX,
		 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb");
	r = find("POST", url, &a, &allow);
	assert_non_null(r);
	assert_int_equal(strlen(a.name), WEB_SEGMENT_MAX);
}

static void test_body_max(void **state)
{
	assert_int_equal(web_route_body_max("/api/submissions"), WEB_UPLOAD_MAX);
	assert_int_equal(web_route_body_max("/api/import"), WEB_UPLOAD_MAX);
	assert_int_equal(web_route_body_max("/api/runs"), WEB_BODY_MAX);
	assert_int_equal(web_route_body_max("/api/submissions/1"), WEB_BODY_MAX);
	assert_int_equal(web_route_body_max("/nope"), WEB_BODY_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_each_route),
		cmocka_unit_test(test_wrong_method),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_not_found_routes),
		cmocka_unit_test(test_name_bound),
		cmocka_unit_test(test_body_max),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
