// SPDX-License-Identifier: GPL-2.0-only
/* bisect_test.c: git's bisection driven through kernels/bisect.c on a
 * small real repository (state/trees/t.git, as a tree's mirror is): the
 * answers of a known culprit lead to it, in no more than ceil(log2 N) + 1
 * steps; skips around it end with the candidates; the log it keeps is one
 * `git bisect replay` takes to the same commit; with --first-parent the
 * merge that brought the change in is found; and the facts beside it
 * (ancestry, counts, subjects, the culprit's revert as a patch series). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/cmd.h"
#include "common/util.h"
#include "kernels/kernels.h"
#include "t/unit/testutil.h"

#define N 12          /* commits after the root: c1 .. c12 */
#define CULPRIT 7

struct fix {
	char dir[128];
	struct kbuild_env env;
	char c[N + 1][41];   /* c[0] the root */
	char merge[41], side[41];
};

static void sh(const char *dir, const char *script)
{
	struct cmd *c = cmd_new("sh");
	char *err = NULL;

	cmd_args(c, "-ec", script, NULL);
	cmd_dir(c, dir);
	cmd_env(c, "HOME", dir);
	cmd_env(c, "GIT_CONFIG_NOSYSTEM", "1");
	if (cmd_run(c, &err) < 0)
		fail_msg("%s: %s", script, err);
	cmd_free(c);
}

static void rev(const char *gitdir, const char *name, char out[41])
{
	struct cmd *c = cmd_new("git");
	struct buf b = BUF_INIT(4096);

	cmd_argf(c, "--git-dir=%s", gitdir);
	cmd_args(c, "rev-parse", name, NULL);
	cmd_stdout_buf(c, &b);
	assert_int_equal(cmd_run(c, NULL), 0);
	assert_true(b.len >= 40);
	memcpy(out, b.data, 40);
	out[40] = '\0';
	cmd_free(c);
	buf_release(&b);
}

/* A linear history c0..c12 where c7 changes f to "bad", then a side
 * branch forked at c12 with two commits, merged back with --no-ff */
static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	char script[4096], *gitdir;

	tu_tmpdir(f->dir, sizeof(f->dir), "kbisect");
	f->env.state_dir = f->dir;
	snprintf(script, sizeof(script),
		 "export GIT_AUTHOR_NAME=T GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=T "
		 "GIT_COMMITTER_EMAIL=t@x GIT_AUTHOR_DATE='1700000000 +0000' "
		 "GIT_COMMITTER_DATE='1700000000 +0000'\n"
		 "git init -q -b master w && cd w\n"
		 "echo good > f; git add f; git commit -qm c0\n"
		 "i=1; while [ $i -le %d ]; do\n"
		 "  [ $i -eq %d ] && echo bad > f\n"
		 "  echo $i > n$i; git add -A; git commit -qm \"c$i: change $i\"; i=$((i+1)); done\n"
		 "git checkout -qb side; echo s1 > s1; git add s1; git commit -qm side1\n"
		 "echo s2 > s2; git add s2; git commit -qm side2\n"
		 "git checkout -q master; git merge -q --no-ff -m merge side\n"
		 "cd .. && mkdir trees && git clone -q --mirror w trees/t.git\n", N, CULPRIT);
	sh(f->dir, script);
	gitdir = tu_path(f->dir, "trees/t.git");
	for (int i = 0; i <= N; i++) {
		char name[32];

		snprintf(name, sizeof(name), "master~%d", N - i);
		/* master is the merge; its first parent c12 */
		snprintf(name, sizeof(name), "master^1~%d", N - i);
		rev(gitdir, name, f->c[i]);
	}
	rev(gitdir, "master", f->merge);
	rev(gitdir, "side", f->side);
	free(gitdir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	tu_rmrf(f->dir);
	free(f);
	return 0;
}

static int index_of(struct fix *f, const char *commit)
{
	for (int i = 0; i <= N; i++)
		if (!strcmp(f->c[i], commit))
			return i;
	return -1;
}

static void test_finds_the_culprit(void **state)
{
	struct fix *f = *state;
	struct kbisect_mark marks[32];
	struct kbisect_next next;
	struct buf log = BUF_INIT(0);
	char *err = NULL, *logpath, script[1024];
	size_t n = 0;
	int steps = 0;

	for (;;) {
		buf_reset(&log);
		assert_int_equal(kbisect_run(&f->env, "t", 1, f->c[0], f->c[N], 0, marks, n, &next,
					     &log, &err), 0);
		if (next.done)
			break;
		steps++;
		marks[n].commit = strdup(next.next);
		marks[n].answer = index_of(f, next.next) >= CULPRIT ? "bad" : "good";
		assert_true(index_of(f, next.next) > 0);
		n++;
		assert_true(n < 32);
	}
	assert_int_equal(next.done, 1);
	assert_string_equal(next.culprit, f->c[CULPRIT]);
	/* 12 commits: at most ceil(log2 12) + 1 = 5 tested */
	assert_true(steps <= 5);
	/* git's own replay of the log reaches the same commit */
	logpath = tu_path(f->dir, "bisect.log");
	tu_write_str(logpath, buf_str(&log));
	snprintf(script, sizeof(script), "cd w && git bisect replay %s > ../replay.out && "
		 "grep -q '^%s is the first bad commit' ../replay.out", logpath, f->c[CULPRIT]);
	sh(f->dir, script);
	for (size_t i = 0; i < n; i++)
		free((char *)marks[i].commit);
	kbisect_next_release(&next);
	kbisect_remove(&f->env, "t", 1);
	buf_release(&log);
	free(logpath);
}

static void test_skips_leave_candidates(void **state)
{
	struct fix *f = *state;
	struct kbisect_mark marks[32];
	struct kbisect_next next;
	char *err = NULL;
	size_t n = 0;

	/* the culprit and its parent do not build */
	for (;;) {
		int i;

		assert_int_equal(kbisect_run(&f->env, "t", 2, f->c[0], f->c[N], 0, marks, n, &next,
					     NULL, &err), 0);
		if (next.done)
			break;
		i = index_of(f, next.next);
		marks[n].commit = strdup(next.next);
		marks[n].answer = i == CULPRIT || i == CULPRIT - 1 ? "skip" : i >= CULPRIT ? "bad" :
				  "good";
		n++;
		assert_true(n < 32);
	}
	assert_int_equal(next.done, 2);
	assert_true(next.ncandidates >= 2);
	for (size_t i = 0; i < next.ncandidates; i++) {
		int k = index_of(f, next.candidates[i]);

		assert_true(k >= CULPRIT - 1 && k <= CULPRIT + 1);
	}
	for (size_t i = 0; i < n; i++)
		free((char *)marks[i].commit);
	kbisect_next_release(&next);
}

/* The side branch's second commit breaks it: --first-parent names the
 * merge, not side2 */
static void test_first_parent_names_the_merge(void **state)
{
	struct fix *f = *state;
	struct kbisect_mark m[8];
	struct kbisect_next next;
	char *err = NULL;
	size_t n = 0;

	for (;;) {
		assert_int_equal(kbisect_run(&f->env, "t", 3, f->c[N], f->merge, 1, m, n, &next,
					     NULL, &err), 0);
		if (next.done)
			break;
		m[n].commit = strdup(next.next);
		m[n].answer = strcmp(next.next, f->merge) ? "good" : "bad";
		n++;
		assert_true(n < 8);
	}
	assert_int_equal(next.done, 1);
	assert_string_equal(next.culprit, f->merge);
	for (size_t i = 0; i < n; i++)
		free((char *)m[i].commit);
	kbisect_next_release(&next);
}

static void test_facts_and_revert(void **state)
{
	struct fix *f = *state;
	struct kbisect_commit c;
	struct buf mbox = BUF_INIT(0);
	struct series *s = NULL;
	char *err = NULL;

	assert_int_equal(kbisect_is_ancestor(&f->env, "t", f->c[0], f->c[N]), 1);
	assert_int_equal(kbisect_is_ancestor(&f->env, "t", f->c[N], f->c[0]), 0);
	assert_int_equal(kbisect_is_ancestor(&f->env, "t", f->side, f->c[N]), 0);
	assert_int_equal(kbisect_count(&f->env, "t", f->c[0], f->c[N]), N);
	assert_int_equal(kbisect_describe(&f->env, "t", f->c[CULPRIT], &c), 0);
	assert_string_equal(c.subject, "c7: change 7");
	assert_string_equal(c.author, "T <t@x>");
	assert_string_equal(c.parent, f->c[CULPRIT - 1]);
	assert_int_equal(c.parents, 1);
	kbisect_commit_release(&c);
	assert_int_equal(kbisect_describe(&f->env, "t", f->merge, &c), 0);
	assert_int_equal(c.parents, 2);
	kbisect_commit_release(&c);
	/* the revert is a one-patch series git am takes */
	assert_int_equal(kbisect_revert_mbox(&f->env, "t", f->c[CULPRIT], &mbox, &err), 0);
	assert_int_equal(series_parse_mem("revert.mbox", mbox.data, mbox.len, &s, &err), 0);
	assert_int_equal(s->count, 1);
	assert_string_equal(s->patches[0].title, "Revert \"c7: change 7\"");
	assert_true(s->patches[0].has_diff);
	series_free(s);
	buf_release(&mbox);
	assert_int_equal(kbisect_revert_mbox(&f->env, "t", f->c[0], &mbox, &err), -1);
	assert_non_null(strstr(err, "no parent"));
	free(err);
	buf_release(&mbox);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_the_culprit),
		cmocka_unit_test(test_skips_leave_candidates),
		cmocka_unit_test(test_first_parent_names_the_merge),
		cmocka_unit_test(test_facts_and_revert),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
