// SPDX-License-Identifier: GPL-2.0-only
/* cmd_trees.c: `kfleet tree add NAME PATH-or-URL`, `kfleet tree fetch NAME`
 * and `kfleet trees`: the kernel git trees kfleetd keeps mirrors of and
 * builds from, over the API's /api/trees. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/util.h"

static void usage_tree(FILE *f)
{
	cli_help_print(f, "tree");
}

static void print_trees(json_t *trees)
{
	json_t *t;
	size_t i;

	printf("%-16s %-8s %-12s %-10s %s\n", "NAME", "STATE", "HEAD", "BRANCH", "FROM");
	json_array_foreach(trees, i, t) {
		printf("%-16s %-8s %-12.12s %-10s %s\n", cli_jstr(t, "name", "-"), cli_jstr(t, "state", "-"),
		       cli_jstr(t, "head", "-"), json_is_string(json_object_get(t, "branch")) ?
		       cli_jstr(t, "branch", "-") : "HEAD", cli_jstr(t, "url", "-"));
		if (json_is_string(json_object_get(t, "detail")))
			printf("    %s\n", cli_jstr(t, "detail", "-"));
	}
}

int cli_tree(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	char *token = NULL, *abs = NULL, path[256];
	const char *branch = NULL;
	json_t *body = NULL;
	int rc = CLI_USAGE;

	if (!strcmp(argv[0], "trees") || (argc >= 2 && !strcmp(argv[1], "list"))) {
		int json = argc >= 2 && !strcmp(argv[argc - 1], "--json");

		if (cli_api_call(k, "GET", "/api/trees", NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: trees: %s\n", r.err);
			return CLI_USAGE;
		}
		if (json) {
			cli_print_json(r.j);
		} else {
			print_trees(json_object_get(r.j, "trees"));
		}
		json_decref(r.j);
		return CLI_OK;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage_tree(stdout);
		return CLI_OK;
	}
	if (argc == 3 && !strcmp(argv[1], "fetch")) {
		if (!(token = cli_read_token(k)))
			return CLI_USAGE;
		if (strlen(argv[2]) > 100) {
			fprintf(stderr, "kfleet: tree fetch: '%.100s...': not a tree name\n", argv[2]);
			goto out;
		}
		snprintf(path, sizeof(path), "/api/trees/%s/fetch", argv[2]);
		if (cli_api_call(k, "POST", path, NULL, token, &r) < 0) {
			fprintf(stderr, "kfleet: tree fetch: %s\n", r.err);
			goto out;
		}
		printf("tree '%s': fetch queued\n", argv[2]);
		rc = CLI_OK;
		goto out;
	}
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "add")) {
		if (argc == 6) {
			if (strcmp(argv[4], "--branch")) {
				usage_tree(stderr);
				goto out;
			}
			branch = argv[5];
		}
		/* a local tree by its absolute path: the daemon runs elsewhere */
		abs = strstr(argv[3], "://") ? strdup(argv[3]) : path_abs(argv[3]);
		if (!(token = cli_read_token(k)) || !abs)
			goto out;
		body = json_pack("{s:s, s:s}", "name", argv[2], "url", abs);
		if (!body || (branch && json_object_set_new(body, "branch", json_string(branch)))) {
			fprintf(stderr, "kfleet: tree add: the name, path and branch must be UTF-8\n");
			goto out;
		}
		if (cli_api_call(k, "POST", "/api/trees", body, token, &r) < 0) {
			fprintf(stderr, "kfleet: tree add: %s\n", r.err);
			goto out;
		}
		printf("tree '%s': added; kfleetd clones '%s' now (kfleet trees shows when it "
		       "is ready)\n", argv[2], abs);
		rc = CLI_OK;
		goto out;
	}
	usage_tree(stderr);
out:
	json_decref(r.j);
	json_decref(body);
	free(token);
	free(abs);
	return rc;
}
