// SPDX-License-Identifier: GPL-2.0-only
/* pw_fuzz.c: patchwork's REST answers as a watch reads them (watch/pw.c):
 * any bytes as a page of the series list, as one series and as a page of
 * events. What is taken has patchwork's shape: a series has an id, a name
 * and its mbox URL; an event's series id is positive. */
#include <stdint.h>
#include <stdlib.h>

#include "watch/pw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data;
	struct pw_series *s = NULL;
	int64_t *ids = NULL;
	char err[256];
	size_t n = 0;

	if (pw_series_parse(d, size, &s, &n, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < n; i++)
			if (s[i].id <= 0 || !s[i].name || !s[i].mbox)
				abort();
		pw_series_free(s, n);
	}
	s = NULL;
	if (pw_series_parse_one(d, size, &s, err, sizeof(err)) == 0) {
		if (!s || s->id <= 0 || !s->mbox)
			abort();
		pw_series_free(s, 1);
	}
	n = 0;
	if (pw_events_parse(d, size, &ids, &n, err, sizeof(err)) == 0) {
		for (size_t i = 0; i < n; i++)
			if (ids[i] <= 0)
				abort();
		free(ids);
	}
	return 0;
}
