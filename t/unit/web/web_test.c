// SPDX-License-Identifier: GPL-2.0-only
/* web_test.c: unit tests for web/ through a real server (http.c, routes.c,
 * api.c, pages.c). Starts it on 127.0.0.1 port 0 over a temporary state directory
 * with two job files, and an orchestrator on libvirt's test:///default
 * driver (not started, so runs stay queued), and talks to it with libcurl:
 * the API, the pages, the token, bounded bodies, HTML escaping, guest output
 * that is not UTF-8, jobs, and a run's results and metric samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <ftw.h>
#include <jansson.h>
#include <pthread.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "config/config.h"
#include "orchestrator/orchestrator.h"
#include "web/server.h"
#include "web/web.h"

#define TOKEN "s3cret-token-for-tests"

struct fixture {
	char dir[64];
	struct config cfg;
	struct orch *orch;
	struct web *web;
	char *kernel;        /* a fake bzImage */
	char base[64];       /* http://127.0.0.1:PORT */
};

static struct fixture *fx;

/* ---- helpers ---- */

static size_t on_body(char *p, size_t size, size_t nmemb, void *cls)
{
	if (buf_append(cls, p, size * nmemb) < 0)
		return 0;
	return size * nmemb;
}

/* One request; returns the HTTP status (-1 when curl failed). out gets the body. */
static long http_ex(const char *method, const char *path, const char *auth, const void *body,
		    size_t body_len, int chunked, struct buf *out, char *ctype, size_t ctlen)
{
	struct curl_slist *h = NULL;
	char url[256], hdr[256];
	long status = -1;
	CURL *c = curl_easy_init();
	CURLcode cc;

	assert_non_null(c);
	buf_reset(out);
	snprintf(url, sizeof(url), "%s%s", fx->base, path);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT, 20L);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
	curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
	if (!strcmp(method, "HEAD"))
		curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
	if (auth) {
		snprintf(hdr, sizeof(hdr), "Authorization: %s", auth);
		h = curl_slist_append(h, hdr);
	}
	if (body) {
		h = curl_slist_append(h, "Content-Type: application/json");
		if (chunked)
			h = curl_slist_append(h, "Transfer-Encoding: chunked");
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body_len);
	}
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
	cc = curl_easy_perform(c);
	if (cc == CURLE_OK) {
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (ctype) {
			char *ct = NULL;

			curl_easy_getinfo(c, CURLINFO_CONTENT_TYPE, &ct);
			snprintf(ctype, ctlen, "%s", ct ? ct : "");
		}
	} else {
		fprintf(stderr, "curl %s %s: %s\n", method, path, curl_easy_strerror(cc));
	}
	curl_slist_free_all(h);
	curl_easy_cleanup(c);
	return status;
}

static long http(const char *method, const char *path, const char *auth, const char *body,
		 struct buf *out)
{
	return http_ex(method, path, auth, body, body ? strlen(body) : 0, 0, out, NULL, 0);
}

static json_t *parse(const struct buf *b)
{
	json_error_t e;
	json_t *j = json_loadb(buf_str(b), b->len, 0, &e);

	if (!j)
		fail_msg("bad JSON from the server: %d:%d: %s: %s", e.line, e.column, e.text,
			 buf_str(b));
	return j;
}

/* The "error" text of a JSON error answer, copied into out */
static void error_of(const struct buf *b, char *out, size_t n)
{
	json_t *j = parse(b);
	json_t *e = json_object_get(j, "error");

	assert_true(json_is_string(e));
	snprintf(out, n, "%s", json_string_value(e));
	json_decref(j);
}

static int64_t submit(const char *command)
{
	struct buf b = BUF_INIT(0);
	json_t *req = json_pack("{s:s, s:s}", "kernel", fx->kernel, "command", command);
	char *body = json_dumps(req, JSON_COMPACT);
	json_t *j;
	int64_t id;
	long st;

	st = http("POST", "/api/runs", "Bearer " TOKEN, body, &b);
	if (st != 201)
		fail_msg("submit: %ld: %s", st, buf_str(&b));
	j = parse(&b);
	assert_true(json_is_integer(json_object_get(j, "id")));
	id = json_integer_value(json_object_get(j, "id"));
	assert_true(id > 0);
	json_decref(j);
	json_decref(req);
	free(body);
	buf_release(&b);
	return id;
}

/* A file with the x86 boot sector flag and the "HdrS" setup header magic */
static void make_fake_bzimage(const char *path)
{
	size_t n = 128 * 1024;
	unsigned char *img = calloc(1, n);

	assert_non_null(img);
	img[0x1fe] = 0x55;
	img[0x1ff] = 0xaa;
	memcpy(img + 0x202, "HdrS", 4);
	assert_int_equal(write_file(path, img, n, 0644), 0);
	free(img);
}

/* Gives run id a run directory (as a worker would) and returns it */
static char *give_run_dir(int64_t id)
{
	char name[64], *dir, *err = NULL;
	struct db *db = db_open(orch_db_path(fx->orch), &err);

	if (!db)
		fail_msg("db_open: %s", err);
	snprintf(name, sizeof(name), "runs/%lld", (long long)id);
	dir = path_join(fx->dir, name);
	assert_int_equal(mkdir_p(dir, 0755), 0);
	assert_int_equal(db_run_started(db, id, "test", "pc-test", "7.2.0", "9.0.0", dir), 0);
	db_close(db);
	return dir;
}

static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
	char *p = path_join(dir, name);

	assert_int_equal(write_file(p, data, len, 0644), 0);
	free(p);
}

/* Replaces run id's results and samples, as a worker would */
static void store_results(int64_t id, const struct result_row *res, size_t nres,
			  const struct sample_row *smp, size_t nsmp)
{
	char *err = NULL;
	struct db *db = db_open(orch_db_path(fx->orch), &err);

	if (!db)
		fail_msg("db_open: %s", err);
	if (db_run_store_results(db, id, res, nres, smp, nsmp) < 0)
		fail_msg("db_run_store_results: %s", db_errmsg(db));
	db_close(db);
}

/* Runs sql on the daemon's database */
static void exec_sql(const char *sql)
{
	char *err = NULL;
	struct db *db = db_open(orch_db_path(fx->orch), &err);

	if (!db)
		fail_msg("db_open: %s", err);
	if (sqlite3_exec(db_sqlite(db), sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("%s: %s", sql, err);
	db_close(db);
}

/* ---- setup ---- */

/* Two jobs; the file names sort the other way round from the job names */
static const char job_ktap[] =
	"; a selftest job\n"
	"[job]\n"
	"name = net-ktap\n"
	"description = net selftests <i>quick</i> & small\n"
	"kind = selftest\n"
	"command = run-net-tests\n"
	"parser = ktap\n"
	"timeout = 60\n"
	"config = CONFIG_NET=y\n"
	"config = CONFIG_INET=y\n";
static const char job_churn[] =
	"[job]\n"
	"name = churn\n"
	"description = socket filter churn\n"
	"kind = stress\n"
	"programs = churn-a churn-b\n"
	"command = churn-a -t 5\n"
	"parser = metrics\n"
	"memory_mb = 256\n"
	"vcpus = 2\n"
	"\n"
	"[metric ops]\n"
	"unit = 1/s\n"
	"better = higher\n"
	"margin = 3%\n"
	"\n"
	"[metric lat]\n"
	"unit = ns\n"
	"better = lower\n";


static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int setup(void **state)
{
	struct web_opts o;
	char *err = NULL;

	log_init("web_test", LOG_LVL_ERROR);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -1;
	fx = calloc(1, sizeof(*fx));
	if (!fx)
		return -1;
	snprintf(fx->dir, sizeof(fx->dir), "/tmp/kfleet-web-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	if (config_defaults(&fx->cfg) < 0)
		return -1;
	free(fx->cfg.state_dir);
	fx->cfg.state_dir = strdup(fx->dir);
	free(fx->cfg.hosts[0].uri);
	fx->cfg.hosts[0].uri = strdup("test:///default");
	/* as if kfleet built it: a request's kernel in the state directory is
	 * taken only from builds/ */
	fx->kernel = path_join(fx->dir, "builds/bzImage");
	mkdir_p(fx->kernel, 0755);
	rmdir(fx->kernel);
	make_fake_bzimage(fx->kernel);
	free(fx->cfg.job_dirs);
	fx->cfg.job_dirs = path_join(fx->dir, "jobs");
	if (!fx->cfg.job_dirs || mkdir_p(fx->cfg.job_dirs, 0755) < 0)
		return -1;
	put_file(fx->cfg.job_dirs, "a.job", job_ktap, sizeof(job_ktap) - 1);
	put_file(fx->cfg.job_dirs, "b.job", job_churn, sizeof(job_churn) - 1);
	fx->orch = orch_new(&fx->cfg, &err);
	if (!fx->orch) {
		fprintf(stderr, "orch_new: %s\n", err);
		free(err);
		return -1;
	}
	memset(&o, 0, sizeof(o));
	o.listen_addr = "127.0.0.1";
	o.port = 0;
	o.db_path = orch_db_path(fx->orch);
	o.token = TOKEN;
	o.orch = fx->orch;
	fx->web = web_start(&o, &err);
	if (!fx->web) {
		fprintf(stderr, "web_start: %s\n", err);
		free(err);
		return -1;
	}
	snprintf(fx->base, sizeof(fx->base), "http://127.0.0.1:%d", web_port(fx->web));
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	web_stop(fx->web);
	orch_free(fx->orch);
	config_release(&fx->cfg);
	if (nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "could not remove '%s'\n", fx->dir);
	free(fx->kernel);
	free(fx);
	fx = NULL;
	curl_global_cleanup();
	return 0;
}

static void test_health(void **state)
{
	struct buf b = BUF_INIT(0);
	char ct[128];

	assert_int_equal(http_ex("GET", "/api/health", NULL, NULL, 0, 0, &b, ct, sizeof(ct)), 200);
	assert_string_equal(buf_str(&b), "{\"ok\":true}\n");
	assert_string_equal(ct, "application/json");
	assert_int_equal(http("HEAD", "/api/health", NULL, NULL, &b), 200);
	assert_int_equal(http("POST", "/api/health", NULL, "{}", &b), 405);
	buf_release(&b);
}

static void test_submit_needs_token(void **state)
{
	struct buf b = BUF_INIT(0);
	char body[512], err[256];

	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"command\":\"true\"}", fx->kernel);
	assert_int_equal(http("POST", "/api/runs", NULL, body, &b), 401);
	error_of(&b, err, sizeof(err));
	assert_non_null(strstr(err, "missing or wrong token: "));
	assert_int_equal(http("POST", "/api/runs", "Bearer wrong", body, &b), 401);
	assert_int_equal(http("POST", "/api/runs", "Bearer " TOKEN "x", body, &b), 401);
	assert_int_equal(http("POST", "/api/runs", "Basic " TOKEN, body, &b), 401);
	assert_int_equal(http("POST", "/api/runs", "Bearer", body, &b), 401);
	buf_release(&b);
}

static void test_submit_and_list(void **state)
{
	struct buf b = BUF_INIT(0);
	int64_t id = submit("uname -a");
	json_t *j, *runs, *run, *counts;
	char path[64];
	int found = 0;
	size_t i;

	assert_int_equal(http("GET", "/api/runs", NULL, NULL, &b), 200);
	j = parse(&b);
	runs = json_object_get(j, "runs");
	assert_true(json_is_array(runs));
	json_array_foreach(runs, i, run) {
		if (json_integer_value(json_object_get(run, "id")) != id)
			continue;
		found = 1;
		assert_string_equal(json_string_value(json_object_get(run, "state")), "queued");
		assert_true(json_is_null(json_object_get(run, "outcome")));
		assert_true(json_is_null(json_object_get(run, "started_at")));
		assert_true(json_is_null(json_object_get(run, "duration_ms")));
		assert_true(json_is_null(json_object_get(run, "exit_code")));
		assert_true(json_integer_value(json_object_get(run, "queued_at")) > 0);
		assert_string_equal(json_string_value(json_object_get(run, "arch")), "x86_64");
		assert_string_equal(json_string_value(json_object_get(run, "command")), "uname -a");
		assert_true(json_is_null(json_object_get(run, "job")));
		assert_null(json_object_get(run, "results"));   /* GET /api/runs/ID only */
		assert_null(json_object_get(run, "samples"));
		assert_string_equal(json_string_value(json_object_get(
			json_object_get(run, "kernel"), "path")), fx->kernel);
		snprintf(path, sizeof(path), "/runs/%lld/console", (long long)id);
		assert_string_equal(json_string_value(json_object_get(
			json_object_get(run, "files"), "console")), path);
	}
	assert_true(found);
	counts = json_object_get(j, "counts");
	assert_true(json_integer_value(json_object_get(counts, "queued")) >= 1);
	assert_int_equal(json_integer_value(json_object_get(counts, "running")), 0);
	assert_true(json_is_integer(json_object_get(counts, "done")));
	json_decref(j);

	/* limit and before */
	submit("true");
	assert_int_equal(http("GET", "/api/runs?limit=1", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_int_equal(json_array_size(json_object_get(j, "runs")), 1);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/runs?before=%lld", (long long)id + 1);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	run = json_array_get(json_object_get(j, "runs"), 0);
	assert_int_equal(json_integer_value(json_object_get(run, "id")), id);
	json_decref(j);
	assert_int_equal(http("GET", "/api/runs?limit=100000", NULL, NULL, &b), 200);

	/* one run */
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), id);
	assert_true(json_is_array(json_object_get(j, "attempts")));
	assert_true(json_is_null(json_object_get(j, "output")));
	assert_true(json_is_false(json_object_get(j, "output_truncated")));
	assert_true(json_is_null(json_object_get(j, "job")));
	/* no results yet: empty, but there */
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "results"), "rows")),
			 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
		j, "results"), "counts"), "missing")), 0);
	assert_true(json_is_false(json_object_get(json_object_get(j, "results"), "truncated")));
	assert_int_equal(json_array_size(json_object_get(j, "samples")), 0);
	json_decref(j);
	buf_release(&b);
}

static void test_submit_numbers(void **state)
{
	struct buf b = BUF_INIT(0);
	char body[512], path[64];
	json_t *j;
	long st;

	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"command\":\"true\",\"arch\":\"x86_64\","
		 "\"vcpus\":2,\"memory_mb\":256,\"timeout_s\":60}", fx->kernel);
	st = http("POST", "/api/runs", "Bearer  " TOKEN, body, &b);
	if (st != 201)
		fail_msg("submit: %ld: %s", st, buf_str(&b));
	j = parse(&b);
	snprintf(path, sizeof(path), "/api/runs/%lld",
		 (long long)json_integer_value(json_object_get(j, "id")));
	json_decref(j);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_int_equal(json_integer_value(json_object_get(j, "vcpus")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "memory_mb")), 256);
	assert_int_equal(json_integer_value(json_object_get(j, "timeout_s")), 60);
	json_decref(j);

	/* orch_submit's own refusals come back as 400 with its text */
	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"command\":\"true\",\"arch\":\"sparc\"}",
		 fx->kernel);
	assert_int_equal(http("POST", "/api/runs", "Bearer " TOKEN, body, &b), 400);
	assert_non_null(strstr(buf_str(&b), "arch 'sparc'"));
	buf_release(&b);
}

static void test_bad_queries(void **state)
{
	static const char *const bad[] = {
		"/api/runs?limit=abc", "/api/runs?limit=0", "/api/runs?limit=-5",
		"/api/runs?limit=", "/api/runs?before=x", "/api/runs?before=-1",
		"/api/runs?limit=99999999999999999999999",
		"/api/compare?a=1&b=2&job=churn&margin=0", "/api/compare?a=1&b=2&job=churn&margin=60",
		"/api/compare?a=1&b=2&job=churn&margin=-2", "/api/compare?a=1&b=2&job=churn&margin=x",
	};
	struct buf b = BUF_INIT(0);
	char err[256];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(http("GET", bad[i], NULL, NULL, &b), 400);
		error_of(&b, err, sizeof(err));
		if (strstr(bad[i], "margin"))
			assert_string_equal(err, "compare: margin: a percentage above 0 and at most "
					    "50 (3 or 3%)");
	}
	buf_release(&b);
}

static void test_not_found(void **state)
{
	static const char *const missing[] = {
		"/nope", "/api", "/api/", "/api/nope", "/api/runs/", "/api/runs/abc",
		"/api/runs/0", "/api/runs/-1", "/api/runs/1/x", "/runs", "/runs/", "/runs/abc",
		"/runs/1/nope", "/runs/1/console/", "/runs/99999999999999999999999",
		"/runs/999", "/runs/999/console", "/runs/999/output", "/runs/999/domain.xml",
		"/runs/1/../../etc/passwd",
	};
	static const char *const odd[] = {
		"/%00", "/api/runs/1%00", "/runs/1%2fconsole", "/%ff%fe", "/runs/%ff",
		"/?before=%00", "/api/runs?limit=%ff", "//", "/api//runs",
	};
	struct buf b = BUF_INIT(0);
	char err[256];

	assert_int_equal(http("GET", "/api/runs/999", NULL, NULL, &b), 404);
	error_of(&b, err, sizeof(err));
	assert_string_equal(err, "run 999: no such run");
	for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++)
		if (http("GET", missing[i], NULL, NULL, &b) != 404)
			fail_msg("GET %s: not 404", missing[i]);
	/* whatever these mean, the server answers them */
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		if (http("GET", odd[i], NULL, NULL, &b) < 200)
			fail_msg("GET %s: no answer", odd[i]);
	buf_release(&b);
}

static void test_methods(void **state)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(http("DELETE", "/api/runs", NULL, NULL, &b), 405);
	assert_int_equal(http("PUT", "/api/runs/1", NULL, "{}", &b), 405);
	assert_int_equal(http("POST", "/", NULL, "x", &b), 405);
	assert_int_equal(http("DELETE", "/runs/1", NULL, NULL, &b), 405);
	assert_int_equal(http("POST", "/runs/1/console", NULL, "x", &b), 405);
	buf_release(&b);
}

static void test_bad_bodies(void **state)
{
	static const struct {
		const char *body;
		const char *want;   /* in the error text */
	} cases[] = {
		{ "{bad", "request body: line 1, column " },
		{ "", "request body:" },
		{ "[1,2]", "expected a JSON object" },
		{ "{\"kernel\":1,\"command\":\"x\"}", "'kernel'" },
		{ "{\"kernel\":\"/k\"}", "'command' or 'job'" },
		{ "{\"kernel\":\"/k\",\"job\":\"\"}", "'command' or 'job'" },
		{ "{\"kernel\":\"/k\",\"job\":7}", "'job'" },
		{ "{\"kernel\":\"/k\",\"command\":null,\"job\":null}", "'command' or 'job'" },
		{ "{\"command\":\"x\"}", "'kernel'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"vcpus\":\"2\"}", "'vcpus'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"vcpus\":-1}", "'vcpus'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"vcpus\":0}", "'vcpus'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"memory_mb\":1.5}", "'memory_mb'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"timeout_s\":99999999999}", "'timeout_s'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"arch\":7}", "'arch'" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\",\"colour\":\"red\"}", "'colour'" },
		{ "{\"kernel\":\"/k\",\"kernel\":\"/j\",\"command\":\"x\"}", "request body:" },
		{ "{\"kernel\":\"/no/such/kernel\",\"command\":\"x\"}", "/no/such/kernel" },
		{ "{\"kernel\":\"/k\",\"command\":\"x\\u0000y\"}", "request body:" },
		{ "{\"kernel\":\"\xff\",\"command\":\"x\"}", "request body:" },
	};
	struct buf b = BUF_INIT(0);
	char err[512];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long st = http("POST", "/api/runs", "Bearer " TOKEN, cases[i].body, &b);

		if (st != 400)
			fail_msg("body %zu '%s': %ld, not 400: %s", i, cases[i].body, st, buf_str(&b));
		error_of(&b, err, sizeof(err));
		if (!strstr(err, cases[i].want))
			fail_msg("body %zu: error '%s' does not say '%s'", i, err, cases[i].want);
	}
	buf_release(&b);
}

static void test_body_too_big(void **state)
{
	size_t n = 100 * 1024;
	char *big = malloc(n);
	struct buf b = BUF_INIT(0);
	char err[256];

	assert_non_null(big);
	memset(big, ' ', n);
	big[0] = '{';
	big[n - 1] = '}';
	/* with a Content-Length: refused before the body is read */
	assert_int_equal(http_ex("POST", "/api/runs", "Bearer " TOKEN, big, n, 0, &b, NULL, 0),
			 413);
	error_of(&b, err, sizeof(err));
	assert_non_null(strstr(err, "request body"));
	/* chunked: refused once the cap is passed */
	assert_int_equal(http_ex("POST", "/api/runs", "Bearer " TOKEN, big, n, 1, &b, NULL, 0),
			 413);
	/* the server still answers */
	assert_int_equal(http("GET", "/api/health", NULL, NULL, &b), 200);
	free(big);
	buf_release(&b);
}

static void test_status_page(void **state)
{
	struct buf b = BUF_INIT(0);
	int64_t id = submit("echo status");
	char want[128], ct[128];

	assert_int_equal(http_ex("GET", "/", NULL, NULL, 0, 0, &b, ct, sizeof(ct)), 200);
	assert_string_equal(ct, "text/html; charset=utf-8");
	snprintf(want, sizeof(want), "<a href=\"/runs/%lld\">%lld</a>", (long long)id,
		 (long long)id);
	assert_non_null(strstr(buf_str(&b), want));
	assert_non_null(strstr(buf_str(&b), ">queued</td>"));
	assert_non_null(strstr(buf_str(&b), "title=\"/"));   /* full kernel path */
	assert_non_null(strstr(buf_str(&b), ">bzImage</td>"));
	/* a queued run on the page: it refreshes itself */
	assert_non_null(strstr(buf_str(&b), "http-equiv=\"refresh\""));
	assert_int_equal(http("GET", "/?before=1", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "no older runs"));
	assert_int_equal(http("GET", "/?before=zz", NULL, NULL, &b), 400);
	buf_release(&b);
}

static void test_html_escaping(void **state)
{
	struct buf b = BUF_INIT(0);
	int64_t id = submit("<script>alert('x')</script> & echo \"hi\"");
	char path[64];

	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; "
			       "&amp; echo &quot;hi&quot;"));
	assert_null(strstr(buf_str(&b), "<script>"));
	assert_non_null(strstr(buf_str(&b), "no output yet"));
	buf_release(&b);
}

static void test_output_not_utf8(void **state)
{
	static const char out[] = "ok \xff\xfe bad \xc3\x28 <b>\x1b[0m end\n";
	static const char console[] = "[    0.000000] Linux version 6.1 <script>\xff\n";
	struct buf b = BUF_INIT(0);
	int64_t id = submit("printf bad");
	char *dir = give_run_dir(id);
	char path[64], ct[128];
	json_t *j;

	put_file(dir, RUN_FILE_OUTPUT, out, sizeof(out) - 1);
	put_file(dir, RUN_FILE_CONSOLE, console, sizeof(console) - 1);

	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);   /* jansson refuses invalid UTF-8: parsing is the test */
	assert_string_equal(json_string_value(json_object_get(j, "output")),
			    "ok \xef\xbf\xbd\xef\xbf\xbd bad \xef\xbf\xbd( <b>\x1b[0m end\n");
	assert_true(json_is_false(json_object_get(j, "output_truncated")));
	assert_string_equal(json_string_value(json_object_get(j, "run_dir")), dir);
	assert_string_equal(json_string_value(json_object_get(j, "accel")), "test");
	json_decref(j);

	/* the run page: escaped, valid UTF-8, control characters visible */
	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "ok \xef\xbf\xbd\xef\xbf\xbd bad \xef\xbf\xbd( "
			       "&lt;b&gt;\xe2\x90\x9b[0m end"));
	assert_non_null(strstr(buf_str(&b), "Linux version 6.1 &lt;script&gt;\xef\xbf\xbd"));

	/* the raw files, as written */
	snprintf(path, sizeof(path), "/runs/%lld/console", (long long)id);
	assert_int_equal(http_ex("GET", path, NULL, NULL, 0, 0, &b, ct, sizeof(ct)), 200);
	assert_int_equal(b.len, sizeof(console) - 1);
	assert_memory_equal(b.data, console, b.len);
	assert_string_equal(ct, "text/plain; charset=utf-8");
	snprintf(path, sizeof(path), "/runs/%lld/output", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	assert_int_equal(b.len, sizeof(out) - 1);
	snprintf(path, sizeof(path), "/runs/%lld/domain.xml", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 404);
	put_file(dir, RUN_FILE_XML, "<domain/>\n", 10);
	assert_int_equal(http_ex("GET", path, NULL, NULL, 0, 0, &b, ct, sizeof(ct)), 200);
	assert_string_equal(buf_str(&b), "<domain/>\n");
	assert_string_equal(ct, "application/xml");
	free(dir);
	buf_release(&b);
}

static void test_output_truncated(void **state)
{
	struct buf b = BUF_INIT(0);
	int64_t id = submit("yes");
	char *dir = give_run_dir(id);
	size_t n = WEB_OUTPUT_MAX + 1000;
	char *big = malloc(n), path[64];
	json_t *j;

	assert_non_null(big);
	memset(big, 'y', n);
	put_file(dir, RUN_FILE_OUTPUT, big, n);
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_int_equal(json_string_length(json_object_get(j, "output")), WEB_OUTPUT_MAX);
	assert_true(json_is_true(json_object_get(j, "output_truncated")));
	json_decref(j);
	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "showing the first 256 KiB only"));
	free(big);
	free(dir);
	buf_release(&b);
}

/* ---- a user's cancel ---- */

/* POST path with the token: the status; *j the answer (caller decrefs) */
static long cancel_post(const char *path, json_t **j)
{
	struct buf b = BUF_INIT(0);
	long st = http("POST", path, "Bearer " TOKEN, NULL, &b);

	*j = parse(&b);
	buf_release(&b);
	return st;
}

static void test_cancel(void **state)
{
	int64_t q = submit("sleep 600"), run = submit("sleep 601"), done = submit("true");
	struct buf b = BUF_INIT(0);
	char path[96], sql[128], want[128];
	json_t *j;

	snprintf(path, sizeof(path), "/api/runs/%lld/cancel", (long long)q);
	/* a write: the token, and POST only */
	assert_int_equal(http("POST", path, NULL, NULL, &b), 401);
	assert_int_equal(http("POST", path, "Bearer wrong", "{}", &b), 401);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 405);
	/* queued: canceled at once */
	assert_int_equal(cancel_post(path, &j), 200);
	assert_int_equal(json_integer_value(json_object_get(j, "canceled")), 1);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "done");
	assert_string_equal(json_string_value(json_object_get(j, "outcome")), "canceled");
	json_decref(j);
	/* again: taken, nothing more done */
	assert_int_equal(cancel_post(path, &j), 200);
	assert_int_equal(json_integer_value(json_object_get(j, "canceled")), 0);
	assert_int_equal(json_integer_value(json_object_get(j, "already")), 1);
	json_decref(j);
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)q);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "outcome")), "canceled");
	assert_string_equal(json_string_value(json_object_get(j, "detail")), "canceled by the user");
	json_decref(j);

	/* running: asked to stop, still running until its worker stops it */
	snprintf(sql, sizeof(sql), "UPDATE runs SET state = 'running' WHERE id = %lld",
		 (long long)run);
	exec_sql(sql);
	snprintf(path, sizeof(path), "/api/runs/%lld/cancel", (long long)run);
	assert_int_equal(cancel_post(path, &j), 200);
	assert_int_equal(json_integer_value(json_object_get(j, "stopping")), 1);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "running");
	assert_true(json_is_null(json_object_get(j, "outcome")));
	json_decref(j);

	/* ended by itself: 409 saying how, and left as it is */
	snprintf(sql, sizeof(sql), "UPDATE runs SET state = 'done', outcome = 'passed'"
		 " WHERE id = %lld", (long long)done);
	exec_sql(sql);
	snprintf(path, sizeof(path), "/api/runs/%lld/cancel", (long long)done);
	assert_int_equal(http("POST", path, "Bearer " TOKEN, NULL, &b), 409);
	error_of(&b, want, sizeof(want));
	snprintf(sql, sizeof(sql), "run %lld: nothing to cancel: it is done already (passed)",
		 (long long)done);
	assert_string_equal(want, sql);
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)done);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "outcome")), "passed");
	json_decref(j);

	/* what does not exist */
	assert_int_equal(http("POST", "/api/runs/999999/cancel", "Bearer " TOKEN, NULL, &b), 404);
	error_of(&b, want, sizeof(want));
	assert_string_equal(want, "run 999999: no such run");
	assert_int_equal(http("POST", "/api/requests/999999/cancel", "Bearer " TOKEN, NULL, &b),
			 404);
	error_of(&b, want, sizeof(want));
	assert_string_equal(want, "request 999999: no such request");
	assert_int_equal(http("POST", "/api/submissions/999999/cancel", "Bearer " TOKEN, NULL,
			      &b), 404);
	assert_int_equal(http("POST", "/api/submissions/1/cancel", NULL, NULL, &b), 401);
	assert_int_equal(http("POST", "/api/runs/0/cancel", "Bearer " TOKEN, NULL, &b), 404);
	/* as its worker would: the queue pages' tests see no run running */
	snprintf(sql, sizeof(sql), "UPDATE runs SET state = 'done', outcome = 'canceled'"
		 " WHERE id = %lld", (long long)run);
	exec_sql(sql);
	buf_release(&b);
}

static void test_cancel_request(void **state)
{
	struct buf b = BUF_INIT(0);
	json_t *req = json_pack("{s:s, s:s, s:s, s:i}", "kernel", fx->kernel, "patched",
				fx->kernel, "command", "sleep 600", "repeat", 3);
	char *body = json_dumps(req, JSON_COMPACT), path[96], err[256];
	int64_t id;
	json_t *j;

	assert_int_equal(http("POST", "/api/requests", "Bearer " TOKEN, body, &b), 201);
	j = parse(&b);
	id = json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	snprintf(path, sizeof(path), "/api/requests/%lld/cancel", (long long)id);
	assert_int_equal(cancel_post(path, &j), 200);
	assert_int_equal(json_integer_value(json_object_get(j, "canceled")), 6);
	json_decref(j);
	assert_int_equal(cancel_post(path, &j), 200);
	assert_int_equal(json_integer_value(json_object_get(j, "already")), 6);
	json_decref(j);
	/* a request whose runs all ended by themselves: 409 */
	assert_int_equal(http("POST", "/api/requests", "Bearer " TOKEN, body, &b), 201);
	j = parse(&b);
	id = json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	snprintf(path, sizeof(path), "UPDATE runs SET state = 'done', outcome = 'failed'"
		 " WHERE request_id = %lld", (long long)id);
	exec_sql(path);
	snprintf(path, sizeof(path), "/api/requests/%lld/cancel", (long long)id);
	assert_int_equal(http("POST", path, "Bearer " TOKEN, NULL, &b), 409);
	error_of(&b, err, sizeof(err));
	assert_non_null(strstr(err, ": nothing to cancel: its 6 runs ended already"));
	json_decref(req);
	free(body);
	buf_release(&b);
}

static void test_cancel_submission(void **state)
{
	struct buf b = BUF_INIT(0);
	char err[256];
	json_t *j;

	exec_sql("INSERT INTO submissions (id, created_at, tree, arches, config, state) VALUES"
		 " (950, 1, 'linux', 'x86_64', 'tinyconfig', 'queued'),"
		 " (951, 1, 'linux', 'x86_64', 'tinyconfig', 'done')");
	assert_int_equal(http("POST", "/api/submissions/950/cancel", NULL, NULL, &b), 401);
	assert_int_equal(cancel_post("/api/submissions/950/cancel", &j), 200);
	assert_true(json_is_true(json_object_get(j, "builds_dropped")));
	json_decref(j);
	assert_int_equal(cancel_post("/api/submissions/950/cancel", &j), 200);
	assert_true(json_is_false(json_object_get(j, "builds_dropped")));
	json_decref(j);
	assert_int_equal(http("GET", "/api/submissions/950", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "state")), "failed");
	assert_string_equal(json_string_value(json_object_get(j, "outcome")), "canceled");
	json_decref(j);
	/* its page says canceled, not failed */
	assert_int_equal(http("GET", "/submissions/950", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "<h1>submission 950 <span class=\"canceled\">canceled"
			       "</span></h1>"));
	/* one that ended by itself */
	assert_int_equal(http("POST", "/api/submissions/951/cancel", "Bearer " TOKEN, NULL, &b),
			 409);
	error_of(&b, err, sizeof(err));
	assert_string_equal(err, "submission 951: nothing to cancel: it is done");
	buf_release(&b);
}

/* ---- jobs ---- */

static void test_jobs_api(void **state)
{
	struct buf b = BUF_INIT(0);
	json_t *j, *jobs, *d, *m;
	char err[256], ct[128];

	assert_int_equal(http_ex("GET", "/api/jobs", NULL, NULL, 0, 0, &b, ct, sizeof(ct)), 200);
	assert_string_equal(ct, "application/json");
	j = parse(&b);
	jobs = json_object_get(j, "jobs");
	assert_int_equal(json_array_size(jobs), 2);
	/* sorted by name, not by file */
	d = json_array_get(jobs, 0);
	assert_string_equal(json_string_value(json_object_get(d, "name")), "churn");
	assert_string_equal(json_string_value(json_object_get(d, "kind")), "stress");
	assert_string_equal(json_string_value(json_object_get(d, "parser")), "metrics");
	assert_string_equal(json_string_value(json_object_get(d, "command")), "churn-a -t 5");
	assert_int_equal(json_array_size(json_object_get(d, "programs")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "programs"), 1)),
			    "churn-b");
	assert_int_equal(json_array_size(json_object_get(d, "config")), 0);
	assert_true(json_is_null(json_object_get(d, "timeout_s")));   /* the daemon's default */
	assert_int_equal(json_integer_value(json_object_get(d, "memory_mb")), 256);
	assert_int_equal(json_integer_value(json_object_get(d, "vcpus")), 2);
	assert_int_equal(json_array_size(json_object_get(d, "metrics")), 2);
	m = json_array_get(json_object_get(d, "metrics"), 0);
	assert_string_equal(json_string_value(json_object_get(m, "name")), "ops");
	assert_string_equal(json_string_value(json_object_get(m, "unit")), "1/s");
	assert_string_equal(json_string_value(json_object_get(m, "better")), "higher");
	assert_true(json_real_value(json_object_get(m, "margin")) == 0.03);
	m = json_array_get(json_object_get(d, "metrics"), 1);
	assert_string_equal(json_string_value(json_object_get(m, "better")), "lower");
	assert_true(json_is_null(json_object_get(m, "margin")));   /* the default */
	assert_non_null(strstr(json_string_value(json_object_get(d, "file")), "/jobs/b.job"));
	d = json_array_get(jobs, 1);
	assert_string_equal(json_string_value(json_object_get(d, "name")), "net-ktap");
	assert_string_equal(json_string_value(json_object_get(d, "description")),
			    "net selftests <i>quick</i> & small");
	assert_int_equal(json_integer_value(json_object_get(d, "timeout_s")), 60);
	assert_true(json_is_null(json_object_get(d, "vcpus")));
	assert_int_equal(json_array_size(json_object_get(d, "config")), 2);
	assert_string_equal(json_string_value(json_array_get(json_object_get(d, "config"), 1)),
			    "CONFIG_INET=y");
	assert_int_equal(json_array_size(json_object_get(d, "metrics")), 0);
	json_decref(j);

	/* one job */
	assert_int_equal(http("GET", "/api/jobs/net-ktap", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "name")), "net-ktap");
	assert_string_equal(json_string_value(json_object_get(j, "parser")), "ktap");
	assert_string_equal(json_string_value(json_object_get(j, "kind")), "selftest");
	json_decref(j);
	assert_int_equal(http("HEAD", "/api/jobs/churn", NULL, NULL, &b), 200);

	/* unknown ones */
	assert_int_equal(http("GET", "/api/jobs/nope", NULL, NULL, &b), 404);
	error_of(&b, err, sizeof(err));
	assert_string_equal(err, "job 'nope': no such job");
	assert_int_equal(http("GET", "/api/jobs/", NULL, NULL, &b), 404);
	assert_int_equal(http("GET", "/api/jobs/churn/x", NULL, NULL, &b), 404);
	assert_int_equal(http("GET", "/api/jobs/%3Cb%3E%ff", NULL, NULL, &b), 404);
	error_of(&b, err, sizeof(err));   /* valid UTF-8 even so */
	assert_int_equal(http("POST", "/api/jobs", NULL, "{}", &b), 405);
	assert_int_equal(http("DELETE", "/api/jobs/churn", NULL, NULL, &b), 405);
	buf_release(&b);
}

static void test_submit_job(void **state)
{
	struct buf b = BUF_INIT(0);
	char body[512], path[64], want[128], err[512];
	json_t *j;
	int64_t id;
	long st;

	/* a job and no command */
	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"job\":\"net-ktap\"}", fx->kernel);
	st = http("POST", "/api/runs", "Bearer " TOKEN, body, &b);
	if (st != 201)
		fail_msg("submit: %ld: %s", st, buf_str(&b));
	j = parse(&b);
	id = json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_string_equal(json_string_value(json_object_get(j, "job")), "net-ktap");
	assert_string_equal(json_string_value(json_object_get(j, "command")), "run-net-tests");
	assert_int_equal(json_integer_value(json_object_get(j, "timeout_s")), 60);  /* the job's */
	json_decref(j);

	/* on the pages: a link to the job */
	snprintf(want, sizeof(want), "<a href=\"/jobs/net-ktap\">net-ktap</a>");
	assert_int_equal(http("GET", "/", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "<th>job</th>"));
	assert_non_null(strstr(buf_str(&b), want));
	assert_non_null(strstr(buf_str(&b), "<span class=\"note\">command</span>"));
	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), want));
	/* no results yet: no such sections */
	assert_null(strstr(buf_str(&b), "<h2>results</h2>"));
	assert_null(strstr(buf_str(&b), "<h2>metrics</h2>"));

	/* both, an unknown job, a job whose programs are not built */
	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"job\":\"net-ktap\","
		 "\"command\":\"true\"}", fx->kernel);
	assert_int_equal(http("POST", "/api/runs", "Bearer " TOKEN, body, &b), 400);
	error_of(&b, err, sizeof(err));
	assert_non_null(strstr(err, "not both"));
	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"job\":\"nope\"}", fx->kernel);
	assert_int_equal(http("POST", "/api/runs", "Bearer " TOKEN, body, &b), 400);
	error_of(&b, err, sizeof(err));
	assert_non_null(strstr(err, "job 'nope': no such job"));
	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"job\":\"churn\"}", fx->kernel);
	assert_int_equal(http("POST", "/api/runs", "Bearer " TOKEN, body, &b), 400);
	error_of(&b, err, sizeof(err));
	assert_non_null(strstr(err, "program 'churn-a' is not built"));
	buf_release(&b);
}

static void test_run_results(void **state)
{
	static const struct result_row res[] = {
		{ (char *)"z/pass1", (char *)"pass", NULL },
		{ (char *)"net/<b>bold</b>", (char *)"fail", (char *)"want 1 & got <2>" },
		{ (char *)"a/pass0", (char *)"pass", NULL },
		{ (char *)"s/skipped", (char *)"skip", (char *)"no device" },
		{ (char *)"m/lost", (char *)"missing", NULL },
		{ (char *)"b/err", (char *)"error", NULL },
	};
	/* expected: did not pass (by path), then skip, then pass (by path) */
	static const char *const order[] = { "b/err", "m/lost", "net/<b>bold</b>", "s/skipped",
					     "a/pass0", "z/pass1" };
	static const struct sample_row smp[] = {
		{ (char *)"ops", (char *)"1/s", 30, 2 },
		{ (char *)"ops", (char *)"1/s", 10, 0 },
		{ (char *)"lat", (char *)"ns", 5.5, 0 },
		{ (char *)"ops", (char *)"1/s", 20, 1 },
	};
	struct buf b = BUF_INIT(0);
	int64_t id = submit("results");
	json_t *j, *r, *rows, *counts, *s;
	const char *page, *failing, *all;
	char path[64];

	store_results(id, res, sizeof(res) / sizeof(res[0]), smp, sizeof(smp) / sizeof(smp[0]));
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	r = json_object_get(j, "results");
	counts = json_object_get(r, "counts");
	assert_int_equal(json_integer_value(json_object_get(counts, "pass")), 2);
	assert_int_equal(json_integer_value(json_object_get(counts, "fail")), 1);
	assert_int_equal(json_integer_value(json_object_get(counts, "skip")), 1);
	assert_int_equal(json_integer_value(json_object_get(counts, "xfail")), 0);
	assert_int_equal(json_integer_value(json_object_get(counts, "error")), 1);
	assert_int_equal(json_integer_value(json_object_get(counts, "timeout")), 0);
	assert_int_equal(json_integer_value(json_object_get(counts, "missing")), 1);
	assert_int_equal(json_object_size(counts), 7);
	assert_true(json_is_false(json_object_get(r, "truncated")));
	rows = json_object_get(r, "rows");
	assert_int_equal(json_array_size(rows), 6);
	for (size_t i = 0; i < 6; i++)
		assert_string_equal(json_string_value(json_object_get(json_array_get(rows, i),
								      "path")), order[i]);
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 2), "status")),
			    "fail");
	assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 2), "detail")),
			    "want 1 & got <2>");
	assert_true(json_is_null(json_object_get(json_array_get(rows, 0), "detail")));
	s = json_object_get(j, "samples");
	assert_int_equal(json_array_size(s), 4);
	assert_true(json_is_false(json_object_get(j, "samples_truncated")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "metric")),
			    "lat");
	assert_string_equal(json_string_value(json_object_get(json_array_get(s, 0), "unit")),
			    "ns");
	assert_true(json_real_value(json_object_get(json_array_get(s, 0), "value")) == 5.5);
	for (int i = 0; i < 3; i++) {
		json_t *e = json_array_get(s, (size_t)i + 1);

		assert_string_equal(json_string_value(json_object_get(e, "metric")), "ops");
		assert_int_equal(json_integer_value(json_object_get(e, "seq")), i);
		assert_true(json_real_value(json_object_get(e, "value")) == 10.0 * (i + 1));
	}
	json_decref(j);

	/* the run page: not passing first, then the counts, all results, metrics */
	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	page = buf_str(&b);
	assert_null(strstr(page, "<b>bold</b>"));
	failing = strstr(page, "<h2>not passing</h2>");
	all = strstr(page, "<summary>all results</summary>");
	assert_non_null(failing);
	assert_non_null(all);
	assert_true(failing < all);
	assert_true(strstr(page, "6 results: ") > failing);
	assert_true(strstr(page, "6 results: ") < all);
	assert_non_null(strstr(page, "<span class=\"pass\">2 pass</span> &middot; "
			       "<span class=\"fail\">1 fail</span>"));
	/* escaped, in both tables */
	failing = strstr(failing, "<tr><td>net/&lt;b&gt;bold&lt;/b&gt;</td><td class=\"fail\">"
			 "fail</td><td>want 1 &amp; got &lt;2&gt;</td></tr>");
	assert_non_null(failing);
	assert_true(failing < all);
	assert_non_null(strstr(all, "net/&lt;b&gt;bold&lt;/b&gt;"));
	/* the passing ones only in all results */
	assert_true(strstr(page, "<td>a/pass0</td>") > all);
	assert_non_null(strstr(page, "<h2>metrics</h2>"));
	assert_non_null(strstr(page, "<tr><td>ops</td><td>1/s</td><td class=\"num\">3</td>"
			       "<td class=\"num\">10</td><td class=\"num\">20</td>"
			       "<td class=\"num\">30</td><td>10, 20, 30</td></tr>"));
	assert_non_null(strstr(page, "<tr><td>lat</td><td>ns</td><td class=\"num\">1</td>"
			       "<td class=\"num\">5.5</td>"));
	buf_release(&b);
}

static void test_run_results_bounded(void **state)
{
	size_t nres = WEB_RESULTS_MAX + 500, nfail = 300, nsmp = WEB_SAMPLES_MAX + 100;
	struct result_row *res = calloc(nres, sizeof(*res));
	struct sample_row *smp = calloc(nsmp, sizeof(*smp));
	char (*names)[16] = calloc(nres, sizeof(*names));
	struct buf b = BUF_INIT(0);
	int64_t id = submit("many results");
	json_t *j, *rows;
	char path[64], want[128];

	assert_non_null(res);
	assert_non_null(smp);
	assert_non_null(names);
	for (size_t i = 0; i < nres; i++) {
		snprintf(names[i], sizeof(names[i]), "t%05zu", i);
		res[i].path = names[i];
		/* the failing ones last, so only the ordering brings them first */
		res[i].status = (char *)(i >= nres - nfail ? "fail" : "pass");
	}
	for (size_t i = 0; i < nsmp; i++) {
		smp[i].metric = (char *)(i % 2 ? "odd" : "even");
		smp[i].value = (double)i;
		smp[i].seq = (int)(i / 2);
	}
	store_results(id, res, nres, smp, nsmp);
	snprintf(path, sizeof(path), "/api/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	rows = json_object_get(json_object_get(j, "results"), "rows");
	assert_int_equal(json_array_size(rows), WEB_RESULTS_MAX);
	assert_true(json_is_true(json_object_get(json_object_get(j, "results"), "truncated")));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(json_object_get(
		j, "results"), "counts"), "pass")), nres - nfail);
	for (size_t i = 0; i < WEB_RESULTS_MAX; i++) {
		const char *st = json_string_value(json_object_get(json_array_get(rows, i),
								   "status"));

		assert_string_equal(st, i < nfail ? "fail" : "pass");
	}
	assert_int_equal(json_array_size(json_object_get(j, "samples")), WEB_SAMPLES_MAX);
	assert_true(json_is_true(json_object_get(j, "samples_truncated")));
	json_decref(j);

	/* the page: WEB_RESULTS_PAGE rows a page, the failing ones first */
	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	snprintf(want, sizeof(want), "showing %d of %zu; the others on the next pages",
		 WEB_RESULTS_PAGE, nfail);
	assert_non_null(strstr(buf_str(&b), want));
	snprintf(want, sizeof(want), "results 1 to %d of %zu, those that did not pass first",
		 WEB_RESULTS_PAGE, nres);
	assert_non_null(strstr(buf_str(&b), want));
	snprintf(want, sizeof(want), "page 1 of %zu &middot; <a href=\"/runs/%lld?page=2#results\">"
		 "next</a> &middot; <a href=\"/runs/%lld?page=%zu#results\">last</a>",
		 (nres + WEB_RESULTS_PAGE - 1) / WEB_RESULTS_PAGE, (long long)id, (long long)id,
		 (nres + WEB_RESULTS_PAGE - 1) / WEB_RESULTS_PAGE);
	assert_non_null(strstr(buf_str(&b), want));
	assert_non_null(strstr(buf_str(&b), "<td>t01200</td>"));      /* the first failing */
	assert_null(strstr(buf_str(&b), "<td>t00000</td>"));          /* a pass: page 2 */
	{
		/* page 2: the last 100 failing, then the first passes; the same
		 * bytes again (a done run's page is kept) */
		struct buf again = BUF_INIT(0);

		snprintf(path, sizeof(path), "/runs/%lld?page=2", (long long)id);
		assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
		assert_non_null(strstr(buf_str(&b), "<td>t01499</td>"));
		assert_non_null(strstr(buf_str(&b), "<td>t00099</td>"));
		assert_null(strstr(buf_str(&b), "<td>t00100</td>"));
		assert_true(strstr(buf_str(&b), "<td>t01499</td>") <
			    strstr(buf_str(&b), "<td>t00000</td>"));
		assert_int_equal(http("GET", path, NULL, NULL, &again), 200);
		assert_int_equal(again.len, b.len);
		assert_memory_equal(buf_str(&again), buf_str(&b), b.len);
		buf_release(&again);
	}
	/* past the last page: the last one; not a number: 400 */
	snprintf(path, sizeof(path), "/runs/%lld?page=99", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "<td>t01199</td>"));
	assert_null(strstr(buf_str(&b), "<td>t01099</td>"));
	snprintf(want, sizeof(want), "results 1401 to %zu of %zu", nres, nres);
	assert_non_null(strstr(buf_str(&b), want));
	snprintf(path, sizeof(path), "/runs/%lld?page=0", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 400);
	snprintf(path, sizeof(path), "/runs/%lld", (long long)id);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	snprintf(want, sizeof(want), "from the first %d samples only", WEB_SAMPLES_MAX);
	assert_non_null(strstr(buf_str(&b), want));
	/* by metric and seq: all 2550 "even" ones (0, 2, ... 5098), then the first 2450
	 * "odd" ones; many values: only their summary */
	assert_non_null(strstr(buf_str(&b), "<tr><td>even</td><td></td><td class=\"num\">2550"
			       "</td><td class=\"num\">0</td><td class=\"num\">2549</td>"
			       "<td class=\"num\">5098</td><td></td></tr>"));
	assert_non_null(strstr(buf_str(&b), "<tr><td>odd</td><td></td><td class=\"num\">2450"
			       "</td><td class=\"num\">1</td><td class=\"num\">2450</td>"
			       "<td class=\"num\">4899</td><td></td></tr>"));
	free(res);
	free(smp);
	free(names);
	buf_release(&b);
}

/* /api/queue and /queue a page at a time; the medians the estimates keep
 * are read again once another run is done */
static void test_queue_pages(void **state)
{
	int64_t id = submit("queue-page-test");
	struct buf b = BUF_INIT(0);
	char sql[512], path[128], want[256];
	long long total, seen = 0, pos = 0;
	json_t *j, *e;
	size_t i;

	/* 230 more of the same kind, queued */
	snprintf(sql, sizeof(sql), "INSERT INTO runs (kernel_id, arch, vcpus, memory_mb, timeout_s,"
		 " command, state, queued_at) WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT"
		 " n + 1 FROM c WHERE n < 230) SELECT kernel_id, arch, vcpus, memory_mb, timeout_s,"
		 " command, 'queued', queued_at FROM runs CROSS JOIN c WHERE id = %lld",
		 (long long)id);
	exec_sql(sql);
	assert_int_equal(http("GET", "/api/queue", NULL, NULL, &b), 200);
	j = parse(&b);
	total = json_integer_value(json_object_get(j, "total"));
	assert_true(total >= 231);
	assert_int_equal(total, json_integer_value(json_object_get(j, "queued")) +
			 json_integer_value(json_object_get(j, "running")));
	assert_int_equal(json_array_size(json_object_get(j, "runs")), WEB_QUEUE_PAGE);
	assert_string_equal(json_string_value(json_object_get(j, "next")),
			    "/api/queue?offset=100&limit=100");
	json_decref(j);
	/* every page in turn: each run once, in the queue's order */
	snprintf(path, sizeof(path), "/api/queue?limit=70");
	for (;;) {
		assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
		j = parse(&b);
		json_array_foreach(json_object_get(j, "runs"), i, e) {
			assert_int_equal(json_integer_value(json_object_get(e, "position")), ++pos);
			seen++;
		}
		if (!json_is_string(json_object_get(j, "next"))) {
			json_decref(j);
			break;
		}
		snprintf(path, sizeof(path), "%s", json_string_value(json_object_get(j, "next")));
		json_decref(j);
	}
	assert_int_equal(seen, total);
	assert_int_equal(http("GET", "/api/queue?limit=0", NULL, NULL, &b), 400);

	/* the page: runs 101 to 200, with the links to the others */
	assert_int_equal(http("GET", "/queue?page=2", NULL, NULL, &b), 200);
	snprintf(want, sizeof(want), "runs 101 to 200 of %lld", total);
	assert_non_null(strstr(buf_str(&b), want));
	snprintf(want, sizeof(want), "<a href=\"/queue?page=1#queue\">first</a> &middot; "
		 "<a href=\"/queue?page=1#queue\">previous</a> &middot; page 2 of %lld",
		 (total + WEB_QUEUE_PAGE - 1) / WEB_QUEUE_PAGE);
	assert_non_null(strstr(buf_str(&b), want));
	assert_int_equal(http("GET", "/queue?page=x", NULL, NULL, &b), 400);

	/* no run of the kind is done: no median; one ends: its time is the
	 * median, not the answer kept before it ended */
	snprintf(path, sizeof(path), "/api/queue?offset=%lld&limit=1", total - 1);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(j, "runs"), 0),
						 "median_ms")));
	json_decref(j);
	snprintf(sql, sizeof(sql), "UPDATE runs SET state = 'done', outcome = 'passed',"
		 " started_at = 1000, ended_at = 5321 WHERE id = %lld", (long long)id);
	exec_sql(sql);
	snprintf(path, sizeof(path), "/api/queue?offset=%lld&limit=1", total - 2);
	assert_int_equal(http("GET", path, NULL, NULL, &b), 200);
	j = parse(&b);
	e = json_array_get(json_object_get(j, "runs"), 0);
	assert_string_equal(json_string_value(json_object_get(e, "state")), "queued");
	assert_int_equal(json_integer_value(json_object_get(e, "median_ms")), 4321);
	assert_int_equal(json_integer_value(json_object_get(e, "median_runs")), 1);
	json_decref(j);
	/* none of them is left to the other tests */
	exec_sql("UPDATE runs SET state = 'done', outcome = 'canceled', ended_at = 6000"
		 " WHERE command = 'queue-page-test' AND state = 'queued'");
	buf_release(&b);
}

/* A route whose answer reads done runs only (the job's noise) is kept
 * until another run is done, not past it */
static void test_kept_until_done(void **state)
{
	int64_t id = submit("kept-until-done");
	struct buf b = BUF_INIT(0);
	char sql[512];
	json_t *j, *cal;

	assert_int_equal(http("GET", "/api/jobs/churn", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_int_equal(json_array_size(json_object_get(j, "calibration")), 0);
	json_decref(j);
	/* a passed run of the job with a sample, done */
	snprintf(sql, sizeof(sql), "UPDATE runs SET job = 'churn', state = 'done',"
		 " outcome = 'passed', started_at = 1000, ended_at = 2000 WHERE id = %lld;"
		 " INSERT INTO samples (run_id, metric, value, unit, seq)"
		 " VALUES (%lld, 'ops', 42, '1/s', 0)", (long long)id, (long long)id);
	exec_sql(sql);
	assert_int_equal(http("GET", "/api/jobs/churn", NULL, NULL, &b), 200);
	j = parse(&b);
	cal = json_object_get(j, "calibration");
	assert_int_equal(json_array_size(cal), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(cal, 0), "metric")),
			    "ops");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(cal, 0), "runs")), 1);
	json_decref(j);
	/* the page too */
	assert_int_equal(http("GET", "/jobs/churn", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "<td>ops</td>"));
	buf_release(&b);
}

/* The build of id in a KCIDB export's JSON, NULL when it has none */
static json_t *export_build(json_t *j, int64_t id)
{
	json_t *v = json_object_get(j, "builds");

	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *b = json_array_get(v, i);

		if (json_integer_value(json_object_get(json_object_get(b, "misc"), "build")) == id)
			return b;
	}
	return NULL;
}

/* The watch pages and the KCIDB export are kept (WEB_ROUTE_STAMPED), but
 * not past a change to what they read: a series that moves on, a check
 * posted, a log line, a build that fails. An export since a time ago is
 * not kept: the same query names a later span a second later. */
static void test_kept_stamped(void **state)
{
	struct buf b = BUF_INIT(0);
	char sql[1024];
	json_t *j, *w = NULL, *bd;
	int64_t t = now_ms();

	exec_sql("INSERT INTO watches (name, source, spec, created_at, position_date)"
		 " VALUES ('kw', 'cli', '{\"patchwork\": \"http://pw\", \"project\": \"p\"}', 1,"
		 " '2026-01-01');"
		 "INSERT INTO watch_series (id, watch, remote_id, msgid, version, name, mbox_url,"
		 "  patches, seen_at, state) VALUES (7001, 'kw', 70, 'kw1', 1, 'kw: first',"
		 "  'u', '[]', 1, 'queued')");
	for (int pass = 0; pass < 2; pass++) {   /* the second from what was kept */
		assert_int_equal(http("GET", "/api/watches", NULL, NULL, &b), 200);
		j = parse(&b);
		for (size_t i = 0; i < json_array_size(json_object_get(j, "watches")); i++)
			if (!strcmp(json_string_value(json_object_get(json_array_get(
				json_object_get(j, "watches"), i), "name")), "kw"))
				w = json_array_get(json_object_get(j, "watches"), i);
		assert_non_null(w);
		assert_string_equal(json_string_value(json_object_get(json_array_get(
			json_object_get(w, "series"), 0), "state")), "queued");
		json_decref(j);
	}
	assert_int_equal(http("GET", "/watches", NULL, NULL, &b), 200);
	assert_null(strstr(buf_str(&b), "7777: success"));
	exec_sql("UPDATE watch_series SET state = 'reported', verdict = 'passed' WHERE id = 7001;"
		 "INSERT INTO watch_checks (series_id, patch_id, state, description, posted_at)"
		 " VALUES (7001, 7777, 'success', 'check posted by kfleet', 2)");
	assert_int_equal(http("GET", "/api/watches", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "\"reported\""));
	assert_non_null(strstr(buf_str(&b), "check posted by kfleet"));
	assert_int_equal(http("GET", "/watches", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "7777: success"));
	exec_sql("INSERT INTO watch_log (watch, at, level, text) VALUES ('kw', 3, 'warn',"
		 " 'a line logged after the page was kept')");
	assert_int_equal(http("GET", "/watches", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "a line logged after the page was kept"));

	/* a submission's build, done, then failed: the export since a date
	 * says valid, then not */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO submissions (id, created_at, tree, arches, config, state, base_commit)"
		 "  VALUES (7002, %lld, 't', 'x86_64', 'tinyconfig', 'building', 'abc');"
		 "INSERT INTO builds (id, key, tree, commit_id, arch, config, config_hash,"
		 "  toolchain, state, dir, started_at, ended_at) VALUES (7003, 'k7003', 't',"
		 "  'abc', 'x86_64', 'tinyconfig', 'h', 'gcc', 'done', '/nonexistent', %lld, %lld);"
		 "INSERT INTO submission_builds VALUES (7002, 'base', 'x86_64', 7003, 0)",
		 (long long)t - 3000, (long long)t - 2000, (long long)t - 1000);
	exec_sql(sql);
	for (int pass = 0; pass < 2; pass++) {
		assert_int_equal(http("GET", "/api/export/kcidb?since=2000-01-01", NULL, NULL, &b),
				 200);
		j = parse(&b);
		assert_non_null(bd = export_build(j, 7003));
		assert_true(json_is_true(json_object_get(bd, "valid")));
		json_decref(j);
	}
	exec_sql("UPDATE builds SET state = 'failed', errors = 'ld: undefined' WHERE id = 7003");
	assert_int_equal(http("GET", "/api/export/kcidb?since=2000-01-01", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_non_null(bd = export_build(j, 7003));
	assert_true(json_is_false(json_object_get(bd, "valid")));
	json_decref(j);

	/* since 3 s ago: the build ended 1 s ago is in it, and 2.5 s later
	 * no longer */
	assert_int_equal(http("GET", "/api/export/kcidb?since=3s", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_non_null(export_build(j, 7003));
	json_decref(j);
	usleep(2500 * 1000);
	assert_int_equal(http("GET", "/api/export/kcidb?since=3s", NULL, NULL, &b), 200);
	j = parse(&b);
	assert_null(export_build(j, 7003));
	json_decref(j);
	buf_release(&b);
}

static void test_jobs_pages(void **state)
{
	struct buf b = BUF_INIT(0);
	const char *page, *churn, *net;
	char ct[128];

	assert_int_equal(http("GET", "/", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "<a href=\"/jobs\">jobs</a>"));

	assert_int_equal(http_ex("GET", "/jobs", NULL, NULL, 0, 0, &b, ct, sizeof(ct)), 200);
	assert_string_equal(ct, "text/html; charset=utf-8");
	page = buf_str(&b);
	churn = strstr(page, "<tr><td><a href=\"/jobs/churn\">churn</a></td><td>stress</td>"
		       "<td>metrics</td><td>churn-a churn-b</td><td>socket filter churn</td></tr>");
	net = strstr(page, "<tr><td><a href=\"/jobs/net-ktap\">net-ktap</a></td>"
		     "<td>selftest</td><td>ktap</td><td></td>"
		     "<td>net selftests &lt;i&gt;quick&lt;/i&gt; &amp; small</td></tr>");
	assert_non_null(churn);
	assert_non_null(net);
	assert_true(churn < net);
	assert_null(strstr(page, "<i>"));

	assert_int_equal(http("GET", "/jobs/churn", NULL, NULL, &b), 200);
	page = buf_str(&b);
	assert_non_null(strstr(page, "<h1>job churn</h1>"));
	assert_non_null(strstr(page, "<pre>churn-a -t 5</pre>"));
	assert_non_null(strstr(page, "<tr><td>ops</td><td>1/s</td><td>higher</td>"
			       "<td>&plusmn;3%</td></tr>"));
	assert_non_null(strstr(page, "<tr><td>lat</td><td>ns</td><td>lower</td>"
			       "<td>&plusmn;2% (default)</td></tr>"));
	assert_non_null(strstr(page, "<tr><th>memory</th><td>256 MiB</td></tr>"));
	assert_non_null(strstr(page, "<tr><th>timeout</th><td>the daemon&#39;s default</td></tr>"));
	assert_int_equal(http("GET", "/jobs/net-ktap", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "CONFIG_NET=y<br>CONFIG_INET=y"));
	assert_non_null(strstr(buf_str(&b), "<tr><th>timeout</th><td>60 s</td></tr>"));
	assert_null(strstr(buf_str(&b), "<i>"));

	assert_int_equal(http("GET", "/jobs/nope", NULL, NULL, &b), 404);
	assert_int_equal(http("GET", "/jobs/%3Cscript%3E", NULL, NULL, &b), 404);
	assert_null(strstr(buf_str(&b), "<script>"));
	assert_int_equal(http("GET", "/jobs/", NULL, NULL, &b), 404);
	assert_int_equal(http("POST", "/jobs", NULL, "x", &b), 405);
	buf_release(&b);
}

/* A server without an orchestrator has no jobs and takes no runs */
/* The queue in the fair queue's order, whom each run is for, and the
 * watched series' times: a watch's run queued before a person's is
 * listed after it; an open series and a finished one with its turnaround */
static void test_queue_fair(void **state)
{
	struct buf b = BUF_INIT(0);
	char *err = NULL, sql[1024];
	struct db *db = db_open(orch_db_path(fx->orch), &err);
	int64_t wrun = 0, mine;
	json_t *j, *runs, *series, *open = NULL, *done = NULL;
	size_t i, at_w = 0, at_me = 0;
	struct run_request req = {
		.kernel_path = fx->kernel, .arch = "x86_64", .vcpus = 1, .memory_mb = 256,
		.timeout_s = 60, .command = "for the watch", .max_attempts = 1, .watch = "net",
		.kernel_sha256 = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc",
	};

	if (!db)
		fail_msg("db_open: %s", err);
	snprintf(sql, sizeof(sql),
		"INSERT INTO submissions (id, created_at, started_at, tree, arches, config, state,"
		"  watch) VALUES (901, %lld, %lld, 't', 'x86_64', 'tinyconfig', 'testing', 'net'),"
		"  (902, 1000, 2000, 't', 'x86_64', 'tinyconfig', 'failed', 'net');"
		"UPDATE submissions SET ended_at = 61000 WHERE id = 902;"
		"INSERT INTO watch_series (watch, remote_id, msgid, version, name, mbox_url, patches,"
		"  seen_at, state, submission_id) VALUES"
		"  ('net', 1, 'm1', 2, 'tcp: <fix>', 'u', '[]', 1, 'queued', 901),"
		"  ('net', 2, 'm2', 1, 'udp: old', 'u', '[]', 1, 'reported', 902);",
		(long long)now_ms() - 5000, (long long)now_ms() - 4000);
	assert_int_equal(sqlite3_exec(db_sqlite(db), sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(db_run_insert(db, &req, &wrun), 0);
	assert_int_equal(db_submission_link_run(db, 901, wrun), 0);
	db_close(db);
	mine = submit("a person's, queued after the watch's");

	assert_int_equal(http("GET", "/api/queue", NULL, NULL, &b), 200);
	j = parse(&b);
	runs = json_object_get(j, "runs");
	for (i = 0; i < json_array_size(runs); i++) {
		json_t *r = json_array_get(runs, i);
		int64_t id = json_integer_value(json_object_get(r, "id"));

		if (id == wrun) {
			at_w = i + 1;
			assert_string_equal(json_string_value(json_object_get(r, "watch")), "net");
		} else if (id == mine) {
			at_me = i + 1;
			assert_true(json_is_null(json_object_get(r, "watch")));
		}
	}
	assert_true(at_w && at_me);
	assert_true(at_me < at_w);   /* people first */
	series = json_object_get(j, "series");
	for (i = 0; i < json_array_size(series); i++) {
		json_t *x = json_array_get(series, i);
		int64_t sub = json_integer_value(json_object_get(x, "submission"));

		if (sub == 901)
			open = x;
		else if (sub == 902)
			done = x;
	}
	assert_non_null(open);
	assert_non_null(done);
	assert_true(json_is_false(json_object_get(open, "finished")));
	assert_string_equal(json_string_value(json_object_get(open, "watch")), "net");
	assert_int_equal(json_integer_value(json_object_get(open, "version")), 2);
	assert_int_equal(json_integer_value(json_object_get(open, "runs")), 1);
	assert_true(json_integer_value(json_object_get(open, "queued_at")) > 0);
	assert_true(json_is_null(json_object_get(open, "finished_at")));
	assert_true(json_is_null(json_object_get(open, "turnaround_ms")));
	/* no finished run of its kind yet: no expected end */
	assert_true(json_is_null(json_object_get(open, "expected_turnaround_ms")));
	assert_true(json_is_true(json_object_get(done, "finished")));
	assert_int_equal(json_integer_value(json_object_get(done, "finished_at")), 61000);
	assert_int_equal(json_integer_value(json_object_get(done, "turnaround_ms")), 60000);
	/* open ones first */
	assert_int_equal(json_integer_value(json_object_get(json_array_get(series, 0),
							    "submission")), 901);
	json_decref(j);

	assert_int_equal(http("GET", "/queue", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "<th>for</th>"));
	assert_non_null(strstr(buf_str(&b), "<td>watch net</td>"));
	assert_non_null(strstr(buf_str(&b), "<td>a person</td>"));
	assert_non_null(strstr(buf_str(&b), "<h2>watched series</h2>"));
	assert_non_null(strstr(buf_str(&b), "tcp: &lt;fix&gt; v2"));
	assert_non_null(strstr(buf_str(&b), "<a href=\"/submissions/902\">902</a> failed"));
	assert_non_null(strstr(buf_str(&b), "1970-01-01 00:01:01"));   /* its finish */
	buf_release(&b);
}

static void test_no_orch(void **state)
{
	struct buf b = BUF_INIT(0);
	struct web_opts o;
	struct web *w;
	char *err = NULL, saved[64], body[512];

	memset(&o, 0, sizeof(o));
	o.listen_addr = "127.0.0.1";
	o.db_path = orch_db_path(fx->orch);
	o.token = TOKEN;
	w = web_start(&o, &err);
	if (!w)
		fail_msg("web_start: %s", err);
	memcpy(saved, fx->base, sizeof(saved));
	snprintf(fx->base, sizeof(fx->base), "http://127.0.0.1:%d", web_port(w));
	assert_int_equal(http("GET", "/api/jobs", NULL, NULL, &b), 200);
	assert_string_equal(buf_str(&b), "{\"jobs\":[]}\n");
	assert_int_equal(http("GET", "/api/jobs/churn", NULL, NULL, &b), 404);
	assert_int_equal(http("GET", "/jobs", NULL, NULL, &b), 200);
	assert_non_null(strstr(buf_str(&b), "no jobs defined"));
	snprintf(body, sizeof(body), "{\"kernel\":\"%s\",\"job\":\"churn\"}", fx->kernel);
	assert_int_equal(http("POST", "/api/runs", "Bearer " TOKEN, body, &b), 503);
	memcpy(fx->base, saved, sizeof(saved));
	web_stop(w);
	buf_release(&b);
}

static void *hammer(void *arg)
{
	static const char *const paths[] = { "/", "/api/runs", "/api/health", "/runs/1",
					     "/api/runs/1" };
	struct buf b = BUF_INIT(0);
	long bad = 0;

	for (int i = 0; i < 25; i++)
		if (http(i % 2 ? "GET" : "HEAD", paths[i % 5], NULL, NULL, &b) != 200)
			bad++;
	buf_release(&b);
	return (void *)bad;
}

static void test_concurrent(void **state)
{
	pthread_t t[6];
	void *bad;

	for (int i = 0; i < 6; i++)
		assert_int_equal(pthread_create(&t[i], NULL, hammer, NULL), 0);
	for (int i = 0; i < 6; i++) {
		assert_int_equal(pthread_join(t[i], &bad), 0);
		assert_int_equal((long)bad, 0);
	}
}

static void test_start_errors(void **state)
{
	struct web_opts o;
	struct web *w;
	char *err = NULL;

	memset(&o, 0, sizeof(o));
	o.listen_addr = "localhost";
	o.db_path = orch_db_path(fx->orch);
	o.token = TOKEN;
	assert_null(web_start(&o, &err));
	assert_non_null(strstr(err, "'localhost'"));
	free(err);

	/* the port is taken */
	o.listen_addr = "127.0.0.1";
	o.port = web_port(fx->web);
	assert_null(web_start(&o, &err));
	assert_non_null(strstr(err, "cannot listen"));
	free(err);

	/* IPv6, when this machine has it */
	o.listen_addr = "::1";
	o.port = 0;
	w = web_start(&o, &err);
	if (!w) {
		free(err);
		skip();
	}
	assert_true(web_port(w) > 0);
	web_stop(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health),
		cmocka_unit_test(test_submit_needs_token),
		cmocka_unit_test(test_submit_and_list),
		cmocka_unit_test(test_submit_numbers),
		cmocka_unit_test(test_bad_queries),
		cmocka_unit_test(test_not_found),
		cmocka_unit_test(test_methods),
		cmocka_unit_test(test_bad_bodies),
		cmocka_unit_test(test_body_too_big),
		cmocka_unit_test(test_status_page),
		cmocka_unit_test(test_html_escaping),
		cmocka_unit_test(test_output_not_utf8),
		cmocka_unit_test(test_output_truncated),
		cmocka_unit_test(test_cancel),
		cmocka_unit_test(test_cancel_request),
		cmocka_unit_test(test_cancel_submission),
		cmocka_unit_test(test_jobs_api),
		cmocka_unit_test(test_submit_job),
		cmocka_unit_test(test_run_results),
		cmocka_unit_test(test_run_results_bounded),
		cmocka_unit_test(test_queue_pages),
		cmocka_unit_test(test_kept_until_done),
		cmocka_unit_test(test_kept_stamped),
		cmocka_unit_test(test_jobs_pages),
		cmocka_unit_test(test_queue_fair),
		cmocka_unit_test(test_no_orch),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_start_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
