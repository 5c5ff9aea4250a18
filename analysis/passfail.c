// SPDX-License-Identifier: GPL-2.0-only
/* passfail.c: pass/fail per subtest across a request's runs (see
 * passfail.h for the rule). The rows are sorted by path and run through an
 * index, each path's runs get one outcome (absent is missing), the counts
 * per side give the class, and the table is sorted by class, then path.
 * Called by web/request.c for the request page and its JSON. */
#include "analysis/passfail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[PASSFAIL_CLASS_COUNT] = {
	"new failure", "flaky", "still failing", "missing", "fixed", "skip", "pass",
};
static const char *const class_ids[PASSFAIL_CLASS_COUNT] = {
	"new-failure", "flaky", "still-failing", "missing", "fixed", "skip", "pass",
};

const char *passfail_class_name(enum passfail_class c)
{
	return (unsigned)c < PASSFAIL_CLASS_COUNT ? class_names[c] : "?";
}

const char *passfail_class_id(enum passfail_class c)
{
	return (unsigned)c < PASSFAIL_CLASS_COUNT ? class_ids[c] : "?";
}

int passfail_outcome_of(const char *status, enum passfail_outcome *out)
{
	static const struct {
		const char *status;
		enum passfail_outcome o;
	} map[] = {
		{ "pass", PASSFAIL_OUT_PASS }, { "xfail", PASSFAIL_OUT_PASS },
		{ "fail", PASSFAIL_OUT_FAIL }, { "error", PASSFAIL_OUT_FAIL },
		{ "timeout", PASSFAIL_OUT_FAIL }, { "skip", PASSFAIL_OUT_SKIP },
		{ "missing", PASSFAIL_OUT_MISSING },
	};

	for (size_t i = 0; status && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(status, map[i].status)) {
			*out = map[i].o;
			return 0;
		}
	return -1;
}

enum passfail_class passfail_class_of(const int c[PASSFAIL_OUT_COUNT][2])
{
	const int pb = c[PASSFAIL_OUT_PASS][0], pp = c[PASSFAIL_OUT_PASS][1];
	const int fb = c[PASSFAIL_OUT_FAIL][0], fp = c[PASSFAIL_OUT_FAIL][1];

	if (pp >= 1 && fp >= 1)
		return PASSFAIL_FLAKY;
	if (fb == 0 && fp >= 1)
		return PASSFAIL_NEW_FAILURE;
	if (fb >= 1 && pb == 0 && fp == 0 && pp >= 1)
		return PASSFAIL_FIXED;
	if (pb == 0 && fb >= 1 && pp == 0 && fp >= 1)
		return PASSFAIL_STILL_FAILING;
	if (pb >= 1 && fb >= 1)
		return PASSFAIL_FLAKY;
	if (c[PASSFAIL_OUT_MISSING][0] + c[PASSFAIL_OUT_MISSING][1] >= 1)
		return PASSFAIL_MISSING;
	if (c[PASSFAIL_OUT_SKIP][0] + c[PASSFAIL_OUT_SKIP][1] >= 1)
		return PASSFAIL_SKIP;
	return PASSFAIL_PASS;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* qsort_r contexts: the rows, for sorting an index of them */
static int cmp_res(const void *pa, const void *pb, void *ctx)
{
	const struct passfail_result *res = ctx;
	const struct passfail_result *a = &res[*(const size_t *)pa];
	const struct passfail_result *b = &res[*(const size_t *)pb];
	int d = strcmp(a->path, b->path);

	if (d)
		return d;
	return (a->run > b->run) - (a->run < b->run);
}

static int cmp_rows(const void *pa, const void *pb)
{
	const struct passfail_row *a = pa, *b = pb;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return strcmp(a->path, b->path);
}

/* The worse of two outcomes: fail, missing, skip, pass */
static enum passfail_outcome worse(enum passfail_outcome a, enum passfail_outcome b)
{
	static const int rank[PASSFAIL_OUT_COUNT] = {
		[PASSFAIL_OUT_PASS] = 0, [PASSFAIL_OUT_SKIP] = 1,
		[PASSFAIL_OUT_MISSING] = 2, [PASSFAIL_OUT_FAIL] = 3,
	};

	return rank[a] >= rank[b] ? a : b;
}

int passfail_classify(const enum passfail_side *sides, size_t nruns,
		      const struct passfail_result *res, size_t nres,
		      struct passfail_table *t, char *err, size_t errlen)
{
	enum passfail_outcome *seen = NULL;   /* per run, for the current path */
	unsigned char *have = NULL;           /* per run: a row for the current path */
	size_t *idx = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (nruns > PASSFAIL_RUNS_MAX || nres > PASSFAIL_ROWS_MAX) {
		seterr(err, errlen, "more than %d runs or %d results", PASSFAIL_RUNS_MAX,
		       PASSFAIL_ROWS_MAX);
		return -1;
	}
	for (size_t i = 0; i < nruns; i++) {
		if (sides[i] != PASSFAIL_BASE && sides[i] != PASSFAIL_PATCHED) {
			seterr(err, errlen, "run %zu: side %d is neither base nor patched", i,
			       (int)sides[i]);
			return -1;
		}
		t->runs[sides[i]]++;
	}
	if (!t->runs[0] || !t->runs[1]) {
		seterr(err, errlen, "no %s runs", t->runs[0] ? "patched" : "base");
		return -1;
	}
	for (size_t i = 0; i < nres; i++) {
		enum passfail_outcome o;

		if (res[i].run >= nruns) {
			seterr(err, errlen, "result %zu: run %zu is not one of the %zu runs", i,
			       res[i].run, nruns);
			return -1;
		}
		if (!res[i].path || !*res[i].path) {
			seterr(err, errlen, "result %zu: no path", i);
			return -1;
		}
		if (passfail_outcome_of(res[i].status, &o) < 0) {
			seterr(err, errlen, "result %zu: status '%.32s' is not known", i,
			       res[i].status ? res[i].status : "(null)");
			return -1;
		}
	}
	seen = malloc(nruns * sizeof(*seen));
	have = calloc(nruns, 1);
	idx = malloc((nres ? nres : 1) * sizeof(*idx));
	if (!seen || !have || !idx)
		goto nomem;
	for (size_t i = 0; i < nres; i++)
		idx[i] = i;
	qsort_r(idx, nres, sizeof(*idx), cmp_res, (void *)res);

	for (size_t i = 0, j; i < nres; i = j) {
		const char *path = res[idx[i]].path;
		struct passfail_row *row;

		memset(have, 0, nruns);
		for (j = i; j < nres && !strcmp(res[idx[j]].path, path); j++) {
			const struct passfail_result *r = &res[idx[j]];
			enum passfail_outcome o = PASSFAIL_OUT_FAIL;

			passfail_outcome_of(r->status, &o);   /* checked above */
			seen[r->run] = have[r->run] ? worse(seen[r->run], o) : o;
			have[r->run] = 1;
		}
		if (t->n % 256 == 0) {
			struct passfail_row *nv = realloc(t->v, (t->n + 256) * sizeof(*nv));

			if (!nv)
				goto nomem;
			t->v = nv;
		}
		row = &t->v[t->n];
		memset(row, 0, sizeof(*row));
		row->path = strdup(path);
		if (!row->path)
			goto nomem;
		t->n++;
		for (size_t r = 0; r < nruns; r++)
			row->counts[have[r] ? seen[r] : PASSFAIL_OUT_MISSING][sides[r]]++;
		row->cls = passfail_class_of((const int (*)[2])row->counts);
		t->classes[row->cls]++;
	}
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_rows);
	rc = 0;
	goto out;
nomem:
	seterr(err, errlen, "out of memory");
out:
	free(seen);
	free(have);
	free(idx);
	return rc;
}

void passfail_table_release(struct passfail_table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

void passfail_quarantine(struct passfail_table *t, char *const *paths, size_t n)
{
	t->quarantined = 0;
	t->quarantined_fails = 0;
	for (size_t i = 0; i < t->n; i++) {
		struct passfail_row *r = &t->v[i];

		r->quarantined = 0;
		for (size_t k = 0; k < n && !r->quarantined; k++)
			r->quarantined = !strcmp(r->path, paths[k]);
		if (!r->quarantined)
			continue;
		t->quarantined++;
		t->quarantined_fails += (size_t)(r->counts[PASSFAIL_OUT_FAIL][0] +
						 r->counts[PASSFAIL_OUT_FAIL][1]);
	}
}

void passfail_kernel_history(struct passfail_table *t, size_t i, enum passfail_side side,
			     int runs, int fails)
{
	struct passfail_row *r = &t->v[i];

	if (side != PASSFAIL_BASE && side != PASSFAIL_PATCHED)
		return;
	r->kernel_runs[side] = runs;
	r->kernel_fails[side] = fails;
	if (r->cls == PASSFAIL_NEW_FAILURE && fails >= 1 && runs > fails) {
		t->classes[r->cls]--;
		r->cls = PASSFAIL_FLAKY;
		t->classes[r->cls]++;
	}
}

void passfail_table_sort(struct passfail_table *t)
{
	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_rows);
}

void passfail_row_label(const struct passfail_row *r, char *out, size_t len)
{
	const int (*c)[2] = (const int (*)[2])r->counts;
	int flip[2], n[2];
	size_t used;

	for (int s = 0; s < 2; s++) {
		n[s] = c[PASSFAIL_OUT_PASS][s] + c[PASSFAIL_OUT_FAIL][s];
		flip[s] = c[PASSFAIL_OUT_PASS][s] >= 1 && c[PASSFAIL_OUT_FAIL][s] >= 1;
	}
	if (r->cls != PASSFAIL_FLAKY)
		snprintf(out, len, "%s", passfail_class_name(r->cls));
	else if (!flip[0] && !flip[1]) {   /* flaky by a kernel's other runs */
		int s = r->kernel_fails[1] >= 1 && r->kernel_runs[1] > r->kernel_fails[1];

		snprintf(out, len, "flaky (%d of %d failed on the %s kernel)", r->kernel_fails[s],
			 r->kernel_runs[s], s ? "patched" : "base");
	}
	else if (flip[0] && flip[1])
		snprintf(out, len, "flaky (base %d of %d, patched %d of %d failed)",
			 c[PASSFAIL_OUT_FAIL][0], n[0], c[PASSFAIL_OUT_FAIL][1], n[1]);
	else
		snprintf(out, len, "flaky (%d of %d failed)", c[PASSFAIL_OUT_FAIL][flip[1]],
			 n[flip[1]]);
	used = strlen(out);
	if (r->quarantined && used < len)
		snprintf(out + used, len - used, ", quarantined");
}

static json_t *side_json(const struct passfail_row *r, int side)
{
	return json_pack("{s:i, s:i, s:i, s:i}", "pass", r->counts[PASSFAIL_OUT_PASS][side],
			 "fail", r->counts[PASSFAIL_OUT_FAIL][side],
			 "skip", r->counts[PASSFAIL_OUT_SKIP][side],
			 "missing", r->counts[PASSFAIL_OUT_MISSING][side]);
}

json_t *passfail_json(const struct passfail_table *t, size_t max)
{
	json_t *o = NULL, *classes = json_object(), *subs = json_array();
	size_t shown = max && max < t->n ? max : t->n;

	if (!classes || !subs)
		goto fail;
	for (int c = 0; c < PASSFAIL_CLASS_COUNT; c++)
		if (json_object_set_new(classes, class_ids[c],
					json_integer((json_int_t)t->classes[c])) < 0)
			goto fail;
	for (size_t i = 0; i < shown; i++) {
		const struct passfail_row *r = &t->v[i];

		char label[96];

		passfail_row_label(r, label, sizeof(label));
		/* paths come from the database, which keeps them valid UTF-8 */
		if (json_array_append_new(subs, json_pack("{s:s, s:s, s:o, s:o, s:s, s:b}",
			"path", r->path, "class", class_ids[r->cls], "base", side_json(r, 0),
			"patched", side_json(r, 1), "label", label,
			"quarantined", r->quarantined)) < 0)
			goto fail;
	}
	o = json_pack("{s:{s:i, s:i}, s:o, s:o, s:b, s:{s:I, s:I}}", "runs", "base", t->runs[0],
		      "patched", t->runs[1], "classes", classes, "subtests", subs,
		      "truncated", shown < t->n, "quarantined", "tests",
		      (json_int_t)t->quarantined, "failures", (json_int_t)t->quarantined_fails);
	return o;
fail:
	json_decref(classes);
	json_decref(subs);
	return NULL;
}
