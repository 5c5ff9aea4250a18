/* SPDX-License-Identifier: GPL-2.0-only */
/* kernelsint.h: what only kernels/ itself (and its tests and fuzz
 * targets) sees. Series intake: mbox.c reads an mbox into messages with
 * git mailsplit and git mailinfo; everything after that (subject tags,
 * trailers, the diff, versions, completeness) is pure and declared here so
 * it can be tested and fuzzed without running git. Then what the build
 * side's files (trees, git am, configs, sandbox, logs, builds, selftests)
 * share among themselves. */
#ifndef KF_KERNELSINT_H
#define KF_KERNELSINT_H

#include <stddef.h>

#include "kernels/kernels.h"

#define SERIES_TREE_MAX 64

/* What a subject's leading tags say: "[PATCH bpf-next v4 2/3] bpf: x" */
struct series_tags {
	int reply;        /* starts with Re:, Fwd:, Aw:, ... */
	int tagged;       /* had a patch tag ([PATCH ...], [RFC ...], [... N/M]) */
	int rfc;
	int version;      /* 0 when the tags name none */
	int index;        /* N of N/M, -1 when none */
	int count;        /* M of N/M, -1 when none */
	char tree[SERIES_TREE_MAX]; /* the first other word in the tags ("bpf-next"), or "" */
	const char *title;          /* the rest of the subject, borrowed from it */
};

/* subject.c. Parses subject's leading reply prefixes and patch tags.
 * Never fails. */
void series_subject_parse(const char *subject, struct series_tags *t);

/* One message of the mbox as git mailsplit and git mailinfo left it. All
 * strings are NUL-terminated and owned by the message; NULL when absent. */
struct series_msg {
	unsigned line;     /* where it starts in the mbox, 0 when unknown */
	char *subject;     /* decoded and unfolded, tags kept (mailinfo -k) */
	char *author;
	char *email;
	char *date;
	char *msgid;       /* without the <> */
	char *in_reply_to; /* the parent's Message-Id: In-Reply-To, else the last of
			      References; without the <> */
	unsigned lossy;    /* SERIES_LOSSY_*: what was not valid UTF-8 */
	char *body;        /* the commit message part (the whole text of a cover letter) */
	char *patch;       /* from the first diff-ish line on ("---", diffstat, diffs) */
	char *mail;        /* the message as split from the mbox */
	size_t mail_len;
};

void series_msg_release(struct series_msg *m);

/* mbox.c. Reads the mbox data (len bytes, at most SERIES_MBOX_MAX, no NUL
 * byte) into messages with git mailsplit and git mailinfo; name is what
 * messages call it. 0 with *msgs (n of them: release each with
 * series_msg_release(), then free the array), or -1 with *err. */
int series_mbox_read(const char *name, const char *data, size_t len, struct series_msg **msgs,
		     size_t *n, char **err);

/* series.c. Builds the series out of n messages in mbox order: classifies them
 * (cover letter, patch, reply), picks the version, checks completeness,
 * reads trailers, base-commit, change-id and the diffs. name is the mbox
 * as messages call it. Moves the strings it keeps out of msgs (they become
 * NULL); the caller still releases msgs. 0 with *out (free with
 * series_free()), or -1 with *err (caller frees). */
int series_assemble(const char *name, struct series_msg *msgs, size_t n,
		    struct series **out, char **err);

/* mbox.c. The lines (1-based) on which git mailsplit starts each message of an
 * mbox, into lines[0..max-1]; returns how many messages there are (which
 * may be more than max). A file that does not start with a "From " line is
 * one message. */
size_t series_mbox_lines(const char *data, size_t len, unsigned *lines, size_t max);

/* A copy of the len bytes at s that is valid UTF-8: every byte that is not
 * part of a well-formed UTF-8 sequence (and NUL) becomes "\xNN". *lossy
 * (may be NULL) is set to 1 when a byte was escaped. NULL when out of
 * memory; caller frees. */
char *series_utf8(const char *s, size_t len, int *lossy);

/* The unfolded value of the first header name: in the header block of a
 * mail (up to the first empty line). Returns a string the caller frees, or
 * NULL when there is no such header. */
char *series_header(const char *mail, size_t len, const char *name);

/* diffstat.c. Counts a patch's diff: files touched, lines added and removed. 0, or -1
 * when a hunk is cut short or overlong, with *why (caller frees) saying
 * where. *files is 0 when there is no diff at all. */
int series_diffstat(const char *patch, int *files, int *ins, int *del, char **why);

/* trailers.c. The trailers ("Signed-off-by: ...") of a commit message: its last
 * paragraph, when git would take it as a trailer block. 0, or -1 when out
 * of memory. *out (caller frees with series_trailers_free()) may be NULL
 * when there are none. */
int series_trailers(const char *body, struct series_trailer **out, size_t *n);
void series_trailers_free(struct series_trailer *t, size_t n);
/* The trailers a reply gives ("Reviewed-by: Name <mail>"): every line,
 * outside quoted text ("> ...") and before a signature ("-- "), that is
 * a trailer whose key ends in "-by" and whose value names an address.
 * 0 / -1 out of memory, as series_trailers(). */
int series_reply_trailers(const char *body, struct series_trailer **out, size_t *n);
/* The value of the first line "key value" in text that starts with key
 * ("base-commit:"), blanks around it off; NULL when there is none, or it
 * is empty. Returns a string the caller frees. */
char *series_line_value(const char *text, const char *key);

/* ---- trees, applying, building: what tree.c, apply.c, kconfig.c,
 * sandbox.c, buildlog.c, build.c and selftests.c share ---- */

struct cmd;

#define KBUILD_GIT_TIMEOUT_MS (3600 * 1000)  /* a clone of a big tree */
#define KBUILD_GIT_SHORT_MS   (120 * 1000)
#define KBUILD_IMAGE_MAX      (512LL << 20)   /* a kernel image, a .config */
#define KBUILD_MODULES_MAX    (8LL << 30)     /* all of a build's modules, a kselftest install */

/* tree.c. Whether s is a full commit id (40 lowercase hex digits). */
int kbuild_hex40(const char *s);
/* state/trees/TREE.git; the worktree every build of the tree uses,
 * state/slots/TREE-src; and the slot a build of s with config hash chash
 * uses, state/slots/TREE-ARCH-HASH12 (its O= directory obj/). Strings the
 * caller frees; NULL when out of memory. */
char *kbuild_tree_dir(const struct kbuild_env *e, const char *tree);
char *kbuild_src_dir(const struct kbuild_env *e, const char *tree);
char *kbuild_slot_dir(const struct kbuild_env *e, const struct kbuild_spec *s, const char *chash);
/* kfleet as the author and committer of what git makes */
void kbuild_git_ident(struct cmd *c);
/* git (with --git-dir=gitdir unless NULL) in a clean environment */
struct cmd *kbuild_git(const char *gitdir);
/* A worktree of tree at dir, checked out at commit (made when missing);
 * the checkout only rewrites files that differ, so make sees what
 * changed. 0 / -1 (*err) */
int kbuild_worktree_at(const struct kbuild_env *e, const char *tree, const char *dir,
		       const char *commit, char **err);
/* git am --abort in the worktree dir (what a failed or interrupted am left) */
void kbuild_am_abort(const char *gitdir, const char *dir);
/* The metadata of the worktree dir in the mirror gitdir: GITDIR/worktrees/
 * BASENAME (caller frees; NULL when out of memory) */
char *kbuild_worktree_gitdir(const char *gitdir, const char *dir);
/* git in the worktree dir of the mirror gitdir, both named (--git-dir,
 * --work-tree): dir/.git is never read */
struct cmd *kbuild_git_in(const char *gitdir, const char *dir);

/* sandbox.c. What the steps of one build share: the slot's worktree src
 * and O= directory obj (NULL when the step makes no kernel), what the
 * sandbox lets them write (rw) and read (ro, may be NULL), both
 * NULL-terminated, the log their output is appended to, and the deadline
 * (mono_ms()) of all of them. All borrowed. */
struct kbuild_steps {
	const struct kbuild_env *e;
	const char *arch;
	const char *src, *obj;
	const char *obj_from;     /* bound at obj when not NULL: a series' overlay */
	const char *in;           /* kfleetd's inputs to the build (root's, read-only) */
	int untrusted;            /* a series' build: reads ccache, never adds to it */
	const char *const *rw, *const *ro;
	const char *const *count; /* the directories counted against [build] disk_max */
	const char *log;
	int64_t deadline;
	int failed;               /* set when a step failed or did not start */
};

/* What one sandboxed program sees beyond the host's toolchain (sandbox.c's
 * table): ro read-only, rw writable (NULL-terminated, may be NULL),
 * map_from bound writable at map_to; root: run as root without any
 * capability (git am, which writes the tree's mirror) instead of as the
 * build user. All borrowed. */
struct kbuild_box {
	const char *const *rw, *const *ro;
	const char *map_from, *map_to;
	const char *chdir;        /* the working directory in the sandbox */
	int root;
};
/* prog under bwrap as b says (plain when !e->sandbox) */
struct cmd *kbuild_box_cmd(const struct kbuild_env *e, const struct kbuild_box *b,
			   const char *prog);
/* The same, as the build user, with rw and ro */
struct cmd *kbuild_sandboxed(const struct kbuild_env *e, const char *const *rw,
			     const char *const *ro, const char *prog);
/* Why the sandbox shows path of the host, NULL when it does not */
const char *kbuild_box_why(const char *path);
/* prog sandboxed as st says (its rw, ro, obj_from at obj), in dir */
struct cmd *kbuild_step_cmd(const struct kbuild_steps *st, const char *prog, const char *dir);
/* Where kfleetd finds what the steps see at obj: the overlay, or obj */
const char *kbuild_obj_host(const struct kbuild_steps *st);
/* make -C src O=obj ARCH=... for st->arch, sandboxed as st says */
struct cmd *kbuild_make(const struct kbuild_steps *st);
/* Runs c (and frees it) with what is left of the deadline, its output
 * appended to the log. 0; 1 it failed (*err: "what: exit 2", the log says
 * more); -1 it did not start (*err) */
int kbuild_step(struct kbuild_steps *st, struct cmd *c, const char *what, char **err);
/* Runs c (and frees it), the first line of its output into out (n bytes).
 * 0 / -1 (*err) */
int kbuild_run_line(struct cmd *c, char *out, size_t n, char **err);
/* stage.c. Where one build writes (state/stage/KEY...): dir, the build
 * user's, for what make installs; in, root's, for kfleetd's inputs to the
 * build; for a series (untrusted), the overlay whose merged view of the
 * slot's obj is merged (NULL when it could not be mounted: then merged
 * is a fresh directory and note says so). */
struct kbuild_stage {
	char *dir, *in, *ovl, *upper, *work, *merged;
	int mounted;
	const char *note;
};
/* Makes the stage of key anew; obj (the slot's O=; NULL: the build has
 * none) is made the build user's, or, untrusted, the lower layer of
 * merged. 0 / -1 (*err) */
int kbuild_stage_open(const struct kbuild_env *e, const char *key, const char *obj,
		      int untrusted, struct kbuild_stage *sg, char **err);
/* Unmounts and removes what kbuild_stage_open() made */
void kbuild_stage_release(struct kbuild_stage *sg);
/* dir and all under it made the build user's (links not followed); a no-op
 * when it is already or kfleetd is not root. 0 / -1 */
int kbuild_own(const struct kbuild_env *e, const char *dir);

/* copyout.c. The regular file rel beneath root (no link followed on the
 * way or at the end) copied to the new file to, at most max bytes.
 * 0 / -1 (*err: "'DIR/arch/x86/boot/bzImage': a link, not taken") */
int kbuild_copyout_file(const char *root, const char *rel, const char *to, int64_t max,
			char **err);
/* The regular file rel beneath root read into b (at most max bytes),
 * as kbuild_copyout_file() opens it. 0 / -1 (*err) */
int kbuild_read_beneath(const char *root, const char *rel, struct buf *b, size_t max,
			char **err);
/* cp -- from to, for kfleet's own files (never one a build wrote). 0 / -1 */
int kbuild_copy(const char *from, const char *to, char **err);
/* The tree from (a directory a build wrote) copied into to: directories,
 * regular files and links that stay inside it; nothing else (*skipped
 * counts what was left out). At most max bytes in all. 0 / -1 (*err) */
int kbuild_copyout_tree(const char *from, const char *to, int64_t max, long *skipped,
			char **err);

/* buildlog.c. Appends "### kfleet: ..." and a newline to the log. 0 / -1 */
int kbuild_log_note(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* kbuild_log_errors() of the log file's last MiB; NULL when none (or it
 * cannot be read). Caller frees. */
char *kbuild_log_file_errors(const char *log);
/* The note kbuild_log_progress() reads a build's estimate from:
 * "### kfleet: estimate: about N kbuild lines ..." */
#define KBUILD_ESTIMATE_NOTE "estimate: about "
#define KBUILD_ESTIMATE_CONFIG_MAX (8u << 20)   /* the .config read; allyesconfig: 300 KiB */

/* estimate.c. The kbuild lines a build from nothing of the .config cfg
 * (its text, len bytes) prints for arch (x86_64, arm64) in make and
 * modules_install, from the Kbuild files of the tree at src (estimate_mk.c
 * reads them): the objects their obj-y, obj-m, lib-y and extra-y lists
 * make under the .config (a composite's parts each), an AR per built-in.a
 * and lib.a, per module what it adds (.mod.o, .ko, install, strip; BTF,
 * sign, compress when the .config says), and the lines every build prints
 * besides (host tools, headers, the image, the link), measured per arch on
 * linux 6.1 tinyconfig with kfleet's guest fragments, where it is exact.
 * Elsewhere on linux 6.1 x86_64, with the same fragments: tinyconfig +
 * kernel/configs/kvm_guest.config 1645 for 1645; defconfig 3657 for 3697
 * (1% short: headers and host tools its options add). 0, or -1 (errno)
 * when src has no Kbuild files to read or they take more work than
 * KMK_WORK_MAX (E2BIG). */
struct kbuild_estimate {
	long long lines;             /* the estimate */
	long long objects;           /* objects compiled (a composite's parts each) */
	long long archives;          /* built-in.a and lib.a */
	long long modules;
	int per_module;              /* lines a module adds to its objects */
	long long fixed;             /* lines every build prints besides */
	long long dirs;              /* directories whose Kbuild file was read */
};
int kbuild_estimate(const char *src, const char *cfg, size_t len, const char *arch,
		    struct kbuild_estimate *out);

/* kconfig.c. Whether c is a config make names (tinyconfig, defconfig,
 * allnoconfig) rather than a file. */
int kbuild_is_named_config(const char *c);
/* A build's first steps, in st's slot: the base config, the fragments and
 * options merged (merge_config.sh), make olddefconfig, then the check that
 * every option asked for survived: *dropped (caller frees) lists those
 * that did not, NULL when none; *modules whether the config has
 * CONFIG_MODULES. With slot (SLOT/configured, spec's toolchain set, chash
 * its kbuild_config_hash), the steps before the check are skipped when
 * the .config there was made from the same inputs and is unchanged since;
 * inputs (65 bytes) gets what this .config is made from ("" when it cannot
 * be told), for kbuild_configured_write. 0, 1 a step failed, -1 other
 * errors (*err). */
int kbuild_configure(struct kbuild_steps *st, const struct kbuild_spec *s, const char *chash,
		     const char *slot, char inputs[65], char **dropped, int *modules, char **err);
/* SLOT/configured: the slot's .config as a complete build left it (make
 * may rewrite it) came from inputs (kbuild_configure's); written with the
 * slot's mark */
void kbuild_configured_write(struct kbuild_steps *st, const char *slot, const char *inputs);
/* Whether a file of a tree (its path in the tree) is one make's config
 * targets read: any Kconfig*, scripts/, kernel/configs/, the top Makefile,
 * arch/ARCH/Makefile*, arch/ARCH/configs/ and arch/ARCH/tools/. A .config
 * made at one commit is the one that would be made at another when none
 * of these differ. */
int kbuild_config_input(const char *path);

/* slot.c. What a slot's last complete kernel build was: SLOT/built, removed
 * before a build or a kselftest changes the slot and written when a
 * kernel build has finished, so it only ever describes an object tree
 * make left complete for that commit and .config. */
struct kbuild_slot_mark {
	char tree[KBUILD_NAME_MAX + 1];
	char arch[KBUILD_NAME_MAX + 1];
	char config[65];          /* sha256 of obj/.config; "" in a want: any */
	char commit[41];
};
/* Reads a mark's text (len bytes): 0, or -1 when it is not one (m zeroed) */
int kbuild_slot_mark_parse(const char *text, size_t len, struct kbuild_slot_mark *m);
/* SLOT/built: written atomically, read, removed. 0 / -1 (a missing or
 * malformed mark reads as -1; removing one that is not there is 0) */
int kbuild_slot_mark_write(const char *slot, const struct kbuild_slot_mark *m);
int kbuild_slot_mark_read(const char *slot, struct kbuild_slot_mark *m);
int kbuild_slot_mark_clear(const char *slot);
/* sha256 of obj/.config into out. 0 / -1 */
int kbuild_slot_config(const char *obj, char out[65]);

/* A slot a new one may start from */
struct kbuild_sibling {
	char *dir;                /* state/slots/NAME */
	struct kbuild_slot_mark m;
	long long changed;        /* files that differ between its commit and the new
				     slot's; < 0 when unknown (or ruled out) */
};
/* Whether a slot marked have may seed one that builds want: the same
 * tree and arch, and the same .config byte for byte (any, while want's
 * is not known yet); the commits may differ */
int kbuild_sibling_fits(const struct kbuild_slot_mark *have, const struct kbuild_slot_mark *want);
/* Which of n siblings a new slot for want starts from: of those that fit
 * and whose distance is known, the one fewest files away (the first of
 * equals). Its index, or -1 when none fits. */
int kbuild_sibling_pick(const struct kbuild_sibling *s, size_t n,
			const struct kbuild_slot_mark *want);
/* The other slots in slot's directory that fit want, each with its
 * distance to want's commit: *out (n of them; free with
 * kbuild_slot_siblings_free()). 0 / -1 out of memory */
int kbuild_slot_siblings(const struct kbuild_env *e, const char *slot,
			 const struct kbuild_slot_mark *want, struct kbuild_sibling **out,
			 size_t *n);
void kbuild_slot_siblings_free(struct kbuild_sibling *s, size_t n);
/* Appends s (len bytes) to out with every occurrence of the path from
 * (its last name whole: not "/a" in "/ab") replaced by to. How many were
 * replaced, or -1 when out is full. */
long kbuild_prefix_replace(const char *s, size_t len, const char *from, const char *to,
			   struct buf *out);
/* st->obj, the obj of slot, replaced by a copy of the sibling slot from's
 * obj, file times kept, the sibling's path rewritten to slot's in its
 * dependency files (.NAME.cmd, .NAME.d; *rewritten says in how many), by
 * way of OBJ.seed, so an interrupted copy is never taken for an obj, and
 * within st's deadline. 0 / -1 (*err; st->obj may then be gone) */
int kbuild_slot_copy(struct kbuild_steps *st, const char *from, const char *slot, long *rewritten,
		     char **err);

/* selftests.c. Whether test_progs needs the file name (of the built
 * selftests directory, or of its progs/) in the guest. */
int kbuild_bpf_wanted(const char *name);

#endif
