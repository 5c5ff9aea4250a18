// SPDX-License-Identifier: GPL-2.0-only
/* subject_test.c: unit tests for kernels/subject.c: reply prefixes and
 * patch tags of a subject, over the shapes git format-patch, b4 and
 * people write ("[PATCH bpf-next v4 2/3]", "[RFC PATCHv2]", "Re: [PATCH]"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/kernelsint.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_subject_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
