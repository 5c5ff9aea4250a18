// SPDX-License-Identifier: GPL-2.0-only
/* series_fuzz.c: libFuzzer target for the pure half of the mbox intake
 * (kernels/mbox.c, subject.c, diffstat.c, trailers.c, series.c): where
 * mailsplit would start messages, header unfolding, subject tags, diff
 * counting, trailers, and assembling a series out of messages as git
 * mailinfo would leave them. Any bytes must be handled without a fault,
 * and what is assembled must hold together. */
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/kernelsint.h"

#define MAX_MSGS 16

/* The next \x01-separated field of [*p, end) as a new string */
static char *field(const char **p, const char *end)
{
	const char *s = *p, *e = memchr(s, 1, (size_t)(end - s));
	size_t n = e ? (size_t)(e - s) : (size_t)(end - s);
	char *out = malloc(n + 1);

	if (!out)
		abort();
	memcpy(out, s, n);
	out[n] = '\0';
	*p = e ? e + 1 : end;
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	struct series_msg msgs[MAX_MSGS];
	struct series_trailer *t;
	struct series *s = NULL;
	unsigned lines[8];
	size_t n = 0, nt, count;
	char *err = NULL, *h;
	struct series_tags tags;
	int files, ins, del;

	/* the raw bytes as an mbox and a mail */
	count = series_mbox_lines(p, size, lines, 8);
	for (size_t i = 1; i < count && i < 8; i++)
		if (lines[i] <= lines[i - 1])
			abort();
	h = series_header(p, size, "Subject");
	free(h);

	/* then as messages: subject \1 author \1 body \1 patch \1 parent \1 ...,
	 * the Message-Id of each its number, so that parents ("1", "2") can
	 * name one another: replies, partial rerolls, naked cover letters */
	memset(msgs, 0, sizeof(msgs));
	while (p < end && n < MAX_MSGS) {
		struct series_msg *m = &msgs[n++];

		m->subject = field(&p, end);
		m->author = p < end ? field(&p, end) : NULL;
		m->body = p < end ? field(&p, end) : NULL;
		m->patch = p < end ? field(&p, end) : NULL;
		m->in_reply_to = p < end ? field(&p, end) : NULL;
		if (asprintf(&m->msgid, "%zu", n) < 0)
			abort();
		m->email = strdup("a@x");
		m->line = (unsigned)n;
		series_subject_parse(m->subject, &tags);
		if (strlen(tags.title) > strlen(m->subject))
			abort();
		if (series_trailers(m->body, &t, &nt) == 0)
			series_trailers_free(t, nt);
		if (series_diffstat(m->patch, &files, &ins, &del, &err) < 0 && !err)
			abort();
		free(err);
		err = NULL;
	}
	if (series_assemble("fuzz.mbox", msgs, n, &s, &err) == 0) {
		if (!s || s->count < 1 || s->count > SERIES_PATCHES_MAX || err)
			abort();
		for (int i = 0; i < s->count; i++) {
			const struct series_patch *sp = &s->patches[i];

			if (sp->index != i + 1 || !sp->has_diff || sp->version > s->version ||
			    (sp->version != s->version && !s->partial))
				abort();
			for (size_t k = 0; k < sp->nfollowups; k++)
				if (!sp->followups[k].msgid)
					abort();
		}
		series_free(s);
	} else if (!err) {
		abort();
	}
	free(err);
	for (size_t i = 0; i < n; i++)
		series_msg_release(&msgs[i]);
	return 0;
}
