// SPDX-License-Identifier: GPL-2.0-only
/* progress.c: a submission's builds while they run, for `kfleet submit
 * --wait`, `kfleet test` and `kfleet bisect --wait`: on a terminal one
 * line rewritten in place; piped, a plain line when a build's stage
 * changes or it passes another tenth of its objects. Reads the
 * "progress" the daemon gives each building build (web/progress.c). */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static void duration(char *out, size_t n, long long ms)
{
	if (ms < 60000)
		snprintf(out, n, "%lld s", (ms + 999) / 1000);
	else
		snprintf(out, n, "%lld min", (ms + 59999) / 60000);
}

/* "build 7 x86_64 patched: make 1234/~5000 (24%), 40 s, ~2 min left" */
static void describe(json_t *b, json_t *p, char *out, size_t n)
{
	long long objs = cli_jint(p, "objects", 0), exp = cli_jint(p, "expected", 0);
	long long eta = cli_jint(p, "eta_ms", -1);
	char el[32], left[48] = "", count[64] = "";
	const char *side = cli_jstr(b, "side", "");

	duration(el, sizeof(el), cli_jint(p, "elapsed_ms", 0));
	if (eta >= 0) {
		char d[32];

		duration(d, sizeof(d), eta);
		snprintf(left, sizeof(left), ", ~%s left", d);
	}
	if (exp > 0 && objs <= exp)
		snprintf(count, sizeof(count), " %lld/~%lld (%lld%%)", objs, exp, objs * 100 / exp);
	else if (objs)
		snprintf(count, sizeof(count), " %lld objects", objs);
	snprintf(out, n, "build %lld %s%s%s: %s%s, %s%s", cli_jint(b, "id", 0),
		 cli_jstr(b, "arch", "?"), *side ? " " : "", side, cli_jstr(p, "stage", "?"), count,
		 el, left);
}

void cli_build_progress(json_t *sub, int tty, struct cli_progress *st)
{
	json_t *builds = json_object_get(sub, "builds"), *b;
	char line[512] = "", one[256];
	size_t i;

	json_array_foreach(builds, i, b) {
		json_t *p = json_object_get(b, "progress");
		long long id = cli_jint(b, "id", 0), objs, exp;
		int decile, k;

		if (!json_is_object(p))
			continue;
		describe(b, p, one, sizeof(one));
		if (tty) {
			size_t len = strlen(line);

			snprintf(line + len, sizeof(line) - len, "%s%s", len ? "; " : "", one);
			continue;
		}
		objs = cli_jint(p, "objects", 0);
		exp = cli_jint(p, "expected", 0);
		decile = exp > 0 ? (int)(objs * 10 / exp) : -1;
		for (k = 0; k < st->n && st->id[k] != id; k++)
			;
		if (k == st->n) {
			if (st->n == CLI_PROGRESS_MAX)
				continue;
			st->n++;
			st->id[k] = id;
			st->stage[k][0] = '\0';
			st->decile[k] = -2;
		}
		if (strcmp(st->stage[k], cli_jstr(p, "stage", "")) || decile != st->decile[k]) {
			snprintf(st->stage[k], sizeof(st->stage[k]), "%s", cli_jstr(p, "stage", ""));
			st->decile[k] = decile;
			fprintf(stderr, "%s\n", one);
		}
	}
	if (tty && (*line || st->shown)) {
		fprintf(stderr, "\r\033[K%s", line);
		st->shown = *line != '\0';
		fflush(stderr);
	}
}

void cli_build_progress_end(int tty, struct cli_progress *st)
{
	if (tty && st->shown)
		fprintf(stderr, "\r\033[K");
	st->shown = 0;
}
