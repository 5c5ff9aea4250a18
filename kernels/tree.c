// SPDX-License-Identifier: GPL-2.0-only
/* tree.c: the trees kfleet builds from. Each is a mirror clone under
 * state/trees/NAME.git, synced from its URL; builds and git am work in
 * worktrees of it under state/slots/ (one for every build, whose O=
 * directories are per arch and config, one for git am), kept from one
 * build to the next so that a rebuild only recompiles what changed. Also
 * how kernels/ runs git: a clean environment, and kfleet's own identity
 * on the commits it makes. */
#include "kernels/kernelsint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"

int kbuild_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > KBUILD_NAME_MAX || name[0] == '.' || name[0] == '-')
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

int kbuild_hex40(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

char *kbuild_tree_dir(const struct kbuild_env *e, const char *tree)
{
	char *p = NULL;

	if (asprintf(&p, "%s/trees/%s.git", e->state_dir, tree) < 0)
		return NULL;
	return p;
}

char *kbuild_src_dir(const struct kbuild_env *e, const char *tree)
{
	char *p = NULL;

	if (asprintf(&p, "%s/slots/%s-src", e->state_dir, tree) < 0)
		return NULL;
	return p;
}

char *kbuild_slot_dir(const struct kbuild_env *e, const struct kbuild_spec *s, const char *chash)
{
	char *p = NULL;

	if (asprintf(&p, "%s/slots/%s-%s-%.12s", e->state_dir, s->tree, s->arch, chash) < 0)
		return NULL;
	return p;
}

void kbuild_git_ident(struct cmd *c)
{
	static const char *const names[] = {
		"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL",
	};

	for (size_t i = 0; i < 4; i++)
		cmd_env(c, names[i], i < 2 ? "kfleet" : "kfleet@localhost");
}

struct cmd *kbuild_git(const char *gitdir)
{
	struct cmd *c = cmd_new("git");

	kbuild_git_ident(c);
	/* nothing a build could have left runs: no hooks, no fsmonitor */
	cmd_args(c, "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", NULL);
	if (gitdir)
		cmd_argf(c, "--git-dir=%s", gitdir);
	cmd_env(c, "HOME", "/nonexistent");
	cmd_env(c, "GIT_CONFIG_NOSYSTEM", "1");
	cmd_env(c, "GIT_TERMINAL_PROMPT", "0");
	cmd_env(c, "LANG", "C");
	cmd_env_pass(c, "http_proxy");
	cmd_env_pass(c, "https_proxy");
	cmd_env_pass(c, "no_proxy");
	return c;
}

int kbuild_resolve(const struct kbuild_env *e, const char *tree, const char *rev,
		   char out[41], char **err)
{
	char *dir = kbuild_tree_dir(e, tree), *spec = NULL, *why = NULL;
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	if (!dir || !rev || !*rev || rev[0] == '-' || strlen(rev) > 256 ||
	    asprintf(&spec, "%s^{commit}", rev) < 0) {
		set_errf(err, "tree '%s': revision '%.64s': not a revision", tree, rev ? rev : "");
		goto out;
	}
	c = kbuild_git(dir);
	cmd_args(c, "rev-parse", "--verify", "--quiet", spec, NULL);
	if (kbuild_run_line(c, out, 41, &why) < 0 || !kbuild_hex40(out)) {
		set_errf(err, "tree '%s': no commit '%s'", tree, rev);
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(spec);
	free(dir);
	return rc;
}

int64_t kbuild_commit_order(const struct kbuild_env *e, const char *tree, const char *commit)
{
	char *dir = kbuild_tree_dir(e, tree), line[32] = "", *why = NULL;
	long long n = -1;
	struct cmd *c;

	if (!dir || !kbuild_hex40(commit)) {
		free(dir);
		return -1;
	}
	c = kbuild_git(dir);
	cmd_args(c, "rev-list", "--count", commit, NULL);
	if (kbuild_run_line(c, line, sizeof(line), &why) < 0 || parse_int(line, 0, INT64_MAX, &n) < 0)
		n = -1;
	free(why);
	free(dir);
	return n;
}

/* Runs a long git command (a clone, a fetch, a checkout), which the
 * daemon's shutdown may stop. 0, or -1 with *why (caller frees) */
static int git_long(struct cmd *c, const volatile int *cancel, char **why)
{
	int rc;

	cmd_timeout(c, KBUILD_GIT_TIMEOUT_MS);
	cmd_cancel_on(c, cancel);
	rc = cmd_run(c, why);
	cmd_free(c);
	return rc;
}

/* A first sync: a mirror clone into dir.tmp, renamed to dir when complete */
static int tree_clone(const struct kbuild_env *e, const char *name, const char *url,
		      const char *dir, char **err)
{
	char *parent = NULL, *tmp = NULL, *why = NULL;
	struct cmd *c;
	int rc = -1;

	if (asprintf(&parent, "%s/trees", e->state_dir) < 0 ||
	    asprintf(&tmp, "%s.tmp", dir) < 0 || mkdir_p(parent, 0755) < 0) {
		set_errf(err, "tree '%s': '%s': %s", name, parent ? parent : "?", strerror(errno));
		goto out;
	}
	rm_tree(tmp);
	c = kbuild_git(NULL);
	cmd_args(c, "clone", "--mirror", "--quiet", "--", url, tmp, NULL);
	if (git_long(c, e->cancel, &why) < 0) {
		set_errf(err, "tree '%s': clone '%s': %s", name, url, why ? why : "?");
		rm_tree(tmp);
		goto out;
	}
	if (rename(tmp, dir) < 0) {
		set_errf(err, "tree '%s': rename '%s': %s", name, tmp, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(tmp);
	free(parent);
	return rc;
}

int kbuild_tree_sync(const struct kbuild_env *e, const char *name, const char *url,
		     const char *branch, char head[41], char **err)
{
	char *dir = kbuild_tree_dir(e, name), *why = NULL;
	const char *rev = branch && *branch ? branch : "HEAD";
	struct stat st;
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	if (!dir || !kbuild_name_ok(name)) {
		set_errf(err, "tree '%s': not a tree name", name ? name : "");
		goto out;
	}
	if (!url || !*url || url[0] == '-') {
		set_errf(err, "tree '%s': no URL or path", name);
		goto out;
	}
	if (stat(dir, &st) < 0) {
		if (tree_clone(e, name, url, dir, err) < 0)
			goto out;
	} else {
		c = kbuild_git(dir);
		cmd_args(c, "remote", "update", "--prune", NULL);
		if (git_long(c, e->cancel, &why) < 0) {
			set_errf(err, "tree '%s': fetch '%s': %s", name, url, why ? why : "?");
			goto out;
		}
	}
	if (kbuild_resolve(e, name, rev, head, &why) < 0) {
		set_errf(err, "tree '%s': branch '%s': not in '%s'", name, rev, url);
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(dir);
	return rc;
}

char *kbuild_worktree_gitdir(const char *gitdir, const char *dir)
{
	const char *base = strrchr(dir, '/');
	char *p = NULL;

	if (asprintf(&p, "%s/worktrees/%s", gitdir, base ? base + 1 : dir) < 0)
		return NULL;
	return p;
}

struct cmd *kbuild_git_in(const char *gitdir, const char *dir)
{
	char *wt = kbuild_worktree_gitdir(gitdir, dir);
	struct cmd *c = kbuild_git(wt);

	cmd_argf(c, "--work-tree=%s", dir);
	cmd_dir(c, dir);
	free(wt);
	return c;
}

/* Whether dir/.git is what git worktree add wrote: a regular file naming
 * the worktree's metadata in the tree's mirror, so that no git of
 * kfleet's runs with a gitdir (hooks, config, alternates) someone else
 * planted there */
static int worktree_intact(const char *gitdir, const char *dir)
{
	char *gitfile = path_join(dir, ".git"), *wt = kbuild_worktree_gitdir(gitdir, dir);
	char *want = NULL;
	struct buf have = BUF_INIT(8192);
	struct stat st;
	int ok = 0;

	if (gitfile && wt && asprintf(&want, "gitdir: %s\n", wt) >= 0 &&
	    lstat(gitfile, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
	    read_file(gitfile, &have, 8192) == 0 && !strcmp(buf_str(&have), want) &&
	    lstat(wt, &st) == 0 && S_ISDIR(st.st_mode))
		ok = 1;
	buf_release(&have);
	free(want);
	free(wt);
	free(gitfile);
	return ok;
}

void kbuild_am_abort(const char *gitdir, const char *dir)
{
	struct cmd *c = kbuild_git_in(gitdir, dir);

	cmd_args(c, "am", "--abort", NULL);
	cmd_run(c, NULL);
	cmd_free(c);
}

/* git SUBCOMMAND ARGS... in the worktree dir, as a long command */
static int in_worktree(const char *gitdir, const char *dir, char **why, ...)
	__attribute__((sentinel));
static int in_worktree(const char *gitdir, const char *dir, char **why, ...)
{
	struct cmd *c = kbuild_git_in(gitdir, dir);
	const char *a;
	va_list ap;

	va_start(ap, why);
	while ((a = va_arg(ap, const char *)))
		cmd_arg(c, a);
	va_end(ap);
	return git_long(c, NULL, why);
}

int kbuild_worktree_at(const struct kbuild_env *e, const char *tree, const char *dir,
		       const char *commit, char **err)
{
	char *gitdir = kbuild_tree_dir(e, tree), *why = NULL, *gitfile = NULL;
	struct cmd *c;
	int rc = -1;

	if (!gitdir || asprintf(&gitfile, "%s/.git", dir) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (!worktree_intact(gitdir, dir)) {
		if (access(gitfile, F_OK) == 0)
			log_warn("worktree '%s': its .git is not the one kfleet made: made anew", dir);
		rm_tree(dir);
		c = kbuild_git(gitdir);
		cmd_args(c, "worktree", "prune", NULL);
		cmd_run(c, NULL);
		cmd_free(c);
		c = kbuild_git(gitdir);
		cmd_args(c, "worktree", "add", "--detach", "--force", "--quiet", dir, commit, NULL);
		if (git_long(c, NULL, &why) < 0) {
			set_errf(err, "worktree '%s': %s", dir, why ? why : "?");
			goto out;
		}
		rc = 0;
		goto out;
	}
	/* a git am left half done by a daemon that died */
	kbuild_am_abort(gitdir, dir);
	if (in_worktree(gitdir, dir, &why, "checkout", "--quiet", "--detach", "--force", commit,
			NULL) < 0) {
		set_errf(err, "worktree '%s': checkout %.12s: %s", dir, commit, why ? why : "?");
		goto out;
	}
	if (in_worktree(gitdir, dir, &why, "clean", "-fdxq", NULL) < 0) {
		set_errf(err, "worktree '%s': clean: %s", dir, why ? why : "?");
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(gitfile);
	free(gitdir);
	return rc;
}
