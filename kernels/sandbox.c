// SPDX-License-Identifier: GPL-2.0-only
/* sandbox.c: how kernels/ runs programs. A series is code from anyone, and
 * a tree's own make runs it, so every build step runs under bwrap as the
 * unprivileged build user ([build] user), with no capabilities, in new
 * namespaces (no network), a new session, killed with kfleetd, and sees
 * only what a kernel build needs (box_binds below, each with why): never
 * the state directory, the token, /run or any socket, /etc/shadow or a
 * home directory. make gets kbuild's arguments for the arch (cross
 * compiler, ccache, a fixed build identity), its log is capped and its
 * disk use watched, and a build's steps share its log and its deadline.
 * kfleet's own short commands (a version) run plain. */
#include "kernels/kernelsint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define KBUILD_TIMESTAMP "Thu Jan  1 00:00:00 UTC 1970"
#define BOX_TMP_SIZE     "1073741824"   /* the sandbox's /tmp: gcc's temporary files */
#define BOX_WATCH_MS     5000           /* how often a build's disk use is counted */

/* What a build sees of the host, read-only, and why. Nothing else of the
 * host is there: the sandbox's root is an empty tmpfs. */
static const struct box_bind {
	const char *path;
	const char *why;
} box_binds[] = {
	{ "/usr", "the toolchain: gcc, binutils, make, perl, python3, flex, bison, bc, ccache" },
	{ "/etc/alternatives", "Debian's links for tools (awk, cc, ld.gold) point here" },
	{ "/etc/ld.so.cache", "the dynamic linker's cache of /usr/lib" },
	{ "/etc/ld.so.conf", "the dynamic linker's paths" },
	{ "/etc/ld.so.conf.d", "the dynamic linker's paths (multiarch, cross)" },
	{ "/etc/python3.11", "python3's site configuration (Debian's sitecustomize)" },
	{ "/boot", "distro kernels and configs: a config = /boot/config-X, the BTF a stock "
		   "kernel's BPF selftests build against" },
	{ "/opt/kfleet", "kfleet's arm64 guest kernel and modules (images/fetch-arm64.sh)" },
};

/* The top-level names that are links into /usr on a merged-/usr system
 * (Debian 12): made as the same links, else bound like /usr */
static const char *const box_usr_links[] = { "/bin", "/sbin", "/lib", "/lib64", "/lib32",
					     "/libx32" };

const char *kbuild_box_why(const char *path)
{
	for (size_t i = 0; i < sizeof(box_binds) / sizeof(box_binds[0]); i++)
		if (!strcmp(box_binds[i].path, path))
			return box_binds[i].why;
	return NULL;
}

/* Whether path is shown already, under one of box_binds (or a link into
 * one: /lib/modules/R/build is /usr/src/linux-headers-R): bound again, its
 * mount point would have to be made inside a read-only bind */
static int box_shown(const char *path)
{
	char real[4096];
	const char *p[2] = { path, realpath(path, real) ? real : NULL };

	for (int k = 0; k < 2; k++)
		for (size_t i = 0; p[k] && i < sizeof(box_binds) / sizeof(box_binds[0]); i++) {
			size_t n = strlen(box_binds[i].path);

			if (!strncmp(p[k], box_binds[i].path, n) && (!p[k][n] || p[k][n] == '/'))
				return 1;
		}
	return !strncmp(path, "/lib/", 5) || !strncmp(path, "/lib64/", 7) ||
	       !strncmp(path, "/bin/", 5) || !strncmp(path, "/sbin/", 6);
}

/* The host's root directories as the sandbox shows them */
static void box_host(struct cmd *c)
{
	for (size_t i = 0; i < sizeof(box_binds) / sizeof(box_binds[0]); i++)
		cmd_args(c, "--ro-bind-try", box_binds[i].path, box_binds[i].path, NULL);
	for (size_t i = 0; i < sizeof(box_usr_links) / sizeof(box_usr_links[0]); i++) {
		char to[64];
		ssize_t n = readlink(box_usr_links[i], to, sizeof(to) - 1);

		if (n > 0) {
			to[n] = '\0';
			cmd_args(c, "--symlink", to, box_usr_links[i], NULL);
		} else {
			cmd_args(c, "--ro-bind-try", box_usr_links[i], box_usr_links[i], NULL);
		}
	}
}

struct cmd *kbuild_box_cmd(const struct kbuild_env *e, const struct kbuild_box *b,
			   const char *prog)
{
	struct cmd *c;

	if (!e->sandbox)
		return cmd_new(prog);
	if (!b->root && geteuid() == 0) {
		/* the build user, no groups, no capabilities (inherited or ever
		 * gained: no_new_privs) before bwrap starts */
		c = cmd_new("setpriv");
		cmd_argf(c, "--reuid=%u", (unsigned)e->uid);
		cmd_argf(c, "--regid=%u", (unsigned)e->gid);
		cmd_args(c, "--clear-groups", "--inh-caps=-all", "--bounding-set=-all",
			 "--no-new-privs", "--", "bwrap", NULL);
	} else {
		c = cmd_new("bwrap");
	}
	/* new user (when not root: bwrap needs it), mount, pid, net, ipc,
	 * uts and cgroup namespaces; no nested user namespace; a new session
	 * (no TIOCSTI into a terminal); everything dies with kfleetd's step */
	cmd_args(c, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
		 NULL);
	if (!b->root)
		cmd_args(c, "--unshare-user", "--disable-userns", NULL);
	box_host(c);
	cmd_args(c, "--dev", "/dev", "--proc", "/proc", "--size", BOX_TMP_SIZE, "--tmpfs", "/tmp",
		 NULL);
	if (e->configs_dir)
		cmd_args(c, "--ro-bind-try", e->configs_dir, e->configs_dir, NULL);
	for (size_t i = 0; b->ro && b->ro[i]; i++)
		if (!box_shown(b->ro[i]))
			cmd_args(c, "--ro-bind-try", b->ro[i], b->ro[i], NULL);
	for (size_t i = 0; b->rw && b->rw[i]; i++)
		cmd_args(c, "--bind", b->rw[i], b->rw[i], NULL);
	if (b->map_from && b->map_to)
		cmd_args(c, "--bind", b->map_from, b->map_to, NULL);
	if (b->chdir)
		cmd_args(c, "--chdir", b->chdir, NULL);
	cmd_args(c, "--", prog, NULL);
	cmd_label(c, prog);
	return c;
}

struct cmd *kbuild_sandboxed(const struct kbuild_env *e, const char *const *rw,
			     const char *const *ro, const char *prog)
{
	struct kbuild_box b = { .rw = rw, .ro = ro };

	return kbuild_box_cmd(e, &b, prog);
}

/* make's ccache: a build of a series reads the cache and never adds to it
 * (what it would add, a later build of another series would take) */
static void make_ccache(struct cmd *c, const struct kbuild_steps *st, int arm)
{
	const struct kbuild_env *e = st->e;
	char *ccache = NULL;

	if (!e->ccache || access("/usr/bin/ccache", X_OK) < 0)
		return;
	cmd_argf(c, "CC=ccache %sgcc", arm ? "aarch64-linux-gnu-" : "");
	if (asprintf(&ccache, "%s/ccache", e->state_dir) < 0)
		return;
	cmd_env(c, "CCACHE_DIR", ccache);
	cmd_env(c, "CCACHE_BASEDIR", st->src);
	cmd_env(c, "CCACHE_NOHASHDIR", "1");
	/* depend mode: a miss compiles once, with kbuild's -Wp,-MMD giving
	 * ccache the headers, where the default runs the preprocessor first
	 * (ccache's manual: a miss costs 5-20 % more, 1-3 % in depend mode;
	 * most of a cold build is misses) */
	cmd_env(c, "CCACHE_DEPEND", "1");
	if (st->untrusted) {
		cmd_env(c, "CCACHE_READONLY", "1");
		cmd_env(c, "CCACHE_NOSTATS", "1");
		cmd_env(c, "CCACHE_TEMPDIR", "/tmp");
	}
	free(ccache);
}

struct cmd *kbuild_step_cmd(const struct kbuild_steps *st, const char *prog, const char *dir)
{
	struct kbuild_box b = {
		.rw = st->rw, .ro = st->ro, .map_from = st->obj_from, .map_to = st->obj,
		.chdir = dir,
	};
	struct cmd *c = kbuild_box_cmd(st->e, &b, prog);

	if (!st->e->sandbox && dir)
		cmd_dir(c, dir);
	return c;
}

const char *kbuild_obj_host(const struct kbuild_steps *st)
{
	return st->obj_from ? st->obj_from : st->obj;
}

struct cmd *kbuild_make(const struct kbuild_steps *st)
{
	struct cmd *c = kbuild_step_cmd(st, "make", NULL);
	int arm = !strcmp(st->arch, "arm64");

	cmd_args(c, "-C", st->src, NULL);
	cmd_argf(c, "O=%s", st->obj);
	cmd_argf(c, "ARCH=%s", st->arch);
	if (arm)
		cmd_arg(c, "CROSS_COMPILE=aarch64-linux-gnu-");
	make_ccache(c, st, arm);
	cmd_env(c, "HOME", "/tmp");
	cmd_env(c, "LANG", "C");
	cmd_env(c, "KBUILD_BUILD_TIMESTAMP", KBUILD_TIMESTAMP);
	cmd_env(c, "KBUILD_BUILD_USER", "kfleet");
	cmd_env(c, "KBUILD_BUILD_HOST", "kfleet");
	cmd_env(c, "KBUILD_BUILD_VERSION", "1");
	/* setlocalversion's git reads the tree (root's, read-only here) as
	 * the build user: ownership is no reason to refuse it. Its status
	 * compares each file's stat with the index's, uid and inode too; in
	 * the build's user namespace root's files show the overflow uid, so
	 * every file of the tree would differ and be hashed again, at each
	 * make (15-20 s of a build: bench/build-ab.sh). Size and mtime are
	 * what says a file changed; minimal compares only those. */
	cmd_env(c, "GIT_CONFIG_COUNT", "2");
	cmd_env(c, "GIT_CONFIG_KEY_0", "safe.directory");
	cmd_env(c, "GIT_CONFIG_VALUE_0", "*");
	cmd_env(c, "GIT_CONFIG_KEY_1", "core.checkStat");
	cmd_env(c, "GIT_CONFIG_VALUE_1", "minimal");
	return c;
}

/* ---- a build's disk use ---- */

/* cmd_watch()'s check: the directories the step may write, counted */
static int watch_disk(void *arg, char *why, size_t n)
{
	const struct kbuild_steps *st = arg;
	int64_t all = 0;

	for (size_t i = 0; st->count && st->count[i]; i++) {
		all += (int64_t)disk_use(st->count[i]);
	}
	if (all <= st->e->disk_max)
		return 0;
	snprintf(why, n, "the build wrote %lld MiB, past [build] disk_max (%lld MiB)",
		 (long long)(all >> 20), (long long)(st->e->disk_max >> 20));
	return 1;
}

int kbuild_step(struct kbuild_steps *st, struct cmd *c, const char *what, char **err)
{
	int64_t t0 = mono_ms(), left = st->deadline - t0;
	char *why = NULL;
	int rc = 0;

	if (left < 1000)
		left = 1000;
	if (st->log)   /* the stage, for kbuild_log_progress */
		kbuild_log_note(st->log, "step %s", what);
	if (st->e->log_max > 0)
		cmd_stdout_append_max(c, st->log, st->e->log_max);
	else
		cmd_stdout_append(c, st->log);
	cmd_stderr_to_stdout(c);
	cmd_cancel_on(c, st->e->cancel);
	if (st->e->disk_max > 0 && st->count)
		cmd_watch(c, watch_disk, st, BOX_WATCH_MS);
	cmd_timeout(c, (int)(left > INT32_MAX ? INT32_MAX : left));
	if (cmd_run(c, &why) < 0) {
		const struct cmd_result *r = cmd_result(c);

		set_errf(err, "%s: %s", what, why ? why : "?");
		rc = r->end == CMD_END_SPAWN ? -1 : 1;
		st->failed = 1;
		if (r->overflow)
			kbuild_log_note(st->log, "log cut at [build] log_max (%lld bytes): %s stopped",
					(long long)st->e->log_max, what);
	}
	/* where a build's time went, step by step */
	if (st->log)
		kbuild_log_note(st->log, "%s took %lld ms", what, (long long)(mono_ms() - t0));
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
