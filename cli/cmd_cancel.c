// SPDX-License-Identifier: GPL-2.0-only
/* cmd_cancel.c: `kfleet cancel RUN...`, `kfleet cancel --request ID` and
 * `kfleet cancel --submission ID`: a user's cancel through POST
 * /api/{runs,requests,submissions}/ID/cancel (web/cancel.c). Queued runs
 * end as canceled at once, running ones are stopped (their guests
 * destroyed), a submission's builds not started are not made. Exit 0 when
 * each cancel was taken (or had been), 2 when one was refused (a run that
 * ended by itself, one that does not exist) or the daemon could not be
 * asked. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage_cancel(FILE *f)
{
	cli_help_print(f, "cancel");
}

/* One line saying what the cancel of what (a "run", ...) id did (r.j) */
static void print_result(const char *what, long long id, json_t *j)
{
	long long canceled = cli_jint(j, "canceled", 0), stopping = cli_jint(j, "stopping", 0);
	long long already = cli_jint(j, "already", 0), ended = cli_jint(j, "ended", 0);

	if (!strcmp(what, "run")) {
		printf("run %lld: %s\n", id, canceled ? "canceled" : stopping ?
		       "stopping: its guest is destroyed, then it ends as canceled" :
		       !strcmp(cli_jstr(j, "state", ""), "running") ? "stopping already" :
		       "canceled already");
		return;
	}
	printf("%s %lld: %s%lld queued run%s canceled, %lld running stopping, %lld canceled "
	       "before, %lld ended by %s\n", what, id,
	       json_is_true(json_object_get(j, "builds_dropped")) ?
	       "canceled, its builds not started dropped; " : "", canceled,
	       canceled == 1 ? "" : "s", stopping, already, ended,
	       ended == 1 ? "itself" : "themselves");
}

/* POSTs the cancel of what id: 0 taken, -1 after saying why not */
static int cancel_one(struct cli *k, const char *token, const char *what, long long id)
{
	struct resp r = { 0 };
	char path[96];

	snprintf(path, sizeof(path), "/api/%ss/%lld/cancel", what, id);
	if (cli_api_call(k, "POST", path, NULL, token, &r) < 0) {
		fprintf(stderr, "kfleet: cancel: %s\n", r.err);
		return -1;
	}
	print_result(what, id, r.j);
	json_decref(r.j);
	return 0;
}

int cli_cancel(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "request", required_argument, NULL, 'r' },
		{ "submission", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *what = "run", *one = NULL;
	const char *const *ids;
	long long id;
	char *token;
	int c, n, rc = CLI_OK;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
		case 's':
			if (one) {
				fprintf(stderr, "kfleet: cancel: --request and --submission: give one\n");
				return CLI_USAGE;
			}
			what = c == 'r' ? "request" : "submission";
			one = optarg;
			break;
		case 'h':
			usage_cancel(stdout);
			return CLI_OK;
		default:
			usage_cancel(stderr);
			return CLI_USAGE;
		}
	}
	if (one ? optind != argc : optind == argc) {
		fprintf(stderr, "kfleet: cancel: %s\n", one ? "run ids and --request or "
			"--submission: give one" : "expected run ids, --request ID or --submission ID");
		usage_cancel(stderr);
		return CLI_USAGE;
	}
	ids = one ? &one : (const char *const *)argv + optind;
	n = one ? 1 : argc - optind;
	/* every id checked before any is canceled */
	for (int i = 0; i < n; i++)
		if (cli_parse_num(k->cmd, one ? (*what == 'r' ? "--request" : "--submission") :
				  "run id", ids[i], 1, INT64_MAX, &id) < 0)
			return CLI_USAGE;
	if (!(token = cli_read_token(k)))
		return CLI_USAGE;
	for (int i = 0; i < n; i++) {
		cli_parse_num(k->cmd, "id", ids[i], 1, INT64_MAX, &id);   /* checked above */
		if (cancel_one(k, token, what, id) < 0)
			rc = CLI_USAGE;
	}
	free(token);
	return rc;
}
