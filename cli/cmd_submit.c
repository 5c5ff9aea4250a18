// SPDX-License-Identifier: GPL-2.0-only
/* cmd_submit.c: the CLI side of submissions and builds. `kfleet submit`
 * reads or fetches the mbox here (so what is sent is what `kfleet series
 * show` read), sends it base64 in JSON to POST /api/submissions and can
 * wait; `kfleet test --tree ... --mbox ...` waits for the builds, then for
 * every request's runs, and prints the before/after tables (cmd_compare.c).
 * `kfleet submission(s)` and `kfleet build(s)` print what was made. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/scaling.h"
#include "common/buf.h"
#include "common/util.h"
#include "kernels/kernels.h"

static void usage_submit(FILE *f, int test)
{
	cli_help_print(f, test ? "test" : "submit");
}

static void print_builds(json_t *builds)
{
	json_t *b;
	size_t i;

	json_array_foreach(builds, i, b) {
		json_t *ms = json_object_get(b, "ms");

		printf("  build %lld  %-6s %-7s %-8s %-12.12s %s%s", (long long)json_integer_value(
		       json_object_get(b, "id")), cli_jstr(b, "arch", "-"),
		       json_is_string(json_object_get(b, "side")) ? cli_jstr(b, "side", "-") : "",
		       cli_jstr(b, "state", "-"),
		       cli_jstr(b, "commit_id", "-"), cli_jstr(b, "release", "-"),
		       json_integer_value(json_object_get(b, "reused")) ? " (reused)" : "");
		if (json_is_integer(ms))
			printf(", %lld s", (long long)json_integer_value(ms) / 1000);
		printf("\n");
		if (json_is_string(json_object_get(b, "errors")))
			printf("%s", cli_jstr(b, "errors", "-"));
		else if (json_is_string(json_object_get(b, "detail")))
			printf("    %s\n", cli_jstr(b, "detail", "-"));
		if (json_is_string(json_object_get(b, "dropped")))
			printf("    not kept by olddefconfig: %s\n", cli_jstr(b, "dropped", "-"));
	}
}

static void print_submission(json_t *s)
{
	json_t *ser = json_object_get(s, "series"), *p;
	size_t i;

	printf("submission %lld: %s%s%s\n", (long long)json_integer_value(json_object_get(s, "id")),
	       cli_jstr(s, "state", "-"), json_is_string(json_object_get(s, "outcome")) ? ": " : "",
	       json_is_string(json_object_get(s, "outcome")) ? cli_jstr(s, "outcome", "-") : "");
	if (json_is_string(json_object_get(s, "detail")))
		printf("  %s\n", cli_jstr(s, "detail", "-"));
	printf("  tree:     %s\n", cli_jstr(s, "tree", "-"));
	if (json_is_string(json_object_get(s, "kernel"))) {
		/* a kernel built elsewhere: the tree only gives its selftests */
		printf("  kernel:   %s\n", cli_jstr(s, "kernel", "-"));
		printf("  selftests from %s (%s)\n", cli_jstr(s, "base_commit", "-"), cli_jstr(s, "base_why", "-"));
		printf("  arch:     %s\n", cli_jstr(s, "arches", "-"));
	} else {
		printf("  series:   %s\n", json_is_string(json_object_get(s, "series_subject")) ?
		       cli_jstr(s, "series_subject", "-") : "(none: the base only)");
		printf("  base:     %s (%s)\n", cli_jstr(s, "base_commit", "-"), cli_jstr(s, "base_why", "-"));
		if (json_is_string(json_object_get(s, "patched_commit")))
			printf("  patched:  %s\n", cli_jstr(s, "patched_commit", "-"));
		printf("  arches:   %s, config %s\n", cli_jstr(s, "arches", "-"), cli_jstr(s, "config", "-"));
	}
	json_array_foreach(json_object_get(ser, "patches"), i, p)
		printf("  %lld/%lld %s\n", (long long)json_integer_value(json_object_get(p, "index")),
		       (long long)json_integer_value(json_object_get(ser, "count")), cli_jstr(p, "title", "-"));
	print_builds(json_object_get(s, "builds"));
	if (json_array_size(json_object_get(s, "requests")))
		printf("  runs:     %lld of %lld done\n",
		       (long long)json_integer_value(json_object_get(s, "runs_done")),
		       (long long)json_integer_value(json_object_get(s, "runs")));
}

/* Polls the submission until its builds are over: 0 with r->j, -1 */
static int wait_built(struct cli *k, long long id, struct resp *r)
{
	char path[64];
	const char *last = "";
	int fails = 0, tty = isatty(2);
	struct cli_progress prog = { 0 };

	snprintf(path, sizeof(path), "/api/submissions/%lld", id);
	for (;;) {
		const char *st;

		json_decref(r->j);
		r->j = NULL;
		if (cli_api_call(k, "GET", path, NULL, NULL, r) < 0) {
			if (++fails > 30) {
				fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r->err);
				return -1;
			}
			sleep(2);
			continue;
		}
		fails = 0;
		st = cli_jstr(r->j, "state", "-");
		if (strcmp(st, last)) {
			cli_build_progress_end(tty, &prog);
			fprintf(stderr, "submission %lld: %s\n", id, st);
			last = strcmp(st, "queued") ? "building" : "queued";
			if (strcmp(st, "queued") && strcmp(st, "building"))
				return 0;
		}
		cli_build_progress(r->j, tty, &prog);
		sleep(2);
	}
}

/* kfleet submit's (and kfleet test's) options */
struct submit_args {
	const char *tree, *mbox, *url, *msgid, *pw, *base, *arch, *config, *jobs, *vcpus;
	const char *kernel;
	struct fetch_opts fo;
	struct buf frags;       /* the --fragment values, local files made absolute */
	const char *margin;     /* test: --margin, checked */
	long long repeat, memory, max_runs;
	int sources, wait, markdown, json, until;
};

/* --fragment F onto a->frags: a local file by its absolute path */
static void submit_add_fragment(struct submit_args *a, const char *f)
{
	char *abs = f[0] == '.' || (strchr(f, '/') && access(f, R_OK) == 0) ? path_abs(f) : NULL;

	buf_printf(&a->frags, "%s%s", a->frags.len ? "," : "", abs ? abs : f);
	free(abs);
}

/* submit's options into a: 0, 1 after printing the help (-h), -1 after
 * saying why not */
static int submit_args_parse(struct cli *k, int argc, char **argv, int test,
			     struct submit_args *a)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "mbox", required_argument, NULL, 'f' },
		{ "url", required_argument, NULL, 'u' },
		{ "msgid", required_argument, NULL, 'i' },
		{ "patchwork", required_argument, NULL, 'p' },
		{ "lore", required_argument, NULL, 'l' },
		{ "base", required_argument, NULL, 'b' },
		{ "arch", required_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'C' },
		{ "fragment", required_argument, NULL, 'F' },
		{ "job", required_argument, NULL, 'J' },
		{ "jobs", required_argument, NULL, 'J' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "memory", required_argument, NULL, 'm' },
		{ "kernel", required_argument, NULL, 'k' },
		{ "wait", no_argument, NULL, 'w' },
		{ "markdown", no_argument, NULL, 'M' },
		{ "margin", required_argument, NULL, 'g' },
		{ "json", no_argument, NULL, 'j' },
		{ "until-decided", no_argument, NULL, 'U' },
		{ "max-runs", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'U': a->until = 1; break;
		case 'X':
			if (cli_parse_num(k->cmd, "--max-runs", optarg, 1, 100, &a->max_runs) < 0)
				return -1;
			break;
		case 't': a->tree = optarg; break;
		case 'f': a->mbox = optarg; a->sources++; break;
		case 'u': a->url = optarg; a->sources++; break;
		case 'i': a->msgid = optarg; a->sources++; break;
		case 'p': a->pw = optarg; a->sources++; break;
		case 'l': a->fo.lore_base = optarg; break;
		case 'b': a->base = optarg; break;
		case 'a': a->arch = optarg; break;
		case 'C': a->config = optarg; break;
		case 'F': submit_add_fragment(a, optarg); break;
		case 'J': a->jobs = optarg; break;
		case 'v': a->vcpus = optarg; break;
		case 'k': a->kernel = optarg; break;
		case 'r':
			if (cli_parse_num(k->cmd, "--repeat", optarg, 1, 100, &a->repeat) < 0)
				return -1;
			break;
		case 'm':
			if (cli_parse_num(k->cmd, "--memory", optarg, 64, 1 << 24, &a->memory) < 0)
				return -1;
			break;
		case 'w': a->wait = 1; break;
		case 'M': a->markdown = 1; break;
		case 'g':
			if (cli_margin_check(k->cmd, optarg) < 0)
				return -1;
			a->margin = optarg;
			break;
		case 'j': a->json = 1; break;
		case 'h':
			usage_submit(stdout, test);
			return 1;
		default:
			usage_submit(stderr, test);
			return -1;
		}
	}
	if (optind < argc || a->sources > 1 || (test && (!a->sources || !a->jobs)) ||
	    (!a->sources && !a->tree)) {
		fprintf(stderr, "kfleet: %s: %s\n", k->cmd, optind < argc ? "unexpected arguments" :
			a->sources > 1 ? "give one of --mbox, --url, --msgid, --patchwork" :
			test ? "a series (--mbox, --url, --msgid or --patchwork) and --job are needed" :
			"--tree is needed when there is no series");
		usage_submit(stderr, test);
		return -1;
	}
	if (cli_decided_check(k->cmd, a->until, a->max_runs, a->repeat) < 0)
		return -1;
	if (a->until && !a->sources) {
		fprintf(stderr, "kfleet: %s: --until-decided needs a series (a base and a patched "
			"kernel to compare)\n", k->cmd);
		return -1;
	}
	return 0;
}

/* The body of POST /api/submissions (caller decrefs): a's options, the
 * series mb (named source) in base64 when there is one, the config and
 * the kernel by the absolute paths given. NULL after saying why */
static json_t *submit_body(struct cli *k, const struct submit_args *a, const struct buf *mb,
			   const char *source, const char *cfgabs, const char *kabs)
{
	json_t *body = json_object();
	char *b64 = NULL;

	if (a->sources) {
		b64 = cli_base64(mb->len ? mb->data : "", mb->len);
		if (!b64 || json_object_set_new(body, "mbox_base64", json_string(b64)) ||
		    json_object_set_new(body, "mbox_name", json_string(source))) {
			fprintf(stderr, "kfleet: %s: out of memory\n", k->cmd);
			json_decref(body);
			body = NULL;
			goto out;
		}
	}
	if ((a->tree && json_object_set_new(body, "tree", json_string(a->tree))) ||
	    (a->base && json_object_set_new(body, "base", json_string(a->base))) ||
	    (a->arch && json_object_set_new(body, "arch", json_string(a->arch))) ||
	    (a->config && json_object_set_new(body, "config",
					      json_string(cfgabs ? cfgabs : a->config))) ||
	    (a->frags.len && json_object_set_new(body, "fragments",
						 json_string(buf_str(&a->frags)))) ||
	    (a->jobs && json_object_set_new(body, "jobs", json_string(a->jobs))) ||
	    (a->vcpus && json_object_set_new(body, "vcpus", json_string(a->vcpus))) ||
	    (a->repeat && json_object_set_new(body, "repeat", json_integer(a->repeat))) ||
	    (a->memory && json_object_set_new(body, "memory_mb", json_integer(a->memory))) ||
	    (kabs && json_object_set_new(body, "kernel", json_string(kabs))) ||
	    cli_decided_body(body, a->until, a->max_runs, a->margin) < 0) {
		fprintf(stderr, "kfleet: %s: the options must be UTF-8\n", k->cmd);
		json_decref(body);
		body = NULL;
	}
out:
	free(b64);
	return body;
}

/* kfleet test: each request of submission sub, its runs and its tables.
 * Returns the worst of rc and the requests' exit statuses. */
static int submit_report(struct cli *k, json_t *sub, int markdown, const char *margin, int rc)
{
	json_t *reqs = json_object_get(sub, "requests"), *q;
	long long seen[64][2];
	char *job[64];
	size_t i, n = 0;

	json_array_foreach(reqs, i, q) {
		struct resp rq = { 0 };
		char path[64];
		int one;

		snprintf(path, sizeof(path), "/api/requests/%lld", (long long)json_integer_value(q));
		if (cli_api_call(k, "GET", path, NULL, NULL, &rq) < 0) {
			fprintf(stderr, "kfleet: %s: %s\n", k->cmd, rq.err);
			rc = CLI_USAGE;
			continue;
		}
		printf("\nrequest %lld: %s\n", (long long)json_integer_value(q),
		       cli_jstr(rq.j, "job", "-"));
		one = cli_request_report(k, json_integer_value(q), cli_jstr(rq.j, "job", "-"),
					 markdown, margin);
		if (one > rc)
			rc = one;
		/* the first request of a kernel pair and job: its scaling across vCPUs */
		if (n < 64) {
			seen[n][0] = cli_jint(rq.j, "base_kernel_id", 0);
			seen[n][1] = cli_jint(rq.j, "patched_kernel_id", 0);
			job[n] = strdup(cli_jstr(rq.j, "job", ""));
			for (size_t j = 0; job[n] && j < n; j++)
				if (seen[j][0] == seen[n][0] && seen[j][1] == seen[n][1] &&
				    !strcmp(job[j], job[n])) {
					free(job[n]);
					job[n] = NULL;
				}
			n += job[n] != NULL;
		}
		json_decref(rq.j);
	}
	for (i = 0; i < n; i++) {
		cli_scaling_report(k, seen[i][0], seen[i][1], job[i], markdown, margin);
		free(job[i]);
	}
	return rc;
}

int cli_submit(struct cli *k, int argc, char **argv, int test)
{
	struct submit_args a = { .frags = BUF_INIT(8192), .wait = test };
	struct buf mb = BUF_INIT(0);
	struct resp r = { 0 };
	char *token = NULL, *source = NULL, *err = NULL, *cfgabs = NULL, *kabs = NULL;
	long long id;
	int rc = CLI_USAGE, p;
	json_t *body = NULL;

	p = submit_args_parse(k, argc, argv, test, &a);
	if (p) {
		rc = p > 0 ? CLI_OK : CLI_USAGE;
		goto out;
	}
	if (a.sources && cli_series_get(a.mbox, a.url, a.msgid, a.pw, &a.fo, &mb, &source,
					&err) < 0) {
		fprintf(stderr, "kfleet: %s: %s\n", k->cmd, err ? err : "out of memory");
		goto out;
	}
	if (a.config && a.config[0] != '/' && strchr(a.config, '/'))
		cfgabs = path_abs(a.config);
	if (a.kernel && !(kabs = path_abs(a.kernel))) {
		fprintf(stderr, "kfleet: %s: kernel '%s': %s\n", k->cmd, a.kernel, strerror(errno));
		goto out;
	}
	token = cli_read_token(k);
	if (!token || !(body = submit_body(k, &a, &mb, source, cfgabs, kabs)))
		goto out;
	if (cli_api_call(k, "POST", "/api/submissions", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r.err);
		goto out;
	}
	id = json_integer_value(json_object_get(r.j, "id"));
	printf("submission %lld queued%s\n", id, source ? "" : kabs ?
	       " (a kernel built elsewhere: the tree gives its selftests)" :
	       " (no series: the base only)");
	rc = CLI_OK;
	if (!a.wait)
		goto out;
	if (wait_built(k, id, &r) < 0) {
		rc = CLI_USAGE;
		goto out;
	}
	if (a.json)
		cli_print_json(r.j);
	else
		print_submission(r.j);
	if (!strcmp(cli_jstr(r.j, "state", "-"), "failed")) {
		rc = CLI_NOT_PASSED;
		goto out;
	}
	if (test) {
		rc = submit_report(k, r.j, a.markdown, a.margin, rc);
		printf("\n%s/submissions/%lld\n", k->url, id);
	}
out:
	json_decref(r.j);
	json_decref(body);
	buf_release(&a.frags);
	buf_release(&mb);
	free(cfgabs);
	free(kabs);
	free(token);
	free(source);
	free(err);
	return rc;
}

int cli_submission(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	int json = argc >= 2 && !strcmp(argv[argc - 1], "--json");
	long long id;
	char path[64];
	json_t *v;
	size_t i;

	if (!strcmp(argv[0], "submissions")) {
		if (cli_api_call(k, "GET", "/api/submissions", NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: submissions: %s\n", r.err);
			return CLI_USAGE;
		}
		if (json) {
			cli_print_json(r.j);
		} else {
			printf("%-6s %-10s %-14s %-9s %s\n", "ID", "TREE", "STATE", "ARCHES", "SERIES");
			json_array_foreach(json_object_get(r.j, "submissions"), i, v)
				printf("%-6lld %-10s %-14s %-9s %s\n",
				       (long long)json_integer_value(json_object_get(v, "id")),
				       cli_jstr(v, "tree", "-"), cli_jstr(v, "state", "-"), cli_jstr(v, "arches", "-"),
				       json_is_string(json_object_get(v, "series_subject")) ?
				       cli_jstr(v, "series_subject", "-") : "(base only)");
		}
		json_decref(r.j);
		return CLI_OK;
	}
	if (argc < 2 || parse_int(argv[1], 1, INT64_MAX, &id) < 0) {
		cli_help_print(stderr, "submission");
		return CLI_USAGE;
	}
	snprintf(path, sizeof(path), "/api/submissions/%lld", id);
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: submission: %s\n", r.err);
		return CLI_USAGE;
	}
	if (json) {
		cli_print_json(r.j);
	} else {
		print_submission(r.j);
	}
	json_decref(r.j);
	return CLI_OK;
}

int cli_builds(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	int json = argc >= 2 && !strcmp(argv[argc - 1], "--json");
	long long id = 0;
	char path[64];

	if (!strcmp(argv[0], "build") &&
	    (argc < 2 || parse_int(argv[1], 1, INT64_MAX, &id) < 0)) {
		cli_help_print(stderr, "build");
		return CLI_USAGE;
	}
	if (id)
		snprintf(path, sizeof(path), "/api/builds/%lld", id);
	else
		snprintf(path, sizeof(path), "/api/builds");
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: %s: %s\n", argv[0], r.err);
		return CLI_USAGE;
	}
	if (json) {
		cli_print_json(r.j);
	} else if (id) {
		json_t *a = json_array();

		json_array_append(a, r.j);
		print_builds(a);
		printf("  key %s\n  toolchain %s\n  directory %s\n", cli_jstr(r.j, "key", "-"),
		       cli_jstr(r.j, "toolchain", "-"), cli_jstr(r.j, "dir", "-"));
		json_decref(a);
	} else {
		print_builds(json_object_get(r.j, "builds"));
	}
	json_decref(r.j);
	return CLI_OK;
}
