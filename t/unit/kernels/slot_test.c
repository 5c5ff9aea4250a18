// SPDX-License-Identifier: GPL-2.0-only
/* slot_test.c: unit tests for kernels/slot.c: a slot's mark (what its last
 * complete build was: parsed strictly, written, read, cleared), which
 * sibling a new slot starts from (never one of another arch or tree, nor
 * of another .config once it is known; the one fewest files away), the
 * siblings found on disk with their distances in a two-commit git tree,
 * and the copy of one's objects, its dependency files made to name the
 * slot's own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"
#include "kernels/kernelsint.h"
#include "t/unit/testutil.h"

#define CFG_X "1111111111111111111111111111111111111111111111111111111111111111"
#define CFG_Y "2222222222222222222222222222222222222222222222222222222222222222"
#define C_A   "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define C_B   "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"

static void test_mark_parse(void **state)
{
	const char *good = "kfleet-slot-1\ntree linux\narch x86_64\nconfig " CFG_X "\ncommit " C_A
			   "\n";
	struct kbuild_slot_mark m;
	char text[512];

	(void)state;
	assert_int_equal(kbuild_slot_mark_parse(good, strlen(good), &m), 0);
	assert_string_equal(m.tree, "linux");
	assert_string_equal(m.arch, "x86_64");
	assert_string_equal(m.config, CFG_X);
	assert_string_equal(m.commit, C_A);
	/* without the last newline too */
	assert_int_equal(kbuild_slot_mark_parse(good, strlen(good) - 1, &m), 0);
	/* another format, a line missing, one too many, a bad value: none */
	assert_int_equal(kbuild_slot_mark_parse(good + 1, strlen(good) - 1, &m), -1);
	assert_string_equal(m.tree, "");
	snprintf(text, sizeof(text), "kfleet-slot-1\ntree linux\narch x86_64\ncommit " C_A "\n");
	assert_int_equal(kbuild_slot_mark_parse(text, strlen(text), &m), -1);
	snprintf(text, sizeof(text), "%sextra\n", good);
	assert_int_equal(kbuild_slot_mark_parse(text, strlen(text), &m), -1);
	snprintf(text, sizeof(text), "kfleet-slot-1\ntree ../x\narch x86_64\nconfig " CFG_X
		 "\ncommit " C_A "\n");
	assert_int_equal(kbuild_slot_mark_parse(text, strlen(text), &m), -1);
	snprintf(text, sizeof(text), "kfleet-slot-1\ntree linux\narch x86_64\nconfig " CFG_X
		 "0\ncommit " C_A "\n");
	assert_int_equal(kbuild_slot_mark_parse(text, strlen(text), &m), -1);
	snprintf(text, sizeof(text), "kfleet-slot-1\ntree linux\narch x86_64\nconfig " CFG_X
		 "\ncommit " C_A "0\n");
	assert_int_equal(kbuild_slot_mark_parse(text, strlen(text), &m), -1);
	assert_int_equal(kbuild_slot_mark_parse(good, strlen(good) + 1, &m), -1);  /* a NUL */
	assert_int_equal(kbuild_slot_mark_parse("", 0, &m), -1);
}

static void test_mark_files(void **state)
{
	struct kbuild_slot_mark m = { "linux", "arm64", CFG_Y, C_B }, r;
	char dir[128];

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "slot");
	assert_int_equal(kbuild_slot_mark_read(dir, &r), -1);
	assert_int_equal(kbuild_slot_mark_write(dir, &m), 0);
	assert_int_equal(kbuild_slot_mark_read(dir, &r), 0);
	assert_memory_equal(&m, &r, sizeof(m));
	assert_int_equal(kbuild_slot_mark_clear(dir), 0);
	assert_int_equal(kbuild_slot_mark_read(dir, &r), -1);
	assert_int_equal(kbuild_slot_mark_clear(dir), 0);  /* not there: fine */
	tu_rmrf(dir);
}

static void test_pick(void **state)
{
	struct kbuild_slot_mark want = { "linux", "x86_64", CFG_X, C_B };
	struct kbuild_sibling s[] = {
		/* another config, even at the very commit */
		{ "other-config", { "linux", "x86_64", CFG_Y, C_B }, 0 },
		/* another arch or tree, the same config: never */
		{ "other-arch", { "linux", "arm64", CFG_X, C_B }, 0 },
		{ "other-tree", { "linux-next", "x86_64", CFG_X, C_B }, 0 },
		/* git could not say how far (or it was ruled out) */
		{ "unknown", { "linux", "x86_64", CFG_X, C_A }, -1 },
		{ "far", { "linux", "x86_64", CFG_X, C_A }, 40 },
		{ "near", { "linux", "x86_64", CFG_X, C_A }, 3 },
		{ "near-too", { "linux", "x86_64", CFG_X, C_A }, 3 },
	};

	(void)state;
	assert_false(kbuild_sibling_fits(&s[0].m, &want));
	assert_false(kbuild_sibling_fits(&s[1].m, &want));
	assert_false(kbuild_sibling_fits(&s[2].m, &want));
	assert_true(kbuild_sibling_fits(&s[4].m, &want));
	/* the .config known: the nearest of it; the first of equals */
	assert_int_equal(kbuild_sibling_pick(s, 7, &want), 5);
	assert_int_equal(kbuild_sibling_pick(s, 5, &want), 4);
	/* only other configs, arches, trees or unknown distances: none */
	assert_int_equal(kbuild_sibling_pick(s, 4, &want), -1);
	assert_int_equal(kbuild_sibling_pick(s, 0, &want), -1);
	/* not known yet: the nearest of the tree and arch, whatever its
	 * config (build.c keeps its objects only if the .config comes out
	 * the same) */
	want.config[0] = '\0';
	assert_int_equal(kbuild_sibling_pick(s, 7, &want), 0);
	assert_true(kbuild_sibling_fits(&s[0].m, &want));
	assert_false(kbuild_sibling_fits(&s[1].m, &want));
	assert_false(kbuild_sibling_fits(&s[2].m, &want));
	s[0].changed = -1;  /* ruled out: its .config came out different */
	assert_int_equal(kbuild_sibling_pick(s, 7, &want), 5);
}

static void replaced(const char *in, const char *from, const char *to, const char *want, long n)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(kbuild_prefix_replace(in, strlen(in), from, to, &b), n);
	assert_string_equal(buf_str(&b), want);
	buf_release(&b);
}

static void test_prefix_replace(void **state)
{
	(void)state;
	replaced("cmd_/s/slots/a/obj/x.o := gcc -o /s/slots/a/obj/x.o x.c\n", "/s/slots/a",
		 "/s/slots/b", "cmd_/s/slots/b/obj/x.o := gcc -o /s/slots/b/obj/x.o x.c\n", 2);
	replaced("/s/slots/a", "/s/slots/a", "/s/slots/bb", "/s/slots/bb", 1);
	/* only the whole name */
	replaced("/s/slots/ab/obj /s/slots/a.x /s/slots/a-1", "/s/slots/a", "/s/slots/b",
		 "/s/slots/ab/obj /s/slots/a.x /s/slots/a-1", 0);
	replaced("deps := \\\n  /s/slots/a/obj/a.h \\\n", "/s/slots/a", "/t",
		 "deps := \\\n  /t/obj/a.h \\\n", 1);
	replaced("", "/s", "/t", "", 0);
}

/* --- siblings on disk, and a copy -------------------------------------- */

static void sh(const char *dir, const char *script)
{
	struct cmd *c = cmd_new("sh");
	char *why = NULL;

	cmd_dir(c, dir);
	cmd_args(c, "-c", script, NULL);
	cmd_env(c, "HOME", "/nonexistent");
	cmd_env(c, "GIT_CONFIG_NOSYSTEM", "1");
	if (cmd_run(c, &why) < 0)
		fail_msg("%s: %s", script, why ? why : "?");
	cmd_free(c);
	free(why);
}

static void write_at(const char *dir, const char *name, const char *text)
{
	char *p = tu_path(dir, name);

	tu_write_str(p, text);
	free(p);
}

static int exists(const char *dir, const char *name)
{
	char *p = tu_path(dir, name);
	int rc = access(p, F_OK) == 0;

	free(p);
	return rc;
}

static struct timespec mtime_of(const char *dir, const char *name)
{
	char *p = tu_path(dir, name);
	struct stat st;

	if (lstat(p, &st) < 0)
		fail_msg("'%s': %s", p, strerror(errno));
	free(p);
	return st.st_mtim;
}

/* state/trees/t.git with two commits (b.c differs); sets a and b */
static void make_tree(const char *top, char a[41], char b[41])
{
	char *work = tu_path(top, "work");
	struct cmd *c;
	char *why = NULL;

	mkdir_p(work, 0755);
	write_at(work, "a.c", "int a;\n");
	write_at(work, "b.c", "int b;\n");
	sh(work, "git init -q -b master . && git -c user.name=t -c user.email=t@t add . && "
		 "git -c user.name=t -c user.email=t@t commit -qm one && "
		 "echo 'int b2;' >> b.c && git -c user.name=t -c user.email=t@t commit -qam two && "
		 "git clone -q --mirror . ../state/trees/t.git");
	for (int i = 0; i < 2; i++) {
		c = kbuild_git(NULL);
		cmd_dir(c, work);
		cmd_args(c, "rev-parse", i ? "HEAD" : "HEAD~1", NULL);
		if (kbuild_run_line(c, i ? b : a, 41, &why) < 0)
			fail_msg("rev-parse: %s", why ? why : "?");
	}
	free(work);
}

/* state/slots/NAME with an obj (a.o, and .config saying config), marked
 * as built at commit with config unless commit is NULL */
static char *make_slot(const char *state, const char *name, const char *arch,
		       const char *config, const char *commit)
{
	struct kbuild_slot_mark m = { "t", "", "", "" };
	char *slot = NULL, *obj, *text = NULL;

	if (asprintf(&slot, "%s/slots/%s", state, name) < 0)
		fail_msg("out of memory");
	obj = tu_path(slot, "obj");
	mkdir_p(obj, 0755);
	write_at(obj, "a.o", name);
	write_at(obj, ".config", config);
	/* a dependency file that names the slot's obj, as tools/objtool's do;
	 * an object that does (its debug information) */
	if (asprintf(&text, "cmd_%s/a.o := gcc -o %s/a.o a.c\n", obj, obj) < 0)
		fail_msg("out of memory");
	write_at(obj, ".a.o.cmd", text);
	write_at(obj, "b.o", text);
	free(text);
	snprintf(m.arch, sizeof(m.arch), "%s", arch);
	snprintf(m.config, sizeof(m.config), "%s", config);
	if (commit) {
		snprintf(m.commit, sizeof(m.commit), "%s", commit);
		assert_int_equal(kbuild_slot_mark_write(slot, &m), 0);
	}
	free(obj);
	return slot;
}

static void test_siblings(void **state)
{
	char top[128], a[41], b[41], *stdir, *slots[7], *obj, *text;
	struct kbuild_env e = { 0 };
	struct kbuild_steps st = { .e = &e, .arch = "x86_64" };
	struct kbuild_slot_mark want = { "t", "x86_64", "", "" };
	struct kbuild_sibling *sib = NULL;
	struct timespec t0, t1, t2;
	char *want_cmd = NULL;
	long rewritten = 0;
	char *why = NULL;
	size_t n = 0;
	int i;

	(void)state;
	tu_tmpdir(top, sizeof(top), "slot");
	stdir = tu_path(top, "state");
	mkdir_p(stdir, 0755);
	e.state_dir = stdir;
	make_tree(top, a, b);
	snprintf(want.commit, sizeof(want.commit), "%s", b);
	slots[0] = make_slot(stdir, "t-x86_64-aaaaaaaaaaaa", "x86_64", CFG_X, a);
	slots[1] = make_slot(stdir, "t-x86_64-bbbbbbbbbbbb", "x86_64", CFG_Y, b);
	/* not siblings: another arch, a slot whose last build did not
	 * finish, the tree's worktree (even with a file "built" in it), a
	 * sibling whose commit the tree does not have, the slot itself */
	slots[2] = make_slot(stdir, "t-arm64-cccccccccccc", "arm64", CFG_X, b);
	slots[3] = make_slot(stdir, "t-x86_64-dddddddddddd", "x86_64", CFG_X, NULL);
	slots[4] = make_slot(stdir, "t-src", "x86_64", CFG_X, b);
	slots[5] = make_slot(stdir, "t-x86_64-ffffffffffff", "x86_64", CFG_X, C_A);
	slots[6] = make_slot(stdir, "t-x86_64-eeeeeeeeeeee", "x86_64", CFG_X, b);

	assert_int_equal(kbuild_slot_siblings(&e, slots[6], &want, &sib, &n), 0);
	assert_int_equal(n, 2);
	for (i = 0; i < 2; i++) {
		int x = !strcmp(sib[i].dir, slots[0]);

		assert_true(x || !strcmp(sib[i].dir, slots[1]));
		assert_int_equal(sib[i].changed, x ? 1 : 0);   /* b.c; nothing */
	}
	/* the .config not known yet: the nearest, whatever its config */
	i = kbuild_sibling_pick(sib, n, &want);
	assert_string_equal(sib[i].dir, slots[1]);
	/* known: only that config's */
	snprintf(want.config, sizeof(want.config), "%s", CFG_X);
	i = kbuild_sibling_pick(sib, n, &want);
	assert_string_equal(sib[i].dir, slots[0]);
	want.config[0] = '3';
	assert_int_equal(kbuild_sibling_pick(sib, n, &want), -1);

	/* the copy: the sibling's objects with their times, nothing of the
	 * slot's own, no .seed left; the sibling as it was */
	obj = tu_path(slots[6], "obj");
	write_at(obj, "own", "");
	st.obj = obj;
	st.deadline = mono_ms() + 60000;
	t0 = mtime_of(slots[0], "obj/a.o");
	t2 = mtime_of(slots[0], "obj/.a.o.cmd");
	assert_int_equal(kbuild_slot_copy(&st, slots[0], slots[6], &rewritten, &why), 0);
	assert_null(why);
	assert_int_equal(rewritten, 1);
	free(why);
	why = tu_path(obj, "a.o");
	text = tu_slurp(why, NULL);
	assert_string_equal(text, "t-x86_64-aaaaaaaaaaaa");
	free(text);
	free(why);
	why = NULL;
	assert_false(exists(obj, "own"));
	/* the dependency file names the slot's obj now, its time kept; the
	 * object is as it was */
	if (asprintf(&want_cmd, "cmd_%s/a.o := gcc -o %s/a.o a.c\n", obj, obj) < 0)
		fail_msg("out of memory");
	why = tu_path(obj, ".a.o.cmd");
	text = tu_slurp(why, NULL);
	assert_string_equal(text, want_cmd);
	free(text);
	free(why);
	why = tu_path(obj, "b.o");
	text = tu_slurp(why, NULL);
	assert_non_null(strstr(text, "t-x86_64-aaaaaaaaaaaa"));
	free(text);
	free(why);
	why = NULL;
	t1 = mtime_of(obj, ".a.o.cmd");
	assert_int_equal(t1.tv_sec, t2.tv_sec);
	assert_int_equal(t1.tv_nsec, t2.tv_nsec);
	t1 = mtime_of(obj, "a.o");
	assert_int_equal(t1.tv_sec, t0.tv_sec);
	assert_int_equal(t1.tv_nsec, t0.tv_nsec);
	assert_false(exists(slots[6], "obj.seed"));
	assert_true(exists(slots[0], "obj/a.o"));
	/* a sibling without its obj: not copied, and the slot's obj kept */
	free(slots[3]);
	slots[3] = tu_path(stdir, "slots/t-x86_64-gggggggggggg");
	assert_int_equal(kbuild_slot_copy(&st, slots[3], slots[6], &rewritten, &why), -1);
	assert_non_null(why);
	assert_true(exists(obj, "a.o"));

	kbuild_slot_siblings_free(sib, n);
	free(want_cmd);
	free(why);
	free(obj);
	for (i = 0; i < 7; i++)
		free(slots[i]);
	free(stdir);
	tu_rmrf(top);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_parse),
		cmocka_unit_test(test_mark_files),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_prefix_replace),
		cmocka_unit_test(test_siblings),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
