// SPDX-License-Identifier: GPL-2.0-only
/* progress.c: a submission's builds while they run, for `kfleet submit
 * --wait`, `kfleet test` and `kfleet bisect --wait`: on a terminal one
 * line rewritten in place; piped, a plain line when a build's stage
 * changes, it passes another tenth of its objects, or CLI_PROGRESS_EVERY_MS
 * went by without a line. Reads the "progress" the daemon gives each
 * building build (web/progress.c): its objects against the count of an
 * earlier build, or against an estimate from its .config ("expected_from":
 * "config") when it is the first of its arch and config. */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "common/util.h"

static void duration(char *out, size_t n, long long ms)
{
	if (ms < 60000)
		snprintf(out, n, "%lld s", (ms + 999) / 1000);
	else
		snprintf(out, n, "%lld min", (ms + 59999) / 60000);
}

/* "build 7 x86_64 patched: make 1234/~5000 (24%), 40 s, ~2 min left";
 * against an estimate from the config "make 1234 of about 5000 objects
 * (24%)"; with nothing to compare with "make 1234 objects" */
static void describe(json_t *b, json_t *p, char *out, size_t n)
{
	long long objs = cli_jint(p, "objects", 0), exp = cli_jint(p, "expected", 0);
	long long eta = cli_jint(p, "eta_ms", -1);
	char el[32], left[48] = "", count[80] = "";
	const char *side = cli_jstr(b, "side", "");

	duration(el, sizeof(el), cli_jint(p, "elapsed_ms", 0));
	if (eta >= 0) {
		char d[32];

		duration(d, sizeof(d), eta);
		snprintf(left, sizeof(left), ", ~%s left", d);
	}
	if (exp > 0 && objs <= exp && !strcmp(cli_jstr(p, "expected_from", ""), "config"))
		snprintf(count, sizeof(count), " %lld of about %lld objects (%lld%%)", objs, exp,
			 objs * 100 / exp);
	else if (exp > 0 && objs <= exp)
		snprintf(count, sizeof(count), " %lld/~%lld (%lld%%)", objs, exp, objs * 100 / exp);
	else if (objs)
		snprintf(count, sizeof(count), " %lld objects", objs);
	snprintf(out, n, "build %lld %s%s%s: %s%s, %s%s", cli_jint(b, "id", 0),
		 cli_jstr(b, "arch", "?"), *side ? " " : "", side, cli_jstr(p, "stage", "?"), count,
		 el, left);
}

/* Piped: whether build id (its progress p) is due a line at now_ms: its
 * stage changed, it passed another tenth, or CLI_PROGRESS_EVERY_MS went
 * by since its last one; when it is, that is remembered in st */
static int plain_due(struct cli_progress *st, long long id, json_t *p, long long now_ms)
{
	long long objs = cli_jint(p, "objects", 0), exp = cli_jint(p, "expected", 0);
	const char *stage = cli_jstr(p, "stage", "");
	int decile = exp > 0 ? (int)(objs * 10 / exp) : -1, k;

	for (k = 0; k < st->n && st->id[k] != id; k++)
		;
	if (k == st->n) {
		if (st->n == CLI_PROGRESS_MAX)
			return 0;
		st->n++;
		st->id[k] = id;
		st->stage[k][0] = '\0';
		st->decile[k] = -2;
	}
	if (!strcmp(st->stage[k], stage) && decile == st->decile[k] &&
	    now_ms - st->printed_ms[k] < CLI_PROGRESS_EVERY_MS)
		return 0;
	snprintf(st->stage[k], sizeof(st->stage[k]), "%s", stage);
	st->decile[k] = decile;
	st->printed_ms[k] = now_ms;
	return 1;
}

void cli_build_progress_to(FILE *out, json_t *sub, int tty, struct cli_progress *st,
			   long long now_ms)
{
	json_t *builds = json_object_get(sub, "builds"), *b;
	char line[512] = "", one[256];
	size_t i;

	json_array_foreach(builds, i, b) {
		json_t *p = json_object_get(b, "progress");

		if (!json_is_object(p))
			continue;
		describe(b, p, one, sizeof(one));
		if (tty) {
			size_t len = strlen(line);

			snprintf(line + len, sizeof(line) - len, "%s%s", len ? "; " : "", one);
		} else if (plain_due(st, cli_jint(b, "id", 0), p, now_ms)) {
			fprintf(out, "%s\n", one);
		}
	}
	if (tty && (*line || st->shown)) {
		fprintf(out, "\r\033[K%s", line);
		st->shown = *line != '\0';
	}
	fflush(out);
}

void cli_build_progress(json_t *sub, int tty, struct cli_progress *st)
{
	cli_build_progress_to(stderr, sub, tty, st, mono_ms());
}

void cli_build_progress_end(int tty, struct cli_progress *st)
{
	if (tty && st->shown)
		fprintf(stderr, "\r\033[K");
	st->shown = 0;
}
