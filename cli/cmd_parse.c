// SPDX-License-Identifier: GPL-2.0-only
/* cmd_parse.c: `kfleet parse ktap|test_progs|bench|metrics FILE`, a job
 * output parser of jobs/ run here on a log at hand, without the daemon or a
 * config: the results or samples as text (what the daemon would store) or
 * JSON, the parser's notes on stderr as FILE:LINE: messages. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/util.h"
#include "jobs/jobs.h"

static void print_notes(const char *file, const struct job_notes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		fprintf(stderr, "%s:%zu: %s\n", file, ns->v[i].line, ns->v[i].what);
	if (ns->dropped)
		fprintf(stderr, "%s: %zu more notes not shown\n", file, ns->dropped);
}

static void print_results(const struct job_results *r, const struct tprogs_summary *sum)
{
	size_t total = 0;

	for (size_t i = 0; i < r->n; i++) {
		const struct job_result *x = &r->v[i];

		printf("%-8s %s%s%s%s\n", job_status_name(x->status), x->path,
		       x->reason ? "  (" : "", x->reason ? x->reason : "", x->reason ? ")" : "");
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		total += r->count[i];
	printf("%zu results: %zu pass, %zu fail, %zu skip, %zu xfail, %zu error, %zu timeout, "
	       "%zu missing%s\n", total, r->count[JOB_PASS], r->count[JOB_FAIL],
	       r->count[JOB_SKIP], r->count[JOB_XFAIL], r->count[JOB_ERROR],
	       r->count[JOB_TIMEOUT], r->count[JOB_MISSING],
	       r->truncated ? " (truncated: more than the result limit)" : "");
	{
		size_t tests = 0;

		for (int i = 0; i < JOB_STATUS_COUNT; i++)
			tests += r->tests[i];
		/* KTAP: the test cases as kunit_tool counts them (a suite is not one) */
		if (tests)
			printf("%zu test cases: %zu pass, %zu fail, %zu skip, %zu xfail, %zu error, "
			       "%zu timeout, %zu missing\n", tests, r->tests[JOB_PASS],
			       r->tests[JOB_FAIL], r->tests[JOB_SKIP], r->tests[JOB_XFAIL],
			       r->tests[JOB_ERROR], r->tests[JOB_TIMEOUT], r->tests[JOB_MISSING]);
	}
	if (sum && sum->present) {
		printf("test_progs summary: %ld", sum->passed);
		if (sum->subtests_passed >= 0)
			printf("/%ld", sum->subtests_passed);
		printf(" PASSED, ");
		if (sum->skipped >= 0)
			printf("%ld SKIPPED, ", sum->skipped);
		printf("%ld FAILED\n", sum->failed);
	}
}

static void print_samples(const struct job_samples *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct job_sample *x = &s->v[i];

		printf("%-44s %6ld  %.15g%s%s\n", x->name, x->seq, x->value, x->unit ? " " : "",
		       x->unit ? x->unit : "");
	}
	printf("%zu samples%s\n", s->n,
	       s->truncated ? " (truncated: more than the sample limit)" : "");
}

/* in parsed by the parser kind into r (ktap, test_progs) or s (bench,
 * metrics); what the parser returns */
static int parse_with(const char *kind, const struct buf *in, struct job_results *r,
		      struct job_samples *s, struct tprogs_summary *sum)
{
	size_t i = 0;

	if (!strcmp(kind, "ktap"))
		return ktap_parse(in->data, in->len, r);
	if (!strcmp(kind, "bench"))
		return bench_parse(in->data, in->len, s);
	if (!strcmp(kind, "metrics"))
		return metrics_parse(in->data, in->len, s);
	/* test_progs: the -J file or the text output */
	while (i < in->len && strchr(" \t\r\n", in->data[i]))
		i++;
	if (i < in->len && in->data[i] == '{')
		return tprogs_parse_json(in->data, in->len, r, sum);
	return tprogs_parse(in->data, in->len, r, sum);
}

int cli_parse(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct tprogs_summary sum = { 0 };
	struct buf in = BUF_INIT(JOB_OUTPUT_MAX);
	struct job_results r;
	struct job_samples s;
	const char *kind, *file;
	int json = 0, c, rc = CLI_USAGE, prc, results;
	json_t *j = NULL;

	job_results_init(&r, JOB_RESULTS_MAX);
	job_samples_init(&s, JOB_SAMPLES_MAX);
	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h':
			cli_help_print(stdout, "parse");
			rc = CLI_OK;
			goto out;
		default:
			cli_help_print(stderr, "parse");
			goto out;
		}
	}
	if (optind != argc - 2) {
		fprintf(stderr, "kfleet: parse: expected a parser and a file\n");
		cli_help_print(stderr, "parse");
		goto out;
	}
	kind = argv[optind];
	file = argv[optind + 1];
	results = !strcmp(kind, "ktap") || !strcmp(kind, "test_progs");
	if (!results && strcmp(kind, "bench") && strcmp(kind, "metrics")) {
		fprintf(stderr, "kfleet: parse: '%s' is not a parser (ktap, test_progs, bench, "
			"metrics)\n", kind);
		goto out;
	}
	if (read_file(strcmp(file, "-") ? file : "/dev/stdin", &in, JOB_OUTPUT_MAX) < 0) {
		fprintf(stderr, "kfleet: parse: '%s': %s\n", file, strerror(errno));
		goto out;
	}
	if (in.truncated) {
		fprintf(stderr, "kfleet: parse: '%s' is larger than %u MiB\n", file,
			JOB_OUTPUT_MAX >> 20);
		goto out;
	}
	prc = parse_with(kind, &in, &r, &s, &sum);
	print_notes(file, results ? &r.notes : &s.notes);
	if (prc < 0) {
		fprintf(stderr, "kfleet: parse: '%s': %s\n", file,
			(results ? r.notes.n : s.notes.n) ? "not parsed" : "out of memory");
		goto out;
	}
	if (!json) {
		if (results)
			print_results(&r, !strcmp(kind, "test_progs") ? &sum : NULL);
		else
			print_samples(&s);
		rc = CLI_OK;
		goto out;
	}
	j = results ? job_results_json(&r) : job_samples_json(&s);
	if (!j || json_object_set_new(j, "parser", json_string(kind)) < 0 ||
	    (sum.present && json_object_set_new(j, "summary", json_pack("{sI sI sI sI}",
			"passed", (json_int_t)sum.passed,
			"subtests_passed", (json_int_t)sum.subtests_passed,
			"skipped", (json_int_t)sum.skipped,
			"failed", (json_int_t)sum.failed)) < 0)) {
		fprintf(stderr, "kfleet: parse: out of memory\n");
		goto out;
	}
	cli_print_json(j);
	rc = CLI_OK;
out:
	json_decref(j);
	job_results_release(&r);
	job_samples_release(&s);
	buf_release(&in);
	return rc;
}
