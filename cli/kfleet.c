// SPDX-License-Identifier: GPL-2.0-only
/* kfleet.c: the command-line client's main(). It reads the global options
 * (-c CONFIG, --url, --token-file), the config when one is named (for the
 * daemon's address and token), and hands the command its argv from the
 * command word on: cmd_*.c, each a client of kfleetd's JSON API (client.c),
 * but `series` and `parse`, which work here without the daemon, and
 * `help` and `CMD --help`, which print help.c's table, before any config.
 * Exit status: 0 ok (with --wait: the runs passed), 1 a run did not pass,
 * 2 usage, connection or API errors. */
#include <curl/curl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/repro.h"
#include "common/buf.h"
#include "config/config.h"
#include "watch/watch.h"

static int cmd_submit(struct cli *k, int argc, char **argv)
{
	return cli_submit(k, argc, argv, 0);
}

/* kfleet test: a series on a tree is built, then tested (cmd_submit.c);
 * two kernels at hand are tested as they are (cmd_compare.c) */
static int cmd_test(struct cli *k, int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--tree", 6) || !strncmp(argv[i], "--mbox", 6) ||
		    !strncmp(argv[i], "--url", 5) || !strncmp(argv[i], "--msgid", 7) ||
		    !strncmp(argv[i], "--patchwork", 11))
			return cli_submit(k, argc, argv, 1);
	return cli_test(k, argc, argv);
}

/* The commands that ask the daemon */
static const struct command {
	const char *name;
	int (*run)(struct cli *k, int argc, char **argv);
} commands[] = {
	{ "run", cli_run },
	{ "runs", cli_runs },
	{ "show", cli_show },
	{ "logs", cli_logs },
	{ "cancel", cli_cancel },
	{ "repro", cli_repro },
	{ "jobs", cli_jobs },
	{ "compare", cli_compare },
	{ "test", cmd_test },
	{ "import", cli_import },
	{ "trend", cli_trend },
	{ "flaky", cli_flaky },
	{ "export", cli_export },
	{ "submit", cmd_submit },
	{ "tree", cli_tree },
	{ "trees", cli_tree },
	{ "hosts", cli_hosts },
	{ "watch", cli_watch },
	{ "submission", cli_submission },
	{ "submissions", cli_submission },
	{ "builds", cli_builds },
	{ "build", cli_builds },
	{ "bisect", cli_bisect },
	{ "bisections", cli_bisection },
	{ "bisection", cli_bisection },
	{ "reload", cli_reload },
	{ "shutdown", cli_shutdown },
};

/* -c CONFIG read into k->cfg (the embedded defaults without one), then the
 * daemon's URL: 0, or -1 after saying why */
static int load_config(struct cli *k)
{
	watch_config_register();   /* kfleetd's config, [watch NAME] sections and all */
	if (config_defaults(&k->cfg) < 0) {
		fprintf(stderr, "kfleet: out of memory\n");
		return -1;
	}
	/* installed, with no -c: the daemon's own config, for its address and token */
	if (!k->config_path)
		k->config_path = k->default_config = config_default_file(&k->cfg);
	if (k->config_path) {
		struct buf err = BUF_INIT(64 * 1024);

		if (config_load(&k->cfg, k->config_path, &err) < 0) {
			fprintf(stderr, "%s", buf_str(&err));
			if (!err.len)
				fprintf(stderr, "kfleet: config '%s' is not valid\n", k->config_path);
			buf_release(&err);
			return -1;
		}
		buf_release(&err);
	}
	if (cli_resolve_url(k) < 0) {
		fprintf(stderr, "kfleet: out of memory\n");
		return -1;
	}
	return 0;
}

/* Runs the daemon's command k->cmd; returns its exit status */
static int dispatch(struct cli *k, int argc, char **argv)
{
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(k->cmd, commands[i].name))
			return commands[i].run(k, argc, argv);
	fprintf(stderr, "kfleet: '%s' is not a command\n", k->cmd);
	cli_usage(stderr);
	return CLI_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "url", required_argument, NULL, 'u' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct cli k;
	int c, rc = CLI_USAGE;

	memset(&k, 0, sizeof(k));
	while ((c = getopt_long(argc, argv, "+c:h", opts, NULL)) != -1) {
		switch (c) {
		case 'c': k.config_path = optarg; break;
		case 'u': k.url_opt = optarg; break;
		case 'T': k.token_file = optarg; break;
		case 'h':
			cli_usage(stdout);
			return CLI_OK;
		default:
			cli_usage(stderr);
			return CLI_USAGE;
		}
	}
	if (optind >= argc) {
		cli_usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[optind], "help"))    /* help from the table: no config, no daemon */
		return cli_help(argc - optind, argv + optind);
	if (optind + 1 < argc && cli_help_find(argv[optind]) &&
	    (!strcmp(argv[optind + 1], "-h") || !strcmp(argv[optind + 1], "--help"))) {
		cli_help_print(stdout, argv[optind]);
		return CLI_OK;
	}
	if (!strcmp(argv[optind], "series"))  /* mbox files and fetches here: no config, no daemon */
		return cli_series(argc - optind, argv + optind);
	if (!strcmp(argv[optind], "parse"))   /* works on files here: no config, no daemon */
		return cli_parse(argc - optind, argv + optind);
	if (load_config(&k) < 0)
		goto out;
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "kfleet: cannot start libcurl\n");
		goto out;
	}
	k.cmd = argv[optind];
	rc = dispatch(&k, argc - optind, argv + optind);
	curl_global_cleanup();
out:
	free(k.url);
	free(k.default_config);
	config_release(&k.cfg);
	return rc;
}
