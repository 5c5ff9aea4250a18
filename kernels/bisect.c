// SPDX-License-Identifier: GPL-2.0-only
/* bisect.c: git's own bisection over a tree's mirror, so that the commits
 * to test, merges, merge bases and skips follow `git bisect` exactly. Each
 * bisection has a worktree without a checkout (state/bisect/ID, nothing
 * but git's bisect state); the answers kfleet stored are replayed into it
 * each time (reset, start, good/bad/skip in order), so the database stays
 * the one source of truth and a restart needs nothing else. Also: the
 * facts a bisection's checks and report need (ancestry, subjects, the
 * count of a range) and the revert of a culprit as an mbox for git am. */
#include "kernels/kernels.h"
#include "kernels/kernelsint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/util.h"

/* p starts with 40 lowercase hex digits */
static int hex40_at(const char *p)
{
	for (int i = 0; i < 40; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f')))
			return 0;
	return 1;
}

static char *bisect_dir(const struct kbuild_env *e, int64_t id)
{
	char *d = NULL;

	if (asprintf(&d, "%s/bisect/%" PRId64, e->state_dir, id) < 0)
		return NULL;
	return d;
}

/* git in the bisection's worktree, output into out (may be NULL) */
static int wt_git(const char *dir, struct buf *out, char **err, ...)
{
	struct cmd *c = kbuild_git(NULL);
	struct buf ignored = BUF_INIT(64 * 1024);
	const char *a;
	va_list ap;
	int rc;

	cmd_dir(c, dir);
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)))
		cmd_arg(c, a);
	va_end(ap);
	cmd_stdout_buf(c, out ? out : &ignored);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	rc = cmd_run(c, err);
	cmd_free(c);
	buf_release(&ignored);
	return rc;
}

/* The worktree of bisection id, made at bad when missing */
static char *worktree(const struct kbuild_env *e, const char *tree, int64_t id, const char *bad,
		      char **err)
{
	char *dir = bisect_dir(e, id), *top = NULL, *gitdir = kbuild_tree_dir(e, tree);
	struct stat st;
	struct cmd *c;

	if (!dir || !gitdir || asprintf(&top, "%s/bisect", e->state_dir) < 0)
		goto fail;
	if (stat(dir, &st) == 0) {
		free(top);
		free(gitdir);
		return dir;
	}
	if (mkdir_p(top, 0755) < 0) {
		set_errf(err, "bisection %" PRId64 ": '%s': %s", id, top, strerror(errno));
		goto fail;
	}
	c = kbuild_git(gitdir);
	cmd_args(c, "worktree", "add", "--detach", "--no-checkout", dir, bad, NULL);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	if (cmd_run(c, err) < 0) {
		cmd_free(c);
		goto fail;
	}
	cmd_free(c);
	free(top);
	free(gitdir);
	return dir;
fail:
	free(dir);
	free(top);
	free(gitdir);
	return NULL;
}

/* Reads what git said after the last mark */
static int parse_next(const char *s, struct kbisect_next *out)
{
	const char *p;

	memset(out, 0, sizeof(*out));
	out->left = -1;
	if ((p = strstr(s, " is the first bad commit")) && p - s >= 40 &&
	    (p == s + 40 || p[-41] == '\n')) {
		memcpy(out->culprit, p - 40, 40);
		out->done = 1;
		return hex40_at(out->culprit) ? 0 : -1;
	}
	if ((p = strstr(s, "The first bad commit could be any of:\n"))) {
		out->done = 2;
		for (p = strchr(p, '\n') + 1; hex40_at(p); p += 41) {
			char **v = realloc(out->candidates, (out->ncandidates + 1) * sizeof(*v));

			if (!v)
				return -1;
			out->candidates = v;
			if (!(v[out->ncandidates] = strndup(p, 40)))
				return -1;
			out->ncandidates++;
			if (p[40] != '\n')
				break;
		}
		return out->ncandidates ? 0 : -1;
	}
	if ((p = strstr(s, "Bisecting: ")))
		sscanf(p, "Bisecting: %d revision", &out->left);
	if ((p = strstr(s, "(roughly ")))
		sscanf(p, "(roughly %d step", &out->steps);
	if ((p = strchr(s, '[')) && hex40_at(p + 1) && p[41] == ']') {
		memcpy(out->next, p + 1, 40);
		return 0;
	}
	return -1;
}

int kbisect_run(const struct kbuild_env *e, const char *tree, int64_t id, const char *good,
		const char *bad, int first_parent, const struct kbisect_mark *marks, size_t n,
		struct kbisect_next *out, struct buf *log, char **err)
{
	struct buf said = BUF_INIT(1u << 20);
	char *dir = worktree(e, tree, id, bad, err);
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!dir)
		return -1;
	wt_git(dir, NULL, NULL, "bisect", "reset", NULL);
	if ((first_parent ? wt_git(dir, &said, err, "bisect", "start", "--no-checkout",
				   "--first-parent", bad, good, NULL) :
			    wt_git(dir, &said, err, "bisect", "start", "--no-checkout", bad, good,
				   NULL)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		buf_reset(&said);
		/* exit 1 with "only skipped commits left" is an answer, not an error */
		if (wt_git(dir, &said, NULL, "bisect", marks[i].answer, marks[i].commit, NULL) < 0 &&
		    !strstr(buf_str(&said), "could be any of")) {
			set_errf(err, "bisection %" PRId64 ": git bisect %s %.12s failed: %.200s", id,
				 marks[i].answer, marks[i].commit, buf_str(&said));
			goto out;
		}
	}
	if (parse_next(buf_str(&said), out) < 0) {
		set_errf(err, "bisection %" PRId64 ": git bisect said: %.300s", id, buf_str(&said));
		goto out;
	}
	if (log && wt_git(dir, log, err, "bisect", "log", NULL) < 0)
		goto out;
	rc = 0;
out:
	buf_release(&said);
	free(dir);
	return rc;
}

void kbisect_next_release(struct kbisect_next *n)
{
	for (size_t i = 0; i < n->ncandidates; i++)
		free(n->candidates[i]);
	free(n->candidates);
	n->candidates = NULL;
	n->ncandidates = 0;
}

void kbisect_remove(const struct kbuild_env *e, const char *tree, int64_t id)
{
	char *dir = bisect_dir(e, id), *gitdir = kbuild_tree_dir(e, tree);

	if (dir && gitdir) {
		struct cmd *c = kbuild_git(gitdir);

		cmd_args(c, "worktree", "remove", "--force", dir, NULL);
		cmd_timeout(c, KBUILD_GIT_SHORT_MS);
		cmd_run(c, NULL);
		cmd_free(c);
		rm_tree(dir);
	}
	free(dir);
	free(gitdir);
}

/* git --git-dir=MIRROR ARGS..., the whole output into out */
static int mirror_git(const struct kbuild_env *e, const char *tree, struct buf *out, char **err,
		      ...)
{
	char *gitdir = kbuild_tree_dir(e, tree);
	struct cmd *c;
	const char *a;
	va_list ap;
	int rc;

	if (!gitdir)
		return -1;
	c = kbuild_git(gitdir);
	va_start(ap, err);
	while ((a = va_arg(ap, const char *)))
		cmd_arg(c, a);
	va_end(ap);
	if (out)
		cmd_stdout_buf(c, out);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	rc = cmd_run(c, err);
	cmd_free(c);
	free(gitdir);
	return rc;
}

int kbisect_is_ancestor(const struct kbuild_env *e, const char *tree, const char *a,
			const char *b)
{
	char *gitdir = kbuild_tree_dir(e, tree);
	struct cmd *c;
	int rc;

	if (!gitdir)
		return -1;
	c = kbuild_git(gitdir);
	cmd_args(c, "merge-base", "--is-ancestor", a, b, NULL);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	rc = cmd_run(c, NULL);
	rc = rc == 0 ? 1 : cmd_result(c)->end == CMD_END_EXIT && cmd_result(c)->code == 1 ? 0 : -1;
	cmd_free(c);
	free(gitdir);
	return rc;
}

int kbisect_describe(const struct kbuild_env *e, const char *tree, const char *commit,
		     struct kbisect_commit *out)
{
	struct buf b = BUF_INIT(8192);
	char *p, *q;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (mirror_git(e, tree, &b, NULL, "log", "-1", "--format=%s%n%an <%ae>%n%P",
		       commit, NULL) < 0)
		goto out;
	p = b.data;
	q = p ? strchr(p, '\n') : NULL;
	if (!q)
		goto out;
	out->subject = strndup(p, (size_t)(q - p));
	p = q + 1;
	q = strchr(p, '\n');
	out->author = q ? strndup(p, (size_t)(q - p)) : strdup(p);
	out->parents = q ? (int)((strlen(q + 1) + 1) / 41) : 0;
	if (q && hex40_at(q + 1))
		out->parent = strndup(q + 1, 40);
	rc = out->subject && out->author ? 0 : -1;
out:
	if (rc < 0)
		kbisect_commit_release(out);
	buf_release(&b);
	return rc;
}

void kbisect_commit_release(struct kbisect_commit *c)
{
	free(c->subject);
	free(c->author);
	free(c->parent);
	memset(c, 0, sizeof(*c));
}

int kbisect_count(const struct kbuild_env *e, const char *tree, const char *good,
		  const char *bad)
{
	struct buf b = BUF_INIT(4096);
	char *range = NULL;
	long long v = -1;

	if (asprintf(&range, "%s..%s", good, bad) >= 0 &&
	    mirror_git(e, tree, &b, NULL, "rev-list", "--count", range, NULL) == 0) {
		b.data[strcspn(b.data, "\n")] = '\0';
		if (parse_int(b.data, 0, 1LL << 30, &v) < 0)
			v = -1;
	}
	free(range);
	buf_release(&b);
	return (int)v;
}

int kbisect_revert_mbox(const struct kbuild_env *e, const char *tree, const char *commit,
			struct buf *out, char **err)
{
	struct kbisect_commit c;
	struct buf diff = BUF_INIT(SERIES_MBOX_MAX);
	int rc = -1;

	if (kbisect_describe(e, tree, commit, &c) < 0 || !c.parent) {
		kbisect_commit_release(&c);
		return set_errf(err, "commit %.12s: no parent to revert to", commit);
	}
	/* the change undone: from the commit back to its (first) parent */
	if (mirror_git(e, tree, &diff, err, "diff", "--binary", "--full-index", commit, c.parent,
		       NULL) < 0)
		goto out;
	if (!diff.len) {
		set_errf(err, "commit %.12s changes nothing to revert", commit);
		goto out;
	}
	buf_printf(out, "From %s Mon Sep 17 00:00:00 2001\n"
		   "From: kfleet <kfleet@kfleet.invalid>\n"
		   "Date: Thu, 1 Jan 1970 00:00:00 +0000\n"
		   "Subject: [PATCH] Revert \"%s\"\n\n"
		   "This reverts commit %s: kfleet's check of a bisection's culprit.\n"
		   "---\n", commit, c.subject, commit);
	buf_append(out, diff.data, diff.len);
	rc = out->truncated || diff.truncated ? set_errf(err, "commit %.12s: its revert is too "
							 "big", commit) : 0;
out:
	kbisect_commit_release(&c);
	buf_release(&diff);
	return rc;
}
