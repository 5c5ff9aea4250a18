/* SPDX-License-Identifier: GPL-2.0-only */
/* cli.h: the pieces of the kfleet CLI (cli/). kfleet.c's main() hands each
 * command its argv from the command word on and exits with what it returns;
 * the commands (cmd_*.c) call the API through client.c and print with
 * print.c and help.c, which call nothing of the CLI above them. */
#ifndef KF_CLI_H
#define KF_CLI_H

#include <jansson.h>
#include <stdio.h>

#include "common/buf.h"
#include "config/config.h"

#define CLI_DEFAULT_URL "http://127.0.0.1:8080"

/* Exit statuses of kfleet */
enum { CLI_OK = 0, CLI_NOT_PASSED = 1, CLI_USAGE = 2 };

struct fetch_opts;

/* The CLI's state, from kfleet.c's main() */
struct cli {
	const char *config_path;   /* -c */
	char *default_config;      /* installed, no -c: SYSCONFDIR/kfleet/kfleetd.conf */
	const char *url_opt;       /* --url */
	const char *token_file;    /* --token-file */
	const char *cmd;           /* the command, for messages */
	char *url;                 /* base URL, no trailing slash */
	struct config cfg;
};

/* What one API call returned */
struct resp {
	long status;       /* 0 when no HTTP answer came */
	json_t *j;         /* the parsed body of a 2xx answer */
	char err[1024];    /* "400: message" or "'url': transport error" */
};

/* ---- client.c: kfleetd's HTTP API ---- */

/* k->url (caller frees) from --url, $KFLEET_URL, the config's listen
 * address (with -c; a wildcard address as loopback), else CLI_DEFAULT_URL;
 * no trailing slash. 0, or -1 when out of memory. */
int cli_resolve_url(struct cli *k);
/* The daemon's token (--token-file, $KFLEET_TOKEN_FILE, or the state
 * directory's token file), trailing white space cut; caller frees; NULL
 * after printing why. */
char *cli_read_token(struct cli *k);
/* Calls the API: method on path with an optional JSON body. 0 when the
 * answer was 2xx with a JSON body (r->j set, caller decrefs), else -1 with
 * r->err saying why (the API's own "error" text when there is one).
 * libcurl must be initialised. */
int cli_api_call(struct cli *k, const char *method, const char *path, json_t *body,
		 const char *token, struct resp *r);
/* Base64 of n bytes, caller frees; NULL when out of memory */
char *cli_base64(const char *p, size_t n);

/* ---- print.c: reading an answer, printing it ---- */

/* The string at key of o, dflt when it is missing or not a string */
const char *cli_jstr(json_t *o, const char *key, const char *dflt);
/* The string at key of o, "-" when it is missing, not a string or empty */
const char *cli_jdash(json_t *o, const char *key);
/* The integer at key of o, dflt when it is missing or not an integer */
long long cli_jint(json_t *o, const char *key, long long dflt);
/* s, or "-" when s is NULL or empty */
const char *cli_or_dash(const char *s);
/* A duration in ms as "850 ms", "2.5 s", "3 min 04 s", "2 h 05 min"; "-"
 * when negative */
void cli_fmt_duration(long long ms, char out[32]);
/* j indented by 2, then a newline, on stdout */
void cli_print_json(json_t *j);
/* s on stdout, each of its lines after indent */
void cli_print_indented(const char *s, const char *indent);
/* The strings of a JSON array joined by sep onto b ("?" for a non-string) */
void cli_join_strs(struct buf *b, json_t *arr, const char *sep);
/* An option's number from min to max into *out: 0, or -1 after saying
 * "kfleet: CMD: --OPT 'S': not a number from MIN to MAX" */
int cli_parse_num(const char *cmd, const char *opt, const char *s, long long min,
		  long long max, long long *out);

/* ---- visible.c: a guest's text, inert on a terminal ---- */

/* What a text cut into pieces carries from one piece to the next */
struct cli_visible {
	int cr;            /* a CR at the end of the last piece, not shown yet */
};
/* Appends s[0..n) to out with every control character shown instead of
 * sent: newline and tab as they are, CR before a newline dropped and a
 * bare CR as "^M", the other C0 controls as "^@".."^_" (ESC "^["), DEL as
 * "^?", the C1 controls U+0080..U+009F as "\u0080".."\u009f", a byte that
 * is not UTF-8 as "\xHH"; other valid UTF-8 as it is. st starts zeroed;
 * cli_visible_end() shows a CR still held. */
void cli_visible(struct buf *out, const char *s, size_t n, struct cli_visible *st);
void cli_visible_end(struct buf *out, struct cli_visible *st);
/* Both for one whole text */
void cli_visible_str(struct buf *out, const char *s, size_t n);
/* A copy of j (new reference) with every string in it made visible so;
 * NULL when out of memory */
json_t *cli_visible_json(json_t *j);

/* ---- help.c: every command's help, from one table ---- */

/* The global usage's first line and its closing lines */
#define CLI_USAGE_HEAD "usage: kfleet [-c CONFIG] [--url URL] [--token-file FILE] COMMAND ..."
#define CLI_USAGE_TAIL \
	"Config: -c CONFIG (kfleetd's); installed, with no -c, /etc/kfleet/kfleetd.conf\n" \
	"(SYSCONFDIR/kfleet) when it exists.\n" \
	"URL: --url, $KFLEET_URL, the config's listen address, or " CLI_DEFAULT_URL ".\n" \
	"Token: --token-file, $KFLEET_TOKEN_FILE, or the config's state_dir/token.\n"

/* One command's help: static strings */
struct cli_help {
	const char *names;    /* its command words, space-separated ("tree trees") */
	const char *summary;  /* its lines of the global usage */
	const char *help;     /* kfleet help CMD: its usage lines, what it does, options */
};
/* The table, in the global usage's order; *n its length */
const struct cli_help *cli_helps(size_t *n);
/* The help of the command word, NULL when it is none */
const struct cli_help *cli_help_find(const char *word);
/* The command word's help on f: 0, or -1 when it is no command */
int cli_help_print(FILE *f, const char *word);
/* kfleet's help: the head, every command's summary, the global options */
void cli_usage(FILE *f);
/* `kfleet help [CMD]` (argv[0] is "help"): no config, no daemon */
int cli_help(int argc, char **argv);

/* ---- the commands: each returns kfleet's exit status ---- */

/* cmd_runs.c: `kfleet run` (--wait: 1 when a run did not pass), `kfleet
 * runs`, `kfleet show ID` */
int cli_run(struct cli *k, int argc, char **argv);
int cli_runs(struct cli *k, int argc, char **argv);
int cli_show(struct cli *k, int argc, char **argv);
/* progress.c: the builds of a submission (its JSON, sub) while they run,
 * on stderr: one line rewritten in place on a terminal (tty), else a line
 * when a build's stage changes, it passes another tenth, or
 * CLI_PROGRESS_EVERY_MS went by without one (the count so far: a first
 * build with no count to compare with is not silent); st starts zeroed,
 * and _end clears the line before other output */
#define CLI_PROGRESS_MAX 8
#define CLI_PROGRESS_EVERY_MS 25000   /* polled every 2 s: a line at least every 30 s */
struct cli_progress {
	int n, shown;
	long long id[CLI_PROGRESS_MAX];
	char stage[CLI_PROGRESS_MAX][16];
	int decile[CLI_PROGRESS_MAX];
	long long printed_ms[CLI_PROGRESS_MAX];   /* when its last plain line was, mono_ms() */
};
void cli_build_progress(json_t *sub, int tty, struct cli_progress *st);
/* The same onto out at now_ms (mono_ms(): cli_build_progress) */
void cli_build_progress_to(FILE *out, json_t *sub, int tty, struct cli_progress *st,
			   long long now_ms);
void cli_build_progress_end(int tty, struct cli_progress *st);
/* cmd_logs.c */
int cli_logs(struct cli *k, int argc, char **argv);
/* A run of GET /api/runs/ID as `kfleet show` prints it, on stdout: its
 * strings through cli_visible_json() unless raw */
void cli_print_run(json_t *run, int raw);

/* cmd_cancel.c: `kfleet cancel RUN...`, `--request ID`, `--submission ID` */
int cli_cancel(struct cli *k, int argc, char **argv);

/* cmd_jobs.c: `kfleet jobs [show NAME]` */
int cli_jobs(struct cli *k, int argc, char **argv);

/* cmd_compare.c: `kfleet compare`, `kfleet test --base --patched` */
int cli_compare(struct cli *k, int argc, char **argv);
int cli_test(struct cli *k, int argc, char **argv);
/* "avg,p99,max,test" or "all" into CMP_COL_ bits added to *cols; 0, or -1
 * for a word that is none of them */
int cli_compare_columns(const char *s, unsigned *cols);
/* --margin PCT: 0, or -1 after saying why not (cmd is the command) */
int cli_margin_check(const char *cmd, const char *s);
/* --until-decided and --max-runs N with --repeat R: 0, or -1 after saying
 * why not (--max-runs alone, or below R) */
int cli_decided_check(const char *cmd, int until, long long max_runs, long long repeat);
/* Sets "until_decided", "max_runs" and "margin" (a checked --margin or
 * NULL) in a request's or submission's body when until; 0 / -1 (memory) */
int cli_decided_body(json_t *body, int until, long long max_runs, const char *margin);
/* A request's "decided" object (GET /api/requests/ID), when until
 * decided: its rounds, each with why, and why it stopped */
void cli_print_decided(json_t *d);
/* Waits for request id's runs, prints each run's outcome, the subtests
 * that changed and the before/after table of job, with margin (a checked
 * --margin, or NULL: the job's and the default). CLI_OK, CLI_NOT_PASSED
 * when a run did not pass, CLI_USAGE when the daemon cannot be asked. */
int cli_request_report(struct cli *k, long long id, const char *job, int markdown,
		       const char *margin);

/* cmd_watch.c: `kfleet watch add|list|rm` */
int cli_watch(struct cli *k, int argc, char **argv);
/* cmd_trees.c: `kfleet tree add|fetch`, `kfleet trees` */
int cli_tree(struct cli *k, int argc, char **argv);
/* cmd_hosts.c: `kfleet hosts` */
int cli_hosts(struct cli *k, int argc, char **argv);
/* cmd_daemon.c: `kfleet reload [--json]` (the daemon's config read again,
 * what changed printed), `kfleet shutdown [--no-wait] [--timeout S]` (it
 * stops as on SIGTERM; waited for) */
int cli_reload(struct cli *k, int argc, char **argv);
int cli_shutdown(struct cli *k, int argc, char **argv);

/* cmd_submit.c: `kfleet submit` (and, with test set, `kfleet test --tree
 * --mbox...`: wait for the builds and the runs, then print the tables),
 * `kfleet submission ID`, `kfleet submissions`, `kfleet builds`, `kfleet
 * build ID` */
int cli_submit(struct cli *k, int argc, char **argv, int test);
int cli_submission(struct cli *k, int argc, char **argv);
int cli_builds(struct cli *k, int argc, char **argv);

/* cmd_import.c: `kfleet import --kernel PATH (--job J | --parser P) [--arch
 * A] [--vcpus N] [--name NAME] FILE`: a log from elsewhere, parsed by the
 * daemon with the job's (or the named) parser and kept as a finished run of
 * the kernel. */
int cli_import(struct cli *k, int argc, char **argv);

/* cmd_trend.c: `kfleet trend --tree T --job J [--metric M] [--arch A]
 * [--vcpus N] [--json]`: a metric across the tree's commits, with change
 * points, and pass rates per test. */
int cli_trend(struct cli *k, int argc, char **argv);

/* cmd_export.c: `kfleet export kcidb [--since T] [-o FILE]` */
int cli_export(struct cli *k, int argc, char **argv);
/* cmd_flaky.c: `kfleet flaky [--all] [--json]`: the tests in quarantine */
int cli_flaky(struct cli *k, int argc, char **argv);
/* The answer of GET /api/flaky as `kfleet flaky` prints it (all: with the
 * released column), on stdout */
void cli_print_flaky(json_t *ans, int all);

/* cmd_bisect.c: `kfleet bisect ...` (--wait: 0 only when a culprit was
 * found and verified by its revert), `kfleet bisections`, `kfleet
 * bisection ID [--json|--log|--cancel]` */
int cli_bisect(struct cli *k, int argc, char **argv);
int cli_bisection(struct cli *k, int argc, char **argv);

/* cmd_series.c: the mbox one of these names (exactly one non-NULL): a file
 * ("-" is stdin), a URL, a message-id, a patchwork series; appended to
 * out. *source (caller frees) names it. 0, or -1 with *err (caller frees).
 * libcurl must be initialised. */
int cli_series_get(const char *mbox, const char *url, const char *msgid, const char *pw,
		   const struct fetch_opts *fo, struct buf *out, char **source, char **err);
/* `kfleet series show ...` (argv[0] is "series"): reads a patch series
 * from an mbox file, a URL, a lore message-id or a patchwork series and
 * prints it as kfleet understood it. Needs neither the daemon nor a
 * config: 0, or 2 for usage, fetch and parse errors (the message on
 * stderr). */
int cli_series(int argc, char **argv);

/* cmd_parse.c: `kfleet parse ktap|test_progs|bench|metrics FILE [--json]`,
 * a job output parser run here on a file ("-": stdin), no daemon */
int cli_parse(int argc, char **argv);

#endif
