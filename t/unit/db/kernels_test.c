// SPDX-License-Identifier: GPL-2.0-only
/* kernels_test.c: unit tests for db/kernels.c: a kernel imported once per
 * path and content, and its label: a file's name, or for a kernel kfleet
 * built its release, tree and short commit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/db/dbtest.h"

static void test_label(void **state)
{
	struct dbt *f = *state;
	struct build_row b = {
		.key = "k1", .tree = "linux", .commit_id = "c0a315baf86312345678",
		.arch = "x86_64", .config = "tinyconfig", .config_hash = "h", .toolchain = "gcc",
		.dir = "/b",
	};
	int64_t id, id2, bid;
	char *label = NULL, want[128];

	assert_int_equal(db_kernel_import(f->db, "/boot/vmlinuz-6.1.0-57-amd64", "x86_64",
					  DBT_SHA_A, &id), 0);
	assert_int_equal(db_kernel_import(f->db, "/boot/vmlinuz-6.1.0-57-amd64", "x86_64",
					  DBT_SHA_A, &id2), 0);
	assert_int_equal(id2, id);
	assert_int_equal(db_kernel_label(f->db, id, "", &label), 1);
	snprintf(want, sizeof(want), "kernel %lld (vmlinuz-6.1.0-57-amd64)", (long long)id);
	assert_string_equal(label, want);
	free(label);

	assert_int_equal(db_build_start(f->db, &b, &bid), 0);
	assert_int_equal(db_build_done(f->db, bid, "/b/bzImage", DBT_SHA_B,
				       "6.1.192-00003-gc0a315baf863", NULL, 5, 7), 0);
	id2 = dbt_sql_int(f->db, "SELECT kernel_id FROM builds");
	assert_int_equal(db_kernel_label(f->db, id2, " (base)", &label), 1);
	snprintf(want, sizeof(want), "kernel %lld (6.1.192-00003-gc0a315baf863, linux"
		 " c0a315baf863) (base)", (long long)id2);
	assert_string_equal(label, want);
	free(label);

	label = (char *)1;
	assert_int_equal(db_kernel_label(f->db, id2 + 10, "", &label), 0);
	assert_null(label);
}

static void test_kernel_import_dedup(void **state)
{
	struct dbt *f = *state;
	int64_t a = 0, a2 = 0, b = 0, c = 0;

	assert_int_equal(db_kernel_import(f->db, "/k/bzImage", "x86_64", DBT_SHA_A, &a), 0);
	assert_true(a > 0);
	assert_int_equal(db_kernel_import(f->db, "/k/bzImage", "x86_64", DBT_SHA_A, &a2), 0);
	assert_int_equal(a2, a);
	/* same path, new contents: a new kernel */
	assert_int_equal(db_kernel_import(f->db, "/k/bzImage", "x86_64", DBT_SHA_B, &b), 0);
	assert_int_not_equal(b, a);
	/* same contents elsewhere: also a new kernel */
	assert_int_equal(db_kernel_import(f->db, "/k/other", "x86_64", DBT_SHA_A, &c), 0);
	assert_int_not_equal(c, a);
	assert_int_not_equal(c, b);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM kernels"), 3);
	/* runs on the same kernel share its row */
	{
		int64_t r1 = dbt_insert_run(f->db, "true", 2), r2 = dbt_insert_run(f->db, "false", 2);
		struct run x, y;

		dbt_get(f->db, r1, &x);
		dbt_get(f->db, r2, &y);
		assert_int_equal(x.kernel_id, y.kernel_id);
		assert_string_equal(x.kernel_path, "/boot/vmlinuz-6.1.0-test");
		run_release(&x);
		run_release(&y);
		assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM kernels"), 4);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kernel_import_dedup, dbt_setup, dbt_teardown),
		cmocka_unit_test_setup_teardown(test_label, dbt_setup, dbt_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
