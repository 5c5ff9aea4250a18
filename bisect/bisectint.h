/* SPDX-License-Identifier: GPL-2.0-only */
/* bisectint.h: what bisect/'s own files share: the driver, a tick's view
 * of one bisection, and the two calls that add a step and queue its runs. */
#ifndef KF_BISECTINT_H
#define KF_BISECTINT_H

#include <pthread.h>

#include "bisect/bisect.h"
#include "db/bisections.h"
#include "kernels/kernels.h"

struct bisect_driver {
	struct orch *o;
	const struct config *c;
	struct kbuild_env env;     /* state_dir: the trees and bisect/ID worktrees */
	char *state_dir;
	char *db_path;
	struct db *api_db;         /* bisect_submit/cancel, under lock */
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int stop, kicked;
	int speculate;             /* build the next step's two possible commits ahead */
	pthread_t thread;
	int started;
};

/* One tick's view of a bisection (driver.c) */
struct bctx {
	struct bisect_driver *d;
	struct db *db;
	struct bisection b;
	enum bisect_kind kind;
	struct bisection_step *steps;
	size_t nsteps;
};

/* Adds step n (role "good", "bad", "step", "parent", "revert") of
 * commit, with its subject. 0 / -1 */
int bisect_add_step(struct bisect_driver *d, struct db *db, const struct bisection *b, int n,
		    const char *commit, const char *role, int left, int64_t *id);
/* Queues runs of commit for the step as a new submission (a build done
 * before is reused), or with mbox (the culprit's revert) on bad. Returns
 * like orch_submit_series(): 0, -1 refused (*err), -2 internal (*err) */
int bisect_queue_runs(struct bisect_driver *d, struct db *db, const struct bisection *b,
		      int64_t step_id, const char *commit, int runs, const struct buf *mbox,
		      char **err);

#endif
