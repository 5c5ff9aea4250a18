// SPDX-License-Identifier: GPL-2.0-only
/* progress_test.c: unit tests for web/progress.c, a running build's
 * progress: against the count of the newest done build of its arch and
 * config ("expected_from": "previous build"), and for the first one
 * against the estimate its log notes from its .config ("config"), with
 * the text the pages show. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/util.h"
#include "db/db.h"
#include "web/progress.h"
#include "t/unit/db/dbtest.h"

/* A build row of key in f's directory, its log text; started now */
static int64_t build_with_log(struct dbt *f, const char *key, const char *log,
			      struct build_row *b, char **dir)
{
	int64_t id;
	char *path;

	*dir = tu_path(f->dir, key);
	assert_int_equal(mkdir_p(*dir, 0755), 0);
	path = tu_path(*dir, "build.log");
	tu_write_str(path, log);
	free(path);
	memset(b, 0, sizeof(*b));
	b->key = (char *)key;
	b->tree = "linux";
	b->commit_id = "c1";
	b->arch = "x86_64";
	b->config = "tinyconfig";
	b->config_hash = "h";
	b->toolchain = "gcc 12";
	b->dir = *dir;
	assert_int_equal(db_build_start(f->db, b, &id), 0);
	return id;
}

static void test_first_build(void **state)
{
	struct dbt *f = *state;
	struct build_row b, got;
	struct web_progress p;
	struct buf text = BUF_INIT(0);
	char *dir, *dir0;
	json_t *j;
	int64_t id, id0;

	/* the first build of its arch and config: the estimate from its log */
	id = build_with_log(f, "k1", "### kfleet: step olddefconfig\n  HOSTCC  scripts/x\n"
			    "### kfleet: estimate: about 1000 kbuild lines for a build from "
			    "nothing\n### kfleet: step make\n  CC      init/main.o\n", &b, &dir);
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	assert_int_equal(web_build_progress(f->db, &got, &p), 1);
	assert_int_equal(p.objects, 2);
	assert_int_equal(p.expected, 1000);
	assert_string_equal(p.expected_from, "config");
	assert_int_equal(p.eta_ms, -1);         /* 2 of 1000: too few for a pace */
	web_progress_text(&p, &text);
	assert_non_null(strstr(buf_str(&text), "make: 2 of about 1000 objects (0%, estimated "
					       "from its .config)"));
	j = web_build_progress_json(f->db, &got);
	assert_int_equal(json_integer_value(json_object_get(j, "expected")), 1000);
	assert_string_equal(json_string_value(json_object_get(j, "expected_from")), "config");
	json_decref(j);
	db_row_release(db_build_fields, &got, sizeof(got));

	/* a done build of the same arch and config: its count, not the estimate */
	id0 = build_with_log(f, "k0", "  CC a.o\n  CC b.o\n  CC c.o\n  CC d.o\n", &b, &dir0);
	assert_int_equal(db_build_done(f->db, id0, "/x/vmlinuz", DBT_SHA_A, "6.1", NULL, 9000, 1),
			 0);
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	assert_int_equal(web_build_progress(f->db, &got, &p), 1);
	assert_int_equal(p.expected, 4);
	assert_string_equal(p.expected_from, "previous build");
	buf_reset(&text);
	web_progress_text(&p, &text);
	assert_non_null(strstr(buf_str(&text), "make: 2 of about 4 objects (50%),"));
	assert_null(strstr(buf_str(&text), "estimated"));
	db_row_release(db_build_fields, &got, sizeof(got));

	/* no estimate and no earlier build: nothing to compare with */
	free(dir);
	id = build_with_log(f, "k2", "### kfleet: step make\n  CC      init/main.o\n", &b, &dir);
	assert_int_equal(db_build_get(f->db, id, &got), 1);
	free(got.config_hash);
	got.config_hash = strdup("other");
	assert_int_equal(web_build_progress(f->db, &got, &p), 1);
	assert_int_equal(p.expected, 0);
	assert_null(p.expected_from);
	j = web_build_progress_json(f->db, &got);
	assert_true(json_is_null(json_object_get(j, "expected_from")));
	json_decref(j);
	db_row_release(db_build_fields, &got, sizeof(got));
	buf_release(&text);
	free(dir);
	free(dir0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_first_build, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
