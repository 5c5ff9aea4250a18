// SPDX-License-Identifier: GPL-2.0-only
/* metrics_fuzz.c: libFuzzer target for metrics_parse(): any bytes give
 * bounded, valid samples, and each sample printed back as a METRIC line
 * parses to the same sample (what is taken is what the line said).
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. $(pkg-config --cflags --libs
 *       jansson) -o metrics_fuzz fuzz/metrics_fuzz.c jobs/metrics.c jobs/result.c -lm */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/jobs_fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct job_samples s;

	job_samples_init(&s, FUZZ_MAX);
	if (metrics_parse((const char *)data, size, &s) < 0)
		abort();
	fuzz_check_samples(&s);
	for (size_t i = 0; i < s.n; i++) {
		const struct job_sample *x = &s.v[i];
		struct job_samples t;
		char line[512];
		int n = snprintf(line, sizeof(line), "METRIC %s=%.17g%s%s\n", x->name, x->value,
				 x->unit ? " " : "", x->unit ? x->unit : "");

		job_samples_init(&t, 1);
		if (n < 0 || (size_t)n >= sizeof(line) || metrics_parse(line, (size_t)n, &t) < 0 ||
		    t.n != 1 || strcmp(t.v[0].name, x->name) || t.v[0].value != x->value ||
		    (!x->unit) != (!t.v[0].unit) || (x->unit && strcmp(x->unit, t.v[0].unit)))
			abort();
		job_samples_release(&t);
	}
	job_samples_release(&s);
	return 0;
}
