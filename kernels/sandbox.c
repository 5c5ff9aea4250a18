/* sandbox.c: how kernels/ runs programs. A tree's own code (git am, make,
 * the tree's scripts) is untrusted, so it runs under bwrap, with only the
 * worktree and output writable and no network; make gets kbuild's
 * arguments for the arch (cross compiler, ccache, a fixed build identity),
 * and a build's steps share its log and its deadline. kfleet's own short
 * commands (a version, a copy) run plain. */
#include "kernels/kernelsint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define KBUILD_TIMESTAMP "Thu Jan  1 00:00:00 UTC 1970"

struct cmd *kbuild_sandboxed(const struct kbuild_env *e, const char *const *rw,
			     const char *const *ro, const char *prog)
{
	struct cmd *c;

	if (!e->sandbox)
		return cmd_new(prog);
	c = cmd_new("bwrap");
	cmd_args(c, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
		 "--tmpfs", "/tmp", "--unshare-net", "--unshare-ipc", "--unshare-pid",
		 "--unshare-uts", "--die-with-parent", NULL);
	cmd_args(c, "--ro-bind", e->state_dir, e->state_dir, NULL);
	if (e->configs_dir)
		cmd_args(c, "--ro-bind-try", e->configs_dir, e->configs_dir, NULL);
	for (size_t i = 0; ro && ro[i]; i++)
		cmd_args(c, "--ro-bind-try", ro[i], ro[i], NULL);
	for (size_t i = 0; rw[i]; i++)
		cmd_args(c, "--bind", rw[i], rw[i], NULL);
	cmd_args(c, "--", prog, NULL);
	cmd_label(c, prog);
	return c;
}

struct cmd *kbuild_make(const struct kbuild_steps *st)
{
	const struct kbuild_env *e = st->e;
	struct cmd *c = kbuild_sandboxed(e, st->rw, st->ro, "make");
	int arm = !strcmp(st->arch, "arm64");
	char *ccache = NULL;

	cmd_args(c, "-C", st->src, NULL);
	cmd_argf(c, "O=%s", st->obj);
	cmd_argf(c, "ARCH=%s", st->arch);
	if (arm)
		cmd_arg(c, "CROSS_COMPILE=aarch64-linux-gnu-");
	if (e->ccache && access("/usr/bin/ccache", X_OK) == 0) {
		cmd_argf(c, "CC=ccache %sgcc", arm ? "aarch64-linux-gnu-" : "");
		if (asprintf(&ccache, "%s/ccache", e->state_dir) >= 0) {
			cmd_env(c, "CCACHE_DIR", ccache);
			cmd_env(c, "CCACHE_BASEDIR", st->src);
			cmd_env(c, "CCACHE_NOHASHDIR", "1");
			free(ccache);
		}
	}
	cmd_env(c, "HOME", "/tmp");
	cmd_env(c, "LANG", "C");
	cmd_env(c, "KBUILD_BUILD_TIMESTAMP", KBUILD_TIMESTAMP);
	cmd_env(c, "KBUILD_BUILD_USER", "kfleet");
	cmd_env(c, "KBUILD_BUILD_HOST", "kfleet");
	cmd_env(c, "KBUILD_BUILD_VERSION", "1");
	return c;
}

int kbuild_step(struct kbuild_steps *st, struct cmd *c, const char *what, char **err)
{
	int64_t left = st->deadline - mono_ms();
	char *why = NULL;
	int rc = 0;

	if (left < 1000)
		left = 1000;
	if (st->log)   /* the stage, for kbuild_log_progress */
		kbuild_log_note(st->log, "step %s", what);
	cmd_stdout_append(c, st->log);
	cmd_stderr_to_stdout(c);
	cmd_cancel_on(c, st->e->cancel);
	cmd_timeout(c, (int)(left > INT32_MAX ? INT32_MAX : left));
	if (cmd_run(c, &why) < 0) {
		const struct cmd_result *r = cmd_result(c);

		set_errf(err, "%s: %s", what, why ? why : "?");
		rc = r->end == CMD_END_SPAWN ? -1 : 1;
		st->failed = 1;
	}
	free(why);
	cmd_free(c);
	return rc;
}

int kbuild_run_line(struct cmd *c, char *out, size_t n, char **err)
{
	struct buf b = BUF_INIT(64 * 1024);
	int rc;

	cmd_stdout_buf(c, &b);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	rc = cmd_run(c, err);
	if (rc == 0) {
		const char *s = buf_str(&b);
		size_t len = strcspn(s, "\n");

		if (len >= n)
			len = n - 1;
		memcpy(out, s, len);
		out[len] = '\0';
	}
	buf_release(&b);
	cmd_free(c);
	return rc;
}

int kbuild_copy(const char *from, const char *to, char **err)
{
	struct cmd *c = cmd_new("cp");

	cmd_args(c, "--", from, to, NULL);
	int rc = cmd_run(c, err);

	cmd_free(c);
	return rc;
}
