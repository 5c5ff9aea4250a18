// SPDX-License-Identifier: GPL-2.0-only
/* client_test.c: unit tests for cli/client.c, the CLI's side of the API:
 * the daemon's URL from --url, $KFLEET_URL or the config, the token file,
 * base64, and cli_api_call against a small libmicrohttpd server here that
 * answers by path (JSON, an API error, an error without JSON, bad JSON),
 * then with nothing listening; and kfleet show following a run's pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <microhttpd.h>

#include "cli/cli.h"
#include "config/config.h"
#include "t/unit/testutil.h"

static void cli_init(struct cli *k)
{
	memset(k, 0, sizeof(*k));
	assert_int_equal(config_defaults(&k->cfg), 0);
}

static void cli_release(struct cli *k)
{
	free(k->url);
	k->url = NULL;
	config_release(&k->cfg);
}

static void set_listen(struct cli *k, const char *addr, int port)
{
	free(k->cfg.listen_addr);
	k->cfg.listen_addr = strdup(addr);
	k->cfg.listen_port = port;
	k->config_path = "kfleetd.conf";
}

static void test_resolve_url(void **state)
{
	struct cli k;

	unsetenv("KFLEET_URL");
	cli_init(&k);
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, CLI_DEFAULT_URL);
	free(k.url);
	/* the config's address, with -c; a wildcard one is reached on loopback */
	set_listen(&k, "10.1.2.3", 9000);
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "http://10.1.2.3:9000");
	free(k.url);
	set_listen(&k, "0.0.0.0", 8081);
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "http://127.0.0.1:8081");
	free(k.url);
	set_listen(&k, "::", 8082);
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "http://[::1]:8082");
	free(k.url);
	set_listen(&k, "fe80::1", 80);
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "http://[fe80::1]:80");
	free(k.url);
	/* $KFLEET_URL over the config, --url over both; trailing slashes cut */
	setenv("KFLEET_URL", "http://env:1/", 1);
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "http://env:1");
	free(k.url);
	k.url_opt = "https://opt.example/kfleet///";
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "https://opt.example/kfleet");
	free(k.url);
	k.url_opt = "";   /* empty: as if not given */
	assert_int_equal(cli_resolve_url(&k), 0);
	assert_string_equal(k.url, "http://env:1");
	unsetenv("KFLEET_URL");
	cli_release(&k);
}

/* cli_read_token of tok_cli into tok_got, for tu_run_captured */
static struct cli *tok_cli;
static char *tok_got;

static int run_read_token(int argc, char **argv)
{
	tok_got = cli_read_token(tok_cli);
	return tok_got ? 0 : -1;
}

static void test_read_token(void **state)
{
	char dir[128], *path, *out, *err, want[300];
	struct cli k;

	tu_tmpdir(dir, sizeof(dir), "token");
	path = tu_path(dir, "token");
	cli_init(&k);
	unsetenv("KFLEET_TOKEN_FILE");
	k.token_file = path;
	tok_cli = &k;
	tu_write_str(path, "0123abcd\r\n \t\n");
	assert_int_equal(tu_run_captured(run_read_token, NULL, 0, &out, &err), 0);
	assert_string_equal(tok_got, "0123abcd");
	free(tok_got);
	free(out);
	free(err);
	tu_write_str(path, " \n");
	assert_int_equal(tu_run_captured(run_read_token, NULL, 0, &out, &err), -1);
	snprintf(want, sizeof(want), "kfleet: token file '%s': empty\n", path);
	assert_string_equal(err, want);
	free(out);
	free(err);
	tu_write(path, "ab\0cd\n", 6, 0);
	assert_int_equal(tu_run_captured(run_read_token, NULL, 0, &out, &err), -1);
	snprintf(want, sizeof(want), "kfleet: token file '%s': not a token\n", path);
	assert_string_equal(err, want);
	free(out);
	free(err);
	/* --token-file over $KFLEET_TOKEN_FILE over the state directory's */
	k.token_file = NULL;
	setenv("KFLEET_TOKEN_FILE", path, 1);
	tu_write_str(path, "fromenv\n");
	assert_int_equal(tu_run_captured(run_read_token, NULL, 0, &out, &err), 0);
	assert_string_equal(tok_got, "fromenv");
	free(tok_got);
	free(out);
	free(err);
	unsetenv("KFLEET_TOKEN_FILE");
	free(k.cfg.state_dir);
	k.cfg.state_dir = strdup(dir);
	assert_int_equal(tu_run_captured(run_read_token, NULL, 0, &out, &err), 0);
	assert_string_equal(tok_got, "fromenv");
	free(tok_got);
	free(out);
	free(err);
	k.token_file = "/nonexistent/kfleet-token";
	assert_int_equal(tu_run_captured(run_read_token, NULL, 0, &out, &err), -1);
	assert_string_equal(err, "kfleet: token file '/nonexistent/kfleet-token': "
			    "No such file or directory\n");
	free(out);
	free(err);
	cli_release(&k);
	free(path);
	tu_rmrf(dir);
}

static void test_base64(void **state)
{
	static const struct { const char *in, *want; } cases[] = {
		{ "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
		{ "hello\n", "aGVsbG8K" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *b = cli_base64(cases[i].in, strlen(cases[i].in));

		assert_non_null(b);
		assert_string_equal(b, cases[i].want);
		free(b);
	}
}

/* ---- cli_api_call against a server here ---- */

struct seen {
	char method[8], path[64], auth[64], ctype[64];
	char body[256];
};

static enum MHD_Result answer(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **con_cls)
{
	static const struct { const char *path; unsigned status; const char *body; } routes[] = {
		{ "/ok", 200, "{\"id\": 5}" },
		{ "/missing", 404, "{\"error\": \"run 9: not found\"}" },
		{ "/plain", 500, "oops" },
		{ "/bad", 200, "{\"id\": " },
		/* a run whose results and samples come in pages (test_show_pages) */
		{ "/api/runs/7", 200, "{\"id\": 7, \"state\": \"done\", \"outcome\": \"failed\","
		  " \"results\": {\"counts\": {\"pass\": 1, \"fail\": 2}, \"rows\":"
		  " [{\"path\": \"t/one\", \"status\": \"fail\", \"detail\": null}],"
		  " \"truncated\": true, \"next\": \"/api/runs/7/results?offset=1\"},"
		  " \"samples\": [{\"metric\": \"ops\", \"unit\": \"1/s\", \"value\": 1,"
		  " \"seq\": 0}], \"samples_truncated\": true,"
		  " \"samples_next\": \"/api/runs/7/samples?offset=1\"}" },
		{ "/api/runs/7/results", 200, "{\"rows\": [{\"path\": \"t/two\", \"status\":"
		  " \"fail\", \"detail\": \"second page\"}, {\"path\": \"t/three\","
		  " \"status\": \"pass\", \"detail\": null}], \"next\": null}" },
		{ "/api/runs/7/samples", 200, "{\"rows\": [{\"metric\": \"ops\", \"unit\": \"1/s\","
		  " \"value\": 3, \"seq\": 1}, {\"metric\": \"ops\", \"unit\": \"1/s\","
		  " \"value\": 2, \"seq\": 2}], \"next\": null}" },
	};
	struct seen *s = cls;
	const char *h;
	struct MHD_Response *r;
	enum MHD_Result rc;
	unsigned status = 404;
	const char *body = "{}";

	if (!*con_cls) {   /* the headers: come back for the body */
		*con_cls = s;
		return MHD_YES;
	}
	if (*upload_size) {
		size_t n = strlen(s->body);

		snprintf(s->body + n, sizeof(s->body) - n, "%.*s", (int)*upload_size, upload);
		*upload_size = 0;
		return MHD_YES;
	}
	snprintf(s->method, sizeof(s->method), "%s", method);
	snprintf(s->path, sizeof(s->path), "%s", url);
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Authorization");
	snprintf(s->auth, sizeof(s->auth), "%s", h ? h : "");
	h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Type");
	snprintf(s->ctype, sizeof(s->ctype), "%s", h ? h : "");
	for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++)
		if (!strcmp(url, routes[i].path)) {
			status = routes[i].status;
			body = routes[i].body;
		}
	r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	rc = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return rc;
}

static void test_api_call(void **state)
{
	struct seen seen;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	struct resp r;
	struct cli k;
	char url[64], want[200];
	json_t *body;

	memset(&seen, 0, sizeof(seen));
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, &seen,
			     MHD_OPTION_SOCK_ADDR, NULL, MHD_OPTION_END);
	assert_non_null(d);
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	assert_non_null(info);
	assert_int_equal(curl_global_init(CURL_GLOBAL_DEFAULT), CURLE_OK);
	cli_init(&k);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)info->port);
	k.url = strdup(url);

	/* a POST with a body and the token: the answer's JSON */
	body = json_pack("{s:s}", "kernel", "/k");
	assert_int_equal(cli_api_call(&k, "POST", "/ok", body, "t0k", &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(json_integer_value(json_object_get(r.j, "id")), 5);
	assert_string_equal(seen.method, "POST");
	assert_string_equal(seen.path, "/ok");
	assert_string_equal(seen.auth, "Bearer t0k");
	assert_string_equal(seen.ctype, "application/json");
	assert_string_equal(seen.body, "{\"kernel\":\"/k\"}");
	json_decref(r.j);
	json_decref(body);
	/* the API's own error text */
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(cli_api_call(&k, "GET", "/missing", NULL, NULL, &r), -1);
	assert_int_equal(r.status, 404);
	assert_null(r.j);
	assert_string_equal(r.err, "404: run 9: not found");
	assert_string_equal(seen.auth, "");
	/* an error without one, and a 2xx answer that is not JSON */
	assert_int_equal(cli_api_call(&k, "GET", "/plain", NULL, NULL, &r), -1);
	snprintf(want, sizeof(want), "500: '%s/plain' answered without an error text", url);
	assert_string_equal(r.err, want);
	assert_int_equal(cli_api_call(&k, "GET", "/bad", NULL, NULL, &r), -1);
	assert_int_equal(r.status, 200);
	assert_null(r.j);
	snprintf(want, sizeof(want), "'%s/bad': bad JSON in the answer: ", url);
	assert_memory_equal(r.err, want, strlen(want));
	MHD_stop_daemon(d);
	/* nothing listening: no status, the URL in the message */
	assert_int_equal(cli_api_call(&k, "GET", "/ok", NULL, NULL, &r), -1);
	assert_int_equal(r.status, 0);
	snprintf(want, sizeof(want), "'%s/ok': ", url);
	assert_memory_equal(r.err, want, strlen(want));
	cli_release(&k);
	curl_global_cleanup();
}

/* cli_show(argv) against the server at url, its stdout into out */
static int show_out(const char *url, char **argv, int argc, char *out, size_t n)
{
	char tmp[] = "/tmp/kf-show-XXXXXX";
	int fd = mkstemp(tmp), saved, rc;
	struct cli k;
	ssize_t got;

	assert_true(fd >= 0);
	cli_init(&k);
	k.url = strdup(url);
	k.cmd = "show";
	fflush(stdout);
	saved = dup(1);
	assert_true(dup2(fd, 1) == 1);
	rc = cli_show(&k, argc, argv);
	fflush(stdout);
	assert_true(dup2(saved, 1) == 1);
	close(saved);
	got = pread(fd, out, n - 1, 0);
	out[got > 0 ? got : 0] = '\0';
	close(fd);
	unlink(tmp);
	cli_release(&k);
	return rc;
}

/* kfleet show follows the pages the run's JSON names: every result that
 * did not pass and every sample, as text and as JSON */
static void test_show_pages(void **state)
{
	struct seen seen;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	char url[64], out[8192];
	char *text[] = { "show", "7", NULL }, *js[] = { "show", "--json", "7", NULL };
	json_t *j;

	memset(&seen, 0, sizeof(seen));
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL, answer, &seen,
			     MHD_OPTION_SOCK_ADDR, NULL, MHD_OPTION_END);
	assert_non_null(d);
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	assert_non_null(info);
	assert_int_equal(curl_global_init(CURL_GLOBAL_DEFAULT), CURLE_OK);
	snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)info->port);

	assert_int_equal(show_out(url, text, 2, out, sizeof(out)), 0);
	assert_non_null(strstr(out, "t/one"));
	assert_non_null(strstr(out, "t/two"));
	assert_non_null(strstr(out, "second page"));
	assert_null(strstr(out, "not shown"));
	assert_null(strstr(out, "from the first samples only"));
	/* three samples of ops: min/median/max 1/2/3 */
	assert_non_null(strstr(out, "      3  1/2/3"));

	assert_int_equal(show_out(url, js, 3, out, sizeof(out)), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "results"), "rows")),
			 3);
	assert_true(json_is_false(json_object_get(json_object_get(j, "results"), "truncated")));
	assert_true(json_is_null(json_object_get(json_object_get(j, "results"), "next")));
	assert_int_equal(json_array_size(json_object_get(j, "samples")), 3);
	assert_true(json_is_false(json_object_get(j, "samples_truncated")));
	json_decref(j);
	MHD_stop_daemon(d);
	curl_global_cleanup();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resolve_url),
		cmocka_unit_test(test_read_token),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_api_call),
		cmocka_unit_test(test_show_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
