// SPDX-License-Identifier: GPL-2.0-only
/* copyout_test.c: unit tests for kernels/copyout.c, how kfleetd takes what
 * a build left: a regular file beneath its directory (a link at the end or
 * on the way, a fifo, a file over its cap are refused), and a tree (links
 * that stay inside kept, links out of it and fifos left out, the size cap
 * for all of it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "common/buf.h"
#include "common/util.h"
#include "kernels/kernelsint.h"
#include "t/unit/testutil.h"

static void put(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel);

	assert_int_equal(write_file(p, text, strlen(text), 0644), 0);
	free(p);
}

static void test_file(void **state)
{
	char dir[128], *obj, *out, *to, *err = NULL, *text, *victim;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "copyout");
	obj = path_join(dir, "obj");
	out = path_join(dir, "out");
	to = path_join(out, "vmlinuz");
	victim = path_join(dir, "victim");
	assert_int_equal(mkdir_p(obj, 0755), 0);
	assert_int_equal(mkdir_p(out, 0755), 0);
	put(dir, "victim", "secret\n");
	put(obj, "image", "kernel\n");
	assert_int_equal(kbuild_copyout_file(obj, "image", to, 100, &err), 0);
	text = tu_slurp(to, NULL);
	assert_string_equal(text, "kernel\n");
	free(text);

	/* the image a link to a host file: refused, nothing written there */
	{
		char *l = path_join(obj, "link");

		assert_int_equal(symlink(victim, l), 0);
		assert_int_equal(kbuild_copyout_file(obj, "link", to, 100, &err), -1);
		assert_non_null(strstr(err, "a link, not taken"));
		free(err);
		err = NULL;
		free(l);
	}
	/* a link on the way: arch -> / */
	{
		char *l = path_join(obj, "arch");

		assert_int_equal(symlink(dir, l), 0);
		assert_int_equal(kbuild_copyout_file(obj, "arch/victim", to, 100, &err), -1);
		free(err);
		err = NULL;
		free(l);
	}
	/* a way out by .. */
	assert_int_equal(kbuild_copyout_file(obj, "../victim", to, 100, &err), -1);
	free(err);
	err = NULL;
	/* a fifo, and a file over the cap */
	{
		char *f = path_join(obj, "fifo");

		assert_int_equal(mkfifo(f, 0644), 0);
		assert_int_equal(kbuild_copyout_file(obj, "fifo", to, 100, &err), -1);
		assert_non_null(strstr(err, "not a regular file"));
		free(err);
		err = NULL;
		free(f);
	}
	assert_int_equal(kbuild_copyout_file(obj, "image", to, 3, &err), -1);
	assert_non_null(strstr(err, "over the 3 a build may leave"));
	free(err);
	text = tu_slurp(victim, NULL);
	assert_string_equal(text, "secret\n");
	free(text);
	free(victim);
	free(to);
	free(out);
	free(obj);
}

static void test_tree(void **state)
{
	char dir[128], *from, *to, *err = NULL, *p, *text;
	long skipped = -1;
	struct stat st;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "copyout");
	from = path_join(dir, "from");
	to = path_join(dir, "to");
	p = path_join(from, "lib/modules/6.1.0/kernel");
	assert_int_equal(mkdir_p(p, 0755), 0);
	free(p);
	put(from, "lib/modules/6.1.0/kernel/a.ko", "module\n");
	put(from, "lib/modules/6.1.0/modules.dep", "dep\n");
	p = path_join(from, "lib/modules/6.1.0/run.sh");
	assert_int_equal(write_file(p, "#!/bin/sh\n", 10, 0755), 0);
	free(p);
	p = path_join(from, "lib/modules/6.1.0/dep-link");
	assert_int_equal(symlink("modules.dep", p), 0);   /* inside: kept */
	free(p);
	p = path_join(from, "lib/modules/6.1.0/build");
	assert_int_equal(symlink("/etc", p), 0);          /* out: left out */
	free(p);
	p = path_join(from, "lib/up");
	assert_int_equal(symlink("../../..", p), 0);      /* out by ..: left out */
	free(p);
	p = path_join(from, "lib/fifo");
	assert_int_equal(mkfifo(p, 0644), 0);
	free(p);
	assert_int_equal(kbuild_copyout_tree(from, to, 1 << 20, &skipped, &err), 0);
	assert_int_equal(skipped, 3);
	p = path_join(to, "lib/modules/6.1.0/kernel/a.ko");
	text = tu_slurp(p, NULL);
	assert_string_equal(text, "module\n");
	free(text);
	free(p);
	p = path_join(to, "lib/modules/6.1.0/run.sh");
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_mode & 0100);   /* executable stays so */
	free(p);
	p = path_join(to, "lib/modules/6.1.0/dep-link");
	assert_int_equal(lstat(p, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	free(p);
	p = path_join(to, "lib/modules/6.1.0/build");
	assert_int_equal(lstat(p, &st), -1);
	free(p);
	p = path_join(to, "lib/fifo");
	assert_int_equal(lstat(p, &st), -1);
	free(p);
	/* over the cap for all of it */
	rm_tree(to);
	assert_int_equal(kbuild_copyout_tree(from, to, 10, &skipped, &err), -1);
	assert_non_null(strstr(err, "past what a build may leave"));
	free(err);
	free(to);
	free(from);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file),
		cmocka_unit_test(test_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
