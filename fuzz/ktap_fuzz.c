// SPDX-License-Identifier: GPL-2.0-only
/* ktap_fuzz.c: libFuzzer target for ktap_parse(), which reads the KTAP and
 * TAP 13 that kselftest and KUnit print in a guest: any bytes must parse
 * without a fault into bounded, counted, clean result rows.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(pkg-config --cflags --libs
 *       jansson) -o ktap_fuzz fuzz/ktap_fuzz.c jobs/ktap.c jobs/ktap_line.c jobs/result.c
 *       common/printk.c -lm */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz/jobs_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_results r;

	job_results_init(&r, FUZZ_MAX);
	if (ktap_parse((const char *)data, size, &r) < 0)
		abort();   /* only out of memory fails, and libFuzzer's limit is far */
	fuzz_check_results(&r);
	job_results_release(&r);
	return 0;
}
