// SPDX-License-Identifier: GPL-2.0-only
/* diffstat_test.c: unit tests for kernels/diffstat.c: files and lines a
 * diff touches, and the diffs it refuses (a hunk cut short, longer than
 * its header, a bad hunk header), with where. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernels/kernelsint.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diffstat),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
