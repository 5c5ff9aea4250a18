// SPDX-License-Identifier: GPL-2.0-only
/* console.c: reads a guest's serial console for the first kernel report
 * (panic, Oops, BUG, KASAN, lockups, RCU stalls, hung tasks, WARNING, OOM
 * kills) and keeps the report's lines for the run page. Any report makes
 * the run a "crash": a kernel developer wants a WARNING seen, not passed. The console is untrusted text: lines are bounded and
 * nothing in it can make this read past the buffer. */
#include "orchestrator/orchint.h"

#include "analysis/crash.h"

#include <stdlib.h>
#include <string.h>

#define SPLAT_LINES 40
#define SPLAT_MAX 8192

static const struct {
	const char *marker;
	const char *what;
} markers[] = {
	{ "Kernel panic - not syncing", "kernel panic" },
	{ "BUG: KASAN:", "KASAN report" },
	{ "BUG: KFENCE:", "KFENCE report" },
	{ "UBSAN:", "UBSAN report" },
	{ "BUG: soft lockup", "soft lockup" },
	{ "Watchdog detected hard LOCKUP", "hard lockup" },
	{ "WARNING: CPU: ", "WARNING" },
	{ "Out of memory: Killed process", "OOM kill" },
	{ "Memory cgroup out of memory: Killed process", "OOM kill" },
	{ "rcu: INFO: rcu_", "RCU stall" },
	{ "INFO: task ", "hung task" },
	{ "Oops:", "Oops" },
	{ "BUG:", "BUG" },
	{ "kernel BUG at", "BUG" },
	{ "general protection fault", "general protection fault" },
};

static int starts(const char *l, const char *end, const char *m)
{
	size_t n = strlen(m);

	return (size_t)(end - l) >= n && !memcmp(l, m, n);
}

void console_scan(const char *text, size_t n, struct console_verdict *v)
{
	const char *p = text, *end = text + n;

	memset(v, 0, sizeof(*v));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end, *l = crash_line_text(p, le);

		for (size_t i = 0; i < sizeof(markers) / sizeof(markers[0]); i++) {
			struct buf s;
			const char *q = p;
			int lines = 0;

			if (!starts(l, le, markers[i].marker))
				continue;
			v->crashed = 1;
			snprintf(v->what, sizeof(v->what), "%s", markers[i].what);
			buf_init(&s, SPLAT_MAX);
			while (q < end && lines < SPLAT_LINES && !s.truncated) {
				const char *qn = memchr(q, '\n', (size_t)(end - q));
				const char *qe = qn ? qn : end;

				/* serial consoles end lines with \r\n */
				buf_append(&s, q, (size_t)(qe > q && qe[-1] == '\r' ? qe - q - 1 : qe - q));
				buf_puts(&s, "\n");
				lines++;
				q = qn ? qn + 1 : end;
			}
			v->splat = buf_detach(&s);
			return;
		}
		p = nl ? nl + 1 : end;
	}
}
