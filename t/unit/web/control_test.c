// SPDX-License-Identifier: GPL-2.0-only
/* control_test.c: unit tests for web/control.c through a real server (no
 * orchestrator, the daemon's calls stubbed): POST /api/reload and
 * /api/shutdown need the token (401 without it or with a wrong one, and
 * the daemon is not called), take POST only, answer with the daemon's
 * reload answer or its errors (409), call the shutdown once its answer
 * was sent, and say 501 on a server that has no daemon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/util.h"
#include "t/unit/testutil.h"
#include "web/web.h"

#define TOKEN "control-test-token-0123456789"

static char dir[64];
static char base[64];
static struct web *web;
static int reloads, reload_fails, shutdowns, wrong_arg;

static int stub_reload(void *arg, struct json_t **answer, char **err)
{
	/* on a server thread: no cmocka assert here */
	wrong_arg |= arg != &reloads;
	__atomic_add_fetch(&reloads, 1, __ATOMIC_SEQ_CST);
	if (reload_fails)
		return set_errf(err, "config '/x.conf' has errors: kfleetd keeps the config it "
				"runs with, nothing changed\n/x.conf:3: bad");
	*answer = json_pack("{s:s, s:i}", "summary", "config '/x.conf' re-read: no change",
			    "changed", 0);
	return 0;
}

static void stub_shutdown(void *arg)
{
	wrong_arg |= arg != &reloads;
	__atomic_add_fetch(&shutdowns, 1, __ATOMIC_SEQ_CST);
}

/* A server on port 0; with the daemon's calls when daemon */
static struct web *start(int daemon)
{
	struct web_opts o;
	char *err = NULL, *db = tu_path(dir, "kfleet.db");
	struct web *w;

	memset(&o, 0, sizeof(o));
	o.listen_addr = "127.0.0.1";
	o.db_path = db;
	o.token = TOKEN;
	if (daemon) {
		o.reload = stub_reload;
		o.shutdown = stub_shutdown;
		o.control_arg = &reloads;
	}
	w = web_start(&o, &err);
	if (!w)
		fail_msg("web_start: %s", err);
	snprintf(base, sizeof(base), "http://127.0.0.1:%d", web_port(w));
	free(db);
	return w;
}

static int setup(void **state)
{
	(void)state;
	log_init("control_test", LOG_LVL_ERROR);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	tu_tmpdir(dir, sizeof(dir), "control");
	web = start(1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	web_stop(web);
	tu_rmrf(dir);
	curl_global_cleanup();
	return 0;
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *cls)
{
	return buf_append(cls, p, size * nmemb) < 0 ? 0 : size * nmemb;
}

/* method path with the token auth (NULL: none): the status, the body in out */
static long http(const char *method, const char *path, const char *auth, struct buf *out)
{
	struct curl_slist *h = NULL;
	char url[128], hdr[128];
	CURL *c = curl_easy_init();
	long status = -1;

	assert_non_null(c);
	buf_reset(out);
	snprintf(url, sizeof(url), "%s%s", base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	if (auth) {
		snprintf(hdr, sizeof(hdr), "Authorization: Bearer %s", auth);
		h = curl_slist_append(h, hdr);
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	}
	if (curl_easy_perform(c) == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

/* The string at key of the JSON in b (a copy; caller frees) */
static char *jfield(const struct buf *b, const char *key)
{
	json_t *j = json_loads(buf_str(b), 0, NULL);
	char *s;

	assert_non_null(j);
	assert_true(json_is_string(json_object_get(j, key)));
	s = strdup(json_string_value(json_object_get(j, key)));
	json_decref(j);
	return s;
}

static void test_token_needed(void **state)
{
	static const char *const paths[] = { "/api/reload", "/api/shutdown" };
	struct buf b = BUF_INIT(0);

	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(http("POST", paths[i], NULL, &b), 401);
		assert_int_equal(http("POST", paths[i], "wrong-token", &b), 401);
		assert_int_equal(http("GET", paths[i], NULL, &b), 405);
		assert_int_equal(http("GET", paths[i], TOKEN, &b), 405);
	}
	usleep(100000);
	assert_int_equal(reloads, 0);
	assert_int_equal(shutdowns, 0);
	buf_release(&b);
}

static void test_reload(void **state)
{
	struct buf b = BUF_INIT(0);
	char *s;

	reloads = 0;
	reload_fails = 0;
	assert_int_equal(http("POST", "/api/reload", TOKEN, &b), 200);
	assert_int_equal(reloads, 1);
	s = jfield(&b, "summary");
	assert_string_equal(s, "config '/x.conf' re-read: no change");
	free(s);
	reload_fails = 1;
	assert_int_equal(http("POST", "/api/reload", TOKEN, &b), 409);
	assert_int_equal(reloads, 2);
	s = jfield(&b, "error");
	assert_non_null(strstr(s, "nothing changed\n/x.conf:3: bad"));
	free(s);
	reload_fails = 0;
	assert_int_equal(shutdowns, 0);
	assert_int_equal(wrong_arg, 0);
	buf_release(&b);
}

static void test_shutdown(void **state)
{
	struct buf b = BUF_INIT(0);
	json_t *j;

	shutdowns = 0;
	assert_int_equal(http("POST", "/api/shutdown", TOKEN, &b), 200);
	j = json_loads(buf_str(&b), 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "pid")), getpid());
	assert_true(json_is_true(json_object_get(j, "stopping")));
	json_decref(j);
	/* called once the answer went out: by now, or very soon */
	for (int i = 0; i < 50 && !__atomic_load_n(&shutdowns, __ATOMIC_SEQ_CST); i++)
		usleep(20000);
	assert_int_equal(shutdowns, 1);
	/* the server still answers: stopping is the daemon's */
	assert_int_equal(http("GET", "/api/health", NULL, &b), 200);
	usleep(100000);
	assert_int_equal(shutdowns, 1);
	assert_int_equal(wrong_arg, 0);
	buf_release(&b);
}

static void test_no_daemon(void **state)
{
	struct web *saved = web, *w = start(0);
	struct buf b = BUF_INIT(0);

	assert_int_equal(http("POST", "/api/reload", NULL, &b), 401);
	assert_int_equal(http("POST", "/api/reload", TOKEN, &b), 501);
	assert_int_equal(http("POST", "/api/shutdown", TOKEN, &b), 501);
	web_stop(w);
	web = saved;
	snprintf(base, sizeof(base), "http://127.0.0.1:%d", web_port(web));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_needed),
		cmocka_unit_test(test_reload),
		cmocka_unit_test(test_shutdown),
		cmocka_unit_test(test_no_daemon),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
