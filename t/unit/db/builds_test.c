// SPDX-License-Identifier: GPL-2.0-only
/* builds_test.c: unit tests for db/trees.c, db/submissions.c and
 * db/builds.c: trees (a name once, fetches asked for and recorded),
 * submissions (queued, claimed once, ended), builds by key (started, done
 * with the kernel registered as built, failed, restarted; left building by
 * a dead daemon: failed), the links from a submission to its builds and
 * requests, and recorded applies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/db/dbtest.h"

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"

static void test_trees(void **state)
{
	struct dbt *f = *state;
	struct tree_row t, *v = NULL;
	size_t n = 0;

	assert_int_equal(db_tree_add(f->db, "linux", "/src/linux", NULL), 0);
	assert_int_equal(db_tree_add(f->db, "linux", "/elsewhere", NULL), 1);
	assert_int_equal(db_tree_add(f->db, "bpf-next", "https://example.org/bpf-next.git", "master"), 0);
	assert_int_equal(db_tree_get(f->db, "linux", &t), 1);
	assert_string_equal(t.url, "/src/linux");   /* the second add changed nothing */
	assert_string_equal(t.state, "new");
	assert_null(t.head);
	db_row_release(db_tree_fields, &t, sizeof(t));
	assert_int_equal(db_tree_get(f->db, "nosuch", &t), 0);

	/* both want their first clone, the oldest first */
	assert_int_equal(db_tree_next_fetch(f->db, &t), 1);
	assert_string_equal(t.name, "linux");
	db_row_release(db_tree_fields, &t, sizeof(t));
	assert_int_equal(db_tree_synced(f->db, "linux", C1, NULL), 0);
	assert_int_equal(db_tree_synced(f->db, "bpf-next", NULL, "clone: HTTP 404"), 0);
	assert_int_equal(db_tree_next_fetch(f->db, &t), 0);
	assert_int_equal(db_tree_get(f->db, "bpf-next", &t), 1);
	assert_string_equal(t.state, "error");
	assert_string_equal(t.detail, "clone: HTTP 404");
	db_row_release(db_tree_fields, &t, sizeof(t));

	/* a failed fetch keeps a cloned tree ready at its old head */
	assert_int_equal(db_tree_want_fetch(f->db, "linux"), 1);
	assert_int_equal(db_tree_want_fetch(f->db, "nosuch"), 0);
	assert_int_equal(db_tree_synced(f->db, "linux", NULL, "fetch: timed out"), 0);
	assert_int_equal(db_tree_get(f->db, "linux", &t), 1);
	assert_string_equal(t.state, "ready");
	assert_string_equal(t.head, C1);
	db_row_release(db_tree_fields, &t, sizeof(t));

	assert_int_equal(db_tree_list(f->db, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "bpf-next");
	db_rows_free(db_tree_fields, v, sizeof(*v), n);
}

static void test_submissions(void **state)
{
	struct dbt *f = *state;
	struct submission s, got, *v = NULL;
	size_t n = 0;
	int64_t id1, id2;

	memset(&s, 0, sizeof(s));
	s.tree = "linux";
	s.arches = "x86_64,arm64";
	s.config = "tinyconfig";
	s.series_subject = "[PATCH 0/3] x";
	s.series_count = 3;
	s.jobs = "getpgid-rate";
	s.repeats = 5;
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	id1 = s.id;
	s.series_subject = NULL;
	s.kernel = "/boot/vmlinuz-6.1.0-57-amd64";    /* a kernel built elsewhere */
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	id2 = s.id;
	assert_true(id2 > id1);

	/* claimed oldest first; a building one is claimed again (a restart) */
	assert_int_equal(db_submission_next(f->db, &got), 1);
	assert_int_equal(got.id, id1);
	assert_string_equal(got.state, "building");
	assert_int_equal(got.repeats, 5);
	assert_true(got.started_at > 0);
	db_row_release(db_submission_fields, &got, sizeof(got));
	assert_int_equal(db_submission_set_base(f->db, id1, C1, "head of 'master'"), 0);
	assert_int_equal(db_submission_set_patched(f->db, id1, C2, NULL), 0);
	assert_int_equal(db_submission_end(f->db, id1, "failed", "does-not-apply",
					   "does not apply on 111111111111: patch 2/3, a.c",
					   "Patch failed at 0002"), 0);
	assert_int_equal(db_submission_next(f->db, &got), 1);
	assert_int_equal(got.id, id2);
	assert_string_equal(got.kernel, "/boot/vmlinuz-6.1.0-57-amd64");
	db_row_release(db_submission_fields, &got, sizeof(got));
	assert_int_equal(db_submission_end(f->db, id2, "done", NULL, NULL, NULL), 0);
	assert_int_equal(db_submission_next(f->db, &got), 0);

	assert_int_equal(db_submission_get(f->db, id1, &got), 1);
	assert_null(got.kernel);
	assert_string_equal(got.base_commit, C1);
	assert_string_equal(got.base_why, "head of 'master'");
	assert_string_equal(got.patched_commit, C2);
	assert_string_equal(got.outcome, "does-not-apply");
	assert_string_equal(got.apply_log, "Patch failed at 0002");
	assert_true(got.ended_at > 0);
	db_row_release(db_submission_fields, &got, sizeof(got));
	/* an unknown state is refused by the schema */
	assert_int_equal(db_submission_end(f->db, id2, "bogus", NULL, NULL, NULL), -1);

	assert_int_equal(db_submission_list(f->db, 10, &v, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[0].id, id2);   /* newest first */
	db_rows_free(db_submission_fields, v, sizeof(*v), n);
}

static void test_builds(void **state)
{
	struct dbt *f = *state;
	struct build_row b, got, *v = NULL;
	struct submission s;
	int64_t id, again, *reqs = NULL;
	size_t n = 0;
	char commit[41];

	memset(&b, 0, sizeof(b));
	b.key = "k1";
	b.tree = "linux";
	b.commit_id = C1;
	b.arch = "x86_64";
	b.config = "tinyconfig";
	b.config_hash = "h";
	b.toolchain = "gcc 12";
	b.dir = "/state/builds/k1";
	assert_int_equal(db_build_start(f->db, &b, &id), 0);
	assert_int_equal(db_build_find(f->db, "k1", &got), 1);
	assert_string_equal(got.state, "building");
	assert_null(got.kernel_path);
	db_row_release(db_build_fields, &got, sizeof(got));
	assert_int_equal(db_build_find(f->db, "k2", &got), 0);

	assert_int_equal(db_build_failed(f->db, id, "make: exited with 2", "a.c:1: error: x", 1500), 0);
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	assert_string_equal(got.state, "failed");
	assert_string_equal(got.errors, "a.c:1: error: x");
	assert_int_equal(got.ms, 1500);
	db_row_release(db_build_fields, &got, sizeof(got));

	/* the same key again: the same row, cleared and building */
	assert_int_equal(db_build_start(f->db, &b, &again), 0);
	assert_int_equal(again, id);
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	assert_string_equal(got.state, "building");
	assert_null(got.errors);
	db_row_release(db_build_fields, &got, sizeof(got));
	assert_int_equal(db_build_done(f->db, id, "/state/builds/k1/vmlinuz",
				       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
				       "6.1.192-g111111111111", "CONFIG_X=y (is not set)", 9000, 42), 0);
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	assert_string_equal(got.state, "done");
	assert_string_equal(got.kernel_path, "/state/builds/k1/vmlinuz");
	assert_string_equal(got.release, "6.1.192-g111111111111");
	assert_string_equal(got.dropped, "CONFIG_X=y (is not set)");
	db_row_release(db_build_fields, &got, sizeof(got));
	{
		sqlite3_stmt *st;

		assert_int_equal(sqlite3_prepare_v2(db_sqlite(f->db),
			"SELECT source || ' ' || tree || ' ' || commit_id || ' ' || release || ' ' ||"
			" commit_order FROM kernels", -1, &st, NULL), SQLITE_OK);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		assert_string_equal((const char *)sqlite3_column_text(st, 0),
				    "built linux " C1 " 6.1.192-g111111111111 42");
		sqlite3_finalize(st);
	}

	/* a submission's links */
	memset(&s, 0, sizeof(s));
	s.tree = "linux";
	s.arches = "x86_64";
	s.config = "tinyconfig";
	assert_int_equal(db_submission_insert(f->db, &s), 0);
	assert_int_equal(db_submission_link_build(f->db, s.id, "base", "x86_64", id, 1), 0);
	assert_int_equal(db_submission_link_build(f->db, s.id, "base", "x86_64", id, 0), 0);
	assert_int_equal(db_submission_builds(f->db, s.id, &v, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(v[0].side, "base");
	assert_int_equal(v[0].reused, 0);
	db_rows_free(db_build_fields, v, sizeof(*v), n);
	assert_int_equal(db_submission_link_build(f->db, s.id, "sideways", "x86_64", id, 0), -1);
	assert_int_equal(db_submission_requests(f->db, s.id, &reqs, &n), 0);
	assert_int_equal(n, 0);
	free(reqs);

	/* applies */
	assert_int_equal(db_apply_find(f->db, "linux", C1, "series", commit), 0);
	assert_int_equal(db_apply_record(f->db, "linux", C1, "series", C2), 0);
	assert_int_equal(db_apply_find(f->db, "linux", C1, "series", commit), 1);
	assert_string_equal(commit, C2);
	assert_int_equal(db_apply_find(f->db, "linux", C2, "series", commit), 0);

	/* a daemon died during a build */
	b.key = "k2";
	assert_int_equal(db_build_start(f->db, &b, &again), 0);
	assert_int_equal(db_builds_recover(f->db), 0);
	assert_int_equal(db_build_get(f->db, again, &got), 1);
	assert_string_equal(got.state, "failed");
	assert_non_null(strstr(got.detail, "interrupted"));
	db_row_release(db_build_fields, &got, sizeof(got));
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	assert_string_equal(got.state, "done");    /* finished builds are left alone */
	db_row_release(db_build_fields, &got, sizeof(got));
	assert_int_equal(db_build_list(f->db, 10, &v, &n), 0);
	assert_int_equal(n, 2);
	db_rows_free(db_build_fields, v, sizeof(*v), n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_trees, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_submissions, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_builds, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
