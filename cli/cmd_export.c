// SPDX-License-Identifier: GPL-2.0-only
/* cmd_export.c: `kfleet export kcidb [--since T] [-o FILE]`: kfleet's
 * checkouts, builds and tests as KCIDB report data, as the daemon gives
 * them (GET /api/export/kcidb), to stdout or a file. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/util.h"

static void usage_export(FILE *f)
{
	cli_help_print(f, "export");
}

/* s %-escaped for a query value */
static void query_value(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~:", *p))
			buf_append(b, (const char *)p, 1);
		else
			buf_printf(b, "%%%02X", *p);
}

int cli_export(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "since", required_argument, NULL, 's' },
		{ "submission", required_argument, NULL, 'S' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *since = NULL, *sub = NULL, *out = NULL;
	struct buf url = BUF_INIT(4096);
	struct resp r = { 0 };
	char *text = NULL;
	int c, rc = CLI_USAGE;

	if (argc < 2 || strcmp(argv[1], "kcidb")) {
		if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
			usage_export(stdout);
			return CLI_OK;
		}
		fprintf(stderr, "kfleet: export: %s%s%s (kcidb is the one kind)\n",
			argc < 2 ? "what to export?" : "unknown kind '", argc < 2 ? "" : argv[1],
			argc < 2 ? "" : "'");
		usage_export(stderr);
		return CLI_USAGE;
	}
	optind = 0;
	while ((c = getopt_long(argc - 1, argv + 1, "+ho:", opts, NULL)) != -1) {
		switch (c) {
		case 's': since = optarg; break;
		case 'S': sub = optarg; break;
		case 'o': out = optarg; break;
		case 'h':
			usage_export(stdout);
			return CLI_OK;
		default:
			usage_export(stderr);
			return CLI_USAGE;
		}
	}
	if (optind < argc - 1) {
		fprintf(stderr, "kfleet: export: unexpected argument '%s'\n", argv[optind + 1]);
		return CLI_USAGE;
	}
	buf_puts(&url, "/api/export/kcidb");
	if (since) {
		buf_puts(&url, "?since=");
		query_value(&url, since);
	}
	if (sub) {
		buf_puts(&url, since ? "&submission=" : "?submission=");
		query_value(&url, sub);
	}
	if (!url.data) {
		fprintf(stderr, "kfleet: export: out of memory\n");
		goto out;
	}
	if (cli_api_call(k, "GET", url.data, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: export: %s\n", r.err);
		goto out;
	}
	text = json_dumps(r.j, JSON_INDENT(1) | JSON_SORT_KEYS);
	if (!text) {
		fprintf(stderr, "kfleet: export: out of memory\n");
		goto out;
	}
	if (!out) {
		printf("%s\n", text);
	} else if (write_file(out, text, strlen(text), 0644) < 0) {
		fprintf(stderr, "kfleet: export: '%s': %s\n", out, strerror(errno));
		goto out;
	} else {
		fprintf(stderr, "kfleet: export: %zu checkouts, %zu builds, %zu tests written to '%s'\n",
			json_array_size(json_object_get(r.j, "checkouts")),
			json_array_size(json_object_get(r.j, "builds")),
			json_array_size(json_object_get(r.j, "tests")), out);
	}
	rc = CLI_OK;
out:
	free(text);
	json_decref(r.j);
	buf_release(&url);
	return rc;
}
