// SPDX-License-Identifier: GPL-2.0-only
/* cmd_compare.c: `kfleet compare` (the before/after table of a job's
 * metrics on two kernels, from GET /api/compare, rendered by analysis/) and
 * `kfleet test --base --patched` (a request of base and patched runs,
 * interleaved; with --wait the runs' outcomes, the subtests' pass/fail and
 * the table). cmd_submit.c reports a submission's requests the same way. */
#include <getopt.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "cli/cli.h"
#include "cli/scaling.h"
#include "common/buf.h"
#include "common/util.h"

int cli_compare_columns(const char *s, unsigned *cols)
{
	struct buf b = BUF_INIT(256);
	char *save = NULL;
	int rc = 0;

	if (buf_puts(&b, s) < 0)
		return -1;
	for (char *t = strtok_r(b.data, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save))
		*cols |= !strcmp(t, "all") ? CMP_COL_ALL : !strcmp(t, "avg") ? CMP_COL_MEAN
			: !strcmp(t, "p99") ? CMP_COL_P99 : !strcmp(t, "max") ? CMP_COL_MAX
			: !strcmp(t, "test") ? CMP_COL_TEST : (rc = -1, 0u);
	buf_release(&b);
	return rc;
}

int cli_decided_check(const char *cmd, int until, long long max_runs, long long repeat)
{
	if (max_runs && !until) {
		fprintf(stderr, "kfleet: %s: --max-runs needs --until-decided\n", cmd);
		return -1;
	}
	if (max_runs && max_runs < (repeat ? repeat : 1)) {
		fprintf(stderr, "kfleet: %s: --max-runs %lld: less than --repeat %lld (the first "
			"round)\n", cmd, max_runs, repeat);
		return -1;
	}
	return 0;
}

int cli_decided_body(json_t *body, int until, long long max_runs, const char *margin)
{
	if (!until)
		return 0;
	if (json_object_set_new(body, "until_decided", json_true()) < 0 ||
	    (max_runs && json_object_set_new(body, "max_runs", json_integer(max_runs)) < 0) ||
	    (margin && json_object_set_new(body, "margin", json_string(margin)) < 0))
		return -1;
	return 0;
}

int cli_margin_check(const char *cmd, const char *s)
{
	double m;

	if (parse_percent(s, CMP_MARGIN_MAX, &m) < 0) {
		fprintf(stderr, "kfleet: %s: --margin '%s': a percentage above 0 and at most %g "
			"(3 or 3%%)\n", cmd, s, CMP_MARGIN_MAX * 100);
		return -1;
	}
	return 0;
}

/* kfleet compare's options */
struct compare_args {
	const char *job, *arch, *margin;
	long long ka, kb, vcpus, req;
	int json, markdown;
	unsigned cols;
};

/* compare's options into a: 0, 1 after printing the help (-h), -1 after
 * saying why not */
static int compare_args_parse(struct cli *k, int argc, char **argv, struct compare_args *a)
{
	static const struct option opts[] = {
		{ "kernels", required_argument, NULL, 'K' },
		{ "request", required_argument, NULL, 'R' },
		{ "job", required_argument, NULL, 'J' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "columns", required_argument, NULL, 'C' },
		{ "margin", required_argument, NULL, 'g' },
		{ "markdown", no_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'K':   /* --kernels A B: B is the next argument */
			if (optind >= argc) {
				fprintf(stderr, "kfleet: compare: --kernels needs two kernel ids\n");
				return -1;
			}
			if (cli_parse_num(k->cmd, "--kernels", optarg, 1, INT64_MAX, &a->ka) < 0 ||
			    cli_parse_num(k->cmd, "--kernels", argv[optind], 1, INT64_MAX, &a->kb) < 0)
				return -1;
			optind++;
			break;
		case 'R':
			if (cli_parse_num(k->cmd, "--request", optarg, 1, INT64_MAX, &a->req) < 0)
				return -1;
			break;
		case 'J': a->job = optarg; break;
		case 'a': a->arch = optarg; break;
		case 'v':
			if (cli_parse_num(k->cmd, "--vcpus", optarg, 1, 4096, &a->vcpus) < 0)
				return -1;
			break;
		case 'C':
			if (cli_compare_columns(optarg, &a->cols) < 0) {
				fprintf(stderr, "kfleet: compare: --columns '%s': a list of avg, p99, "
					"max, test, or all\n", optarg);
				return -1;
			}
			break;
		case 'g':
			if (cli_margin_check(k->cmd, optarg) < 0)
				return -1;
			a->margin = optarg;
			break;
		case 'm': a->markdown = 1; break;
		case 'j': a->json = 1; break;
		case 'h':
			cli_help_print(stdout, "compare");
			return 1;
		default:
			cli_help_print(stderr, "compare");
			return -1;
		}
	}
	return 0;
}

/* --request ID: its two kernels into a, and its job unless --job gave one
 * (*job_copy, caller frees). 0, or -1 after saying why */
static int compare_request(struct cli *k, struct compare_args *a, char **job_copy)
{
	struct resp r;
	char path[64];

	snprintf(path, sizeof(path), "/api/requests/%lld", a->req);
	if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: compare: %s\n", r.err);
		return -1;
	}
	a->ka = cli_jint(r.j, "base_kernel_id", 0);
	a->kb = cli_jint(r.j, "patched_kernel_id", 0);
	if (!a->job && json_is_string(json_object_get(r.j, "job")))
		a->job = *job_copy = strdup(cli_jstr(r.j, "job", NULL));
	json_decref(r.j);
	return 0;
}

/* The tables of GET /api/compare's answer j onto out, then the cells that
 * were not compared. 0, or -1 after saying why */
static int compare_render(json_t *j, const struct compare_args *a, struct buf *out)
{
	json_t *v;
	size_t i;

	json_array_foreach(json_object_get(j, "comparisons"), i, v) {
		struct cmp_report rep;
		char err[256];

		if (cmp_report_from_json(v, &rep, err, sizeof(err)) < 0) {
			cmp_report_release(&rep);
			fprintf(stderr, "kfleet: compare: comparisons[%zu]: %s\n", i, err);
			return -1;
		}
		if (out->len)
			buf_puts(out, "\n");
		if ((a->markdown ? cmp_render_markdown(&rep, a->cols, out)
		     : cmp_render_text(&rep, a->cols, out)) < 0) {
			cmp_report_release(&rep);
			fprintf(stderr, "kfleet: compare: out of memory\n");
			return -1;
		}
		cmp_report_release(&rep);
	}
	/* cells that differ only in vCPUs: the scaling table too */
	if (cli_scaling_render(json_object_get(j, "comparisons"), a->markdown, out) < 0)
		return -1;
	json_array_foreach(json_object_get(j, "unmatched"), i, v)
		buf_printf(out, "%snot compared: %s has only %s runs\n", out->len ? "\n" : "",
			   cli_jdash(v, "cell"), cli_jdash(v, "only"));
	if (!json_array_size(json_object_get(j, "comparisons")))
		buf_printf(out, "%sno passed runs of '%s' with samples on both kernels\n",
			   out->len ? "\n" : "", a->job);
	return 0;
}

int cli_compare(struct cli *k, int argc, char **argv)
{
	struct compare_args a = { .cols = CMP_COL_DEFAULT };
	int rc = CLI_USAGE, p;
	char *req_job = NULL;
	struct buf path = BUF_INIT(0), out = BUF_INIT(0);
	struct resp r = { 0 };

	p = compare_args_parse(k, argc, argv, &a);
	if (p) {
		rc = p > 0 ? CLI_OK : CLI_USAGE;
		goto out;
	}
	if (a.req && !a.ka && compare_request(k, &a, &req_job) < 0)
		goto out;
	if (!a.ka || !a.job || !*a.job || optind < argc || (a.json && a.markdown)) {
		fprintf(stderr, "kfleet: compare: %s\n", !a.ka ? "--kernels A B or --request ID is required"
			: !a.job || !*a.job ? "--job NAME is required"
			: optind < argc ? "unexpected argument" : "give --json or --markdown, not both");
		cli_help_print(stderr, "compare");
		goto out;
	}
	buf_printf(&path, "/api/compare?a=%lld&b=%lld&job=", a.ka, a.kb);
	buf_url_encode(&path, a.job);
	if (a.arch) {
		buf_puts(&path, "&arch=");
		buf_url_encode(&path, a.arch);
	}
	if (a.vcpus)
		buf_printf(&path, "&vcpus=%lld", a.vcpus);
	if (a.margin) {
		buf_puts(&path, "&margin=");
		buf_url_encode(&path, a.margin);
	}
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: compare: %s\n", r.err);
		goto out;
	}
	if (a.json) {
		cli_print_json(r.j);
		rc = CLI_OK;
		goto out;
	}
	if (compare_render(r.j, &a, &out) < 0)
		goto out;
	fputs(buf_str(&out), stdout);
	rc = CLI_OK;
out:
	json_decref(r.j);
	buf_release(&path);
	buf_release(&out);
	free(req_job);
	return rc;
}

void cli_print_decided(json_t *d)
{
	json_t *v;
	size_t i;

	if (!d || strcmp(cli_jstr(d, "mode", "fixed"), "until-decided"))
		return;
	printf("  until decided: %lld round%s, %lld runs a side (at most %lld)\n",
	       cli_jint(d, "rounds", 0), cli_jint(d, "rounds", 0) == 1 ? "" : "s",
	       cli_jint(d, "runs_per_side", 0), cli_jint(d, "max_runs", 0));
	json_array_foreach(json_object_get(d, "round_list"), i, v)
		printf("    round %lld, %lld a side: %s\n", cli_jint(v, "n", 0),
		       cli_jint(v, "pairs", 0), cli_jstr(v, "why", "-"));
	printf("  stopped: %s\n", cli_jstr(d, "stop_reason", "still deciding"));
}

/* Polls request id until it is done; r->j gets its last state. 0 / -1 (said) */
static int request_wait(struct cli *k, long long id, struct resp *r)
{
	char path[64];

	snprintf(path, sizeof(path), "/api/requests/%lld", id);
	for (;;) {
		json_decref(r->j);
		r->j = NULL;
		if (cli_api_call(k, "GET", path, NULL, NULL, r) < 0) {
			fprintf(stderr, "kfleet: %s: %s\n", k->cmd, r->err);
			return -1;
		}
		if (json_is_true(json_object_get(r->j, "done")))
			return 0;
		sleep(2);
	}
}

/* One line per run of a request. Returns 1 when one that counts did not pass */
static int request_print_runs(json_t *runs)
{
	json_t *run;
	size_t i;
	int failed = 0;

	json_array_foreach(runs, i, run) {
		const char *o = json_string_value(json_object_get(run, "outcome"));

		int qonly = json_is_true(json_object_get(run, "quarantined_only"));

		printf("  run %lld  %-7s  %s%s\n", cli_jint(run, "id", 0),
		       json_string_value(json_object_get(run, "side")), o ? o : "-",
		       qonly ? " (only tests in quarantine failed: not counted)" : "");
		failed |= (!o || strcmp(o, "passed")) && !qonly;
	}
	return failed;
}

/* Pass/fail per subtest across the request, the changes first */
static void request_print_passfail(json_t *pf)
{
	json_t *cls = json_object_get(pf, "classes"), *t;
	size_t i;

	if (!json_array_size(json_object_get(pf, "subtests")))
		return;
	printf("\nsubtests: %lld new failures, %lld fixed, %lld still failing, "
	       "%lld flaky, %lld missing, %lld skipped, %lld passing\n",
	       cli_jint(cls, "new-failure", 0), cli_jint(cls, "fixed", 0),
	       cli_jint(cls, "still-failing", 0), cli_jint(cls, "flaky", 0),
	       cli_jint(cls, "missing", 0), cli_jint(cls, "skip", 0),
	       cli_jint(cls, "pass", 0));
	json_array_foreach(json_object_get(pf, "subtests"), i, t) {
		const char *c = cli_jstr(t, "class", NULL);

		if (c && strcmp(c, "pass") && strcmp(c, "skip"))
			printf("  %-14s %s\n", cli_jstr(t, "label", c),
			       cli_jstr(t, "path", NULL));
	}
	if (cli_jint(json_object_get(pf, "quarantined"), "tests", 0))
		printf("  %lld quarantined failures not counted (%lld tests in "
		       "quarantine: kfleet flaky)\n",
		       cli_jint(json_object_get(pf, "quarantined"), "failures", 0),
		       cli_jint(json_object_get(pf, "quarantined"), "tests", 0));
}

/* The metrics table of a done request req, through kfleet compare.
 * Returns cli_compare()'s exit code. */
static int request_compare(struct cli *k, json_t *req, const char *job, int markdown,
			   const char *margin)
{
	char ka[32], kb[32], vc[32];
	char *cargv[16] = { "compare", "--kernels", ka, kb, "--job", (char *)job };
	int cargc = 6;
	json_t *cell = json_object_get(json_array_get(json_object_get(req, "comparisons"), 0),
				       "cell");

	/* the request's own cell: its siblings at other vCPUs have theirs */
	if (cli_jint(cell, "vcpus", 0) > 0 && json_is_string(json_object_get(cell, "arch"))) {
		snprintf(vc, sizeof(vc), "%lld", cli_jint(cell, "vcpus", 0));
		cargv[cargc++] = "--vcpus";
		cargv[cargc++] = vc;
		cargv[cargc++] = "--arch";
		cargv[cargc++] = (char *)cli_jstr(cell, "arch", NULL);
	}

	if (markdown)
		cargv[cargc++] = "--markdown";
	if (margin) {
		cargv[cargc++] = "--margin";
		cargv[cargc++] = (char *)margin;
	}
	cargv[cargc] = NULL;

	snprintf(ka, sizeof(ka), "%lld", cli_jint(req, "base_kernel_id", 0));
	snprintf(kb, sizeof(kb), "%lld", cli_jint(req, "patched_kernel_id", 0));
	printf("\n");
	return cli_compare(k, cargc, cargv);
}

int cli_request_report(struct cli *k, long long id, const char *job, int markdown,
		       const char *margin)
{
	struct resp r = { 0 };
	int rc, failed;

	if (request_wait(k, id, &r) < 0) {
		rc = CLI_USAGE;
		goto out;
	}
	cli_print_decided(json_object_get(r.j, "decided"));
	failed = request_print_runs(json_object_get(r.j, "runs"));
	request_print_passfail(json_object_get(r.j, "passfail"));
	/* a job with subtests and no metrics: the pass/fail above is its table */
	if (!json_array_size(json_object_get(r.j, "comparisons")) &&
	    json_array_size(json_object_get(json_object_get(r.j, "passfail"), "subtests"))) {
		rc = failed ? CLI_NOT_PASSED : CLI_OK;
		goto out;
	}
	rc = request_compare(k, r.j, job, markdown, margin);
	if (rc == CLI_OK && failed)
		rc = CLI_NOT_PASSED;
out:
	json_decref(r.j);
	return rc;
}

/* kfleet test's options, as given */
struct test_opts {
	const char *base, *patched, *job, *arch, *margin;
	long long repeat, memory, max_runs;
	int vcpus[CLI_VCPUS_MAX];
	size_t nvcpus;
	int wait, markdown, until;
};

/* Parses kfleet test's command line into o. 0 to go on, 1 when it printed
 * the help, -1 on a usage error (said). */
static int test_parse(struct cli *k, int argc, char **argv, struct test_opts *o)
{
	static const struct option opts[] = {
		{ "base", required_argument, NULL, 'B' },
		{ "patched", required_argument, NULL, 'P' },
		{ "job", required_argument, NULL, 'J' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "memory", required_argument, NULL, 'm' },
		{ "wait", no_argument, NULL, 'w' },
		{ "markdown", no_argument, NULL, 'M' },
		{ "margin", required_argument, NULL, 'g' },
		{ "until-decided", no_argument, NULL, 'U' },
		{ "max-runs", required_argument, NULL, 'X' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'B': o->base = optarg; break;
		case 'P': o->patched = optarg; break;
		case 'J': o->job = optarg; break;
		case 'a': o->arch = optarg; break;
		case 'r':
			if (cli_parse_num(k->cmd, "--repeat", optarg, 1, 100, &o->repeat) < 0)
				return -1;
			break;
		case 'v':
			if (cli_vcpus_list(k->cmd, optarg, o->vcpus, &o->nvcpus) < 0)
				return -1;
			break;
		case 'm':
			if (cli_parse_num(k->cmd, "--memory", optarg, 1, 1 << 24, &o->memory) < 0)
				return -1;
			break;
		case 'w': o->wait = 1; break;
		case 'M': o->markdown = 1; break;
		case 'g':
			if (cli_margin_check(k->cmd, optarg) < 0)
				return -1;
			o->margin = optarg;
			break;
		case 'U': o->until = 1; break;
		case 'X':
			if (cli_parse_num(k->cmd, "--max-runs", optarg, 1, 100, &o->max_runs) < 0)
				return -1;
			break;
		case 'h':
			cli_help_print(stdout, "test");
			return 1;
		default:
			cli_help_print(stderr, "test");
			return -1;
		}
	}
	if (!o->base || !o->patched || !o->job || optind < argc) {
		fprintf(stderr, "kfleet: test: --base PATH, --patched PATH and --job NAME are "
			"required\n");
		return -1;
	}
	return cli_decided_check(k->cmd, o->until, o->max_runs, o->repeat);
}

/* Queues the request at vCPU count o->vcpus[v] (0: the job's) and says so;
 * *id gets its id. 0 / -1 (said) */
static int test_queue_one(struct cli *k, const struct test_opts *o, size_t v,
			  const char *babs, const char *pabs, const char *token, long long *id)
{
	json_t *body;
	struct resp r = { 0 };
	int rc = -1;

	body = json_pack("{s:s, s:s, s:s, s:I}", "kernel", babs, "patched", pabs, "job", o->job,
			 "repeat", (json_int_t)o->repeat);
	if (!body || (o->arch && json_object_set_new(body, "arch", json_string(o->arch)) < 0) ||
	    (o->vcpus[v] && json_object_set_new(body, "vcpus", json_integer(o->vcpus[v])) < 0) ||
	    (o->memory && json_object_set_new(body, "memory_mb", json_integer(o->memory)) < 0) ||
	    cli_decided_body(body, o->until, o->max_runs, o->margin) < 0) {
		fprintf(stderr, "kfleet: test: the kernel paths and the job must be UTF-8\n");
		goto out;
	}
	if (cli_api_call(k, "POST", "/api/requests", body, token, &r) < 0) {
		fprintf(stderr, "kfleet: test: %s\n", r.err);
		goto out;
	}
	*id = cli_jint(r.j, "id", 0);
	printf("request %lld queued: %lld runs of base and patched, interleaved%s", *id,
	       2 * o->repeat, o->until ? ", then more until decided" : "");
	if (o->vcpus[v])
		printf(" (%d vCPU%s)", o->vcpus[v], o->vcpus[v] == 1 ? "" : "s");
	printf("\n");
	rc = 0;
out:
	json_decref(r.j);
	json_decref(body);
	return rc;
}

/* --wait: the report of each queued request ids[], then with several vCPU
 * counts the scaling across them. Returns the worst exit code. */
static int test_report(struct cli *k, const struct test_opts *o, const long long *ids)
{
	int rc = CLI_OK;

	for (size_t v = 0; v < (o->nvcpus ? o->nvcpus : 1); v++) {
		int one;

		if (o->nvcpus > 1)
			printf("\nrequest %lld: %s, %d vCPU%s\n", ids[v], o->job, o->vcpus[v],
			       o->vcpus[v] == 1 ? "" : "s");
		one = cli_request_report(k, ids[v], o->job, o->markdown, o->margin);
		if (one > rc)
			rc = one;
	}
	if (o->nvcpus > 1) {
		struct resp q = { 0 };
		char path[64];

		snprintf(path, sizeof(path), "/api/requests/%lld", ids[0]);
		if (cli_api_call(k, "GET", path, NULL, NULL, &q) == 0)
			cli_scaling_report(k, cli_jint(q.j, "base_kernel_id", 0),
					   cli_jint(q.j, "patched_kernel_id", 0), o->job,
					   o->markdown, o->margin);
		json_decref(q.j);
	}
	return rc;
}

int cli_test(struct cli *k, int argc, char **argv)
{
	struct test_opts o = { .repeat = 1 };
	long long ids[CLI_VCPUS_MAX];
	char *babs = NULL, *pabs = NULL, *token = NULL;
	int rc = CLI_USAGE, parsed;

	parsed = test_parse(k, argc, argv, &o);
	if (parsed)
		return parsed > 0 ? CLI_OK : CLI_USAGE;
	babs = path_abs(o.base);
	pabs = path_abs(o.patched);
	token = cli_read_token(k);
	if (!babs || !pabs || !token)
		goto out;
	/* one request per vCPU count: each its own cell, the scaling across them */
	for (size_t v = 0; v < (o.nvcpus ? o.nvcpus : 1); v++)
		if (test_queue_one(k, &o, v, babs, pabs, token, &ids[v]) < 0)
			goto out;
	rc = o.wait ? test_report(k, &o, ids) : CLI_OK;
out:
	free(token);
	free(babs);
	free(pabs);
	return rc;
}
