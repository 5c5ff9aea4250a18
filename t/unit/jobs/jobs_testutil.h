/* SPDX-License-Identifier: GPL-2.0-only */
/* jobs_testutil.h: what the parser tests under t/unit/jobs/ share: fixtures
 * from t/data/jobs/, parsing from an exact-size copy (so ASan catches a
 * read past the end), finding rows, the invariants every parse must keep,
 * and a text rendering compared with golden files. Include after
 * t/unit/testutil.h. */
#ifndef KF_JOBS_TESTUTIL_H
#define KF_JOBS_TESTUTIL_H

#include <math.h>

#include "fuzz/jobs_fuzz.h"   /* fuzz_clean: one rule for clean text */
#include "jobs/jobs.h"

/* t/data/jobs/NAME, caller frees */
static inline char *jt_fixture(const char *name, size_t *n)
{
	char *path = tu_path("t/data/jobs", name), *text = tu_slurp(path, n);

	if (!text)
		fail_msg("fixture '%s' missing (run from the source root)", path);
	free(path);
	return text;
}

/* A copy of s[0..n) in a buffer of exactly n bytes; caller frees */
static inline char *jt_exact(const char *s, size_t n)
{
	char *c = malloc(n ? n : 1);

	assert_non_null(c);
	if (n)
		memcpy(c, s, n);
	return c;
}

typedef int (*jt_results_fn)(const char *, size_t, struct job_results *);
typedef int (*jt_samples_fn)(const char *, size_t, struct job_samples *);

static inline void jt_parse_results(jt_results_fn fn, const char *s, size_t n,
				    struct job_results *r, size_t max)
{
	char *c = jt_exact(s, n);

	job_results_init(r, max);
	assert_int_equal(fn(c, n, r), 0);
	free(c);
}

static inline void jt_parse_samples(jt_samples_fn fn, const char *s, size_t n,
				    struct job_samples *x, size_t max)
{
	char *c = jt_exact(s, n);

	job_samples_init(x, max);
	assert_int_equal(fn(c, n, x), 0);
	free(c);
}

/* 1 when s is valid UTF-8 without control characters: the fuzz targets'
 * rule (fuzz/jobs_fuzz.h), without their bound */
static inline int jt_clean_text(const char *s)
{
	return fuzz_clean(s, (size_t)-1);
}

/* What every parse must give: bounded, counted, clean rows; JSON that
 * jansson accepts (it refuses invalid UTF-8) */
static inline void jt_check_results(const struct job_results *r)
{
	size_t count[JOB_STATUS_COUNT] = { 0 };
	json_t *j;

	assert_true(r->n <= r->max);
	assert_true(r->notes.n <= JOB_NOTES_MAX);
	for (size_t i = 0; i < r->n; i++) {
		const struct job_result *x = &r->v[i];

		assert_non_null(x->path);
		assert_true(x->path[0] != '\0');
		assert_true(strlen(x->path) <= JOB_PATH_MAX);
		assert_true(jt_clean_text(x->path));
		assert_true((unsigned)x->status < JOB_STATUS_COUNT);
		if (x->reason) {
			assert_true(x->reason[0] != '\0');
			assert_true(strlen(x->reason) <= JOB_REASON_MAX);
			assert_true(jt_clean_text(x->reason));
		}
		count[x->status]++;
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		assert_int_equal(count[i], r->count[i]);
	for (size_t i = 0; i < r->notes.n; i++)
		assert_true(jt_clean_text(r->notes.v[i].what));
	j = job_results_json(r);
	assert_non_null(j);
	json_decref(j);
}

static inline void jt_check_samples(const struct job_samples *s)
{
	json_t *j;

	assert_true(s->n <= s->max);
	for (size_t i = 0; i < s->n; i++) {
		const struct job_sample *x = &s->v[i];
		size_t n = strlen(x->name);

		assert_true(n >= 1 && n <= JOB_METRIC_MAX);
		for (size_t k = 0; k < n; k++)
			assert_non_null(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_.:/-", x->name[k]));
		assert_true(isfinite(x->value));
		assert_true(x->seq >= 0);
		if (x->unit) {
			assert_true(x->unit[0] && strlen(x->unit) <= JOB_UNIT_MAX);
			assert_true(jt_clean_text(x->unit));
		}
	}
	j = job_samples_json(s);
	assert_non_null(j);
	json_decref(j);
}

/* The row with this path (the first); fails the test when there is none */
static inline const struct job_result *jt_row(const struct job_results *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].path, path))
			return &r->v[i];
	fail_msg("no result '%s'", path);
	return NULL;
}

static inline int jt_has_row(const struct job_results *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].path, path))
			return 1;
	return 0;
}

/* Row path has status st and reason (NULL: none) */
static inline void jt_expect(const struct job_results *r, const char *path,
			     enum job_status st, const char *reason)
{
	const struct job_result *x = jt_row(r, path);

	if (x->status != st)
		fail_msg("'%s' is %s, expected %s", path, job_status_name(x->status),
			 job_status_name(st));
	if (!reason && x->reason)
		fail_msg("'%s' has reason '%s', expected none", path, x->reason);
	if (reason && (!x->reason || strcmp(x->reason, reason)))
		fail_msg("'%s' has reason '%s', expected '%s'", path,
			 x->reason ? x->reason : "(none)", reason);
}

static inline void jt_expect_counts(const struct job_results *r, size_t pass, size_t fail,
				    size_t skip, size_t xfail, size_t error, size_t timeout,
				    size_t missing)
{
	size_t want[JOB_STATUS_COUNT] = { pass, fail, skip, xfail, error, timeout, missing };

	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		if (r->count[i] != want[i])
			fail_msg("%zu %s results, expected %zu", r->count[i],
				 job_status_name((enum job_status)i), want[i]);
}

/* The sample named name with sequence seq; fails when there is none */
static inline const struct job_sample *jt_sample(const struct job_samples *s, const char *name,
						 long seq)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].name, name) && s->v[i].seq == seq)
			return &s->v[i];
	fail_msg("no sample '%s' seq %ld", name, seq);
	return NULL;
}

static inline void jt_expect_sample(const struct job_samples *s, const char *name, long seq,
				    double value, const char *unit)
{
	const struct job_sample *x = jt_sample(s, name, seq);

	if (fabs(x->value - value) > 1e-9 * (fabs(value) > 1 ? fabs(value) : 1))
		fail_msg("'%s' is %.17g, expected %.17g", name, x->value, value);
	if (!unit && x->unit)
		fail_msg("'%s' has unit '%s', expected none", name, x->unit);
	if (unit && (!x->unit || strcmp(x->unit, unit)))
		fail_msg("'%s' has unit '%s', expected '%s'", name, x->unit ? x->unit : "(none)",
			 unit);
}

/* 1 when a note on line says something containing what */
static inline int jt_has_note(const struct job_notes *ns, size_t line, const char *what)
{
	for (size_t i = 0; i < ns->n; i++)
		if (ns->v[i].line == line && strstr(ns->v[i].what, what))
			return 1;
	return 0;
}

/* "status path (reason) @line" per row, then the counts and notes */
static inline char *jt_render_results(const struct job_results *r, size_t *len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	assert_non_null(f);
	for (size_t i = 0; i < r->n; i++) {
		const struct job_result *x = &r->v[i];

		fprintf(f, "%-8s %s", job_status_name(x->status), x->path);
		if (x->reason)
			fprintf(f, "  (%s)", x->reason);
		fprintf(f, "  @%zu\n", x->line);
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		fprintf(f, "%s%s %zu", i ? ", " : "counts: ", job_status_name((enum job_status)i),
			r->count[i]);
	fprintf(f, "%s\n", r->truncated ? " (truncated)" : "");
	for (size_t i = 0; i < r->notes.n; i++)
		fprintf(f, "note %zu: %s\n", r->notes.v[i].line, r->notes.v[i].what);
	fclose(f);
	*len = n;
	return s;
}

static inline char *jt_render_samples(const struct job_samples *x, size_t *len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);

	assert_non_null(f);
	for (size_t i = 0; i < x->n; i++)
		fprintf(f, "%s[%ld] = %.15g%s%s  @%zu\n", x->v[i].name, x->v[i].seq, x->v[i].value,
			x->v[i].unit ? " " : "", x->v[i].unit ? x->v[i].unit : "", x->v[i].line);
	fprintf(f, "%zu samples%s\n", x->n, x->truncated ? " (truncated)" : "");
	for (size_t i = 0; i < x->notes.n; i++)
		fprintf(f, "note %zu: %s\n", x->notes.v[i].line, x->notes.v[i].what);
	fclose(f);
	*len = n;
	return s;
}

/* Compares the parse of fixture IN with golden jobs/OUT */
static inline void jt_golden_results(const struct job_results *r, const char *golden)
{
	char *name = tu_path("jobs", golden), *text;
	size_t n;

	text = jt_render_results(r, &n);
	tu_golden(name, text, n);
	free(text);
	free(name);
}

static inline void jt_golden_samples(const struct job_samples *s, const char *golden)
{
	char *name = tu_path("jobs", golden), *text;
	size_t n;

	text = jt_render_samples(s, &n);
	tu_golden(name, text, n);
	free(text);
	free(name);
}

/* Parses every prefix of the fixture (output cut at any byte, as a crash
 * does) and checks the invariants of each */
static inline void jt_every_prefix_results(jt_results_fn fn, const char *s, size_t n)
{
	for (size_t k = 0; k <= n; k++) {
		struct job_results r;

		jt_parse_results(fn, s, k, &r, 0);
		jt_check_results(&r);
		job_results_release(&r);
	}
}

static inline void jt_every_prefix_samples(jt_samples_fn fn, const char *s, size_t n)
{
	for (size_t k = 0; k <= n; k++) {
		struct job_samples x;

		jt_parse_samples(fn, s, k, &x, 0);
		jt_check_samples(&x);
		job_samples_release(&x);
	}
}

#endif
