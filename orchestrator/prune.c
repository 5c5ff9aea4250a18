// SPDX-License-Identifier: GPL-2.0-only
/* prune.c: which files the storage pass prunes (storage.h), a pure choice
 * over what the pass found: the retention first, then the budget, the
 * large files of the oldest concluded runs before the least recently used
 * shared cache files. The database rows of a run are never a candidate,
 * nor a small file, nor anything a run in flight uses. */
#include "orchestrator/storage.h"

#include <stdlib.h>

#define DAY_MS (86400LL * 1000)

const char *prune_why_name(enum prune_why w)
{
	return w == PRUNE_BUDGET ? "budget" : w == PRUNE_RETENTION ? "retention" : "keep";
}

static int may_prune(const struct prune_policy *p, const struct prune_item *it)
{
	if (it->busy)
		return 0;
	if (!it->run_id)
		return 1;
	return it->ended_at > 0 && (it->rank == 0 || (unsigned long long)it->bytes >= p->large);
}

/* Runs' files first, oldest run first, then its files by rank, bigger
 * first; then cache files, least recently used first */
static int budget_order(const void *a, const void *b)
{
	const struct prune_item *x = a, *y = b;

	if (!x->run_id != !y->run_id)
		return x->run_id ? -1 : 1;
	if (!x->run_id)
		return x->used_at < y->used_at ? -1 : x->used_at > y->used_at;
	if (x->ended_at != y->ended_at)
		return x->ended_at < y->ended_at ? -1 : 1;
	if (x->run_id != y->run_id)
		return x->run_id < y->run_id ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (x->bytes != y->bytes)
		return x->bytes > y->bytes ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

unsigned long long prune_choose(const struct prune_policy *p, unsigned long long usage,
				struct prune_item *v, size_t n)
{
	unsigned long long marked = 0;
	int64_t before = p->keep_days ? p->now - (int64_t)p->keep_days * DAY_MS : 0;

	for (size_t i = 0; i < n; i++) {
		v[i].why = PRUNE_KEEP;
		if (p->keep_days && v[i].run_id && may_prune(p, &v[i]) &&
		    v[i].ended_at < before) {
			v[i].why = PRUNE_RETENTION;
			marked += (unsigned long long)v[i].bytes;
		}
	}
	usage = usage > marked ? usage - marked : 0;
	if (!p->budget || usage <= p->budget)
		return marked;
	qsort(v, n, sizeof(*v), budget_order);
	for (size_t i = 0; i < n && usage > p->budget; i++) {
		if (v[i].why != PRUNE_KEEP || !may_prune(p, &v[i]))
			continue;
		v[i].why = PRUNE_BUDGET;
		marked += (unsigned long long)v[i].bytes;
		usage = usage > (unsigned long long)v[i].bytes ? usage - (unsigned long long)v[i].bytes : 0;
	}
	return marked;
}
