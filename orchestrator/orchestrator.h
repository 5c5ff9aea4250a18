/* SPDX-License-Identifier: GPL-2.0-only */
/* orchestrator.h: what the rest of kfleet sees of the part that turns
 * queued runs into guests: submitting a run (validated here, then queued in
 * the database) and the names of the files every run leaves in its
 * directory. */
#ifndef KF_ORCHESTRATOR_H
#define KF_ORCHESTRATOR_H

#include <stddef.h>
#include <stdint.h>

/* Files in a run's directory (state_dir/runs/<id>/) */
#define RUN_FILE_CONSOLE "console.log"  /* the guest's serial console, as written */
#define RUN_FILE_AGENT   "agent.log"    /* the raw agent channel (frames) */
#define RUN_FILE_OUTPUT  "output.txt"   /* the command's output, decoded */
#define RUN_FILE_XML     "domain.xml"   /* the domain XML the guest was made from */
#define RUN_FILE_INITRD  "initrd.img"   /* the run's initrd */
#define RUN_FILE_QEMU_LOG "qemu.log"    /* libvirt's log of QEMU: its command line */
#define RUN_FILE_TIMINGS "timings"      /* where the run's time went: "STAGE MS" lines
					   (orchestrator/run.c's stages; bench/boot.sh) */
#define RUN_FILE_DISK    "root.qcow2"   /* the run's overlay on a job's root disk, removed
					   once its results are copied out */
#define RUN_DIR_RESULTS  "results"      /* the files a job left in its results directory */

/* What a user asks to run; strings borrowed. Zero/NULL fields take the
 * configured defaults. */
struct run_spec {
	const char *kernel;      /* path of the kernel image on the daemon's machine */
	const char *arch;        /* "x86_64" or "arm64" */
	int vcpus;
	int memory_mb;
	int timeout_s;
	const char *command;     /* or NULL with job */
	const char *job;         /* a job's name: its command, programs and defaults */
	const char *topology;    /* "S:C:T" (sockets:cores:threads) or NULL */
	int numa_nodes;          /* 0 or 1: none; N: vCPUs and memory split in N nodes */
	const char *watch;       /* the watch it tests a series for, or NULL: a person's
				    (set by kfleet itself, never from a request) */
};


struct orch;
struct config;
struct job_set;

/* A submission: a series (or none: build the base only) on a tree; strings
 * borrowed, NULL/0 take the defaults ([build] in the config). */
struct submit_spec {
	const char *tree;        /* NULL: the tree the series' subject tag names */
	const char *mbox;        /* the mbox's bytes, or NULL */
	size_t mbox_len;
	const char *mbox_name;   /* what messages call it: the file or URL */
	const char *base;        /* a commit, branch or tag; NULL: base-commit, then head */
	const char *arches;      /* "x86_64,arm64" */
	const char *config;      /* tinyconfig, defconfig, allnoconfig or a file */
	const char *fragments;   /* ',' separated */
	const char *jobs;        /* ',' separated; NULL: build only */
	const char *vcpus;       /* ',' separated counts */
	int repeat;
	int memory_mb;
	const char *kernel;      /* a kernel built elsewhere to test instead of building
				    the tree (which then gives only the selftests), or NULL */
	int speculative;         /* build only, after every other queued submission: a
				    bisection's guess at its next step (jobs still say
				    what the build needs) */
	int until_decided;       /* each request runs until decided (orch_submit_request_mode) */
	int max_runs;            /* ... at most this many runs a side; 0: the default */
	double margin;           /* ... each metric's margin, a fraction; 0: the job's */
	const char *watch;       /* the watch that takes the series, or NULL: a person's
				    (its runs are for the watch in the fair queue) */
};

/* Results of a run made elsewhere (another CI, by hand): the log is
 * parsed here with the job's parser (or the parser named) and stored as a
 * finished run of the kernel, its output the log. Strings borrowed. */
struct import_spec {
	const char *kernel;      /* a kernel image on the daemon's machine */
	const char *arch;
	int vcpus;
	const char *job;         /* or NULL with parser */
	const char *parser;      /* ktap, test_progs, bench, metrics */
	const char *name;        /* where the log came from, for the record */
	const char *log;
	size_t len;
};
/* Returns like orch_submit(), *id the new run's. */
int orch_import(struct orch *o, const struct import_spec *s, int64_t *id, char **err);

/* Registers a kernel tree to clone (the builder clones it soon after). */
int orch_tree_add(struct orch *o, const char *name, const char *url, const char *branch,
		  char **err);
/* Asks for a fetch of a registered tree. */
int orch_tree_fetch(struct orch *o, const char *name, char **err);
/* Checks and queues a submission; the builder applies, builds and queues
 * its requests. All three return like orch_submit(). */
int orch_submit_series(struct orch *o, const struct submit_spec *s, int64_t *id, char **err);

/* Queues a request: repeat runs of the base kernel (s->kernel) and repeat
 * of the patched one, interleaved (base, patched, base, ...) so both see
 * the same conditions, all with s's job or command and sizes. Returns like
 * orch_submit(), *id being the request's. */
int orch_submit_request(struct orch *o, const struct run_spec *s, const char *patched,
			int repeat, int64_t *id, char **err);
/* The same, until decided when until_decided: after each round, while a
 * metric is uncertain, more pairs up to max_runs a side (0: the larger of
 * 20 and repeat; else from repeat to 100), each metric with margin (a
 * fraction, 0: the job's). Returns like orch_submit(). */
int orch_submit_request_mode(struct orch *o, const struct run_spec *s, const char *patched,
			     int repeat, int until_decided, int max_runs, double margin,
			     int64_t *id, char **err);

/* The jobs the daemon knows, borrowed, valid until orch_free() */
const struct job_set *orch_jobs(const struct orch *o);

/* Opens the database under the config's state directory (running start-up
 * recovery), connects to every configured libvirt host and reads what each
 * can run. Starts no guest. NULL with *err (caller frees). c is borrowed and
 * must outlive the orch. */
struct orch *orch_new(const struct config *c, char **err);
/* Starts the workers that claim queued runs (slots per host). 0 / -1 */
int orch_start(struct orch *o);
/* Stops the workers (destroying guests in flight, whose runs are requeued
 * as infrastructure failures) and frees everything. Accepts NULL. */
void orch_free(struct orch *o);
/* Host name's health as kfleetd knows it now, which the database may lag
 * behind (a write that failed on a full disk): 1 with *healthy and why
 * ("" when healthy), 0 when name is none of its hosts (o may be NULL) */
int orch_host_health(struct orch *o, const char *name, int *healthy, char *why, size_t n);
/* What a host is doing now, as kfleet hosts shows it */
struct orch_host_live {
	int slots, busy;           /* guests at once; workers with a run */
	int cpus, cpus_used;       /* its logical CPUs; what its runs take */
	int connected;
	int upload;                /* files go to it as storage volumes */
	char accel_why[160];       /* why x86_64 runs use the accel they use */
	char accel_arm64[16];      /* "tcg", ... or "" (no arm64) */
	char machine[128];         /* the machine libvirt runs on */
	int64_t down_since;        /* now_ms() when it became unreachable, 0 up */
	char pool[64];             /* upload: its storage pool's name ... */
	int pool_kernels, pool_images, pool_run_files;   /* ... what it held when */
	long long pool_bytes;      /* kfleetd last listed it, and the bytes on disk */
	int64_t pool_at;           /* now_ms() of that look, 0 not looked yet */
};
/* 1 with *out for the host called name, 0 when there is none (o may be NULL) */
int orch_host_live(struct orch *o, const char *name, struct orch_host_live *out);
/* The address kfleet's pages are served at ("http://127.0.0.1:8080"),
 * for links a watch posts when its spec names no link_base */
void orch_set_url(struct orch *o, const char *url);

/* The database path, borrowed */
const char *orch_db_path(const struct orch *o);

/* Validates spec (kernel exists and is an image of that arch, vCPUs within
 * the hosts' limits, ...), records the kernel and queues the run.
 * Returns 0 with *id set; -1 when the request is bad (*err says what, for
 * the user); -2 on an internal error (*err says what). *err: caller frees. */
/* Whether the local QEMU's user (libvirt-qemu) can search every directory
 * down to the state directory (or the part of it that exists), for hosts
 * that hand it files by path (reach.c). 0 yes or not known; -1 with *err
 * (caller frees) naming the directory that blocks it and what to do. */
int orch_qemu_reach(const struct config *c, char **err);

int orch_submit(struct orch *o, const struct run_spec *spec, int64_t *id, char **err);

#endif
