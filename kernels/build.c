// SPDX-License-Identifier: GPL-2.0-only
/* build.c: a kernel from a tree at a commit, as a sequence of steps. The
 * tree's worktree is checked out at the commit (tree.c); the slot for
 * (tree, arch, config), its O= directory, is configured and checked
 * (kconfig.c), a new slot first taking a sibling's objects when they are
 * of the same .config (slot.c); make builds the image and the modules
 * under bwrap (sandbox.c), and the result lands as a content-addressed
 * artifact in state/builds/KEY: vmlinuz, config, lib/modules, build.log
 * (buildlog.c). Also the build key and the toolchain in it. */
#include "kernels/kernelsint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define SANDBOX_RO_MAX 32

int kbuild_toolchain(const char *arch, char *out, size_t n)
{
	const char *pre = strcmp(arch, "arm64") ? "" : "aarch64-linux-gnu-";
	char cc[200] = "", ld[200] = "", *why = NULL;
	struct cmd *c;

	c = cmd_new(*pre ? "aarch64-linux-gnu-gcc" : "gcc");
	cmd_arg(c, "--version");
	if (kbuild_run_line(c, cc, sizeof(cc), &why) < 0) {
		free(why);
		return -1;
	}
	c = cmd_new(*pre ? "aarch64-linux-gnu-ld" : "ld");
	cmd_arg(c, "--version");
	if (kbuild_run_line(c, ld, sizeof(ld), &why) < 0) {
		free(why);
		return -1;
	}
	snprintf(out, n, "%s; %s", cc, ld);
	return 0;
}

void kbuild_key(const char *commit, const char *config_hash, const char *arch,
		const char *toolchain, char out[65])
{
	struct buf b = BUF_INIT(0);

	buf_printf(&b, "%s\ncommit %s\nconfig %s\narch %s\ntoolchain %s\n", KBUILD_FORMAT,
		   commit, config_hash, arch, toolchain);
	sha256_mem(buf_str(&b), b.len, out);
	buf_release(&b);
}

void kbuild_result_release(struct kbuild_result *r)
{
	if (!r)
		return;
	free(r->dir);
	free(r->kernel);
	free(r->log);
	free(r->dropped);
	free(r->errors);
	memset(r, 0, sizeof(*r));
}

/* One kbuild_build(): the tree's worktree src, its slot and the slot's O=
 * directory obj, what the sandbox lets its steps write and read, their log
 * and deadline (st), and what the config says */
struct build {
	const struct kbuild_env *e;
	const struct kbuild_spec *s;
	struct kbuild_result *r;
	char *slot, *src, *obj, *ccache, *gitdir;
	struct kbuild_stage sg;
	const char *rw[4], *ro[SANDBOX_RO_MAX + 6], *count[3];
	size_t nro;
	struct kbuild_steps st;
	int modules;
	int fresh;                /* the slot had no obj before this build */
	const char *chash;        /* the spec's config hash (kbuild_config_hash) */
	char inputs[65];          /* what the .config is made from (kbuild_configure) */
	int64_t t0;
};

static void build_init(struct build *b, const struct kbuild_env *e, const struct kbuild_spec *s,
		       struct kbuild_result *r)
{
	size_t nro = 0;

	memset(b, 0, sizeof(*b));
	b->e = e;
	b->s = s;
	b->r = r;
	b->t0 = mono_ms();
	/* the config files outside the tree, readable in the sandbox */
	if (s->config[0] == '/')
		b->ro[nro++] = s->config;
	for (size_t i = 0; i < s->nfragments && nro < SANDBOX_RO_MAX; i++)
		if (s->fragments[i][0] == '/')
			b->ro[nro++] = s->fragments[i];
	b->ro[nro] = NULL;
	b->nro = nro;
	b->st.e = e;
	b->st.arch = s->arch;
	b->st.rw = b->rw;
	b->st.ro = b->ro;
	b->st.deadline = b->t0 + (int64_t)e->timeout_s * 1000;
}

static void build_release(struct build *b)
{
	kbuild_stage_release(&b->sg);
	free(b->gitdir);
	free(b->ccache);
	free(b->obj);
	free(b->src);
	free(b->slot);
}

/* A slot of the layout before the tree's one worktree had a worktree of
 * its own, src/, which its objects name: both go (the worktree's git
 * metadata with them), so the slot starts again as a new one */
static void build_old_slot(struct build *b)
{
	char *old = path_join(b->slot, "src"), *gitdir = kbuild_tree_dir(b->e, b->s->tree);
	struct cmd *c;

	if (old && gitdir && access(old, F_OK) == 0) {
		rm_tree(old);
		rm_tree(b->obj);
		c = kbuild_git(gitdir);
		cmd_args(c, "worktree", "prune", NULL);
		cmd_timeout(c, KBUILD_GIT_SHORT_MS);
		cmd_run(c, NULL);
		cmd_free(c);
		kbuild_log_note(b->r->log, "slot '%s': its own worktree removed, the tree's is used",
				b->slot);
	}
	free(gitdir);
	free(old);
}

/* What the steps see: the worktree, the tree's git metadata (kbuild's
 * setlocalversion reads it), kfleetd's inputs and, for a series, ccache
 * read-only; they write the stage, O= (a series: its overlay, bound at
 * the slot's obj) and, for the tree's own commits, ccache */
static void build_box(struct build *b)
{
	size_t nro = b->nro, nrw = 0;
	int untrusted = b->s->untrusted;

	b->ro[nro++] = b->src;
	b->ro[nro++] = b->gitdir;
	b->ro[nro++] = b->sg.in;
	if (b->e->ccache && untrusted)
		b->ro[nro++] = b->ccache;
	b->ro[nro] = NULL;
	b->rw[nrw++] = b->sg.dir;
	if (b->e->ccache && !untrusted)
		b->rw[nrw++] = b->ccache;
	if (!untrusted)
		b->rw[nrw++] = b->obj;
	b->rw[nrw] = NULL;
	b->count[0] = b->sg.dir;
	b->count[1] = untrusted ? (b->sg.mounted ? b->sg.upper : b->sg.merged) : b->obj;
	b->count[2] = NULL;
	b->st.src = b->src;
	b->st.obj = b->obj;
	b->st.obj_from = untrusted ? b->sg.merged : NULL;
	b->st.in = b->sg.in;
	b->st.untrusted = untrusted;
	b->st.count = b->count;
	b->st.log = b->r->log;
}

/* The slot and a fresh artifact directory; the worktree at the commit */
static int build_prepare(struct build *b, const char *chash, const char *key, char **err)
{
	const struct kbuild_env *e = b->e;
	const struct kbuild_spec *s = b->s;
	struct kbuild_result *r = b->r;

	if (!(b->slot = kbuild_slot_dir(e, s, chash)) || !(b->src = kbuild_src_dir(e, s->tree)) ||
	    !(b->gitdir = kbuild_tree_dir(e, s->tree)) || asprintf(&b->obj, "%s/obj", b->slot) < 0 ||
	    asprintf(&r->dir, "%s/builds/%s", e->state_dir, key) < 0 ||
	    asprintf(&r->log, "%s/build.log", r->dir) < 0 ||
	    asprintf(&r->kernel, "%s/vmlinuz", r->dir) < 0 ||
	    asprintf(&b->ccache, "%s/ccache", e->state_dir) < 0)
		return set_errf(err, "out of memory");
	rm_tree(r->dir);
	if (mkdir_p(r->dir, 0755) < 0)
		return set_errf(err, "build '%s': %s", r->dir, strerror(errno));
	kbuild_log_note(r->log, "tree %s commit %s arch %s config %s", s->tree, s->commit, s->arch,
			s->config);
	/* from here on the slot is not a complete build of anything (a
	 * series' build leaves it as it is: it writes through an overlay) */
	if (!s->untrusted) {
		if (kbuild_slot_mark_clear(b->slot) < 0)
			return set_errf(err, "slot '%s': %s", b->slot, strerror(errno));
		build_old_slot(b);
		b->fresh = access(b->obj, F_OK) < 0;
	}
	if (mkdir_p(b->ccache, 0755) < 0 || (!s->untrusted && kbuild_own(e, b->ccache) < 0))
		return set_errf(err, "build '%s': %s", b->ccache, strerror(errno));
	if (kbuild_worktree_at(e, s->tree, b->src, s->commit, err) < 0 ||
	    kbuild_stage_open(e, key, b->obj, s->untrusted, &b->sg, err) < 0)
		return -1;
	if (b->sg.note)
		kbuild_log_note(r->log, "%s", b->sg.note);
	build_box(b);
	return 0;
}

/* What this build makes of the slot: its tree, arch and commit; with
 * config, the .config as it is now (0 / -1), else any (0) */
static int build_mark(struct build *b, int config, struct kbuild_slot_mark *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->tree, sizeof(m->tree), "%s", b->s->tree);
	snprintf(m->arch, sizeof(m->arch), "%s", b->s->arch);
	snprintf(m->commit, sizeof(m->commit), "%s", b->s->commit);
	return config ? kbuild_slot_config(b->obj, m->config) : 0;
}

/* A new slot's obj from the sibling pick names (with want.config "" any
 * of the tree and arch, the nearest): 0 copied, -1 not (logged) */
static int build_seed(struct build *b, struct kbuild_sibling *sib, int pick)
{
	char *why = NULL;
	int64_t t = mono_ms();
	long rewritten = 0;
	int rc = kbuild_slot_copy(&b->st, sib[pick].dir, b->slot, &rewritten, &why);

	if (rc < 0) {
		kbuild_log_note(b->r->log, "slot not seeded: %s", why ? why : "?");
		sib[pick].changed = -1;
		mkdir_p(b->obj, 0755);
		kbuild_own(b->e, b->obj);
	} else {
		kbuild_own(b->e, b->obj);   /* copied by root */
		kbuild_log_note(b->r->log, "slot '%s': the objects of '%s' at %.12s copied, %ld "
				"dependency files rewritten (%lld ms)", strrchr(b->slot, '/') + 1,
				strrchr(sib[pick].dir, '/') + 1, sib[pick].m.commit, rewritten,
				(long long)(mono_ms() - t));
	}
	free(why);
	return rc;
}

/* The config made in the slot. A new slot starts from the objects of its
 * nearest sibling of the tree and arch, and keeps them only when its
 * .config comes out the same as theirs; else it starts again from those
 * of a sibling with that .config, or from nothing. Objects of another
 * config are never built on. 0, 1 a step failed, -1 (*err) */
static int build_configure(struct build *b, char **err)
{
	struct kbuild_slot_mark want;
	struct kbuild_sibling *sib = NULL;
	size_t n = 0;
	int rc = -1;

	build_mark(b, 0, &want);
	if (b->fresh && kbuild_slot_siblings(b->e, b->slot, &want, &sib, &n) < 0)
		return set_errf(err, "out of memory");
	for (int round = 0; round < 3; round++) {
		int pick = round < 2 ? kbuild_sibling_pick(sib, n, &want) : -1;
		char have[65] = "";

		if (pick >= 0 && build_seed(b, sib, pick) < 0)
			pick = -1;
		free(b->r->dropped);
		b->r->dropped = NULL;
		rc = kbuild_configure(&b->st, b->s, b->chash, b->slot, b->inputs,
				      &b->r->dropped, &b->modules, err);
		if (rc != 0 || pick < 0)
			break;
		if (kbuild_slot_config(b->obj, have) < 0) {
			round = 1;   /* cannot tell: start from nothing */
		} else if (!strcmp(have, sib[pick].m.config)) {
			kbuild_log_note(b->r->log, "slot seeded from '%s' at %.12s: the same .config, "
					"changed files: %lld", strrchr(sib[pick].dir, '/') + 1,
					sib[pick].m.commit, sib[pick].changed);
			break;
		}
		kbuild_log_note(b->r->log, "slot not seeded from '%s': another .config",
				strrchr(sib[pick].dir, '/') + 1);
		/* this .config's sibling, or nothing */
		snprintf(want.config, sizeof(want.config), "%s", have);
		sib[pick].changed = -1;
		if (rm_tree(b->obj) < 0 || mkdir_p(b->obj, 0755) < 0 || kbuild_own(b->e, b->obj) < 0) {
			rc = set_errf(err, "'%s': %s", b->obj, strerror(errno));
			break;
		}
	}
	kbuild_slot_siblings_free(sib, n);
	return rc;
}

/* A build from nothing (no init/ in O= yet: a new slot not seeded, or one
 * emptied) notes how many kbuild lines its .config makes, about, with the
 * lines so far (estimate.c), for its progress while no earlier build of
 * its arch and config gives the count; an incremental one notes nothing */
static void build_estimate(struct build *b)
{
	const char *obj = kbuild_obj_host(&b->st);
	char *init = path_join(obj, "init"), *why = NULL;
	struct buf cfg = BUF_INIT(KBUILD_ESTIMATE_CONFIG_MAX);
	struct kbuild_estimate est;
	struct kbuild_progress kp;
	int64_t t = mono_ms();

	if (!init || access(init, F_OK) == 0 ||
	    kbuild_read_beneath(obj, ".config", &cfg, KBUILD_ESTIMATE_CONFIG_MAX, &why) < 0 ||
	    kbuild_estimate(b->src, buf_str(&cfg), cfg.len, b->s->arch, &est) < 0 ||
	    kbuild_log_progress(b->r->log, &kp) < 0)
		goto out;
	kbuild_log_note(b->r->log, KBUILD_ESTIMATE_NOTE "%lld kbuild lines for a build from "
			"nothing (%lld so far; by the .config %lld objects, %lld modules, %lld "
			"directories; %lld ms)", kp.objects + est.lines, kp.objects, est.objects,
			est.modules, est.dirs, (long long)(mono_ms() - t));
out:
	free(why);
	free(init);
	buf_release(&cfg);
}

/* make kernelrelease into r->release */
static int build_release_name(struct build *b, char **err)
{
	struct buf rel = BUF_INIT(256);
	struct cmd *c = kbuild_make(&b->st);
	char *why = NULL;
	int rc = 0;

	cmd_args(c, "-s", "kernelrelease", NULL);
	cmd_stdout_buf(c, &rel);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	if (cmd_run(c, &why) < 0 || !rel.len) {
		set_errf(err, "make kernelrelease: %s", why ? why : "no output");
		rc = -1;
	} else {
		snprintf(b->r->release, sizeof(b->r->release), "%.*s",
			 (int)strcspn(buf_str(&rel), "\n"), buf_str(&rel));
	}
	cmd_free(c);
	free(why);
	buf_release(&rel);
	return rc;
}

/* make modules_install into the artifact, without the links back into
 * the worktree, which the next build changes */
static int build_modules(struct build *b, char **err)
{
	struct kbuild_result *r = b->r;
	struct cmd *c = kbuild_make(&b->st);
	int rc;

	cmd_args(c, "modules_install", "INSTALL_MOD_STRIP=1", NULL);
	cmd_argf(c, "INSTALL_MOD_PATH=%s", b->sg.dir);
	if ((rc = kbuild_step(&b->st, c, "modules_install", err)) != 0)
		return rc;
	for (int i = 0; i < 2; i++) {
		char *l = NULL;

		if (asprintf(&l, "%s/lib/modules/%s/%s", b->sg.dir, r->release,
			     i ? "source" : "build") >= 0)
			unlink(l);
		free(l);
	}
	return 0;
}

/* make the image (and the modules), then its release and the modules */
static int build_make(struct build *b, char **err)
{
	struct cmd *c = kbuild_make(&b->st);
	int rc;

	cmd_argf(c, "-j%d", b->e->jobs > 0 ? b->e->jobs : 1);
	cmd_arg(c, strcmp(b->s->arch, "arm64") ? "bzImage" : "Image");
	if (b->modules)
		cmd_arg(c, "modules");
	build_estimate(b);
	if ((rc = kbuild_step(&b->st, c, "make", err)) != 0)
		return rc;
	if (build_release_name(b, err) < 0)
		return -1;
	return b->modules ? build_modules(b, err) : 0;
}

/* The image, the config and the modules into the artifact: DIR/vmlinuz,
 * DIR/config, DIR/lib/modules, taken out of what the build wrote as
 * hostile (copyout.c) */
static int build_keep(struct build *b, const char *key, char **err)
{
	struct kbuild_result *r = b->r;
	int arm = !strcmp(b->s->arch, "arm64"), rc = -1;
	const char *obj = kbuild_obj_host(&b->st);
	char *image = NULL, *cfg = NULL, *why = NULL, *mods = NULL, *to = NULL;
	long skipped = 0;

	if (asprintf(&image, "arch/%s/boot/%s", arm ? "arm64" : "x86", arm ? "Image" : "bzImage") < 0 ||
	    !(cfg = path_join(r->dir, "config")) || !(mods = path_join(b->sg.dir, "lib/modules")) ||
	    !(to = path_join(r->dir, "lib/modules"))) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (kbuild_copyout_file(obj, image, r->kernel, KBUILD_IMAGE_MAX, &why) < 0 ||
	    kbuild_copyout_file(obj, ".config", cfg, KBUILD_IMAGE_MAX, &why) < 0 ||
	    (b->modules && access(mods, F_OK) == 0 &&
	     kbuild_copyout_tree(mods, to, KBUILD_MODULES_MAX, &skipped, &why) < 0)) {
		set_errf(err, "build '%s': %s", key, why ? why : "?");
		goto out;
	}
	if (skipped)
		kbuild_log_note(r->log, "modules: %ld files that were not regular files or "
				"links inside left out", skipped);
	rc = 0;
out:
	free(to);
	free(mods);
	free(why);
	free(cfg);
	free(image);
	return rc;
}

/* A step failed: how long it took, and its first error lines */
static void build_failed(struct build *b, int rc, const char *err)
{
	struct kbuild_result *r = b->r;

	r->ms = mono_ms() - b->t0;
	if (rc != 1)
		return;
	r->errors = kbuild_log_file_errors(r->log);
	if (!r->errors && err)
		r->errors = strdup(err);
	kbuild_log_note(r->log, "failed: %s", err ? err : "?");
}

int kbuild_build(const struct kbuild_env *e, const struct kbuild_spec *s, const char *key,
		 struct kbuild_result *r, char **err)
{
	struct build b;
	char chash[65];
	int rc;

	*err = NULL;
	memset(r, 0, sizeof(*r));
	build_init(&b, e, s, r);
	if (kbuild_config_hash(e, s, chash, err) < 0)
		return -1;
	b.chash = chash;
	if ((rc = build_prepare(&b, chash, key, err)) == 0 &&
	    (rc = build_configure(&b, err)) == 0 && (rc = build_make(&b, err)) == 0 &&
	    (rc = build_keep(&b, key, err)) == 0) {
		struct kbuild_slot_mark m;

		r->ms = mono_ms() - b.t0;
		/* a series' build leaves the slot as the tree's last build did */
		if (!s->untrusted &&
		    (build_mark(&b, 1, &m) < 0 || kbuild_slot_mark_write(b.slot, &m) < 0))
			kbuild_log_note(r->log, "slot '%s': not marked built", b.slot);
		else if (!s->untrusted && b.inputs[0])
			kbuild_configured_write(&b.st, b.slot, b.inputs);
		kbuild_log_note(r->log, "built %s in %lld ms", r->release, (long long)r->ms);
	} else if (b.st.failed) {
		build_failed(&b, rc, *err);
	}
	build_release(&b);
	return rc;
}
