/* SPDX-License-Identifier: GPL-2.0-only */
/* watch/lore.h: a public-inbox (lore) list's Atom feed as a watch reads
 * it (watch/lore.c). Private to the watch files. */
#ifndef KF_WATCH_LORE_H
#define KF_WATCH_LORE_H

#include <stddef.h>

struct lore_entry {
	char *msgid;             /* from the entry's link, without <> */
	char *subject;           /* its title */
	char *author;            /* "Name <email>" */
	char *updated;           /* "2026-12-02T13:37:07Z" */
	int is_reply;            /* it has a thr:in-reply-to */
	int starts_series;       /* lore_series_start() */
	int version;
};

/* The entries of a feed, as they come (newest first on public-inbox).
 * -1 with err ("not XML: ...", "entry 3: no title") when it is not an
 * Atom feed of messages. Free with lore_entries_free(). */
int lore_feed_parse(const char *data, size_t len, struct lore_entry **out, size_t *n,
		    char *err, size_t errn);
void lore_entries_free(struct lore_entry *e, size_t n);
/* Whether a message with this subject starts a series: [PATCH ...] and
 * not "Re:", the cover letter (0/N), or when it replies to nothing, a
 * lone patch or 1/N. 1 with *version (1 when the subject names none), 0 */
int lore_series_start(const char *subject, int is_reply, int *version);

#endif
