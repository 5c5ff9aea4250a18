// SPDX-License-Identifier: GPL-2.0-only
/* cmd_runs.c: `kfleet run` (queue runs of a command or a job, optionally
 * waiting for their end), `kfleet runs` (the newest runs) and `kfleet show`
 * (one run: its results, metrics, attempts and output), over the API's
 * /api/runs. With --wait the exit status says whether the runs passed. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/where.h"
#include "common/buf.h"
#include "common/util.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"

#define WAIT_RETRIES     30           /* polls that may fail in a row while waiting */

static void print_run_results(json_t *res)
{
	json_t *counts = json_object_get(res, "counts"), *rows = json_object_get(res, "rows");
	json_t *row;
	long long total = 0, failing, shown = 0;
	int w = 0;
	size_t i;

	for (int s = 0; s < JOB_STATUS_COUNT; s++)
		total += cli_jint(counts, job_status_name((enum job_status)s), 0);
	if (!total)
		return;
	printf("results:");
	for (int s = 0; s < JOB_STATUS_COUNT; s++)
		printf("%s %lld %s", s ? "," : "",
		       cli_jint(counts, job_status_name((enum job_status)s), 0),
		       job_status_name((enum job_status)s));
	printf("\n");
	json_array_foreach(rows, i, row) {
		const char *path = cli_jdash(row, "path");
		int n = (int)strlen(path);

		if (strcmp(cli_jdash(row, "status"), "pass") && n > w)
			w = n > 60 ? 60 : n;
	}
	json_array_foreach(rows, i, row) {
		const char *st = cli_jdash(row, "status");
		const char *detail = cli_jstr(row, "detail", NULL);

		if (!strcmp(st, "pass"))
			continue;
		printf("  %-*s  %-7s%s%s\n", w, cli_jdash(row, "path"), st,
		       detail ? "  " : "", detail ? detail : "");
		shown++;
	}
	failing = total - cli_jint(counts, "pass", 0);
	if (shown < failing)
		printf("  (%lld more that did not pass not shown)\n", failing - shown);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int same_metric(json_t *a, json_t *b)
{
	const char *x = cli_jstr(a, "metric", NULL), *y = cli_jstr(b, "metric", NULL);

	return x && y && !strcmp(x, y);
}

/* The run's metrics, one line per metric: unit, samples, min/median/max.
 * The samples come sorted by metric and seq. */
static void print_run_metrics(json_t *samples, int truncated)
{
	size_t n = json_array_size(samples), i, j;
	double *v;
	int w = 0;

	if (!n)
		return;
	v = malloc(n * sizeof(*v));
	if (!v) {
		printf("metrics: out of memory\n");
		return;
	}
	for (i = 0; i < n; i++) {
		int l = (int)strlen(cli_jdash(json_array_get(samples, i), "metric"));

		if (l > w)
			w = l > 50 ? 50 : l;
	}
	printf("metrics (unit, samples, min/median/max)%s:\n",
	       truncated ? ", from the first samples only" : "");
	for (i = 0; i < n; i = j) {
		json_t *first = json_array_get(samples, i);
		const char *unit = NULL;
		size_t k;
		double med;

		for (j = i; j < n && (j == i || same_metric(first, json_array_get(samples, j)));
		     j++) {
			json_t *smp = json_array_get(samples, j);

			v[j - i] = json_number_value(json_object_get(smp, "value"));
			if (!unit)
				unit = cli_jstr(smp, "unit", NULL);
		}
		k = j - i;
		qsort(v, k, sizeof(*v), cmp_double);
		med = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
		printf("  %-*s  %-8s %6zu  %.10g/%.10g/%.10g\n", w,
		       cli_jdash(first, "metric"), cli_or_dash(unit), k, v[0], med, v[k - 1]);
	}
	free(v);
}

static void print_run(json_t *r)
{
	json_t *kernel = json_object_get(r, "kernel");
	json_t *guest = json_object_get(r, "guest");
	json_t *attempts = json_object_get(r, "attempts");
	const char *outcome = cli_jstr(r, "outcome", NULL);
	const char *run_dir = cli_jstr(r, "run_dir", NULL);
	const char *output = cli_jstr(r, "output", NULL);
	const char *s;
	long long started = cli_jint(r, "started_at", 0), booted = cli_jint(r, "booted_at", 0);
	long long ended = cli_jint(r, "ended_at", 0);
	char t[40], d[32];

	printf("run %lld: %s%s%s\n", cli_jint(r, "id", 0), cli_jdash(r, "state"),
	       outcome ? ", " : "", outcome ? outcome : "");
	if ((s = cli_jstr(r, "detail", NULL)))
		printf("  detail:     %s\n", s);
	printf("  kernel:     %s\n", cli_jdash(kernel, "path"));
	printf("  arch:       %s, %lld vCPUs, %lld MiB, timeout %lld s\n",
	       cli_jdash(r, "arch"), cli_jint(r, "vcpus", 0),
	       cli_jint(r, "memory_mb", 0), cli_jint(r, "timeout_s", 0));
	printf("  attempt:    %lld of at most %lld\n", cli_jint(r, "attempt", 0),
	       cli_jint(r, "max_attempts", 0));
	printf("  host:       %s", cli_jdash(r, "host"));
	if (cli_jstr(r, "accel", NULL))
		printf(" (%s, machine %s, QEMU %s, libvirt %s)", cli_jstr(r, "accel", NULL),
		       cli_jdash(r, "machine"), cli_jdash(r, "qemu_version"),
		       cli_jdash(r, "libvirt_version"));
	printf("\n");
	if ((s = cli_jstr(r, "domain", NULL)))
		printf("  domain:     %s\n", s);
	fmt_time_ms(cli_jint(r, "queued_at", 0), 1, t, sizeof(t));
	printf("  queued:     %s\n", t);
	fmt_time_ms(started, 1, t, sizeof(t));
	printf("  started:    %s\n", t);
	fmt_time_ms(booted, 1, t, sizeof(t));
	cli_fmt_duration(started > 0 && booted > 0 ? booted - started : -1, d);
	printf("  booted:     %s%s%s%s\n", t, booted > 0 ? " (after " : "", booted > 0 ? d : "",
	       booted > 0 ? ")" : "");
	fmt_time_ms(ended, 1, t, sizeof(t));
	printf("  ended:      %s\n", t);
	cli_fmt_duration(cli_jint(r, "duration_ms", -1), d);
	printf("  duration:   %s\n", d);
	if (json_is_integer(json_object_get(r, "exit_code")))
		printf("  exit code:  %lld\n", cli_jint(r, "exit_code", 0));
	if (cli_jstr(guest, "release", NULL))
		printf("  guest:      %s, %lld CPUs, %lld kB\n", cli_jstr(guest, "release", NULL),
		       cli_jint(guest, "nproc", 0), cli_jint(guest, "mem_kb", 0));
	if ((s = cli_jstr(r, "job", NULL)))
		printf("  job:        %s\n", s);
	printf("  command:    %s\n", cli_jdash(r, "command"));
	if (run_dir) {
		printf("  console:    %s/%s\n", run_dir, RUN_FILE_CONSOLE);
		printf("  output:     %s/%s\n", run_dir, RUN_FILE_OUTPUT);
		printf("  domain xml: %s/%s\n", run_dir, RUN_FILE_XML);
	}
	print_run_results(json_object_get(r, "results"));
	print_run_metrics(json_object_get(r, "samples"),
			  json_is_true(json_object_get(r, "samples_truncated")));
	if (json_array_size(attempts) > 1) {
		size_t i;
		json_t *a;

		printf("attempts:\n");
		json_array_foreach(attempts, i, a) {
			fmt_time_ms(cli_jint(a, "started_at", 0), 1, t, sizeof(t));
			printf("  %lld  %-10s  %s  %-13s  %s\n", cli_jint(a, "n", 0),
			       cli_jdash(a, "host"), t, cli_jdash(a, "outcome"),
			       cli_jdash(a, "detail"));
		}
	}
	if ((s = cli_jstr(r, "splat", NULL))) {
		printf("splat:\n");
		cli_print_indented(s, "  ");
	}
	if (output) {
		size_t n = json_string_length(json_object_get(r, "output"));

		printf("output:\n");
		fwrite(output, 1, n, stdout);
		if (n && output[n - 1] != '\n')
			fputc('\n', stdout);
		if (json_is_true(json_object_get(r, "output_truncated")))
			printf("(output truncated; all of it is in %s/%s)\n", cli_or_dash(run_dir),
			       RUN_FILE_OUTPUT);
	}
}

void cli_print_run(json_t *run, int raw)
{
	/* every string of it may come from the guest: its output, the
	 * console's splat, the detail, the release, the tests' names */
	json_t *v = raw ? json_incref(run) : cli_visible_json(run);

	if (!v) {
		fprintf(stderr, "kfleet: out of memory\n");
		return;
	}
	print_run(v);
	json_decref(v);
}

#define RUN_PAGES_MAX 100000   /* pages of a run's results or samples followed */

/* Appends to rows the rows of the page at next (a path, or JSON null) and
 * of the pages after it, each page naming the next: 0, or -1 with err */
static int follow_pages(struct cli *k, json_t *rows, json_t *next, char *err, size_t n)
{
	char path[256];
	int more = json_is_string(next);

	if (more)
		snprintf(path, sizeof(path), "%s", json_string_value(next));
	for (int i = 0; more; i++) {
		struct resp p = { 0 };
		json_t *nx;

		if (i == RUN_PAGES_MAX) {
			snprintf(err, n, "more than %d pages", RUN_PAGES_MAX);
			return -1;
		}
		if (cli_api_call(k, "GET", path, NULL, NULL, &p) < 0) {
			snprintf(err, n, "%s: %.200s", path, p.err);
			return -1;
		}
		if (json_array_extend(rows, json_object_get(p.j, "rows")) < 0) {
			snprintf(err, n, "%s: no rows", path);
			json_decref(p.j);
			return -1;
		}
		nx = json_object_get(p.j, "next");
		more = json_is_string(nx) && json_string_length(nx) < sizeof(path);
		if (more)
			snprintf(path, sizeof(path), "%s", json_string_value(nx));
		json_decref(p.j);
	}
	return 0;
}

/* GET /api/runs/ID with all of its results and samples: the pages after
 * the first that the answer names, appended, so that what is printed is
 * whole. 0, or -1 with r->err */
static int get_run(struct cli *k, long long id, struct resp *r)
{
	json_t *res, *smp;
	char path[64], err[512];

	snprintf(path, sizeof(path), "/api/runs/%lld", id);
	if (cli_api_call(k, "GET", path, NULL, NULL, r) < 0)
		return -1;
	res = json_object_get(r->j, "results");
	smp = json_object_get(r->j, "samples");
	if ((json_is_array(json_object_get(res, "rows")) &&
	     follow_pages(k, json_object_get(res, "rows"), json_object_get(res, "next"), err,
			  sizeof(err)) < 0) ||
	    (json_is_array(smp) && follow_pages(k, smp, json_object_get(r->j, "samples_next"),
						 err, sizeof(err)) < 0)) {
		snprintf(r->err, sizeof(r->err), "run %lld: %s", id, err);
		json_decref(r->j);
		r->j = NULL;
		return -1;
	}
	if (json_is_object(res)) {
		json_object_set_new(res, "truncated", json_false());
		json_object_set_new(res, "next", json_null());
	}
	if (json_is_array(smp)) {
		json_object_set_new(r->j, "samples_truncated", json_false());
		json_object_set_new(r->j, "samples_next", json_null());
	}
	return 0;
}

/* Polls the run until it is done; prints it; 0 passed, 1 not, 2 error */
static int wait_run(struct cli *k, long long id, int json)
{
	const char *last_state = "queued";
	struct resp r;
	int failures = 0, rc;

	for (;;) {
		const char *state;

		if (get_run(k, id, &r) < 0) {
			/* a daemon restarting is not the run's end */
			if (r.status || ++failures >= WAIT_RETRIES) {
				fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r.err);
				return CLI_USAGE;
			}
			sleep(1);
			continue;
		}
		failures = 0;
		state = cli_jstr(r.j, "state", NULL);
		if (state && !strcmp(state, "done"))
			break;
		if (!json && state && strcmp(state, last_state)) {
			fprintf(stderr, "run %lld %s%s%s\n", id, state,
				cli_jstr(r.j, "host", NULL) ? " on " : "", cli_jdash(r.j, "host"));
			last_state = !strcmp(state, "running") ? "running" : "queued";
		}
		json_decref(r.j);
		sleep(1);
	}
	if (json)
		cli_print_json(r.j);
	else
		cli_print_run(r.j, 0);
	{
		const char *o = cli_jstr(r.j, "outcome", NULL);

		rc = o && !strcmp(o, "passed") ? CLI_OK : CLI_NOT_PASSED;
	}
	json_decref(r.j);
	return rc;
}

/* kfleet run's options */
struct run_args {
	const char *kernel, *arch, *job, *topology;
	long long vcpus, memory, timeout, numa, repeat;
	int wait, json;
};

/* run's options into a, optind then at the command: 0, 1 after printing
 * the help (-h), -1 after saying why not */
static int run_args_parse(struct cli *k, int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "memory", required_argument, NULL, 'm' },
		{ "timeout", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'J' },
		{ "topology", required_argument, NULL, 'T' },
		{ "numa", required_argument, NULL, 'N' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "wait", no_argument, NULL, 'w' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'k': a->kernel = optarg; break;
		case 'a': a->arch = optarg; break;
		case 'J': a->job = optarg; break;
		case 'T': a->topology = optarg; break;
		case 'N':
			if (cli_parse_num(k->cmd, "--numa", optarg, 1, 64, &a->numa) < 0)
				return -1;
			break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &a->vcpus) < 0)
				return -1;
			break;
		case 'm':
			if (cli_parse_num(k->cmd, "--memory", optarg, 1, 1 << 24, &a->memory) < 0)
				return -1;
			break;
		case 't':
			if (cli_parse_num(k->cmd, "--timeout", optarg, 1, 1 << 30, &a->timeout) < 0)
				return -1;
			break;
		case 'r':
			if (cli_parse_num(k->cmd, "--repeat", optarg, 1, 1000, &a->repeat) < 0)
				return -1;
			break;
		case 'w': a->wait = 1; break;
		case 'j': a->json = 1; break;
		case 'h':
			cli_help_print(stdout, "run");
			return 1;
		default:
			cli_help_print(stderr, "run");
			return -1;
		}
	}
	if (!a->kernel || (a->job && optind < argc) || (!a->job && optind >= argc)) {
		fprintf(stderr, "kfleet: run: %s\n", !a->kernel ? "--kernel PATH is required"
			: a->job ? "give --job NAME or a command, not both"
			: "no command given (put it after --, or give --job NAME)");
		cli_help_print(stderr, "run");
		return -1;
	}
	if (a->job && !*a->job) {
		fprintf(stderr, "kfleet: run: --job: empty name\n");
		return -1;
	}
	return 0;
}

/* The body of POST /api/runs (caller decrefs), NULL after saying why */
static json_t *run_body(const struct run_args *a, const char *kabs, const char *command)
{
	json_t *body = json_object();

	if (!body || json_object_set_new(body, "kernel", json_string(kabs)) < 0 ||
	    (a->job && json_object_set_new(body, "job", json_string(a->job)) < 0) ||
	    (!a->job && json_object_set_new(body, "command", json_string(command)) < 0) ||
	    (a->arch && json_object_set_new(body, "arch", json_string(a->arch)) < 0) ||
	    (a->vcpus && json_object_set_new(body, "vcpus", json_integer(a->vcpus)) < 0) ||
	    (a->memory && json_object_set_new(body, "memory_mb", json_integer(a->memory)) < 0) ||
	    (a->timeout && json_object_set_new(body, "timeout_s", json_integer(a->timeout)) < 0) ||
	    (a->topology && json_object_set_new(body, "topology", json_string(a->topology)) < 0) ||
	    (a->numa && json_object_set_new(body, "numa_nodes", json_integer(a->numa)) < 0)) {
		/* json_string refuses invalid UTF-8 */
		fprintf(stderr, "kfleet: run: the kernel path, the job and the command must be "
			"UTF-8\n");
		json_decref(body);
		return NULL;
	}
	return body;
}

int cli_run(struct cli *k, int argc, char **argv)
{
	struct run_args a = { .repeat = 1 };
	long long id = 0, first = 0;
	int rc = CLI_USAGE, p;
	struct buf command = BUF_INIT(0);
	char *kabs = NULL, *token = NULL;
	json_t *body = NULL;
	struct resp r = { 0 };

	p = run_args_parse(k, argc, argv, &a);
	if (p) {
		rc = p > 0 ? CLI_OK : CLI_USAGE;
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (i > optind)
			buf_puts(&command, " ");
		buf_puts(&command, argv[i]);
	}
	kabs = path_abs(a.kernel);
	if (!kabs) {
		fprintf(stderr, "kfleet: run: kernel '%s': %s\n", a.kernel, strerror(errno));
		goto out;
	}
	token = cli_read_token(k);
	if (!token || !(body = run_body(&a, kabs, buf_str(&command))))
		goto out;
	/* --repeat: separate runs, queued one after the other */
	for (long long i = 0; i < a.repeat; i++) {
		json_decref(r.j);
		r.j = NULL;
		if (cli_api_call(k, "POST", "/api/runs", body, token, &r) < 0) {
			fprintf(stderr, "kfleet: run: %s\n", r.err);
			goto out;
		}
		id = cli_jint(r.j, "id", 0);
		if (id <= 0) {
			fprintf(stderr, "kfleet: run: the answer has no run id\n");
			goto out;
		}
		if (!first)
			first = id;
		if (!a.wait && a.json)
			cli_print_json(r.j);
		else if (!a.wait || !a.json)
			fprintf(a.wait ? stderr : stdout, "run %lld queued\n", id);
	}
	/* with --wait each run's result in turn; the exit status is the worst */
	rc = CLI_OK;
	for (long long i = first; a.wait && i <= id; i++) {
		int one = wait_run(k, i, a.json);

		if (one > rc)
			rc = one;
	}
out:
	json_decref(r.j);
	json_decref(body);
	free(token);
	free(kabs);
	buf_release(&command);
	return rc;
}

int cli_runs(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "limit", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long limit = 50;
	int json = 0, c, jw = 3;
	struct resp r;
	json_t *runs, *run;
	char path[64], d[32];
	size_t i;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			if (cli_parse_num(k->cmd, "--limit", optarg, 1, 500, &limit) < 0)
				return CLI_USAGE;
			break;
		case 'j': json = 1; break;
		case 'h':
			cli_help_print(stdout, "runs");
			return CLI_OK;
		default:
			cli_help_print(stderr, "runs");
			return CLI_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "kfleet: runs: unexpected argument '%s'\n", argv[optind]);
		return CLI_USAGE;
	}
	snprintf(path, sizeof(path), "/api/runs?limit=%lld", limit);
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: runs: %s\n", r.err);
		return CLI_USAGE;
	}
	if (json) {
		cli_print_json(r.j);
		json_decref(r.j);
		return CLI_OK;
	}
	runs = json_object_get(r.j, "runs");
	json_array_foreach(runs, i, run) {
		int l = (int)strlen(cli_jdash(run, "job"));

		if (l > jw)
			jw = l;
	}
	printf("%-7s %-8s %-13s %-*s %-8s %5s %-5s %-12s %s\n", "ID", "STATE", "OUTCOME", jw,
	       "JOB", "ARCH", "VCPUS", "ACCEL", "DURATION", "KERNEL");
	json_array_foreach(runs, i, run) {
		cli_fmt_duration(cli_jint(run, "duration_ms", -1), d);
		printf("%-7lld %-8s %-13s %-*s %-8s %5lld %-5s %-12s %s\n", cli_jint(run, "id", 0),
		       cli_jdash(run, "state"), cli_jdash(run, "outcome"), jw,
		       cli_jdash(run, "job"),
		       cli_jdash(run, "arch"), cli_jint(run, "vcpus", 0),
		       cli_jdash(run, "accel"), d,
		       cli_jdash(json_object_get(run, "kernel"), "path"));
	}
	{
		json_t *cn = json_object_get(r.j, "counts");

		printf("%lld queued, %lld running, %lld done\n", cli_jint(cn, "queued", 0),
		       cli_jint(cn, "running", 0), cli_jint(cn, "done", 0));
		if (cli_jint(cn, "queued", 0) + cli_jint(cn, "running", 0) > 0)
			cli_runs_where(k);
	}
	json_decref(r.j);
	return CLI_OK;
}

int cli_show(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "raw", no_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long long id;
	int json = 0, raw = 0, c;
	struct resp r;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'r': raw = 1; break;
		case 'h':
			cli_help_print(stdout, "show");
			return CLI_OK;
		default:
			cli_help_print(stderr, "show");
			return CLI_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "kfleet: show: expected one run id\n");
		return CLI_USAGE;
	}
	if (cli_parse_num(k->cmd, "run id", argv[optind], 1, INT64_MAX, &id) < 0)
		return CLI_USAGE;
	if (get_run(k, id, &r) < 0) {
		fprintf(stderr, "kfleet: show: %s\n", r.err);
		return CLI_USAGE;
	}
	if (json)
		cli_print_json(r.j);
	else
		cli_print_run(r.j, raw);
	json_decref(r.j);
	return CLI_OK;
}
