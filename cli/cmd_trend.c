// SPDX-License-Identifier: GPL-2.0-only
/* cmd_trend.c: `kfleet trend`, a job's metric across the commits of a tree.
 * It asks GET /api/trend (web/, which reads the database and runs
 * analysis/trend.c) and prints a fixed-width table of the commits with
 * their spread, the change points in words and the pass-rate changes of
 * the job's subtests; --json prints the answer as it came. */
#include "cli/cli.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define TREND_ARG_MAX   200   /* bytes of an option's value */

static void usage_trend(FILE *f)
{
	cli_help_print(f, "trend");
}

/* A number of the answer; NAN for null or missing */
static double jnum(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* "%.4g" of v into out, "-" when not finite */
static const char *fmt(double v, char out[32])
{
	if (isfinite(v))
		snprintf(out, 32, "%.4g", v);
	else
		snprintf(out, 32, "-");
	return out;
}

static void print_changes(json_t *j, const char *unit)
{
	json_t *changes = json_object_get(j, "changes"), *c;
	size_t i;

	if (!json_array_size(changes)) {
		printf("\nno change points\n");
		return;
	}
	printf("\n%zu change point%s:\n", json_array_size(changes),
	       json_array_size(changes) == 1 ? "" : "s");
	json_array_foreach(changes, i, c) {
		char a[32], b[32];
		double pct = jnum(c, "change_pct");

		printf("  step at %.12s: %s -> %s%s%s", cli_jstr(c, "commit", "?"), fmt(jnum(c, "before"), a),
		       fmt(jnum(c, "after"), b), unit ? " " : "", unit ? unit : "");
		if (isfinite(pct))
			printf(" (%+.*f%%)", fabs(pct) < 10 ? 1 : 0, pct);
		printf(", %s, p=%.2g\n", cli_jstr(c, "verdict", "?"), jnum(c, "p"));
	}
	if (json_is_true(json_object_get(j, "changes_dropped")))
		printf("  (more were found than are listed)\n");
}

static void print_passrate(json_t *pr, json_t *points)
{
	json_t *ev = json_object_get(pr, "events"), *e, *tests = json_object_get(pr, "tests");
	size_t i;

	printf("\nsubtests: %zu failed somewhere, %lld passed wherever they ran\n",
	       json_array_size(tests) + (size_t)json_integer_value(json_object_get(pr,
	       "tests_dropped")), (long long)json_integer_value(json_object_get(pr, "always_pass")));
	json_array_foreach(ev, i, e) {
		const char *path = cli_jstr(e, "path", "?");
		json_t *t = NULL, *x;
		size_t k, idx = (size_t)json_integer_value(json_object_get(e, "index"));

		json_array_foreach(tests, k, x)
			if (!strcmp(cli_jstr(x, "path", ""), path)) {
				t = x;
				break;
			}
		printf("  %s at %.12s: %s", cli_jstr(e, "kind", "?"), cli_jstr(e, "commit", "?"), path);
		if (t && idx > 0 && idx < json_array_size(points)) {
			/* the counts just before and at the change */
			json_t *pa = json_object_get(t, "pass"), *fa = json_object_get(t, "fail");
			long long p0 = json_integer_value(json_array_get(pa, idx - 1));
			long long f0 = json_integer_value(json_array_get(fa, idx - 1));
			long long p1 = json_integer_value(json_array_get(pa, idx));
			long long f1 = json_integer_value(json_array_get(fa, idx));

			printf(" (passed %lld/%lld -> %lld/%lld)", p0, p0 + f0, p1, p1 + f1);
		}
		printf("\n");
	}
	/* flips across commits, and commits where it passed and failed */
	json_array_foreach(tests, i, e) {
		long long flips = cli_jint(e, "flips", 0), fl = cli_jint(e, "flaky_points", 0);

		if (flips < 2 && !fl)
			continue;
		printf("  flaky? %s: %lld flips in %lld commit pairs", cli_jstr(e, "path", "?"), flips,
		       cli_jint(e, "chances", 0));
		if (fl)
			printf(", passed and failed on %lld commit%s", fl, fl == 1 ? "" : "s");
		printf("\n");
	}
}

static void print_trend(json_t *j)
{
	json_t *points = json_object_get(j, "points"), *changes = json_object_get(j, "changes");
	json_t *p, *pr = json_object_get(j, "passrate");
	const char *metric = cli_jstr(j, "metric", NULL), *unit = cli_jstr(j, "unit", NULL);
	const char *better = cli_jstr(j, "better", NULL);
	long long vcpus = (long long)json_integer_value(json_object_get(j, "vcpus"));
	size_t i;

	if (metric)
		printf("%s%s%s%s of job %s on tree %s, %s, %lld vCPU%s (%s)\n", metric,
		       unit ? " (" : "", unit ? unit : "", unit ? ")" : "", cli_jstr(j, "job", "?"),
		       cli_jstr(j, "tree", "?"), cli_jstr(j, "arch", "?"), vcpus, vcpus == 1 ? "" : "s",
		       better ? (!strcmp(better, "higher") ? "higher is better"
				 : "lower is better") : "direction not known");
	else
		printf("pass rates of job %s on tree %s, %s, %lld vCPU%s (no metric)\n",
		       cli_jstr(j, "job", "?"), cli_jstr(j, "tree", "?"), cli_jstr(j, "arch", "?"), vcpus,
		       vcpus == 1 ? "" : "s");
	if (json_is_string(json_object_get(j, "picked")))
		printf("picked: %s\n", cli_jstr(j, "picked", ""));
	if (json_is_true(json_object_get(j, "commits_dropped")))
		printf("(the newest commits only)\n");
	if (metric) {
		printf("\n%-12s %7s %4s %10s %s\n", "COMMIT", "ORDER", "N", "MEDIAN", "P25-P75");
		json_array_foreach(points, i, p) {
			char m[32], lo[32], hi[32], range[72], order[24], mark[64] = "";
			json_t *c;
			size_t k;

			json_array_foreach(changes, k, c)
				if ((size_t)json_integer_value(json_object_get(c, "index")) == i) {
					double pct = jnum(c, "change_pct");

					if (isfinite(pct))
						snprintf(mark, sizeof(mark), "<- step %+.1f%% %s", pct,
							 cli_jstr(c, "verdict", "?"));
					else
						snprintf(mark, sizeof(mark), "<- step %s",
							 cli_jstr(c, "verdict", "?"));
				}
			if (json_integer_value(json_object_get(p, "order")) >= 0)
				snprintf(order, sizeof(order), "%lld",
					 (long long)json_integer_value(json_object_get(p, "order")));
			else
				snprintf(order, sizeof(order), "?");
			snprintf(range, sizeof(range), "%s - %s", fmt(jnum(p, "p25"), lo),
				 fmt(jnum(p, "p75"), hi));
			printf("%-12.12s %7s %4lld %10s %-23s", cli_jstr(p, "commit", "?"), order,
			       (long long)json_integer_value(json_object_get(p, "n")),
			       fmt(jnum(p, "median"), m), json_is_number(json_object_get(p, "p25")) ?
			       range : "-");
			printf(mark[0] ? " %s\n" : "\n", mark);
		}
		print_changes(j, unit);
	}
	if (json_is_object(pr))
		print_passrate(pr, points);
}

int cli_trend(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "job", required_argument, NULL, 'j' },
		{ "metric", required_argument, NULL, 'm' },
		{ "arch", required_argument, NULL, 'a' },
		{ "vcpus", required_argument, NULL, 'v' },
		{ "json", no_argument, NULL, 'J' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *val[5] = { NULL, NULL, NULL, NULL, NULL };   /* tree job metric arch vcpus */
	static const char *const keys[5] = { "tree", "job", "metric", "arch", "vcpus" };
	struct buf path = BUF_INIT(4096);
	struct resp r = { 0 };
	long long vcpus;
	int c, json = 0, rc = CLI_USAGE;

	optind = 0;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't': val[0] = optarg; break;
		case 'j': val[1] = optarg; break;
		case 'm': val[2] = optarg; break;
		case 'a': val[3] = optarg; break;
		case 'v': val[4] = optarg; break;
		case 'J': json = 1; break;
		case 'h':
			usage_trend(stdout);
			return CLI_OK;
		default:
			usage_trend(stderr);
			return CLI_USAGE;
		}
	}
	if (optind < argc || !val[0] || !val[1]) {
		usage_trend(stderr);
		return CLI_USAGE;
	}
	if (val[4] && parse_int(val[4], 1, 1024, &vcpus) < 0) {
		fprintf(stderr, "kfleet: trend: vcpus '%.20s': not a number from 1 to 1024\n", val[4]);
		return CLI_USAGE;
	}
	buf_puts(&path, "/api/trend");
	for (int i = 0; i < 5; i++) {
		if (!val[i])
			continue;
		if (strlen(val[i]) > TREND_ARG_MAX) {
			fprintf(stderr, "kfleet: trend: %s '%.40s...': longer than %d bytes\n", keys[i],
				val[i], TREND_ARG_MAX);
			goto out;
		}
		buf_printf(&path, "%c%s=", path.len == 10 ? '?' : '&', keys[i]);
		buf_url_encode(&path, val[i]);
	}
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: trend: %s\n", r.err);
		goto out;
	}
	if (json) {
		cli_print_json(r.j);
	} else {
		print_trend(r.j);
	}
	rc = CLI_OK;
out:
	json_decref(r.j);
	buf_release(&path);
	return rc;
}
