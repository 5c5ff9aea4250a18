// SPDX-License-Identifier: GPL-2.0-only
/* cmd_logs.c: kfleet logs [-f] [--console | --output] ID: a run's console
 * and its command's output, from /api/runs/ID/tail (web/tail.c). With -f
 * it follows them while the guest runs, half a second a poll, and ends
 * with the run's outcome. With both streams, the command's output lines
 * are marked "| " so that they stand apart from the kernel's. What the
 * guest wrote is shown inert (visible.c) unless --raw. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define LOGS_POLL_US   500000
#define LOGS_RETRIES   20      /* polls without an answer before giving up */

struct stream {
	const char *key;        /* "console", "output" */
	long long next;         /* the offset to ask from */
	int shown;              /* printed at all */
	int bol;                /* at the beginning of a line */
	int told;               /* said that the file was pruned */
	const char *mark;       /* before each line, or "" */
	int raw;                /* as the guest wrote it (--raw) */
	struct cli_visible vis; /* a CR held back across polls */
};

/* The text of a stream as it is printed: made visible unless raw, CRs
 * held back until the run's end (end) */
static void visible_text(struct stream *s, json_t *text, int end, struct buf *out)
{
	const char *t = json_is_string(text) ? json_string_value(text) : "";
	size_t n = json_is_string(text) ? json_string_length(text) : 0;

	if (s->raw) {
		buf_append(out, t, n);
		return;
	}
	cli_visible(out, t, n, &s->vis);
	if (end)
		cli_visible_end(out, &s->vis);
}

/* Prints what came for s; 1 when there is more to ask for now. end: the
 * run is done, nothing more comes after this. */
static int show(struct stream *s, json_t *part, int end)
{
	struct buf text = BUF_INIT(0);
	long long next = cli_jint(part, "next", s->next), size = cli_jint(part, "size", 0);

	if (!s->shown) {
		s->next = size;        /* asked from its end: nothing comes */
		return 0;
	}
	if (json_is_object(json_object_get(part, "pruned")) && !s->next && !s->told) {
		json_t *pr = json_object_get(part, "pruned");

		printf("[kfleet: the %s (%lld bytes) was pruned by the storage pass (%s)]\n",
		       s->key, cli_jint(pr, "bytes", 0), cli_jstr(pr, "why", "?"));
		s->told = 1;
		return 0;
	}
	if (json_is_true(json_object_get(part, "restarted"))) {
		printf("%s[kfleet: %s started again: the file was rotated]\n", s->bol ? "" : "\n",
		       s->key);
		s->bol = 1;
	}
	visible_text(s, json_object_get(part, "text"), end && next >= size, &text);
	for (size_t i = 0; i < text.len; i++) {
		if (s->bol && *s->mark)
			fputs(s->mark, stdout);
		putchar(text.data[i]);
		s->bol = text.data[i] == '\n';
	}
	buf_release(&text);
	s->next = next;
	return next < size;
}

static int follow(struct cli *k, long long id, int f, struct stream *st, size_t ns)
{
	int failures = 0;

	for (;;) {
		char path[128];
		struct resp r;
		int more = 0, done;

		snprintf(path, sizeof(path), "/api/runs/%lld/tail?console=%lld&output=%lld", id,
			 st[0].next, st[1].next);
		if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
			/* a daemon restarting is not the run's end */
			if (r.status || !f || ++failures >= LOGS_RETRIES) {
				fprintf(stderr, "kfleet: logs: %s\n", r.err);
				return CLI_USAGE;
			}
			usleep(LOGS_POLL_US);
			continue;
		}
		failures = 0;
		done = !strcmp(cli_jstr(r.j, "state", ""), "done");
		for (size_t i = 0; i < ns; i++)
			more |= show(&st[i], json_object_get(r.j, st[i].key), done || !f);
		fflush(stdout);
		if (!more && (done || !f)) {
			int passed = !strcmp(cli_jstr(r.j, "outcome", ""), "passed");

			if (f) {
				const char *detail = cli_jstr(r.j, "detail", "");
				struct buf d = BUF_INIT(0);

				visible_text(&(struct stream){ .raw = st[0].raw },
					     json_object_get(r.j, "detail"), 1, &d);
				printf("%srun %lld: %s%s%s\n", st[0].bol && st[1].bol ? "" : "\n", id,
				       cli_jstr(r.j, "outcome", "?"), *detail ? ": " : "",
				       buf_str(&d));
				buf_release(&d);
			}
			json_decref(r.j);
			return !f || passed ? CLI_OK : CLI_NOT_PASSED;
		}
		json_decref(r.j);
		if (!more)
			usleep(LOGS_POLL_US);
	}
}

int cli_logs(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "follow", no_argument, NULL, 'f' },
		{ "console", no_argument, NULL, 'c' },
		{ "output", no_argument, NULL, 'o' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct stream st[2] = {
		{ .key = "console", .shown = 1, .bol = 1, .mark = "" },
		{ .key = "output", .shown = 1, .bol = 1, .mark = "| " },
	};
	int f = 0, only_console = 0, only_output = 0, raw = 0, c;
	long long id;

	optind = 0;
	while ((c = getopt_long(argc, argv, "fh", opts, NULL)) != -1) {
		switch (c) {
		case 'f': f = 1; break;
		case 'c': only_console = 1; break;
		case 'o': only_output = 1; break;
		case 'r': raw = 1; break;
		case 'h':
			cli_help_print(stdout, "logs");
			return CLI_OK;
		default:
			cli_help_print(stderr, "logs");
			return CLI_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "kfleet: logs: expected one run id\n");
		return CLI_USAGE;
	}
	if (only_console && only_output) {
		fprintf(stderr, "kfleet: logs: --console and --output: give one, or neither for "
			"both\n");
		return CLI_USAGE;
	}
	if (cli_parse_num(k->cmd, "run id", argv[optind], 1, INT64_MAX, &id) < 0)
		return CLI_USAGE;
	st[0].raw = st[1].raw = raw;
	if (only_console)
		st[1].shown = 0;
	if (only_output) {
		st[0].shown = 0;
		st[1].mark = "";
	}
	return follow(k, id, f, st, 2);
}
