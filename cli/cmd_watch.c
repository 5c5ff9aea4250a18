// SPDX-License-Identifier: GPL-2.0-only
/* cmd_watch.c: `kfleet watch add NAME KEY=VALUE...`, `kfleet watch list`
 * and `kfleet watch rm NAME`: the patchwork projects kfleetd follows
 * (watch/watch.h), over the API's /api/watches. The keys are the
 * ones of a [watch NAME] config section. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/util.h"

static void usage_watch(FILE *f)
{
	cli_help_print(f, "watch");
}

static void print_watches(json_t *ws)
{
	json_t *w;
	size_t i;

	printf("%-16s %-6s %-20s %6s %6s %6s %6s\n", "NAME", "FROM", "LAST POLL", "POLLS",
	       "FOUND", "QUEUED", "ERRORS");
	json_array_foreach(ws, i, w) {
		char t[32] = "-";
		json_t *lp = json_object_get(w, "last_poll_at");

		if (json_is_integer(lp))
			fmt_time_ms(json_integer_value(lp), 1, t, sizeof(t));
		printf("%-16s %-6s %-20s %6lld %6lld %6lld %6lld\n", cli_jstr(w, "name", "-"),
		       cli_jstr(w, "source", "-"), t,
		       (long long)json_integer_value(json_object_get(w, "polls")),
		       (long long)json_integer_value(json_object_get(w, "found")),
		       (long long)json_integer_value(json_object_get(w, "queued")),
		       (long long)json_integer_value(json_object_get(w, "errors")));
		if (json_integer_value(json_object_get(w, "failing")) &&
		    json_is_string(json_object_get(w, "last_error")))
			printf("    failing: %s\n", cli_jstr(w, "last_error", "-"));
	}
}

static int watch_add(struct cli *k, int argc, char **argv, const char *token)
{
	struct resp r = { 0 };
	json_t *spec = json_object(), *body = NULL;
	int rc = CLI_USAGE;

	for (int i = 3; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		char key[64];

		if (!eq || eq == argv[i] || (size_t)(eq - argv[i]) >= sizeof(key)) {
			fprintf(stderr, "kfleet: watch add: '%s': expected KEY=VALUE\n", argv[i]);
			goto out;
		}
		memcpy(key, argv[i], (size_t)(eq - argv[i]));
		key[eq - argv[i]] = '\0';
		if (json_object_get(spec, key)) {
			fprintf(stderr, "kfleet: watch add: '%s' given twice\n", key);
			goto out;
		}
		if (json_object_set_new(spec, key, json_string(eq + 1)) < 0) {
			fprintf(stderr, "kfleet: watch add: '%s': not UTF-8\n", argv[i]);
			goto out;
		}
	}
	body = json_pack("{s:s, s:O}", "name", argv[2], "spec", spec);
	if (!body) {
		fprintf(stderr, "kfleet: watch add: the name must be UTF-8\n");
		goto out;
	}
	if (cli_api_call(k, "POST", "/api/watches", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: watch add: %s\n", r.err);
		goto out;
	}
	printf("watch '%s': added (kfleet watch list, or /watches, shows its polls)\n", argv[2]);
	rc = CLI_OK;
out:
	json_decref(r.j);
	json_decref(body);
	json_decref(spec);
	return rc;
}

int cli_watch(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	char *token = NULL, path[256];
	int rc = CLI_USAGE;

	if (argc >= 2 && !strcmp(argv[1], "list")) {
		int json = argc >= 3 && !strcmp(argv[2], "--json");

		if (cli_api_call(k, "GET", "/api/watches", NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: watch list: %s\n", r.err);
			return CLI_USAGE;
		}
		if (json)
			cli_print_json(r.j);
		else
			print_watches(json_object_get(r.j, "watches"));
		json_decref(r.j);
		return CLI_OK;
	}
	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		usage_watch(stdout);
		return CLI_OK;
	}
	if (argc >= 3 && !strcmp(argv[1], "add")) {
		if (!(token = cli_read_token(k)))
			return CLI_USAGE;
		rc = watch_add(k, argc, argv, token);
		free(token);
		return rc;
	}
	if (argc == 3 && !strcmp(argv[1], "rm")) {
		if (!(token = cli_read_token(k)))
			return CLI_USAGE;
		if (strlen(argv[2]) > 64 || strchr(argv[2], '/')) {
			fprintf(stderr, "kfleet: watch rm: '%.64s': not a watch name\n", argv[2]);
			goto out;
		}
		snprintf(path, sizeof(path), "/api/watches/%s/remove", argv[2]);
		if (cli_api_call(k, "POST", path, NULL, token, &r) < 0) {
			fprintf(stderr, "kfleet: watch rm: %s\n", r.err);
			goto out;
		}
		printf("watch '%s': removed (the series it saw stay on record)\n", argv[2]);
		rc = CLI_OK;
		goto out;
	}
	usage_watch(stderr);
out:
	json_decref(r.j);
	free(token);
	return rc;
}
