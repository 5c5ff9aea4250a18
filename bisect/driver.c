// SPDX-License-Identifier: GPL-2.0-only
/* driver.c: the thread that moves bisections on, one stage at a time, from
 * what the database says (nothing is kept in memory between ticks):
 *   ends       the good and the bad commit built and run; the rules check
 *              that good lacks the symptom and bad has it (more runs at
 *              the bad end for a flaky symptom, more for a metric's ends);
 *   bisecting  git chooses a commit from the answers so far; its build
 *              and runs are a submission; the rules say good, bad, skip or
 *              more runs (another submission of the same commit: its build
 *              is reused);
 *   verifying  the culprit's parent is tested when no step did, and the
 *              culprit is reverted on top of bad (a one-patch series, so
 *              git am -3 in the sandbox) and run: the symptom gone is
 *              "verified", still there "not confirmed".
 * A step's answer is written before git hears it, and git's state is
 * replayed from the answers on every call (kernels/bisect.c), so a kill -9
 * anywhere loses no decided step and redoes none. */
#include "bisect/bisect.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "db/bisections.h"
#include "db/db.h"
#include "jobs/jobs.h"
#include "kernels/kernels.h"
#include "config/config.h"
#include "orchestrator/orchestrator.h"

#include "bisect/bisectint.h"

#define TICK_MS        2000
#define STEP_RUNS_CAP  20     /* a metric step's runs at most */
#define SPECULATE_CPUS 8      /* [build] speculate = auto: on with this many CPUs */

/* ---- submissions of a step ---------------------------------------------- */

/* A submission of commit in the bisection's cell (its tree, arch, config,
 * fragments, job and memory); the caller adds the rest */
static struct submit_spec cell_spec(const struct bisection *b, const char *commit)
{
	return (struct submit_spec){
		.tree = b->tree, .base = commit, .arches = b->arch, .config = b->config,
		.fragments = b->fragments, .jobs = b->job, .memory_mb = b->memory_mb,
	};
}

int bisect_queue_runs(struct bisect_driver *d, struct db *db, const struct bisection *b,
		      int64_t step_id, const char *commit, int runs, const struct buf *mbox,
		      char **err)
{
	char vcpus[16], name[64];
	struct submit_spec s = cell_spec(b, commit);
	int64_t sid;
	int rc;

	snprintf(vcpus, sizeof(vcpus), "%d", b->vcpus);
	s.vcpus = vcpus;
	s.repeat = runs < 1 ? 1 : runs > 100 ? 100 : runs;
	if (mbox) {
		snprintf(name, sizeof(name), "revert-%.12s.mbox", commit);
		s.base = b->bad;
		s.mbox = mbox->data;
		s.mbox_len = mbox->len;
		s.mbox_name = name;
	}
	rc = orch_submit_series(d->o, &s, &sid, err);
	if (rc < 0)
		return rc;
	if (db_bisection_step_link(db, step_id, sid) < 0)
		return set_errf(err, "database: %s", db_errmsg(db));
	log_info("bisection %" PRId64 ": %s %.12s: submission %" PRId64 ", %d run%s", b->id,
		 mbox ? "revert of" : "commit", commit, sid, s.repeat, s.repeat == 1 ? "" : "s");
	return 0;
}

static void start_runs(struct bctx *x, const struct bisection_step *st);

/* What a step's submissions and runs say so far. 1 all ended (e filled,
 * release it); 0 still going; 2 a build or apply failed (why filled);
 * -1 error */
static int step_state(struct bctx *x, const struct bisection_step *st,
		      struct bisect_evidence *e, char *why, size_t n)
{
	struct bisection_sub *subs = NULL;
	struct bisection_run *runs = NULL;
	size_t ns = 0, nr = 0;
	int rc = 1;

	if (db_bisection_step_subs(x->db, st->id, &subs, &ns) < 0)
		return -1;
	for (size_t i = 0; i < ns && rc == 1; i++) {
		if (!strcmp(subs[i].state, "queued") || !strcmp(subs[i].state, "building"))
			rc = 0;
		else if (!strcmp(subs[i].state, "failed")) {
			const char *o = subs[i].outcome ? subs[i].outcome : "failed";

			/* a build's own first error says more than make's last line */
			const char *d = subs[i].errors ? subs[i].errors :
					subs[i].detail ? subs[i].detail : "";

			snprintf(why, n, "%s (%s): %.*s", !strcmp(o, "build-failed") ?
				 "does not build" : !strcmp(o, "does-not-apply") ? "does not apply" :
				 "its submission failed", o, (int)(strcspn(d, "\n") < 300 ?
				 strcspn(d, "\n") : 300), d);
			rc = 2;
		}
	}
	db_bisection_subs_free(subs, ns);
	if (!ns) {
		/* added, then killed before its runs were queued */
		start_runs(x, st);
		return 0;
	}
	if (rc != 1)
		return rc;
	if (db_bisection_step_runs(x->db, st->id, x->b.target && x->kind == BISECT_KIND_TEST ?
				   x->b.target : NULL,
				   x->kind == BISECT_KIND_METRIC ? x->b.target : NULL,
				   &runs, &nr) < 0)
		return -1;
	rc = bisect_evidence_read(x->kind, x->kind == BISECT_KIND_CRASH ? x->b.target : NULL, runs,
				  nr, e) < 0 ? -1 : e->pending ? 0 : 1;
	if (rc != 1)
		bisect_evidence_release(e);
	db_bisection_runs_free(runs, nr);
	return rc;
}

static struct bisection_step *find_role(struct bctx *x, const char *role)
{
	for (size_t i = 0; i < x->nsteps; i++)
		if (!strcmp(x->steps[i].role, role))
			return &x->steps[i];
	return NULL;
}

static int queue_runs(struct bctx *x, int64_t step_id, const char *commit, int runs,
		      const struct buf *mbox, char **err)
{
	return bisect_queue_runs(x->d, x->db, &x->b, step_id, commit, runs, mbox, err) < 0 ? -1 : 0;
}

static int add_step(struct bctx *x, const char *commit, const char *role, int left,
		    int64_t *id)
{
	int rc;

	rc = bisect_add_step(x->d, x->db, &x->b, (int)x->nsteps, commit, role, left, id);
	return rc;
}

int bisect_add_step(struct bisect_driver *d, struct db *db, const struct bisection *b, int n,
		    const char *commit, const char *role, int left, int64_t *id)
{
	struct kbisect_commit c;
	int rc;

	if (kbisect_describe(&d->env, b->tree, commit, &c) < 0)
		memset(&c, 0, sizeof(c));
	rc = db_bisection_step_add(db, b->id, n, commit, c.subject, c.author, role, left,
				   kbuild_commit_order(&d->env, b->tree, commit), id);
	kbisect_commit_release(&c);
	return rc;
}

static void end(struct bctx *x, const char *state, const char *culprit, const char *cands,
		const char *verdict, double error, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));

static void end(struct bctx *x, const char *state, const char *culprit, const char *cands,
		const char *verdict, double error, const char *fmt, ...)
{
	char detail[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	db_bisection_end(x->db, x->b.id, state, culprit, cands, verdict, detail, error);
	log_info("bisection %" PRId64 ": %s: %s", x->b.id, state, detail);
}

/* ---- the ends -------------------------------------------------------------- */

static int ends_metric(struct bctx *x, struct bisection_step *g, struct bisection_step *bd,
		       struct bisect_evidence *eg, struct bisect_evidence *eb)
{
	struct bisect_samples sg = { eg->v, eg->nv }, sb = { eb->v, eb->nv };
	char why[512], *err = NULL;
	double change;

	if (bisect_metric_check_ends(&sg, &sb, x->b.higher_better, BISECT_ALPHA, &change, why,
				     sizeof(why)) == 0) {
		db_bisection_set_change(x->db, x->b.id, change);
		db_bisection_step_decide(x->db, g->id, "good", "the good end", NAN);
		db_bisection_step_decide(x->db, bd->id, "bad", "the bad end", NAN);
		return db_bisection_set_state(x->db, x->b.id, "bisecting");
	}
	if (eb->runs < 2 * BISECT_END_RUNS && eg->nv && eb->nv) {
		if (queue_runs(x, g->id, g->commit_id, BISECT_END_RUNS, NULL, &err) < 0 ||
		    queue_runs(x, bd->id, bd->commit_id, BISECT_END_RUNS, NULL, &err) < 0) {
			end(x, "failed", NULL, NULL, NULL, NAN, "the ends: %s", err ? err : "?");
			free(err);
		}
		return 0;
	}
	end(x, "failed", NULL, NULL, NULL, NAN, "%s", why);
	return 0;
}

static int ends_pf(struct bctx *x, struct bisection_step *g, struct bisection_step *bd,
		   struct bisect_evidence *eg, struct bisect_evidence *eb)
{
	char why[512], *err = NULL;
	int more = bisect_pf_end_runs(&eb->pf, BISECT_RUNS_MAX);

	if (more > 0) {
		if (queue_runs(x, bd->id, bd->commit_id, more, NULL, &err) < 0) {
			end(x, "failed", NULL, NULL, NULL, NAN, "the bad end: %s", err ? err : "?");
			free(err);
		}
		return 0;
	}
	if (bisect_pf_check_ends(&eg->pf, &eb->pf, why, sizeof(why)) < 0) {
		end(x, "failed", NULL, NULL, NULL, NAN, "%s", why);
		return 0;
	}
	snprintf(why, sizeof(why), "the bad end: the symptom in %d of %d runs (taken as %.0f%%)",
		 eb->pf.seen, eb->pf.runs - eb->pf.other, 100 * bisect_pf_rate_low(&eb->pf));
	db_bisection_step_decide(x->db, g->id, "good", "the good end: no symptom", NAN);
	db_bisection_step_decide(x->db, bd->id, "bad", why, NAN);
	return db_bisection_set_state(x->db, x->b.id, "bisecting");
}

/* The test asked about must be one the job reports: each end's runs have
 * it (with a status), or the bisection stops saying so */
static int test_reported(struct bctx *x, const struct bisect_evidence *eg,
			 const struct bisect_evidence *eb)
{
	const struct bisect_evidence *e = eg->pf.other >= eg->pf.runs ? eg : eb;

	if (x->kind != BISECT_KIND_TEST || e->pf.other < e->pf.runs)
		return 1;
	end(x, "failed", NULL, NULL, NULL, NAN, "test '%s': none of the %s end's %d runs "
	    "reports it (is it a result of job '%s' there?)", x->b.target,
	    e == eg ? "good" : "bad", e->pf.runs, x->b.job);
	return 0;
}

/* A crash bisection without a signature takes the bad end's: the title
 * most of its crashes have. 1 set (the ends are read again next tick),
 * 0 nothing to set, -1 error */
static int crash_signature(struct bctx *x, const struct bisection_step *bd)
{
	struct bisection_run *runs = NULL;
	char t[CRASH_TITLE_MAX];
	size_t n = 0;
	int rc = 0;

	if (x->kind != BISECT_KIND_CRASH || x->b.target)
		return 0;
	if (db_bisection_step_runs(x->db, bd->id, NULL, NULL, &runs, &n) < 0)
		return -1;
	if (bisect_crash_signature(runs, n, t, sizeof(t)) == 0) {
		rc = db_bisection_set_target(x->db, x->b.id, t) < 0 ? -1 : 1;
		log_info("bisection %" PRId64 ": the crash's signature: %s", x->b.id, t);
	}
	db_bisection_runs_free(runs, n);
	return rc;
}

static int stage_ends(struct bctx *x)
{
	struct bisection_step *g = find_role(x, "good"), *bd = find_role(x, "bad");
	struct bisect_evidence eg, eb;
	char why[512];
	int rg, rb, rc = 0;

	if (!g || !bd)
		return 0;   /* bisect_submit() adds both */
	rg = step_state(x, g, &eg, why, sizeof(why));
	if (rg == 2) {
		end(x, "failed", NULL, NULL, NULL, NAN, "good (%.12s): %s", g->commit_id, why);
		return 0;
	}
	rb = step_state(x, bd, &eb, why, sizeof(why));
	if (rb == 2) {
		end(x, "failed", NULL, NULL, NULL, NAN, "bad (%.12s): %s", bd->commit_id, why);
		if (rg == 1)
			bisect_evidence_release(&eg);
		return 0;
	}
	if (rg == 1 && rb == 1 && (rc = crash_signature(x, bd)) != 0) {
		rc = rc < 0 ? -1 : 0;
	} else if (rg == 1 && rb == 1) {
		if (test_reported(x, &eg, &eb))
			rc = x->kind == BISECT_KIND_METRIC ? ends_metric(x, g, bd, &eg, &eb)
							   : ends_pf(x, g, bd, &eg, &eb);
	}
	if (rg == 1)
		bisect_evidence_release(&eg);
	if (rb == 1)
		bisect_evidence_release(&eb);
	return rg < 0 || rb < 0 ? -1 : rc;
}

/* ---- one step --------------------------------------------------------------- */

/* The ends' evidence, for the rules (both released by the caller) */
static int ends_evidence(struct bctx *x, struct bisect_evidence *eg, struct bisect_evidence *eb)
{
	char why[256];

	if (step_state(x, find_role(x, "good"), eg, why, sizeof(why)) != 1)
		return -1;
	if (step_state(x, find_role(x, "bad"), eb, why, sizeof(why)) != 1) {
		bisect_evidence_release(eg);
		return -1;
	}
	return 0;
}

/* Runs a new step needs first */
static int first_runs(struct bctx *x)
{
	struct bisect_evidence eg, eb;
	int n;

	/* a metric step: the ends' repeats, at least 6; the rule's t test can
	 * decide with fewer, but each round of more runs waits for boots, and
	 * 6 settle most steps of a clear regression in one round */
	if (x->kind == BISECT_KIND_METRIC)
		return x->b.repeats > 6 ? x->b.repeats : 6;
	if (ends_evidence(x, &eg, &eb) < 0)
		return 1;
	n = bisect_pf_runs_needed(bisect_pf_rate_low(&eb.pf), BISECT_MISS_MAX);
	bisect_evidence_release(&eg);
	bisect_evidence_release(&eb);
	return n > BISECT_RUNS_MAX ? BISECT_RUNS_MAX : n;
}

/* Queues a step's first runs: the ends' repeats, the revert of the
 * culprit on bad, a commit's first_runs(); a step whose runs cannot be
 * queued is skipped with the reason, so nothing waits for runs that will
 * never come */
static void start_runs(struct bctx *x, const struct bisection_step *st)
{
	struct buf mbox = BUF_INIT(SERIES_MBOX_MAX);
	int revert = !strcmp(st->role, "revert"), ends = !strcmp(st->role, "good") ||
		     !strcmp(st->role, "bad");
	char *err = NULL;

	if ((revert && kbisect_revert_mbox(&x->d->env, x->b.tree, st->commit_id, &mbox, &err) < 0) ||
	    queue_runs(x, st->id, st->commit_id, ends ? x->b.repeats : first_runs(x),
		       revert ? &mbox : NULL, &err) < 0) {
		db_bisection_step_decide(x->db, st->id, "skip", err ? err : "its runs could not be "
					 "queued", NAN);
		if (revert)
			db_bisection_set_revert(x->db, x->b.id, err ? err : "?", "revert not tested");
	}
	free(err);
	buf_release(&mbox);
}

/* Adds a step and queues its first runs. 0 / -1 */
static int new_step(struct bctx *x, const char *commit, const char *role, int left)
{
	struct bisection_step st = { .commit_id = (char *)commit, .role = (char *)role };

	if (add_step(x, commit, role, left, &st.id) < 0)
		return -1;
	start_runs(x, &st);
	return 0;
}

/* Decides an undecided step whose runs ended, or queues more. 1 decided,
 * 0 waiting, -1 error */
static int decide_step(struct bctx *x, struct bisection_step *st)
{
	struct bisect_evidence e, eg, eb;
	enum bisect_answer a;
	struct buf line = BUF_INIT(1024);
	char why[512], *err = NULL;
	double error = NAN;
	int more = 0, rc = step_state(x, st, &e, why, sizeof(why));

	if (rc == 2) {
		db_bisection_step_decide(x->db, st->id, "skip", why, NAN);
		return 1;
	}
	if (rc != 1)
		return rc;
	if (ends_evidence(x, &eg, &eb) < 0) {
		bisect_evidence_release(&e);
		return -1;
	}
	if (x->kind == BISECT_KIND_METRIC) {
		struct bisect_samples g = { eg.v, eg.nv }, b = { eb.v, eb.nv }, s = { e.v, e.nv };

		a = e.runs && 2 * e.other >= e.runs ? BISECT_SKIP :
		    bisect_metric_decide(&g, &b, &s, BISECT_ALPHA, STEP_RUNS_CAP, &more, &error, why,
					 sizeof(why));
		if (e.runs && 2 * e.other >= e.runs)
			snprintf(why, sizeof(why), "%d of %d runs gave no value", e.other, e.runs);
	} else {
		a = bisect_pf_decide(&eb.pf, &e.pf, BISECT_RUNS_MAX, &more, &error, why, sizeof(why));
	}
	bisect_evidence_describe(x->kind, &e, &line);
	buf_printf(&line, ": %s", why);
	if (a == BISECT_MORE) {
		if (queue_runs(x, st->id, st->commit_id, more, NULL, &err) < 0) {
			buf_printf(&line, "; more runs could not be queued: %s", err ? err : "?");
			a = BISECT_SKIP;
		}
		free(err);
	}
	rc = 0;
	if (a != BISECT_MORE) {
		db_bisection_step_decide(x->db, st->id, bisect_answer_name(a), buf_str(&line),
					 a == BISECT_SKIP || isnan(error) ? NAN : error);
		log_info("bisection %" PRId64 ": %.12s is %s: %s", x->b.id, st->commit_id,
			 bisect_answer_name(a), buf_str(&line));
		rc = 1;
	}
	buf_release(&line);
	bisect_evidence_release(&e);
	bisect_evidence_release(&eg);
	bisect_evidence_release(&eb);
	return rc;
}

/* ---- bisecting -------------------------------------------------------------- */

static double path_error(struct bctx *x)
{
	double e = 0;

	for (size_t i = 0; i < x->nsteps; i++)
		if (x->steps[i].answer && !isnan(x->steps[i].error))
			e += x->steps[i].error;
	return e < 1 ? e : 1;
}

/* Asks git, from the answers of the steps, what comes next */
static int ask_git(struct bctx *x, struct kbisect_next *next, struct buf *log, char **err)
{
	struct kbisect_mark *marks = calloc(x->nsteps + 1, sizeof(*marks));
	size_t n = 0;
	int rc;

	if (!marks)
		return -1;
	for (size_t i = 0; i < x->nsteps; i++)
		if (!strcmp(x->steps[i].role, "step") && x->steps[i].answer)
			marks[n++] = (struct kbisect_mark){ x->steps[i].commit_id, x->steps[i].answer };
	rc = kbisect_run(&x->d->env, x->b.tree, x->b.id, x->b.good, x->b.bad, x->b.first_parent,
			 marks, n, next, log, err);
	free(marks);
	return rc;
}

/* Queues a build-only submission of commit, for the step that may come */
static int queue_build(struct bctx *x, const char *commit)
{
	struct submit_spec s = cell_spec(&x->b, commit);
	char *err = NULL;
	int64_t sid;

	s.repeat = 1;
	s.speculative = 1;
	if (orch_submit_series(x->d->o, &s, &sid, &err) < 0) {
		log_warn("bisection %" PRId64 ": %.12s not built ahead: %s", x->b.id, commit,
			 err ? err : "?");
		free(err);
		return -1;
	}
	log_info("bisection %" PRId64 ": %.12s built ahead (submission %" PRId64 ")", x->b.id,
		 commit, sid);
	return db_bisection_spec_add(x->db, x->b.id, sid, commit);
}

/* While step's runs are in the guests, the two commits git would choose
 * next (one if step is good, one if it is bad) build ahead, after every
 * other queued submission; the one the answer does not need is dropped
 * if it has not started (db_bisection_spec_drop) */
static void speculate(struct bctx *x, const char *step)
{
	struct kbisect_mark *marks;
	size_t n = 0;

	if (!x->d->speculate || !(marks = calloc(x->nsteps + 1, sizeof(*marks))))
		return;
	for (size_t i = 0; i < x->nsteps; i++)
		if (!strcmp(x->steps[i].role, "step") && x->steps[i].answer)
			marks[n++] = (struct kbisect_mark){ x->steps[i].commit_id, x->steps[i].answer };
	for (int bad = 0; bad < 2; bad++) {
		struct kbisect_next next;
		char *err = NULL;

		marks[n] = (struct kbisect_mark){ step, bad ? "bad" : "good" };
		if (kbisect_run(&x->d->env, x->b.tree, x->b.id, x->b.good, x->b.bad,
				x->b.first_parent, marks, n + 1, &next, NULL, &err) == 0 &&
		    next.done == 0 && db_bisection_spec_has(x->db, x->b.id, next.next) == 0)
			queue_build(x, next.next);
		kbisect_next_release(&next);
		free(err);
	}
	free(marks);
}

static int stage_bisecting(struct bctx *x)
{
	struct kbisect_next next;
	struct buf log = BUF_INIT(1u << 20);
	char *err = NULL;
	int rc = 0;

	for (size_t i = 0; i < x->nsteps; i++)
		if (!strcmp(x->steps[i].role, "step") && !x->steps[i].answer)
			return decide_step(x, &x->steps[i]) < 0 ? -1 : 0;  /* next tick goes on */
	if (ask_git(x, &next, &log, &err) < 0) {
		end(x, "failed", NULL, NULL, NULL, NAN, "git bisect: %s", err ? err : "?");
		free(err);
		buf_release(&log);
		return 0;
	}
	db_bisection_set_log(x->db, x->b.id, buf_str(&log));
	if (next.done == 0) {
		db_bisection_spec_drop(x->db, x->b.id, next.next);
		rc = new_step(x, next.next, "step", next.left);
		if (rc == 0)
			speculate(x, next.next);
	} else if (next.done == 1) {
		db_bisection_spec_drop(x->db, x->b.id, NULL);
		db_bisection_end(x->db, x->b.id, "verifying", next.culprit, NULL, NULL,
				 "the first bad commit, being checked", path_error(x));
	} else {
		struct buf c = BUF_INIT(0);

		for (size_t i = 0; i < next.ncandidates; i++)
			buf_printf(&c, "%s%s", i ? " " : "", next.candidates[i]);
		end(x, "done", NULL, buf_str(&c), "candidates", path_error(x),
		    "skipped commits leave %zu candidates for the first bad commit",
		    next.ncandidates);
		buf_release(&c);
	}
	kbisect_next_release(&next);
	buf_release(&log);
	return rc;
}

/* ---- verifying ------------------------------------------------------------- */

/* The culprit's parent, when no step or end tested it: a step of its own.
 * 1 added now, 0 there (*out) or not needed, -1 error */
static int parent_step(struct bctx *x, struct bisection_step **out)
{
	struct kbisect_commit c;
	int tested = 0, rc;

	*out = find_role(x, "parent");
	if (*out)
		return 0;
	if (kbisect_describe(&x->d->env, x->b.tree, x->b.culprit, &c) < 0 || !c.parent) {
		kbisect_commit_release(&c);
		return 0;
	}
	for (size_t i = 0; i < x->nsteps; i++)
		tested |= !strcmp(x->steps[i].commit_id, c.parent) && x->steps[i].answer;
	rc = tested ? 0 : new_step(x, c.parent, "parent", -1) < 0 ? -1 : 1;
	kbisect_commit_release(&c);
	return rc;
}

/* The culprit reverted on bad: 1 added now, 0 there (*out), -1 error */
static int revert_step(struct bctx *x, struct bisection_step **out)
{
	*out = find_role(x, "revert");
	if (*out)
		return 0;
	return new_step(x, x->b.culprit, "revert", -1) < 0 ? -1 : 1;
}

static int stage_verifying(struct bctx *x)
{
	struct bisection_step *par, *rev;
	const char *verdict;
	int r;

	if ((r = parent_step(x, &par)) != 0 || (r = revert_step(x, &rev)) != 0)
		return r < 0 ? -1 : 0;
	if (par && !par->answer && decide_step(x, par) <= 0)
		return 0;
	if (!rev->answer) {
		char why[512];
		struct bisect_evidence e;
		int s = step_state(x, rev, &e, why, sizeof(why));

		if (s == 2) {
			db_bisection_step_decide(x->db, rev->id, "skip", why, NAN);
			db_bisection_set_revert(x->db, x->b.id, why,
						strstr(why, "does-not-apply") ? "revert conflicts" :
						"revert does not build");
		} else if (s == 1) {
			bisect_evidence_release(&e);
			if (decide_step(x, rev) <= 0)
				return 0;
		} else {
			return s;
		}
		return 0;   /* read again next tick */
	}
	if (!strcmp(rev->answer, "good"))
		verdict = "verified";
	else if (!strcmp(rev->answer, "bad"))
		verdict = "not confirmed";
	else
		verdict = x->b.verdict ? x->b.verdict : "revert inconclusive";
	if (!x->b.revert)
		db_bisection_set_revert(x->db, x->b.id, rev->why, verdict);
	end(x, "done", x->b.culprit, NULL, verdict, path_error(x),
	    "%.12s is the first bad commit; its revert on bad: %s%s", x->b.culprit, verdict,
	    par && par->answer && strcmp(par->answer, "good") ?
	    "; its parent did not test good: the range may hold a second change" : "");
	return 0;
}

/* ---- the thread ------------------------------------------------------------ */

static void advance(struct bisect_driver *d, struct db *db, int64_t id)
{
	struct bctx x = { .d = d, .db = db };

	if (db_bisection_get(db, id, &x.b) != 1)
		return;
	if (bisect_kind_parse(x.b.kind, &x.kind) < 0 ||
	    db_bisection_steps(db, id, &x.steps, &x.nsteps) < 0) {
		db_bisection_release(&x.b);
		return;
	}
	if (!strcmp(x.b.state, "ends"))
		stage_ends(&x);
	else if (!strcmp(x.b.state, "bisecting"))
		stage_bisecting(&x);
	else if (!strcmp(x.b.state, "verifying"))
		stage_verifying(&x);
	db_bisection_steps_free(x.steps, x.nsteps);
	db_bisection_release(&x.b);
}

static void *driver_main(void *arg)
{
	struct bisect_driver *d = arg;
	char *err = NULL;
	struct db *db = db_open(d->db_path, &err);

	if (!db) {
		log_error("bisect: database: %s", err ? err : "?");
		free(err);
		return NULL;
	}
	pthread_mutex_lock(&d->lock);
	while (!d->stop) {
		struct bisection *rows = NULL;
		size_t n = 0;
		struct timespec ts;

		pthread_mutex_unlock(&d->lock);
		db_bisection_cancel_runs(db, 0);
		db_bisection_spec_drop(db, 0, NULL);
		if (db_bisection_list(db, 1, 1000, &rows, &n) == 0) {
			for (size_t i = 0; i < n && !d->stop; i++)
				advance(d, db, rows[i].id);
			db_bisection_free_rows(rows, n);
		}
		pthread_mutex_lock(&d->lock);
		if (d->kicked) {
			d->kicked = 0;
			continue;
		}
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += TICK_MS / 1000;
		if (!d->stop)
			pthread_cond_timedwait(&d->cond, &d->lock, &ts);
	}
	pthread_mutex_unlock(&d->lock);
	db_close(db);
	return NULL;
}

struct bisect_driver *bisect_driver_start(struct orch *o, const struct config *c, char **err)
{
	struct bisect_driver *d = calloc(1, sizeof(*d));

	*err = NULL;
	if (!d)
		return NULL;
	d->o = o;
	d->c = c;
	d->state_dir = path_abs(c->state_dir);
	d->db_path = d->state_dir ? path_join(d->state_dir, "kfleet.db") : NULL;
	d->env.state_dir = d->state_dir;
	d->env.configs_dir = c->configs_dir;
	d->speculate = c->build_speculate >= 0 ? c->build_speculate :
		       sysconf(_SC_NPROCESSORS_ONLN) >= SPECULATE_CPUS;
	pthread_mutex_init(&d->lock, NULL);
	pthread_cond_init(&d->cond, NULL);
	if (!d->db_path || !(d->api_db = db_open(d->db_path, err)) ||
	    pthread_create(&d->thread, NULL, driver_main, d) != 0) {
		if (!*err)
			set_errf(err, "bisect: cannot start its thread");
		bisect_driver_stop(d);
		return NULL;
	}
	d->started = 1;
	return d;
}

void bisect_driver_stop(struct bisect_driver *d)
{
	if (!d)
		return;
	if (d->started) {
		pthread_mutex_lock(&d->lock);
		d->stop = 1;
		pthread_cond_signal(&d->cond);
		pthread_mutex_unlock(&d->lock);
		pthread_join(d->thread, NULL);
	}
	db_close(d->api_db);
	pthread_mutex_destroy(&d->lock);
	pthread_cond_destroy(&d->cond);
	free(d->db_path);
	free(d->state_dir);
	free(d);
}

void bisect_driver_kick(struct bisect_driver *d)
{
	if (!d)
		return;
	pthread_mutex_lock(&d->lock);
	d->kicked = 1;
	pthread_cond_signal(&d->cond);
	pthread_mutex_unlock(&d->lock);
}
