/* build.c: from a registered tree and a patch series to kernel artifacts.
 * Trees are mirror clones under state/trees; a series is applied with git
 * am -3 in the tree's apply worktree; builds run make O= in a worktree and
 * output directory kept per (tree, arch, config) so the next build only
 * recompiles what changed, under bwrap (a series is untrusted code), and
 * leave a content-addressed artifact in state/builds/KEY. */
#include "kernels/kernels.h"

#include <ctype.h>
#include <dirent.h>
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

#define GIT_TIMEOUT_MS   (3600 * 1000)  /* a clone of a big tree */
#define GIT_SHORT_MS     (120 * 1000)
#define FRAGMENT_MAX     (1u << 20)
#define LOG_MAX          (256u << 20)   /* the part of a build log read back */
#define SANDBOX_RO_MAX   32
#define KBUILD_TIMESTAMP "Thu Jan  1 00:00:00 UTC 1970"

int kbuild_name_ok(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > KBUILD_NAME_MAX || name[0] == '.' || name[0] == '-')
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") == n;
}

static int is_hex40(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

static char *tree_dir(const struct kbuild_env *e, const char *tree)
{
	char *p = NULL;

	if (asprintf(&p, "%s/trees/%s.git", e->state_dir, tree) < 0)
		return NULL;
	return p;
}

/* The slot a build of s with config hash chash uses: src (its worktree)
 * and obj (O=) under state/slots/TREE-ARCH-HASH12 */
static char *slot_dir(const struct kbuild_env *e, const struct kbuild_spec *s, const char *chash)
{
	char *p = NULL;

	if (asprintf(&p, "%s/slots/%s-%s-%.12s", e->state_dir, s->tree, s->arch, chash) < 0)
		return NULL;
	return p;
}

/* Commits kfleet makes (git am) and what git am --abort needs */
static void git_ident(struct cmd *c)
{
	static const char *const names[] = {
		"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL",
	};

	for (size_t i = 0; i < 4; i++)
		cmd_env(c, names[i], i < 2 ? "kfleet" : "kfleet@localhost");
}

/* git with a clean environment */
static struct cmd *git_cmd(const char *gitdir)
{
	struct cmd *c = cmd_new("git");

	git_ident(c);

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

/* Runs c, reading its stdout's first line into out (n bytes). 0 / -1 */
static int run_line(struct cmd *c, char *out, size_t n, char **err)
{
	struct buf b = BUF_INIT(64 * 1024);
	int rc;

	cmd_stdout_buf(c, &b);
	cmd_timeout(c, GIT_SHORT_MS);
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

int kbuild_resolve(const struct kbuild_env *e, const char *tree, const char *rev,
		   char out[41], char **err)
{
	char *dir = tree_dir(e, tree), *spec = NULL, *why = NULL;
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	if (!dir || !rev || !*rev || rev[0] == '-' || strlen(rev) > 256 ||
	    asprintf(&spec, "%s^{commit}", rev) < 0) {
		set_errf(err, "tree '%s': revision '%.64s': not a revision", tree, rev ? rev : "");
		goto out;
	}
	c = git_cmd(dir);
	cmd_args(c, "rev-parse", "--verify", "--quiet", spec, NULL);
	if (run_line(c, out, 41, &why) < 0 || !is_hex40(out)) {
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
	char *dir = tree_dir(e, tree), line[32] = "", *why = NULL;
	long long n = -1;
	struct cmd *c;

	if (!dir || !is_hex40(commit)) {
		free(dir);
		return -1;
	}
	c = git_cmd(dir);
	cmd_args(c, "rev-list", "--count", commit, NULL);
	if (run_line(c, line, sizeof(line), &why) < 0 || parse_int(line, 0, INT64_MAX, &n) < 0)
		n = -1;
	free(why);
	free(dir);
	return n;
}

int kbuild_tree_sync(const struct kbuild_env *e, const char *name, const char *url,
		     const char *branch, char head[41], char **err)
{
	char *dir = tree_dir(e, name), *parent = NULL, *tmp = NULL, *why = NULL;
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
		if (asprintf(&parent, "%s/trees", e->state_dir) < 0 ||
		    asprintf(&tmp, "%s.tmp", dir) < 0 || mkdir_p(parent, 0755) < 0) {
			set_errf(err, "tree '%s': '%s': %s", name, parent ? parent : "?",
			     strerror(errno));
			goto out;
		}
		rm_tree(tmp);
		c = git_cmd(NULL);
		cmd_args(c, "clone", "--mirror", "--quiet", "--", url, tmp, NULL);
		cmd_timeout(c, GIT_TIMEOUT_MS);
		cmd_cancel_on(c, e->cancel);
		if (cmd_run(c, &why) < 0) {
			cmd_free(c);
			set_errf(err, "tree '%s': clone '%s': %s", name, url, why ? why : "?");
			rm_tree(tmp);
			goto out;
		}
		cmd_free(c);
		if (rename(tmp, dir) < 0) {
			set_errf(err, "tree '%s': rename '%s': %s", name, tmp, strerror(errno));
			goto out;
		}
	} else {
		c = git_cmd(dir);
		cmd_args(c, "remote", "update", "--prune", NULL);
		cmd_timeout(c, GIT_TIMEOUT_MS);
		cmd_cancel_on(c, e->cancel);
		if (cmd_run(c, &why) < 0) {
			cmd_free(c);
			set_errf(err, "tree '%s': fetch '%s': %s", name, url, why ? why : "?");
			goto out;
		}
		cmd_free(c);
	}
	if (kbuild_resolve(e, name, branch && *branch ? branch : "HEAD", head, &why) < 0) {
		set_errf(err, "tree '%s': branch '%s': not in '%s'", name,
		     branch && *branch ? branch : "HEAD", url);
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(tmp);
	free(parent);
	free(dir);
	return rc;
}

/* A worktree of the tree at dir, checked out at commit (made when missing).
 * The checkout only rewrites files that differ, so make sees what changed. */
static int worktree_at(const struct kbuild_env *e, const char *tree, const char *dir,
		       const char *commit, char **err)
{
	char *gitdir = tree_dir(e, tree), *why = NULL, *gitfile = NULL;
	struct cmd *c;
	int rc = -1;

	if (!gitdir || asprintf(&gitfile, "%s/.git", dir) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (access(gitfile, F_OK) < 0) {
		rm_tree(dir);
		c = git_cmd(gitdir);
		cmd_args(c, "worktree", "prune", NULL);
		cmd_run(c, NULL);
		cmd_free(c);
		c = git_cmd(gitdir);
		cmd_args(c, "worktree", "add", "--detach", "--force", "--quiet", dir, commit, NULL);
		cmd_timeout(c, GIT_TIMEOUT_MS);
		if (cmd_run(c, &why) < 0) {
			cmd_free(c);
			set_errf(err, "worktree '%s': %s", dir, why ? why : "?");
			goto out;
		}
		cmd_free(c);
		rc = 0;
		goto out;
	}
	/* a git am left half done by a daemon that died */
	c = git_cmd(NULL);
	cmd_dir(c, dir);
	cmd_args(c, "am", "--abort", NULL);
	cmd_run(c, NULL);
	cmd_free(c);
	c = git_cmd(NULL);
	cmd_dir(c, dir);
	cmd_args(c, "checkout", "--quiet", "--detach", "--force", commit, NULL);
	cmd_timeout(c, GIT_TIMEOUT_MS);
	if (cmd_run(c, &why) < 0) {
		cmd_free(c);
		set_errf(err, "worktree '%s': checkout %.12s: %s", dir, commit, why ? why : "?");
		goto out;
	}
	cmd_free(c);
	c = git_cmd(NULL);
	cmd_dir(c, dir);
	cmd_args(c, "clean", "-fdxq", NULL);
	cmd_timeout(c, GIT_TIMEOUT_MS);
	if (cmd_run(c, &why) < 0) {
		cmd_free(c);
		set_errf(err, "worktree '%s': clean: %s", dir, why ? why : "?");
		goto out;
	}
	cmd_free(c);
	rc = 0;
out:
	free(why);
	free(gitfile);
	free(gitdir);
	return rc;
}

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

/* The sandbox around a command that runs code from the tree: everything
 * read-only but the named directories, a private /tmp, no network. The
 * state and config directories are bound again over the private /tmp, in
 * case they live there. */
static struct cmd *sandboxed(const struct kbuild_env *e, const char *const *rw,
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


int kbuild_apply(const struct kbuild_env *e, const char *tree, const char *base,
		 const char *mbox, int count, char commit[41], struct buf *log, char **err)
{
	char *dir = NULL, *gitdir = tree_dir(e, tree), *why = NULL, *ref = NULL;
	struct buf out = BUF_INIT(1u << 20);
	char amwhy[384], key[65];
	const char *rw[3];
	struct buf mb = BUF_INIT(SERIES_MBOX_MAX);
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	if (!gitdir || asprintf(&dir, "%s/slots/%s-apply", e->state_dir, tree) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (worktree_at(e, tree, dir, base, err) < 0)
		goto out;
	/* the commits name the series' content and base: the same series gives
	 * the same commits, and the ref keeps them from git gc */
	if (read_file(mbox, &mb, SERIES_MBOX_MAX) < 0) {
		set_errf(err, "mbox '%s': %s", mbox, strerror(errno));
		goto out;
	}
	rw[0] = dir;
	rw[1] = gitdir;
	rw[2] = NULL;
	c = sandboxed(e, rw, NULL, "git");
	cmd_args(c, "am", "-3", "--committer-date-is-author-date", "--keep-cr", mbox, NULL);
	cmd_dir(c, dir);
	cmd_label(c, "git am");
	cmd_env(c, "HOME", "/nonexistent");
	cmd_env(c, "GIT_CONFIG_NOSYSTEM", "1");
	cmd_env(c, "LANG", "C");
	git_ident(c);
	cmd_stdout_buf(c, &out);
	cmd_stderr_to_stdout(c);
	cmd_timeout(c, GIT_SHORT_MS * 5);
	if (cmd_run(c, &why) < 0) {
		const struct cmd_result *res = cmd_result(c);

		cmd_free(c);
		if (log)
			buf_append(log, buf_str(&out), out.len);
		if (res && res->end != CMD_END_EXIT) {
			set_errf(err, "git am on %.12s: %s", base, why ? why : "?");
			goto out;
		}
		kbuild_am_failure(buf_str(&out), out.len, count, amwhy, sizeof(amwhy));
		set_errf(err, "does not apply on %.12s: %s", base, amwhy);
		c = git_cmd(NULL);
		cmd_dir(c, dir);
		cmd_args(c, "am", "--abort", NULL);
		cmd_run(c, NULL);
		cmd_free(c);
		rc = 1;
		goto out;
	}
	cmd_free(c);
	if (log)
		buf_append(log, buf_str(&out), out.len);
	c = git_cmd(NULL);
	cmd_dir(c, dir);
	cmd_args(c, "rev-parse", "HEAD", NULL);
	if (run_line(c, commit, 41, &why) < 0 || !is_hex40(commit)) {
		set_errf(err, "git am on %.12s: no commit after it: %s", base, why ? why : "?");
		goto out;
	}
	sha256_mem(buf_str(&mb), mb.len, key);
	if (asprintf(&ref, "refs/kfleet/applied/%.16s-%.12s", key, base) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	c = git_cmd(gitdir);
	cmd_args(c, "update-ref", ref, commit, NULL);
	free(why);
	why = NULL;
	if (cmd_run(c, &why) < 0)
		log_warn("tree '%s': update-ref '%s': %s", tree, ref, why ? why : "?");
	cmd_free(c);
	rc = 0;
out:
	free(ref);
	free(why);
	free(dir);
	free(gitdir);
	buf_release(&out);
	buf_release(&mb);
	return rc;
}

/* --- configs ---------------------------------------------------------- */

static int is_named_config(const char *c)
{
	return !strcmp(c, "tinyconfig") || !strcmp(c, "defconfig") || !strcmp(c, "allnoconfig");
}

/* Where fragment f is: kind 'k' kfleet's own (path set), 'a' absolute
 * file, 't' inside the tree (path relative). */
static char *fragment_path(const struct kbuild_env *e, const char *f, char *kind)
{
	char *p = NULL;

	if (f[0] == '/') {
		*kind = 'a';
		return strdup(f);
	}
	if (strchr(f, '/')) {
		*kind = 't';
		return strdup(f);
	}
	*kind = 'k';
	if (asprintf(&p, "%s/%s.config", e->configs_dir, f) < 0)
		return NULL;
	return p;
}

/* Reads fragment f's content, from the tree at commit when it is a path in
 * the tree. 0 / -1 (*err) */
static int fragment_read(const struct kbuild_env *e, const struct kbuild_spec *s, const char *f,
			 struct buf *b, char **err)
{
	char kind, *p = fragment_path(e, f, &kind), *gitdir = NULL, *obj = NULL, *why = NULL;
	struct cmd *c;
	int rc = -1;

	if (!p) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (kind == 't') {
		if (strstr(p, "..") || !(gitdir = tree_dir(e, s->tree)) ||
		    asprintf(&obj, "%s:%s", s->commit, p) < 0) {
			set_errf(err, "config fragment '%s': not a path in the tree", f);
			goto out;
		}
		c = git_cmd(gitdir);
		cmd_args(c, "show", obj, NULL);
		cmd_stdout_buf(c, b);
		cmd_timeout(c, GIT_SHORT_MS);
		rc = cmd_run(c, &why);
		cmd_free(c);
		if (rc < 0 || b->truncated) {
			rc = -1;
			set_errf(err, "config fragment '%s': not in tree '%s' at %.12s", f, s->tree,
			     s->commit);
		}
		goto out;
	}
	if (read_file(p, b, FRAGMENT_MAX) < 0) {
		set_errf(err, "config fragment '%s': '%s': %s", f, p, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(why);
	free(obj);
	free(gitdir);
	free(p);
	return rc;
}

int kbuild_config_hash(const struct kbuild_env *e, const struct kbuild_spec *s,
		       char out[65], char **err)
{
	struct buf all = BUF_INIT(0), b = BUF_INIT(FRAGMENT_MAX + 1);
	char guest[40];
	int rc = -1, bad = 0;

	*err = NULL;
	if (!s->config || !*s->config) {
		set_errf(err, "config: none given");
		goto out;
	}
	bad |= buf_printf(&all, "%s\narch %s\n", KBUILD_FORMAT, s->arch);
	if (is_named_config(s->config)) {
		bad |= buf_printf(&all, "config %s\n", s->config);
	} else if (s->config[0] != '/') {
		set_errf(err, "config '%s': not tinyconfig, defconfig, allnoconfig or an absolute path",
		     s->config);
		goto out;
	} else {
		if (read_file(s->config, &b, FRAGMENT_MAX) < 0) {
			set_errf(err, "config '%s': %s", s->config, strerror(errno));
			goto out;
		}
		bad |= buf_printf(&all, "config file %zu\n", b.len);
		bad |= buf_append(&all, buf_str(&b), b.len);
	}
	snprintf(guest, sizeof(guest), "kfleet-guest-%s", s->arch);
	for (size_t i = 0; i < s->nfragments + 2; i++) {
		const char *f = i == 0 ? "kfleet-guest" : i == 1 ? guest : s->fragments[i - 2];

		buf_reset(&b);
		if (fragment_read(e, s, f, &b, err) < 0)
			goto out;
		/* a file by its content only: the same file copied elsewhere is the
		 * same config */
		bad |= buf_printf(&all, "fragment %s %zu\n", f[0] == '/' ? "file" : f, b.len);
		bad |= buf_append(&all, buf_str(&b), b.len);
	}
	for (size_t i = 0; i < s->noptions; i++)
		bad |= buf_printf(&all, "option %s\n", s->options[i]);
	if (bad) {
		set_errf(err, "out of memory");
		goto out;
	}
	sha256_mem(buf_str(&all), all.len, out);
	rc = 0;
out:
	buf_release(&b);
	buf_release(&all);
	return rc;
}

int kbuild_toolchain(const char *arch, char *out, size_t n)
{
	const char *pre = strcmp(arch, "arm64") ? "" : "aarch64-linux-gnu-";
	char cc[200] = "", ld[200] = "", *why = NULL;
	struct cmd *c;

	c = cmd_new(*pre ? "aarch64-linux-gnu-gcc" : "gcc");
	cmd_arg(c, "--version");
	if (run_line(c, cc, sizeof(cc), &why) < 0) {
		free(why);
		return -1;
	}
	c = cmd_new(*pre ? "aarch64-linux-gnu-ld" : "ld");
	cmd_arg(c, "--version");
	if (run_line(c, ld, sizeof(ld), &why) < 0) {
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

/* --- checking the config ---------------------------------------------- */

/* The value a config line sets: "CONFIG_X=y" -> name CONFIG_X, value "y";
 * "# CONFIG_X is not set" -> value "n". 0, or -1 for other lines. */
static int config_line(const char *line, size_t len, char *name, size_t nn, char *val, size_t vn)
{
	const char *eq;
	size_t l;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (len > 9 + 11 && !strncmp(line, "# CONFIG_", 9) &&
	    !memcmp(line + len - 11, " is not set", 11)) {
		l = len - 2 - 11;
		if (l >= nn)
			return -1;
		memcpy(name, line + 2, l);
		name[l] = '\0';
		snprintf(val, vn, "n");
		return 0;
	}
	if (len < 8 || strncmp(line, "CONFIG_", 7))
		return -1;
	eq = memchr(line, '=', len);
	if (!eq || (size_t)(eq - line) >= nn)
		return -1;
	l = (size_t)(eq - line);
	memcpy(name, line, l);
	name[l] = '\0';
	l = len - l - 1;
	if (l >= vn)
		l = vn - 1;
	memcpy(val, eq + 1, l);
	val[l] = '\0';
	return 0;
}

/* Looks name up in a .config's text; value into val ("n" when absent) */
static void config_get(const char *cfg, size_t len, const char *name, char *val, size_t vn)
{
	const char *p = cfg, *end = cfg + len;
	char n[128], v[256];

	snprintf(val, vn, "n");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (config_line(p, l, n, sizeof(n), v, sizeof(v)) == 0 && !strcmp(n, name)) {
			snprintf(val, vn, "%s", v);
			return;
		}
		p += l + 1;
	}
}

/* Whether dropped's ", "-separated list already names option n */
static int names(const struct buf *dropped, const char *n)
{
	size_t l = strlen(n);

	for (const char *p = buf_str(dropped); (p = strstr(p, n)); p += l)
		if ((p == buf_str(dropped) || p[-1] == ' ') && p[l] == '=')
			return 1;
	return 0;
}

void kbuild_config_dropped(const char *frag, size_t flen, const char *cfg, size_t clen,
			   struct buf *dropped)
{
	const char *p = frag, *end = frag + flen;
	char n[128], want[256], have[256];

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (config_line(p, l, n, sizeof(n), want, sizeof(want)) == 0) {
			config_get(cfg, clen, n, have, sizeof(have));
			if (strcmp(want, have) && !names(dropped, n))
				buf_printf(dropped, "%s%s=%s (%s)", dropped->len ? ", " : "", n,
					   want, strcmp(have, "n") ? have : "is not set");
		}
		p += l + 1;
	}
}

/* --- building --------------------------------------------------------- */

char *kbuild_log_errors(const char *log, size_t len)
{
	static const char *const marks[] = { ": error:", ": fatal error:", "*** ", "Error ",
					     "ERROR: ", NULL };
	const char *p = log, *end = log + len, *first = NULL;
	struct buf b = BUF_INIT(KBUILD_ERRORS_MAX);
	int lines = 0;

	while (p < end && lines < 12) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		int hit = 0;

		for (int i = 0; marks[i]; i++)
			if (memmem(p, l, marks[i], strlen(marks[i])))
				hit = 1;
		if (hit && !first)
			first = p;
		/* the error and the lines gcc prints under it (source, caret), not
		 * what make -j went on building ("  CC      x.o") */
		int built = l > 2 && p[0] == ' ' && p[1] == ' ' && isupper((unsigned char)p[2]);

		if (first && (hit || (lines && !built &&
				      (l == 0 || p[0] == ' ' || isdigit((unsigned char)p[0]))))) {
			buf_append(&b, p, l);
			buf_puts(&b, "\n");
			lines++;
		}
		p += l + 1;
	}
	if (!first) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* make with kbuild's arguments for arch, in the sandbox */
static struct cmd *make_cmd(const struct kbuild_env *e, const char *src, const char *obj,
			    const char *arch, const char *const *rw, const char *const *ro)
{
	struct cmd *c = sandboxed(e, rw, ro, "make");
	int arm = !strcmp(arch, "arm64");
	char *ccache = NULL;

	cmd_args(c, "-C", src, NULL);
	cmd_argf(c, "O=%s", obj);
	cmd_argf(c, "ARCH=%s", arch);
	if (arm)
		cmd_arg(c, "CROSS_COMPILE=aarch64-linux-gnu-");
	if (e->ccache && access("/usr/bin/ccache", X_OK) == 0) {
		cmd_argf(c, "CC=ccache %sgcc", arm ? "aarch64-linux-gnu-" : "");
		if (asprintf(&ccache, "%s/ccache", e->state_dir) >= 0) {
			cmd_env(c, "CCACHE_DIR", ccache);
			cmd_env(c, "CCACHE_BASEDIR", src);
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

struct step {
	struct cmd *c;
	const char *what;
};

/* Runs one step with what is left of the deadline, its output appended to
 * the log. 0, 1 failed (the log says why), -1 could not run */
static int step_run(const struct kbuild_env *e, struct cmd *c, const char *log, int64_t deadline, const char *what,
		    char **err)
{
	int64_t left = deadline - mono_ms();
	char *why = NULL;
	int rc = 0;

	if (left < 1000)
		left = 1000;
	cmd_stdout_append(c, log);
	cmd_stderr_to_stdout(c);
	cmd_cancel_on(c, e->cancel);
	cmd_timeout(c, (int)(left > INT32_MAX ? INT32_MAX : left));
	if (cmd_run(c, &why) < 0) {
		const struct cmd_result *r = cmd_result(c);

		if (r->end == CMD_END_SPAWN) {
			set_errf(err, "%s: %s", what, why ? why : "?");
			rc = -1;
		} else {
			set_errf(err, "%s: %s", what, why ? why : "?");
			rc = 1;
		}
	}
	free(why);
	cmd_free(c);
	return rc;
}

static int log_note(const char *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int log_note(const char *log, const char *fmt, ...)
{
	FILE *f = fopen(log, "ae");
	va_list ap;

	if (!f)
		return -1;
	va_start(ap, fmt);
	fputs("### kfleet: ", f);
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	va_end(ap);
	return fclose(f);
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

/* Copies a file with cp (keeps the code small; the kernel is tens of MB) */
static int copy_out(const char *from, const char *to, char **err)
{
	struct cmd *c = cmd_new("cp");

	cmd_args(c, "--", from, to, NULL);
	int rc = cmd_run(c, err);

	cmd_free(c);
	return rc;
}

int kbuild_build(const struct kbuild_env *e, const struct kbuild_spec *s, const char *key,
		 struct kbuild_result *r, char **err)
{
	char *slot = NULL, *src = NULL, *obj = NULL, *cfg = NULL, *optfrag = NULL, *why = NULL;
	char *image = NULL, *tmp = NULL;
	int arm = !strcmp(s->arch, "arm64"), rc = -1, modules;
	struct buf frag = BUF_INIT(FRAGMENT_MAX + 1), dotcfg = BUF_INIT(FRAGMENT_MAX * 8);
	struct buf dropped = BUF_INIT(16384), rel = BUF_INIT(256), logb = BUF_INIT(LOG_MAX);
	char chash[65], guest[40];
	int64_t t0 = mono_ms(), deadline = t0 + (int64_t)e->timeout_s * 1000;
	const char *rw[5], *ro[SANDBOX_RO_MAX + 2];
	size_t nro = 0;
	struct cmd *c;

	*err = NULL;
	memset(r, 0, sizeof(*r));
	if (s->config[0] == '/')
		ro[nro++] = s->config;
	for (size_t i = 0; i < s->nfragments && nro < SANDBOX_RO_MAX; i++)
		if (s->fragments[i][0] == '/')
			ro[nro++] = s->fragments[i];
	ro[nro] = NULL;
	if (kbuild_config_hash(e, s, chash, err) < 0)
		return -1;
	if (!(slot = slot_dir(e, s, chash)) ||
	    asprintf(&src, "%s/src", slot) < 0 || asprintf(&obj, "%s/obj", slot) < 0 ||
	    asprintf(&r->dir, "%s/builds/%s", e->state_dir, key) < 0 ||
	    asprintf(&r->log, "%s/build.log", r->dir) < 0 ||
	    asprintf(&r->kernel, "%s/vmlinuz", r->dir) < 0 ||
	    asprintf(&cfg, "%s/.config", obj) < 0 ||
	    asprintf(&optfrag, "%s/kfleet-options.config", obj) < 0 ||
	    asprintf(&tmp, "%s/ccache", e->state_dir) < 0 ||
	    asprintf(&image, "%s/arch/%s/boot/%s", obj, arm ? "arm64" : "x86",
		     arm ? "Image" : "bzImage") < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	rm_tree(r->dir);
	if (mkdir_p(r->dir, 0755) < 0 || mkdir_p(obj, 0755) < 0 || mkdir_p(tmp, 0755) < 0) {
		set_errf(err, "build '%s': %s", r->dir, strerror(errno));
		goto out;
	}
	log_note(r->log, "tree %s commit %s arch %s config %s", s->tree, s->commit, s->arch,
		 s->config);
	if (worktree_at(e, s->tree, src, s->commit, err) < 0)
		goto out;
	rw[0] = src;
	rw[1] = obj;
	rw[2] = tmp;
	rw[3] = r->dir;
	rw[4] = NULL;
	if (!e->ccache)
		rw[2] = r->dir, rw[3] = NULL;

	/* the base config, then the fragments merged by the tree's own script */
	if (is_named_config(s->config)) {
		c = make_cmd(e, src, obj, s->arch, rw, ro);
		cmd_arg(c, s->config);
		if ((rc = step_run(e, c, r->log, deadline, s->config, err)) != 0)
			goto fail;
	} else if (copy_out(s->config, cfg, &why) < 0) {
		set_errf(err, "config '%s': %s", s->config, why ? why : "?");
		rc = -1;
		goto out;
	}
	if (s->noptions) {
		struct buf o = BUF_INIT(0);

		for (size_t i = 0; i < s->noptions; i++)
			buf_printf(&o, "%s\n", s->options[i]);
		if (write_file(optfrag, buf_str(&o), o.len, 0644) < 0) {
			buf_release(&o);
			set_errf(err, "'%s': %s", optfrag, strerror(errno));
			rc = -1;
			goto out;
		}
		buf_release(&o);
	}
	c = sandboxed(e, rw, ro, "sh");
	cmd_label(c, "merge_config.sh");
	cmd_dir(c, src);
	cmd_args(c, "scripts/kconfig/merge_config.sh", "-m", "-O", obj, cfg, NULL);
	snprintf(guest, sizeof(guest), "kfleet-guest-%s", s->arch);
	for (size_t i = 0; i < s->nfragments + 2; i++) {
		const char *f = i == 0 ? "kfleet-guest" : i == 1 ? guest : s->fragments[i - 2];
		char kind, *p = fragment_path(e, f, &kind);

		if (p && kind == 't')
			cmd_argf(c, "%s/%s", src, p);
		else if (p)
			cmd_arg(c, p);
		free(p);
	}
	if (s->noptions)
		cmd_arg(c, optfrag);
	cmd_env(c, "HOME", "/tmp");
	cmd_env(c, "LANG", "C");
	if ((rc = step_run(e, c, r->log, deadline, "merge_config.sh", err)) != 0)
		goto fail;
	c = make_cmd(e, src, obj, s->arch, rw, ro);
	cmd_arg(c, "olddefconfig");
	if ((rc = step_run(e, c, r->log, deadline, "olddefconfig", err)) != 0)
		goto fail;

	/* every option asked for must have survived olddefconfig */
	if (read_file(cfg, &dotcfg, FRAGMENT_MAX * 8) < 0) {
		set_errf(err, "'%s': %s", cfg, strerror(errno));
		rc = -1;
		goto out;
	}
	for (size_t i = 0; i < s->nfragments + 2; i++) {
		const char *f = i == 0 ? "kfleet-guest" : i == 1 ? guest : s->fragments[i - 2];

		buf_reset(&frag);
		if (fragment_read(e, s, f, &frag, err) < 0) {
			rc = -1;
			goto out;
		}
		kbuild_config_dropped(buf_str(&frag), frag.len, buf_str(&dotcfg), dotcfg.len, &dropped);
	}
	for (size_t i = 0; i < s->noptions; i++)
		kbuild_config_dropped(s->options[i], strlen(s->options[i]), buf_str(&dotcfg), dotcfg.len,
			     &dropped);
	if (dropped.len) {
		r->dropped = buf_detach(&dropped);
		log_note(r->log, "options olddefconfig did not keep: %s", r->dropped);
	}
	modules = strstr(buf_str(&dotcfg), "\nCONFIG_MODULES=y\n") != NULL;

	c = make_cmd(e, src, obj, s->arch, rw, ro);
	cmd_argf(c, "-j%d", e->jobs > 0 ? e->jobs : 1);
	cmd_arg(c, arm ? "Image" : "bzImage");
	if (modules)
		cmd_arg(c, "modules");
	if ((rc = step_run(e, c, r->log, deadline, "make", err)) != 0)
		goto fail;
	c = make_cmd(e, src, obj, s->arch, rw, ro);
	cmd_args(c, "-s", "kernelrelease", NULL);
	cmd_stdout_buf(c, &rel);
	cmd_timeout(c, GIT_SHORT_MS);
	if (cmd_run(c, &why) < 0 || !rel.len) {
		cmd_free(c);
		set_errf(err, "make kernelrelease: %s", why ? why : "no output");
		rc = -1;
		goto out;
	}
	cmd_free(c);
	snprintf(r->release, sizeof(r->release), "%.*s", (int)strcspn(buf_str(&rel), "\n"),
		 buf_str(&rel));
	if (modules) {
		c = make_cmd(e, src, obj, s->arch, rw, ro);
		cmd_args(c, "modules_install", "INSTALL_MOD_STRIP=1", NULL);
		cmd_argf(c, "INSTALL_MOD_PATH=%s", r->dir);
		if ((rc = step_run(e, c, r->log, deadline, "modules_install", err)) != 0)
			goto fail;
		/* links back into the worktree, which the next build changes */
		for (int i = 0; i < 2; i++) {
			char *l = NULL;

			if (asprintf(&l, "%s/lib/modules/%s/%s", r->dir, r->release,
				     i ? "source" : "build") >= 0)
				unlink(l);
			free(l);
		}
	}
	free(why);
	why = NULL;
	if (copy_out(image, r->kernel, &why) < 0 ||
	    copy_out(cfg, r->dir, &why) < 0) {
		set_errf(err, "build '%s': %s", key, why ? why : "?");
		rc = -1;
		goto out;
	}
	{
		char *c2 = path_join(r->dir, ".config"), *c3 = path_join(r->dir, "config");

		if (c2 && c3)
			rename(c2, c3);
		free(c2);
		free(c3);
	}
	r->ms = mono_ms() - t0;
	log_note(r->log, "built %s in %lld ms", r->release, (long long)r->ms);
	rc = 0;
	goto out;
fail:
	r->ms = mono_ms() - t0;
	if (rc == 1) {
		if (read_file_tail(r->log, &logb, 1u << 20) == 0)
			r->errors = kbuild_log_errors(buf_str(&logb), logb.len);
		if (!r->errors && *err)
			r->errors = strdup(*err);
		log_note(r->log, "failed: %s", *err ? *err : "?");
	}
out:
	free(tmp);
	free(image);
	free(why);
	free(optfrag);
	free(cfg);
	free(obj);
	free(src);
	free(slot);
	buf_release(&frag);
	buf_release(&dotcfg);
	buf_release(&dropped);
	buf_release(&rel);
	buf_release(&logb);
	return rc;
}

/* What test_progs reads at run time besides itself and the *.bpf.o files
 * (the TRUNNER_EXTRA_FILES of tools/testing/selftests/bpf/Makefile) */
static const char *const bpf_extras[] = {
	"bpf_testmod.ko", "urandom_read", "liburandom_read.so", "xdp_synproxy", "sign-file",
	"ima_setup.sh", "verify_sig_setup.sh",
};

static int bpf_wanted(const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; i < sizeof(bpf_extras) / sizeof(bpf_extras[0]); i++)
		if (!strcmp(name, bpf_extras[i]))
			return 1;
	return !strcmp(name, "test_progs") || (n > 6 && !strcmp(name + n - 6, ".bpf.o")) ||
	       (!strncmp(name, "btf_dump_test_case_", 19) && n > 2 && !strcmp(name + n - 2, ".c"));
}

/* Copies what test_progs needs from the built selftests directory sel to
 * out (and progs/btf_dump_test_case_*.c, which btf_dump compares against) */
static int bpf_install(const char *sel, const char *out, char **err)
{
	char *progs = NULL, *oprogs = NULL;
	struct cmd *c = cmd_new("cp"), *cp = cmd_new("cp");
	struct dirent *d;
	DIR *dir = NULL;
	int files = 0, pfiles = 0, rc = -1;

	cmd_arg(c, "-p");
	cmd_arg(cp, "-p");
	if (asprintf(&progs, "%s/progs", sel) < 0 || asprintf(&oprogs, "%s/progs", out) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (mkdir_p(oprogs, 0755) < 0) {
		set_errf(err, "'%s': %s", oprogs, strerror(errno));
		goto out;
	}
	if (!(dir = opendir(sel))) {
		set_errf(err, "'%s': %s", sel, strerror(errno));
		goto out;
	}
	while ((d = readdir(dir)))
		if (bpf_wanted(d->d_name)) {
			cmd_argf(c, "%s/%s", sel, d->d_name);
			files++;
		}
	closedir(dir);
	if (!(dir = opendir(progs))) {
		set_errf(err, "'%s': %s", progs, strerror(errno));
		goto out;
	}
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "btf_dump_test_case_", 19) && bpf_wanted(d->d_name)) {
			cmd_argf(cp, "%s/%s", progs, d->d_name);
			pfiles++;
		}
	cmd_arg(c, out);
	cmd_arg(cp, oprogs);
	if (!files || cmd_run(c, err) < 0 || (pfiles && cmd_run(cp, err) < 0)) {
		if (!*err)
			set_errf(err, "'%s': nothing built to install", sel);
		goto out;
	}
	rc = 0;
out:
	if (dir)
		closedir(dir);
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
	struct cmd *c;
	int rc = 0;

	if (!slash || (*slash = '\0', asprintf(&from, "%s/config-%s", dir, release)) < 0 ||
	    asprintf(&plain, "%s/config", dir) < 0 ||
	    asprintf(&to, "%s/config-%s", out, release) < 0) {
		rc = set_errf(err, "out of memory");
		goto out;
	}
	use = access(from, R_OK) == 0 ? from : access(plain, R_OK) == 0 ? plain : NULL;
	if (use) {
		c = cmd_new("cp");
		cmd_args(c, use, to, NULL);
		rc = cmd_run(c, err);
		cmd_free(c);
	}
out:
	free(to);
	free(plain);
	free(from);
	free(dir);
	return rc;
}

/* test_progs for kernel (its BTF), bpf_testmod.ko against kdir (NULL:
 * /lib/modules/RELEASE/build); kbuild_bpf_selftests() and, for a kernel
 * kfleet built, kbuild_selftests() */
static int bpf_selftests(const struct kbuild_env *e, const char *tree, const char *commit,
			 const char *arch, const char *kernel, const char *kdir_given,
			 const char *art, char **dir, char **errors, char **err)
{
	/* what tools/testing/selftests/bpf builds from: its own tools/ (libbpf,
	 * bpftool, resolve_btfids), the uapi and scripts, and kernel/bpf's
	 * disassembler that bpftool compiles in */
	static const char *const parts[] = { "Makefile", "tools", "include", "scripts",
					     "kernel/bpf", "arch/x86" };
	char *gitdir = tree_dir(e, tree), *src = NULL, *tar = NULL, *log = NULL;
	char *vmlinux = NULL, *kdir = NULL, *sel = NULL, *bdir = NULL, *why = NULL;
	char release[128];
	const char *rw[3], *btf = kernel;
	struct buf logb = BUF_INIT(1u << 20);
	int64_t deadline = mono_ms() + (int64_t)e->timeout_s * 1000;
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	*errors = NULL;
	*dir = NULL;
	if (strcmp(arch, "x86_64")) {
		/* arm64 would need test_progs cross-linked against an arm64 libelf */
		set_errf(err, "selftests 'bpf': built for x86_64 kernels only, not %s", arch);
		goto out;
	}
	if (!gitdir || asprintf(&src, "%s/src", art) < 0 || asprintf(&tar, "%s/src.tar", art) < 0 ||
	    asprintf(&log, "%s/kselftest-bpf.log", art) < 0 ||
	    asprintf(&vmlinux, "%s/vmlinux", art) < 0 ||
	    asprintf(&sel, "%s/tools/testing/selftests/bpf", src) < 0 ||
	    asprintf(dir, "%s/kselftest-bpf", art) < 0 || asprintf(&bdir, "%s/bpf", *dir) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (kimage_release(kernel, "x86_64", release, sizeof(release)) < 0) {
		set_errf(err, "kernel '%s': no release string in it", kernel);
		goto out;
	}
	/* bpf_testmod.ko is built against the kernel's build directory (for
	 * a distro kernel, its headers package) */
	if (kdir_given ? !(kdir = strdup(kdir_given)) :
	    asprintf(&kdir, "/lib/modules/%s/build", release) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (access(kdir, R_OK) < 0) {
		set_errf(err, "kernel %s: no build directory '%s' for bpf_testmod.ko (install "
			 "linux-headers-%s)", release, kdir, release);
		goto out;
	}
	rm_tree(src);
	rm_tree(*dir);
	unlink(log);
	unlink(vmlinux);
	if (mkdir_p(src, 0755) < 0) {
		set_errf(err, "'%s': %s", src, strerror(errno));
		goto out;
	}
	c = git_cmd(gitdir);
	cmd_args(c, "archive", "--format=tar", commit, "--", NULL);
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		cmd_arg(c, parts[i]);
	cmd_stdout_file(c, tar);
	cmd_timeout(c, GIT_TIMEOUT_MS);
	rc = cmd_run(c, &why);
	cmd_free(c);
	if (rc == 0) {
		c = cmd_new("tar");
		cmd_args(c, "-xf", tar, "-C", src, NULL);
		rc = cmd_run(c, &why);
		cmd_free(c);
	}
	unlink(tar);
	if (rc < 0) {
		set_errf(err, "tree '%s' at %.12s: %s", tree, commit, why ? why : "?");
		goto out;
	}
	rc = -1;
	rw[0] = src;
	rw[1] = art;
	rw[2] = NULL;
	/* the BTF the programs are compiled against: the kernel's own, an
	 * ELF vmlinux, or the one inside a bzImage */
	if (kimage_btf(kernel, &why) < 0) {
		free(why);
		why = NULL;
		c = sandboxed(e, rw, NULL, "sh");
		cmd_argf(c, "%s/scripts/extract-vmlinux", src);
		cmd_arg(c, kernel);
		cmd_stdout_file(c, vmlinux);
		cmd_stderr_file(c, log);
		cmd_timeout(c, 120 * 1000);
		if (cmd_run(c, &why) < 0 || kimage_btf(vmlinux, &why) < 0) {
			cmd_free(c);
			set_errf(err, "kernel '%s': no BTF to build BPF programs against: %s",
				 kernel, why ? why : "?");
			goto out;
		}
		cmd_free(c);
		btf = vmlinux;
	}
	c = sandboxed(e, rw, NULL, "make");
	cmd_args(c, "-C", sel, NULL);
	cmd_argf(c, "-j%d", e->jobs > 0 ? e->jobs : 1);
	cmd_argf(c, "VMLINUX_BTF=%s", btf);
	cmd_argf(c, "KDIR=%s", kdir);
	cmd_arg(c, "test_progs");
	cmd_env(c, "HOME", "/tmp");
	cmd_env(c, "LANG", "C");
	rc = step_run(e, c, log, deadline, "make test_progs", err);
	if (rc == 0 && bpf_install(sel, bdir, err) < 0)
		rc = -1;
	if (rc == 0 && bpf_config(kernel, release, *dir, err) < 0)
		rc = -1;
	if (rc == 1 && read_file_tail(log, &logb, 1u << 20) == 0)
		*errors = kbuild_log_errors(buf_str(&logb), logb.len);
out:
	if (rc != 0) {
		free(*dir);
		*dir = NULL;
	}
	if (src)
		rm_tree(src);
	if (vmlinux)
		unlink(vmlinux);
	buf_release(&logb);
	free(why);
	free(bdir);
	free(sel);
	free(kdir);
	free(vmlinux);
	free(log);
	free(tar);
	free(src);
	free(gitdir);
	return rc;
}

int kbuild_bpf_selftests(const struct kbuild_env *e, const char *tree, const char *commit,
			 const char *kernel, const char *art, char **dir, char **errors,
			 char **err)
{
	return bpf_selftests(e, tree, commit, "x86_64", kernel, NULL, art, dir, errors, err);
}

int kbuild_selftests(const struct kbuild_env *e, const struct kbuild_spec *s, const char *art,
		     const char *target, char **dir, char **errors, char **err)
{
	char *slot = NULL, *src = NULL, *obj = NULL, *log = NULL, *ccache = NULL;
	char *tdir = NULL, chash[65];
	struct buf logb = BUF_INIT(1u << 20);
	int64_t deadline = mono_ms() + (int64_t)e->timeout_s * 1000;
	const char *rw[5], *ro[2] = { NULL, NULL };
	struct cmd *c;
	int rc = -1;

	*err = NULL;
	*errors = NULL;
	*dir = NULL;
	if (!kbuild_name_ok(target))
		return set_errf(err, "selftests '%s': not a kselftest target", target);
	if (kbuild_config_hash(e, s, chash, err) < 0)
		return -1;
	if (!(slot = slot_dir(e, s, chash)) || asprintf(&obj, "%s/obj", slot) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (!strcmp(target, "bpf")) {
		/* test_progs against the kernel just built: its BTF, and its
		 * object tree for bpf_testmod.ko */
		char *kernel = NULL;

		rc = asprintf(&kernel, "%s/vmlinuz", art) < 0 ? set_errf(err, "out of memory") :
		     bpf_selftests(e, s->tree, s->commit, s->arch, kernel, obj, art, dir, errors,
				   err);
		free(kernel);
		goto out;
	}
	if (s->config[0] == '/')
		ro[0] = s->config;
	if (asprintf(&src, "%s/src", slot) < 0 ||
	    asprintf(dir, "%s/kselftest-%s", art, target) < 0 ||
	    asprintf(&log, "%s/kselftest-%s.log", art, target) < 0 ||
	    asprintf(&tdir, "%s/%s", *dir, target) < 0 ||
	    asprintf(&ccache, "%s/ccache", e->state_dir) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	rm_tree(*dir);
	unlink(log);
	if (worktree_at(e, s->tree, src, s->commit, err) < 0)
		goto out;
	rw[0] = src;
	rw[1] = obj;
	rw[2] = art;
	rw[3] = e->ccache ? ccache : NULL;
	rw[4] = NULL;
	c = make_cmd(e, src, obj, s->arch, rw, ro);
	cmd_argf(c, "-j%d", e->jobs > 0 ? e->jobs : 1);
	cmd_argf(c, "TARGETS=%s", target);
	cmd_argf(c, "KSFT_INSTALL_PATH=%s", *dir);
	cmd_args(c, "USERLDFLAGS=-static", "kselftest-install", NULL);
	rc = step_run(e, c, log, deadline, "kselftest-install", err);
	/* kselftest's make carries on past a target that failed: its
	 * directory is then missing from the install */
	if (rc == 0 && access(tdir, F_OK) < 0) {
		set_errf(err, "selftests '%s': not built (see kselftest-%s.log)", target, target);
		rc = 1;
	}
	if (rc == 1 && read_file_tail(log, &logb, 1u << 20) == 0)
		*errors = kbuild_log_errors(buf_str(&logb), logb.len);
out:
	if (rc != 0) {
		free(*dir);
		*dir = NULL;
	}
	buf_release(&logb);
	free(tdir);
	free(ccache);
	free(log);
	free(obj);
	free(src);
	free(slot);
	return rc;
}
