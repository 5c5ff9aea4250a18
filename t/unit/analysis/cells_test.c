// SPDX-License-Identifier: GPL-2.0-only
/* cells_test.c: unit tests for analysis/cells.c: a run's samples of a
 * metric become one value, its median; values keep the order of their
 * runs per side; cells are told apart and sorted; metrics come by name;
 * the A/A mode alternates a cell's runs; the bounds on cells and metrics;
 * a unit is the first one given; the runs' ids kept beside the values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <cmocka.h>

#include "analysis/cells.h"

static struct cmp_cell h1 = { "x86_64", 2, 1024, "kvm", "h1", NULL, 1, NULL };
static struct cmp_cell h2 = { "x86_64", 2, 1024, "kvm", "h2", NULL, 1, NULL };
static struct cmp_cell arm = { "arm64", 4, 1024, "tcg", "h1", NULL, 1, NULL };

static void test_median_per_run(void **state)
{
	struct cells cs;

	cells_init(&cs, 8, 0);
	assert_int_equal(cells_run(&cs, &h1, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", "1/s", 10), 0);
	assert_int_equal(cells_sample(&cs, "ops", "1/s", 30), 0);
	assert_int_equal(cells_sample(&cs, "ops", "1/s", 20), 0);
	assert_int_equal(cells_sample(&cs, "lat", "ns", 5), 0);
	assert_int_equal(cells_run(&cs, &h1, 1), 1);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 40), 0);
	assert_int_equal(cells_sample(&cs, "ops", "1/s", 42), 0);
	assert_int_equal(cells_run(&cs, &h1, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", "1/s", 7), 0);
	assert_int_equal(cells_end(&cs), 0);

	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.v[0].runs[0], 2);
	assert_int_equal(cs.v[0].runs[1], 1);
	assert_int_equal(cs.v[0].nm, 2);
	/* by name */
	assert_string_equal(cs.v[0].m[0].name, "lat");
	assert_string_equal(cs.v[0].m[0].unit, "ns");
	assert_int_equal(cs.v[0].m[0].n[0], 1);
	assert_int_equal(cs.v[0].m[0].n[1], 0);
	assert_string_equal(cs.v[0].m[1].name, "ops");
	assert_string_equal(cs.v[0].m[1].unit, "1/s");
	/* base: the runs in order, each its median */
	assert_int_equal(cs.v[0].m[1].n[0], 2);
	assert_true(cs.v[0].m[1].v[0][0] == 20);
	assert_true(cs.v[0].m[1].v[0][1] == 7);
	assert_int_equal(cs.v[0].m[1].n[1], 1);
	assert_true(cs.v[0].m[1].v[1][0] == 41);
	cells_release(&cs);
}

/* A fast guest's runs are a cell of their own; a setup not recorded is
 * the default's */
static void test_cells_by_boot(void **state)
{
	struct cmp_cell fast = h1, dflt = h1;
	struct cells cs;

	fast.boot = "fast: qboot pvh loglevel=5 nokaslr tsc=reliable";
	dflt.boot = "default";
	cells_init(&cs, 8, 0);
	assert_int_equal(cells_run(&cs, &fast, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 1), 0);
	assert_int_equal(cells_run(&cs, &h1, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 2), 0);
	assert_int_equal(cells_run(&cs, &dflt, 1), 1);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 3), 0);
	assert_int_equal(cells_end(&cs), 0);
	assert_int_equal(cs.n, 2);
	cells_sort(&cs);
	assert_null(cs.v[0].cell.boot);   /* the default first */
	assert_int_equal(cs.v[0].runs[0], 1);
	assert_int_equal(cs.v[0].runs[1], 1);
	assert_string_equal(cs.v[1].cell.boot, fast.boot);
	assert_int_equal(cs.v[1].runs[0], 1);
	cells_release(&cs);
}

static void test_cells_apart_and_sorted(void **state)
{
	struct cells cs;

	cells_init(&cs, 8, 0);
	assert_int_equal(cells_run(&cs, &h2, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 1), 0);
	assert_int_equal(cells_run(&cs, &h1, 1), 1);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 2), 0);
	assert_int_equal(cells_run(&cs, &arm, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 3), 0);
	assert_int_equal(cells_run(&cs, &h2, 1), 1);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 4), 0);
	assert_int_equal(cells_end(&cs), 0);
	assert_int_equal(cs.n, 3);
	/* first seen order until sorted */
	assert_string_equal(cs.v[0].cell.host, "h2");
	assert_int_equal(cs.v[0].runs[0] + cs.v[0].runs[1], 2);
	cells_sort(&cs);
	assert_string_equal(cs.v[0].cell.arch, "arm64");
	assert_string_equal(cs.v[1].cell.host, "h1");
	assert_string_equal(cs.v[2].cell.host, "h2");
	assert_true(cs.v[2].m[0].v[0][0] == 1);
	assert_true(cs.v[2].m[0].v[1][0] == 4);
	cells_release(&cs);
}

static void test_alternate(void **state)
{
	struct cells cs;
	int want[] = { 0, 1, 0, 1, 0 };

	cells_init(&cs, 8, 0);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(cells_run(&cs, &h1, CELLS_ALTERNATE), want[i]);
		assert_int_equal(cells_sample(&cs, "ops", NULL, i), 0);
	}
	/* another cell counts its own runs */
	assert_int_equal(cells_run(&cs, &h2, CELLS_ALTERNATE), 0);
	assert_int_equal(cells_end(&cs), 0);
	assert_int_equal(cs.v[0].m[0].n[0], 3);
	assert_int_equal(cs.v[0].m[0].n[1], 2);
	assert_true(cs.v[0].m[0].v[1][1] == 3);
	cells_release(&cs);
}

static void test_bounds(void **state)
{
	struct cells cs;

	cells_init(&cs, 1, 2);
	assert_int_equal(cells_run(&cs, &h1, 0), 0);
	assert_int_equal(cells_sample(&cs, "a", NULL, 1), 0);
	assert_int_equal(cells_sample(&cs, "b", NULL, 1), 0);
	assert_int_equal(cells_sample(&cs, "c", NULL, 1), 0);
	/* a third metric does not fit */
	assert_int_equal(cells_end(&cs), -2);
	/* a second cell does not either; its samples are not taken */
	assert_int_equal(cells_run(&cs, &h2, 0), -2);
	assert_int_equal(cells_sample(&cs, "a", NULL, 5), 0);
	assert_int_equal(cells_end(&cs), 0);
	assert_int_equal(cs.n, 1);
	assert_int_equal(cs.v[0].m[0].n[0], 1);
	/* a value that is not finite is refused */
	assert_int_equal(cells_run(&cs, &h1, 1), 1);
	assert_int_equal(cells_sample(&cs, "a", NULL, NAN), 0);
	assert_int_equal(cells_end(&cs), -1);
	cells_release(&cs);
}

static void test_unit_first_given(void **state)
{
	struct cells cs;

	cells_init(&cs, 4, 0);
	assert_int_equal(cells_run(&cs, &h1, 0), 0);
	assert_int_equal(cells_sample(&cs, "ops", NULL, 1), 0);
	assert_int_equal(cells_run(&cs, &h1, 1), 1);
	assert_int_equal(cells_sample(&cs, "ops", "1/s", 1), 0);
	assert_int_equal(cells_run(&cs, &h1, 1), 1);
	assert_int_equal(cells_sample(&cs, "ops", "ops/s", 1), 0);
	assert_int_equal(cells_end(&cs), 0);
	assert_string_equal(cs.v[0].m[0].unit, "1/s");
	cells_release(&cs);
}

/* a run's id stays beside its values, past the first growth of the arrays */
static void test_run_ids(void **state)
{
	struct cells cs;

	(void)state;
	cells_init(&cs, 8, 0);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(cells_run_id(&cs, &h1, i % 2, 100 + i), i % 2);
		assert_int_equal(cells_sample(&cs, "ops", NULL, i), 0);
	}
	assert_int_equal(cells_run(&cs, &h1, 0), 0);   /* no id: 0 */
	assert_int_equal(cells_sample(&cs, "ops", NULL, 99), 0);
	assert_int_equal(cells_end(&cs), 0);
	assert_int_equal(cs.v[0].m[0].n[0], 21);
	assert_int_equal(cs.v[0].m[0].n[1], 20);
	for (size_t k = 0; k < 20; k++) {
		assert_int_equal(cs.v[0].m[0].run[0][k], 100 + 2 * (int)k);
		assert_int_equal(cs.v[0].m[0].run[1][k], 101 + 2 * (int)k);
		assert_true(cs.v[0].m[0].v[1][k] == 2 * (double)k + 1);
	}
	assert_int_equal(cs.v[0].m[0].run[0][20], 0);
	cells_release(&cs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_per_run),
		cmocka_unit_test(test_cells_apart_and_sorted),
		cmocka_unit_test(test_cells_by_boot),
		cmocka_unit_test(test_alternate),
		cmocka_unit_test(test_bounds),
		cmocka_unit_test(test_unit_first_given),
		cmocka_unit_test(test_run_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
