// SPDX-License-Identifier: GPL-2.0-only
/* test_progs_fuzz.c: libFuzzer target for tprogs_parse() and
 * tprogs_parse_json(): the same bytes go through both into one list, as a
 * job merges a log and its -J file; no fault, bounded, counted, clean rows.
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(pkg-config --cflags --libs
 *       jansson) -o test_progs_fuzz fuzz/test_progs_fuzz.c jobs/test_progs.c jobs/result.c -lm */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz/jobs_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tprogs_summary sum;
	struct job_results r;

	job_results_init(&r, FUZZ_MAX);
	if (tprogs_parse((const char *)data, size, &r, &sum) < 0)
		abort();
	if (sum.present && (sum.passed < 0 || sum.failed < 0))
		abort();
	fuzz_check_results(&r);
	/* -1 is fine here: most inputs are not JSON */
	tprogs_parse_json((const char *)data, size, &r, &sum);
	fuzz_check_results(&r);
	job_results_release(&r);
	return 0;
}
