// SPDX-License-Identifier: GPL-2.0-only
/* results.c: what a job leaves behind, into the database. Its output
 * (output.txt) is parsed with the job's parser, plus METRIC lines any job
 * may print, into result and sample rows; the results directory is
 * copied out of the stopped guest's overlay into the run's directory.
 * Parsing takes no lock; only results_store() writes the database. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "images/copyout.h"

int results_parse(const struct job_def *d, int64_t run_id, const char *outp,
		  struct job_output *jo)
{
	memset(jo, 0, sizeof(*jo));
	buf_init(&jo->text, 0);
	job_results_init(&jo->res, 0);
	job_samples_init(&jo->smp, 0);
	if (read_file(outp, &jo->text, JOB_OUTPUT_MAX) < 0)
		return -1;
	if (job_def_parse(d, buf_str(&jo->text), jo->text.len, &jo->res, &jo->smp) < 0 ||
	    (strcmp(d->parser, "metrics") && strcmp(d->parser, "bench") &&
	     metrics_parse(buf_str(&jo->text), jo->text.len, &jo->smp) < 0)) {
		log_warn("run %" PRId64 ": job '%s': parsing its output ran out of memory", run_id,
			 d->name);
		return -1;
	}
	jo->rows = calloc(jo->res.n ? jo->res.n : 1, sizeof(*jo->rows));
	jo->srows = calloc(jo->smp.n ? jo->smp.n : 1, sizeof(*jo->srows));
	if (!jo->rows || !jo->srows)
		return -1;
	for (size_t i = 0; i < jo->res.n; i++) {
		jo->rows[i].path = jo->res.v[i].path;
		jo->rows[i].status = (char *)job_status_name(jo->res.v[i].status);
		jo->rows[i].detail = jo->res.v[i].reason;
	}
	for (size_t i = 0; i < jo->smp.n; i++) {
		jo->srows[i].metric = jo->smp.v[i].name;
		jo->srows[i].unit = jo->smp.v[i].unit;
		jo->srows[i].value = jo->smp.v[i].value;
		jo->srows[i].seq = (int)jo->smp.v[i].seq;
	}
	return 0;
}

int orch_store_retry(struct orch *o, struct db *db, int64_t run_id, const char *what, int try)
{
	int stopping, full = db && db_full(db);

	if (!o || (!db_busy(db) && !full))
		return 0;
	pthread_mutex_lock(&o->lock);
	stopping = o->stopping;
	pthread_mutex_unlock(&o->lock);
	if (stopping)
		return 0;   /* the restart's recovery retries the run */
	if (try == 0 && full)
		log_warn("run %" PRId64 ": the database's disk is full (%s): its %s is kept and "
			 "stored once there is room", run_id, db_errmsg(db), what);
	else if (try == 0)
		log_warn("run %" PRId64 ": the database is locked by another process (%s): its %s "
			 "is kept and stored once the lock is gone", run_id, db_errmsg(db), what);
	/* the busy timeout waited 10 s already; then 1, 2, 4 ... 30 s more,
	 * a second at a time so that a stop is not held up */
	for (unsigned s = try < 5 ? 1u << try : 30; s; s--) {
		sleep(1);
		pthread_mutex_lock(&o->lock);
		stopping = o->stopping;
		pthread_mutex_unlock(&o->lock);
		if (stopping)
			return 0;
	}
	return 1;
}

void results_store(struct orch *o, struct db *db, int64_t run_id, const struct job_output *jo)
{
	for (int i = 0; db_run_store_results(db, run_id, jo->rows, jo->res.n, jo->srows,
					     jo->smp.n) < 0; i++)
		if (!orch_store_retry(o, db, run_id, "results", i)) {
			log_error("run %" PRId64 ": cannot store %zu results and %zu samples: %s",
				  run_id, jo->res.n, jo->smp.n, db_errmsg(db));
			break;
		}
}

void results_release(struct job_output *jo)
{
	free(jo->rows);
	free(jo->srows);
	buf_release(&jo->text);
	job_results_release(&jo->res);
	job_samples_release(&jo->smp);
	jo->rows = NULL;
	jo->srows = NULL;
}

void results_take(struct orch *o, struct db *db, const struct job_def *d, int64_t run_id,
		  const char *outp, struct outcome *out)
{
	struct job_output jo;

	if (results_parse(d, run_id, outp, &jo) == 0) {
		results_store(o, db, run_id, &jo);
		outcome_from_results(&jo.res, buf_str(&jo.text), out);
	}
	results_release(&jo);
}

void results_copy_out(const struct job_def *d, int64_t run_id, const char *overlay,
		      const char *dir, struct outcome *out)
{
	struct img_copy_limits lim = { 0 };
	struct img_copy_report rep = { 0 };
	char *host = path_join(dir, RUN_DIR_RESULTS), *err = NULL;
	int64_t t0 = mono_ms();

	if (!host) {
		err = strdup("out of memory");
	} else if (img_copy_out(overlay, "qcow2", d->results, host, &lim, &rep, &err) == 0) {
		log_info("run %" PRId64 ": results '%s': %s%u files, %llu bytes copied out in "
			 "%.1f s%s", run_id, d->results, rep.missing ? "missing; " : "", rep.files,
			 rep.bytes, (double)(mono_ms() - t0) / 1000,
			 rep.skipped ? " (links and special files skipped)" : "");
	}
	if (err) {
		log_warn("run %" PRId64 ": results '%s' not copied out: %s", run_id, d->results, err);
		outcome_note(out, " (results not copied: %s)", err);
	}
	free(err);
	free(host);
}

int results_stream_open(struct channel *ch, const char *dir, unsigned long long cap)
{
	char *tar = path_join(dir, RUN_FILE_RESULTS_TAR);
	int rc;

	if (!tar) {
		errno = ENOMEM;
		return -1;
	}
	rc = channel_results(ch, tar, cap);
	free(tar);
	return rc;
}

int results_stream_take(const struct job_def *d, int64_t run_id, struct channel *ch,
			const char *dir, struct outcome *out)
{
	struct img_copy_limits lim = { 0 };
	struct img_copy_report rep = { 0 };
	char *host = NULL, *err = NULL;
	int64_t t0 = mono_ms();
	int rc = 1;

	if (!ch->res_path)
		return 1;
	switch (ch->res_state) {
	case CHANNEL_RES_MISSING:
		log_info("run %" PRId64 ": results '%s': missing in the guest", run_id, d->results);
		rc = 0;
		goto out;
	case CHANNEL_RES_DONE:
		break;
	case CHANNEL_RES_NONE:
		goto out;              /* a crash before the end: the overlay has them */
	default:
		log_info("run %" PRId64 ": results '%s' not streamed (%s): copying them out of "
			 "the disk", run_id, d->results, ch->res_why);
		goto out;
	}
	host = path_join(dir, RUN_DIR_RESULTS);
	if (!host)
		err = strdup("out of memory");
	else if (img_copy_extract(ch->res_path, host, &lim, &rep, &err) == 0)
		log_info("run %" PRId64 ": results '%s': %u files, %llu bytes streamed by the "
			 "agent, extracted in %.2f s%s", run_id, d->results, rep.files, rep.bytes,
			 (double)(mono_ms() - t0) / 1000,
			 rep.skipped ? " (links and special files skipped)" : "");
	if (err) {
		log_warn("run %" PRId64 ": results '%s' from the agent refused: %s", run_id,
			 d->results, err);
		outcome_note(out, " (results not copied: %s)", err);
	}
	rc = 0;
	/* what the frames carried is in results/ now (or refused): the
	 * channel file keeps the other frames */
	if (channel_drop_results(ch->path) < 0)
		log_warn("run %" PRId64 ": '%s': cannot drop the archive's frames: %s", run_id,
			 ch->path, strerror(errno));
out:
	unlink(ch->res_path);
	free(host);
	free(err);
	return rc;
}
