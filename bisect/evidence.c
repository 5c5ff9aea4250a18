// SPDX-License-Identifier: GPL-2.0-only
/* evidence.c: a bisection step's runs read as the decision rules take
 * them. For a failing job, test or crash, each ended run is the symptom,
 * clean (the symptom could have shown and did not), or "other": it failed
 * for another reason (no boot, another failure, a crash where a test was
 * asked about, infrastructure) and says nothing either way. For a metric,
 * each run that passed and reported the metric gives its mean. */
#include "bisect/bisect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/bisections.h"

static const char *const kind_names[] = { "job", "test", "crash", "metric" };

const char *bisect_kind_name(enum bisect_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

int bisect_kind_parse(const char *s, enum bisect_kind *k)
{
	for (size_t i = 0; s && i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(s, kind_names[i])) {
			*k = (enum bisect_kind)i;
			return 0;
		}
	return -1;
}

static int is(const char *s, const char *want)
{
	return s && !strcmp(s, want);
}

/* A crash run's title, or "" when its report was not kept */
static void run_title(const struct bisection_run *r, char *t, size_t n)
{
	if (crash_title(r->splat, t, n) < 0)
		snprintf(t, n, "%s", "");
}

/* 1 symptom, 0 clean, -1 other (a crash titled otherwise: its title in
 * other_crash when that is still empty) */
static int classify(enum bisect_kind k, const char *signature, const struct bisection_run *r,
		    char *other_crash, size_t n)
{
	char t[CRASH_TITLE_MAX];

	switch (k) {
	case BISECT_KIND_JOB:
		if (is(r->outcome, "failed"))
			return 1;
		return is(r->outcome, "passed") ? 0 : -1;
	case BISECT_KIND_TEST:
		if (is(r->test_status, "fail") || is(r->test_status, "error") ||
		    is(r->test_status, "timeout"))
			return 1;
		/* a pass, or a skip of the job itself, with the test run: clean */
		if (is(r->test_status, "pass") || is(r->test_status, "xfail"))
			return 0;
		return -1;   /* missing or skipped: the test did not say */
	case BISECT_KIND_CRASH:
		if (is(r->outcome, "crash")) {
			if (!signature)
				return 1;
			run_title(r, t, sizeof(t));
			if (crash_title_matches(t, signature))
				return 1;
			if (!*other_crash)
				snprintf(other_crash, n, "%s", *t ? t : "a crash without its report");
			return -1;
		}
		return is(r->outcome, "passed") || is(r->outcome, "failed") ? 0 : -1;
	case BISECT_KIND_METRIC:
		return 0;
	}
	return -1;
}

int bisect_evidence_read(enum bisect_kind k, const char *signature,
			 const struct bisection_run *runs, size_t n, struct bisect_evidence *e)
{
	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < n; i++) {
		const struct bisection_run *r = &runs[i];
		int c;

		if (!r->done) {
			e->pending++;
			continue;
		}
		/* a canceled run was never a measurement */
		if (is(r->outcome, "canceled"))
			continue;
		e->runs++;
		if (k == BISECT_KIND_METRIC) {
			if (!is(r->outcome, "passed") || !r->have_value) {
				e->other++;
				continue;
			}
			if (!e->v && !(e->v = malloc(n * sizeof(*e->v))))
				return -1;
			e->v[e->nv++] = r->value;
			continue;
		}
		c = classify(k, signature, r, e->other_crash, sizeof(e->other_crash));
		e->pf.runs++;
		if (c > 0)
			e->pf.seen++;
		else if (c < 0)
			e->pf.other++;
	}
	return 0;
}

int bisect_crash_signature(const struct bisection_run *runs, size_t n, char *out, size_t len)
{
	char (*t)[CRASH_TITLE_MAX] = calloc(n ? n : 1, sizeof(*t));
	int best = -1, best_count = 0;

	if (!t)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (runs[i].done && is(runs[i].outcome, "crash"))
			run_title(&runs[i], t[i], sizeof(t[i]));
	for (size_t i = 0; i < n; i++) {
		int c = 0;

		if (!*t[i])
			continue;
		for (size_t j = 0; j < n; j++)
			c += !strcmp(t[i], t[j]);
		if (c > best_count) {
			best_count = c;
			best = (int)i;
		}
	}
	if (best >= 0)
		snprintf(out, len, "%s", t[best]);
	free(t);
	return best >= 0 ? 0 : -1;
}

void bisect_evidence_release(struct bisect_evidence *e)
{
	free(e->v);
	memset(e, 0, sizeof(*e));
}

void bisect_evidence_describe(enum bisect_kind k, const struct bisect_evidence *e,
			      struct buf *b)
{
	buf_printf(b, "%d run%s", e->runs, e->runs == 1 ? "" : "s");
	if (k == BISECT_KIND_METRIC) {
		if (e->other)
			buf_printf(b, ", %d without a value", e->other);
	} else {
		buf_printf(b, ": symptom in %d", e->pf.seen);
		if (e->pf.other)
			buf_printf(b, ", %d failed otherwise", e->pf.other);
		if (*e->other_crash)
			buf_printf(b, " (a crash with another signature: %s)", e->other_crash);
	}
	if (e->pending)
		buf_printf(b, " (%d not ended)", e->pending);
}
