/* SPDX-License-Identifier: GPL-2.0-only */
/* kernels.h: the kernels kfleet boots: an image file a user names
 * (checked by kimage.c), or one kfleet builds from a tree and a patch
 * series (read by series.c and fetch.c, applied and built by the files
 * named below). What only kernels/ shares is in kernelsint.h. */
#ifndef KF_KERNELS_H
#define KF_KERNELS_H

#include <stddef.h>
#include <stdint.h>

/* Checks that path is a bootable kernel image for arch: a readable regular
 * file of sane size whose header says so (x86_64: a bzImage with the "HdrS"
 * setup header; arm64: an Image with the "ARM\x64" magic). 0, or -1 with
 * *err (caller frees) saying what is wrong. */
int kimage_check(const char *path, const char *arch, char **err);

/* Reads the kernel release ("6.1.0-57-amd64") from an image: x86_64 from
 * the setup header's kernel_version string, arm64 from the "Linux version"
 * banner in the uncompressed Image. 0, or -1 when it cannot be found. */
int kimage_release(const char *path, const char *arch, char *out, size_t n);

/* Whether path is an ELF vmlinux with a non-empty .BTF section (what BPF
 * programs are compiled against: CONFIG_DEBUG_INFO_BTF). 0, or -1 with
 * *err (caller frees) saying why not. */
int kimage_btf(const char *path, char **err);

/* For a direct PVH entry (pvh.c, [host] boot = fast): the uncompressed
 * ELF kernel inside the x86_64 bzImage at path, kept as
 * cache_dir/pvh-SHA256.vmlinux (unpacked on first use). 1 with *out (its
 * path, caller frees); 0 when the image has none to give (not a bzImage
 * of boot protocol 2.08+, or a kernel built without CONFIG_PVH); -1 with
 * *err (caller frees) when it should but cannot (a payload past the
 * file's end, a corrupt or unknown compression, a cache that cannot be
 * written). */
int kimage_pvh(const char *path, const char *cache_dir, char **out, char **err);
/* Where a bzImage's compressed kernel is: 1 with *off and *n, 0 when bz is
 * not a bzImage of boot protocol 2.08+, -1 when its header points past
 * len */
int kimage_payload(const unsigned char *bz, size_t len, size_t *off, size_t *n);
/* 1 when e[0..len) is an x86_64 ELF with a PVH entry point (a "Xen" note
 * of type XEN_ELFNOTE_PHYS32_ENTRY), else 0 */
int kimage_pvh_entry(const unsigned char *e, size_t len);

/* ---- patch series: intake (series.c with mbox.c, subject.c, diffstat.c,
 * trailers.c; fetch.c) ---- */

#include "common/buf.h"

struct json_t;

#define SERIES_MBOX_MAX     (64u << 20)  /* an mbox, fetched or read */
#define SERIES_MESSAGES_MAX 5000         /* messages in one mbox (a long thread) */
#define SERIES_PATCHES_MAX  500          /* patches in one series */

struct series_trailer {
	char *key;                /* "Signed-off-by" */
	char *value;              /* "Alice Kernel <alice@example.org>" */
	char *msgid;              /* a reply's trailer: the reply's Message-Id; NULL for
				     the patch's own */
};

/* Which strings of a mail were not valid UTF-8 (their bytes are shown as
 * \xNN escapes) or came in a charset git could not convert */
#define SERIES_LOSSY_SUBJECT 0x1u
#define SERIES_LOSSY_AUTHOR  0x2u
#define SERIES_LOSSY_BODY    0x4u
#define SERIES_LOSSY_CHARSET 0x8u   /* an unknown charset: taken as bytes */

/* A patch, or the cover letter (index 0) */
struct series_patch {
	int index;                /* 1..count; 0 for the cover letter */
	char *subject;            /* as sent, decoded: "[PATCH bpf-next v4 2/3] bpf: ..." */
	char *title;              /* the subject without its tags */
	char *author;             /* "" when the mail named none (a cover letter only) */
	char *email;
	char *date;               /* as in the Date: header, "" when none */
	char *msgid;              /* without <>, "" when none */
	unsigned line;            /* where its message starts in the mbox, 0 when unknown */
	int version;              /* the version its mail is of: older than the series'
				     in a partial reroll */
	unsigned lossy;           /* SERIES_LOSSY_* */
	struct series_trailer *trailers;
	size_t ntrailers;
	struct series_trailer *followups;  /* trailers replies gave it (Reviewed-by: ...) */
	size_t nfollowups;
	int has_diff;
	int files, insertions, deletions;
	char *mail;               /* the message as it was in the mbox (for git am) */
	size_t mail_len;
};

struct series {
	char *name;               /* the mbox as messages call it: a path or URL */
	char *tree;               /* the subject's tree tag ("bpf-next"), NULL when none */
	int version;              /* 1 when the subjects name none */
	int partial;              /* a partial reroll: some patches are of older versions */
	int rfc;
	int count;                /* patches */
	struct series_patch *cover;     /* NULL when there is none */
	struct series_patch *patches;   /* count of them, 1/N first */
	char *base_commit;        /* NULL when no message says */
	char *base_commit_from;   /* "the cover letter" or "patch 1/3" */
	char *change_id;          /* b4's change-id, NULL when none */
	char *change_id_from;
	int messages;             /* messages in the mbox */
	int others;               /* messages that are not part of the series: replies,
				     reviews, other versions */
	char **notes;             /* what kfleet chose or left out, one sentence each */
	size_t nnotes;
};

/* Reads an mbox (at most SERIES_MBOX_MAX bytes) into a series with git
 * mailsplit and git mailinfo. Replies and review comments are left out
 * (a mail without a diff that replies to another is a reply, whatever
 * its subject), their Reviewed-by:-style trailers kept as the followups
 * of the patch they answer; when the mbox holds several complete
 * versions, the newest is taken (and a note says so); a partial reroll
 * (v3 of some patches, each a reply to its v2) takes the newest of each
 * patch. A cover letter without [PATCH 0/N] is the mail patch 1 replies
 * to, when it has no diff and is the patch author's (or has a diffstat).
 * Strings that are not UTF-8 are kept as \xNN escapes and marked (lossy).
 * A subject saying more than SERIES_PATCHES_MAX patches is refused before
 * any mail is read. A series with a patch missing, patches from two
 * versions, a patch without a diff or a diff cut short is refused, the
 * message naming the patch: "series.mbox: patch 3/5 is missing",
 * "series.mbox:120: patch 2/3 has no diff". 0 with *out (free with
 * series_free()), or -1 with *err (caller frees); SERIES_INCOMPLETE (with
 * *err) when all that is wrong is patches missing: a thread whose mails
 * are still arriving. */
#define SERIES_INCOMPLETE (-2)
int series_parse_mbox(const char *path, struct series **out, char **err);
/* The same for an mbox in memory; name is what messages call it. */
int series_parse_mem(const char *name, const char *data, size_t len,
		     struct series **out, char **err);
void series_free(struct series *s);     /* accepts NULL */
/* The series as JSON (everything above but the raw mails); a new
 * reference, NULL when out of memory. */
struct json_t *series_json(const struct series *s);

/* Fetching an mbox over http(s) with libcurl: connect and total timeouts,
 * a size cap (also on what a .gz inflates to), at most 5 redirects and only
 * to http(s), the proxy from the environment, TLS verified. A gzip body
 * (.mbox.gz) is inflated. Zero fields take the defaults. */
struct fetch_opts {
	long connect_timeout_ms;  /* default FETCH_CONNECT_TIMEOUT_MS */
	long timeout_ms;          /* the whole transfer; default FETCH_TIMEOUT_MS */
	size_t max_bytes;         /* default SERIES_MBOX_MAX */
	const char *lore_base;    /* for fetch_msgid(); default $KFLEET_LORE_BASE,
				     then FETCH_LORE_BASE */
	char **link_out;          /* when set: the answer's Link: header (caller
				     frees), NULL when it has none */
};

/* The URL of a Link: header's rel="next" entry (RFC 8288, as patchwork
 * pages its lists); caller frees; NULL when there is none */
char *fetch_link_next(const char *link);

#define FETCH_CONNECT_TIMEOUT_MS 10000L
#define FETCH_TIMEOUT_MS         120000L
#define FETCH_MAX_REDIRECTS      5L
#define FETCH_LORE_BASE          "https://lore.kernel.org/all"

/* Appends the mbox at url to out. 0, or -1 with *err (caller frees):
 * "'URL': HTTP 404", "'URL': timed out after 120 s", "'URL': larger than
 * 64 MiB". */
int fetch_url(const char *url, const struct fetch_opts *o, struct buf *out, char **err);
/* The thread of a message-id ("<id>", "id:..." or the bare id) from a
 * lore-style archive, BASE/ID/t.mbox.gz. *url_out (may be NULL; caller
 * frees) gets the URL used. */
int fetch_msgid(const char *msgid, const struct fetch_opts *o, struct buf *out,
		char **url_out, char **err);
/* A patchwork series: "BASE/ID" (or BASE/api/series/ID/, or a page URL
 * with ?series=ID): GET BASE/api/series/ID/, then the mbox its "mbox"
 * field names, after its cover letter's ("cover_letter": {"mbox"}) when
 * it has one: patchwork's series mbox lacks the cover letter and its
 * base-commit. *url_out (the series' mbox) as above. */
int fetch_patchwork(const char *ref, const struct fetch_opts *o, struct buf *out,
		    char **url_out, char **err);

/* ---- trees (tree.c), applying a series (apply.c), building (build.c with
 * kconfig.c, sandbox.c, buildlog.c), selftests (selftests.c) ----
 * Under the state directory: trees/NAME.git (a mirror clone of each tree),
 * slots/ (git worktrees and make O= directories that builds reuse, so a
 * rebuild after a small change only recompiles what changed) and
 * builds/KEY/ (one artifact per build: the kernel image, its config, its
 * modules under lib/modules/RELEASE, build.log). */

#define KBUILD_FORMAT   "kfleet-kbuild-1"  /* part of every build key */
#define KBUILD_NAME_MAX 64
#define KBUILD_ERRORS_MAX 4096             /* the compiler error lines kept */

struct kbuild_env {
	const char *state_dir;
	const char *configs_dir;  /* kfleet's own fragments: NAME.config */
	int jobs;                 /* make -jN */
	int timeout_s;            /* a whole build, all its steps */
	int sandbox;              /* run git am and make under bwrap (sandbox.c) */
	int ccache;               /* compile through ccache (state/ccache) */
	unsigned uid, gid;        /* the build user's, when kfleetd is root */
	int64_t log_max;          /* a build log's bytes; past it the step stops (0: no cap) */
	int64_t disk_max;         /* what a build may write in its O= and stage (0: no cap) */
	const volatile int *cancel;  /* non-zero: stop the step running (shutdown) */
};

/* At start: the stages of builds (and their overlays, state/stage/) a
 * kfleetd that died left */
void kbuild_stage_sweep(const struct kbuild_env *e);

/* Whether name is a tree name: 1..64 of [A-Za-z0-9._-], not starting with
 * '.' or '-'. */
int kbuild_name_ok(const char *name);

/* Clones url (a path of a local git repository, or a URL git takes) into
 * trees/NAME.git as a mirror, or updates it when it is there. head (41
 * bytes) gets the commit branch points at (the remote's HEAD when branch
 * is NULL). 0, or -1 with *err (caller frees). */
int kbuild_tree_sync(const struct kbuild_env *e, const char *name, const char *url,
		     const char *branch, char head[41], char **err);
/* How many commits commit has in its history (git rev-list --count), for
 * ordering kernels along history; -1 when git cannot say. */
int64_t kbuild_commit_order(const struct kbuild_env *e, const char *tree, const char *commit);
/* The commit rev names in tree NAME (a hash, branch or tag). 0 / -1 (*err). */
int kbuild_resolve(const struct kbuild_env *e, const char *tree, const char *rev,
		   char out[41], char **err);

/* Applies the patches in mbox (patches only, in order) with `git am -3`
 * on base in the tree's apply worktree. Commits are made as kfleet with the
 * patches' own dates, so the same series on the same base always gives the
 * same commit, and a ref keeps it. Returns 0 with commit set; 1 when the
 * series does not apply (*err: "does not apply on 1234abcd5678: patch 2/3,
 * src/x.c"), git's output appended to log; -1 on other errors (*err). */
int kbuild_apply(const struct kbuild_env *e, const char *tree, const char *base,
		 const char *mbox, int count, char commit[41], struct buf *log, char **err);

/* What to build. Fragments are merged in order after the base config:
 * kfleet's own by name ("kfleet-guest" is configs_dir/kfleet-guest.config;
 * the per-arch kfleet-guest-ARCH is added by kfleet itself), paths inside
 * the tree ("tools/testing/selftests/bpf/config"), or absolute files. */
struct kbuild_spec {
	const char *tree;
	const char *commit;        /* 40 hex */
	const char *arch;          /* "x86_64" or "arm64" */
	const char *config;        /* "tinyconfig", "defconfig", "allnoconfig", or a file */
	const char *const *fragments;
	size_t nfragments;
	const char *const *options;   /* "CONFIG_X=y" lines a job asks for */
	size_t noptions;
	const char *toolchain;     /* kbuild_toolchain()'s line, or NULL: with it, a slot's
				      .config made from the same inputs is kept */
	int untrusted;             /* a series' commit: its build never writes what a later
				      build reads (its O= an overlay of the slot's, ccache
				      read-only, the slot's mark kept) */
};

/* sha256 of everything the config is made from (the base config's name or
 * content, every fragment's content in order, the options). 0 / -1 (*err). */
int kbuild_config_hash(const struct kbuild_env *e, const struct kbuild_spec *s,
		       char out[65], char **err);
/* The compiler and linker the arch builds with, one line ("gcc (Debian
 * 12.2.0-14) 12.2.0; GNU ld (GNU Binutils for Debian) 2.40"). 0 / -1. */
int kbuild_toolchain(const char *arch, char *out, size_t n);
/* The artifact key: sha256 of format, commit, config hash, arch, toolchain */
void kbuild_key(const char *commit, const char *config_hash, const char *arch,
		const char *toolchain, char out[65]);

struct kbuild_result {
	char *dir;                 /* builds/KEY */
	char *kernel;              /* DIR/vmlinuz */
	char *log;                 /* DIR/build.log */
	char release[128];         /* make kernelrelease */
	char *dropped;             /* requested options olddefconfig did not keep:
				      "CONFIG_X=y (is not set), ...", or NULL */
	char *errors;              /* a failed build: its first error lines */
	int64_t ms;
};

/* Builds s into builds/KEY (replacing what is there). 0 built; 1 the
 * build failed (r->errors, r->log say why); -1 on other errors (*err).
 * r is filled in every case; release it with kbuild_result_release(). */
int kbuild_build(const struct kbuild_env *e, const struct kbuild_spec *s, const char *key,
		 struct kbuild_result *r, char **err);
void kbuild_result_release(struct kbuild_result *r);

/* Builds and installs the kselftest target (linked statically: the guest
 * has no libc) for the kernel s built into the build directory art, in the
 * same slot: art/kselftest-TARGET/ (run_kselftest.sh, kselftest/, TARGET/),
 * its log art/kselftest-TARGET.log. 0 built (*dir: caller frees), 1 failed
 * (*errors: its first error lines, may be NULL), -1 other errors (*err). */
int kbuild_selftests(const struct kbuild_env *e, const struct kbuild_spec *s, const char *art,
		     const char *target, char **dir, char **errors, char **err);

/* Builds the BPF selftests runner test_progs from tree at commit for a
 * kernel built elsewhere (an x86_64 bzImage or vmlinux with BTF, e.g. a
 * distro's): takes the parts of the tree the selftests need (git archive),
 * the BTF from the kernel (scripts/extract-vmlinux), bpf_testmod.ko from
 * /lib/modules/RELEASE/build, and runs make test_progs in the sandbox.
 * Installs test_progs with its BPF objects and extra files in
 * art/kselftest-bpf/bpf (*dir, caller frees), and config-RELEASE when it
 * lies next to the kernel; the log is art/kselftest-bpf.log. 0 built,
 * 1 failed (*errors: its first error lines, may be NULL), -1 other errors
 * (*err). */
int kbuild_bpf_selftests(const struct kbuild_env *e, const char *tree, const char *commit,
			 const char *kernel, const char *art, char **dir, char **errors,
			 char **err);

/* Appends to dropped ("CONFIG_X=y (is not set), CONFIG_Y=n (m)") every
 * option the fragment text asks for ("CONFIG_X=y", "# CONFIG_Y is not
 * set") that the .config text cfg does not have, once each. */
void kbuild_config_dropped(const char *frag, size_t flen, const char *cfg, size_t clen,
			   struct buf *dropped);
/* The first compiler or make error lines of a build log (at most
 * KBUILD_ERRORS_MAX bytes), or NULL when none is found. Caller frees. */
char *kbuild_log_errors(const char *log, size_t len);
/* Where a build is, from its log: the stage of its last step ("prepare"
 * before the first: the worktree and the config's files; "config",
 * "make", "modules", "selftests") and the kbuild lines so far ("  CC
 * kernel/fork.o", one an object or target), which the same count of an
 * earlier build of the same arch and config turns into a fraction; for
 * a build from nothing, the estimate of its lines from its .config that
 * build.c notes before make (estimate.c), else 0. 0, or -1 (errno) when
 * the log cannot be read. */
#define KBUILD_PROGRESS_LOG_MAX (64u << 20)
struct kbuild_progress {
	char stage[16];
	long long objects;
	long long estimate;          /* kbuild lines the .config makes, about; 0: none */
	int truncated;               /* the log was longer than read */
};
int kbuild_log_progress(const char *log, struct kbuild_progress *p);
/* Which patch and file a failed `git am` output names: "patch 2/3,
 * src/x.c" into out. count is the series' patch count. */
void kbuild_am_failure(const char *out, size_t len, int count, char *why, size_t n);

/* ---- bisecting (bisect.c): git bisect over a tree's mirror ----
 * Each bisection has a worktree without a checkout, state/bisect/ID; the
 * answers given so far are replayed into it on every call, so the caller's
 * record is the only state that matters. */
struct kbisect_mark {
	const char *commit;        /* 40 hex */
	const char *answer;        /* "good", "bad", "skip" */
};
struct kbisect_next {
	int done;                  /* 0: test next; 1: culprit found; 2: only skips left */
	char next[41];             /* done 0: the commit git chose */
	int left, steps;           /* done 0: revisions left after it, roughly steps (-1, 0) */
	char culprit[41];          /* done 1: the first bad commit */
	char **candidates;         /* done 2: it is one of these */
	size_t ncandidates;
};
/* Replays git bisect start [--first-parent] bad good and marks, in order,
 * in bisection id's worktree (made at bad when missing), and says what git
 * says next; log (may be NULL) gets `git bisect log`. 0 / -1 (*err) */
int kbisect_run(const struct kbuild_env *e, const char *tree, int64_t id, const char *good,
		const char *bad, int first_parent, const struct kbisect_mark *marks, size_t n,
		struct kbisect_next *out, struct buf *log, char **err);
void kbisect_next_release(struct kbisect_next *n);
/* Removes bisection id's worktree */
void kbisect_remove(const struct kbuild_env *e, const char *tree, int64_t id);
/* 1 when a is an ancestor of b (or a == b), 0 when not, -1 on error */
int kbisect_is_ancestor(const struct kbuild_env *e, const char *tree, const char *a,
			const char *b);
struct kbisect_commit {
	char *subject, *author;    /* "Name <mail>" */
	char *parent;              /* the first parent, NULL for a root */
	int parents;
};
/* 0 / -1 (out left empty); release with kbisect_commit_release() */
int kbisect_describe(const struct kbuild_env *e, const char *tree, const char *commit,
		     struct kbisect_commit *out);
void kbisect_commit_release(struct kbisect_commit *c);
/* Commits in good..bad, -1 on error */
int kbisect_count(const struct kbuild_env *e, const char *tree, const char *good,
		  const char *bad);
/* The revert of commit (against its first parent) as an mbox of one
 * patch, "[PATCH] Revert \"SUBJECT\"", appended to out. 0 / -1 (*err) */
int kbisect_revert_mbox(const struct kbuild_env *e, const char *tree, const char *commit,
			struct buf *out, char **err);

#endif
