// SPDX-License-Identifier: GPL-2.0-only
/* lore_fuzz.c: a public-inbox Atom feed as a watch reads it
 * (watch/lore.c): any bytes as the feed, with libxml2 (no network, no
 * entities). Each entry taken has a message-id and a subject, and whether
 * its subject starts a series gives a version of at least 1. */
#include <stdint.h>
#include <stdlib.h>

#include "watch/lore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lore_entry *e = NULL;
	char err[256];
	size_t n = 0;

	if (lore_feed_parse((const char *)data, size, &e, &n, err, sizeof(err)) < 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		int v = 0;

		if (!e[i].msgid || !*e[i].msgid || !e[i].subject)
			abort();
		if (lore_series_start(e[i].subject, e[i].is_reply, &v) && v < 1)
			abort();
	}
	lore_entries_free(e, n);
	return 0;
}
