// SPDX-License-Identifier: GPL-2.0-only
/* row_test.c: unit tests for db/row.c, the field-table mapper, and the
 * parameter lists of db.c (dbint.h): every field type from a row
 * (text, NULL text, integers, a double, a run state and outcome by name,
 * 'not NULL'), lists bounded with and without truncation, and 0 bound as
 * NULL by DBI_OPT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "t/unit/db/dbtest.h"
#include "db/dbint.h"

struct thing {
	char *name, *none;
	int64_t big;
	int small;
	double x;
	enum run_state state;
	enum run_outcome outcome;
	int has_code;
	int code;
};

#define F(f, t) { #f, offsetof(struct thing, f), DB_FIELD_##t }
static const struct db_field thing_fields[] = {
	F(name, TEXT), F(none, TEXT), F(big, INT), F(small, INT32), F(x, REAL), F(state, STATE),
	F(outcome, OUTCOME), F(has_code, HAS), F(code, INT32), { NULL, 0, 0 },
};

#define THING_SQL "SELECT ?1, NULL, 1099511627776, ?2, 2.5, ?3, ?4, ?5"

static void test_fill_types(void **state)
{
	struct dbt *f = *state;
	struct thing t;

	assert_int_equal(dbi_row_one(dbi_stmt(f->db, THING_SQL, DBI_TEXT("a"), DBI_INT(-7),
					      DBI_TEXT("running"), DBI_TEXT("crash"),
					      DBI_INT(0)), thing_fields, &t, sizeof(t)), 1);
	assert_string_equal(t.name, "a");
	assert_null(t.none);
	assert_int_equal(t.big, 1099511627776LL);
	assert_int_equal(t.small, -7);
	assert_true(t.x == 2.5);
	assert_int_equal(t.state, RUN_RUNNING);
	assert_int_equal(t.outcome, RUN_OUT_CRASH);
	assert_int_equal(t.has_code, 1);
	assert_int_equal(t.code, 0);
	db_row_release(thing_fields, &t, sizeof(t));
	assert_null(t.name);

	/* NULLs and unknown words: none, queued, no code */
	assert_int_equal(dbi_row_one(dbi_stmt(f->db, THING_SQL, DBI_NULL, DBI_INT(1),
					      DBI_TEXT("bogus"), DBI_NULL, DBI_OPT(0)),
				     thing_fields, &t, sizeof(t)), 1);
	assert_null(t.name);
	assert_int_equal(t.state, RUN_QUEUED);
	assert_int_equal(t.outcome, RUN_OUT_NONE);
	assert_int_equal(t.has_code, 0);
	db_row_release(thing_fields, &t, sizeof(t));

	assert_int_equal(dbi_row_one(dbi_stmt(f->db, THING_SQL " WHERE 0", DBI_NULL, DBI_INT(1),
					      DBI_NULL, DBI_NULL, DBI_OPT(3)),
				     thing_fields, &t, sizeof(t)), 0);
	assert_int_equal(dbi_row_one(NULL, thing_fields, &t, sizeof(t)), -1);
	assert_int_equal(dbi_row_one(dbi_prep(f->db, "SELECT nonsense FROM nowhere"),
				     thing_fields, &t, sizeof(t)), -1);
}

static void test_rows(void **state)
{
	struct dbt *f = *state;
	static const char *const sql =
		"WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 5)"
		" SELECT i FROM s ORDER BY i LIMIT ?";
	int64_t *v, ints[2] = { -1, -1 };
	size_t n;
	int trunc = -1;

	assert_int_equal(dbi_rows(dbi_stmt(f->db, sql, DBI_INT(100)), dbi_id_fields,
				  sizeof(*v), 100, &v, &n, &trunc), 0);
	assert_int_equal(n, 5);
	assert_int_equal(trunc, 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], (int64_t)i + 1);
	free(v);
	/* asked for max + 1: the extra row says truncated */
	assert_int_equal(dbi_rows(dbi_stmt(f->db, sql, DBI_INT(4)), dbi_id_fields, sizeof(*v), 3,
				  &v, &n, &trunc), 0);
	assert_int_equal(n, 3);
	assert_int_equal(trunc, 1);
	free(v);
	/* without truncated, max stops the reading */
	assert_int_equal(dbi_rows(dbi_stmt(f->db, sql, DBI_INT(100)), dbi_id_fields,
				  sizeof(*v), 2, &v, &n, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(v[1], 2);
	free(v);
	assert_int_equal(dbi_rows(NULL, dbi_id_fields, sizeof(*v), 2, &v, &n, NULL), -1);
	assert_null(v);
	assert_int_equal(n, 0);

	assert_int_equal(dbi_row_ints(dbi_stmt(f->db, "SELECT ?1 * 2, NULL", DBI_INT(21)), ints,
				      2), 1);
	assert_int_equal(ints[0], 42);
	assert_int_equal(ints[1], 0);
	assert_int_equal(dbi_row_ints(dbi_prep(f->db, "SELECT 1 WHERE 0"), ints, 1), 0);
	assert_int_equal(dbi_row_ints(NULL, ints, 1), -1);
}

static void test_exec_args(void **state)
{
	struct dbt *f = *state;

	assert_int_equal(dbi_step_done(dbi_prep(f->db, "CREATE TABLE t (a, b, c, d)")), 0);
	assert_int_equal(dbi_exec(f->db, "INSERT INTO nowhere VALUES (?)", DBI_INT(1)), -1);
	assert_int_equal(dbi_exec(f->db, "INSERT INTO t VALUES (?, ?, ?, ?)", DBI_OPT(0),
				  DBI_OPT(5), DBI_REAL(0.5), DBI_TEXT(NULL)), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT a IS NULL AND b = 5 AND c = 0.5"
				     " AND d IS NULL FROM t"), 1);
	assert_int_equal(dbi_begin(f->db), 0);
	assert_int_equal(dbi_exec(f->db, "DELETE FROM t WHERE b = ?", DBI_INT(5)), 0);
	dbi_rollback(f->db);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM t"), 1);
	assert_int_equal(dbi_begin(f->db), 0);
	assert_int_equal(dbi_exec(f->db, "DELETE FROM t WHERE b = ?", DBI_INT(5)), 0);
	assert_int_equal(dbi_commit(f->db), 0);
	assert_int_equal(dbt_sql_int(f->db, "SELECT count(*) FROM t"), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, dbt_setup, dbt_teardown)
	const struct CMUnitTest tests[] = {
		T(test_fill_types),
		T(test_rows),
		T(test_exec_args),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
