// SPDX-License-Identifier: GPL-2.0-only
/* kcidb_test.c: unit tests for export/kcidb.c: kfleet's statuses and
 * outcomes as KCIDB's, times in RFC 3339, origins, test paths, --since
 * values (good and bad), the patchset hash, and an export of a real
 * database (a submission with a series, its two builds, a run with
 * results and a metric) twice: the same ids both times, each object
 * linked to the one above it, --since and a submission narrowing it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "export/kcidb.h"
#include "t/unit/db/dbtest.h"

#include <sqlite3.h>

#define BASE "1111111111111111111111111111111111111111"
#define PATCHED "2222222222222222222222222222222222222222"

static void test_status(void **state)
{
	(void)state;
	assert_string_equal(kcidb_result_status("pass"), "PASS");
	assert_string_equal(kcidb_result_status("fail"), "FAIL");
	assert_string_equal(kcidb_result_status("skip"), "SKIP");
	assert_string_equal(kcidb_result_status("xfail"), "PASS");
	assert_string_equal(kcidb_result_status("error"), "ERROR");
	assert_string_equal(kcidb_result_status("timeout"), "ERROR");
	assert_string_equal(kcidb_result_status("missing"), "MISS");
	assert_null(kcidb_result_status("PASS"));
	assert_null(kcidb_result_status(NULL));
	assert_string_equal(kcidb_run_status("passed"), "PASS");
	assert_string_equal(kcidb_run_status("failed"), "FAIL");
	assert_string_equal(kcidb_run_status("crash"), "FAIL");
	assert_string_equal(kcidb_run_status("no-boot"), "FAIL");
	assert_string_equal(kcidb_run_status("timeout"), "ERROR");
	assert_string_equal(kcidb_run_status("console-flood"), "ERROR");
	assert_string_equal(kcidb_run_status("infra"), "MISS");
	assert_string_equal(kcidb_run_status("skipped"), "SKIP");
	assert_null(kcidb_run_status("canceled"));
}

static void test_time_origin_path(void **state)
{
	struct buf b = BUF_INIT(1024);
	char t[64];

	(void)state;
	assert_int_equal(kcidb_time(1714564800250LL, t, sizeof(t)), 0);
	assert_string_equal(t, "2024-05-01T12:00:00.250+00:00");
	assert_int_equal(kcidb_time(0, t, sizeof(t)), 0);
	assert_string_equal(t, "1970-01-01T00:00:00.000+00:00");
	assert_int_equal(kcidb_time(-1, t, sizeof(t)), -1);
	assert_int_equal(kcidb_time(1714564800250LL, t, 10), -1);

	assert_true(kcidb_origin_ok("kfleet"));
	assert_true(kcidb_origin_ok("my_lab2"));
	assert_false(kcidb_origin_ok(""));
	assert_false(kcidb_origin_ok("KFleet"));
	assert_false(kcidb_origin_ok("k-fleet"));
	assert_false(kcidb_origin_ok("k:fleet"));

	kcidb_job_path(&b, "kselftest-net");
	kcidb_path_append(&b, "net/tcp fastopen v4//x.y");
	assert_string_equal(b.data, "kselftest.net.net.tcp_fastopen_v4.x.y");
	buf_reset(&b);
	kcidb_job_path(&b, NULL);
	assert_string_equal(b.data, "command");
	buf_reset(&b);
	kcidb_job_path(&b, "bpf-test-progs");
	kcidb_path_append(&b, "verifier/\xc3\xa9t\xc3\xa9");
	assert_string_equal(b.data, "bpf-test-progs.verifier.__t__");
	buf_release(&b);
}

static void test_since(void **state)
{
	int64_t ms = 0, now = 1714564800000LL;
	char err[256];

	(void)state;
	assert_int_equal(kcidb_parse_since("2024-05-01", now, &ms, err, sizeof(err)), 0);
	assert_int_equal(ms, 1714521600000LL);
	assert_int_equal(kcidb_parse_since("2024-05-01T12:00:00", now, &ms, err, sizeof(err)), 0);
	assert_int_equal(ms, 1714564800000LL);
	assert_int_equal(kcidb_parse_since("2024-05-01T12:00:00Z", now, &ms, err, sizeof(err)), 0);
	assert_int_equal(ms, 1714564800000LL);
	assert_int_equal(kcidb_parse_since("7d", now, &ms, err, sizeof(err)), 1);
	assert_int_equal(ms, now - 7LL * 86400000);
	assert_int_equal(kcidb_parse_since("30m", now, &ms, err, sizeof(err)), 1);
	assert_int_equal(ms, now - 30LL * 60000);
	static const char *const bad[] = { "garbage", "", "2024-13-01", "2024-05-01T25:00:00",
					   "2024-05-01 junk", "-3d", "d", "1960-01-01", "12" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(kcidb_parse_since(bad[i], now, &ms, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "is not a date"));
	}
	kcidb_parse_since("garbage", now, &ms, err, sizeof(err));
	assert_string_equal(err, "since: 'garbage' is not a date (YYYY-MM-DD[THH:MM:SS], UTC) "
			    "or a time ago (30m, 12h, 7d)");
}

static void test_patchset_hash(void **state)
{
	static const char mbox[] =
		"From 1111 Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 1/2] a\n\ndiff a\n"
		"From 2222 Mon Sep 17 00:00:00 2001\n"
		"Subject: [PATCH 2/2] b\n\ndiff b\n";
	char h[65];

	(void)state;
	/* KCIDB's recipe on the two messages as files, "From " line included:
	 * sha256sum 1.patch 2.patch | cut -c-64 | sha256sum | cut -c-64 */
	assert_int_equal(kcidb_patchset_hash(mbox, strlen(mbox), "{\"patches\": [{\"index\": 1, "
					     "\"line\": 1}, {\"index\": 2, \"line\": 5}]}", h), 1);
	assert_string_equal(h, "7c479c1b6f21e925424dd9b1ba41c5511a6c89ecd78b7289bec28803cd154723");
	/* a line past the end, patches out of order, none, no mbox: no hash */
	assert_int_equal(kcidb_patchset_hash(mbox, strlen(mbox), "{\"patches\": [{\"index\": 1, "
					     "\"line\": 99}]}", h), 0);
	assert_int_equal(kcidb_patchset_hash(mbox, strlen(mbox), "{\"patches\": [{\"index\": 2, "
					     "\"line\": 5}]}", h), 0);
	assert_int_equal(kcidb_patchset_hash(mbox, strlen(mbox), "{\"patches\": []}", h), 0);
	assert_int_equal(kcidb_patchset_hash(mbox, strlen(mbox), "not json", h), 0);
	assert_int_equal(kcidb_patchset_hash(NULL, 0, "{\"patches\": [{\"index\": 1, "
					     "\"line\": 1}]}", h), 0);
}

/* A tree, a submission of a one-patch series, its base and patched
 * builds (done), their kernels, and on the patched one a run (passed,
 * ended at t ms) with three results and a metric of three samples */
static void fill(struct db *db)
{
	static const char sql[] =
		"INSERT INTO trees (id, name, url, branch, state, added_at) VALUES"
		" (1, 'net', 'https://git.example.org/net.git', 'main', 'ready', 1);"
		"INSERT INTO submissions (id, created_at, started_at, tree, series_name,"
		" series_subject, series_json, series_count, base_commit, patched_commit, arches,"
		" config, state) VALUES (1, 1714564800000, 1714564801000, 'net', 'fix', "
		" '[PATCH] net: fix', '{\"cover\": null, \"patches\": [{\"index\": 1, \"line\": 1,"
		" \"message_id\": \"p1@example.org\"}]}', 1, '" BASE "', '" PATCHED "', 'x86_64',"
		" 'tinyconfig', 'done');"
		"INSERT INTO kernels (id, source, path, arch, sha256, created_at) VALUES"
		" (1, 'built', '/k/base', 'x86_64', 'a', 1), (2, 'built', '/k/patched', 'x86_64', 'b', 1);"
		"INSERT INTO builds (id, key, tree, commit_id, arch, config, config_hash, toolchain,"
		" state, dir, kernel_id, started_at, ended_at, ms) VALUES"
		" (1, 'k1', 'net', '" BASE "', 'x86_64', 'tinyconfig', 'h', 'gcc 12', 'done', '/b1', 1,"
		"  1714564802000, 1714564812000, 10000),"
		" (2, 'k2', 'net', '" PATCHED "', 'x86_64', 'tinyconfig', 'h', 'gcc 12', 'done', '/b2', 2,"
		"  1714564802000, 1714564822500, 20500);"
		"INSERT INTO submission_builds VALUES (1, 'base', 'x86_64', 1, 0),"
		" (1, 'patched', 'x86_64', 2, 0);"
		"INSERT INTO hosts (id, name, uri, updated_at) VALUES (1, 'local', 'qemu:///system', 1);"
		"INSERT INTO runs (id, kernel_id, job, arch, vcpus, memory_mb, timeout_s, command,"
		" state, outcome, host_id, accel, queued_at, started_at, ended_at, submission_id)"
		" VALUES (7, 2, 'kselftest-size', 'x86_64', 2, 256, 60, 'x', 'done', 'failed', 1,"
		" 'tcg', 1714564830000, 1714564830000, 1714564840000, 1);"
		"INSERT INTO results (id, run_id, path, status, duration_ms) VALUES"
		" (3, 7, 'size/get_size', 'pass', 12), (4, 7, 'size/other', 'fail', NULL),"
		" (5, 7, 'size/x', 'xfail', 1);"
		"INSERT INTO samples (run_id, metric, value, unit) VALUES (7, 'rate', 3, 'op/s'),"
		" (7, 'rate', 1, 'op/s'), (7, 'rate', 2, 'op/s');"
		/* a run of the submission's request, on the base kernel: infra */
		"INSERT INTO requests (id, created_at, base_kernel_id, patched_kernel_id, repeats,"
		" submission_id) VALUES (1, 1, 1, 2, 1, 1);"
		"INSERT INTO runs (id, kernel_id, request_id, arch, vcpus, memory_mb, timeout_s,"
		" command, state, outcome, queued_at, started_at, ended_at) VALUES (8, 1, 1, 'x86_64',"
		" 1, 256, 60, 'true', 'done', 'infra', 1714564830000, 1714564830000, 1714564835000);";
	char *err = NULL;

	if (sqlite3_exec(db_sqlite(db), sql, NULL, NULL, &err) != SQLITE_OK)
		fail_msg("fill: %s", err);
}

/* The ids of one kind, joined by spaces, into out */
static void ids(json_t *rep, const char *kind, char *out, size_t n)
{
	json_t *o;
	size_t i, len = 0;

	out[0] = '\0';
	json_array_foreach(json_object_get(rep, kind), i, o)
		len += (size_t)snprintf(out + len, n - len, "%s%s", i ? " " : "",
					json_string_value(json_object_get(o, "id")));
}

static json_t *find(json_t *rep, const char *kind, const char *id)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(rep, kind), i, o)
		if (!strcmp(json_string_value(json_object_get(o, "id")), id))
			return o;
	fail_msg("%s '%s' not in the export", kind, id);
	return NULL;
}

/* ids start with the origin, then the database's instance id (fixed here,
 * as a new database makes a random one) */
#define P "lab:feedc0de:"

/* The database of f with its instance id set to feedc0de: written, then
 * read again by a new connection, as kfleetd would see it */
static void fixed_instance(struct dbt *f)
{
	sqlite3 *s;

	db_close(f->db);
	assert_int_equal(sqlite3_open(f->path, &s), SQLITE_OK);
	assert_int_equal(sqlite3_exec(s, "UPDATE meta SET value = 'feedc0de' WHERE key = 'instance'",
				      NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(s);
	f->db = dbt_open(f->path);
	assert_string_equal(db_instance(f->db), "feedc0de");
}

static void test_export(void **state)
{
	struct dbt *f = *state;
	struct kcidb_opts o = { "lab", "http://127.0.0.1:8080", 0, 0 };
	char err[256], a[4096], b[4096];
	json_t *r1, *r2, *t, *num;

	fixed_instance(f);
	fill(f->db);
	r1 = kcidb_export(f->db, &o, err, sizeof(err));
	assert_non_null(r1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(r1, "version"),
							    "major")), 4);
	ids(r1, "checkouts", a, sizeof(a));
	assert_string_equal(a, P "net@" BASE " " P "net@" BASE "+" PATCHED);
	ids(r1, "builds", a, sizeof(a));
	assert_string_equal(a, P "build-1 " P "build-2");
	ids(r1, "tests", a, sizeof(a));
	assert_string_equal(a, P "run-7 " P "run-7-result-3 " P "run-7-result-4 "
			    P "run-7-result-5 " P "run-7-metric-rate " P "run-8");
	t = find(r1, "tests", P "run-8");
	assert_string_equal(json_string_value(json_object_get(t, "build_id")), P "build-1");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "MISS");
	assert_string_equal(json_string_value(json_object_get(t, "path")), "command");

	/* the links: build 2 is the series' checkout's, the tests build 2's */
	assert_string_equal(json_string_value(json_object_get(find(r1, "builds", P "build-2"),
							      "checkout_id")),
			    P "net@" BASE "+" PATCHED);
	assert_string_equal(json_string_value(json_object_get(find(r1, "builds", P "build-1"),
							      "checkout_id")), P "net@" BASE);
	t = find(r1, "checkouts", P "net@" BASE "+" PATCHED);
	assert_string_equal(json_string_value(json_object_get(t, "git_commit_hash")), BASE);
	assert_string_equal(json_string_value(json_object_get(t, "message_id")), "p1@example.org");
	/* the checkout's log is the plain-text one (git am's output), not the page */
	{
		const char *u = json_string_value(json_object_get(t, "log_url"));
		size_t l = u ? strlen(u) : 0;

		assert_non_null(u);
		assert_true(!strncmp(u, "http://127.0.0.1:8080/submissions/", 34));
		assert_true(l > 4 && !strcmp(u + l - 4, "/log"));
	}
	assert_string_equal(json_string_value(json_object_get(t, "start_time")),
			    "2024-05-01T12:00:01.000+00:00");
	assert_true(json_is_true(json_object_get(t, "valid")));
	t = find(r1, "builds", P "build-2");
	assert_true(json_real_value(json_object_get(t, "duration")) == 20.5);
	assert_string_equal(json_string_value(json_object_get(t, "log_url")),
			    "http://127.0.0.1:8080/builds/2/log");
	t = find(r1, "tests", P "run-7");
	assert_string_equal(json_string_value(json_object_get(t, "build_id")), P "build-2");
	assert_string_equal(json_string_value(json_object_get(t, "path")), "kselftest.size");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "FAIL");
	assert_true(json_real_value(json_object_get(t, "duration")) == 10);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
		json_object_get(t, "environment"), "misc"), "host")), "local");
	t = find(r1, "tests", P "run-7-result-4");
	assert_string_equal(json_string_value(json_object_get(t, "path")), "kselftest.size.size.other");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "FAIL");
	assert_null(json_object_get(t, "duration"));
	assert_string_equal(json_string_value(json_object_get(find(r1, "tests", P "run-7-result-5"),
							      "status")), "PASS");
	t = find(r1, "tests", P "run-7-metric-rate");
	num = json_object_get(t, "number");
	assert_true(json_real_value(json_object_get(num, "value")) == 2);   /* the median */
	assert_string_equal(json_string_value(json_object_get(num, "unit")), "op/s");
	assert_string_equal(json_string_value(json_object_get(t, "status")), "DONE");

	/* again: the same report */
	r2 = kcidb_export(f->db, &o, err, sizeof(err));
	assert_non_null(r2);
	assert_true(json_equal(r1, r2));
	json_decref(r2);

	/* since after the builds ended: the runs, and what they hang on */
	o.since_ms = 1714564830000LL;
	r2 = kcidb_export(f->db, &o, err, sizeof(err));
	ids(r2, "builds", b, sizeof(b));
	assert_string_equal(b, P "build-1 " P "build-2");
	json_decref(r2);
	/* since after run 8 ended: run 7 only, on build 2 */
	o.since_ms = 1714564836000LL;
	r2 = kcidb_export(f->db, &o, err, sizeof(err));
	ids(r2, "builds", b, sizeof(b));
	assert_string_equal(b, P "build-2");
	assert_int_equal(json_array_size(json_object_get(r2, "tests")), 5);
	ids(r2, "checkouts", b, sizeof(b));
	assert_string_equal(b, P "net@" BASE " " P "net@" BASE "+" PATCHED);
	json_decref(r2);
	/* since after everything: nothing */
	o.since_ms = 1714564840001LL;
	r2 = kcidb_export(f->db, &o, err, sizeof(err));
	assert_int_equal(json_array_size(json_object_get(r2, "tests")), 0);
	assert_int_equal(json_array_size(json_object_get(r2, "builds")), 0);
	assert_int_equal(json_array_size(json_object_get(r2, "checkouts")), 0);
	json_decref(r2);
	/* another submission's: nothing */
	o.since_ms = 0;
	o.submission_id = 2;
	r2 = kcidb_export(f->db, &o, err, sizeof(err));
	assert_int_equal(json_array_size(json_object_get(r2, "tests")), 0);
	json_decref(r2);
	o.submission_id = 1;
	r2 = kcidb_export(f->db, &o, err, sizeof(err));
	assert_true(json_equal(r1, r2));
	json_decref(r2);
	/* a bad origin */
	o.origin = "Bad Origin";
	assert_null(kcidb_export(f->db, &o, err, sizeof(err)));
	assert_string_equal(err, "origin 'Bad Origin' is not 1 to 64 of a-z 0-9 _");
	json_decref(r1);
}

/* The checkout of the series with this subject in rep */
static json_t *checkout_of(json_t *rep, const char *subject)
{
	json_t *o;
	size_t i;

	json_array_foreach(json_object_get(rep, "checkouts"), i, o)
		if (!strcmp(json_string_value(json_object_get(o, "comment")) ?
			    json_string_value(json_object_get(o, "comment")) : "", subject))
			return o;
	fail_msg("no checkout of '%s'", subject);
	return NULL;
}

static void test_export_canceled(void **state)
{
	/* a series canceled before it was applied, one that did not apply,
	 * each with its base picked; a canceled run of the first */
	static const char sql[] =
		"INSERT INTO trees (id, name, url, branch, state, added_at) VALUES"
		" (1, 'net', 'https://git.example.org/net.git', 'main', 'ready', 1);"
		"INSERT INTO submissions (id, created_at, tree, series_name, series_subject,"
		" series_json, series_count, base_commit, arches, config, state, outcome, detail)"
		" VALUES (3, 1, 'net', 'a', '[PATCH] a', '{\"patches\": []}', 1, '" BASE "',"
		" 'x86_64', 'tinyconfig', 'failed', 'canceled', 'canceled by the user'),"
		" (4, 2, 'net', 'b', '[PATCH] b', '{\"patches\": []}', 1, '" BASE "',"
		" 'x86_64', 'tinyconfig', 'failed', 'does-not-apply', 'patch 1/1: a.c');"
		"INSERT INTO kernels (id, source, path, arch, sha256, created_at) VALUES"
		" (1, 'built', '/k/base', 'x86_64', 'a', 1);"
		"INSERT INTO builds (id, key, tree, commit_id, arch, config, config_hash, toolchain,"
		" state, dir, kernel_id, started_at, ended_at, ms) VALUES (1, 'k1', 'net', '" BASE "',"
		" 'x86_64', 'tinyconfig', 'h', 'gcc 12', 'done', '/b1', 1, 5, 6, 1);"
		"INSERT INTO submission_builds VALUES (3, 'base', 'x86_64', 1, 0);"
		"INSERT INTO runs (id, kernel_id, arch, vcpus, memory_mb, timeout_s, command, state,"
		" outcome, queued_at, ended_at, submission_id) VALUES (9, 1, 'x86_64', 1, 256, 60,"
		" 'true', 'done', 'canceled', 7, 8, 3);";
	struct dbt *f = *state;
	struct kcidb_opts o = { "lab", "http://127.0.0.1:8080", 0, 0 };
	char err[256], *e = NULL;
	json_t *r;

	if (sqlite3_exec(db_sqlite(f->db), sql, NULL, NULL, &e) != SQLITE_OK)
		fail_msg("fill: %s", e);
	r = kcidb_export(f->db, &o, err, sizeof(err));
	assert_non_null(r);
	/* a cancel says nothing of the series: valid is not known */
	assert_null(json_object_get(checkout_of(r, "[PATCH] a"), "valid"));
	assert_true(json_is_false(json_object_get(checkout_of(r, "[PATCH] b"), "valid")));
	/* and a canceled run is no test */
	assert_int_equal(json_array_size(json_object_get(r, "tests")), 0);
	json_decref(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status),
		cmocka_unit_test(test_time_origin_path),
		cmocka_unit_test(test_since),
		cmocka_unit_test(test_patchset_hash),
		cmocka_unit_test_setup_teardown(test_export, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_export_canceled, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
