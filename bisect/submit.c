// SPDX-License-Identifier: GPL-2.0-only
/* submit.c: a new bisection checked and started, or one canceled. Every
 * mistake a user can make is refused here with what and where, before
 * anything is queued: the tree, both revisions (fixed as commit ids now,
 * so a fetch later does not move the range), good an ancestor of bad and
 * not bad itself, the job, its metric, the cell. Then both ends are queued
 * as submissions; the driver takes it from there. */
#include "bisect/bisectint.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "db/db.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"

#define REPEAT_DEFAULT 5

/* The job and what it measures: 0, or -1 with *err */
static int check_job(struct bisect_driver *d, const struct bisect_spec *s, int *higher_better,
		     char **err)
{
	const struct job_def *j = s->job ? job_set_find(orch_jobs(d->o), s->job) : NULL;
	struct buf have = BUF_INIT(4096);

	if (!s->job || !*s->job)
		return set_errf(err, "job: none given (--job NAME)");
	if (!j)
		return set_errf(err, "job '%.80s': no such job (kfleet jobs lists them)", s->job);
	*higher_better = -1;
	if (!s->metric)
		return 0;
	for (size_t i = 0; i < j->nmetrics; i++) {
		if (!strcmp(j->metrics[i].name, s->metric)) {
			*higher_better = j->metrics[i].higher_better;
			buf_release(&have);
			return 0;
		}
		buf_printf(&have, "%s%s", i ? ", " : "", j->metrics[i].name);
	}
	set_errf(err, "metric '%.80s': job '%s' does not report it (%s%s)", s->metric, s->job,
		 have.len ? "it reports: " : "it declares no metrics", buf_str(&have));
	buf_release(&have);
	return -1;
}

/* rev in the tree as a commit id, for the user's words: 0 / -1 (*err) */
static int resolve(struct bisect_driver *d, const char *tree, const char *what, const char *rev,
		   char out[41], char **err)
{
	char *e = NULL;

	if (!rev || !*rev)
		return set_errf(err, "%s: no revision given (--%s REV)", what, what);
	if (rev[0] == '-' || strlen(rev) > 200)
		return set_errf(err, "%s '%.80s': not a revision", what, rev);
	if (kbuild_resolve(&d->env, tree, rev, out, &e) < 0) {
		set_errf(err, "%s '%.80s': no such revision in tree '%s'", what, rev, tree);
		free(e);
		return -1;
	}
	return 0;
}

static int check_range(struct bisect_driver *d, const struct bisect_spec *s, char good[41],
		       char bad[41], char **err)
{
	struct tree_row t;
	int f;

	if (!s->tree || !*s->tree)
		return set_errf(err, "tree: none given (--tree NAME)");
	pthread_mutex_lock(&d->lock);
	f = db_tree_get(d->api_db, s->tree, &t);
	pthread_mutex_unlock(&d->lock);
	if (f != 1)
		return set_errf(err, f < 0 ? "database error" :
				"tree '%.80s': no such tree (kfleet tree add NAME PATH-or-URL)",
				s->tree);
	f = strcmp(t.state, "ready");
	db_row_release(db_tree_fields, &t, sizeof(t));
	if (f)
		return set_errf(err, "tree '%.80s': not cloned yet (kfleet trees)", s->tree);
	if (resolve(d, s->tree, "good", s->good, good, err) < 0 ||
	    resolve(d, s->tree, "bad", s->bad, bad, err) < 0)
		return -1;
	if (!strcmp(good, bad))
		return set_errf(err, "good and bad are the same commit (%.12s): nothing to bisect",
				good);
	f = kbisect_is_ancestor(&d->env, s->tree, good, bad);
	if (f < 0)
		return set_errf(err, "tree '%s': git cannot say whether %.12s is an ancestor of "
				"%.12s", s->tree, good, bad);
	if (!f)
		return set_errf(err, "good %.12s is not an ancestor of bad %.12s (give a good "
				"commit in bad's history)", good, bad);
	return 0;
}

static int check_cell(const struct bisect_spec *s, char **err)
{
	int kinds = !!s->test + !!s->metric + !!(s->crash || s->signature);

	if (kinds > 1)
		return set_errf(err, "--test, --metric and --crash: one at most");
	if (s->arch && strcmp(s->arch, "x86_64") && strcmp(s->arch, "arm64"))
		return set_errf(err, "arch '%.40s': x86_64 or arm64", s->arch);
	if (s->vcpus < 0 || s->vcpus > 4096)
		return set_errf(err, "vcpus %d: out of range", s->vcpus);
	if (s->repeat < 0 || s->repeat > 100)
		return set_errf(err, "repeat %d: must be from 1 to 100", s->repeat);
	if (s->signature) {
		size_t n = strlen(s->signature);

		if (!n || n >= CRASH_TITLE_MAX)
			return set_errf(err, "signature: give a crash title or a part of one, "
					"1 to %d characters", CRASH_TITLE_MAX - 1);
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s->signature[i] < 0x20 || s->signature[i] == 0x7f)
				return set_errf(err, "signature: a control character at %zu", i);
	}
	if (s->test && (!*s->test || strlen(s->test) > 1000))
		return set_errf(err, "test: give a subtest's path as the job's results name it");
	return 0;
}

static void fill_row(struct bisection *b, const struct bisect_spec *s, char *good, char *bad,
		     int higher_better)
{
	memset(b, 0, sizeof(*b));
	b->tree = (char *)s->tree;
	b->good = good;
	b->bad = bad;
	b->good_spec = (char *)s->good;
	b->bad_spec = (char *)s->bad;
	b->job = (char *)s->job;
	b->kind = (char *)(s->test ? "test" : s->metric ? "metric" :
			   s->crash || s->signature ? "crash" : "job");
	b->target = (char *)(s->test ? s->test : s->metric ? s->metric : s->signature);
	b->higher_better = higher_better;
	b->arch = (char *)(s->arch ? s->arch : "x86_64");
	b->vcpus = s->vcpus ? s->vcpus : 2;
	b->memory_mb = s->memory_mb;
	b->config = (char *)s->config;
	b->fragments = (char *)s->fragments;
	b->repeats = s->repeat ? s->repeat : REPEAT_DEFAULT;
	b->first_parent = s->first_parent;
}

/* The request's tree, commits, job and cell where s gives none: 0, or -1
 * with *err */
static int from_request(struct bisect_driver *d, struct bisect_spec *s,
			struct request_origin *o, char **err)
{
	int f;

	pthread_mutex_lock(&d->lock);
	f = db_request_origin(d->api_db, s->from_request, o);
	pthread_mutex_unlock(&d->lock);
	if (f != 1)
		return set_errf(err, f < 0 ? "database error" : "request %" PRId64 ": no such "
				"request of a series (kfleet test --tree ... makes them)",
				s->from_request);
	s->tree = s->tree ? s->tree : o->tree;
	s->good = s->good ? s->good : o->base;
	s->bad = s->bad ? s->bad : o->patched;
	s->job = s->job ? s->job : o->job;
	s->arch = s->arch ? s->arch : o->arch;
	s->vcpus = s->vcpus ? s->vcpus : o->vcpus;
	s->memory_mb = s->memory_mb ? s->memory_mb : o->memory_mb;
	s->config = s->config ? s->config : o->config;
	s->fragments = s->fragments ? s->fragments : o->fragments;
	return 0;
}

int bisect_submit(struct bisect_driver *d, const struct bisect_spec *spec, int64_t *id,
		  char **err)
{
	struct request_origin origin = { 0 };
	struct bisect_spec sp = *spec, *s = &sp;
	char good[41], bad[41];
	struct bisection b;
	int64_t gs, bs;
	int hb = -1, rc;

	*err = NULL;
	if ((s->from_request > 0 && from_request(d, s, &origin, err) < 0) ||
	    check_cell(s, err) < 0 || check_job(d, s, &hb, err) < 0 ||
	    check_range(d, s, good, bad, err) < 0) {
		db_request_origin_release(&origin);
		return -1;
	}
	fill_row(&b, s, good, bad, hb);
	pthread_mutex_lock(&d->lock);
	rc = db_bisection_insert(d->api_db, &b) < 0 ||
	     bisect_add_step(d, d->api_db, &b, 0, good, "good", -1, &gs) < 0 ||
	     bisect_add_step(d, d->api_db, &b, 1, bad, "bad", -1, &bs) < 0 ? -2 : 0;
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(d->api_db));
	/* the ends are the first submissions: one refused (the cell, the
	 * config) refuses the whole bisection, before anything runs */
	if (rc == 0)
		rc = bisect_queue_runs(d, d->api_db, &b, gs, good, b.repeats, NULL, err);
	if (rc == 0)
		rc = bisect_queue_runs(d, d->api_db, &b, bs, bad, b.repeats, NULL, err);
	if (rc < 0 && b.id) {
		db_bisection_end(d->api_db, b.id, "failed", NULL, NULL, NULL,
				 *err ? *err : "refused", NAN);
		db_bisection_cancel_runs(d->api_db, b.id);
	}
	pthread_mutex_unlock(&d->lock);
	db_request_origin_release(&origin);
	if (rc == 0) {
		*id = b.id;
		bisect_driver_kick(d);
	}
	return rc;
}

int bisect_cancel(struct bisect_driver *d, int64_t id, char **err)
{
	struct bisection b;
	int f, rc = 0;

	*err = NULL;
	pthread_mutex_lock(&d->lock);
	f = db_bisection_get(d->api_db, id, &b);
	if (f != 1) {
		rc = f < 0 ? -2 : -1;
		set_errf(err, f < 0 ? "database error" : "bisection %" PRId64 ": no such bisection",
			 id);
	} else if (!strcmp(b.state, "done") || !strcmp(b.state, "failed") ||
		   !strcmp(b.state, "canceled")) {
		rc = -1;
		set_errf(err, "bisection %" PRId64 ": %s already", id, b.state);
	} else if (db_bisection_end(d->api_db, id, "canceled", b.culprit, NULL, NULL,
				    "canceled by the user", NAN) < 0 ||
		   db_bisection_cancel_runs(d->api_db, id) < 0) {
		rc = -2;
		set_errf(err, "database: %s", db_errmsg(d->api_db));
	}
	if (f == 1)
		db_bisection_release(&b);
	pthread_mutex_unlock(&d->lock);
	return rc;
}
