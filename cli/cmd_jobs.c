// SPDX-License-Identifier: GPL-2.0-only
/* cmd_jobs.c: `kfleet jobs` (the jobs the daemon found in its job_dirs, one
 * line each) and `kfleet jobs show NAME` (one job's definition: its
 * command, programs, config, root disk, defaults and metrics, and its
 * noise per metric and cell with the runs a side changes need), over the
 * API's /api/jobs. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "common/buf.h"

static void print_jobs(json_t *jobs)
{
	int wn = 4, wk = 4, wp = 6, wg = 8;
	json_t *j;
	size_t i;

	if (!json_array_size(jobs)) {
		printf("no jobs (the daemon found no *.job files in its job_dirs)\n");
		return;
	}
	json_array_foreach(jobs, i, j) {
		struct buf progs = BUF_INIT(0);
		int l;

		cli_join_strs(&progs, json_object_get(j, "programs"), ",");
		if ((l = (int)strlen(cli_jdash(j, "name"))) > wn)
			wn = l;
		if ((l = (int)strlen(cli_jdash(j, "kind"))) > wk)
			wk = l;
		if ((l = (int)strlen(cli_jdash(j, "parser"))) > wp)
			wp = l;
		if ((l = (int)progs.len) > wg)
			wg = l > 40 ? 40 : l;
		buf_release(&progs);
	}
	printf("%-*s  %-*s  %-*s  %-*s  %s\n", wn, "NAME", wk, "KIND", wp, "PARSER", wg,
	       "PROGRAMS", "DESCRIPTION");
	json_array_foreach(jobs, i, j) {
		struct buf progs = BUF_INIT(0);

		cli_join_strs(&progs, json_object_get(j, "programs"), ",");
		printf("%-*s  %-*s  %-*s  %-*s  %s\n", wn, cli_jdash(j, "name"), wk,
		       cli_jdash(j, "kind"), wp, cli_jdash(j, "parser"), wg,
		       cli_or_dash(buf_str(&progs)), cli_jstr(j, "description", ""));
		buf_release(&progs);
	}
}

/* A job's default, or the daemon's when the job has none */
static void print_default(const char *label, json_t *j, const char *key, const char *unit)
{
	json_t *v = json_object_get(j, key);

	if (json_is_integer(v))
		printf("  %-12s%lld%s\n", label, (long long)json_integer_value(v), unit);
	else
		printf("  %-12sthe daemon's default\n", label);
}

/* The job's noise per metric and cell (its "calibration", web/calib.c) */
static void print_noise(json_t *j)
{
	json_t *cal = json_object_get(j, "calibration"), *m, *r;
	size_t i, k;

	if (!json_is_array(cal)) {
		if (cli_jstr(j, "calibration_error", NULL))
			printf("noise: not known: %s\n", cli_jstr(j, "calibration_error", NULL));
		return;
	}
	if (!json_array_size(cal)) {
		printf("noise: no passed runs with metrics yet\n");
		return;
	}
	printf("noise (the runs on one kernel, pooled over kernels%s; runs a side to see a "
	       "change at p < 1%% with 80%% chance):\n",
	       json_is_true(json_object_get(j, "calibration_truncated")) ? ", newest runs only"
	       : "");
	printf("  %-24s %-8s %5s %8s %5s %7s", "METRIC", "ARCH", "VCPUS", "CV", "RUNS",
	       "KERNELS");
	json_array_foreach(json_object_get(json_array_get(cal, 0), "runs_needed"), k, r)
		printf("  %4g%%", json_real_value(json_object_get(r, "change")) * 100);
	printf("\n");
	json_array_foreach(cal, i, m) {
		json_t *cv = json_object_get(m, "cv");
		char cvs[32];

		if (json_is_number(cv))
			snprintf(cvs, sizeof(cvs), "%.2f%%", json_number_value(cv) * 100);
		else
			snprintf(cvs, sizeof(cvs), "-");
		printf("  %-24s %-8s %5lld %8s %5lld %7lld", cli_jdash(m, "metric"),
		       cli_jdash(m, "arch"), (long long)json_integer_value(json_object_get(m, "vcpus")),
		       cvs, (long long)json_integer_value(json_object_get(m, "runs")),
		       (long long)json_integer_value(json_object_get(m, "kernels")));
		json_array_foreach(json_object_get(m, "runs_needed"), k, r) {
			json_t *n = json_object_get(r, "runs");

			if (json_is_integer(n))
				printf("  %5lld", (long long)json_integer_value(n));
			else
				printf("  %5s", "-");
		}
		printf("\n");
	}
}

static void print_job(json_t *j)
{
	struct buf b = BUF_INIT(0);
	json_t *metrics = json_object_get(j, "metrics"), *m;
	const char *s;
	size_t i;

	s = cli_jstr(j, "description", NULL);
	printf("job %s%s%s\n", cli_jdash(j, "name"), s ? ": " : "", s ? s : "");
	printf("  kind:       %s\n", cli_jdash(j, "kind"));
	printf("  parser:     %s\n", cli_jdash(j, "parser"));
	printf("  command:    %s\n", cli_jdash(j, "command"));
	cli_join_strs(&b, json_object_get(j, "programs"), " ");
	printf("  programs:   %s\n", cli_or_dash(buf_str(&b)));
	buf_reset(&b);
	cli_join_strs(&b, json_object_get(j, "config"), " ");
	printf("  config:     %s\n", cli_or_dash(buf_str(&b)));
	buf_reset(&b);
	cli_join_strs(&b, json_object_get(j, "rootfs"), " ");
	if (b.len)
		printf("  root disk:  Debian packages %s\n", buf_str(&b));
	if (cli_jstr(j, "image", NULL))
		printf("  root disk:  %s (an overlay of it per run)\n", cli_jstr(j, "image", NULL));
	if (cli_jstr(j, "results", NULL))
		printf("  results:    %s (copied out after the run)\n", cli_jstr(j, "results", NULL));
	if (cli_jstr(j, "selftests", NULL))
		printf("  selftests:  %s (built from the tree for each kernel, at /kselftest)\n",
		       cli_jstr(j, "selftests", NULL));
	buf_release(&b);
	print_default("timeout:", j, "timeout_s", " s");
	print_default("memory:", j, "memory_mb", " MiB");
	print_default("vCPUs:", j, "vcpus", "");
	printf("  file:       %s\n", cli_jdash(j, "file"));
	if (json_array_size(metrics)) {
		printf("metrics:\n");
		json_array_foreach(metrics, i, m)
			printf("  %-32s %-10s %s is better\n", cli_jdash(m, "name"),
			       cli_jdash(m, "unit"), cli_jdash(m, "better"));
	}
	print_noise(j);
}

int cli_jobs(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct buf path = BUF_INIT(0);
	int json = 0, c, show, rc = CLI_USAGE;
	struct resp r = { 0 };

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = 1; break;
		case 'h':
			cli_help_print(stdout, "jobs");
			return CLI_OK;
		default:
			cli_help_print(stderr, "jobs");
			return CLI_USAGE;
		}
	}
	show = optind < argc && !strcmp(argv[optind], "show");
	if (show ? optind != argc - 2 : optind != argc) {
		fprintf(stderr, "kfleet: jobs: %s\n", show ? "expected 'show NAME'"
			: "expected nothing or 'show NAME'");
		cli_help_print(stderr, "jobs");
		return CLI_USAGE;
	}
	buf_puts(&path, "/api/jobs");
	if (show) {
		buf_puts(&path, "/");
		buf_url_encode(&path, argv[optind + 1]);
	}
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: jobs: %s\n", r.err);
		goto out;
	}
	if (json)
		cli_print_json(r.j);
	else if (show)
		print_job(r.j);
	else
		print_jobs(json_object_get(r.j, "jobs"));
	rc = CLI_OK;
out:
	json_decref(r.j);
	buf_release(&path);
	return rc;
}
