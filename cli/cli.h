/* cli.h: kfleet CLI commands that live outside kfleet.c, each in a
 * cli_NAME.c of its own. kfleet.c's main() hands them its argv from the
 * command word on and exits with what they return. */
#ifndef KF_CLI_H
#define KF_CLI_H

#include <jansson.h>

#include "common/buf.h"
#include "orchestrator/config.h"

struct fetch_opts;

/* The CLI's state, from kfleet.c's main() */
struct cli {
	const char *config_path;   /* -c */
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

/* kfleet.c: calls the API: method on path with an optional JSON body. 0
 * when the answer was 2xx with a JSON body (r->j set, caller decrefs),
 * else -1 with r->err saying why. */
int cli_api_call(struct cli *k, const char *method, const char *path, json_t *body,
		 const char *token, struct resp *r);
/* The daemon's token (the state directory's token file, or --token-file);
 * caller frees; NULL after printing why. */
char *cli_read_token(struct cli *k);
/* An option's number from min to max into *out: 0, or -1 after saying
 * "kfleet: CMD: --OPT 'S': not a number from MIN to MAX" */
int cli_parse_num(const char *cmd, const char *opt, const char *s, long long min,
		  long long max, long long *out);
/* Waits for a request's runs, prints their outcomes and the before/after
 * table of job; returns the exit status. */
int cli_request_report(struct cli *k, long long id, const char *job, int markdown);

/* cli_build.c: `kfleet tree add|fetch`, `kfleet trees`, `kfleet submit`
 * (and `kfleet test --tree/--mbox...`, with test set: wait for the builds
 * and the runs, then print the tables), `kfleet submission ID`, `kfleet
 * submissions`, `kfleet builds`, `kfleet build ID`. Return the exit status. */
int cli_tree(struct cli *k, int argc, char **argv);
int cli_submit(struct cli *k, int argc, char **argv, int test);
int cli_submission(struct cli *k, int argc, char **argv);
int cli_builds(struct cli *k, int argc, char **argv);
/* `kfleet import --kernel PATH (--job J | --parser P) [--arch A] [--vcpus N]
 * [--name NAME] FILE`: a log from elsewhere, parsed by the daemon with the
 * job's (or the named) parser and kept as a finished run of the kernel. */
int cli_import(struct cli *k, int argc, char **argv);

/* cli_trend.c: `kfleet trend --tree T --job J [--metric M] [--arch A]
 * [--vcpus N] [--json]`: a metric across the tree's commits, with change
 * points, and pass rates per test. Returns the exit status. */
int cli_trend(struct cli *k, int argc, char **argv);

/* cli_series.c: the mbox one of these names (exactly one non-NULL): a file
 * ("-" is stdin), a URL, a message-id, a patchwork series; appended to
 * out. *source (caller frees) names it. 0, or -1 with *err (caller frees).
 * libcurl must be initialised. */
int cli_series_get(const char *mbox, const char *url, const char *msgid, const char *pw,
		   const struct fetch_opts *fo, struct buf *out, char **source, char **err);

/* `kfleet series show ...` (argv[0] is "series"): reads a patch series
 * from an mbox file, a URL, a lore message-id or a patchwork series and
 * prints it as kfleet understood it. Needs neither the daemon nor a
 * config. Returns the exit status: 0, or 2 for usage, fetch and parse
 * errors (the message on stderr). */
int cli_series(int argc, char **argv);

#endif
