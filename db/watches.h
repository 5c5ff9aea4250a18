/* SPDX-License-Identifier: GPL-2.0-only */
/* watches.h: watches as stored: a patchwork project kfleet follows (its
 * spec as JSON, the position reached, what its polls saw), every series
 * version it saw with what became of it, the checks it posted and its
 * recent errors. watch/ writes them; the pages and the CLI
 * read them. */
#ifndef KF_DB_WATCHES_H
#define KF_DB_WATCHES_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* All strings owned; free with db_row_release(db_watch_fields, ...) */
struct watch_row {
	char *name;
	char *source;              /* "config" or "cli" */
	char *spec;                /* JSON object of the spec's keys */
	int64_t created_at;
	int64_t position;          /* the newest remote series id taken */
	char *position_date;       /* its date, as the remote gave it ("since" of the next poll) */
	int64_t last_poll_at, last_ok_at, next_poll_at;
	int64_t polls, found, queued, errors;
	int64_t failing;           /* polls in a row that failed: the backoff */
	char *last_error;
	int64_t last_error_at;
};
extern const struct db_field db_watch_fields[];

/* One series version a watch saw */
struct watch_series_row {
	int64_t id;
	char *watch;
	int64_t remote_id;         /* the patchwork series id */
	char *msgid;               /* the cover letter's (else patch 1's), without <> */
	int64_t version;
	char *name;                /* the series' name, as the remote gave it */
	char *subject;             /* the cover letter's (else patch 1's) subject, tags in */
	char *submitter;           /* "Name <email>" */
	char *web_url, *mbox_url;
	char *patches;             /* JSON array of the remote patch ids */
	int64_t seen_at;
	char *state;               /* new (to take), queued (submitted), skipped (no rule
				      took it), error (could not be taken), superseded (a
				      newer version came while it was queued), reported */
	char *detail;              /* why: the rule that took or skipped it, the error */
	char *tree, *base;         /* what the rules chose */
	int64_t tries, next_try_at;
	int64_t submission_id, superseded_by;
	int64_t pending_posted;
	char *verdict;             /* success, warning, fail: the final check's state */
	char *verdict_detail;      /* its one-line description */
	int64_t reported_at;
	char *mail_path;           /* the reply written to report_dir, or NULL */
	int64_t mail_sent_at;      /* when SMTP took it (send = yes), 0: not sent */
	char *mail_error;          /* why the last send failed */
	int64_t mail_tries;
	int64_t kcidb_at;          /* when its KCIDB export was written or POSTed, 0: not */
	char *kcidb_path;          /* the file written, NULL for a POST */
	char *kcidb_error;         /* why the last try failed */
	int64_t kcidb_tries, kcidb_next_at;
};
extern const struct db_field db_watch_series_fields[];

struct watch_check_row {
	int64_t id, series_id, patch_id;
	char *state, *description, *target_url;
	int64_t posted_at, http_status;
	char *error;               /* NULL: the remote took it */
};
extern const struct db_field db_watch_check_fields[];

struct watch_log_row {
	int64_t id;
	char *watch;
	int64_t at;
	char *level, *text;
};
extern const struct db_field db_watch_log_fields[];

/* Adds a watch (source "cli"): 0 added, 1 the name is taken, -1 error */
int db_watch_add(struct db *db, const char *name, const char *spec, const char *since);
/* A [watch NAME] of the config: added, or its spec updated (its position
 * kept). 0, 1 when a watch of that name was added by the CLI, -1 error */
int db_watch_sync_config(struct db *db, const char *name, const char *spec, const char *since);
/* Config watches no longer in the config are removed (names: those that
 * are). 0 / -1 */
int db_watch_drop_config_except(struct db *db, const char *const *names, size_t n);
/* Removes a CLI watch: 1 removed, 0 no such watch, 2 it is the config's, -1 */
int db_watch_remove(struct db *db, const char *name);
int db_watch_get(struct db *db, const char *name, struct watch_row *w);   /* 1 / 0 / -1 */
int db_watch_list(struct db *db, struct watch_row **rows, size_t *n);     /* 0 / -1 */
/* The end of a poll: ok or the error, when the next one is due, how many
 * series it found and queued. 0 / -1 */
int db_watch_polled(struct db *db, const char *name, int ok, const char *error,
		    int64_t next_poll_at, int found, int queued);
/* Adds to the watch's queued count. 0 / -1 */
int db_watch_count_queued(struct db *db, const char *name, int n);
/* Moves the position on (never back). 0 / -1 */
int db_watch_advance(struct db *db, const char *name, int64_t position, const char *date);
/* The same by date alone (a lore watch): never back */
int db_watch_advance_date(struct db *db, const char *name, const char *date);
/* A line of the watch's log (its newest 200 kept); level "info"/"warn"/"error" */
int db_watch_log(struct db *db, const char *name, const char *level, const char *text);
/* The newest max lines of a watch's log, newest first */
int db_watch_log_list(struct db *db, const char *name, size_t max, struct watch_log_row **rows,
		      size_t *n);

/* Records a series version (s->id set): 0 new, 1 seen already, -1 error */
int db_watch_series_add(struct db *db, struct watch_series_row *s);
/* Whether the watch has a row for the remote (patchwork) series id: 1 / 0 / -1 */
int db_watch_series_known(struct db *db, const char *watch, int64_t remote_id);
/* The watch's series in a state, oldest first (state NULL: all, newest first) */
int db_watch_series_list(struct db *db, const char *watch, const char *state, size_t max,
			 struct watch_series_row **rows, size_t *n);
int db_watch_series_get(struct db *db, int64_t id, struct watch_series_row *s); /* 1 / 0 / -1 */
/* The series that reported to submission id, if any (1 / 0 / -1) */
int db_watch_series_of_submission(struct db *db, int64_t submission_id,
				  struct watch_series_row *s);
/* Sets the state (and detail, when not NULL) */
int db_watch_series_state(struct db *db, int64_t id, const char *state, const char *detail);
/* Taken: queued as submission_id, with the tree and base the rules chose
 * and the subject as the mail had it (NULL: the remote's kept) */
int db_watch_series_queued(struct db *db, int64_t id, int64_t submission_id, const char *tree,
			   const char *base, const char *subject, const char *detail);
/* A failed try: tries + 1, the next one at next_try_at */
int db_watch_series_retry(struct db *db, int64_t id, const char *detail, int64_t next_try_at);
/* A series waiting for mail still on its way: the next look at
 * next_try_at, tries not counted */
int db_watch_series_wait(struct db *db, int64_t id, const char *detail, int64_t next_try_at);
int db_watch_series_superseded(struct db *db, int64_t id, int64_t by, const char *detail);
int db_watch_series_pending(struct db *db, int64_t id);
int db_watch_series_reported(struct db *db, int64_t id, const char *verdict, const char *detail,
			     const char *mail_path);
/* Versions older than version of the series of submitter (same watch)
 * still queued or new, whatever their name: the caller compares titles
 * (watch_series_title()), as the tags in a name change with its version */
int db_watch_series_older(struct db *db, const char *watch, const char *submitter,
			  int64_t version, struct watch_series_row **rows, size_t *n);

/* What submission id's work came to: its runs by state and outcome */
struct watch_outcome {
	int runs, done, passed, canceled, infra, failed;  /* failed: any other outcome */
};
int db_watch_submission_outcome(struct db *db, int64_t id, struct watch_outcome *o);
/* A submission queued at or after since whose mbox is mbox_path: the one
 * a watch made before the daemon died (1 with *id, 0 none, -1 error) */
int db_watch_find_submission(struct db *db, const char *mbox_path, int64_t since, int64_t *id);
/* Cancels what of the submission has not started: the submission itself
 * when still queued (failed, outcome superseded) and its queued runs
 * (canceled), each saying why. The runs canceled, or -1 */
int db_watch_cancel_submission(struct db *db, int64_t id, const char *why);

/* Replies written but not sent yet, fewer than max_tries tried */
int db_watch_series_unsent(struct db *db, const char *watch, int max_tries,
			   struct watch_series_row **rows, size_t *n);
/* A send: ok (error NULL) or not; the next try not before next_try_at */
int db_watch_series_mailed(struct db *db, int64_t id, const char *error, int64_t next_try_at);
/* Reported series of a submission whose KCIDB export is due: not done
 * yet, fewer than max_tries tried, the next try's time reached */
int db_watch_series_kcidb_due(struct db *db, const char *watch, int max_tries,
			      struct watch_series_row **rows, size_t *n);
/* A KCIDB export: done (error NULL; path the file, or NULL for a POST) or
 * not, the next try not before next_at */
int db_watch_series_kcidb(struct db *db, int64_t id, const char *path, const char *error,
			  int64_t next_at);
/* Reports of the series not before at (ms) */
int db_watch_series_later(struct db *db, int64_t id, int64_t at);
/* The submission's runs by job, arch and vCPUs: one line each onto out
 * ("metrics-demo x86_64 1 vCPU: 4 runs, 4 passed"). 0 / -1 */
struct buf;
int db_watch_run_lines(struct db *db, int64_t submission_id, struct buf *out);

int db_watch_check_add(struct db *db, int64_t series_id, int64_t patch_id, const char *state,
		       const char *description, const char *target_url, int64_t http_status,
		       const char *error);
int db_watch_checks(struct db *db, int64_t series_id, struct watch_check_row **rows, size_t *n);

#endif
