// SPDX-License-Identifier: GPL-2.0-only
/* where.c: `kfleet runs`' lines for the runs not done yet: the queue as
 * GET /api/queue estimates it (web/queue.c: each kind of run takes the
 * median of its last finished runs, the fleet keeps as many going as now
 * and starts the oldest queued run when one ends), every page of it. */
#include "cli/where.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

static void dur(json_t *o, const char *key, char out[32])
{
	json_t *v = json_object_get(o, key);

	cli_fmt_duration(json_is_integer(v) ? json_integer_value(v) : -1, out);
}

#define WHERE_PAGES_MAX 1000   /* pages of the queue followed */

static size_t print_where(json_t *runs, size_t shown);

int cli_runs_where(struct cli *k)
{
	char path[128] = "/api/queue";
	size_t shown = 0;

	/* the queue a page at a time, each naming the next */
	for (int page = 0; page < WHERE_PAGES_MAX; page++) {
		struct resp r = { 0 };
		json_t *next;

		if (cli_api_call(k, "GET", path, NULL, NULL, &r) < 0) {
			fprintf(stderr, "kfleet: runs: the queue: %s\n", r.err);
			return -1;
		}
		shown = print_where(json_object_get(r.j, "runs"), shown);
		next = json_object_get(r.j, "next");
		if (!json_is_string(next) || json_string_length(next) >= sizeof(path)) {
			json_decref(r.j);
			break;
		}
		snprintf(path, sizeof(path), "%s", json_string_value(next));
		json_decref(r.j);
	}
	return 0;
}

/* The lines of runs, the first of them the shown-th: how many are shown
 * after them */
static size_t print_where(json_t *runs, size_t shown)
{
	json_t *run;
	size_t i;

	json_array_foreach(runs, i, run) {
		char a[32], b[32];
		const char *phase;

		if (!shown++)
			printf("\nwhere the runs not done are:\n");
		printf("  run %-6lld %-8s %-12s ", cli_jint(run, "id", 0), cli_jdash(run, "state"),
		       cli_jdash(run, "job"));
		if (json_is_integer(json_object_get(run, "position"))) {
			json_t *st = json_object_get(run, "expected_start_in_ms");

			dur(run, "expected_start_in_ms", a);
			printf("#%lld in the queue, ", cli_jint(run, "position", 0));
			if (!json_is_integer(st))
				printf("start not known yet (no finished runs of a kind ahead)\n");
			else if (json_integer_value(st) == 0)
				printf("starts as soon as a slot frees\n");
			else
				printf("starts in about %s\n", a);
			continue;
		}
		phase = cli_jstr(run, "phase", "running");
		if (strcmp(phase, "running")) {
			/* preparing its guest, booting, storing its results */
			dur(run, "phase_ms", a);
			printf("%s for %s\n", !strcmp(phase, "preparing") ? "preparing its guest" :
			       !strcmp(phase, "storing") ? "storing its results" : phase, a);
			continue;
		}
		dur(run, "running_ms", a);
		dur(run, "median_ms", b);
		if (!json_is_integer(json_object_get(run, "median_ms")))
			printf("%s so far, no usual time yet\n", a);
		else
			printf("%s of its usual %s (%lld%%)\n", a, b,
			       cli_jint(run, "median_ms", 0) > 0 ? cli_jint(run, "running_ms", 0) * 100 /
			       cli_jint(run, "median_ms", 1) : 100);
	}
	return shown;
}
