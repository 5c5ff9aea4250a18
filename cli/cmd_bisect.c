// SPDX-License-Identifier: GPL-2.0-only
/* cmd_bisect.c: `kfleet bisect` starts a bisection (from a range, from a
 * trend's flagged step, or from a request's new failure) and with --wait
 * follows it a step at a time to its report; `kfleet bisections` lists
 * them; `kfleet bisection ID` prints one's report (--json, --log for the
 * `git bisect log` alone, --cancel to stop it). */
#include "cli/cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/util.h"

#define WAIT_POLL_US 2000000

static void usage_bisect(FILE *f)
{
	cli_help_print(f, "bisect");
}

/* The newest step a trend flagged as worse: good its point before, bad its
 * own. 0, or -1 after saying why */
static int from_trend(struct cli *k, const char *tree, const char *job, const char *metric,
		      const char *arch, const char *vcpus, char good[64], char bad[64])
{
	struct buf path = BUF_INIT(4096);
	struct resp r = { 0 };
	json_t *ch, *pts, *c, *chosen = NULL;
	size_t i;
	int rc = -1;

	buf_puts(&path, "/api/trend?tree=");
	buf_url_encode(&path, tree);
	buf_puts(&path, "&job=");
	buf_url_encode(&path, job);
	buf_puts(&path, "&metric=");
	buf_url_encode(&path, metric);
	if (arch) {
		buf_puts(&path, "&arch=");
		buf_url_encode(&path, arch);
	}
	if (vcpus) {
		buf_puts(&path, "&vcpus=");
		buf_url_encode(&path, vcpus);
	}
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: bisect: trend: %s\n", r.err);
		goto out;
	}
	ch = json_object_get(r.j, "changes");
	pts = json_object_get(r.j, "points");
	json_array_foreach(ch, i, c)
		if (!strcmp(cli_jstr(c, "verdict", ""), "worse"))
			chosen = c;
	if (!chosen) {
		fprintf(stderr, "kfleet: bisect: the trend of %s/%s on %s flags no step that is "
			"worse: nothing to bisect\n", job, metric, tree);
		goto out;
	}
	i = (size_t)cli_jint(chosen, "index", 0);
	if (i < 1 || i >= json_array_size(pts)) {
		fprintf(stderr, "kfleet: bisect: the trend's step has no commit before it\n");
		goto out;
	}
	snprintf(good, 64, "%s", cli_jstr(json_array_get(pts, i - 1), "commit", ""));
	snprintf(bad, 64, "%s", cli_jstr(json_array_get(pts, i), "commit", ""));
	printf("the trend's step: %.12s (good) .. %.12s (bad)\n", good, bad);
	rc = 0;
out:
	json_decref(r.j);
	buf_release(&path);
	return rc;
}

/* Prints the steps decided since *shown (the ends as such, the rest
 * numbered, with roughly how many are left as git counts them); returns
 * the state */
static const char *print_progress(json_t *j, size_t *shown)
{
	json_t *steps = json_object_get(j, "steps"), *s;
	size_t n = json_array_size(steps);

	for (; *shown < n; (*shown)++) {
		const char *role;
		long long left;
		size_t k = 0;

		s = json_array_get(steps, *shown);
		if (!json_is_string(json_object_get(s, "answer")))
			break;
		role = cli_jstr(s, "role", "step");
		left = cli_jint(s, "commits_left", -1);
		for (size_t i = 0; i <= *shown; i++)
			k += !strcmp(cli_jstr(json_array_get(steps, i), "role", ""), "step");
		if (!strcmp(role, "step")) {
			int more = 0;

			while (left >= 0 && (1LL << more) < left + 1)
				more++;
			printf("step %zu of ~%zu: ", k, k + (size_t)more);
		} else {
			printf("%s%s: ", role, !strcmp(role, "good") || !strcmp(role, "bad") ? " end" : "");
		}
		printf("%.12s \"%s\"", cli_jstr(s, "commit", "?"), cli_jstr(s, "subject", "?"));
		if (left >= 0)
			printf(" (%lld commits left)", left);
		printf(", %lld run%s: %s: %s\n", cli_jint(s, "runs", 0),
		       cli_jint(s, "runs", 0) == 1 ? "" : "s", cli_jstr(s, "answer", "?"),
		       cli_jstr(s, "why", ""));
		fflush(stdout);
	}
	return cli_jstr(j, "state", "?");
}

static int ended(const char *state)
{
	return !strcmp(state, "done") || !strcmp(state, "failed") || !strcmp(state, "canceled");
}

/* Where the step after the decided ones is (its kernel's builds while its
 * submission builds, then its runs so far): on a terminal one line on
 * stderr rewritten in place, piped a plain line when that changes.
 * last keeps the plain line shown. */
static void step_progress(struct cli *k, json_t *j, size_t shown, int tty,
			  struct cli_progress *prog, char *last, size_t nlast)
{
	json_t *s = json_array_get(json_object_get(j, "steps"), shown);
	json_t *subs = s ? json_object_get(s, "submissions") : NULL;
	size_t ns = json_array_size(subs);
	char line[160];

	if (!s || json_is_string(json_object_get(s, "answer")))
		return;
	if (ns) {
		char path[64];
		struct resp r = { 0 };
		const char *st;
		int building;

		snprintf(path, sizeof(path), "/api/submissions/%lld",
			 (long long)json_integer_value(json_array_get(subs, ns - 1)));
		if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0)
			return;   /* the next poll tries again */
		st = cli_jstr(r.j, "state", "");
		building = !strcmp(st, "queued") || !strcmp(st, "building");
		if (building) {
			snprintf(line, sizeof(line), "  %.12s: %s", cli_jstr(s, "commit", "?"), st);
			if (!tty && strcmp(line, last)) {
				fprintf(stderr, "%s\n", line);
				snprintf(last, nlast, "%s", line);
			}
			cli_build_progress(r.j, tty, prog);
		}
		json_decref(r.j);
		if (building)
			return;
	}
	snprintf(line, sizeof(line), "  %.12s: %lld run%s done", cli_jstr(s, "commit", "?"),
		 cli_jint(s, "runs", 0), cli_jint(s, "runs", 0) == 1 ? "" : "s");
	if (tty) {
		fprintf(stderr, "\r\033[K%s", line);
		prog->shown = 1;
		fflush(stderr);
	} else if (strcmp(line, last)) {
		fprintf(stderr, "%s\n", line);
		snprintf(last, nlast, "%s", line);
	}
}

/* Follows bisection id to its end, then prints the report */
static int wait_for(struct cli *k, long long id)
{
	char path[64], last[160] = "";
	size_t shown = 0, before;
	struct resp r = { 0 };
	struct cli_progress prog = { 0 };
	int tty = isatty(2);

	snprintf(path, sizeof(path), "/api/bisections/%lld", id);
	for (;;) {
		const char *state;

		if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: bisect: %s\n", r.err);
			return CLI_USAGE;
		}
		before = shown;
		cli_build_progress_end(tty, &prog);
		state = print_progress(r.j, &shown);
		if (shown != before)
			memset(&prog, 0, sizeof(prog));   /* a new step's builds */
		if (!ended(state))
			step_progress(k, r.j, shown, tty, &prog, last, sizeof(last));
		if (ended(state)) {
			int ok = !strcmp(state, "done") &&
				 !strcmp(cli_jstr(r.j, "verdict", ""), "verified");

			printf("\n%s", cli_jstr(r.j, "report", ""));
			json_decref(r.j);
			return ok ? CLI_OK : CLI_NOT_PASSED;
		}
		json_decref(r.j);
		r.j = NULL;
		usleep(WAIT_POLL_US);
	}
}

struct bisect_args {
	const char *tree, *good, *bad, *job, *test, *metric, *arch, *config, *from_trend, *vcpus_s;
	const char *signature;
	long long vcpus, memory, repeat, from_request;
	int crash, first_parent, wait;
	struct buf fragments;
};

static int parse_args(int argc, char **argv, struct bisect_args *a)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' }, { "good", required_argument, NULL, 'g' },
		{ "bad", required_argument, NULL, 'b' }, { "job", required_argument, NULL, 'j' },
		{ "test", required_argument, NULL, 'T' }, { "metric", required_argument, NULL, 'm' },
		{ "crash", no_argument, NULL, 'C' }, { "arch", required_argument, NULL, 'a' },
		{ "signature", required_argument, NULL, 'S' },
		{ "vcpus", required_argument, NULL, 'v' }, { "memory", required_argument, NULL, 'M' },
		{ "config", required_argument, NULL, 'c' },
		{ "fragment", required_argument, NULL, 'f' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "first-parent", no_argument, NULL, 'P' }, { "wait", no_argument, NULL, 'w' },
		{ "from-trend", required_argument, NULL, 'F' },
		{ "from-request", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': a->tree = optarg; break;
		case 'g': a->good = optarg; break;
		case 'b': a->bad = optarg; break;
		case 'j': a->job = optarg; break;
		case 'T': a->test = optarg; break;
		case 'm': a->metric = optarg; break;
		case 'C': a->crash = 1; break;
		case 'S': a->signature = optarg; a->crash = 1; break;
		case 'a': a->arch = optarg; break;
		case 'v': if (cli_parse_num("bisect", "vcpus", optarg, 1, 4096, &a->vcpus) < 0)
				return -1;
			  a->vcpus_s = optarg;
			  break;
		case 'M': if (cli_parse_num("bisect", "memory", optarg, 64, 1 << 22, &a->memory) < 0)
				return -1;
			  break;
		case 'c': a->config = optarg; break;
		case 'f': buf_printf(&a->fragments, "%s%s", a->fragments.len ? "," : "", optarg);
			  break;
		case 'r': if (cli_parse_num("bisect", "repeat", optarg, 1, 100, &a->repeat) < 0)
				return -1;
			  break;
		case 'P': a->first_parent = 1; break;
		case 'w': a->wait = 1; break;
		case 'F': a->from_trend = optarg; break;
		case 'R': if (cli_parse_num("bisect", "from-request", optarg, 1, 1LL << 62,
					    &a->from_request) < 0)
				return -1;
			  break;
		case 'h': usage_bisect(stdout); exit(CLI_OK);
		default: usage_bisect(stderr); return -1;
		}
	}
	if (optind < argc || (!a->from_request && !a->from_trend &&
			      (!a->tree || !a->good || !a->bad || !a->job)) ||
	    (a->from_trend && (!a->job || !a->metric))) {
		usage_bisect(stderr);
		return -1;
	}
	return 0;
}

static void set_str(json_t *o, const char *k, const char *v)
{
	if (v)
		json_object_set_new(o, k, json_string(v));
}

static void set_int(json_t *o, const char *k, long long v)
{
	if (v)
		json_object_set_new(o, k, json_integer(v));
}

int cli_bisect(struct cli *k, int argc, char **argv)
{
	struct bisect_args a = { .fragments = BUF_INIT(8192) };
	char good[64], bad[64], *token = NULL;
	struct resp r = { 0 };
	json_t *body;
	long long id;
	int rc = CLI_USAGE;

	if (parse_args(argc, argv, &a) < 0)
		goto out;
	if (a.from_trend) {
		if (from_trend(k, a.from_trend, a.job, a.metric, a.arch, a.vcpus_s, good, bad) < 0)
			goto out;
		a.tree = a.from_trend;
		a.good = good;
		a.bad = bad;
	}
	if (!(token = cli_read_token(k)))
		goto out;
	body = json_object();
	set_str(body, "tree", a.tree);
	set_str(body, "good", a.good);
	set_str(body, "bad", a.bad);
	set_str(body, "job", a.job);
	set_str(body, "test", a.test);
	set_str(body, "metric", a.metric);
	set_str(body, "arch", a.arch);
	set_str(body, "config", a.config);
	set_str(body, "fragments", a.fragments.len ? buf_str(&a.fragments) : NULL);
	set_int(body, "vcpus", a.vcpus);
	set_int(body, "memory_mb", a.memory);
	set_int(body, "repeat", a.repeat);
	set_int(body, "from_request", a.from_request);
	if (a.crash)
		json_object_set_new(body, "crash", json_true());
	set_str(body, "signature", a.signature);
	if (a.first_parent)
		json_object_set_new(body, "first_parent", json_true());
	if (cli_api_call(k, "POST", "/api/bisections", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: bisect: %s\n", r.err);
		json_decref(body);
		goto out;
	}
	json_decref(body);
	id = cli_jint(r.j, "id", 0);
	printf("bisection %lld: started: %s%s\n", id, k->url, cli_jstr(r.j, "url", ""));
	fflush(stdout);
	rc = a.wait ? wait_for(k, id) : CLI_OK;
out:
	json_decref(r.j);
	buf_release(&a.fragments);
	free(token);
	return rc;
}

static int list(struct cli *k)
{
	struct resp r = { 0 };
	json_t *b;
	size_t i;

	if (cli_api_call(k, "GET", "/api/bisections", NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: bisections: %s\n", r.err);
		return CLI_USAGE;
	}
	printf("%-5s %-12s %-20s %-8s %-24s %-10s %-12s %s\n", "id", "tree", "job", "symptom",
	       "test or metric", "state", "culprit", "revert");
	json_array_foreach(json_object_get(r.j, "bisections"), i, b)
		printf("%-5lld %-12s %-20s %-8s %-24s %-10s %-12.12s %s\n", cli_jint(b, "id", 0),
		       cli_jdash(b, "tree"), cli_jdash(b, "job"), cli_jdash(b, "kind"),
		       cli_jdash(b, "target"), cli_jdash(b, "state"), cli_jdash(b, "culprit"),
		       cli_jdash(b, "verdict"));
	json_decref(r.j);
	return CLI_OK;
}

int cli_bisection(struct cli *k, int argc, char **argv)
{
	struct resp r = { 0 };
	long long id;
	char path[80], *token = NULL;
	int rc = CLI_USAGE;

	if (!strcmp(argv[0], "bisections"))
		return argc == 1 ? list(k) : (usage_bisect(stderr), CLI_USAGE);
	if (argc < 2 || argc > 3 || cli_parse_num("bisection", "ID", argv[1], 1, 1LL << 62, &id) < 0 ||
	    (argc == 3 && strcmp(argv[2], "--json") && strcmp(argv[2], "--log") &&
	     strcmp(argv[2], "--cancel"))) {
		usage_bisect(stderr);
		return CLI_USAGE;
	}
	if (argc == 3 && !strcmp(argv[2], "--cancel")) {
		snprintf(path, sizeof(path), "/api/bisections/%lld/cancel", id);
		if (!(token = cli_read_token(k)))
			return CLI_USAGE;
		if (cli_api_call(k, "POST", path, NULL, token, &r) < 0) {
			fprintf(stderr, "kfleet: bisection: %s\n", r.err);
		} else {
			printf("bisection %lld: canceled\n", id);
			rc = CLI_OK;
		}
		goto out;
	}
	snprintf(path, sizeof(path), "/api/bisections/%lld", id);
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: bisection: %s\n", r.err);
		goto out;
	}
	if (argc == 3 && !strcmp(argv[2], "--json"))
		cli_print_json(r.j);
	else if (argc == 3)
		printf("%s", cli_jstr(r.j, "log", ""));
	else
		printf("%s", cli_jstr(r.j, "report", ""));
	rc = CLI_OK;
out:
	json_decref(r.j);
	free(token);
	return rc;
}
