/* SPDX-License-Identifier: GPL-2.0-only */
/* jobs.h: the jobs part as the others see it. For now the parsers of what
 * jobs print in a guest: KTAP / TAP 13 from kselftest, BPF test_progs and
 * its -J JSON, the selftests bench tool, and our own METRIC lines. They
 * turn a captured output into result rows (one per test and subtest, as in
 * the results table) or samples (one per metric value, as in samples).
 *
 * All parsers are pure: they take a buffer (any bytes: NULs, invalid UTF-8,
 * huge lines, no final newline), never read past it, do no I/O and keep
 * every size bounded. What they produce is clean text: valid UTF-8 without
 * control characters, so it can go to SQLite, JSON and a terminal as is.
 * Malformed input is never fatal; it is recorded as a note with its line.
 *
 * Usage:
 *   struct job_results r;
 *   job_results_init(&r, JOB_RESULTS_MAX);
 *   if (ktap_parse(log, len, &r) < 0) ...   out of memory
 *   for (size_t i = 0; i < r.n; i++) r.v[i].path, r.v[i].status ...
 *   job_results_release(&r);
 */
#ifndef KF_JOBS_H
#define KF_JOBS_H

#include <jansson.h>
#include <stddef.h>

#include "common/buf.h"

#define JOB_RESULTS_MAX   100000     /* result rows per run */
#define JOB_SAMPLES_MAX   100000     /* metric samples per run */
#define JOB_NOTES_MAX     100        /* notes kept; later ones are only counted */
#define JOB_PATH_MAX      1024       /* bytes of a result path ("net/tcp/basic") */
#define JOB_NAME_MAX      256        /* bytes of one test name in a path */
#define JOB_REASON_MAX    512        /* bytes of a reason */
#define JOB_METRIC_MAX    128        /* bytes of a metric name */
#define JOB_UNIT_MAX      32         /* bytes of a unit */
#define JOB_NOTE_MAX      256        /* bytes of a note */
#define KTAP_DEPTH_MAX    16         /* nesting levels, the top one included */
#define JOB_OUTPUT_MAX    (64u << 20) /* what `kfleet parse` reads of a file */

/* The statuses of the results table's CHECK constraint, in its order */
enum job_status {
	JOB_PASS,
	JOB_FAIL,
	JOB_SKIP,
	JOB_XFAIL,
	JOB_ERROR,
	JOB_TIMEOUT,
	JOB_MISSING,   /* planned or started, never reported (crash, cut-off output) */
	JOB_STATUS_COUNT
};

/* "pass", "fail", ... as stored in results.status; "?" for a bad value */
const char *job_status_name(enum job_status s);
/* The status named s; 0 / -1 */
int job_status_parse(const char *s, enum job_status *out);

/* An input problem the parser worked around: "line 12: what" */
struct job_note {
	size_t line;   /* 1-based; 0 when it concerns no line */
	char *what;
};

struct job_notes {
	struct job_note *v;
	size_t n;          /* at most JOB_NOTES_MAX */
	size_t dropped;    /* notes past JOB_NOTES_MAX, counted only */
};

/* One test or subtest */
struct job_result {
	char *path;     /* names of the parents and the test, joined by '/' */
	char *reason;   /* directive text, failure message, or NULL */
	enum job_status status;
	size_t line;    /* line of its result; for a missing test the line that
			 * planned or started it */
};

struct job_results {
	struct job_result *v;   /* owned; v[0..n) */
	size_t n, alloc;
	size_t max;             /* rows kept at most */
	size_t count[JOB_STATUS_COUNT];   /* rows: tests and their parents alike */
	size_t tests[JOB_STATUS_COUNT];   /* test cases as kunit_tool counts them
					   * (ktap_parse; 0 from the other parsers):
					   * see ktap_parse() */
	int truncated;          /* more rows than max: the rest were dropped */
	struct job_notes notes;
};

/* One metric value */
struct job_sample {
	char *name;     /* [A-Za-z0-9_.:/-]{1,JOB_METRIC_MAX} */
	char *unit;     /* as printed ("M/s", "ns/op"), clean UTF-8 up to
			 * JOB_UNIT_MAX bytes; NULL when none */
	double value;   /* finite */
	long seq;       /* bench: the iteration; metrics: the name's occurrence */
	size_t line;
};

struct job_index;

struct job_samples {
	struct job_sample *v;   /* owned; v[0..n) */
	size_t n, alloc;
	size_t max;
	int truncated;
	struct job_notes notes;
	struct job_index *seq_index;   /* private: name -> occurrences */
};

/* Results and samples: _init empties r and sets its bound (0 means the
 * JOB_*_MAX default); _release frees everything in it. Parsers append. */
void job_results_init(struct job_results *r, size_t max);
void job_results_release(struct job_results *r);
void job_samples_init(struct job_samples *s, size_t max);
void job_samples_release(struct job_samples *s);

/* As JSON for the API and `kfleet parse --json`: {"results": [{"path",
 * "status", "reason", "line"}...], "counts": {"pass": N...}, "truncated",
 * "notes": [{"line", "what"}...]} and {"samples": [{"name", "value",
 * "unit", "seq", "line"}...], "truncated", "notes"}. New reference, caller
 * decrefs; NULL when out of memory. */
json_t *job_results_json(const struct job_results *r);
json_t *job_samples_json(const struct job_samples *s);

/* ---- KTAP v1 and TAP 13 (jobs/ktap.c) ----
 * Version lines, plans (also "1..0 # SKIP why" and trailing plans), "ok" /
 * "not ok" N [- ]name [# DIRECTIVE reason] with SKIP, TODO, XFAIL, TIMEOUT,
 * ERROR (any case), "Bail out!", nested subtests: indented KTAP (any
 * consistent indentation, one level per version, plan or "# Subtest:"
 * line; results indented deeper than their plan are its) and kselftest's
 * "# " prefixed nesting; past KTAP_DEPTH_MAX levels results are kept under
 * the deepest level (a note says so). Diagnostic
 * and unknown lines never change results. A console's prefix is read past:
 * printk's time and caller id ("[    0.06][    T1] "), "<6>", or the text
 * before the first version line. "Kernel panic - not syncing" ends the
 * open documents there. Notes: no TAP at all, a document that ran no
 * tests, tests never reported at a panic or the output's end, nesting
 * past the cap. kselftest runner framing:
 * "selftests: net: foo.sh" names the test "net/foo.sh", "# selftests: ..."
 * names a test that started, "exit=4" is a skip and "exit=124" a timeout.
 * A test planned or started but never reported (a crash, a cut-off output)
 * is JOB_MISSING, and so is the parent of subtests without its result line;
 * a test without a name is "#N". Subtests precede their parent in r.
 * r->count counts rows, parents included; r->tests counts test cases as
 * kunit_tool does: a row without subtests is one, a parent is the sum of
 * its subtests, plus one of its own status when it did not pass (fail,
 * error, timeout, missing) though none of its subtests failed, so a
 * failure is in the counts whatever level reported it.
 * Returns 0, or -1 when out of memory (r holds what was parsed). */
int ktap_parse(const char *data, size_t len, struct job_results *r);

/* ---- BPF test_progs (jobs/test_progs.c) ---- */
struct tprogs_summary {
	int present;              /* a Summary line or JSON header was read */
	long passed;              /* tests */
	long subtests_passed;     /* -1 when the output does not say */
	long skipped;             /* -1 when the output does not say */
	long failed;
};

/* The text output: "#83/1 htab_update/reenter_update:FAIL" (path
 * "htab_update/reenter_update"), "#83 htab_update:OK", ":SKIP",
 * "OK (SKIP: 3/5)"; a failure's reason is its last "name:FAIL:why" log
 * line. Results printed again under "All error logs:" are not repeated.
 * Without a Summary line the output was cut off: a test whose subtests
 * were seen but not its own line is JOB_MISSING, and a note says so.
 * sum may be NULL. Returns 0, or -1 when out of memory. */
int tprogs_parse(const char *data, size_t len, struct job_results *r,
		 struct tprogs_summary *sum);
/* The -J FILE JSON: {"success", "success_subtest", "skipped", "failed",
 * "results": [{"name", "number", "message", "failed", "subtests": [...]}]}.
 * It lists failed tests only: each becomes a JOB_FAIL row, or gives its
 * reason to the row already in r with that path (parse the text first to
 * merge both). Returns 0, or -1 when the data is not such JSON (a note says
 * why) or memory ran out. */
int tprogs_parse_json(const char *data, size_t len, struct job_results *r,
		      struct tprogs_summary *sum);

/* ---- the selftests bench tool (jobs/bench.c) ----
 * "Iter   3 ( 12.345us): hits   12.345M/s (  3.086M/prod), drops ..." gives
 * a sample per field with seq 3 named "NAME.iter" ("hits.iter",
 * "hits_per_prod.iter", "total_operations.iter"); "Summary: hits 12.345 ±
 * 0.123M/s (...)" gives "hits" (the mean) and "hits.stddev", seq 0. Fields
 * are "words VALUE[± SD][UNIT] [(VALUE UNIT/prod)]" separated by commas, so
 * every bench format (throughput/latency, memory usage, creates, false
 * hits) is read. After "Setting up benchmark 'NAME'..." names get the
 * prefix "NAME.". Units as printed ("M/s", "M ops/s", "ns/op", "MiB").
 * Returns 0, or -1 when out of memory. */
int bench_parse(const char *data, size_t len, struct job_samples *s);

/* ---- METRIC lines (jobs/metrics.c) ----
 * "METRIC name=value [unit]": name [A-Za-z0-9_.:/-]{1,128}, value a finite
 * decimal number, unit one token of letters, digits and "_.%*^/-" up to
 * JOB_UNIT_MAX bytes. Other lines are ignored; a malformed METRIC line is a
 * note and dropped. seq counts the name's earlier samples. Returns 0, or -1
 * when out of memory. */
int metrics_parse(const char *data, size_t len, struct job_samples *s);

/* ---- job definitions (jobs/jobdef.c) ----
 * A job is an INI file NAME.job in a job directory:
 *
 *     [job]
 *     name = sock-filter-churn          ; [a-z0-9_.-]{1,64}, unique
 *     description = ...
 *     kind = stress                     ; selftest, stress or bench
 *     programs = sock-filter-churn      ; built per arch, put in /kfleet/bin
 *     modules = veth                    ; kernel modules to load first, when the
 *                                       ; kernel's modules are at hand
 *     command = sock-filter-churn -t 20 ; run with /bin/sh -c, PATH has /kfleet/bin;
 *         echo more                     ; indented lines continue it (one line each)
 *     parser = metrics                  ; ktap, test_progs, bench, metrics or none
 *     timeout = 120                     ; seconds
 *     memory_mb = 1024
 *     vcpus = 2
 *     config = CONFIG_BPF_SYSCALL=y     ; kernel config the job needs (repeatable)
 *     rootfs = rt-tests coreutils       ; boot on a root disk of these Debian packages
 *     image = /srv/images/debian.qcow2  ; or boot on (an overlay of) this disk image
 *     results = /var/tmp/out            ; copied out after the run (KFLEET_RESULTS)
 *     selftests = timers                ; a kselftest target kfleet builds with the
 *                                       ; kernel (static), in the guest at /kselftest;
 *                                       ; bpf (test_progs) also for a kernel built
 *                                       ; elsewhere (kfleet submit --kernel)
 *
 *     [metric sockets_per_sec]          ; one per metric the job reports
 *     unit = 1/s
 *     better = higher                   ; higher or lower
 *     margin = 3%                       ; comparisons call a change within +-3% of
 *                                       ; this metric no change (default 2%, at
 *                                       ; most 50%)
 */
#define JOBDEF_PROGRAMS_MAX 16
#define JOBDEF_METRICS_MAX  64
#define JOBDEF_CONFIG_MAX   64
#define JOBDEF_ROOTFS_MAX   64
#define JOBDEF_MARGIN_MAX   0.5   /* a metric's margin at most (analysis.h's CMP_MARGIN_MAX) */

struct job_metric_def {
	char *name;
	char *unit;          /* or NULL */
	int higher_better;
	double margin;       /* a fraction, 0.03 for 3%; 0 when not given */
};

struct job_def {
	char *file;          /* where it was read */
	char *name;
	char *description;
	char *kind;
	char *command;
	char *parser;        /* "none" when the output is not parsed */
	char *programs[JOBDEF_PROGRAMS_MAX];
	size_t nprograms;
	char *config[JOBDEF_CONFIG_MAX];
	size_t nconfig;
	char *modules[JOBDEF_PROGRAMS_MAX];
	size_t nmodules;
	char *selftests;     /* a kselftest target built with the kernel, installed in
				the guest under /kselftest (run_kselftest.sh), or NULL */
	char *rootfs[JOBDEF_ROOTFS_MAX];   /* Debian packages: the guest's root is then a disk
					      with them, not the initramfs */
	size_t nrootfs;
	char *image;         /* or a disk image the user names (a distro's, with an ext4
				root): runs boot fresh overlays of it */
	char *results;       /* guest directory copied out after the run (needs a disk) */
	int timeout_s, memory_mb, vcpus;   /* 0: the daemon's defaults */
	struct job_metric_def metrics[JOBDEF_METRICS_MAX];
	size_t nmetrics;
};

/* Reads one job file; on errors returns NULL and appends one
 * "file:line: message" line per problem to err. */
struct job_def *job_def_load(const char *path, struct buf *err);
void job_def_free(struct job_def *d);

struct job_set {
	struct job_def **v;
	size_t n;
};

/* Loads every *.job of the ':'-separated directories into set, sorted by
 * name. Broken files and duplicate names are left out, each reported in
 * err; a missing directory is reported too. Returns the number of files
 * left out (0 when all loaded), or -1 when memory ran out. */
int job_set_load(struct job_set *set, const char *dirs, struct buf *err);
void job_set_release(struct job_set *set);
/* Borrowed, NULL when there is no such job */
const struct job_def *job_set_find(const struct job_set *set, const char *name);

/* Runs the job's parser over its output. Returns 0 (also for "none"), or
 * -1 for an unknown parser or when memory ran out. */
int job_def_parse(const struct job_def *d, const char *out, size_t len,
		  struct job_results *r, struct job_samples *s);

#endif
