// SPDX-License-Identifier: GPL-2.0-only
/* apply.c: a series onto its base. git am -3 runs in the tree's apply
 * worktree (state/slots/TREE-apply), sandboxed like a build; the commits it
 * makes are kfleet's with the patches' dates, so one series on one base is
 * always one commit, which a ref under refs/kfleet/applied keeps. When the
 * series does not apply, git's output says which patch and file. */
#include "kernels/kernelsint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"

void kbuild_am_failure(const char *out, size_t len, int count, char *why, size_t n)
{
	static const char *const file_marks[] = {
		"Merge conflict in ", "error: patch failed: ", "lacking or useless (",
		"error: ", NULL,
	};
	char file[256] = "", idx[32] = "";
	const char *p = out, *end = out + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		const char *m;

		if (l > 16 && !strncmp(p, "Patch failed at ", 16) && !idx[0]) {
			int k = 0;

			/* "0002 subject": the digits within the line only */
			for (size_t i = 16; i < l && p[i] >= '0' && p[i] <= '9' && k < 100000; i++)
				k = k * 10 + (p[i] - '0');
			if (k > 0)
				snprintf(idx, sizeof(idx), "patch %d/%d", k, count);
		}
		for (int i = 0; !file[0] && file_marks[i]; i++) {
			size_t ml = strlen(file_marks[i]);

			m = memmem(p, l, file_marks[i], ml);
			if (!m)
				continue;
			m += ml;
			size_t fl = (size_t)(p + l - m);
			/* "error: patch failed: f.c:12", "(f.c).", "error: f.c: does not exist" */
			const char *stop = memchr(m, ':', fl);

			if (i == 2)
				stop = memchr(m, ')', fl);
			if (i == 3 && (!stop || !memmem(m, fl, "does not", 8)))
				continue;
			if (stop)
				fl = (size_t)(stop - m);
			if (fl >= sizeof(file))
				fl = sizeof(file) - 1;
			memcpy(file, m, fl);
			file[fl] = '\0';
		}
		p += l + 1;
	}
	if (!idx[0])
		snprintf(idx, sizeof(idx), "a patch");
	if (file[0])
		snprintf(why, n, "%s, %s", idx, file);
	else
		snprintf(why, n, "%s", idx);
}

/* git am -3 of mbox in the worktree dir, its output into out. 0 applied,
 * 1 it did not apply (am aborted, *err says where), -1 git did not run */
static int am_run(const struct kbuild_env *e, const char *dir, const char *gitdir,
		  const char *base, const char *mbox, int count, struct buf *out, char **err)
{
	const char *rw[3] = { dir, gitdir, NULL }, *ro[2] = { mbox, NULL };
	/* git, not the series' code, runs here: as root (it writes the
	 * mirror) but without any capability, seeing only these */
	struct kbuild_box box = { .rw = rw, .ro = ro, .chdir = dir, .root = 1 };
	char amwhy[384], *why = NULL, *wt = kbuild_worktree_gitdir(gitdir, dir);
	struct cmd *c = kbuild_box_cmd(e, &box, "git");
	int rc = 0;

	cmd_args(c, "-c", "core.hooksPath=/dev/null", NULL);
	cmd_argf(c, "--git-dir=%s", wt ? wt : "?");
	cmd_argf(c, "--work-tree=%s", dir);
	cmd_args(c, "am", "-3", "--committer-date-is-author-date", "--keep-cr", mbox, NULL);
	free(wt);
	if (!e->sandbox)
		cmd_dir(c, dir);
	cmd_label(c, "git am");
	cmd_env(c, "HOME", "/nonexistent");
	cmd_env(c, "GIT_CONFIG_NOSYSTEM", "1");
	cmd_env(c, "LANG", "C");
	kbuild_git_ident(c);
	cmd_stdout_buf(c, out);
	cmd_stderr_to_stdout(c);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS * 5);
	if (cmd_run(c, &why) < 0) {
		const struct cmd_result *res = cmd_result(c);

		if (res && res->end != CMD_END_EXIT) {
			set_errf(err, "git am on %.12s: %s", base, why ? why : "?");
			rc = -1;
		} else {
			kbuild_am_failure(buf_str(out), out->len, count, amwhy, sizeof(amwhy));
			set_errf(err, "does not apply on %.12s: %s", base, amwhy);
			kbuild_am_abort(gitdir, dir);
			rc = 1;
		}
	}
	cmd_free(c);
	free(why);
	return rc;
}

/* A ref on the applied commit, named after the series' content and base,
 * keeps it from git gc; only a warning when git cannot make it. -1 when
 * out of memory */
static int keep_applied(const char *tree, const char *gitdir, const char *base,
			 const struct buf *mb, const char *commit)
{
	char key[65], *ref = NULL, *why = NULL;
	struct cmd *c;

	sha256_mem(buf_str(mb), mb->len, key);
	if (asprintf(&ref, "refs/kfleet/applied/%.16s-%.12s", key, base) < 0)
		return -1;
	c = kbuild_git(gitdir);
	cmd_args(c, "update-ref", ref, commit, NULL);
	if (cmd_run(c, &why) < 0)
		log_warn("tree '%s': update-ref '%s': %s", tree, ref, why ? why : "?");
	cmd_free(c);
	free(why);
	free(ref);
	return 0;
}

int kbuild_apply(const struct kbuild_env *e, const char *tree, const char *base,
		 const char *mbox, int count, char commit[41], struct buf *log, char **err)
{
	char *dir = NULL, *gitdir = kbuild_tree_dir(e, tree), *why = NULL;
	struct buf out = BUF_INIT(1u << 20);
	struct buf mb = BUF_INIT(SERIES_MBOX_MAX);
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	if (!gitdir || asprintf(&dir, "%s/slots/%s-apply", e->state_dir, tree) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (kbuild_worktree_at(e, tree, dir, base, err) < 0)
		goto out;
	/* the commits name the series' content and base: the same series gives
	 * the same commits, and the ref keeps them from git gc */
	if (read_file(mbox, &mb, SERIES_MBOX_MAX) < 0) {
		set_errf(err, "mbox '%s': %s", mbox, strerror(errno));
		goto out;
	}
	rc = am_run(e, dir, gitdir, base, mbox, count, &out, err);
	if (log)
		buf_append(log, buf_str(&out), out.len);
	if (rc != 0)
		goto out;
	rc = -1;
	c = kbuild_git_in(gitdir, dir);
	cmd_args(c, "rev-parse", "HEAD", NULL);
	if (kbuild_run_line(c, commit, 41, &why) < 0 || !kbuild_hex40(commit)) {
		set_errf(err, "git am on %.12s: no commit after it: %s", base, why ? why : "?");
		goto out;
	}
	if (keep_applied(tree, gitdir, base, &mb, commit) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(dir);
	free(gitdir);
	buf_release(&out);
	buf_release(&mb);
	return rc;
}
