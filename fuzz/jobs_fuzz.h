/* SPDX-License-Identifier: GPL-2.0-only */
/* jobs_fuzz.h: the checks the jobs/ parser fuzz targets share. Whatever the
 * input, a parse must give bounded, counted rows and samples of clean text
 * (UTF-8 without control characters), and jansson, which refuses invalid
 * UTF-8, must take them as JSON. A broken rule aborts, so libFuzzer stops
 * on the input that broke it. */
#ifndef KF_JOBS_FUZZ_H
#define KF_JOBS_FUZZ_H

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "jobs/jobs.h"

#define FUZZ_MAX 300   /* small bounds, so the truncation paths run too */

static inline int fuzz_clean(const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s || strlen(s) > max)
		return 0;
	while (*p) {
		int k;

		if (*p < 0x20 || *p == 0x7f)
			return 0;
		if (*p < 0x80) {
			p++;
			continue;
		}
		k = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : *p >= 0xc2 ? 2 : 0;
		if (!k || *p > 0xf4)
			return 0;
		for (int i = 1; i < k; i++)
			if ((p[i] & 0xc0) != 0x80)
				return 0;
		p += k;
	}
	return 1;
}

static inline void fuzz_check_notes(const struct job_notes *ns)
{
	if (ns->n > JOB_NOTES_MAX)
		abort();
	for (size_t i = 0; i < ns->n; i++)
		if (!fuzz_clean(ns->v[i].what, JOB_NOTE_MAX))
			abort();
}

static inline void fuzz_check_results(const struct job_results *r)
{
	size_t count[JOB_STATUS_COUNT] = { 0 };
	json_t *j;

	if (r->n > r->max)
		abort();
	for (size_t i = 0; i < r->n; i++) {
		const struct job_result *x = &r->v[i];

		if (!x->path[0] || !fuzz_clean(x->path, JOB_PATH_MAX) ||
		    (unsigned)x->status >= JOB_STATUS_COUNT ||
		    (x->reason && (!x->reason[0] || !fuzz_clean(x->reason, JOB_REASON_MAX))))
			abort();
		count[x->status]++;
	}
	if (memcmp(count, r->count, sizeof(count)))
		abort();
	fuzz_check_notes(&r->notes);
	j = job_results_json(r);
	if (!j)
		abort();
	json_decref(j);
}

static inline void fuzz_check_samples(const struct job_samples *s)
{
	json_t *j;

	if (s->n > s->max)
		abort();
	for (size_t i = 0; i < s->n; i++) {
		const struct job_sample *x = &s->v[i];
		size_t n = strlen(x->name);

		if (n < 1 || n > JOB_METRIC_MAX ||
		    strspn(x->name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			   "0123456789_.:/-") != n ||
		    !isfinite(x->value) || x->seq < 0 ||
		    (x->unit && (!x->unit[0] || !fuzz_clean(x->unit, JOB_UNIT_MAX))))
			abort();
	}
	fuzz_check_notes(&s->notes);
	j = job_samples_json(s);
	if (!j)
		abort();
	json_decref(j);
}

#endif
