// SPDX-License-Identifier: GPL-2.0-only
/* series_test.c: unit tests for kernels/series.c: whole mboxes through
 * git mailsplit and mailinfo (kernels/mbox.c; the fixtures in
 * t/data/series/, made with git format-patch, and generated ones for each
 * refusal), assembling messages without git, and the JSON and `kfleet
 * series show` output against golden files. The pure parts have tests of
 * their own: subject_test.c, mbox_test.c, diffstat_test.c, trailers_test.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "common/buf.h"
#include "common/util.h"
#include "kernels/kernels.h"
#include "kernels/kernelsint.h"
#include "cli/cli.h"
#include "t/unit/testutil.h"

#define FIX "t/data/series/"

/* ---- fixtures ---- */

static struct series *parse_ok(const char *name)
{
	struct series *s = NULL;
	char *err = NULL;

	if (series_parse_mbox(name, &s, &err) < 0)
		fail_msg("%s: %s", name, err ? err : "(no message)");
	assert_null(err);
	assert_non_null(s);
	return s;
}

/* want: the message; a series whose only fault is patches missing is
 * SERIES_INCOMPLETE (a thread still arriving), anything else -1 */
static void parse_fails(const char *name, const char *want)
{
	struct series *s = (struct series *)1;
	char *err = NULL;

	assert_int_equal(series_parse_mbox(name, &s, &err),
			 strstr(want, " missing") ? SERIES_INCOMPLETE : -1);
	assert_null(s);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

static void check_trailer(const struct series_patch *p, size_t i, const char *key,
			  const char *value)
{
	assert_true(i < p->ntrailers);
	assert_string_equal(p->trailers[i].key, key);
	assert_string_equal(p->trailers[i].value, value);
}

/* The v4 series as both fixtures carry it */
static void check_bpf_next_v4(const struct series *s)
{
	const struct series_patch *p;

	assert_int_equal(s->version, 4);
	assert_string_equal(s->tree, "bpf-next");
	assert_false(s->rfc);
	assert_int_equal(s->count, 3);
	assert_string_equal(s->base_commit, "4c60f8794efceee6046a7508102b5696ea39d4d4");
	assert_string_equal(s->base_commit_from, "the cover letter");
	assert_string_equal(s->change_id, "20240226-spill-mem-7c1e0b2f9a41");
	assert_string_equal(s->change_id_from, "the cover letter");
	assert_non_null(s->cover);
	assert_int_equal(s->cover->index, 0);
	assert_string_equal(s->cover->subject, "[PATCH bpf-next v4 0/3] bpf: spill PTR_TO_MEM and "
			    "arena registers");
	assert_string_equal(s->cover->title, "bpf: spill PTR_TO_MEM and arena registers");
	assert_string_equal(s->cover->msgid, "cover.1796032635.git.alice@example.org");
	assert_int_equal(s->cover->ntrailers, 0);

	p = &s->patches[0];
	assert_int_equal(p->index, 1);
	/* the folded Subject: header, unfolded */
	assert_string_equal(p->subject, "[PATCH bpf-next v4 1/3] bpf: allow spilling PTR_TO_MEM "
			    "and PTR_TO_ARENA registers");
	assert_string_equal(p->title, "bpf: allow spilling PTR_TO_MEM and PTR_TO_ARENA registers");
	assert_string_equal(p->author, "Alice Kernel");
	assert_string_equal(p->email, "alice@example.org");
	assert_string_equal(p->date, "Mon, 4 Mar 2024 09:12:00 +0100");
	assert_string_equal(p->msgid, "6484c04b817f692856dc5ed64c094f2f73cc0123.1796032635.git."
			    "alice@example.org");
	assert_true(p->has_diff);
	assert_int_equal(p->files, 1);
	assert_int_equal(p->insertions, 2);
	assert_int_equal(p->deletions, 0);
	assert_int_equal(p->ntrailers, 4);
	check_trailer(p, 0, "Fixes", "27ae7997a661 (\"bpf: introduce BPF_PROG_TYPE_STRUCT_OPS\")");
	check_trailer(p, 1, "Signed-off-by", "Alice Kernel <alice@example.org>");
	check_trailer(p, 2, "Acked-by", "Eduard Zingerman <eddyz87@example.com>");
	check_trailer(p, 3, "Reviewed-by", "Yonghong Song <yonghong.song@example.dev>");
	assert_non_null(p->mail);
	assert_true(p->mail_len > 100);
	assert_memory_equal(p->mail, "From ", 5);

	p = &s->patches[1];
	assert_string_equal(p->title, "bpf: export bpf_reg_is_spillable() for the JIT");
	assert_int_equal(p->files, 2);
	assert_int_equal(p->insertions, 2);
	assert_int_equal(p->deletions, 1);
	check_trailer(p, 1, "Tested-by", "Björn Töpel <bjorn@example.com>");

	p = &s->patches[2];
	assert_string_equal(p->title, "selftests/bpf: test spilling PTR_TO_MEM registers");
	assert_int_equal(p->files, 2);
	assert_int_equal(p->insertions, 10);
	assert_int_equal(p->deletions, 0);
	assert_int_equal(p->ntrailers, 2);
}

static void test_fixture_bpf_next_v4(void **state)
{
	struct series *s = parse_ok(FIX "bpf-next-v4.mbox");

	check_bpf_next_v4(s);
	assert_string_equal(s->name, FIX "bpf-next-v4.mbox");
	assert_int_equal(s->messages, 4);
	assert_int_equal(s->others, 0);
	assert_int_equal(s->nnotes, 0);
	assert_int_equal(s->cover->line, 1);
	assert_int_equal(s->patches[0].line, 44);
	series_free(s);
}

static void test_fixture_thread_replies(void **state)
{
	struct series *s = parse_ok(FIX "thread-replies.mbox");

	/* three replies (one with a suggested diff, one from a bot) left out */
	check_bpf_next_v4(s);
	assert_int_equal(s->messages, 7);
	assert_int_equal(s->others, 3);
	assert_int_equal(s->cover->line, 1);
	assert_int_equal(s->patches[0].line, 48);
	assert_int_equal(s->patches[1].line, 129);
	assert_int_equal(s->patches[2].line, 214);
	/* mboxrd: the escaped ">From " line came back as it was */
	assert_non_null(strstr(s->patches[0].mail, "\nFrom the verifier's point of view"));
	series_free(s);
}

static void test_fixture_encoded(void **state)
{
	struct series *s = parse_ok(FIX "encoded.mbox");
	const struct series_patch *p;

	/* quoted-printable body and RFC 2047 From: (1/2), base64 body (2/2) */
	assert_int_equal(s->count, 2);
	assert_null(s->cover);
	assert_string_equal(s->tree, "net");
	assert_int_equal(s->version, 1);
	assert_string_equal(s->base_commit, "581b12351bb5ce44f8f2989438e0e472e70cef45");
	assert_string_equal(s->base_commit_from, "patch 1/2");
	assert_null(s->change_id);
	p = &s->patches[0];
	assert_string_equal(p->author, "Björn Töpel");
	assert_string_equal(p->title, "riscv, bpf: name the global and thread pointer registers");
	assert_int_equal(p->insertions, 2);
	check_trailer(p, 0, "Signed-off-by", "Björn Töpel <bjorn@example.com>");
	p = &s->patches[1];
	assert_string_equal(p->author, "Björn Töpel");
	assert_string_equal(p->title, "riscv, bpf: name the first scratch register");
	assert_int_equal(p->files, 1);
	assert_int_equal(p->insertions, 3);
	assert_int_equal(p->ntrailers, 3);
	check_trailer(p, 2, "Tested-by", "Ça Tëst <ca.test@example.fr>");
	series_free(s);
}

static void test_fixture_rfc_single(void **state)
{
	struct series *s = parse_ok(FIX "rfc-v2.mbox");

	assert_true(s->rfc);
	assert_int_equal(s->version, 2);
	assert_int_equal(s->count, 2);
	assert_null(s->tree);
	assert_string_equal(s->patches[0].subject, "[RFC PATCH v2 1/2] bpf: export "
			    "bpf_reg_is_spillable() for the JIT");
	assert_string_equal(s->base_commit_from, "patch 1/2");
	series_free(s);

	/* [PATCH] without a number and without a cover letter */
	s = parse_ok(FIX "single.mbox");
	assert_int_equal(s->count, 1);
	assert_int_equal(s->version, 1);
	assert_null(s->tree);
	assert_null(s->cover);
	assert_int_equal(s->patches[0].index, 1);
	assert_string_equal(s->patches[0].title, "bpf: allow spilling PTR_TO_MEM and PTR_TO_ARENA "
			    "registers");
	assert_string_equal(s->base_commit, "4c60f8794efceee6046a7508102b5696ea39d4d4");
	assert_int_equal(s->nnotes, 0);
	series_free(s);
}

static void test_fixture_versions_thread(void **state)
{
	struct series *s = parse_ok(FIX "versions-thread.mbox");

	/* v3 and v4, both complete: v4 taken, and said */
	check_bpf_next_v4(s);
	assert_int_equal(s->messages, 8);
	assert_int_equal(s->others, 4);
	assert_int_equal(s->nnotes, 1);
	assert_string_equal(s->notes[0], "the mbox holds v3 and v4: took v4, the newest complete "
			    "version");
	series_free(s);
}

static void test_fixture_refusals(void **state)
{
	parse_fails(FIX "missing-patch.mbox", FIX "missing-patch.mbox: patch 2/3 is missing");
	parse_fails(FIX "mixed-versions.mbox", FIX "mixed-versions.mbox:70: patch 2/3 is v4 but "
		    "the cover letter is v3: patches from two versions");
	parse_fails(FIX "no-diff.mbox", FIX "no-diff.mbox:81: patch 2/3 has no diff");
	parse_fails(FIX "truncated.mbox", FIX "truncated.mbox:44: patch 1/3: the diff of "
		    "'kernel/bpf/verifier.c' is cut short (it ends inside a hunk)");
	parse_fails(FIX "malformed.mbox", FIX "malformed.mbox:44: not a mail (no From: or "
		    "Subject: header)");
	parse_fails(FIX "no-such.mbox", FIX "no-such.mbox: No such file or directory");
}

/* ---- real mboxes' shapes (issue 15), against what b4 does with each ----
 * b4's own samples (mricon/b4 src/tests/samples: naked-cover-single,
 * naked-cover-bugreport, trailers-followup-*) and its LoreMailbox rules are
 * the reference; the fixtures are kfleet's own mails of the same shapes. */

static void check_followup(const struct series_patch *p, size_t i, const char *key,
			   const char *value, const char *msgid)
{
	assert_true(i < p->nfollowups);
	assert_string_equal(p->followups[i].key, key);
	assert_string_equal(p->followups[i].value, value);
	assert_string_equal(p->followups[i].msgid, msgid);
}

static void test_fixture_reply_no_re(void **state)
{
	struct series *s = parse_ok(FIX "reply-no-re.mbox");

	/* A reply that kept "[PATCH] ..." without Re:, In-Reply-To the
	 * patch, no diff. b4: a follow-up (trailers, a parent, no diff), its
	 * Reviewed-by: collected onto the patch; a trailer naming someone
	 * else than the sender is a mismatch, not applied. kfleet: the same,
	 * the followups kept apart from the patch's own trailers (kfleet
	 * applies the mail as sent) and the mismatch said in a note. Before:
	 * "patch 2/2 has no diff". */
	assert_int_equal(s->count, 1);
	assert_int_equal(s->messages, 3);
	assert_int_equal(s->others, 2);
	assert_string_equal(s->patches[0].msgid, "w1@example.net");
	assert_int_equal(s->patches[0].ntrailers, 1);
	assert_int_equal(s->patches[0].nfollowups, 1);
	check_followup(&s->patches[0], 0, "Reviewed-by", "Rui Review <rui@example.com>",
		       "r1@example.com");
	assert_int_equal(s->nnotes, 1);
	assert_string_equal(s->notes[0], FIX "reply-no-re.mbox:26: 'Acked-by: Somebody Else "
			    "<else@example.org>' in a reply from Rui Review <rui@example.com> is "
			    "not the sender's: left out");
	series_free(s);
}

static void test_fixture_partial_reroll(void **state)
{
	struct series *s = parse_ok(FIX "partial-reroll.mbox");

	/* v2 0/2, 1/2, 2/2, then only v3 2/2 (a reply to v2 2/2). b4:
	 * "Partial reroll detected, reconstituting from v2": v3 of 1/2 is
	 * v2's, the cover letter too. kfleet: the same, each patch saying
	 * its version. Before: "patch 2/2 is v3 but the cover letter is v2:
	 * patches from two versions". */
	assert_int_equal(s->version, 3);
	assert_true(s->partial);
	assert_int_equal(s->count, 2);
	assert_non_null(s->cover);
	assert_int_equal(s->cover->version, 2);
	assert_string_equal(s->cover->msgid, "v2-0@example.net");
	assert_int_equal(s->patches[0].version, 2);
	assert_string_equal(s->patches[0].msgid, "v2-1@example.net");
	assert_int_equal(s->patches[1].version, 3);
	assert_string_equal(s->patches[1].msgid, "v3-2@example.net");
	assert_non_null(strstr(s->patches[1].mail, "not three"));
	/* the review of v3 2/2 is 2/2's; the question on v2 2/2 gave nothing */
	check_followup(&s->patches[1], 0, "Reviewed-by", "Rui Review <rui@example.com>",
		       "r3@example.com");
	assert_int_equal(s->patches[0].nfollowups, 0);
	assert_string_equal(s->base_commit, "0123456789abcdef0123456789abcdef01234567");
	assert_int_equal(s->others, 3);
	assert_int_equal(s->nnotes, 1);
	assert_string_equal(s->notes[0], "v3 is a partial reroll: the cover letter from v2, "
			    "patch 1/2 from v2 (the newest of each)");
	series_free(s);
}

static void test_fixture_naked_cover(void **state)
{
	struct series *s = parse_ok(FIX "naked-cover.mbox");

	/* The author's first mail, no [PATCH 0/N], no diffstat; the patch
	 * replies to it. b4 (naked-cover-single): the cover letter. kfleet:
	 * the same; its base-commit is the series', the tree tag comes from
	 * the patch, and the ack given to it stays the cover letter's (b4
	 * spreads cover letter trailers over the patches only when asked). */
	assert_non_null(s->cover);
	assert_string_equal(s->cover->msgid, "nc0@example.net");
	assert_string_equal(s->cover->title, "lib: make the widget agree");
	assert_string_equal(s->tree, "net");
	assert_string_equal(s->base_commit_from, "the cover letter");
	assert_int_equal(s->count, 1);
	assert_int_equal(s->others, 1);
	check_followup(s->cover, 0, "Acked-by", "Rui Review <rui@example.com>", "nc2@example.com");
	assert_string_equal(s->notes[0], FIX "naked-cover.mbox:1: 'lib: make the widget agree' "
			    "taken as the cover letter: patch 1/1 replies to it, and it is from "
			    "the same author");
	series_free(s);

	/* someone else's bug report that the patch answers. b4
	 * (naked-cover-bugreport): not a cover letter. kfleet: the same. */
	s = parse_ok(FIX "naked-bugreport.mbox");
	assert_null(s->cover);
	assert_int_equal(s->count, 1);
	assert_int_equal(s->others, 1);
	assert_int_equal(s->nnotes, 0);
	series_free(s);
}

static void test_fixture_charsets(void **state)
{
	struct series *s = parse_ok(FIX "charsets.mbox");
	json_t *j;
	char *text;

	/* b4 decodes headers with Python's email package (unknown charsets
	 * as bytes with replacement). kfleet: git decodes the charsets iconv
	 * knows; what is not UTF-8 after that is kept as \xNN and marked.
	 * Before: git mailinfo was asked --encoding=UTF-8, which git 2.29+
	 * ignores, so latin-1 came out raw and the JSON failed ("out of
	 * memory"); an unknown charset made mailinfo fail. */
	assert_string_equal(s->patches[0].title, "lib: café in latin-1, encoded");
	assert_int_equal(s->patches[0].lossy, 0);
	assert_string_equal(s->patches[1].title, "lib: caf\\xE9 in latin-1, raw bytes");
	assert_string_equal(s->patches[1].author, "Jörg Dev");
	assert_int_equal(s->patches[1].lossy, SERIES_LOSSY_SUBJECT);
	assert_string_equal(s->patches[2].title, "lib: caf\\xE9 in a charset nobody knows");
	assert_true(s->patches[2].lossy & SERIES_LOSSY_CHARSET);
	assert_true(s->patches[2].lossy & SERIES_LOSSY_BODY);
	/* the mails themselves, for git am, are as they were sent */
	assert_non_null(memmem(s->patches[1].mail, s->patches[1].mail_len, "caf\xe9 in", 6));
	assert_int_equal(s->nnotes, 2);
	assert_string_equal(s->notes[0], FIX "charsets.mbox:26: patch 2/3: its subject is not "
			    "UTF-8: those bytes shown as \\xNN");
	j = series_json(s);
	assert_non_null(j);
	text = json_dumps(j, JSON_COMPACT);
	assert_non_null(text);
	assert_non_null(strstr(text, "\"not_utf8\":[\"subject\"]"));
	free(text);
	json_decref(j);
	series_free(s);
}

/* ---- generated mboxes ---- */

/* Appends one mail to b; diff NULL for none */
static void mail(struct buf *b, const char *subject, const char *body, const char *diff)
{
	static int n;

	n++;
	buf_printf(b, "From %040d Mon Sep 17 00:00:00 2001\n"
		   "From: Dev One <dev@example.org>\n"
		   "Date: Mon, 4 Mar 2024 09:12:00 +0100\n"
		   "Message-Id: <m%d@example.org>\n"
		   "Subject: %s\n\n%s\n", n, n, subject, body);
	if (diff)
		buf_printf(b, "---\n%s", diff);
	buf_puts(b, "-- \n2.39.5\n\n");
}

#define DIFF "diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n"
#define SOB  "Signed-off-by: Dev One <dev@example.org>\n"

static void mem_fails(const struct buf *b, const char *want)
{
	struct series *s = NULL;
	char *err = NULL;

	assert_int_equal(series_parse_mem("gen.mbox", buf_str(b), b->len, &s, &err),
			 strstr(want, " missing") ? SERIES_INCOMPLETE : -1);
	assert_null(s);
	assert_non_null(err);
	assert_string_equal(err, want);
	free(err);
}

static struct series *mem_ok(const struct buf *b)
{
	struct series *s = NULL;
	char *err = NULL;

	if (series_parse_mem("gen.mbox", buf_str(b), b->len, &s, &err) < 0)
		fail_msg("%s", err);
	return s;
}

static void test_refusals(void **state)
{
	struct buf b = BUF_INIT(0);
	struct series *s;

	/* a patch twice */
	mail(&b, "[PATCH 1/2] a", SOB, DIFF);
	mail(&b, "[PATCH 1/2] a again", SOB, DIFF);
	mail(&b, "[PATCH 2/2] b", SOB, DIFF);
	mem_fails(&b, "gen.mbox:19: patch 1/2 appears twice (also at line 1)");

	/* counts that disagree */
	buf_reset(&b);
	mail(&b, "[PATCH 1/3] a", SOB, DIFF);
	mail(&b, "[PATCH 2/4] b", SOB, DIFF);
	mem_fails(&b, "gen.mbox:19: patch 2/4 says 4 patches, patch 1/3 says 3");

	/* a number beyond the count */
	buf_reset(&b);
	mail(&b, "[PATCH 1/1] a", SOB, DIFF);
	mail(&b, "[PATCH 2/1] b", SOB, DIFF);
	mem_fails(&b, "gen.mbox:19: patch 2/1: its number is larger than the count");

	/* a cover letter and nothing else */
	buf_reset(&b);
	mail(&b, "[PATCH v2 0/3] cover", "text", NULL);
	mem_fails(&b, "gen.mbox: patches 1/3, 2/3, 3/3 are missing");

	/* only talk */
	buf_reset(&b);
	mail(&b, "Re: [PATCH 1/2] a", "> quoted\nreply", NULL);
	mail(&b, "a question", "what about it?", NULL);
	mem_fails(&b, "gen.mbox: no patches in it (2 mails, none with a diff or a [PATCH] "
		  "subject)");

	/* [PATCH] with no diff */
	buf_reset(&b);
	mail(&b, "[PATCH] words only", SOB, NULL);
	mem_fails(&b, "gen.mbox:1: patch 1/1 has no diff");
	/* ... that replies to another mail: a reply, said so */
	buf_reset(&b);
	buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nSubject: [PATCH] words\n"
		 "In-Reply-To: <elsewhere@x>\n\nReviewed-by: A <a@x>\n");
	mem_fails(&b, "gen.mbox:1: '[PATCH] words' has no diff (and replies to another mail): "
		  "no patches in it");

	/* too many */
	buf_reset(&b);
	for (int i = 1; i <= SERIES_PATCHES_MAX + 1; i++)
		buf_printf(&b, "From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH %d/%d] p\n\n",
			   i, SERIES_PATCHES_MAX + 1);
	mem_fails(&b, "gen.mbox:1: patch 1/501: more than 500 patches");
	buf_reset(&b);
	for (int i = 1; i <= SERIES_PATCHES_MAX + 1; i++)
		buf_printf(&b, "From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH] p%d\n\n%s", i,
			   DIFF);
	mem_fails(&b, "gen.mbox:4501: more than 500 patches (this is patch 501, none has N/M)");
	buf_reset(&b);
	for (int i = 0; i <= SERIES_MESSAGES_MAX; i++)
		buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\n\n");
	mem_fails(&b, "gen.mbox: more than 5000 mails");

	/* not mail at all */
	buf_reset(&b);
	buf_puts(&b, "just some text\nthat is not mail\n");
	mem_fails(&b, "gen.mbox:1: not a mail (no From: or Subject: header)");
	buf_reset(&b);
	buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nSubject: x\n\nnul \0 inside\n");
	b.len = 60;
	mem_fails(&b, "gen.mbox:4: a NUL byte: not an mbox");
	buf_reset(&b);
	buf_puts(&b, "\n \n");
	mem_fails(&b, "gen.mbox: empty");
	mem_fails(&(struct buf)BUF_INIT(0), "gen.mbox: empty");

	/* patches without N/M, in mbox order, with a note */
	buf_reset(&b);
	mail(&b, "[PATCH v3] first", SOB, DIFF);
	mail(&b, "Re: [PATCH v3] first", "looks good", NULL);
	mail(&b, "[PATCH v3] second", SOB, DIFF);
	s = mem_ok(&b);
	assert_int_equal(s->count, 2);
	assert_int_equal(s->version, 3);
	assert_string_equal(s->patches[1].title, "second");
	assert_int_equal(s->patches[1].index, 2);
	assert_int_equal(s->others, 1);
	assert_string_equal(s->notes[0], "2 patches without N/M in their subjects: taken in mbox "
			    "order");
	series_free(s);

	/* an untagged patch in a numbered thread is left out, and said; a
	 * base-commit that is no commit id is ignored, and said */
	buf_reset(&b);
	mail(&b, "[PATCH 1/1] numbered", SOB, DIFF "\nbase-commit: v6.8-rc1\n");
	mail(&b, "[PATCH] stray", SOB, DIFF);
	s = mem_ok(&b);
	assert_int_equal(s->count, 1);
	assert_null(s->base_commit);
	assert_int_equal(s->nnotes, 2);
	assert_string_equal(s->notes[0], "base-commit 'v6.8-rc1' (patch 1/1) is not a commit id: "
			    "ignored");
	assert_string_equal(s->notes[1], "gen.mbox:21: '[PATCH] stray' has no N/M in a numbered "
			    "series: left out");
	series_free(s);
	buf_release(&b);
}

static void test_limits_early(void **state)
{
	struct buf b = BUF_INIT(0);
	int64_t t0;

	/* 4999 mails of [PATCH i/4999] (and, late, one that is no mail):
	 * refused on the first mail's subject, before git reads any.
	 * Before: git mailinfo ran 4999 times (17 s), then the mail that is
	 * no mail was what was said. b4 has no limit. */
	for (int i = 1; i <= 4999; i++)
		if (i == 4000)
			buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nX-Junk: 1\n\n");
		else
			buf_printf(&b, "From x Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\n"
				   "Subject: [PATCH %d/4999] p\n\n%s", i, DIFF);
	t0 = mono_ms();
	mem_fails(&b, "gen.mbox:1: patch 1/4999: more than 500 patches");
	assert_true(mono_ms() - t0 < 5000);
	buf_release(&b);
}

static void test_partial_reroll_refused(void **state)
{
	struct buf b = BUF_INIT(0);
	struct series *s;

	/* v2 1/2, 2/2, then a v3 2/2 that replies to nothing: b4 does not
	 * take it for a partial reroll (its patches must reply to the ones
	 * they replace) and reports v3 incomplete; kfleet refuses, as before */
	buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nMessage-Id: <a1@x>\n"
		 "Subject: [PATCH v2 1/2] a\n\n" SOB "---\n" DIFF);
	buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nMessage-Id: <a2@x>\n"
		 "In-Reply-To: <a1@x>\nSubject: [PATCH v2 2/2] b\n\n" SOB "---\n" DIFF);
	buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nFrom: A <a@x>\nMessage-Id: <b2@x>\n"
		 "Subject: [PATCH v3 2/2] b\n\n" SOB "---\n" DIFF);
	mem_fails(&b, "gen.mbox:28: patch 2/2 is v3 but patch 1/2 is v2: patches from two "
		  "versions");
	/* the same v3 2/2 as a reply to v2 2/2 (git send-email --in-reply-to):
	 * one, up the thread through a review, is as good as b4 has it */
	b.len -= strlen("Subject: [PATCH v3 2/2] b\n\n" SOB "---\n" DIFF);
	b.data[b.len] = '\0';
	buf_puts(&b, "In-Reply-To: <r@x>\nSubject: [PATCH v3 2/2] b\n\n" SOB "---\n" DIFF);
	buf_puts(&b, "From x Mon Sep 17 00:00:00 2001\nFrom: R <r@x>\nMessage-Id: <r@x>\n"
		 "In-Reply-To: <a2@x>\nSubject: Re: [PATCH v2 2/2] b\n\nno\n");
	s = mem_ok(&b);
	assert_true(s->partial);
	assert_int_equal(s->patches[0].version, 2);
	assert_int_equal(s->patches[1].version, 3);
	assert_null(s->cover);
	assert_string_equal(s->notes[0], "v3 is a partial reroll: patch 1/2 from v2 (the newest "
			    "of each)");
	series_free(s);
	buf_release(&b);
}

static void test_too_big(void **state)
{
	char dir[128], *path;
	size_t n = SERIES_MBOX_MAX + 1;
	char *big = malloc(n);
	struct series *s = NULL;
	char *err = NULL;
	int fd;

	assert_non_null(big);
	memset(big, 'x', n);
	assert_int_equal(series_parse_mem("big.mbox", big, n, &s, &err), -1);
	assert_string_equal(err, "big.mbox: larger than 64 MiB");
	free(err);
	free(big);

	tu_tmpdir(dir, sizeof(dir), "series");
	path = tu_path(dir, "big.mbox");
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)n), 0);
	close(fd);
	assert_int_equal(series_parse_mbox(path, &s, &err), -1);
	assert_non_null(strstr(err, "big.mbox: larger than 64 MiB"));
	free(err);
	free(path);
	tu_rmrf(dir);
}

/* ---- assembling without git ---- */

static void test_assemble_direct(void **state)
{
	struct series_msg m[2];
	struct series *s = NULL;
	char *err = NULL;

	/* fields may be missing; what is kept moves out of the messages */
	memset(m, 0, sizeof(m));
	m[0].subject = strdup("[PATCH 1/1] x");
	m[0].author = strdup("A");
	m[0].patch = strdup(DIFF);
	m[1].body = strdup("no headers at all");
	assert_int_equal(series_assemble("direct", m, 1, &s, &err), 0);
	assert_null(m[0].subject);
	assert_string_equal(s->patches[0].subject, "[PATCH 1/1] x");
	assert_string_equal(s->patches[0].email, "");
	assert_string_equal(s->patches[0].msgid, "");
	series_free(s);
	assert_int_equal(series_assemble("direct", m, 2, &s, &err), -1);
	assert_string_equal(err, "direct: not a mail (no From: or Subject: header)");
	free(err);
	assert_int_equal(series_assemble("direct", m, 0, &s, &err), -1);
	assert_string_equal(err, "direct: no mail in it");
	free(err);
	series_msg_release(&m[0]);
	series_msg_release(&m[1]);
	series_free(NULL);
}

/* ---- JSON and `kfleet series show` ---- */

static void test_json_golden(void **state)
{
	struct series *s = parse_ok(FIX "bpf-next-v4.mbox");
	json_t *j = series_json(s);
	char *text;

	assert_non_null(j);
	text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	assert_non_null(text);
	tu_golden("series/bpf-next-v4.json", text, strlen(text));
	free(text);
	json_decref(j);
	series_free(s);
}

static int run_cli(char **argv, int argc, char **out, char **errout)
{
	return tu_run_captured(cli_series, argv, argc, out, errout);
}

static void test_cli_show(void **state)
{
	char *show[] = { "series", "show", "--mbox", FIX "thread-replies.mbox", NULL };
	char *json[] = { "series", "show", "--json", "--mbox", FIX "bpf-next-v4.mbox", NULL };
	char *bad[] = { "series", "show", "--mbox", FIX "missing-patch.mbox", NULL };
	char *reroll[] = { "series", "show", "--mbox", FIX "partial-reroll.mbox", NULL };
	char *reroll_json[] = { "series", "show", "--json", "--mbox", FIX "partial-reroll.mbox",
				NULL };
	char *latin_json[] = { "series", "show", "--json", "--mbox", FIX "charsets.mbox", NULL };
	char *two[] = { "series", "show", "--mbox", "a", "--url", "http://x/", NULL };
	char *none[] = { "series", "show", NULL };
	char *other[] = { "series", "apply", NULL };
	char *out, *err;
	json_t *j;

	assert_int_equal(run_cli(show, 4, &out, &err), 0);
	assert_string_equal(err, "");
	tu_golden("series/thread-replies.show", out, strlen(out));
	free(out);
	free(err);

	assert_int_equal(run_cli(json, 5, &out, &err), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_int_equal(json_integer_value(json_object_get(j, "version")), 4);
	assert_string_equal(json_string_value(json_object_get(j, "source")),
			    FIX "bpf-next-v4.mbox");
	assert_int_equal(json_array_size(json_object_get(j, "patches")), 3);
	json_decref(j);
	free(out);
	free(err);

	/* a partial reroll: which version each patch is of, in text and JSON */
	assert_int_equal(run_cli(reroll, 4, &out, &err), 0);
	assert_non_null(strstr(out, "version:     v3 (a partial reroll: cover v2, 1/2 v2)\n"));
	assert_non_null(strstr(out, "\n1/2 [v2] lib: widget returns one ("));
	assert_non_null(strstr(out, "\n2/2 lib: gadget returns two ("));
	assert_non_null(strstr(out, "    Reviewed-by: Rui Review <rui@example.com> (in reply "
			       "<r3@example.com>)\n"));
	free(out);
	free(err);
	assert_int_equal(run_cli(reroll_json, 5, &out, &err), 0);
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	assert_true(json_is_true(json_object_get(j, "partial_reroll")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(
		json_object_get(j, "patches"), 0), "version")), 2);
	json_decref(j);
	free(out);
	free(err);
	/* a subject that is not UTF-8: JSON all the same (it said "out of memory") */
	assert_int_equal(run_cli(latin_json, 5, &out, &err), 0);
	assert_string_equal(err, "");
	j = json_loads(out, 0, NULL);
	assert_non_null(j);
	json_decref(j);
	free(out);
	free(err);

	assert_int_equal(run_cli(bad, 4, &out, &err), 2);
	assert_string_equal(out, "");
	assert_string_equal(err, "kfleet: series show: " FIX "missing-patch.mbox: patch 2/3 is "
			    "missing\n");
	free(out);
	free(err);

	assert_int_equal(run_cli(two, 6, &out, &err), 2);
	assert_non_null(strstr(err, "give one of --mbox, --url, --msgid, --patchwork"));
	free(out);
	free(err);
	assert_int_equal(run_cli(none, 2, &out, &err), 2);
	free(out);
	free(err);
	assert_int_equal(run_cli(other, 2, &out, &err), 2);
	assert_non_null(strstr(err, "'apply' is not a series command"));
	free(out);
	free(err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_bpf_next_v4),
		cmocka_unit_test(test_fixture_thread_replies),
		cmocka_unit_test(test_fixture_encoded),
		cmocka_unit_test(test_fixture_rfc_single),
		cmocka_unit_test(test_fixture_versions_thread),
		cmocka_unit_test(test_fixture_refusals),
		cmocka_unit_test(test_fixture_reply_no_re),
		cmocka_unit_test(test_fixture_partial_reroll),
		cmocka_unit_test(test_fixture_naked_cover),
		cmocka_unit_test(test_fixture_charsets),
		cmocka_unit_test(test_limits_early),
		cmocka_unit_test(test_partial_reroll_refused),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_assemble_direct),
		cmocka_unit_test(test_json_golden),
		cmocka_unit_test(test_cli_show),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
