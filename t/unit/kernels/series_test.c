/* series_test.c: unit tests for kernels/series.c: the pure parts (subject
 * tags, message starts, headers, diff counting, trailers), whole mboxes
 * through git mailsplit and mailinfo (the fixtures in t/data/series/, made
 * with git format-patch, and generated ones for each refusal), and the
 * JSON and `kfleet series show` output against golden files. */
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
#include "kernels/kernels.h"
#include "kernels/kernelsint.h"
#include "cli/cli.h"
#include "t/unit/testutil.h"

#define FIX "t/data/series/"

/* ---- subject tags ---- */

struct subject_case {
	const char *subject;
	int reply, tagged, rfc, version, index, count;
	const char *tree, *title;
};

static void test_subject_parse(void **state)
{
	static const struct subject_case cases[] = {
		{ "[PATCH bpf-next v4 2/3] bpf: foo", 0, 1, 0, 4, 2, 3, "bpf-next", "bpf: foo" },
		{ "[RFC PATCH v2 1/2] mm: bar", 0, 1, 1, 2, 1, 2, "", "mm: bar" },
		{ "[PATCH 1/1] x86: one", 0, 1, 0, 0, 1, 1, "", "x86: one" },
		{ "[PATCH] net: single", 0, 1, 0, 0, -1, -1, "", "net: single" },
		{ "net: no tag at all", 0, 0, 0, 0, -1, -1, "", "net: no tag at all" },
		{ "Re: [PATCH bpf-next v4 2/3] bpf: foo", 1, 1, 0, 4, 2, 3, "bpf-next", "bpf: foo" },
		{ "RE: Re: [PATCH v2 net-next 03/10] tcp: x", 1, 1, 0, 2, 3, 10, "net-next",
		  "tcp: x" },
		{ "Fwd: [PATCH] a", 1, 1, 0, 0, -1, -1, "", "a" },
		{ "[PATCHv3 0/5] cover", 0, 1, 0, 3, 0, 5, "", "cover" },
		{ "[PATCH-v7 2/2] dash", 0, 1, 0, 7, 2, 2, "", "dash" },
		{ "[PATCH v2 RESEND 1/2] again", 0, 1, 0, 2, 1, 2, "", "again" },
		{ "[RFC][PATCH 1/2] two groups", 0, 1, 1, 0, 1, 2, "", "two groups" },
		{ "[PATCH 6.1 123/200] stable", 0, 1, 0, 0, 123, 200, "6.1", "stable" },
		{ "  [PATCH V5 bpf 1/2]   spaced", 0, 1, 0, 5, 1, 2, "bpf", "spaced" },
		{ "[GIT PULL] bpf-next 2024-03-04", 0, 0, 0, 0, -1, -1, "",
		  "[GIT PULL] bpf-next 2024-03-04" },
		{ "[syzbot] KASAN: use-after-free", 0, 0, 0, 0, -1, -1, "",
		  "[syzbot] KASAN: use-after-free" },
		{ "[PATCH v4 bpf-next 2/3 unclosed", 0, 0, 0, 0, -1, -1, "",
		  "[PATCH v4 bpf-next 2/3 unclosed" },
		{ "[PATCH 9999999/3] huge", 0, 1, 0, 0, -1, -1, "9999999/3", "huge" },
		{ "", 0, 0, 0, 0, -1, -1, "", "" },
	};
	struct series_tags t;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct subject_case *c = &cases[i];

		series_subject_parse(c->subject, &t);
		if (t.reply != c->reply || t.tagged != c->tagged || t.rfc != c->rfc ||
		    t.version != c->version || t.index != c->index || t.count != c->count ||
		    strcmp(t.tree, c->tree) || strcmp(t.title, c->title))
			fail_msg("'%s': got reply %d tagged %d rfc %d v%d %d/%d tree '%s' title '%s'",
				 c->subject, t.reply, t.tagged, t.rfc, t.version, t.index, t.count,
				 t.tree, t.title);
	}
	series_subject_parse(NULL, &t);
	assert_string_equal(t.title, "");
}

/* ---- mbox lines ---- */

static void test_mbox_lines(void **state)
{
	static const char mbox[] =
		"\n\n"
		"From 6484c04b817f692856dc5ed64c094f2f73cc0123 Mon Sep 17 00:00:00 2001\n"
		"Subject: one\n"
		"\n"
		"From the verifier's point of view: no date here\n"
		"From mboxrd@z Thu Jan  1 00:00:00 1970\n"
		"Subject: two\n"
		"\n"
		"body\n"
		"From x Mon Sep 17 00:00:00 1970\n";
	static const char bare[] = "Subject: a mail\n\nFrom abc Mon Sep 17 00:00:00 2001\n";
	static const char twodigit[] = "From x Mon Sep 17 00:00:00 89\nSubject: a\n";
	unsigned lines[4] = { 0 };

	assert_int_equal(series_mbox_lines(mbox, strlen(mbox), lines, 4), 3);
	assert_int_equal(lines[0], 3);
	assert_int_equal(lines[1], 7);
	assert_int_equal(lines[2], 11);
	/* a count beyond max, the first max filled */
	assert_int_equal(series_mbox_lines(mbox, strlen(mbox), lines, 1), 3);
	assert_int_equal(series_mbox_lines(mbox, strlen(mbox), NULL, 0), 3);
	/* no From line first: one message */
	assert_int_equal(series_mbox_lines(bare, strlen(bare), lines, 4), 1);
	assert_int_equal(lines[0], 1);
	/* git wants a year above 90 */
	assert_int_equal(series_mbox_lines(twodigit, strlen(twodigit), lines, 4), 1);
	assert_int_equal(series_mbox_lines("", 0, lines, 4), 0);
	assert_int_equal(series_mbox_lines(" \n\t\n", 4, lines, 4), 0);
	/* the last line without a newline, with a From line's shape */
	assert_int_equal(series_mbox_lines("From a Mon Sep 17 00:00:00 2001", 31, lines, 4), 1);
}

/* ---- headers ---- */

static void test_header(void **state)
{
	static const char mail[] =
		"From 0 Mon Sep 17 00:00:00 2001\n"
		"Message-Id: <abc@example.org>\r\n"
		"References: <a@x>\n"
		"\t<b@x>\n"
		"  <c@x>\n"
		"subject: lower case\n"
		"\n"
		"In-Reply-To: <not-a-header@body>\n";
	char *v;

	v = series_header(mail, strlen(mail), "Message-ID");
	assert_string_equal(v, "<abc@example.org>");
	free(v);
	v = series_header(mail, strlen(mail), "References");
	assert_string_equal(v, "<a@x> <b@x> <c@x>");
	free(v);
	v = series_header(mail, strlen(mail), "Subject");
	assert_string_equal(v, "lower case");
	free(v);
	assert_null(series_header(mail, strlen(mail), "In-Reply-To"));
	assert_null(series_header(mail, strlen(mail), "Message"));
	assert_null(series_header("", 0, "Subject"));
	/* only len bytes are read: a buffer without a NUL (found by the fuzzer) */
	{
		char raw[] = { 'S', 'u', 'b', 'j', 'e', 'c', 't', ':', ' ', ' ' };

		v = series_header(raw, sizeof(raw), "Subject");
		assert_string_equal(v, "");
		free(v);
	}
	/* cut in the middle of a header */
	v = series_header("Subject: cut", 12, "Subject");
	assert_string_equal(v, "cut");
	free(v);
}

/* ---- diffs ---- */

static void test_diffstat(void **state)
{
	static const char git[] =
		"---\n"
		" a.c | 3 ++-\n"
		" 1 file changed, 2 insertions(+), 1 deletion(-)\n"
		"\n"
		"diff --git a/a.c b/a.c\n"
		"index 1..2 100644\n"
		"--- a/a.c\n"
		"+++ b/a.c\n"
		"@@ -1,3 +1,4 @@\n"
		" int a;\n"
		"-int b;\n"
		"+int b = 1;\n"
		"+int c;\n"
		"\n"                    /* a context line whose space a mailer ate */
		"@@ -10 +11 @@ f()\n"
		"-x\n"
		"+y\n"
		"\\ No newline at end of file\n"
		"diff --git a/old.c b/new.c\n"
		"similarity index 100%\n"
		"rename from old.c\n"
		"rename to new.c\n"
		"diff --git a/blob.bin b/blob.bin\n"
		"GIT binary patch\n"
		"literal 3\n"
		"KcmZ>d\n"
		"\n"
		"-- \n"
		"2.39.5\n";
	static const char plain[] =
		"--- linux.orig/mm/x.c\n"
		"+++ linux/mm/x.c\n"
		"@@ -1,2 +1,2 @@\n"
		"-a\n"
		"+b\n"
		" c\n";
	static const char cut[] =
		"diff --git a/kernel/bpf/verifier.c b/kernel/bpf/verifier.c\n"
		"--- a/kernel/bpf/verifier.c\n"
		"+++ b/kernel/bpf/verifier.c\n"
		"@@ -1,3 +1,4 @@\n"
		" a\n"
		"+b\n";
	static const char overlong[] =
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n a\n b\n";
	static const char badhunk[] =
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,a +1 @@\n a\n";
	static const char junk[] =
		"diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\nthis is not a diff line\n";
	int files, ins, del;
	char *why = NULL;

	assert_int_equal(series_diffstat(git, &files, &ins, &del, &why), 0);
	assert_null(why);
	assert_int_equal(files, 3);
	assert_int_equal(ins, 3);
	assert_int_equal(del, 2);
	assert_int_equal(series_diffstat(plain, &files, &ins, &del, &why), 0);
	assert_int_equal(files, 1);
	assert_int_equal(ins, 1);
	assert_int_equal(del, 1);
	/* no diff: a diffstat alone, or nothing */
	assert_int_equal(series_diffstat("---\n a.c | 1 +\n", &files, &ins, &del, &why), 0);
	assert_int_equal(files, 0);
	assert_int_equal(series_diffstat(NULL, &files, &ins, &del, &why), 0);
	assert_int_equal(files, 0);

	assert_int_equal(series_diffstat(cut, &files, &ins, &del, &why), -1);
	assert_string_equal(why, "the diff of 'kernel/bpf/verifier.c' is cut short (it ends "
			    "inside a hunk)");
	free(why);
	assert_int_equal(series_diffstat(overlong, &files, &ins, &del, &why), -1);
	assert_string_equal(why, "the diff of 'x' is damaged (a hunk is longer than its header "
			    "says, line 6 of the diff)");
	free(why);
	assert_int_equal(series_diffstat(badhunk, &files, &ins, &del, &why), -1);
	assert_string_equal(why, "the diff of 'x' has a bad hunk header (line 4 of the diff)");
	free(why);
	assert_int_equal(series_diffstat(junk, &files, &ins, &del, &why), -1);
	assert_string_equal(why, "the diff of 'x' is cut short (a hunk ends early, line 6 of "
			    "the diff)");
	free(why);
	/* why may be NULL */
	assert_int_equal(series_diffstat(cut, &files, &ins, &del, NULL), -1);
}

/* ---- trailers ---- */

static void test_trailers(void **state)
{
	struct series_trailer *t;
	size_t n;

	assert_int_equal(series_trailers("Fix the thing.\n\nMore words here.\n\n"
					 "Fixes: 123456789abc (\"x: y\")\n"
					 "Reported-by: A <a@x>\n"
					 "Closes: https://lore.kernel.org/r/1\n"
					 "Signed-off-by: B <b@x>\n"
					 "Acked-by: C <c@x>\n\n\n", &t, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(t[0].key, "Fixes");
	assert_string_equal(t[0].value, "123456789abc (\"x: y\")");
	assert_string_equal(t[4].key, "Acked-by");
	assert_string_equal(t[4].value, "C <c@x>");
	series_trailers_free(t, n);

	/* a folded trailer; a maintainer's note among them */
	assert_int_equal(series_trailers("Body.\n\n"
					 "Signed-off-by: A <a@x>\n"
					 "Link: https://example.org/a/very/long\n"
					 "  /continued\n"
					 "[bob: reworded the subject]\n"
					 "Signed-off-by: Bob <bob@x>\n", &t, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(t[1].value, "https://example.org/a/very/long /continued");
	assert_string_equal(t[2].value, "Bob <bob@x>");
	series_trailers_free(t, n);

	/* the whole body is the trailer block */
	assert_int_equal(series_trailers("Signed-off-by: A <a@x>\r\nTested-by: T <t@x>\r\n",
					 &t, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[1].value, "T <t@x>");
	series_trailers_free(t, n);

	/* an empty value, its space and CR trimmed (found by the fuzzer) */
	assert_int_equal(series_trailers("Body.\n\nSigned-off-by: \r\nAcked-by:\n", &t, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(t[0].value, "");
	assert_string_equal(t[1].value, "");
	series_trailers_free(t, n);

	/* prose with a colon is not a trailer block */
	assert_int_equal(series_trailers("Body.\n\nNote: this is prose, and this line\n"
					 "is not a trailer at all.\n", &t, &n), 0);
	assert_int_equal(n, 0);
	assert_null(t);
	assert_int_equal(series_trailers("", &t, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(series_trailers(NULL, &t, &n), 0);
	assert_int_equal(n, 0);
}

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

static void parse_fails(const char *name, const char *want)
{
	struct series *s = (struct series *)1;
	char *err = NULL;

	assert_int_equal(series_parse_mbox(name, &s, &err), -1);
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

	assert_int_equal(series_parse_mem("gen.mbox", buf_str(b), b->len, &s, &err), -1);
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

	/* too many */
	buf_reset(&b);
	for (int i = 1; i <= SERIES_PATCHES_MAX + 1; i++)
		buf_printf(&b, "From x Mon Sep 17 00:00:00 2001\nSubject: [PATCH %d/%d] p\n\n",
			   i, SERIES_PATCHES_MAX + 1);
	mem_fails(&b, "gen.mbox:1: patch 1/501: more than 500 patches");
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
		cmocka_unit_test(test_subject_parse),
		cmocka_unit_test(test_mbox_lines),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_diffstat),
		cmocka_unit_test(test_trailers),
		cmocka_unit_test(test_fixture_bpf_next_v4),
		cmocka_unit_test(test_fixture_thread_replies),
		cmocka_unit_test(test_fixture_encoded),
		cmocka_unit_test(test_fixture_rfc_single),
		cmocka_unit_test(test_fixture_versions_thread),
		cmocka_unit_test(test_fixture_refusals),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_assemble_direct),
		cmocka_unit_test(test_json_golden),
		cmocka_unit_test(test_cli_show),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
