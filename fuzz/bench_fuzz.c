// SPDX-License-Identifier: GPL-2.0-only
/* bench_fuzz.c: libFuzzer target for bench_parse(), which reads the bench
 * tool's Iter and Summary lines: any bytes must parse without a fault into
 * bounded samples with valid names and finite values.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(pkg-config --cflags --libs
 *       jansson) -o bench_fuzz fuzz/bench_fuzz.c jobs/bench.c jobs/result.c -lm */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz/jobs_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_samples s;

	job_samples_init(&s, FUZZ_MAX);
	if (bench_parse((const char *)data, size, &s) < 0)
		abort();
	fuzz_check_samples(&s);
	job_samples_release(&s);
	return 0;
}
