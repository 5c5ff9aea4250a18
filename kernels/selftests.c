// SPDX-License-Identifier: GPL-2.0-only
/* selftests.c: the tests a kernel's guests run, built from the kernel's
 * own tree. A kselftest target is built in the slot of a kernel kfleet
 * built (make kselftest-install, static: the guest has no libc); the BPF
 * runner test_progs is built against a kernel's BTF, for a kernel kfleet
 * built or one built elsewhere (a distro's), from the parts of the tree it
 * needs. Both install next to the kernel's artifact: art/kselftest-TARGET. */
#include "kernels/kernelsint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/cmd.h"
#include "common/util.h"

/* What test_progs reads at run time besides itself and the *.bpf.o files
 * (the TRUNNER_EXTRA_FILES of tools/testing/selftests/bpf/Makefile) */
static const char *const bpf_extras[] = {
	"bpf_testmod.ko", "urandom_read", "liburandom_read.so", "xdp_synproxy", "sign-file",
	"ima_setup.sh", "verify_sig_setup.sh",
};

int kbuild_bpf_wanted(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(bpf_extras) / sizeof(bpf_extras[0]); i++)
		if (!strcmp(name, bpf_extras[i]))
			return 1;
	return !strcmp(name, "test_progs") || (n > 6 && !strcmp(name + n - 6, ".bpf.o")) ||
	       (!strncmp(name, "btf_dump_test_case_", 19) && n > 2 && !strcmp(name + n - 2, ".c"));
}

/* Adds to c every file in dir that test_progs wants (only the
 * btf_dump_test_case_* ones when progs); how many into *files. 0 / -1 */
static int bpf_pick(struct cmd *c, const char *dir, int progs, int *files, char **err)
{
	struct dirent *d;
	DIR *dh = opendir(dir);

	if (!dh)
		return set_errf(err, "'%s': %s", dir, strerror(errno));
	while ((d = readdir(dh)))
		if ((!progs || !strncmp(d->d_name, "btf_dump_test_case_", 19)) &&
		    kbuild_bpf_wanted(d->d_name)) {
			cmd_argf(c, "%s/%s", dir, d->d_name);
			(*files)++;
		}
	closedir(dh);
	return 0;
}

/* Copies what test_progs needs from the built selftests directory sel to
 * out (and progs/btf_dump_test_case_*.c, which btf_dump compares against) */
static int bpf_install(const struct kbuild_env *e, const char *const *rw, const char *sel,
		       const char *out, char **err)
{
	char *progs = NULL, *oprogs = NULL;
	/* copied in the sandbox: a link the build left reaches nothing */
	struct cmd *c = kbuild_sandboxed(e, rw, NULL, "cp"), *cp = kbuild_sandboxed(e, rw, NULL, "cp");
	int files = 0, pfiles = 0, rc = -1;

	cmd_arg(c, "-p");
	cmd_arg(cp, "-p");
	if (asprintf(&progs, "%s/progs", sel) < 0 || asprintf(&oprogs, "%s/progs", out) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (mkdir_p(oprogs, 0755) < 0 || kbuild_own(e, out) < 0 || kbuild_own(e, oprogs) < 0) {
		set_errf(err, "'%s': %s", oprogs, strerror(errno));
		goto out;
	}
	if (bpf_pick(c, sel, 0, &files, err) < 0 || bpf_pick(cp, progs, 1, &pfiles, err) < 0)
		goto out;
	cmd_arg(c, out);
	cmd_arg(cp, oprogs);
	if (!files || cmd_run(c, err) < 0 || (pfiles && cmd_run(cp, err) < 0)) {
		if (!*err)
			set_errf(err, "'%s': nothing built to install", sel);
		goto out;
	}
	rc = 0;
out:
	cmd_free(c);
	cmd_free(cp);
	free(oprogs);
	free(progs);
	return rc;
}

/* The kernel's config, when it lies next to it (config-RELEASE as in
 * /boot, or a kfleet build's config), into out as config-RELEASE: libbpf
 * resolves a program's __kconfig externs from /boot/config-RELEASE or
 * /proc/config.gz in the guest */
static int bpf_config(const char *kernel, const char *release, const char *out, char **err)
{
	char *dir = strdup(kernel), *slash = dir ? strrchr(dir, '/') : NULL;
	char *from = NULL, *plain = NULL, *to = NULL;
	const char *use;
	int rc = 0;

	if (!slash || (*slash = '\0', asprintf(&from, "%s/config-%s", dir, release)) < 0 ||
	    asprintf(&plain, "%s/config", dir) < 0 ||
	    asprintf(&to, "%s/config-%s", out, release) < 0) {
		rc = set_errf(err, "out of memory");
		goto out;
	}
	use = access(from, R_OK) == 0 ? from : access(plain, R_OK) == 0 ? plain : NULL;
	if (use)
		rc = kbuild_copy(use, to, err);
out:
	free(to);
	free(plain);
	free(from);
	free(dir);
	return rc;
}

/* One build of test_progs: the sources under art/src, the BTF it compiles
 * against (btf: the kernel itself, or art/vmlinux extracted from it), the
 * kernel build directory kdir for bpf_testmod.ko, the install directory
 * bdir (art/kselftest-bpf/bpf) and the log */
struct bpf_build {
	const struct kbuild_env *e;
	const char *tree, *commit, *kernel, *art;
	char *gitdir, *src, *tar, *log, *vmlinux, *kdir, *sel, *bdir, *out;
	struct kbuild_stage sg;
	const char *btf;
	const char *rw[2], *ro[5];
	char release[128];
	int64_t deadline;         /* for make test_progs */
};

static void bpf_release(struct bpf_build *b)
{
	kbuild_stage_release(&b->sg);
	free(b->out);
	free(b->bdir);
	free(b->sel);
	free(b->kdir);
	free(b->vmlinux);
	free(b->log);
	free(b->tar);
	free(b->src);
	free(b->gitdir);
}

/* The paths, the kernel's release and its build directory (kdir_given,
 * or /lib/modules/RELEASE/build); what an earlier build left removed */
static int bpf_prepare(struct bpf_build *b, const char *kdir_given, char **dir, char **err)
{
	const char *art = b->art;

	char key[160];
	const char *slash = strrchr(art, '/');

	/* the stage: the sources, the BTF and the install, the build user's */
	snprintf(key, sizeof(key), "%.120s-bpf", slash ? slash + 1 : art);
	if (kbuild_stage_open(b->e, key, NULL, 0, &b->sg, err) < 0)
		return -1;
	if (!(b->gitdir = kbuild_tree_dir(b->e, b->tree)) ||
	    asprintf(&b->src, "%s/src", b->sg.dir) < 0 ||
	    asprintf(&b->tar, "%s/src.tar", b->sg.in) < 0 ||
	    asprintf(&b->log, "%s/kselftest-bpf.log", art) < 0 ||
	    asprintf(&b->vmlinux, "%s/vmlinux", b->sg.dir) < 0 ||
	    asprintf(&b->sel, "%s/tools/testing/selftests/bpf", b->src) < 0 ||
	    asprintf(dir, "%s/kselftest-bpf", art) < 0 ||
	    asprintf(&b->out, "%s/kselftest-bpf", b->sg.dir) < 0 ||
	    asprintf(&b->bdir, "%s/bpf", b->out) < 0)
		return set_errf(err, "out of memory");
	if (kimage_release(b->kernel, "x86_64", b->release, sizeof(b->release)) < 0)
		return set_errf(err, "kernel '%s': no release string in it", b->kernel);
	/* bpf_testmod.ko is built against the kernel's build directory (for
	 * a distro kernel, its headers package) */
	if (kdir_given ? !(b->kdir = strdup(kdir_given)) :
	    asprintf(&b->kdir, "/lib/modules/%s/build", b->release) < 0)
		return set_errf(err, "out of memory");
	if (access(b->kdir, R_OK) < 0)
		return set_errf(err, "kernel %s: no build directory '%s' for bpf_testmod.ko (install "
				"linux-headers-%s)", b->release, b->kdir, b->release);
	rm_tree(*dir);
	unlink(b->log);
	if (mkdir_p(b->src, 0755) < 0 || kbuild_own(b->e, b->src) < 0)
		return set_errf(err, "'%s': %s", b->src, strerror(errno));
	b->rw[0] = b->sg.dir;
	b->rw[1] = NULL;
	b->ro[0] = b->sg.in;
	b->ro[1] = b->kernel;
	b->ro[2] = b->kdir;
	b->ro[3] = NULL;
	return 0;
}

/* What tools/testing/selftests/bpf builds from, out of the tree at the
 * commit (git archive): its own tools/ (libbpf, bpftool, resolve_btfids),
 * the uapi and scripts, and kernel/bpf's disassembler that bpftool
 * compiles in */
static int bpf_sources(struct bpf_build *b, char **err)
{
	static const char *const parts[] = { "Makefile", "tools", "include", "scripts",
					     "kernel/bpf", "arch/x86" };
	struct cmd *c = kbuild_git(b->gitdir);
	char *why = NULL;
	int rc;

	cmd_args(c, "archive", "--format=tar", b->commit, "--", NULL);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		cmd_arg(c, parts[i]);
	cmd_stdout_file(c, b->tar);
	cmd_timeout(c, KBUILD_GIT_TIMEOUT_MS);
	rc = cmd_run(c, &why);
	cmd_free(c);
	if (rc == 0) {
		/* unpacked by the build user: a link in the tree points nowhere */
		c = kbuild_sandboxed(b->e, b->rw, b->ro, "tar");
		cmd_args(c, "--no-same-owner", "-xf", b->tar, "-C", b->src, NULL);
		rc = cmd_run(c, &why);
		cmd_free(c);
	}
	unlink(b->tar);
	if (rc < 0)
		set_errf(err, "tree '%s' at %.12s: %s", b->tree, b->commit, why ? why : "?");
	free(why);
	return rc;
}

/* The BTF the programs are compiled against: the kernel's own, an ELF
 * vmlinux, or the one inside a bzImage (scripts/extract-vmlinux) */
static int bpf_btf(struct bpf_build *b, char **err)
{
	struct cmd *c;
	char *why = NULL;
	int rc = 0;

	b->btf = b->kernel;
	if (kimage_btf(b->kernel, &why) == 0)
		return 0;
	free(why);
	why = NULL;
	c = kbuild_sandboxed(b->e, b->rw, b->ro, "sh");
	cmd_argf(c, "%s/scripts/extract-vmlinux", b->src);
	cmd_arg(c, b->kernel);
	cmd_stdout_file(c, b->vmlinux);
	cmd_stderr_file(c, b->log);
	cmd_timeout(c, 120 * 1000);
	if (cmd_run(c, &why) < 0 || kimage_btf(b->vmlinux, &why) < 0) {
		set_errf(err, "kernel '%s': no BTF to build BPF programs against: %s",
			 b->kernel, why ? why : "?");
		rc = -1;
	} else {
		b->btf = b->vmlinux;
	}
	cmd_free(c);
	free(why);
	return rc;
}

/* make test_progs in the sandbox, then its files and the kernel's config
 * into dir. 0, 1 make failed, -1 */
static int bpf_make(struct bpf_build *b, const char *dir, char **err)
{
	struct kbuild_steps st = {
		.e = b->e, .arch = "x86_64", .src = b->src, .rw = b->rw, .ro = b->ro,
		.log = b->log, .deadline = b->deadline, .count = b->rw,
	};
	struct cmd *c = kbuild_sandboxed(b->e, b->rw, b->ro, "make");
	long skipped = 0;
	int rc;

	cmd_args(c, "-C", b->sel, NULL);
	cmd_argf(c, "-j%d", b->e->jobs > 0 ? b->e->jobs : 1);
	cmd_argf(c, "VMLINUX_BTF=%s", b->btf);
	cmd_argf(c, "KDIR=%s", b->kdir);
	cmd_arg(c, "test_progs");
	cmd_env(c, "HOME", "/tmp");
	cmd_env(c, "LANG", "C");
	rc = kbuild_step(&st, c, "make test_progs", err);
	if (rc == 0 && (bpf_install(b->e, b->rw, b->sel, b->bdir, err) < 0 ||
			kbuild_copyout_tree(b->out, dir, KBUILD_MODULES_MAX, &skipped, err) < 0))
		rc = -1;
	if (rc == 0 && bpf_config(b->kernel, b->release, dir, err) < 0)
		rc = -1;
	return rc;
}

/* test_progs for kernel (its BTF), bpf_testmod.ko against kdir (NULL:
 * /lib/modules/RELEASE/build); kbuild_bpf_selftests() and, for a kernel
 * kfleet built, kbuild_selftests() */
static int bpf_selftests(const struct kbuild_env *e, const char *tree, const char *commit,
			 const char *arch, const char *kernel, const char *kdir_given,
			 const char *art, char **dir, char **errors, char **err)
{
	struct bpf_build b = {
		.e = e, .tree = tree, .commit = commit, .kernel = kernel, .art = art,
		.deadline = mono_ms() + (int64_t)e->timeout_s * 1000,
	};
	int rc = -1;

	*err = NULL;
	*errors = NULL;
	*dir = NULL;
	if (strcmp(arch, "x86_64")) {
		/* arm64 would need test_progs cross-linked against an arm64 libelf */
		set_errf(err, "selftests 'bpf': built for x86_64 kernels only, not %s", arch);
		goto out;
	}
	if (bpf_prepare(&b, kdir_given, dir, err) < 0 || bpf_sources(&b, err) < 0 ||
	    bpf_btf(&b, err) < 0)
		goto out;
	rc = bpf_make(&b, *dir, err);
	if (rc == 1)
		*errors = kbuild_log_file_errors(b.log);
out:
	if (rc != 0) {
		free(*dir);
		*dir = NULL;
	}
	bpf_release(&b);
	return rc;
}

int kbuild_bpf_selftests(const struct kbuild_env *e, const char *tree, const char *commit,
			 const char *kernel, const char *art, char **dir, char **errors,
			 char **err)
{
	return bpf_selftests(e, tree, commit, "x86_64", kernel, NULL, art, dir, errors, err);
}

/* make kselftest-install of target into dir, in the slot of the kernel s
 * built; st has the environment, the log and the deadline */
static int kselftest_make(struct kbuild_steps *st, const struct kbuild_spec *s, const char *slot,
			  const char *art, const char *target, const char *dir, char **err)
{
	const struct kbuild_env *e = st->e;
	char *src = NULL, *obj = NULL, *tdir = NULL, *ccache = NULL, *gitdir = NULL;
	char *inst = NULL, key[200];
	const char *rw[4] = { NULL }, *ro[6] = { NULL }, *count[3] = { NULL };
	const char *slash = strrchr(art, '/');
	struct kbuild_stage sg = { 0 };
	size_t nrw = 0, nro = 0;
	long skipped = 0;
	struct cmd *c;
	int rc = -1;

	snprintf(key, sizeof(key), "%.120s-ksft-%.64s", slash ? slash + 1 : art, target);
	if (!(src = kbuild_src_dir(e, s->tree)) || asprintf(&obj, "%s/obj", slot) < 0 ||
	    !(gitdir = kbuild_tree_dir(e, s->tree)) ||
	    asprintf(&ccache, "%s/ccache", e->state_dir) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	rm_tree(dir);
	unlink(st->log);
	/* kselftest-install writes in obj, maybe at another commit than the
	 * kernel's last build in the slot: no longer a complete build (a
	 * series' writes in an overlay of it, which goes) */
	if (!s->untrusted && kbuild_slot_mark_clear(slot) < 0) {
		set_errf(err, "slot '%s': %s", slot, strerror(errno));
		goto out;
	}
	if (kbuild_worktree_at(e, s->tree, src, s->commit, err) < 0 ||
	    kbuild_stage_open(e, key, obj, s->untrusted, &sg, err) < 0)
		goto out;
	if (asprintf(&inst, "%s/kselftest", sg.dir) < 0 ||
	    asprintf(&tdir, "%s/%s", inst, target) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (s->config[0] == '/')
		ro[nro++] = s->config;
	ro[nro++] = src;
	ro[nro++] = gitdir;
	rw[nrw++] = sg.dir;
	if (!s->untrusted)
		rw[nrw++] = obj;
	if (e->ccache && s->untrusted)
		ro[nro++] = ccache;
	else if (e->ccache)
		rw[nrw++] = ccache;
	count[0] = sg.dir;
	count[1] = s->untrusted ? (sg.mounted ? sg.upper : sg.merged) : obj;
	st->src = src;
	st->obj = obj;
	st->obj_from = s->untrusted ? sg.merged : NULL;
	st->untrusted = s->untrusted;
	st->rw = rw;
	st->ro = ro;
	st->count = count;
	c = kbuild_make(st);
	cmd_argf(c, "-j%d", e->jobs > 0 ? e->jobs : 1);
	cmd_argf(c, "TARGETS=%s", target);
	cmd_argf(c, "KSFT_INSTALL_PATH=%s", inst);
	cmd_args(c, "USERLDFLAGS=-static", "kselftest-install", NULL);
	rc = kbuild_step(st, c, "kselftest-install", err);
	/* kselftest's make carries on past a target that failed: its
	 * directory is then missing from the install */
	if (rc == 0 && access(tdir, F_OK) < 0) {
		set_errf(err, "selftests '%s': not built (see kselftest-%s.log)", target, target);
		rc = 1;
	}
	if (rc == 0 && kbuild_copyout_tree(inst, dir, KBUILD_MODULES_MAX, &skipped, err) < 0)
		rc = -1;
out:
	kbuild_stage_release(&sg);
	st->src = st->obj = st->obj_from = NULL;
	st->rw = st->ro = st->count = NULL;
	free(inst);
	free(gitdir);
	free(ccache);
	free(tdir);
	free(obj);
	free(src);
	return rc;
}

int kbuild_selftests(const struct kbuild_env *e, const struct kbuild_spec *s, const char *art,
		     const char *target, char **dir, char **errors, char **err)
{
	struct kbuild_steps st = {
		.e = e, .arch = s->arch, .deadline = mono_ms() + (int64_t)e->timeout_s * 1000,
	};
	char *slot = NULL, *obj = NULL, *kernel = NULL, *log = NULL, chash[65];
	int rc = -1;

	*err = NULL;
	*errors = NULL;
	*dir = NULL;
	if (!kbuild_name_ok(target))
		return set_errf(err, "selftests '%s': not a kselftest target", target);
	if (kbuild_config_hash(e, s, chash, err) < 0)
		return -1;
	if (!(slot = kbuild_slot_dir(e, s, chash)) || asprintf(&obj, "%s/obj", slot) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (!strcmp(target, "bpf")) {
		/* test_progs against the kernel just built: its BTF, and its
		 * object tree for bpf_testmod.ko */
		rc = asprintf(&kernel, "%s/vmlinuz", art) < 0 ? set_errf(err, "out of memory") :
		     bpf_selftests(e, s->tree, s->commit, s->arch, kernel, obj, art, dir, errors,
				   err);
		goto out;
	}
	if (asprintf(dir, "%s/kselftest-%s", art, target) < 0 ||
	    asprintf(&log, "%s/kselftest-%s.log", art, target) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	st.log = log;
	rc = kselftest_make(&st, s, slot, art, target, *dir, err);
	if (rc == 1)
		*errors = kbuild_log_file_errors(log);
out:
	if (rc != 0) {
		free(*dir);
		*dir = NULL;
	}
	free(log);
	free(kernel);
	free(obj);
	free(slot);
	return rc;
}
