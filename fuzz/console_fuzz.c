// SPDX-License-Identifier: GPL-2.0-only
/* console_fuzz.c: libFuzzer target for console_scan(), which reads every
 * guest's serial console for crash reports, and crash_title(), which names
 * the report a bisection matches. Any bytes must scan without a fault, a
 * splat, when found, must come from the input, and its title must be
 * printable and fit its buffer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/crash.h"
#include "orchestrator/orchint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_verdict v;

	console_scan((const char *)data, size, &v);
	if (v.crashed && (!v.splat || !v.what[0]))
		abort();
	if (!v.crashed && v.splat)
		abort();
	if (v.splat) {
		char t[CRASH_TITLE_MAX];

		if (crash_title(v.splat, t, sizeof(t)) == 0 && (!t[0] || strlen(t) >= sizeof(t)))
			abort();
		for (size_t i = 0; t[i]; i++)
			if ((unsigned char)t[i] < 0x20 || (unsigned char)t[i] > 0x7e)
				abort();
	}
	free(v.splat);
	return 0;
}
