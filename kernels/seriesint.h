/* SPDX-License-Identifier: GPL-2.0-only */
/* seriesint.h: what series.c, which assembles a series out of an mbox's
 * messages, shares with followups.c, which finishes it (a cover letter
 * without [PATCH 0/N], the trailers replies give, the notes on what was
 * left out). Private to those two. */
#ifndef KF_KERNELS_SERIESINT_H
#define KF_KERNELS_SERIESINT_H

#include "kernels/kernelsint.h"

#include <stdio.h>

/* "name:120" or just "name" when the line is unknown; into out */
static inline const char *where(char *out, size_t n, const char *name, unsigned line)
{
	if (line)
		snprintf(out, n, "%s:%u", name, line);
	else
		snprintf(out, n, "%s", name);
	return out;
}

static inline const char *no_null(const char *s)
{
	return s ? s : "";
}

/* What one message is */
enum msg_kind { MSG_OTHER, MSG_REPLY, MSG_COVER, MSG_PATCH };

struct classified {
	enum msg_kind kind;
	struct series_tags tags;
	int version;         /* tags.version, 1 when none */
	int numbered;        /* has N/M */
	int diffless;        /* a patch tag but no diff, and a reply to another mail:
				taken as a reply (b4: a follow-up) */
	int parent;          /* the message its In-Reply-To names, -1 when none here */
	int files, ins, del;
	int diff_ok;
	char *diff_why;
};

/* One series_assemble(): the messages, what each is (c), which are taken
 * (sel), the version chosen (v) and the other versions seen, and the
 * series being made */
struct assembly {
	const char *name;
	struct series_msg *msgs;
	size_t n;
	struct classified *c;
	char *sel;
	int *order;               /* order[k]: the message of patch k, 1..count */
	struct series *s;
	int v, numbered, untagged, cover, count, versions;
	int naked;                /* the cover letter has no [PATCH 0/N] */
	int others[8], nothers;   /* versions other than v, in mbox order */
};

/* followups.c: adds a note (printf-like) to s; 0 / -1 out of memory */
int series_note(struct series *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* followups.c, in the order series_assemble() calls them; 0 / -1 out of
 * memory. The cover letter that has no [PATCH 0/N] but introduces the
 * patches (b4's rule) ... */
int find_naked_cover(struct assembly *a);
/* ... the trailers of replies to a patch or to the cover letter ... */
int collect_followups(struct assembly *a);
/* ... and the notes on what was not taken */
int note_left_out(struct assembly *a);
/* The error of an mbox with no patch in it, saying what it had */
void no_patches(const struct assembly *a, char **err);

#endif
