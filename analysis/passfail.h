/* SPDX-License-Identifier: GPL-2.0-only */
/* passfail.h: pass/fail per subtest across a request's runs. The web
 * server reads the results rows (run, path, status) of a request's finished
 * runs, says which side each run is on, and this file classes every
 * subtest path by how it went on the base and on the patched kernel. Pure:
 * no I/O, no state; the same rows always give the same table.
 *
 * Usage:
 *   enum passfail_side sides[] = { PASSFAIL_BASE, PASSFAIL_PATCHED, ... };
 *   struct passfail_result res[] = { { 0, "net/tcp", "pass" }, ... };
 *   struct passfail_table t;
 *   if (passfail_classify(sides, nruns, res, nres, &t, err, sizeof(err)) < 0) ...
 *   for (size_t i = 0; i < t.n; i++) t.v[i].path, passfail_class_name(t.v[i].cls) ...
 *   passfail_table_release(&t);
 *
 * Each run gives each path one outcome:
 *   pass     status pass or xfail (an expected failure is not a regression)
 *   fail     status fail, error or timeout
 *   skip     status skip
 *   missing  status missing, or no row for the path in that run (the run
 *            crashed or was cut off before it, or its kernel lacks the test)
 * A run with several rows for one path counts the worst of them, in the
 * order fail, missing, skip, pass. Per side the outcomes are counted; the
 * counts of a side add up to the runs of that side.
 *
 * The class of a path is the first of these that holds (pass_b is the
 * base side's pass count, fail_p the patched side's fail count, ...):
 *   flaky          pass_p >= 1 and fail_p >= 1: it passed and failed on the
 *                  patched kernel (one kernel build, one cell: a request's
 *                  runs share job, arch and vCPUs), so the kernel alone does
 *                  not decide it. Never a new failure: "flaky (k of n
 *                  failed)", whatever base did.
 *   new failure    fail_b == 0 and fail_p >= 1 (so pass_p == 0): it never
 *                  failed on a base run (it passed, was skipped or was not
 *                  there) and failed on every patched run that gave a
 *                  verdict. One such run is enough.
 *   fixed          fail_b >= 1, pass_b == 0, fail_p == 0 and pass_p >= 1: it
 *                  failed on every base run that gave a verdict and passed on
 *                  every patched run that did. Stricter than a new failure on
 *                  purpose: a base that sometimes passes is flaky, not fixed.
 *   still failing  pass_b == 0, fail_b >= 1, pass_p == 0 and fail_p >= 1
 *   flaky          pass_b >= 1 and fail_b >= 1 (the base kernel flipped)
 *   missing        missing_b + missing_p >= 1 (and none of the above)
 *   skip           skip_b + skip_p >= 1 (and none of the above)
 *   pass           everything else: it passed on every run of both sides
 * A failure on one side whose other side never gave a verdict (all skip or
 * missing), e.g. base fail and patched skip, is therefore "skip" or
 * "missing": there is nothing to compare it with.
 */
#ifndef KF_PASSFAIL_H
#define KF_PASSFAIL_H

#include <jansson.h>
#include <stddef.h>

#define PASSFAIL_RUNS_MAX   10000     /* runs one table takes */
#define PASSFAIL_ROWS_MAX   1000000   /* result rows one table takes */

enum passfail_side { PASSFAIL_BASE, PASSFAIL_PATCHED };

/* In the order a table lists them: what needs a look first. */
enum passfail_class {
	PASSFAIL_NEW_FAILURE,
	PASSFAIL_FLAKY,
	PASSFAIL_STILL_FAILING,
	PASSFAIL_MISSING,
	PASSFAIL_FIXED,
	PASSFAIL_SKIP,
	PASSFAIL_PASS,
	PASSFAIL_CLASS_COUNT
};

/* One outcome of one run for one path */
enum passfail_outcome {
	PASSFAIL_OUT_PASS,
	PASSFAIL_OUT_FAIL,
	PASSFAIL_OUT_SKIP,
	PASSFAIL_OUT_MISSING,
	PASSFAIL_OUT_COUNT
};

/* "new failure", "flaky", "still failing", "missing", "fixed", "skip",
 * "pass"; "?" for a bad value */
const char *passfail_class_name(enum passfail_class c);
/* The same with '-' for ' ' ("new-failure"), for CSS classes and JSON */
const char *passfail_class_id(enum passfail_class c);

/* The outcome a results status counts as: 0, or -1 for a status that is
 * none of pass, xfail, fail, error, timeout, skip, missing. */
int passfail_outcome_of(const char *status, enum passfail_outcome *out);

/* The class of one path from its counts, indexed [outcome][side]; the rule
 * above. */
enum passfail_class passfail_class_of(const int counts[PASSFAIL_OUT_COUNT][2]);

/* One results row as read: run is an index into the sides array. Borrowed. */
struct passfail_result {
	size_t run;
	const char *path;
	const char *status;
};

/* One path's line of the table. path is owned by the table. */
struct passfail_row {
	char *path;
	int counts[PASSFAIL_OUT_COUNT][2];   /* [outcome][side] */
	enum passfail_class cls;
	int quarantined;      /* set by passfail_quarantine() */
	int kernel_runs[2];   /* set by passfail_kernel_history(): per side, the
				 kernel's runs in the cell with a verdict, */
	int kernel_fails[2];  /* all of them, and those that failed; 0: not set */
};

struct passfail_table {
	struct passfail_row *v;   /* by class (the enum's order), then path */
	size_t n;
	int runs[2];              /* runs per side */
	size_t classes[PASSFAIL_CLASS_COUNT];   /* paths per class */
	size_t quarantined;       /* paths in quarantine (passfail_quarantine) */
	size_t quarantined_fails; /* their failed results, not counted */
};

/* Classes every path of res[0..nres) over the runs sides[0..nruns).
 * Fills t (release it with passfail_table_release(), also after a
 * failure). 0, or -1 with err set when a side has no runs, a row names a
 * run past nruns, has no path or an unknown status, there are more than
 * PASSFAIL_RUNS_MAX runs or PASSFAIL_ROWS_MAX rows, or memory ran out. */
int passfail_classify(const enum passfail_side *sides, size_t nruns,
		      const struct passfail_result *res, size_t nres,
		      struct passfail_table *t, char *err, size_t errlen);
void passfail_table_release(struct passfail_table *t);

/* Marks the rows whose path is one of paths[0..n) (tests in quarantine in
 * the request's cell, analysis/flaky.h) and counts their failed results
 * into t->quarantined_fails: a request shows them, its verdict does not
 * count them. */
void passfail_quarantine(struct passfail_table *t, char *const *paths, size_t n);

/* What all runs of one side's kernel in the request's cell (this
 * request's and any other's) showed for row i's test: runs with a verdict
 * and those that failed. A new failure whose kernel passed and failed it
 * there (the patched kernel passed it once, or the base kernel failed it
 * once) is flaky, labelled with these counts ("flaky (3 of 7 failed on the
 * patched kernel)"). Sort the table again after the last call
 * (passfail_table_sort); row indexes do not change until then. */
void passfail_kernel_history(struct passfail_table *t, size_t i, enum passfail_side side,
			     int runs, int fails);
/* Sorts the table again, after passfail_kernel_history() */
void passfail_table_sort(struct passfail_table *t);

/* The class as a row shows it: "flaky (2 of 3 failed)" for a flaky row
 * (the patched side's counts; the base side's when only base flipped;
 * "flaky (base 1 of 2, patched 2 of 3 failed)" when both did; the
 * kernel's counts from passfail_kernel_history() when they made it flaky),
 * else the class's name; ", quarantined" appended for a row in
 * quarantine. */
void passfail_row_label(const struct passfail_row *r, char *out, size_t len);

/* {"runs": {"base": N, "patched": N}, "classes": {"new-failure": N, ...},
 * "subtests": [{"path", "class": "new-failure"..., "base": {"pass", "fail",
 * "skip", "missing"}, "patched": {...}, "label": passfail_row_label(),
 * "quarantined": bool}], "quarantined": {"tests": N, "failures": N}}: at
 * most max subtests (0: all), "truncated" says when some were left out. New reference, caller decrefs;
 * NULL when out of memory. */
json_t *passfail_json(const struct passfail_table *t, size_t max);

#endif
