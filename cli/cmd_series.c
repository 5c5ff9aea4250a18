// SPDX-License-Identifier: GPL-2.0-only
/* cmd_series.c: `kfleet series show`, the user's check that kfleet reads
 * their series right before anything is queued: fetch (kernels/fetch.c)
 * or read the mbox, parse it (kernels/series.c) and print the series, as
 * text or JSON. Runs here, without the daemon. */
#include "cli/cli.h"

#include <curl/curl.h>
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"
#include "kernels/kernels.h"

static void usage(FILE *f)
{
	cli_help_print(f, "series");
}

/* A reply's trailers, with the reply they came from */
static void print_followups(const struct series_patch *p)
{
	for (size_t i = 0; i < p->nfollowups; i++)
		printf("    %s: %s (in reply <%s>)\n", p->followups[i].key, p->followups[i].value,
		       p->followups[i].msgid ? p->followups[i].msgid : "");
}

static void print_patch_line(const struct series *s, const struct series_patch *p)
{
	char from[32] = "";

	/* in a partial reroll, the patches of an older version say so */
	if (p->version != s->version)
		snprintf(from, sizeof(from), "[v%d] ", p->version);
	printf("%d/%d %s%s (%s <%s>, <%s>, +%d/-%d lines in %d %s)\n", p->index, s->count,
	       from, p->title, p->author, p->email, p->msgid, p->insertions, p->deletions,
	       p->files, p->files == 1 ? "file" : "files");
	for (size_t i = 0; i < p->ntrailers; i++)
		printf("    %s: %s\n", p->trailers[i].key, p->trailers[i].value);
	print_followups(p);
}

/* "v3 (a partial reroll: 1/2 v2)" */
static void print_version(const struct series *s)
{
	printf("version:     v%d%s", s->version, s->rfc ? " (RFC)" : "");
	if (s->partial) {
		const char *sep = " (a partial reroll:";

		if (s->cover && s->cover->version != s->version) {
			printf("%s cover v%d", sep, s->cover->version);
			sep = ",";
		}
		for (int i = 0; i < s->count; i++) {
			if (s->patches[i].version == s->version)
				continue;
			printf("%s %d/%d v%d", sep, s->patches[i].index, s->count,
			       s->patches[i].version);
			sep = ",";
		}
		printf(")");
	}
	printf("\n");
}

static void print_text(const struct series *s, const char *source)
{
	int ins = 0, del = 0;

	for (int i = 0; i < s->count; i++) {
		ins += s->patches[i].insertions;
		del += s->patches[i].deletions;
	}
	printf("series:      %s\n", s->cover ? s->cover->title : s->patches[0].title);
	printf("from:        %s\n", source);
	print_version(s);
	printf("tree tag:    %s\n", s->tree ? s->tree : "(none)");
	if (s->base_commit)
		printf("base-commit: %s (from %s)\n", s->base_commit, s->base_commit_from);
	else
		printf("base-commit: (none given)\n");
	if (s->change_id)
		printf("change-id:   %s (from %s)\n", s->change_id, s->change_id_from);
	if (s->cover)
		printf("cover:       %s <%s>, <%s>, %s\n", s->cover->author, s->cover->email,
		       s->cover->msgid, s->cover->date);
	else
		printf("cover:       (none)\n");
	if (s->cover)
		print_followups(s->cover);
	printf("patches:     %d (+%d/-%d lines)\n", s->count, ins, del);
	if (s->others)
		printf("left out:    %d of %d mails (replies, reviews, other versions)\n",
		       s->others, s->messages);
	for (size_t i = 0; i < s->nnotes; i++)
		printf("note:        %s\n", s->notes[i]);
	printf("\n");
	for (int i = 0; i < s->count; i++)
		print_patch_line(s, &s->patches[i]);
}

int cli_series_get(const char *mbox, const char *url, const char *msgid, const char *pw,
		   const struct fetch_opts *fo, struct buf *out, char **source, char **err)
{
	*source = NULL;
	*err = NULL;
	if (mbox) {
		const char *path = strcmp(mbox, "-") ? mbox : "/dev/stdin";

		if (!(*source = strdup(strcmp(mbox, "-") ? mbox : "stdin")))
			return -1;
		if (read_file(path, out, SERIES_MBOX_MAX) < 0) {
			if (asprintf(err, "'%s': %s", mbox, strerror(errno)) < 0)
				*err = NULL;
			return -1;
		}
		if (out->truncated) {
			if (asprintf(err, "'%s': larger than %u bytes", mbox, SERIES_MBOX_MAX) < 0)
				*err = NULL;
			return -1;
		}
		return 0;
	}
	if (url) {
		if (fetch_url(url, fo, out, err) < 0)
			return -1;
		*source = strdup(url);
		return *source ? 0 : -1;
	}
	if (msgid)
		return fetch_msgid(msgid, fo, out, source, err);
	return fetch_patchwork(pw, fo, out, source, err);
}

static void report(const char *err)
{
	fprintf(stderr, "kfleet: series show: %s\n", err ? err : "out of memory");
}

int cli_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "mbox", required_argument, NULL, 'm' },
		{ "url", required_argument, NULL, 'u' },
		{ "msgid", required_argument, NULL, 'i' },
		{ "patchwork", required_argument, NULL, 'p' },
		{ "lore", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mbox = NULL, *url = NULL, *msgid = NULL, *pw = NULL;
	struct fetch_opts fo = { 0 };
	struct buf body = BUF_INIT(0);
	struct series *s = NULL;
	char *err = NULL, *fetched = NULL;
	const char *source;
	int c, json = 0, sources = 0, rc = CLI_USAGE, curl_up = 0;

	if (argc < 2 || (strcmp(argv[1], "show") && strcmp(argv[1], "-h") &&
			 strcmp(argv[1], "--help"))) {
		if (argc >= 2)
			fprintf(stderr, "kfleet: series: '%s' is not a series command (show)\n",
				argv[1]);
		usage(stderr);
		return CLI_USAGE;
	}
	if (strcmp(argv[1], "show")) {
		usage(stdout);
		return CLI_OK;
	}
	optind = 0;
	while ((c = getopt_long(argc - 1, argv + 1, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'm': mbox = optarg; sources++; break;
		case 'u': url = optarg; sources++; break;
		case 'i': msgid = optarg; sources++; break;
		case 'p': pw = optarg; sources++; break;
		case 'l': fo.lore_base = optarg; break;
		case 'j': json = 1; break;
		case 'h':
			usage(stdout);
			rc = CLI_OK;
			goto out;
		default:
			usage(stderr);
			goto out;
		}
	}
	if (optind != argc - 1 || sources != 1) {
		fprintf(stderr, "kfleet: series show: %s\n", optind != argc - 1 ?
			"unexpected arguments" : "give one of --mbox, --url, --msgid, --patchwork");
		usage(stderr);
		goto out;
	}

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fprintf(stderr, "kfleet: series show: cannot start libcurl\n");
		goto out;
	}
	curl_up = 1;
	if (cli_series_get(mbox, url, msgid, pw, &fo, &body, &fetched, &err) < 0 ||
	    series_parse_mem(fetched, body.data ? body.data : "", body.len, &s, &err) < 0) {
		report(err);
		goto out;
	}
	source = fetched;

	if (json) {
		json_t *j = series_json(s);

		if (!j || json_object_set_new(j, "source", json_string(source)) < 0) {
			json_decref(j);
			fprintf(stderr, "kfleet: series show: out of memory\n");
			goto out;
		}
		cli_print_json(j);
		json_decref(j);
	} else {
		print_text(s, source);
	}
	rc = fflush(stdout) == 0 ? CLI_OK : CLI_USAGE;
out:
	series_free(s);
	buf_release(&body);
	free(err);
	free(fetched);
	if (curl_up)
		curl_global_cleanup();
	return rc;
}
