/* SPDX-License-Identifier: GPL-2.0-only */
/* kcidb.h: kfleet's results as KCIDB report data (kernelci/kcidb-io's
 * schema v4.5): each submission a base checkout and, with a series, the
 * series' checkout; each build a build; each done run a test, each of its
 * results and metrics a test below it. Above db/ (db/kcidb.h reads the
 * rows), below web/ (GET /api/export/kcidb) and the watches (a file or a
 * POST per series). Ids are "ORIGIN:INSTANCE:..." (the database's random
 * instance id, then row ids and commits), so a second export of the same
 * rows gives the same ids and another install or a new state directory
 * never gives them again. */
#ifndef KF_EXPORT_KCIDB_H
#define KF_EXPORT_KCIDB_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

struct db;
struct json_t;

#define KCIDB_MAJOR 4
#define KCIDB_MINOR 5
#define KCIDB_ORIGIN_DEFAULT "kfleet"
#define KCIDB_EXCERPT_MAX 4096   /* bytes of a log excerpt (the schema allows 16384) */

struct kcidb_opts {
	const char *origin;        /* [a-z0-9_]+; NULL: "kfleet" */
	const char *link_base;     /* kfleet's pages ("http://host:port"): log_url and
				      output_files link there; NULL: no links */
	int64_t since_ms;          /* runs, builds, submissions since then */
	int64_t submission_id;     /* > 0: that submission's only */
};

/* The report ({"version", "checkouts", "builds", "tests"}): a new
 * reference, or NULL with err ("more than 200000 tests since ...: ask for
 * less", a database error). */
struct json_t *kcidb_export(struct db *db, const struct kcidb_opts *o, char *err, size_t n);

/* ---- the mapping's pieces (pure) ---- */

/* KCIDB's status of a kfleet result status (pass, fail, skip, xfail,
 * error, timeout, missing) and of a run's outcome (passed, failed,
 * timeout, no-boot, crash, console-flood, infra, skipped); NULL for
 * anything else (canceled: not a test). Static strings. */
const char *kcidb_result_status(const char *status);
const char *kcidb_run_status(const char *outcome);
/* ms since the epoch as RFC 3339 in UTC ("2024-05-01T12:00:00.250+00:00");
 * 0 / -1 (out too small, a time before 1970) */
int kcidb_time(int64_t ms, char *out, size_t n);
/* Whether s is an origin KCIDB takes: 1 to 64 of [a-z0-9_] */
int kcidb_origin_ok(const char *s);
/* A kfleet test path ("net/tcp_fastopen v4") as KCIDB path components
 * appended to out: '/' becomes '.', anything outside [a-zA-Z0-9_-] '_',
 * empty components dropped ("net.tcp_fastopen_v4") */
void kcidb_path_append(struct buf *out, const char *path);
/* The test path of a run of job (NULL: a plain command): "kselftest.T" for
 * a kselftest-T job, else the job's name; appended to out */
void kcidb_job_path(struct buf *out, const char *job);
/* A --since / ?since= value: "YYYY-MM-DD", "YYYY-MM-DDTHH:MM:SS[Z]" (UTC),
 * or a time ago "N" followed by s, m, h or d. 0 with *ms for a date, 1
 * with *ms for a time ago (it moves with now), or -1 with err ("since:
 * 'x' is not a date (YYYY-MM-DD[THH:MM:SS]) or a time ago (7d)") */
int kcidb_parse_since(const char *s, int64_t now, int64_t *ms, char *err, size_t n);
/* KCIDB's patchset hash (the sha256 of each patch, newline-terminated,
 * hashed again) of a series: its patches in order of index, each the
 * message as it was in the mbox (from its line, series_json's "line", to
 * the next "From " line). 1 with out, 0 when it cannot be made (the mbox
 * gone, no lines), -1 out of memory. */
int kcidb_patchset_hash(const char *mbox, size_t mbox_len, const char *series_json,
			char out[65]);

#endif
