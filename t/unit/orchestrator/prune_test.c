// SPDX-License-Identifier: GPL-2.0-only
/* prune_test.c: unit tests for the storage pass's choice (orchestrator/
 * prune.c), a pure function of the files found, the usage and the policy:
 * retention by keep_days, the budget taking the oldest concluded runs'
 * files first (by rank within a run) and then the least recently used
 * cache files, and what is never chosen: a running run's files, busy cache
 * files, small files of rank > 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orchestrator/storage.h"
#include "t/unit/testutil.h"

#define DAY (86400LL * 1000)
#define NOW (1000 * DAY)
#define K 1024LL
#define M (1024LL * 1024)

/* A run's file: run, ended days ago (-1: running), rank, bytes; tag in index */
static struct prune_item run_file(int64_t run, int ago, int rank, long long bytes, size_t tag)
{
	struct prune_item it = {
		.run_id = run, .ended_at = ago < 0 ? 0 : NOW - ago * DAY - run,
		.rank = rank, .bytes = bytes, .index = tag,
	};

	return it;
}

static struct prune_item cache_file(int used_ago, long long bytes, int busy, size_t tag)
{
	struct prune_item it = {
		.used_at = NOW - used_ago * DAY, .busy = busy, .bytes = bytes, .index = tag,
	};

	return it;
}

/* The why of the item tagged tag */
static enum prune_why why_of(const struct prune_item *v, size_t n, size_t tag)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].index == tag)
			return v[i].why;
	fail_msg("no item tagged %zu", tag);
	return PRUNE_KEEP;
}

static void test_nothing_without_a_policy(void **state)
{
	struct prune_policy p = { .large = M, .now = NOW };
	struct prune_item v[] = { run_file(1, 400, 0, 90 * M, 0), cache_file(400, M, 0, 1) };

	(void)state;
	assert_int_equal(prune_choose(&p, 1ULL << 40, v, 2), 0);
	assert_int_equal(why_of(v, 2, 0), PRUNE_KEEP);
	assert_int_equal(why_of(v, 2, 1), PRUNE_KEEP);
}

static void test_retention(void **state)
{
	struct prune_policy p = { .large = M, .keep_days = 30, .now = NOW };
	struct prune_item v[] = {
		run_file(1, 31, 0, 90 * M, 0),   /* old initrd copy: any size */
		run_file(1, 31, 4, 2 * M, 1),    /* old big console */
		run_file(1, 31, 4, 64 * K, 2),   /* old small console: kept */
		run_file(2, 29, 0, 90 * M, 3),   /* too young */
		run_file(3, -1, 0, 90 * M, 4),   /* running */
		cache_file(400, 5 * M, 0, 5),    /* caches have no retention */
	};
	unsigned long long got;

	(void)state;
	got = prune_choose(&p, 1ULL << 40, v, 6);
	assert_int_equal(got, 92 * M);
	assert_int_equal(why_of(v, 6, 0), PRUNE_RETENTION);
	assert_int_equal(why_of(v, 6, 1), PRUNE_RETENTION);
	assert_int_equal(why_of(v, 6, 2), PRUNE_KEEP);
	assert_int_equal(why_of(v, 6, 3), PRUNE_KEEP);
	assert_int_equal(why_of(v, 6, 4), PRUNE_KEEP);
	assert_int_equal(why_of(v, 6, 5), PRUNE_KEEP);
}

static void test_budget_oldest_first(void **state)
{
	struct prune_policy p = { .budget = 100 * M, .large = M, .now = NOW };
	struct prune_item v[] = {
		run_file(3, 1, 0, 10 * M, 0),    /* newest run */
		run_file(1, 9, 4, 10 * M, 1),    /* oldest run: console last of its files */
		run_file(1, 9, 0, 10 * M, 2),    /* oldest run: initrd first */
		run_file(2, 5, 1, 10 * M, 3),
		cache_file(1, 10 * M, 0, 4),
	};
	unsigned long long got;

	(void)state;
	/* 125 MiB: 25 to free: runs 1 (both files) and 2's, not 3's nor the cache */
	got = prune_choose(&p, 125 * M, v, 5);
	assert_int_equal(got, 30 * M);
	assert_int_equal(why_of(v, 5, 2), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 5, 1), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 5, 3), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 5, 0), PRUNE_KEEP);
	assert_int_equal(why_of(v, 5, 4), PRUNE_KEEP);
	/* 105 MiB: run 1's initrd copy alone */
	got = prune_choose(&p, 105 * M, v, 5);
	assert_int_equal(got, 10 * M);
	assert_int_equal(why_of(v, 5, 2), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 5, 1), PRUNE_KEEP);
	/* under the budget: nothing */
	assert_int_equal(prune_choose(&p, 100 * M, v, 5), 0);
}

static void test_budget_then_caches_lru(void **state)
{
	struct prune_policy p = { .budget = 10 * M, .large = M, .now = NOW };
	struct prune_item v[] = {
		run_file(1, 2, 4, 512 * K, 0),   /* small: never */
		run_file(2, -1, 0, 50 * M, 1),   /* running: never */
		cache_file(1, 4 * M, 0, 2),
		cache_file(7, 4 * M, 0, 3),      /* least recently used */
		cache_file(9, 40 * M, 1, 4),     /* held by a run: never */
		run_file(3, 3, 3, 3 * M, 5),
	};
	unsigned long long got;

	(void)state;
	/* 20 MiB: run 3's output, then the LRU cache file, then the next */
	got = prune_choose(&p, 20 * M, v, 6);
	assert_int_equal(got, 11 * M);
	assert_int_equal(why_of(v, 6, 5), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 6, 3), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 6, 2), PRUNE_BUDGET);
	assert_int_equal(why_of(v, 6, 0), PRUNE_KEEP);
	assert_int_equal(why_of(v, 6, 1), PRUNE_KEEP);
	assert_int_equal(why_of(v, 6, 4), PRUNE_KEEP);
	/* far over: still only what may go */
	got = prune_choose(&p, 1ULL << 40, v, 6);
	assert_int_equal(got, 11 * M);
}

static void test_retention_counts_for_the_budget(void **state)
{
	struct prune_policy p = { .budget = 100 * M, .large = M, .keep_days = 10, .now = NOW };
	struct prune_item v[] = {
		run_file(1, 20, 0, 30 * M, 0),
		run_file(2, 2, 0, 30 * M, 1),
	};

	(void)state;
	/* 120 MiB less the 30 the retention takes: under the budget */
	assert_int_equal(prune_choose(&p, 120 * M, v, 2), 30 * M);
	assert_int_equal(why_of(v, 2, 0), PRUNE_RETENTION);
	assert_int_equal(why_of(v, 2, 1), PRUNE_KEEP);
	assert_string_equal(prune_why_name(PRUNE_RETENTION), "retention");
	assert_string_equal(prune_why_name(PRUNE_BUDGET), "budget");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_without_a_policy),
		cmocka_unit_test(test_retention),
		cmocka_unit_test(test_budget_oldest_first),
		cmocka_unit_test(test_budget_then_caches_lru),
		cmocka_unit_test(test_retention_counts_for_the_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
