// SPDX-License-Identifier: GPL-2.0-only
/* cmd_flaky.c: `kfleet flaky [--all] [--json]`: the tests in quarantine
 * (GET /api/flaky), each with its job, cell, flip rate, failures of its
 * newest runs and since when; --all adds the released ones. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/util.h"

static void usage_flaky(FILE *f)
{
	cli_help_print(f, "flaky");
}

/* Column widths from the widest test path and job */
static void widths(json_t *rows, int *tw, int *jw)
{
	json_t *q;
	size_t i;

	*tw = 4;
	*jw = 3;
	json_array_foreach(rows, i, q) {
		int t = (int)strlen(cli_jdash(q, "path")), j = (int)strlen(cli_jdash(q, "job"));

		*tw = t > *tw ? (t > 60 ? 60 : t) : *tw;
		*jw = j > *jw ? j : *jw;
	}
}

void cli_print_flaky(json_t *ans, int all)
{
	json_t *rows = json_object_get(ans, "flaky"), *rule = json_object_get(ans, "rule"), *q;
	int tw, jw, open = 0;
	size_t i;

	widths(rows, &tw, &jw);
	printf("%-*s %-*s %-16s %-14s %-9s %-*s%s\n", tw, "TEST", jw, "JOB", "CELL", "FLIP RATE",
	       "FAILED", all ? 19 : 0, "SINCE (UTC)", all ? " RELEASED (UTC)" : "");
	json_array_foreach(rows, i, q) {
		char rate[32], failed[32], since[32], rel[32] = "-";
		long long chances = cli_jint(q, "chances", 0), flips = cli_jint(q, "flips", 0);

		snprintf(rate, sizeof(rate), "%.0f%% (%lld/%lld)",
			 chances ? 100.0 * (double)flips / (double)chances : 0.0, flips, chances);
		snprintf(failed, sizeof(failed), "%lld of %lld", cli_jint(q, "failed", 0),
			 cli_jint(q, "runs", 0));
		fmt_time_ms(cli_jint(q, "since", 0), 0, since, sizeof(since));
		if (cli_jint(q, "released_at", 0) > 0)
			fmt_time_ms(cli_jint(q, "released_at", 0), 0, rel, sizeof(rel));
		else
			open++;
		printf("%-*s %-*s %-16s %-14s %-9s %-*s%s%s\n", tw, cli_jdash(q, "path"), jw,
		       cli_jdash(q, "job"), cli_jdash(q, "cell"), rate, failed, all ? 19 : 0, since,
		       all ? " " : "", all ? rel : "");
	}
	printf("%d test%s in quarantine (%lld flips in a test's newest %lld runs on the same "
	       "kernel put it there, %lld runs without a flip release it)\n", open,
	       open == 1 ? "" : "s", cli_jint(rule, "min_flips", 0), cli_jint(rule, "window", 0),
	       cli_jint(rule, "release_runs", 0));
	if (json_is_true(json_object_get(ans, "truncated")))
		printf("(the newest %zu only)\n", json_array_size(rows));
}

int cli_flaky(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int json = 0, all = 0, c;
	struct resp r = { 0 };

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': all = 1; break;
		case 'j': json = 1; break;
		case 'h':
			usage_flaky(stdout);
			return CLI_OK;
		default:
			usage_flaky(stderr);
			return CLI_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kfleet: flaky: unexpected argument '%s'\n", argv[optind]);
		return CLI_USAGE;
	}
	if (cli_api_call(k, "GET", all ? "/api/flaky?all=1" : "/api/flaky", NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: flaky: %s\n", r.err);
		return CLI_USAGE;
	}
	if (json)
		cli_print_json(r.j);
	else
		cli_print_flaky(r.j, all);
	json_decref(r.j);
	return CLI_OK;
}
