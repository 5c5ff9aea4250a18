/* console_fuzz.c: libFuzzer target for console_scan(), which reads every
 * guest's serial console for crash reports. Any bytes must scan without a
 * fault, and a splat, when found, must come from the input. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "orchestrator/orchint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct console_verdict v;

	console_scan((const char *)data, size, &v);
	if (v.crashed && (!v.splat || !v.what[0]))
		abort();
	if (!v.crashed && v.splat)
		abort();
	free(v.splat);
	return 0;
}
