// SPDX-License-Identifier: GPL-2.0-only
/* watch.c: the watch poller, a thread kfleetd's main starts once the
 * orchestrator runs (watcher_start()). Each tick, for each watch: when its
 * poll is due, the series since the stored position are read (watch/poll.c)
 * and each new version is recorded, taken or skipped by the
 * rules (watch/spec.c); the ones taken are fetched and handed to the
 * series intake (orch_submit_series(), the path of `kfleet test`), a
 * newer version cancelling its older one's queued work; then what was
 * queued is reported (watch/report.c). Everything is in the database
 * (db/watches.c): a restart takes up where the last daemon stopped. */
#include "orchestrator/orchint.h"
#include "watch/watch.h"
#include "watch/lore.h"
#include "watch/pw.h"
#include "watch/watchint.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/redact.h"
#include "common/util.h"
#include "db/watches.h"
#include "kernels/kernels.h"

#define WATCH_TICK_S 1

struct watcher {
	pthread_t thread;
	struct db *db;
};

static void iso_now(char *out, size_t n, int64_t minus_s)
{
	time_t t = time(NULL) - minus_s;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%S", &tm);
}

/* --- taking a series ---------------------------------------------------- */

/* Older versions of s still queued: their queued work canceled, each
 * saying by what */
static void supersede(struct db *db, const struct watch_spec *sp, const struct watch_series_row *s,
		      int64_t submission_id)
{
	struct watch_series_row *old = NULL;
	size_t n = 0;

	if (db_watch_series_older(db, sp->name, s->submitter, s->version, &old, &n) < 0) {
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		char why[512];
		int canceled = 0;

		/* the same series: its title, whatever its tags say of its version */
		if (strcmp(watch_series_title(old[i].name), watch_series_title(s->name)))
			continue;
		snprintf(why, sizeof(why), "superseded by v%" PRId64 " (patchwork series %" PRId64
			 ", submission %" PRId64 ") of watch '%s'", s->version, s->remote_id,
			 submission_id, sp->name);
		if (old[i].submission_id)
			canceled = db_watch_cancel_submission(db, old[i].submission_id, why);
		if (canceled < 0 ||
		    db_watch_series_superseded(db, old[i].id, s->id, why) < 0) {
			log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
			continue;
		}
		wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": %s: %d queued run%s "
		     "canceled", old[i].remote_id, old[i].version, why, canceled,
		     canceled == 1 ? "" : "s");
	}
	db_rows_free(db_watch_series_fields, old, sizeof(*old), n);
}

/* A try that failed for a reason that may pass (the network): again
 * later, until WATCH_TRIES_MAX */
static void take_failed(struct db *db, const struct watch_spec *sp,
			const struct watch_series_row *s, const char *err)
{
	char d[1024];

	if (s->tries + 1 >= WATCH_TRIES_MAX) {
		snprintf(d, sizeof(d), "not taken after %d tries: %s", WATCH_TRIES_MAX, err);
		redact_secrets_in(d, sizeof(d));
		db_watch_series_state(db, s->id, "error", d);
		wlog(db, sp->name, "error", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, d);
		return;
	}
	snprintf(d, sizeof(d), "try %" PRId64 " failed: %s", s->tries + 1, err);
	redact_secrets_in(d, sizeof(d));
	db_watch_series_retry(db, s->id, d, now_ms() + (int64_t)(5 << s->tries) * 1000);
	wlog(db, sp->name, "warn", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id, s->version,
	     d);
}

/* A lore thread whose patches are not all in yet (a list delivers a
 * series' mails one by one, minutes apart at times): looked at again at
 * each poll (at most a minute apart), tries not counted, for up to
 * WATCH_PATCHES_WAIT_S from when it was first seen, as patchwork's
 * received_all is waited for; then skipped, saying which are missing */
static void wait_for_patches(struct db *db, const struct watch_spec *sp,
			     const struct watch_series_row *s, const char *err)
{
	int64_t waited = (now_ms() - s->seen_at) / 1000;
	int64_t again = sp->interval_s < 60 ? sp->interval_s : 60;
	char d[1024];

	if (waited >= WATCH_PATCHES_WAIT_S) {
		snprintf(d, sizeof(d), "not all its patches arrived within an hour: %s", err);
		redact_secrets_in(d, sizeof(d));
		db_watch_series_state(db, s->id, "skipped", d);
		wlog(db, sp->name, "warn", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, d);
		return;
	}
	snprintf(d, sizeof(d), "waiting for its patches (up to an hour from when it was seen): %s",
		 err);
	redact_secrets_in(d, sizeof(d));
	if (!s->detail || strncmp(s->detail, "waiting for its patches", 23))
		wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, d);
	db_watch_series_wait(db, s->id, d, now_ms() + again * 1000);
}

static void take_one(struct orch *o, struct db *db, const struct watch_spec *sp,
		     const struct watch_series_row *s)
{
	struct fetch_opts fo = { .connect_timeout_ms = sp->timeout_s * 1000L,
				 .timeout_ms = sp->timeout_s * 4000L };
	struct buf mbox = BUF_INIT(0);
	struct series *ser = NULL;
	struct submit_spec ss;
	const char *tree, *branch;
	char why[512], hash[65], *e = NULL, *path = NULL, *ref = NULL;
	int64_t id = 0;
	int rc;

	fo.lore_base = sp->lore;
	/* patchwork: through the series' API answer, for its cover letter */
	if (!sp->lore && asprintf(&ref, "%s/%" PRId64, sp->patchwork, s->remote_id) < 0)
		ref = NULL;
	if ((sp->lore ? fetch_msgid(s->msgid, &fo, &mbox, NULL, &e) :
	     fetch_patchwork(ref ? ref : "", &fo, &mbox, NULL, &e)) < 0) {
		take_failed(db, sp, s, e ? e : s->mbox_url);
		goto out;
	}
	/* the intake parses it again; here: what base it names */
	rc = series_parse_mem(s->mbox_url, mbox.data ? mbox.data : "", mbox.len, &ser, &e);
	if (rc == SERIES_INCOMPLETE && sp->lore) {
		wait_for_patches(db, sp, s, e ? e : "patches are missing");
		goto out;
	} else if (rc < 0 && sp->lore) {
		take_failed(db, sp, s, e ? e : "not a series");
		goto out;
	} else if (!ser) {
		db_watch_series_state(db, s->id, "error", e);
		wlog(db, sp->name, "error", "series %" PRId64 " v%" PRId64 ": %s", s->remote_id,
		     s->version, e ? e : "not a series");
		goto out;
	}
	watch_rules_match(sp, s->name, s->subject, &tree, &branch, why, sizeof(why));
	if (!tree) {
		db_watch_series_state(db, s->id, "skipped", why);
		goto out;
	}
	/* a submission made for it before the daemon stopped is it */
	sha256_mem(mbox.data, mbox.len, hash);
	if (asprintf(&path, "%s/series/%.16s.mbox", o->state_dir, hash) < 0)
		path = NULL;
	if (path && db_watch_find_submission(db, path, s->seen_at, &id) == 1) {
		log_info("watch '%s': series %" PRId64 ": submission %" PRId64 " was made for it "
			 "already", sp->name, s->remote_id, id);
	} else {
		memset(&ss, 0, sizeof(ss));
		ss.tree = tree;
		ss.mbox = mbox.data;
		ss.mbox_len = mbox.len;
		ss.mbox_name = s->mbox_url;
		ss.base = ser->base_commit ? NULL : branch;
		ss.arches = sp->arches;
		ss.jobs = sp->jobs;
		ss.vcpus = sp->vcpus;
		ss.repeat = sp->repeat;
		ss.watch = sp->name;
		free(e);
		e = NULL;
		rc = orch_submit_series(o, &ss, &id, &e);
		if (rc == -2) {
			take_failed(db, sp, s, e ? e : "internal error");
			goto out;
		}
		if (rc < 0) {
			db_watch_series_state(db, s->id, "error", e);
			wlog(db, sp->name, "error", "series %" PRId64 " v%" PRId64 ": not queued: %s",
			     s->remote_id, s->version, e ? e : "?");
			goto out;
		}
	}
	if (ser->base_commit)
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "; base-commit %.12s from %s",
			 ser->base_commit, ser->base_commit_from ? ser->base_commit_from : "the series");
	if (db_watch_series_queued(db, s->id, id, tree, ser->base_commit ? ser->base_commit :
				   branch, ser->cover ? ser->cover->subject : ser->count ?
				   ser->patches[0].subject : NULL, why) < 0 || db_watch_count_queued(db, sp->name, 1) < 0) {
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
		goto out;
	}
	wlog(db, sp->name, "info", "series %" PRId64 " v%" PRId64 ": queued as submission %" PRId64
	     " (%s)", s->remote_id, s->version, id, why);
	supersede(db, sp, s, id);
out:
	free(ref);
	free(path);
	free(e);
	series_free(ser);
	buf_release(&mbox);
}

static void take_new(struct orch *o, struct db *db, const struct watch_spec *sp)
{
	struct watch_series_row *rows = NULL;
	size_t n = 0;
	int64_t now = now_ms();

	if (db_watch_series_list(db, sp->name, "new", 8, &rows, &n) < 0) {
		log_error("watch '%s': database: %s", sp->name, db_errmsg(db));
		return;
	}
	for (size_t i = 0; i < n && !orch_stopping(o); i++)
		if (rows[i].next_try_at <= now)
			take_one(o, db, sp, &rows[i]);
	db_rows_free(db_watch_series_fields, rows, sizeof(*rows), n);
}

/* --- the thread ---------------------------------------------------------- */

static void tick(struct orch *o, struct db *db)
{
	struct watch_row *ws = NULL;
	size_t n = 0;

	if (db_watch_list(db, &ws, &n) < 0) {
		log_error("watches: database: %s", db_errmsg(db));
		return;
	}
	for (size_t i = 0; i < n && !orch_stopping(o); i++) {
		struct watch_spec sp;
		json_t *j = json_loads(ws[i].spec, 0, NULL);
		char msg[512];

		if (watch_spec_parse(ws[i].name, j, &sp, msg, sizeof(msg)) < 0) {
			if (!ws[i].last_error || strcmp(ws[i].last_error, msg)) {
				wlog(db, ws[i].name, "error", "spec: %s", msg);
				db_watch_polled(db, ws[i].name, 0, msg, now_ms() + 3600000, 0, 0);
			}
		} else {
			if (ws[i].next_poll_at <= now_ms())
				poll_watch(db, &sp, &ws[i]);
			take_new(o, db, &sp);
			watch_report(o, db, &sp);
		}
		watch_spec_release(&sp);
		json_decref(j);
	}
	db_rows_free(db_watch_fields, ws, sizeof(*ws), n);
}

static void *watcher_main(void *arg)
{
	struct orch *o = arg;
	struct db *db = o->watcher->db;

	while (!orch_stopping(o)) {
		struct timespec ts;

		tick(o, db);
		pthread_mutex_lock(&o->lock);
		if (!o->stopping) {
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += WATCH_TICK_S;
			pthread_cond_timedwait(&o->build_work, &o->lock, &ts);
		}
		pthread_mutex_unlock(&o->lock);
	}
	return NULL;
}

/* The [watch] sections into the database: added, their specs updated,
 * the ones gone from the config removed */
static void sync_config(struct orch *o, struct db *db)
{
	const struct config *c = o->conf;
	const char **names = calloc(c->nwatches + 1, sizeof(*names));
	char now[32];

	iso_now(now, sizeof(now), 0);
	for (size_t i = 0; names && i < c->nwatches; i++) {
		const struct config_watch *cw = &c->watches[i];
		json_t *j = watch_spec_json((const char *const *)cw->keys,
					    (const char *const *)cw->values, cw->n);
		const char *since = json_string_value(json_object_get(j, "since"));
		char *s = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
		int rc = s ? db_watch_sync_config(db, cw->name, s, since ? since : now) : -1;

		if (rc < 0)
			log_error("watch '%s': database: %s", cw->name, db_errmsg(db));
		else if (rc == 1)
			log_error("watch '%s': [watch %s] in the config, but `kfleet watch add` made "
				  "one of that name: the config's is left out (kfleet watch rm %s)",
				  cw->name, cw->name, cw->name);
		names[i] = cw->name;
		free(s);
		json_decref(j);
	}
	if (names && db_watch_drop_config_except(db, names, c->nwatches) < 0)
		log_error("watches: database: %s", db_errmsg(db));
	free(names);
}

int watcher_start(struct orch *o)
{
	char *err = NULL;

	o->watcher = calloc(1, sizeof(*o->watcher));
	if (!o->watcher)
		return -1;
	o->watcher->db = db_open(o->db_path, &err);
	if (!o->watcher->db) {
		log_error("watches: %s", err ? err : "cannot open the database");
		free(err);
		free(o->watcher);
		o->watcher = NULL;
		return -1;
	}
	sync_config(o, o->watcher->db);
	if (pthread_create(&o->watcher->thread, NULL, watcher_main, o) != 0) {
		db_close(o->watcher->db);
		free(o->watcher);
		o->watcher = NULL;
		return -1;
	}
	return 0;
}

void watcher_stop(struct orch *o)
{
	if (!o->watcher)
		return;
	orch_ask_stop(o);
	pthread_join(o->watcher->thread, NULL);
	db_close(o->watcher->db);
	free(o->watcher);
	o->watcher = NULL;
}

/* --- kfleet watch add / rm ------------------------------------------------ */

int orch_watch_add(struct orch *o, const char *name, const json_t *spec, char **err)
{
	struct watch_spec sp;
	char msg[512], now[32], *s;
	const char *since = json_string_value(json_object_get(spec, "since"));
	int rc;

	*err = NULL;
	rc = watch_spec_parse(name, spec, &sp, msg, sizeof(msg));
	watch_spec_release(&sp);
	if (rc < 0)
		return set_errf(err, "%s", msg);
	iso_now(now, sizeof(now), 0);
	s = json_dumps(spec, JSON_COMPACT | JSON_SORT_KEYS);
	if (!s)
		return set_errf(err, "out of memory"), -2;
	pthread_mutex_lock(&o->db_lock);
	rc = db_watch_add(o->db, name, s, since ? since : now);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	free(s);
	if (rc < 0)
		return -2;
	if (rc == 1)
		return set_errf(err, "watch '%s': exists already (kfleet watch rm %s first)", name,
				name);
	log_info("watch '%s': added", name);
	orch_wake(o, &o->build_work, 1);
	return 0;
}

int orch_watch_remove(struct orch *o, const char *name, char **err)
{
	int rc;

	*err = NULL;
	pthread_mutex_lock(&o->db_lock);
	rc = db_watch_remove(o->db, name);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0)
		return -2;
	if (rc == 0)
		return set_errf(err, "watch '%.80s': no such watch (kfleet watch list)", name);
	if (rc == 2)
		return set_errf(err, "watch '%s': it is a [watch %s] section of the config: remove "
				"it there and restart kfleetd", name, name);
	log_info("watch '%s': removed", name);
	return 0;
}
