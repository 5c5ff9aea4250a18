// SPDX-License-Identifier: GPL-2.0-only
/* report.c: a bisection as JSON (for /api/bisections/ID, the page and the
 * CLI) and as the plain report a developer pastes into a mail: the first
 * bad commit with its subject and author, a line of evidence per step, the
 * culprit's parent and its revert check, and `git bisect log`. */
#include "bisect/bisectint.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "db/db.h"

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* The metric's median over the step's runs that gave it, NAN when none */
static double step_median(struct db *db, const struct bisection *b,
			  const struct bisection_step *st, int *runs)
{
	struct bisection_run *r = NULL;
	struct bisect_evidence e;
	struct stats_summary sum;
	enum bisect_kind k;
	size_t n = 0;
	double m = NAN;

	*runs = 0;
	if (bisect_kind_parse(b->kind, &k) < 0 ||
	    db_bisection_step_runs(db, st->id, k == BISECT_KIND_TEST ? b->target : NULL,
				   k == BISECT_KIND_METRIC ? b->target : NULL, &r, &n) < 0)
		return NAN;
	if (bisect_evidence_read(k, k == BISECT_KIND_CRASH ? b->target : NULL, r, n, &e) == 0) {
		*runs = e.runs;
		if (e.nv && stats_summarize(e.v, e.nv, &sum) == 0)
			m = sum.median;
		bisect_evidence_release(&e);
	}
	db_bisection_runs_free(r, n);
	return m;
}

static json_t *step_json(struct db *db, const struct bisection *b,
			 const struct bisection_step *st)
{
	json_t *j = json_object(), *subs = json_array();
	struct bisection_sub *s = NULL;
	size_t ns = 0;
	int runs;
	double med = step_median(db, b, st, &runs);

	if (db_bisection_step_subs(db, st->id, &s, &ns) == 0) {
		for (size_t i = 0; i < ns; i++)
			json_array_append_new(subs, json_integer(s[i].submission_id));
		db_bisection_subs_free(s, ns);
	}
	json_object_set_new(j, "n", json_integer(st->n));
	json_object_set_new(j, "commit", json_string(st->commit_id));
	json_object_set_new(j, "subject", str_or_null(st->subject));
	json_object_set_new(j, "author", str_or_null(st->author));
	json_object_set_new(j, "role", json_string(st->role));
	json_object_set_new(j, "answer", str_or_null(st->answer));
	json_object_set_new(j, "why", str_or_null(st->why));
	json_object_set_new(j, "error", real_or_null(st->error));
	json_object_set_new(j, "commits_left", st->commits_left >= 0 ?
			    json_integer(st->commits_left) : json_null());
	json_object_set_new(j, "order", st->commit_order >= 0 ? json_integer(st->commit_order) :
			    json_null());
	json_object_set_new(j, "runs", json_integer(runs));
	json_object_set_new(j, "median", real_or_null(med));
	json_object_set_new(j, "submissions", subs);
	json_object_set_new(j, "created_at", json_integer(st->created_at));
	json_object_set_new(j, "decided_at", st->decided_at ? json_integer(st->decided_at) :
			    json_null());
	return j;
}

static void fields_json(json_t *j, const struct bisection *b)
{
	json_t *c = json_array();

	json_object_set_new(j, "id", json_integer(b->id));
	json_object_set_new(j, "tree", json_string(b->tree));
	json_object_set_new(j, "good", json_string(b->good));
	json_object_set_new(j, "bad", json_string(b->bad));
	json_object_set_new(j, "good_spec", str_or_null(b->good_spec));
	json_object_set_new(j, "bad_spec", str_or_null(b->bad_spec));
	json_object_set_new(j, "job", json_string(b->job));
	json_object_set_new(j, "kind", json_string(b->kind));
	json_object_set_new(j, "target", str_or_null(b->target));
	json_object_set_new(j, "better", b->higher_better == 1 ? json_string("higher") :
			    b->higher_better == 0 ? json_string("lower") : json_null());
	json_object_set_new(j, "arch", json_string(b->arch));
	json_object_set_new(j, "vcpus", json_integer(b->vcpus));
	json_object_set_new(j, "memory_mb", json_integer(b->memory_mb));
	json_object_set_new(j, "config", str_or_null(b->config));
	json_object_set_new(j, "fragments", str_or_null(b->fragments));
	json_object_set_new(j, "repeat", json_integer(b->repeats));
	json_object_set_new(j, "first_parent", json_boolean(b->first_parent));
	json_object_set_new(j, "state", json_string(b->state));
	json_object_set_new(j, "culprit", str_or_null(b->culprit));
	for (const char *p = b->candidates; p && *p;) {
		size_t len = strcspn(p, " ");

		json_array_append_new(c, json_stringn(p, len));
		p += len + (p[len] == ' ');
	}
	json_object_set_new(j, "candidates", c);
	json_object_set_new(j, "verdict", str_or_null(b->verdict));
	json_object_set_new(j, "detail", str_or_null(b->detail));
	json_object_set_new(j, "revert", str_or_null(b->revert));
	json_object_set_new(j, "change_pct", real_or_null(b->change_pct));
	json_object_set_new(j, "error", real_or_null(b->error));
	json_object_set_new(j, "created_at", json_integer(b->created_at));
	json_object_set_new(j, "ended_at", b->ended_at ? json_integer(b->ended_at) : json_null());
	json_object_set_new(j, "log", str_or_null(b->log));
}

json_t *bisect_json(struct db *db, int64_t id)
{
	struct bisection b;
	struct bisection_step *st = NULL;
	size_t n = 0;
	json_t *j, *steps;

	if (db_bisection_get(db, id, &b) != 1)
		return NULL;
	j = json_object();
	steps = json_array();
	fields_json(j, &b);
	if (db_bisection_steps(db, id, &st, &n) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(steps, step_json(db, &b, &st[i]));
		db_bisection_steps_free(st, n);
	}
	json_object_set_new(j, "steps", steps);
	db_bisection_release(&b);
	return j;
}

/* ---- the report ---- */

static const struct bisection_step *step_of(const struct bisection_step *st, size_t n,
					    const char *commit, const char *role)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(st[i].commit_id, commit) && (!role || !strcmp(st[i].role, role)))
			return &st[i];
	return NULL;
}

static void report_head(const struct bisection *b, struct buf *o)
{
	buf_printf(o, "bisection %" PRId64 ": tree %s, job %s", b->id, b->tree, b->job);
	if (!strcmp(b->kind, "test"))
		buf_printf(o, ", test '%s' failing", b->target);
	else if (!strcmp(b->kind, "metric"))
		buf_printf(o, ", metric '%s' worse%s", b->target, b->higher_better == 1 ?
			   " (higher is better)" : b->higher_better == 0 ? " (lower is better)" : "");
	else if (!strcmp(b->kind, "crash") && b->target)
		buf_printf(o, ", the kernel crash \"%s\"", b->target);
	else if (!strcmp(b->kind, "crash"))
		buf_puts(o, ", a kernel crash");
	else
		buf_puts(o, " failing");
	buf_printf(o, "\nrange: good %.12s (%s) .. bad %.12s (%s); %s, %d vCPUs%s%s\n", b->good,
		   b->good_spec ? b->good_spec : "-", b->bad, b->bad_spec ? b->bad_spec : "-",
		   b->arch, b->vcpus, b->first_parent ? ", first parents only" : "",
		   isfinite(b->change_pct) ? "" : "");
	if (isfinite(b->change_pct))
		buf_printf(o, "the ends differ by %+.1f%%\n", b->change_pct);
	buf_printf(o, "state: %s%s%s\n", b->state, b->detail ? ": " : "", b->detail ? b->detail : "");
}

static void report_culprit(const struct bisection *b, const struct bisection_step *st,
			   size_t n, struct buf *o)
{
	const struct bisection_step *c = step_of(st, n, b->culprit, NULL);
	const struct bisection_step *par = NULL;

	buf_printf(o, "\nfirst bad commit: %s\n", b->culprit);
	if (c && c->subject)
		buf_printf(o, "  \"%s\"\n", c->subject);
	if (c && c->author)
		buf_printf(o, "  author: %s\n", c->author);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(st[i].role, "parent"))
			par = &st[i];
	if (par)
		buf_printf(o, "  its parent %.12s, tested after the bisection: %s\n", par->commit_id,
			   par->answer ? par->answer : "not decided");
	else
		buf_puts(o, "  its parent was tested during the bisection\n");
	buf_printf(o, "  revert on bad: %s%s%s\n", b->verdict ? b->verdict : "not checked yet",
		   b->revert ? ": " : "", b->revert ? b->revert : "");
}

int bisect_report_text(struct db *db, int64_t id, struct buf *o)
{
	struct bisection b;
	struct bisection_step *st = NULL;
	size_t n = 0;
	int f = db_bisection_get(db, id, &b);

	if (f != 1)
		return f;
	if (db_bisection_steps(db, id, &st, &n) < 0) {
		db_bisection_release(&b);
		return -1;
	}
	report_head(&b, o);
	if (b.culprit)
		report_culprit(&b, st, n, o);
	if (b.candidates)
		buf_printf(o, "\nthe first bad commit is one of: %s\n", b.candidates);
	if (isfinite(b.error))
		buf_printf(o, "the chance the path went wrong: at most %.2g%%\n", 100 * b.error);
	buf_puts(o, "\nsteps:\n");
	for (size_t i = 0, k = 0; i < n; i++) {
		char label[16];

		if (!strcmp(st[i].role, "step"))
			snprintf(label, sizeof(label), "%zu", ++k);
		else
			snprintf(label, sizeof(label), "%s", st[i].role);
		buf_printf(o, "  %-6s %.12s  %s%.60s%s\n", label, st[i].commit_id,
			   st[i].subject ? "\"" : "", st[i].subject ? st[i].subject : "",
			   st[i].subject ? "\"" : "");
		buf_printf(o, "         %s%s%s\n", st[i].answer ? st[i].answer : "pending",
			   st[i].why ? ": " : "", st[i].why ? st[i].why : "");
	}
	if (b.log)
		buf_printf(o, "\ngit bisect log:\n%s", b.log);
	db_bisection_steps_free(st, n);
	db_bisection_release(&b);
	return 1;
}
