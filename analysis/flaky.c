// SPDX-License-Identifier: GPL-2.0-only
/* flaky.c: flips of a test on the same kernel and the quarantine rule (see
 * flaky.h). orchestrator/flaky.c feeds it each concluded run's tests with
 * their newest runs in the cell; web/ and the CLI show what it counted. */
#include "analysis/flaky.h"

#include <stdio.h>
#include <string.h>

int flaky_verdict_of(const char *status)
{
	static const char *const fails[] = { "fail", "error", "timeout" };
	static const char *const passes[] = { "pass", "xfail" };

	if (!status)
		return -1;
	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++)
		if (!strcmp(status, fails[i]))
			return 1;
	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++)
		if (!strcmp(status, passes[i]))
			return 0;
	return -1;
}

size_t flaky_collapse(const struct flaky_row *rows, size_t n, struct flaky_run *out)
{
	size_t nout = 0;

	for (size_t i = 0, j; i < n; i = j) {
		int failed = 0, none = 0;

		for (j = i; j < n && rows[j].run_id == rows[i].run_id; j++) {
			int v = flaky_verdict_of(rows[j].status);

			if (v == 1)
				failed = 1;
			else if (v < 0)
				none = 1;
		}
		if (!failed && none)
			continue;
		out[nout].run_id = rows[i].run_id;
		out[nout].kernel_id = rows[i].kernel_id;
		out[nout].failed = failed;
		nout++;
	}
	return nout;
}

void flaky_measure(const struct flaky_run *v, size_t n, size_t max, struct flaky_stats *s)
{
	size_t from = max && n > max ? n - max : 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = from; i < n; i++) {
		s->runs++;
		s->fails += v[i].failed != 0;
		/* the run before it on its kernel, also one older than the
		 * window: the flip happened at run i */
		for (size_t k = i; k-- > 0;)
			if (v[k].kernel_id == v[i].kernel_id) {
				s->chances++;
				s->flips += (v[k].failed != 0) != (v[i].failed != 0);
				break;
			}
	}
}

double flaky_rate(const struct flaky_stats *s)
{
	return s->chances ? (double)s->flips / s->chances : 0;
}

enum flaky_action flaky_decide(const struct flaky_run *v, size_t n, int quarantined,
			       struct flaky_stats *s)
{
	struct flaky_stats w, rel;

	flaky_measure(v, n, FLAKY_WINDOW, &w);
	if (s)
		*s = w;
	if (!quarantined)
		return w.flips >= FLAKY_MIN_FLIPS ? FLAKY_QUARANTINE : FLAKY_KEEP;
	if (n < FLAKY_RELEASE_RUNS)
		return FLAKY_KEEP;
	flaky_measure(v, n, FLAKY_RELEASE_RUNS, &rel);
	return rel.flips == 0 ? FLAKY_RELEASE : FLAKY_KEEP;
}

void flaky_reason(const struct flaky_stats *s, char *out, size_t len)
{
	snprintf(out, len, "%d flip%s in the last %d runs on the same kernel (%d of %d failed)",
		 s->flips, s->flips == 1 ? "" : "s", s->runs, s->fails, s->runs);
}

int flaky_path_listed(char *const *paths, size_t n, const char *path)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int d = strcmp(paths[mid], path);

		if (!d)
			return 1;
		if (d < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}
