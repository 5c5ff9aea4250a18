// SPDX-License-Identifier: GPL-2.0-only
/* cmd_import.c: `kfleet import`, a log from elsewhere (a test run by hand,
 * another CI's output) sent base64 to POST /api/import, where the daemon
 * parses it with the job's or the named parser and keeps it as a finished
 * run of the kernel, beside the runs kfleet made. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/util.h"

#define JOB_LOG_MAX (64u << 20)   /* an imported log, as the daemon takes it */

int cli_import(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "job", required_argument, NULL, 'J' },
		{ "parser", required_argument, NULL, 'p' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "name", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *kernel = NULL, *job = NULL, *parser = NULL, *arch = NULL, *name = NULL;
	struct buf log = BUF_INIT(JOB_LOG_MAX + 1);
	struct resp r = { 0 };
	char *kabs = NULL, *token = NULL, *b64 = NULL;
	long long vcpus = 0;
	json_t *body = NULL;
	int c, rc = CLI_USAGE;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': kernel = optarg; break;
		case 'J': job = optarg; break;
		case 'p': parser = optarg; break;
		case 'a': arch = optarg; break;
		case 'n': name = optarg; break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &vcpus) < 0)
				goto out;
			break;
		case 'h':
			rc = CLI_OK;
			/* fall through */
		default:
			cli_help_print(rc ? stderr : stdout, "import");
			goto out;
		}
	}
	if (optind != argc - 1 || !kernel || (!job == !parser)) {
		fprintf(stderr, "kfleet: import: %s\n", optind != argc - 1 ? "give one log file" :
			!kernel ? "--kernel PATH is required" : "give --job or --parser, one of them");
		goto out;
	}
	if (read_file(strcmp(argv[optind], "-") ? argv[optind] : "/dev/stdin", &log,
		      JOB_LOG_MAX) < 0 || log.truncated) {
		fprintf(stderr, "kfleet: import: '%s': %s\n", argv[optind],
			log.truncated ? "larger than 64 MiB" : strerror(errno));
		goto out;
	}
	kabs = path_abs(kernel);
	b64 = cli_base64(log.len ? log.data : "", log.len);
	token = cli_read_token(k);
	if (!kabs || !b64 || !token)
		goto out;
	body = json_pack("{s:s, s:s, s:s}", "kernel", kabs, "log_base64", b64, "name",
			 name ? name : argv[optind]);
	if (!body || (job && json_object_set_new(body, "job", json_string(job))) ||
	    (parser && json_object_set_new(body, "parser", json_string(parser))) ||
	    (arch && json_object_set_new(body, "arch", json_string(arch))) ||
	    (vcpus && json_object_set_new(body, "vcpus", json_integer(vcpus)))) {
		fprintf(stderr, "kfleet: import: the options must be UTF-8\n");
		goto out;
	}
	if (cli_api_call(k, "POST", "/api/import", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: import: %s\n", r.err);
		goto out;
	}
	printf("run %lld imported\n", (long long)json_integer_value(json_object_get(r.j, "id")));
	rc = CLI_OK;
out:
	json_decref(r.j);
	json_decref(body);
	buf_release(&log);
	free(kabs);
	free(token);
	free(b64);
	return rc;
}
