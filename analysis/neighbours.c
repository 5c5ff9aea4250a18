// SPDX-License-Identifier: GPL-2.0-only
/* neighbours.c: the comparisons' warning about neighbours. Each run
 * records what else ran on its host meanwhile (orchestrator/quiet.c, into
 * db/neighbours.c); a base side measured beside kernel builds and a
 * patched side measured alone differ by more than the patch. The web
 * server counts each side's runs here and puts the warning under the
 * table. Pure: no I/O. */
#include "analysis/analysis.h"

#include <math.h>
#include <string.h>

/* Whether a recorded builds list has a build that was not paused */
static int running_build(const char *builds)
{
	const char *p = builds;

	while (p && *p) {
		size_t n;

		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n && !(n > 7 && !strncmp(p + n - 7, ":paused", 7)))
			return 1;
		p += n;
	}
	return 0;
}

void cmp_quiet_count(struct cmp_quiet_side *s, int known, const char *pin, const char *runs,
		     const char *builds)
{
	s->runs++;
	if (!known)
		return;
	s->known++;
	if (running_build(builds))
		s->beside_build++;
	if (runs && runs[strspn(runs, " ")])
		s->beside_run++;
	if (pin && !strcmp(pin, "pinned"))
		s->pinned++;
	if (pin && !strcmp(pin, "overcommitted"))
		s->overcommitted++;
}

static int apart(size_t k0, size_t n0, size_t k1, size_t n1)
{
	return n0 && n1 && fabs((double)k0 / (double)n0 - (double)k1 / (double)n1) >=
			   CMP_QUIET_SHARE - 1e-9;
}

int cmp_quiet_warning(const struct cmp_quiet_side s[2], const char *const names[2],
		      struct buf *b)
{
	static const char *const what[] = { "beside a build", "beside another run", "pinned",
					    "overcommitted" };
	size_t k[2][4];
	int first = 1;

	if (!s[0].known != !s[1].known) {
		int none = s[0].known ? 1 : 0;

		buf_printf(b, "neighbours differ: %s runs have no record of their neighbours "
			   "(an older kfleet), %s %zu of %zu have", names[none], names[!none],
			   s[!none].known, s[!none].runs);
		return 1;
	}
	for (int i = 0; i < 2; i++) {
		k[i][0] = s[i].beside_build;
		k[i][1] = s[i].beside_run;
		k[i][2] = s[i].pinned;
		k[i][3] = s[i].overcommitted;
	}
	for (int m = 0; m < 4; m++) {
		if (!apart(k[0][m], s[0].known, k[1][m], s[1].known))
			continue;
		buf_printf(b, "%s%s %zu of %zu runs %s, %s %zu of %zu", first ?
			   "neighbours differ: " : "; ", names[0], k[0][m], s[0].known, what[m],
			   names[1], k[1][m], s[1].known);
		first = 0;
	}
	return !first;
}
