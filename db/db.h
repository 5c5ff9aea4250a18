/* SPDX-License-Identifier: GPL-2.0-only */
/* db.h: the SQLite database, kfleet's single source of truth.
 * It holds hosts, kernels, runs (the queue is the runs in state 'queued'),
 * attempts, results and metric samples. Every state change is one
 * transaction, so the daemon can die at any moment and carry on after a
 * restart. Each thread opens its own struct db. */
#ifndef KF_DB_H
#define KF_DB_H

#include <stdint.h>
#include <stddef.h>

struct sqlite3;
struct db;

#define DB_SCHEMA_VERSION 22

enum run_state { RUN_QUEUED, RUN_RUNNING, RUN_DONE, RUN_STATE_COUNT };

/* Whose fault a run's end is. Only RUN_OUT_INFRA is retried automatically. */
enum run_outcome {
	RUN_OUT_NONE,          /* not ended yet */
	RUN_OUT_PASSED,        /* the command exited 0 */
	RUN_OUT_FAILED,        /* the command exited non-zero or was killed */
	RUN_OUT_TIMEOUT,       /* the run's wall-clock limit was hit */
	RUN_OUT_NO_BOOT,       /* no agent hello within the boot timeout */
	RUN_OUT_CRASH,         /* the kernel crashed (panic, oops, BUG...) */
	RUN_OUT_CONSOLE_FLOOD, /* the guest wrote more console than allowed */
	RUN_OUT_INFRA,         /* libvirt error, QEMU died, disk full... */
	RUN_OUT_CANCELED,      /* canceled by a user (or a bisection, a newer series):
				  says nothing about the kernel, never retried */
	RUN_OUT_SKIPPED,       /* the job said it cannot run here (exit 4, "SKIP: why") */
	RUN_OUT_COUNT
};

const char *run_state_name(enum run_state s);
const char *run_outcome_name(enum run_outcome o);
int run_state_parse(const char *s, enum run_state *out);     /* 0 / -1 */
int run_outcome_parse(const char *s, enum run_outcome *out); /* 0 / -1 */

/* What a user asks for; the strings are borrowed. */
struct run_request {
	const char *kernel_path;   /* absolute */
	const char *kernel_sha256; /* 64 hex */
	const char *arch;          /* "x86_64" */
	int vcpus;
	int memory_mb;
	int timeout_s;
	const char *command;
	const char *job;           /* the job it runs, or NULL for a plain command */
	const char *topology;      /* "S:C:T" sockets:cores:threads, or NULL */
	int numa_nodes;            /* 1 or more */
	int max_attempts;          /* infra failures retried until this many attempts */
	const char *watch;         /* the watch it tests a series for, or NULL: a person's
				      (the fair queue puts people's runs first) */
};

/* A run as stored. All strings are owned; run_release() frees them.
 * Times are ms since the epoch, 0 when not reached. */
struct run {
	int64_t id;
	int64_t kernel_id;
	char *kernel_path;
	char *arch;
	int vcpus;
	int memory_mb;
	int timeout_s;
	char *command;
	char *job;             /* the job's name, or NULL */
	char *topology;        /* "S:C:T", or NULL for QEMU's default */
	int numa_nodes;
	enum run_state state;
	enum run_outcome outcome;
	char *detail;          /* why, in one line (NULL when none) */
	char *splat;           /* the first crash lines from the console, or NULL */
	int attempt;           /* attempts started so far */
	int max_attempts;
	char *host;            /* host name it ran on, or NULL */
	char *accel;           /* "kvm" / "tcg", or NULL */
	char *machine;         /* e.g. "pc-q35-7.2" */
	char *cpu_model;       /* "qemu64", "cortex-a57", "host-passthrough (Skylake-Server)" */
	char *boot;            /* the guest setup ([host] boot): "default", "fast: qboot
				  loglevel=5 nokaslr tsc=reliable"; NULL before it was recorded */
	char *qemu_version;
	char *libvirt_version;
	char *domain;          /* libvirt domain name of the current attempt */
	int64_t queued_at, started_at, booted_at, ended_at;
	int has_exit_code;
	int exit_code;
	char *guest_release;   /* uname -r as the agent reported it */
	int guest_nproc;
	int64_t guest_mem_kb;
	char *run_dir;         /* directory with console.log, output.txt, domain.xml */
	char *watch;           /* the watch it is for, or NULL: a person's */
};

void run_release(struct run *r);

/* Opens (creating) the database at path, sets WAL, busy_timeout and foreign
 * keys, and migrates the schema to DB_SCHEMA_VERSION. Returns NULL with *err
 * (caller frees) on failure. A database newer than this program is refused. */
struct db *db_open(const char *path, char **err);
void db_close(struct db *db);
/* 1 when the last call failed because another connection held the lock
 * past the busy timeout (worth trying again), else 0 */
int db_busy(struct db *db);
/* 1 when the last error was a full disk (SQLITE_FULL): a write may go
 * through once there is room */
int db_full(struct db *db);
/* PRAGMA quick_check: 0 the file is sound; -1 with *err (caller frees) the
 * first problem it found. Reads the whole file: at start only. */
int db_quick_check(struct db *db, char **err);
struct sqlite3 *db_sqlite(struct db *db);   /* borrowed */
/* The last error of this connection, borrowed until the next call */
const char *db_errmsg(struct db *db);
/* One read transaction around many statements (a page that reads row by
 * row): they see one state of the database and take its locks once, not
 * once each. No write inside. 0 / -1; db_read_end() ends it. */
int db_read_begin(struct db *db);
void db_read_end(struct db *db);

/* A short random id of this database, made when it was created: names of
 * libvirt domains carry it, so two state directories never touch each
 * other's guests. Borrowed. */
const char *db_instance(struct db *db);

/* Hosts: upsert by name with what libvirt told about it. 0 / -1 */
int db_host_upsert(struct db *db, const char *name, const char *uri, const char *accel,
		   const char *qemu_version, const char *libvirt_version, int max_vcpus,
		   int64_t memory_kb);

/* A host kfleetd could not reach yet: its row made if missing (what an
 * earlier connection told is kept), its URI the config's. 0 / -1 */
int db_host_known(struct db *db, const char *name, const char *uri);

/* Marks a host in or out of placement, with why. 0 / -1 */
int db_host_health(struct db *db, const char *name, int healthy, const char *detail);

/* Finds or adds the kernel with this path and content hash; *id set. 0 / -1 */
int db_kernel_import(struct db *db, const char *path, const char *arch,
		     const char *sha256, int64_t *id);

/* Queues a run; *id set. 0 / -1 */
int db_run_insert(struct db *db, const struct run_request *req, int64_t *id);
/* 1 found (r filled, release it), 0 not found, -1 error */
int db_run_get(struct db *db, int64_t id, struct run *r);
/* Records a run that ran elsewhere (kfleet import): state done, accel
 * "imported", the given outcome and detail, its files in run_dir; *id set.
 * 0 / -1 */
int db_run_import(struct db *db, const struct run_request *req, const char *outcome,
		  const char *detail, const char *run_dir, int64_t *id);
/* Sets a finished run's outcome and detail (an import, once parsed). 0 / -1 */
int db_run_set_outcome(struct db *db, int64_t id, const char *outcome, const char *detail);
/* Inserts a request and its 2 x repeats runs, base and patched
 * alternating, in one transaction; *id is the request's. 0 / -1 */
int db_request_insert(struct db *db, const struct run_request *base,
		      const struct run_request *patched, int repeats, int64_t *id);

/* A request run until decided (orchestrator/decided.c): after each round
 * more interleaved pairs while a metric is uncertain, at most max_runs a
 * side in all */
struct request_mode {
	int until_decided;
	int max_runs;          /* per side, the first round's included */
	double margin;         /* a fraction; 0: each metric's own (the job's) */
};
/* db_request_insert() with a mode (NULL: a plain request); an until-decided
 * one starts deciding, its first round recorded */
int db_request_insert_mode(struct db *db, const struct run_request *base,
			   const struct run_request *patched, int repeats,
			   const struct request_mode *m, int64_t *id);
/* db_submission_insert() with the mode its requests get; 0 / -1 */
struct submission;
int db_submission_insert_mode(struct db *db, struct submission *s,
			      const struct request_mode *m);
/* Requests deciding whose every run is done, oldest first, at most max
 * (*ids: caller frees). Requests a submission made take its mode first.
 * 0 / -1 */
int db_requests_deciding(struct db *db, size_t max, int64_t **ids, size_t *n);
/* Queues round rounds + 1 of a deciding request: pairs more runs a side,
 * base and patched alternating, copied from its first base and patched
 * runs, and the round's row, in one transaction; only when the request is
 * still deciding at rounds rounds (so a round is never queued twice).
 * 1 queued, 0 not (no longer deciding or rounds moved on), -1 error */
int db_request_round_add(struct db *db, int64_t id, int rounds, int pairs, const char *why);
/* Ends a deciding request: state "decided", "cap", "failing" or
 * "canceled", and why. 1 ended, 0 it was not deciding, -1 error */
int db_request_decided_end(struct db *db, int64_t id, const char *state, const char *reason);

struct request_round {
	int n;                 /* 1, 2, ... */
	int pairs;             /* runs a side it queued */
	int64_t queued_at;
	char *why;
};
/* The request's rounds in order (*v: free with db_request_rounds_free()).
 * 0 / -1 */
int db_request_rounds(struct db *db, int64_t id, struct request_round **v, size_t *n);
void db_request_rounds_free(struct request_round *v, size_t n);

struct request {
	int64_t id;
	int64_t created_at;
	int64_t base_kernel_id, patched_kernel_id;
	char *job;             /* or NULL */
	int repeats;           /* the first round's runs a side */
	int64_t *run_ids;      /* its runs in order */
	size_t nruns;
	int until_decided;     /* struct request_mode */
	int max_runs;
	double margin;         /* 0: the job's */
	int rounds;            /* queued so far (1 for a plain request) */
	char *decided;         /* NULL (plain), "deciding", "decided", "cap",
				* "failing", "canceled" */
	char *stop_reason;     /* once stopped, or NULL */
	int64_t decided_at;
};
/* 1 found (r filled, release with request_release), 0 not found, -1 error */
int db_request_get(struct db *db, int64_t id, struct request *r);
void request_release(struct request *r);

/* Newest first, at most limit, with id < before (0: from the newest).
 * *runs is an array the caller frees with run_list_free(). 0 / -1 */
int db_run_list(struct db *db, int limit, int64_t before, struct run **runs, size_t *n);
void run_list_free(struct run *runs, size_t n);
/* Counts per state, for the status page. 0 / -1 */
int db_run_counts(struct db *db, int64_t counts[RUN_STATE_COUNT]);
/* The number that grows with any change to what the watch pages and the
 * KCIDB export read besides the runs that end (schema step 21's
 * triggers): with the count of done runs, the key of their kept answers.
 * 0 / -1 */
int db_kept_stamp(struct db *db, int64_t *n);

/* Claims the oldest queued run for host in one transaction: state becomes
 * running, attempt is incremented, an attempt row is opened, domain is set to
 * "kf-<instance>-<id>". 1 claimed (r filled), 0 queue empty, -1 error. */
int db_run_claim(struct db *db, const char *host, struct run *r);
/* What a host can take now. Runs that do not fit stay queued for another
 * host or for later. */
struct claim_fit {
	int max_vcpus_x86_64;   /* vCPUs per guest; 0: not that arch at all */
	int max_vcpus_arm64;
	int max_memory_mb;      /* the host's memory not given to guests yet */
	int leave_vcpus;        /* x86_64 runs of at most these vCPUs ... */
	int leave_memory_mb;    /* ... and this memory are left to a KVM host with a
				   free slot (0: none is) */
	const char *pin_jobs;   /* runs of these jobs (",a,b,"; "*": all; NULL: none) ... */
	int pin_max;            /* ... of at most this many vCPUs wait ... */
	int pin_free;           /* ... while fewer cores than their vCPUs are free */
	int cpus;               /* the host's CPUs runs are packed into, a run taking
				   min(vCPUs, cpus) of them (0: CPUs not counted) ... */
	int cpus_free;          /* ... and those its running runs leave */
	int memory_total_mb;    /* the host's memory for guests with none running (0:
				   max_memory_mb): what a run must fit to be waited for */
	int64_t hold_before;    /* a run queued before this (ms since the epoch) that fits
				   the host only once it is emptier is waited for (0: none) */
};
/* Claims the oldest queued run that fits (first in, first out, whoever it
 * is for: the workers choose with the fair queue instead). 1 / 0 / -1 */
int db_run_claim_fit(struct db *db, const char *host, const struct claim_fit *fit,
		     struct run *r);

/* The queue as one host sees it, a class per whom runs are for: people
 * (watch NULL) and each watch with queued runs. Strings owned. */
struct queue_class {
	char *watch;            /* NULL: people's runs */
	int64_t fit_id;         /* the oldest queued run that fits the host now; 0 none */
	int64_t held_id;        /* the oldest run queued before hold_before that fits the
				   host only emptier (CPUs, memory, cores to pin); 0 none */
	int64_t oldest_id;      /* the oldest queued run, fitting or not */
	int queued;             /* its queued runs */
	int max_running;        /* a watch's cap ([watch] max_running; 0: none) */
	int running;            /* its runs running now, on any host */
	int64_t last_start;     /* when the newest of its runs started; 0 never */
};
/* Reads the classes (people first, then the watches by name): *v an array
 * the caller frees with queue_classes_free(). 0 / -1 */
int db_queue_classes(struct db *db, const struct claim_fit *fit, struct queue_class **v,
		     size_t *n);
void queue_classes_free(struct queue_class *v, size_t n);
/* Claims run id for host when it is still queued, as db_run_claim(): 1
 * claimed (r filled), 0 no longer queued, -1 error */
int db_run_claim_id(struct db *db, const char *host, int64_t id, struct run *r);

/* Records what the run's guest runs with, once it is defined. 0 / -1 */
/* Records the guest's CPU model. 0 / -1 */
int db_run_cpu_model(struct db *db, int64_t id, const char *model);
/* Records the guest setup it booted with (struct run's boot). 0 / -1 */
int db_run_boot(struct db *db, int64_t id, const char *boot);
int db_run_started(struct db *db, int64_t id, const char *accel, const char *machine,
		   const char *qemu_version, const char *libvirt_version, const char *run_dir);
/* Where a running run is: its guest being prepared (from the claim),
 * booting (from the domain's start), running the command (from the
 * agent's hello: db_run_booted() sets it), storing its results (from the
 * guest's end). Cleared when the run ends or is queued again. 0 / -1 */
enum run_phase { RUN_PHASE_PREPARING, RUN_PHASE_BOOTING, RUN_PHASE_RUNNING, RUN_PHASE_STORING };
int db_run_phase(struct db *db, int64_t id, enum run_phase p);
/* Records the agent's hello (and the phase "running"). 0 / -1 */
int db_run_booted(struct db *db, int64_t id, int64_t at, const char *release, int nproc,
		  int64_t mem_kb);

/* Ends the current attempt with an outcome. For RUN_OUT_INFRA the run goes
 * back to the queue when attempts remain (state queued), else it is done.
 * A run asked to stop (db_run_cancel()) ends as canceled whatever o is.
 * exit_code < 0 means none. detail and splat may be NULL. 0 / -1 */
int db_run_finish(struct db *db, int64_t id, enum run_outcome o, const char *detail,
		  const char *splat, int has_exit_code, int exit_code);

/* --- cancel.c: a user's cancel --------------------------------------------
 * What one cancel found and did in its runs. A queued run ends canceled
 * at once; a running one is asked to stop: its worker destroys its guest
 * (db_run_cancel_asked()) and, whatever it then reports, db_run_finish()
 * and db_recover() end it as canceled, never queued again. */
struct db_cancel {
	int canceled;          /* queued runs ended as canceled now */
	int stopping;          /* running runs asked to stop now */
	int already;           /* runs canceled, or asked to stop, before */
	int ended;             /* runs that ended otherwise: left as they are */
	int sub_now;           /* a submission queued or building: failed as canceled
				  now (the builder starts none of its builds left) */
	int sub_before;        /* a submission canceled before */
};
/* Cancels run id; a request's runs; a submission's builds not started and
 * its runs (a testing one is marked canceled once a run of it is). why is
 * the canceled runs' detail. 1 done (c filled), 0 no such run, request or
 * submission, -1 error. Each is one transaction, and may be repeated. */
int db_run_cancel(struct db *db, int64_t id, const char *why, struct db_cancel *c);
int db_request_cancel(struct db *db, int64_t id, const char *why, struct db_cancel *c);
int db_submission_cancel(struct db *db, int64_t id, const char *why, struct db_cancel *c);
/* 1 when the cancel found nothing canceled or to cancel: all ended by
 * themselves (the API's 409) */
int db_cancel_nothing(const struct db_cancel *c);
/* 1 when running run id was asked to stop, 0 not, -1 error */
int db_run_cancel_asked(struct db *db, int64_t id);
/* 1 when submission id was canceled, 0 not (or no such), -1 error */
int db_submission_canceled(struct db *db, int64_t id);

/* Start-up recovery: every run left 'running' by a daemon that died is
 * finished as RUN_OUT_INFRA ("daemon restarted while the run was in
 * flight"), and so requeued when attempts remain. The domains of those
 * runs are returned (caller frees each and the array) so the caller can
 * destroy them. 0 / -1 */
int db_recover(struct db *db, char ***domains, size_t *n);

/* One attempt of a run, for the run page. */
struct attempt {
	int n;
	char *host;
	int64_t started_at, ended_at;
	enum run_outcome outcome;
	char *detail;
};
/* Oldest first; free with attempt_list_free. 0 / -1 */
int db_attempt_list(struct db *db, int64_t run_id, struct attempt **a, size_t *n);
void attempt_list_free(struct attempt *a, size_t n);

/* --- results and samples of a run ------------------------------------- */

/* One subtest result as stored; status is the results table's text. */
struct result_row {
	char *path;
	char *status;          /* pass, fail, skip, xfail, error, timeout, missing */
	char *detail;          /* reason, or NULL */
};

/* One metric sample as stored. */
struct sample_row {
	char *metric;
	char *unit;            /* or NULL */
	double value;
	int seq;
};

/* Replaces the run's results and samples with these, in one transaction
 * (a retried run stores its last attempt's). Rows are borrowed. 0 / -1 */
int db_run_store_results(struct db *db, int64_t run_id, const struct result_row *res,
			 size_t nres, const struct sample_row *smp, size_t nsmp);
/* The run's results, those that did not pass first (fail, error, timeout,
 * missing, then skip and xfail, then pass), each group by path; at most
 * limit. counts[] (may be NULL) gets the totals per status in the order
 * pass, fail, skip, xfail, error, timeout, missing. Free with
 * result_rows_free(). 0 / -1 */
int db_run_results(struct db *db, int64_t run_id, int limit, struct result_row **rows,
		   size_t *n, int64_t counts[7]);
/* The same from the offset-th row on (for pages of a run's results) */
int db_run_results_at(struct db *db, int64_t run_id, int64_t offset, int limit,
		      struct result_row **rows, size_t *n, int64_t counts[7]);
void result_rows_free(struct result_row *rows, size_t n);
/* The run's samples by metric and seq, at most limit; free with
 * sample_rows_free(). 0 / -1 */
int db_run_samples(struct db *db, int64_t run_id, int limit, struct sample_row **rows,
		   size_t *n);
/* The same from the offset-th on; and how many the run has (-1: error) */
int db_run_samples_at(struct db *db, int64_t run_id, int64_t offset, int limit,
		      struct sample_row **rows, size_t *n);
int64_t db_run_sample_count(struct db *db, int64_t run_id);
void sample_rows_free(struct sample_row *rows, size_t n);

/* ---- trees, submissions and builds (trees.c, submissions.c, builds.c) ----
 * Rows of these tables are plain structs of text and integer fields; each
 * has a field table (db_tree_fields, ...) that names its columns, so the
 * API turns any of them into JSON with one function. db/ fills every row
 * struct by such a table (row.c). */

enum db_field_type {
	DB_FIELD_TEXT,             /* char *, NULL for NULL */
	DB_FIELD_INT,              /* int64_t */
	DB_FIELD_TIME,             /* int64_t ms, 0 for NULL */
	/* only in db/'s own tables, never in the exported ones below: */
	DB_FIELD_INT32,            /* int */
	DB_FIELD_REAL,             /* double */
	DB_FIELD_STATE,            /* enum run_state, from its name */
	DB_FIELD_OUTCOME,          /* enum run_outcome, from its name (NULL: none) */
	DB_FIELD_HAS,              /* int: 1 when the column is not NULL; the
				      next field reads the same column */
};
struct db_field {
	const char *name;          /* the column and the JSON key */
	size_t offset;             /* of the member in the row struct */
	enum db_field_type type;
};

struct tree_row {
	int64_t id;
	char *name, *url, *branch;
	char *state;               /* new (not cloned yet), ready, error */
	char *detail, *head;
	int64_t fetch_wanted, added_at, fetched_at;
};
extern const struct db_field db_tree_fields[];   /* ends with a NULL name */

struct submission {
	int64_t id, created_at;
	char *tree;
	char *series_name, *series_subject, *series_json;  /* NULL: a commit, no series */
	int64_t series_count;
	char *mbox_path;
	char *base_spec;           /* what the user asked for, or NULL */
	char *base_commit, *base_why, *patched_commit;
	char *arches;              /* "x86_64,arm64" */
	char *config, *fragments;  /* "tinyconfig"; fragments ',' separated */
	char *jobs, *vcpus;        /* ',' separated, NULL: build only */
	int64_t repeats, memory_mb;
	char *state;               /* queued, building, testing, done (built, no runs), failed */
	char *outcome;             /* failed: does-not-apply, build-failed, error */
	char *detail, *apply_log;
	int64_t started_at, ended_at;
	char *kernel;              /* a kernel built elsewhere to test (its path), or NULL:
				      the tree's commits are built */
	int64_t speculative;       /* built ahead for a bisection: no runs, and built
				      after every other queued submission */
	char *watch;               /* the watch that made it, or NULL: a person's; its
				      runs are for it (the fair queue) */
};
extern const struct db_field db_submission_fields[];

struct build_row {
	int64_t id;
	char *key, *tree, *commit_id, *arch, *config, *config_hash, *toolchain;
	char *state;               /* building, done, failed */
	char *detail, *errors, *dropped, *dir, *release;
	int64_t kernel_id;
	char *kernel_path;         /* of kernel_id, NULL until built */
	int64_t started_at, ended_at, ms;
	/* in a submission's list only: */
	char *side;                /* base, patched */
	int64_t reused;            /* the submission found it built */
};
extern const struct db_field db_build_fields[];

/* Frees a row's text fields by its field table and zeroes the struct. */
void db_row_release(const struct db_field *fields, void *row, size_t size);
void db_rows_free(const struct db_field *fields, void *rows, size_t size, size_t n);

/* Adds a tree to clone; 0, 1 when the name is taken, -1 error. */
int db_tree_add(struct db *db, const char *name, const char *url, const char *branch);
/* 1 found, 0 not, -1 error */
int db_tree_get(struct db *db, const char *name, struct tree_row *t);
int db_tree_list(struct db *db, struct tree_row **rows, size_t *n);
/* Asks for a fetch of the tree; 1 done, 0 no such tree, -1 error */
int db_tree_want_fetch(struct db *db, const char *name);
/* A tree that wants a clone or fetch: 1 (t filled), 0 none, -1 error */
int db_tree_next_fetch(struct db *db, struct tree_row *t);
/* Records a clone or fetch: head on success, else detail. 0 / -1 */
int db_tree_synced(struct db *db, const char *name, const char *head, const char *detail);

/* Queues a submission (s's id, state and times are set here). 0 / -1 */
int db_submission_insert(struct db *db, struct submission *s);
int db_submission_get(struct db *db, int64_t id, struct submission *s);  /* 1 / 0 / -1 */
/* Newest first, at most limit */
int db_submission_list(struct db *db, int limit, struct submission **rows, size_t *n);
/* The oldest queued or building submission, now building: 1 / 0 / -1 */
int db_submission_next(struct db *db, struct submission *s);
int db_submission_set_base(struct db *db, int64_t id, const char *commit, const char *why);
int db_submission_set_patched(struct db *db, int64_t id, const char *commit,
			      const char *apply_log);   /* git am's output, or NULL: kept */
/* Ends the build stage: state testing or failed, with outcome and detail;
 * a submission a user canceled is left as it is */
int db_submission_end(struct db *db, int64_t id, const char *state, const char *outcome,
		      const char *detail, const char *apply_log);
int db_submission_link_build(struct db *db, int64_t id, const char *side, const char *arch,
			     int64_t build_id, int reused);
int db_submission_link_request(struct db *db, int64_t id, int64_t request_id);
/* A plain run of a submission without a series (a commit's kernel tested) */
int db_submission_link_run(struct db *db, int64_t id, int64_t run_id);
/* Runs of the submission, its requests' and its plain ones: all, done */
int db_submission_progress(struct db *db, int64_t id, int *runs, int *done);
/* The submission's builds (side and reused set), and its requests' ids */
int db_submission_builds(struct db *db, int64_t id, struct build_row **rows, size_t *n);
int db_submission_requests(struct db *db, int64_t id, int64_t **ids, size_t *n);
/* The plain runs of a submission without a series, at most max (free *ids) */
int db_submission_runs(struct db *db, int64_t id, size_t max, int64_t **ids, size_t *n);

/* The commit a series (by content hash) made on base before: 1 / 0 / -1 */
int db_apply_find(struct db *db, const char *tree, const char *base, const char *series_hash,
		  char commit[41]);
int db_apply_record(struct db *db, const char *tree, const char *base,
		    const char *series_hash, const char *commit);

/* By key: 1 found, 0 not, -1 error */
int db_build_find(struct db *db, const char *key, struct build_row *b);
int db_build_get(struct db *db, int64_t id, struct build_row *b);
int db_build_list(struct db *db, int limit, struct build_row **rows, size_t *n);
/* The newest done build of b's arch and config but b: what b's progress is
 * measured against. 1 found, 0 none, -1 error */
int db_build_previous(struct db *db, const struct build_row *b, struct build_row *prev);
/* Starts (or restarts) the build with this key; *id set. 0 / -1 */
int db_build_start(struct db *db, const struct build_row *b, int64_t *id);
/* Ends a build: done registers the kernel (source 'built', with its tree,
 * commit and commit_order: the commit's ancestors, so trends sort kernels
 * in history order; -1 when unknown) */
int db_build_done(struct db *db, int64_t id, const char *kernel_path, const char *sha256,
		  const char *release, const char *dropped, int64_t ms, int64_t commit_order);
int db_build_failed(struct db *db, int64_t id, const char *detail, const char *errors,
		    int64_t ms);
/* "kernel 3 (6.1.192-00003-gc0a315baf863, linux c0a315baf863)" for a kernel
 * kfleet built, "kernel 3 (vmlinuz-6.1.0-57-amd64)" for a file; suffix
 * appended. 1 (*label: caller frees), 0 no such kernel, -1 error */
int db_kernel_label(struct db *db, int64_t id, const char *suffix, char **label);
/* The submission a request was made for: 1 (*submission_id), 0 none, -1 */
int db_request_submission(struct db *db, int64_t request_id, int64_t *submission_id);
/* Start-up: builds left building by a daemon that died become failed */
int db_builds_recover(struct db *db);

/* ---- flaky tests in quarantine (flaky.c) ----
 * A cell is a job's runs on one arch and vCPU count. After each run ends,
 * the daemon reads the window of its tests that may have flipped and
 * applies what analysis/flaky.h decided; the pages and the CLI read the
 * table. */

#define DB_FLAKY_ROWS   200000   /* result rows one window reads */

struct db_flaky_cell {
	const char *job;
	const char *arch;
	int vcpus;
};

/* One results row of a test in a run of the window. Strings owned. */
struct db_flaky_result {
	char *path;
	int64_t run_id, kernel_id;
	char *status;
};

/* The tests of run run_id worth a look, with every row of them in the
 * newest scan runs of the cell that count (done, not infra or canceled;
 * run_id counts while it is still running): those tests that failed in
 * one of these runs, and those in quarantine in the cell. By path, then
 * run id (oldest first). At most DB_FLAKY_ROWS rows, *truncated set when
 * there were more. Free with db_flaky_results_free(). 0 / -1 */
int db_flaky_window(struct db *db, const struct db_flaky_cell *cell, int64_t run_id,
		    int scan, struct db_flaky_result **v, size_t *n, int *truncated);
void db_flaky_results_free(struct db_flaky_result *v, size_t n);

/* What to do with one test's quarantine: open it (or, when open, update
 * its counts) or release it. Borrowed. */
struct db_quarantine_op {
	const char *path;
	int release;           /* 1: release it (why in reason) */
	const char *reason;
	int runs, fails, flips, chances;   /* the newest window's counts */
};
/* Applies ops[0..n) for the cell, as seen after run run_id, in one
 * transaction. 0 / -1 */
int db_quarantine_apply(struct db *db, const struct db_flaky_cell *cell, int64_t run_id,
			const struct db_quarantine_op *ops, size_t n);

/* The paths in quarantine in the cell, sorted; caller frees each and the
 * array. 0 / -1 */
int db_quarantined_paths(struct db *db, const struct db_flaky_cell *cell, char ***paths,
			 size_t *n);
void db_paths_free(char **paths, size_t n);

/* The state of the quarantine table as three numbers (its rows, the
 * latest update, the latest release): any change to it changes one, for
 * the key of a kept answer that read it. 0 / -1 */
int db_quarantine_stamp(struct db *db, int64_t v[3]);

/* A quarantine row */
struct db_quarantine {
	int64_t id;
	char *path, *job, *arch;
	int64_t vcpus;
	int64_t since, since_run_id;
	char *reason;
	int64_t runs, fails, flips, chances, last_run_id, updated_at;
	int64_t released_at;   /* 0: still in quarantine */
	char *released_why;
};
extern const struct db_field db_quarantine_fields[];
/* Open quarantines (all: released ones too), newest first, at most max,
 * *truncated set when there were more. Free with db_rows_free(). 0 / -1 */
int db_quarantine_list(struct db *db, int all, size_t max, struct db_quarantine **v,
		       size_t *n, int *truncated);

/* --- neighbours.c: a run's pinning and what else ran on its host --------- */

struct run_quiet {
	int64_t run_id;
	int64_t attempt;
	char *pin;                 /* "pinned", "unpinned", "overcommitted" */
	char *cores;               /* the host cores it ran on ("1"), NULL: any */
	char *why;                 /* why not pinned, or NULL */
	char *builds_mode;         /* [quiet] builds in force: avoid, pause, share */
	char *runs;                /* other runs on the host meanwhile: "12:1 13:16" (id:vCPUs) */
	char *builds;              /* builds meanwhile: "5 6:paused" (submission ids) */
	int has_load_start;
	double load_start;         /* the host's 1-minute load average at the start ... */
	int has_load_end;
	double load_end;           /* ... and at the end (not known: has_* 0) */
	int64_t ended;             /* 1 once the end is recorded */
};

/* The start of run id's attempt: replaces what an earlier attempt left.
 * load < 0: not known. 0 / -1 */
int db_quiet_begin(struct db *db, int64_t id, int attempt, const char *pin, const char *cores,
		   const char *why, const char *builds_mode, double load);
/* Its end: the neighbours seen and the load. 0 / -1 */
int db_quiet_end(struct db *db, int64_t id, const char *runs, const char *builds, double load);
/* 1 with q filled (release it with db_quiet_release()), 0 none recorded,
 * -1 error */
int db_quiet_get(struct db *db, int64_t id, struct run_quiet *q);
void db_quiet_release(struct run_quiet *q);
/* ---- calib.c: a job's runs for its noise (analysis/calib.h) ---- */

#define DB_CALIB_RUNS  2000      /* the newest passed runs of the job it reads */
#define DB_CALIB_ROWS  500000    /* sample rows it reads at most */

/* One metric in one cell (arch, vCPUs): one value per passed run (the
 * median of the run's samples of it) and the run's kernel, parallel.
 * Owned. */
struct db_calib_series {
	char *arch, *metric, *unit;   /* unit may be NULL */
	int vcpus;
	double *v;
	int64_t *kernel;
	size_t n;
};
/* The series of the job's newest DB_CALIB_RUNS done and passed runs, by
 * arch, vCPUs and metric; *truncated set when it had more runs or rows
 * than it read. Free with db_calib_free(). 0 / -1 */
int db_calib_series(struct db *db, const char *job, struct db_calib_series **v, size_t *n,
		    int *truncated);
void db_calib_free(struct db_calib_series *v, size_t n);
/* ---- what the storage pass pruned (storage.c) ---- */

/* A file pruned from the state directory: a run's (dir is the attempt's
 * directory, name the file under it, "results/x.log") or a shared cache
 * file's (run_id 0) */
struct db_pruned {
	int64_t id, run_id;
	char *dir, *name;
	int64_t bytes, pruned_at;
	char *why;             /* "budget", "retention" */
};
extern const struct db_field db_pruned_fields[];
/* Records one pruned file. 0 / -1 */
int db_pruned_add(struct db *db, int64_t run_id, const char *dir, const char *name,
		  int64_t bytes, const char *why);
/* What was pruned of run_id's files, oldest first, at most max. Free with
 * db_rows_free(db_pruned_fields, ...). 0 / -1 */
int db_pruned_list(struct db *db, int64_t run_id, size_t max, struct db_pruned **v,
		   size_t *n);

/* A run whose directory the storage pass looks at */
struct db_storage_run {
	int64_t id;
	char *state;           /* queued, running, done */
	int64_t ended_at;      /* 0 while not done */
	char *run_dir;
};
extern const struct db_field db_storage_run_fields[];
/* The runs with a directory, id above after, by id, at most max (a page;
 * the next starts after the last id). Free with db_rows_free(). 0 / -1 */
int db_storage_runs(struct db *db, int64_t after, size_t max, struct db_storage_run **v,
		    size_t *n);
/* A kernel a run not concluded boots (its path), or a build a submission
 * not finished made: the storage pass keeps their directories */
struct db_storage_kernel {
	char *path;
};
extern const struct db_field db_storage_kernel_fields[];
/* At most max of them. Free with db_rows_free(). 0 / -1 */
int db_storage_kernels_busy(struct db *db, size_t max, struct db_storage_kernel **v, size_t *n);

#endif
