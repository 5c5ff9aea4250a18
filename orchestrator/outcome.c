// SPDX-License-Identifier: GPL-2.0-only
/* outcome.c: what a run's end means, decided from facts alone: the agent's
 * exit frame, the console's text (a crash report beats everything), the
 * watch's timers and floods, then what the job's results say. Pure: no
 * libvirt, no database, no files; run.c gathers the facts, results.c the
 * results, and the worker stores the verdict. */
#include "orchestrator/orchint.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

void outcome_set(struct outcome *out, enum run_outcome o, const char *fmt, ...)
{
	va_list ap;

	out->o = o;
	va_start(ap, fmt);
	vsnprintf(out->detail, sizeof(out->detail), fmt, ap);
	va_end(ap);
}

void outcome_note(struct outcome *out, const char *fmt, ...)
{
	size_t l = strlen(out->detail);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(out->detail + l, sizeof(out->detail) - l, fmt, ap);
	va_end(ap);
}

/* The agent's exit frame: "code=N", "signal=N" or "timeout=N"; a number
 * that does not parse is as if the frame said something else. */
static void from_exit(const struct outcome_facts *f, struct outcome *out)
{
	const char *p = f->exit_payload ? f->exit_payload : "";
	long long v;

	if (!strncmp(p, "code=", 5) && parse_int(p + 5, 0, 255, &v) == 0) {
		out->has_exit = 1;
		out->exit_code = (int)v;
		if (v == 0)
			outcome_set(out, RUN_OUT_PASSED, "command exited with code 0");
		else
			outcome_set(out, RUN_OUT_FAILED, "command exited with code %d", (int)v);
	} else if (!strncmp(p, "signal=", 7) && parse_int(p + 7, 1, 127, &v) == 0) {
		outcome_set(out, RUN_OUT_FAILED, "command was killed by signal %d", (int)v);
	} else if (!strncmp(p, "timeout=", 8)) {
		outcome_set(out, RUN_OUT_TIMEOUT, "command ran past its timeout of %d s",
			    f->timeout_s);
	} else {
		outcome_set(out, RUN_OUT_FAILED, "agent: %.200s", p);
	}
}

void outcome_decide(const struct outcome_facts *f, struct outcome *out)
{
	struct console_verdict v;

	console_scan(f->console ? f->console : "", f->console ? f->console_len : 0, &v);
	if (f->flooded) {
		outcome_set(out, RUN_OUT_CONSOLE_FLOOD, "the guest wrote more than %llu bytes to "
			    "its console; its head and tail are kept", f->console_max);
	} else if (f->pvpanic && !v.crashed) {
		outcome_set(out, RUN_OUT_CRASH, "kernel panic, reported by pvpanic; the console "
			    "shows no report");
	} else if (v.crashed) {
		const char *nl = v.splat ? strchr(v.splat, '\n') : NULL;
		int len = nl ? (int)(nl - v.splat) : 0;

		outcome_set(out, RUN_OUT_CRASH, "%s: %.*s", v.what, len > 300 ? 300 : len,
			    v.splat ? v.splat : "");
		out->splat = v.splat;
		v.splat = NULL;
	} else if (f->exited) {
		from_exit(f, out);
	} else if (!f->hello) {
		if (f->timed_out_boot)
			outcome_set(out, RUN_OUT_NO_BOOT, "no agent hello within %d s of start; "
				    "see the console", f->boot_timeout_s);
		else
			outcome_set(out, RUN_OUT_NO_BOOT, "the guest stopped before the agent "
				    "said hello; see the console");
	} else if (f->timed_out_run) {
		outcome_set(out, RUN_OUT_TIMEOUT, "no exit status %d s past the command's "
			    "timeout of %d s", f->exit_grace_s, f->timeout_s);
	} else {
		outcome_set(out, RUN_OUT_FAILED, "the guest stopped before the agent reported "
			    "an exit status");
	}
	free(v.splat);
}

void outcome_from_results(const struct job_results *res, const char *text, struct outcome *out)
{
	const char *first_bad = NULL;
	size_t bad = 0;

	for (size_t i = 0; i < res->n; i++) {
		if (res->v[i].status == JOB_PASS || res->v[i].status == JOB_SKIP ||
		    res->v[i].status == JOB_XFAIL)
			continue;
		if (!bad)
			first_bad = res->v[i].path;
		bad++;
	}
	if (out->o == RUN_OUT_FAILED && out->has_exit && out->exit_code == 4) {
		const char *skip = strstr(text ? text : "", "SKIP:");
		int len = skip ? (int)strcspn(skip, "\n") : 0;

		if (skip)
			outcome_set(out, RUN_OUT_SKIPPED, "%.*s", len > 300 ? 300 : len, skip);
		else
			outcome_set(out, RUN_OUT_SKIPPED, "job exited 4 (skip)");
	} else if (out->o == RUN_OUT_PASSED && bad) {
		outcome_set(out, RUN_OUT_FAILED, "%zu of %zu results did not pass, the first: %.200s",
			    bad, res->n, first_bad);
	}
}

void outcome_finish(const struct outcome_facts *f, struct outcome *out)
{
	if (f->chan_flooded)
		outcome_set(out, RUN_OUT_CONSOLE_FLOOD, "the guest wrote more than %lld bytes to "
			    "its agent channel", f->chan_max);
	else if (f->silent && out->o != RUN_OUT_CRASH)
		outcome_set(out, RUN_OUT_TIMEOUT, "hang: no console or agent output for %d s",
			    f->silence_timeout_s);
	if (f->output_cut)
		outcome_note(out, " (output cut at %llu bytes)", f->output_max);
}
