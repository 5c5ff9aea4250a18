// SPDX-License-Identifier: GPL-2.0-only
/* builder.c: the thread that turns submissions into kernels and runs.
 * For each queued submission it clones or fetches the tree, picks the base
 * (and says why), applies the series with git am -3, builds base and
 * patched for every arch (reusing any build whose key is already built),
 * then queues one request of interleaved base/patched runs per arch, job
 * and vCPU count. Trees that want a clone or fetch are handled first. */
#include "orchestrator/orchint.h"
#include "orchestrator/quiet.h"
#include "orchestrator/storage.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "images/images.h"
#include "kernels/kernels.h"

#define LIST_MAX 16   /* arches, fragments, jobs, vCPU counts in a submission */

struct builder {
	struct orch *o;
	struct db *db;
	struct kbuild_env env;
	char toolchain[2][400];   /* x86_64, arm64; "" until read */
	char *user_err;           /* no build user: why builds fail */
};

static void builder_user(struct builder *b, const char *user);

/* While a build runs the storage pass leaves builds/ and slots/ alone */
static void builder_hold(struct builder *b, int on)
{
	char *p[2] = { path_join(b->env.state_dir, "builds"), path_join(b->env.state_dir, "slots") };

	if (on)
		storage_hold(b->o, (const char *const *)p, 2);
	else
		storage_drop(b->o, (const char *const *)p, 2);
	free(p[0]);
	free(p[1]);
}

/* Splits a ',' list in place into at most LIST_MAX words */
static size_t split(char *s, char **v)
{
	size_t n = 0;

	for (char *t = s ? strtok(s, ",") : NULL; t && n < LIST_MAX; t = strtok(NULL, ","))
		if (*t)
			v[n++] = t;
	return n;
}

static void tree_sync(struct builder *b, const struct tree_row *t)
{
	char head[41], *err = NULL;

	log_info("tree '%s': %s '%s'", t->name, t->head ? "fetching" : "cloning", t->url);
	if (kbuild_tree_sync(&b->env, t->name, t->url, t->branch, head, &err) < 0) {
		log_warn("%s", err ? err : "tree sync failed");
		db_tree_synced(b->db, t->name, NULL, err ? err : "failed");
	} else {
		log_info("tree '%s': at %.12s", t->name, head);
		db_tree_synced(b->db, t->name, head, NULL);
	}
	free(err);
}

/* Picks the base: --base, else the series' base-commit, else the tree's
 * head. 0 with base and why set, -1 with *err. */
static int pick_base(struct builder *b, const struct submission *s, const struct tree_row *t,
		     const struct series *ser, char base[41], char *why, size_t n, char **err)
{
	const char *branch = t->branch && *t->branch ? t->branch : "HEAD";
	char *e = NULL;

	if (s->base_spec && *s->base_spec) {
		if (kbuild_resolve(&b->env, t->name, s->base_spec, base, err) < 0)
			return -1;
		snprintf(why, n, "given: '%s'", s->base_spec);
		return 0;
	}
	if (ser && ser->base_commit) {
		if (kbuild_resolve(&b->env, t->name, ser->base_commit, base, &e) == 0) {
			snprintf(why, n, "base-commit in %s", ser->base_commit_from);
			return 0;
		}
		free(e);
		e = NULL;
		if (kbuild_resolve(&b->env, t->name, branch, base, err) < 0)
			return -1;
		snprintf(why, n, "base-commit %.12s (%s) is not in tree '%s': head of '%s' instead",
			 ser->base_commit, ser->base_commit_from, t->name, branch);
		return 0;
	}
	if (kbuild_resolve(&b->env, t->name, branch, base, err) < 0)
		return -1;
	snprintf(why, n, "head of '%s' in tree '%s'%s", branch, t->name,
		 ser ? " (the series names no base-commit)" : "");
	return 0;
}

/* Writes the series' patches, in order and nothing else, to path; its
 * content hash into hash. 0 / -1 */
static int write_patches(const struct series *ser, const char *path, char hash[65])
{
	struct buf b = BUF_INIT(0);
	int rc;

	for (int i = 0; i < ser->count; i++) {
		const struct series_patch *p = &ser->patches[i];

		if (!p->mail)
			continue;
		if (strncmp(p->mail, "From ", 5))
			buf_puts(&b, "From kfleet Mon Sep 17 00:00:00 2001\n");
		buf_append(&b, p->mail, p->mail_len);
		if (p->mail_len && p->mail[p->mail_len - 1] != '\n')
			buf_puts(&b, "\n");
	}
	sha256_mem(buf_str(&b), b.len, hash);
	rc = write_file(path, buf_str(&b), b.len, 0600);
	buf_release(&b);
	return rc;
}

static const char *toolchain(struct builder *b, const char *arch)
{
	int i = !strcmp(arch, "arm64");

	if (!b->toolchain[i][0] && kbuild_toolchain(arch, b->toolchain[i],
						    sizeof(b->toolchain[i])) < 0)
		b->toolchain[i][0] = '\0';
	return b->toolchain[i][0] ? b->toolchain[i] : NULL;
}

/* The config options the submission's jobs ask for */
static size_t job_options(struct builder *b, char **jobs, size_t njobs, const char **opt,
			  size_t max)
{
	size_t n = 0;

	for (size_t j = 0; j < njobs; j++) {
		const struct job_def *d = job_set_find(&b->o->jobs, jobs[j]);

		for (size_t i = 0; d && i < d->nconfig && n < max; i++)
			opt[n++] = d->config[i];
	}
	return n;
}

/* Builds (or finds built) one side on one arch. 0 with *build_id and
 * *kernel (caller frees); 1 the build failed (*err: why, for the user);
 * -1 other errors (*err). */
static int build_one(struct builder *b, const struct submission *s, const char *side,
		     const char *arch, const char *commit, char **frags, size_t nfrags,
		     const char **opts, size_t nopts, int64_t *build_id, char **kernel, char **err)
{
	struct kbuild_spec spec = {
		.tree = s->tree, .commit = commit, .arch = arch, .config = s->config,
		.fragments = (const char *const *)frags, .nfragments = nfrags,
		.options = opts, .noptions = nopts, .toolchain = toolchain(b, arch),
		/* a series' commit is anyone's code */
		.untrusted = !strcmp(side, "patched"),
	};
	struct build_row row, found;
	struct kbuild_result res;
	char chash[65], key[65], sha[65];
	const char *tc = toolchain(b, arch);
	int rc, f;

	*kernel = NULL;
	if (!tc) {
		if (asprintf(err, "%s: no compiler for %s (gcc%s)", arch, arch,
			     strcmp(arch, "arm64") ? "" : "-aarch64-linux-gnu") < 0)
			*err = NULL;
		return -1;
	}
	if (b->user_err)
		return set_errf(err, "%s", b->user_err);
	if (kbuild_config_hash(&b->env, &spec, chash, err) < 0)
		return -1;
	kbuild_key(commit, chash, arch, tc, key);
	f = db_build_find(b->db, key, &found);
	if (f == 1 && !strcmp(found.state, "done") && found.kernel_path &&
	    access(found.kernel_path, R_OK) == 0) {
		log_info("submission %" PRId64 ": %s %s: built already (build %" PRId64 ")",
			 s->id, arch, side, found.id);
		*build_id = found.id;
		*kernel = strdup(found.kernel_path);
		db_row_release(db_build_fields, &found, sizeof(found));
		db_submission_link_build(b->db, s->id, side, arch, *build_id, 1);
		return *kernel ? 0 : -1;
	}
	/* a build that failed with compiler errors fails the same way again:
	 * not built twice (one that failed otherwise, a timeout or a
	 * shutdown, is tried again) */
	if (f == 1 && !strcmp(found.state, "failed") && found.errors && *found.errors) {
		log_info("submission %" PRId64 ": %s %s: failed before (build %" PRId64 "), not "
			 "built again", s->id, arch, side, found.id);
		*build_id = found.id;
		if (asprintf(err, "%s", found.detail ? found.detail : "failed") < 0)
			*err = NULL;
		db_submission_link_build(b->db, s->id, side, arch, *build_id, 1);
		db_row_release(db_build_fields, &found, sizeof(found));
		return 1;
	}
	if (f == 1)
		db_row_release(db_build_fields, &found, sizeof(found));
	memset(&row, 0, sizeof(row));
	row.key = key;
	row.tree = s->tree;
	row.commit_id = (char *)commit;
	row.arch = (char *)arch;
	row.config = s->config;
	row.config_hash = chash;
	row.toolchain = (char *)tc;
	if (asprintf(&row.dir, "%s/builds/%s", b->env.state_dir, key) < 0)
		return -1;
	rc = db_build_start(b->db, &row, build_id);
	free(row.dir);
	if (rc < 0) {
		if (asprintf(err, "database: %s", db_errmsg(b->db)) < 0)
			*err = NULL;
		return -1;
	}
	db_submission_link_build(b->db, s->id, side, arch, *build_id, 0);
	log_info("submission %" PRId64 ": building %s %s at %.12s (build %" PRId64 ")", s->id,
		 arch, side, commit, *build_id);
	builder_hold(b, 1);
	rc = kbuild_build(&b->env, &spec, key, &res, err);
	builder_hold(b, 0);
	if (rc == 0 && sha256_file(res.kernel, sha) < 0)
		rc = -1;
	if (rc == 0) {
		db_build_done(b->db, *build_id, res.kernel, sha, res.release, res.dropped, res.ms,
			      kbuild_commit_order(&b->env, s->tree, commit));
		log_info("build %" PRId64 ": %s in %" PRId64 " s", *build_id, res.release,
			 res.ms / 1000);
		*kernel = res.kernel;
		res.kernel = NULL;
	} else {
		db_build_failed(b->db, *build_id, *err ? *err : "failed", res.errors, res.ms);
		log_warn("build %" PRId64 ": %s", *build_id, *err ? *err : "failed");
		if (rc < 0)
			rc = 1;   /* recorded on the build: the submission says which */
	}
	kbuild_result_release(&res);
	return rc;
}

#define SNAPSHOT_FRAGMENT_MAX (1u << 20)

/* Copies file from into dir/name unless it is there already. 0 / -1 */
static int snap_copy(const char *from, const char *dir, const char *name, char **out)
{
	struct buf b = BUF_INIT(SNAPSHOT_FRAGMENT_MAX);
	char *to = path_join(dir, name);
	int rc = -1;

	if (!to)
		return -1;
	if (access(to, R_OK) == 0 ||
	    (read_file(from, &b, SNAPSHOT_FRAGMENT_MAX) == 0 && !b.truncated &&
	     write_file(to, buf_str(&b), b.len, 0644) == 0))
		rc = 0;
	buf_release(&b);
	if (rc == 0 && out)
		*out = to;
	else
		free(to);
	return rc;
}

/* The config inputs of a submission as they were when it started (kfleet's
 * fragments, the user's files), under state/subs/ID/configs, so that base
 * and patched are built from the same ones even if those files change
 * meanwhile, also across a restart. Absolute paths in frags and config are
 * replaced by their copies (caller frees what *owned holds). 0 / -1 */
static int snapshot_configs(struct builder *b, const struct submission *s, char **frags,
			    size_t nfrags, char **config, char **owned, size_t *nowned,
			    char **dir, char **err)
{
	static const char *const own[] = { "kfleet-guest", "kfleet-guest-x86_64",
					   "kfleet-guest-arm64" };
	char rel[64], name[64];

	snprintf(rel, sizeof(rel), "subs/%" PRId64 "/configs", s->id);
	*dir = path_join(b->env.state_dir, rel);
	if (!*dir || mkdir_p(*dir, 0755) < 0)
		return set_errf(err, "config snapshot '%s': %s", *dir ? *dir : "?",
				strerror(errno));
	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		char *from = NULL;

		snprintf(name, sizeof(name), "%s.config", own[i]);
		from = path_join(b->o->conf->configs_dir, name);
		if (from && access(from, R_OK) == 0 && snap_copy(from, *dir, name, NULL) < 0) {
			free(from);
			return set_errf(err, "config snapshot: '%s': %s", name, strerror(errno));
		}
		free(from);
	}
	for (size_t i = 0; i < nfrags; i++) {
		char *from = NULL, *to = NULL;

		if (frags[i][0] == '/') {
			snprintf(name, sizeof(name), "file-%zu.config", i);
			from = frags[i];
		} else if (!strchr(frags[i], '/')) {
			snprintf(name, sizeof(name), "%.50s.config", frags[i]);
			from = path_join(b->o->conf->configs_dir, name);
			if (!from || snap_copy(from, *dir, name, NULL) < 0) {
				set_errf(err, "config fragment '%s': %s", frags[i], strerror(errno));
				free(from);
				return -1;
			}
			free(from);
			continue;
		} else {
			continue;   /* in the tree: fixed by the commit */
		}
		if (snap_copy(from, *dir, name, &to) < 0)
			return set_errf(err, "config fragment '%s': %s", from, strerror(errno));
		frags[i] = owned[(*nowned)++] = to;
	}
	if ((*config)[0] == '/') {
		char *to = NULL;

		if (snap_copy(*config, *dir, "base.config", &to) < 0)
			return set_errf(err, "config '%s': %s", *config, strerror(errno));
		*config = owned[(*nowned)++] = to;
	}
	return 0;
}

/* The kselftest targets the jobs need, each once */
static size_t job_selftests(struct builder *b, char **jobs, size_t njobs, const char **t,
			    size_t max)
{
	size_t n = 0;

	for (size_t j = 0; j < njobs; j++) {
		const struct job_def *d = job_set_find(&b->o->jobs, jobs[j]);
		size_t k;

		if (!d || !d->selftests)
			continue;
		for (k = 0; k < n && strcmp(t[k], d->selftests); k++)
			;
		if (k == n && n < max)
			t[n++] = d->selftests;
	}
	return n;
}

/* test_progs for a kernel built elsewhere, from the submission's tree at
 * commit, into archive (selftests/SHA16/); kept while the tree and commit
 * it came from stay the same (archive.source). 0, or -1 with *err. */
static int prebuilt_selftests(struct builder *b, const struct submission *s, const char *commit,
			      const char *archive, const char *target, char **err)
{
	char *art = strdup(archive), *source = NULL, *dir = NULL, *errors = NULL, *e = NULL;
	char *slash = art ? strrchr(art, '/') : NULL, want[256];
	struct buf had = BUF_INIT(256);
	int rc = -1;

	if (!slash || asprintf(&source, "%s.source", archive) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	*slash = '\0';
	snprintf(want, sizeof(want), "%s %s\n", s->tree, commit);
	if (access(archive, R_OK) == 0 && read_file(source, &had, 256) == 0 &&
	    !strcmp(buf_str(&had), want)) {
		rc = 0;
		goto out;
	}
	if (strcmp(target, "bpf")) {
		set_errf(err, "selftests '%s': for a kernel built elsewhere only 'bpf' "
			 "(test_progs) is built; other targets build with a kernel kfleet builds",
			 target);
		goto out;
	}
	if (mkdir_p(art, 0755) < 0) {
		set_errf(err, "'%s': %s", art, strerror(errno));
		goto out;
	}
	log_info("submission %" PRId64 ": building test_progs for '%s' from %s at %.12s",
		 s->id, s->kernel, s->tree, commit);
	rc = kbuild_bpf_selftests(&b->env, s->tree, commit, s->kernel, art, &dir, &errors, &e);
	if (rc == 0 && (img_tree_archive(dir, "kselftest", archive, &e) < 0 ||
			write_file(source, want, strlen(want), 0644) < 0))
		rc = -1;
	if (dir)
		rm_tree(dir);
	if (rc != 0) {
		set_errf(err, "selftests 'bpf' for '%s' from %s at %.12s: %s (log: %s/"
			 "kselftest-bpf.log)%s%s", s->kernel, s->tree, commit, e ? e : "failed",
			 art, errors ? "\n" : "", errors ? errors : "");
		rc = -1;
	}
out:
	buf_release(&had);
	free(errors);
	free(e);
	free(dir);
	free(source);
	free(art);
	return rc;
}

/* Builds kselftest target for the kernel at kernel (when not built yet)
 * and archives it next to it, or for a kernel built elsewhere under
 * selftests/. 0, or -1 with *err for the user */
static int build_selftests(struct builder *b, const struct submission *s, const char *arch,
			   int side, const char *commit, char **frags, size_t nfrags,
			   const char **opts, size_t nopts, const char *kernel, const char *target,
			   char **err)
{
	struct kbuild_spec spec = {
		.tree = s->tree, .commit = commit, .arch = arch, .config = s->config,
		.fragments = (const char *const *)frags, .nfragments = nfrags,
		.options = opts, .noptions = nopts, .untrusted = side == 1,
	};
	char *archive = orch_selftests_path(b->env.state_dir, kernel, NULL, target);
	char *art = strdup(kernel), *dir = NULL, *errors = NULL, *e = NULL, *slash;
	int rc = -1;

	*err = NULL;
	if (!archive || !art || !(slash = strrchr(art, '/'))) {
		set_errf(err, "kernel '%s': %s", kernel, archive ? "out of memory" :
			 "cannot be read");
		goto out;
	}
	if (s->kernel) {
		rc = prebuilt_selftests(b, s, commit, archive, target, err);
		goto out;
	}
	*slash = '\0';
	if (access(archive, R_OK) == 0) {
		rc = 0;
		goto out;
	}
	log_info("submission %" PRId64 ": building selftests '%s' for %s at %.12s", s->id,
		 target, arch, commit);
	builder_hold(b, 1);
	rc = kbuild_selftests(&b->env, &spec, art, target, &dir, &errors, &e);
	builder_hold(b, 0);
	if (rc == 0 && img_tree_archive(dir, "kselftest", archive, &e) < 0)
		rc = -1;
	if (rc != 0) {
		set_errf(err, "selftests '%s' for %s at %.12s: %s%s%s", target, arch, commit,
			 e ? e : "failed", errors ? "\n" : "", errors ? errors : "");
		rc = -1;
	}
out:
	free(errors);
	free(e);
	free(dir);
	free(art);
	free(archive);
	return rc;
}

/* A commit without a series: repeat plain runs of its kernel per arch, job
 * and vCPU count (what trends across commits are made of) */
static void queue_runs(struct builder *b, const struct submission *s, char **arches,
		       size_t narch, char **kernels, char **jobs, size_t njobs,
		       char **vcpus, size_t nvcpus, struct buf *notes)
{
	int done, runs;

	if (db_submission_progress(b->db, s->id, &runs, &done) == 0 && runs)
		return;
	for (size_t a = 0; a < narch; a++)
		for (size_t j = 0; j < njobs; j++)
			for (size_t v = 0; v < (nvcpus ? nvcpus : 1); v++)
				for (int64_t k = 0; k < s->repeats; k++) {
					struct run_spec spec = {
						.kernel = kernels[2 * a], .arch = arches[a],
						.job = jobs[j], .vcpus = nvcpus ? builder_vcpus(vcpus[v]) : 0,
						.memory_mb = (int)s->memory_mb,
						.watch = s->watch,
					};
					int64_t rid;
					char *err = NULL;

					if (orch_submit(b->o, &spec, &rid, &err) < 0) {
						buf_printf(notes, "%s%s %s: %s", notes->len ? "; " : "",
							   arches[a], jobs[j], err ? err : "?");
						free(err);
						break;
					}
					db_submission_link_run(b->db, s->id, rid);
				}
}

/* Queues the runs: one request per arch, job and vCPU count */
static void queue_requests(struct builder *b, const struct submission *s, char **arches,
			   size_t narch, char **kernels, char **jobs, size_t njobs,
			   char **vcpus, size_t nvcpus, struct buf *notes)
{
	int64_t *have = NULL;
	size_t nhave = 0;

	/* a daemon that died after queuing them: not again */
	if (db_submission_requests(b->db, s->id, &have, &nhave) == 0 && nhave) {
		free(have);
		return;
	}
	free(have);
	for (size_t a = 0; a < narch; a++)
		for (size_t j = 0; j < njobs; j++)
			for (size_t v = 0; v < (nvcpus ? nvcpus : 1); v++) {
				struct run_spec spec = {
					.kernel = kernels[2 * a], .arch = arches[a], .job = jobs[j],
					.vcpus = nvcpus ? builder_vcpus(vcpus[v]) : 0,
					.memory_mb = (int)s->memory_mb,
					.watch = s->watch,
				};
				int64_t rid;
				char *err = NULL;

				if (orch_submit_request(b->o, &spec, kernels[2 * a + 1],
							(int)s->repeats, &rid, &err) < 0) {
					buf_printf(notes, "%s%s %s: %s", notes->len ? "; " : "",
						   arches[a], jobs[j], err ? err : "?");
				} else {
					db_submission_link_request(b->db, s->id, rid);
				}
				free(err);
			}
}

/* The submission's tree, cloned or fetched first when it wants that. 0,
 * or -1 with the submission ended; t filled either way (release it). */
static int tree_ready(struct builder *b, struct submission *s, struct tree_row *t)
{
	int found = db_tree_get(b->db, s->tree, t);

	memset(t, 0, found == 1 ? 0 : sizeof(*t));
	if (found != 1) {
		db_submission_end(b->db, s->id, "failed", "error", "tree: not registered", NULL);
		return -1;
	}
	if (!t->head || t->fetch_wanted) {
		tree_sync(b, t);
		db_row_release(db_tree_fields, t, sizeof(*t));
		if (db_tree_get(b->db, s->tree, t) != 1 || !t->head) {
			db_submission_end(b->db, s->id, "failed", "error",
					  t->detail ? t->detail : "tree: clone failed", NULL);
			return -1;
		}
	}
	return 0;
}

/* The base (picked and recorded once) and, with a series, the patched
 * commit it applies to (once per base and patches). 0, or -1 with the
 * submission ended; log gets git am's output. */
static int base_and_patched(struct builder *b, struct submission *s, const struct tree_row *t,
			    const struct series *ser, char base[41], char patched[41],
			    struct buf *log)
{
	char why[512], hash[65], *err = NULL, *patches = NULL;
	int rc = -1, applied;

	if (s->base_commit) {
		snprintf(base, 41, "%s", s->base_commit);
	} else {
		if (pick_base(b, s, t, ser, base, why, sizeof(why), &err) < 0) {
			db_submission_end(b->db, s->id, "failed", "error", err, NULL);
			goto out;
		}
		db_submission_set_base(b->db, s->id, base, why);
		log_info("submission %" PRId64 ": base %.12s: %s", s->id, base, why);
	}
	if (!ser) {
		rc = 0;
		goto out;
	}
	if (asprintf(&patches, "%s.patches", s->mbox_path) < 0 ||
	    write_patches(ser, patches, hash) < 0) {
		db_submission_end(b->db, s->id, "failed", "error",
				  "series: cannot write its patches", NULL);
		goto out;
	}
	if (db_apply_find(b->db, s->tree, base, hash, patched) != 1) {
		applied = kbuild_apply(&b->env, s->tree, base, patches, ser->count, patched, log,
				       &err);
		if (applied != 0) {
			db_submission_end(b->db, s->id, "failed",
					  applied == 1 ? "does-not-apply" : "error", err,
					  buf_str(log));
			log_info("submission %" PRId64 ": %s", s->id, err ? err : "?");
			goto out;
		}
		db_apply_record(b->db, s->tree, base, hash, patched);
	}
	/* git am's output, for the page and KCIDB's checkout log (none when
	 * the same patches were applied on this base before) */
	db_submission_set_patched(b->db, s->id, patched, log->len ? buf_str(log) : NULL);
	rc = 0;
out:
	free(patches);
	free(err);
	return rc;
}

/* What one submission builds: its lists, split from the row's strings */
struct sub_build {
	char *arches[LIST_MAX], *frags[LIST_MAX], *jobs[LIST_MAX], *vcpus[LIST_MAX];
	size_t narch, nfrag, njobs, nvcpus, nopts;
	const char *opts[64];
	char *kernels[2 * LIST_MAX];   /* [2a] base, [2a + 1] patched, per arch */
	int sides;                      /* 2 with a series, else 1 */
	const char *commit[2];          /* base, patched */
};

/* 1 when a user canceled s (db/cancel.c): none of its builds left is
 * started, none of its runs queued */
static int canceled(struct builder *b, const struct submission *s)
{
	if (db_submission_canceled(b->db, s->id) != 1)
		return 0;
	log_info("submission %" PRId64 ": canceled by the user: no more of its builds", s->id);
	return 1;
}

/* Builds the kernels of every arch and side, then the selftests the jobs
 * need for each; what failed goes into failed. -1 when kfleetd stops or a
 * user canceled the submission. */
static int build_all(struct builder *b, const struct submission *s, struct sub_build *sb,
		     struct buf *failed)
{
	const char *targets[LIST_MAX];
	size_t nt;
	char *err = NULL;
	int rc = 0;

	for (size_t a = 0; a < sb->narch && s->kernel; a++)
		sb->kernels[2 * a] = strdup(s->kernel);   /* built elsewhere: only tested */
	for (size_t a = 0; a < sb->narch && !s->kernel; a++)
		for (int side = 0; side < sb->sides; side++) {
			int64_t bid = 0;

			if (canceled(b, s)) {
				rc = -1;
				goto out;
			}
			free(err);
			err = NULL;
			if (build_one(b, s, side ? "patched" : "base", sb->arches[a],
				      sb->commit[side], sb->frags, sb->nfrag, sb->opts, sb->nopts,
				      &bid, &sb->kernels[2 * a + side], &err) != 0)
				buf_printf(failed, "%s%s %s: %s", failed->len ? "; " : "",
					   sb->arches[a], side ? "patched" : "base",
					   err ? err : "failed");
			if (b->o->stopping) {
				rc = -1;
				goto out;
			}
		}
	nt = failed->len ? 0 : job_selftests(b, sb->jobs, sb->njobs, targets, LIST_MAX);
	for (size_t a = 0; a < sb->narch && nt; a++)
		for (int side = 0; side < sb->sides; side++)
			for (size_t k = 0; k < nt; k++) {
				if (canceled(b, s)) {
					rc = -1;
					goto out;
				}
				free(err);
				err = NULL;
				if (build_selftests(b, s, sb->arches[a], side, sb->commit[side],
						    sb->frags,
						    sb->nfrag, sb->opts, sb->nopts,
						    sb->kernels[2 * a + side], targets[k], &err) < 0)
					buf_printf(failed, "%s%s %s: %s", failed->len ? "; " : "",
						   sb->arches[a], side ? "patched" : "base",
						   err ? err : "selftests failed");
				if (b->o->stopping) {
					rc = -1;
					goto out;
				}
			}
out:
	free(err);
	return rc;
}

static void process(struct builder *b, struct submission *s)
{
	struct sub_build sb = { .sides = 1 };
	char *arch_s = s->arches ? strdup(s->arches) : NULL;
	char *frag_s = s->fragments ? strdup(s->fragments) : NULL;
	char *job_s = s->jobs ? strdup(s->jobs) : NULL, *vcpu_s = s->vcpus ? strdup(s->vcpus) : NULL;
	struct series *ser = NULL;
	struct tree_row t;
	struct buf log = BUF_INIT(1u << 20), failed = BUF_INIT(8192), notes = BUF_INIT(8192);
	char base[41], patched[41] = "", *err = NULL;
	char *owned[LIST_MAX + 1], *snapdir = NULL, *config_given = s->config;
	const char *saved_configs = NULL;
	size_t nowned = 0;

	sb.narch = split(arch_s, sb.arches);
	sb.nfrag = split(frag_s, sb.frags);
	sb.njobs = split(job_s, sb.jobs);
	sb.nvcpus = split(vcpu_s, sb.vcpus);
	if (tree_ready(b, s, &t) < 0)
		goto out;
	if (s->mbox_path && series_parse_mbox(s->mbox_path, &ser, &err) < 0) {
		db_submission_end(b->db, s->id, "failed", "error", err, NULL);
		goto out;
	}
	if (base_and_patched(b, s, &t, ser, base, patched, &log) < 0)
		goto out;
	if (snapshot_configs(b, s, sb.frags, sb.nfrag, &s->config, owned, &nowned, &snapdir,
			     &err) < 0) {
		db_submission_end(b->db, s->id, "failed", "error", err, NULL);
		goto out;
	}
	saved_configs = b->env.configs_dir;
	b->env.configs_dir = snapdir;
	sb.nopts = job_options(b, sb.jobs, sb.njobs, sb.opts, sizeof(sb.opts) / sizeof(sb.opts[0]));
	sb.sides = ser ? 2 : 1;
	sb.commit[0] = base;
	sb.commit[1] = patched;
	if (canceled(b, s) || build_all(b, s, &sb, &failed) < 0)
		goto out;
	if (failed.len) {
		db_submission_end(b->db, s->id, "failed", "build-failed", buf_str(&failed), NULL);
		goto out;
	}
	if (s->speculative) {
		db_submission_end(b->db, s->id, "done", NULL, "built ahead for a bisection's next "
				  "step", log.len ? buf_str(&log) : NULL);
		log_info("submission %" PRId64 ": built ahead", s->id);
		goto out;
	}
	if (ser && sb.njobs)
		queue_requests(b, s, sb.arches, sb.narch, sb.kernels, sb.jobs, sb.njobs, sb.vcpus,
			       sb.nvcpus, &notes);
	else if (sb.njobs)
		queue_runs(b, s, sb.arches, sb.narch, sb.kernels, sb.jobs, sb.njobs, sb.vcpus,
			   sb.nvcpus, &notes);
	if (canceled(b, s)) {
		/* canceled while they were queued: those it missed go too */
		struct db_cancel dc;

		db_submission_cancel(b->db, s->id, "canceled by the user", &dc);
		goto out;
	}
	db_submission_end(b->db, s->id, sb.njobs ? "testing" : "done", NULL,
			  notes.len ? buf_str(&notes) : NULL, log.len ? buf_str(&log) : NULL);
	log_info("submission %" PRId64 ": built%s", s->id, sb.njobs ? ", runs queued" : "");
out:
	if (saved_configs)
		b->env.configs_dir = saved_configs;
	s->config = config_given;   /* the row's own string, which its release frees */
	for (size_t i = 0; i < nowned; i++)
		free(owned[i]);
	free(snapdir);
	for (size_t i = 0; i < 2 * LIST_MAX; i++)
		free(sb.kernels[i]);
	series_free(ser);
	db_row_release(db_tree_fields, &t, sizeof(t));
	buf_release(&log);
	buf_release(&failed);
	buf_release(&notes);
	free(err);
	free(arch_s);
	free(frag_s);
	free(job_s);
	free(vcpu_s);
}

static void *builder_main(void *arg)
{
	struct builder *b = arg;
	struct orch *o = b->o;

	for (;;) {
		struct tree_row t;
		struct submission s;
		int did = 0;

		pthread_mutex_lock(&o->lock);
		if (o->stopping) {
			pthread_mutex_unlock(&o->lock);
			break;
		}
		pthread_mutex_unlock(&o->lock);
		if (db_tree_next_fetch(b->db, &t) == 1) {
			tree_sync(b, &t);
			db_row_release(db_tree_fields, &t, sizeof(t));
			did = 1;
		}
		if (db_submission_next(b->db, &s) == 1) {
			/* kept off pinned cores or paused beside them (quiet.c) */
			quiet_build_begin(o, s.id);
			process(b, &s);
			quiet_build_end(o);
			db_row_release(db_submission_fields, &s, sizeof(s));
			did = 1;
		}
		if (did)
			continue;
		pthread_mutex_lock(&o->lock);
		if (!o->stopping) {
			struct timespec ts;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 2;
			pthread_cond_timedwait(&o->build_work, &o->lock, &ts);
		}
		pthread_mutex_unlock(&o->lock);
	}
	return NULL;
}

int builder_start(struct orch *o)
{
	const struct config *c = o->conf;
	struct builder *b = calloc(1, sizeof(*b));
	char *err = NULL;

	if (!b)
		return -1;
	b->o = o;
	b->db = db_open(o->db_path, &err);
	if (!b->db) {
		log_error("builder: %s", err ? err : "cannot open the database");
		free(err);
		free(b);
		return -1;
	}
	db_builds_recover(b->db);
	b->env.state_dir = o->state_dir;
	b->env.configs_dir = c->configs_dir;
	b->env.jobs = c->build_jobs;
	b->env.timeout_s = c->build_timeout_s;
	b->env.sandbox = c->build_sandbox;
	b->env.ccache = c->build_ccache;
	b->env.log_max = (int64_t)c->build_log_max;
	b->env.disk_max = (int64_t)c->build_disk_max;
	builder_user(b, c->build_user);
	kbuild_stage_sweep(&b->env);
	b->env.cancel = (const volatile int *)&o->stopping;
	if (b->env.sandbox && access("/usr/bin/bwrap", X_OK) < 0)
		log_warn("builder: sandbox on but no /usr/bin/bwrap (Debian package bubblewrap): "
			 "builds will fail until it is installed or [build] sandbox = no");
	o->builder = b;
	if (pthread_create(&o->builder_thread, NULL, builder_main, b) != 0) {
		db_close(b->db);
		free(b);
		o->builder = NULL;
		return -1;
	}
	return 0;
}

/* The build user's ids, a name or UID:GID; without one (and kfleetd root,
 * sandbox on) builds fail saying how to make it */
static void builder_user(struct builder *b, const char *user)
{
	if (!b->env.sandbox || geteuid() != 0)
		return;
	if (config_build_user(b->o->conf, &b->env.uid, &b->env.gid) < 0 && asprintf(&b->user_err, "[build] user '%s': no such user (not root): make it "
			    "with 'useradd --system --user-group --no-create-home --shell "
			    "/usr/sbin/nologin %s', or name another (or UID:GID)", user, user) >= 0) {
		log_error("builder: %s", b->user_err);
	}
}

void builder_stop(struct orch *o)
{
	struct builder *b = o->builder;

	if (!b)
		return;
	orch_ask_stop(o);
	pthread_join(o->builder_thread, NULL);
	db_close(b->db);
	free(b->user_err);
	free(b);
	o->builder = NULL;
}
