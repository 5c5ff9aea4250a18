// SPDX-License-Identifier: GPL-2.0-only
/* slot.c: what a slot (state/slots/TREE-ARCH-CONFIG, its O= directory
 * obj; every slot of a tree builds from the tree's one worktree,
 * state/slots/TREE-src) last built completely, and how a new slot starts
 * from a sibling's object tree instead of from nothing: a copy, times
 * kept, of the obj of a slot of the same tree and arch whose last build
 * made the same .config. build.c marks slots, seeds new ones and checks
 * the .config; make's own dependency tracking rebuilds what differs. */
#include "kernels/kernelsint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define MARK_FILE     "built"
#define MARK_FORMAT   "kfleet-slot-1"
#define MARK_MAX      4096
#define SIBLINGS_MAX  64               /* slots looked at for a seed */
#define DIFF_MAX      (16u << 20)      /* git diff --name-only of two commits */
#define DEP_FILE_MAX  (64u << 20)      /* a .cmd or .d file rewritten */

/* --- the mark: SLOT/built ---------------------------------------------- */

/* "key value" of one line into out (n bytes); 0, or -1 when the line has
 * another key or the value does not fit */
static int mark_value(const char *line, size_t len, const char *key, char *out, size_t n)
{
	size_t k = strlen(key);

	if (len <= k + 1 || strncmp(line, key, k) || line[k] != ' ' || len - k - 1 >= n)
		return -1;
	memcpy(out, line + k + 1, len - k - 1);
	out[len - k - 1] = '\0';
	return 0;
}

static int hex_n(const char *s, size_t n)
{
	return strlen(s) == n && strspn(s, "0123456789abcdef") == n;
}

int kbuild_slot_mark_parse(const char *text, size_t len, struct kbuild_slot_mark *m)
{
	static const char *const keys[] = { MARK_FORMAT, "tree", "arch", "config", "commit" };
	char *const out[] = { NULL, m->tree, m->arch, m->config, m->commit };
	const size_t size[] = { 0, sizeof(m->tree), sizeof(m->arch), sizeof(m->config),
				sizeof(m->commit) };
	const char *p = text, *end = text + len;
	size_t i = 0;

	memset(m, 0, sizeof(*m));
	if (len > MARK_MAX || memchr(text, '\0', len))
		return -1;
	/* the format's line, then one line per key, in order */
	for (; p < end && i < 5; i++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (i ? mark_value(p, l, keys[i], out[i], size[i]) < 0 :
			l != strlen(MARK_FORMAT) || strncmp(p, MARK_FORMAT, l))
			break;
		p += l + (nl ? 1 : 0);
	}
	if (i < 5 || p != end || !kbuild_name_ok(m->tree) || !kbuild_name_ok(m->arch) ||
	    !hex_n(m->config, 64) || !kbuild_hex40(m->commit)) {
		memset(m, 0, sizeof(*m));
		return -1;
	}
	return 0;
}

int kbuild_slot_mark_write(const char *slot, const struct kbuild_slot_mark *m)
{
	char *path = path_join(slot, MARK_FILE);
	struct buf b = BUF_INIT(MARK_MAX);
	int rc = -1;

	if (path && buf_printf(&b, "%s\ntree %s\narch %s\nconfig %s\ncommit %s\n", MARK_FORMAT,
			       m->tree, m->arch, m->config, m->commit) == 0)
		rc = write_file(path, buf_str(&b), b.len, 0644);
	buf_release(&b);
	free(path);
	return rc;
}

int kbuild_slot_mark_read(const char *slot, struct kbuild_slot_mark *m)
{
	char *path = path_join(slot, MARK_FILE);
	struct buf b = BUF_INIT(MARK_MAX + 1);
	int rc = -1;

	memset(m, 0, sizeof(*m));
	if (path && read_file(path, &b, MARK_MAX) == 0 && !b.truncated)
		rc = kbuild_slot_mark_parse(buf_str(&b), b.len, m);
	buf_release(&b);
	free(path);
	return rc;
}

int kbuild_slot_mark_clear(const char *slot)
{
	char *path = path_join(slot, MARK_FILE);
	int rc = path && (unlink(path) == 0 || errno == ENOENT) ? 0 : -1;

	free(path);
	return rc;
}

int kbuild_slot_config(const char *obj, char out[65])
{
	char *cfg = path_join(obj, ".config");
	int rc = cfg ? sha256_file(cfg, out) : -1;

	free(cfg);
	return rc;
}

/* --- which sibling ----------------------------------------------------- */

int kbuild_sibling_fits(const struct kbuild_slot_mark *have, const struct kbuild_slot_mark *want)
{
	return !strcmp(have->tree, want->tree) && !strcmp(have->arch, want->arch) &&
	       hex_n(have->config, 64) && (!*want->config || !strcmp(have->config, want->config));
}

int kbuild_sibling_pick(const struct kbuild_sibling *s, size_t n,
			const struct kbuild_slot_mark *want)
{
	int best = -1;

	for (size_t i = 0; i < n && i < INT_MAX; i++) {
		if (!kbuild_sibling_fits(&s[i].m, want) || s[i].changed < 0)
			continue;
		if (best < 0 || s[i].changed < s[best].changed)
			best = (int)i;
	}
	return best;
}

/* How many files differ between commits a and b of tree (those at b:
 * what make may have to rebuild) into *n. 0 / -1 */
static int slot_diff(const struct kbuild_env *e, const char *tree, const char *a, const char *b,
		     long long *n)
{
	char *gitdir = kbuild_tree_dir(e, tree);
	struct buf o = BUF_INIT(DIFF_MAX);
	struct cmd *c;
	int rc = -1;

	*n = 0;
	if (!gitdir)
		return -1;
	c = kbuild_git(gitdir);
	cmd_args(c, "diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", a, b, "--",
		 NULL);
	cmd_stdout_buf(c, &o);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	if (cmd_run(c, NULL) == 0 && !o.truncated) {
		for (size_t i = 0; i < o.len; i++)
			*n += buf_str(&o)[i] == '\0';
		rc = 0;
	}
	cmd_free(c);
	free(gitdir);
	buf_release(&o);
	return rc;
}

/* Whether name is a slot of want's tree and arch: TREE-ARCH-HASH12 (not
 * the tree's worktree TREE-src or its apply worktree TREE-apply) */
static int slot_named(const char *name, const struct kbuild_slot_mark *want)
{
	size_t t = strlen(want->tree), a = strlen(want->arch);

	return !strncmp(name, want->tree, t) && name[t] == '-' &&
	       !strncmp(name + t + 1, want->arch, a) && name[t + 1 + a] == '-' &&
	       hex_n(name + t + a + 2, 12);
}

int kbuild_slot_siblings(const struct kbuild_env *e, const char *slot,
			 const struct kbuild_slot_mark *want, struct kbuild_sibling **out,
			 size_t *n)
{
	char *parent = strdup(slot), *self;
	struct kbuild_sibling *s = calloc(SIBLINGS_MAX, sizeof(*s));
	struct dirent *de;
	DIR *d;

	*out = NULL;
	*n = 0;
	if (!parent || !s || !(self = strrchr(parent, '/')) || self == parent) {
		free(s);
		free(parent);
		return -1;
	}
	*self++ = '\0';
	if ((d = opendir(parent))) {
		while ((de = readdir(d)) && *n < SIBLINGS_MAX) {
			struct kbuild_sibling *c = &s[*n];
			char *obj = NULL;

			if (!slot_named(de->d_name, want) || !strcmp(de->d_name, self) ||
			    !(c->dir = path_join(parent, de->d_name)))
				continue;
			if (kbuild_slot_mark_read(c->dir, &c->m) == 0 &&
			    kbuild_sibling_fits(&c->m, want) && (obj = path_join(c->dir, "obj")) &&
			    access(obj, F_OK) == 0 &&
			    slot_diff(e, want->tree, c->m.commit, want->commit, &c->changed) == 0) {
				(*n)++;
			} else {
				free(c->dir);
				memset(c, 0, sizeof(*c));
			}
			free(obj);
		}
		closedir(d);
	}
	free(parent);
	*out = s;
	return 0;
}

void kbuild_slot_siblings_free(struct kbuild_sibling *s, size_t n)
{
	for (size_t i = 0; s && i < n; i++)
		free(s[i].dir);
	free(s);
}

/* --- seeding a new slot ------------------------------------------------ */

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-';
}

long kbuild_prefix_replace(const char *s, size_t len, const char *from, const char *to,
			   struct buf *out)
{
	size_t fl = strlen(from), tl = strlen(to);
	const char *p = s, *end = s + len;
	long n = 0;

	while (fl && p < end) {
		const char *hit = memmem(p, (size_t)(end - p), from, fl);

		/* the whole name only: "/slots/a" is not in "/slots/ab" */
		while (hit && hit + fl < end && name_char(hit[fl]))
			hit = memmem(hit + 1, (size_t)(end - hit - 1), from, fl);
		if (!hit)
			break;
		if (buf_append(out, p, (size_t)(hit - p)) < 0 || buf_append(out, to, tl) < 0)
			return -1;
		p = hit + fl;
		n++;
	}
	if (buf_append(out, p, (size_t)(end - p)) < 0)
		return -1;
	return n;
}

/* A copy being made a slot's: the slot dirs of the sibling and of the
 * slot, and how many files named the sibling */
struct seed {
	const char *from, *to;
	long rewritten;
};

/* The dependency files of kbuild and of tools/build (.NAME.cmd, .NAME.d)
 * name their targets by absolute path when they are built with O= (as
 * tools/objtool is): in the copy they must name the slot's, or make
 * rebuilds them, and objtool with them everything it checks */
static int is_dep_file(const char *name)
{
	size_t n = strlen(name);

	return name[0] == '.' && ((n > 4 && !strcmp(name + n - 4, ".cmd")) ||
				  (n > 2 && !strcmp(name + n - 2, ".d")));
}

/* The file name (in dirfd, st its stat) naming the sibling: rewritten to
 * name the slot, its time kept */
static int seed_rewrite(struct seed *sd, int dirfd, const char *name, const struct stat *st,
			char **err)
{
	struct buf in = BUF_INIT(DEP_FILE_MAX + 1), out = BUF_INIT(DEP_FILE_MAX * 2);
	const struct timespec ts[2] = { st->st_atim, st->st_mtim };
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC), rc = -1;
	char tmp[NAME_MAX + 8];
	long n;

	if (fd < 0)
		return set_errf(err, "'%s': %s", name, strerror(errno));
	for (;;) {
		char chunk[65536];
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r > 0 && buf_append(&in, chunk, (size_t)r) < 0)) {
			set_errf(err, "'%s': %s", name, r < 0 ? strerror(errno) :
				 in.truncated ? "too big" : "out of memory");
			goto out;
		}
		if (r == 0)
			break;
	}
	close(fd);
	fd = -1;
	if (!memmem(buf_str(&in), in.len, sd->from, strlen(sd->from))) {
		rc = 0;
		goto out;
	}
	if ((n = kbuild_prefix_replace(buf_str(&in), in.len, sd->from, sd->to, &out)) < 0) {
		set_errf(err, "'%s': out of memory", name);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), "%.*s.kf", NAME_MAX, name);
	fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, buf_str(&out), out.len) != (ssize_t)out.len ||
	    futimens(fd, ts) < 0 || renameat(dirfd, tmp, dirfd, name) < 0) {
		set_errf(err, "'%s': %s", name, strerror(errno));
		unlinkat(dirfd, tmp, 0);
		goto out;
	}
	sd->rewritten += n > 0;
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	buf_release(&out);
	buf_release(&in);
	return rc;
}

/* Every dependency file under the directory dirfd (which it closes),
 * rewritten when it names the sibling; directories' times kept */
static int seed_walk(struct seed *sd, int dirfd, int depth, char **err)
{
	DIR *d = fdopendir(dirfd);
	struct dirent *de;
	int rc = 0;

	if (!d) {
		close(dirfd);
		return set_errf(err, "%s", strerror(errno));
	}
	while (rc == 0 && (de = readdir(d))) {
		struct stat st;
		int sub;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			rc = set_errf(err, "'%s': %s", de->d_name, strerror(errno));
		} else if (S_ISDIR(st.st_mode)) {
			sub = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (depth > 64 || sub < 0) {
				if (sub >= 0)
					close(sub);
				rc = set_errf(err, "'%s': %s", de->d_name,
					      sub < 0 ? strerror(errno) : "too deep");
			} else if ((rc = seed_walk(sd, sub, depth + 1, err)) == 0) {
				const struct timespec ts[2] = { st.st_atim, st.st_mtim };

				utimensat(dirfd, de->d_name, ts, AT_SYMLINK_NOFOLLOW);
			}
		} else if (S_ISREG(st.st_mode) && is_dep_file(de->d_name)) {
			rc = seed_rewrite(sd, dirfd, de->d_name, &st, err);
		}
	}
	closedir(d);
	return rc;
}

/* The copy at tmp made the slot's: the sibling's path in its dependency
 * files rewritten. 0 / -1 */
static int seed_fix(struct seed *sd, const char *tmp, char **err)
{
	int fd = open(tmp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return set_errf(err, "'%s': %s", tmp, strerror(errno));
	return seed_walk(sd, fd, 0, err);
}

int kbuild_slot_copy(struct kbuild_steps *st, const char *from, const char *slot, long *rewritten,
		     char **err)
{
	int64_t left = st->deadline - mono_ms();
	char *tmp = NULL, *src = path_join(from, "obj"), *why = NULL;
	struct seed sd = { .from = from, .to = slot };
	struct cmd *c;
	int rc = -1;

	*rewritten = 0;
	if (!src || asprintf(&tmp, "%s.seed", st->obj) < 0) {
		tmp = NULL;
		set_errf(err, "out of memory");
		goto out;
	}
	rm_tree(tmp);
	/* -a: the times too, so that make sees the sources changed since the
	 * sibling's build as newer, as it would in the sibling */
	c = cmd_new("cp");
	cmd_args(c, "-a", "--reflink=auto", "--", src, tmp, NULL);
	cmd_timeout(c, left < 1000 ? 1000 : left > INT32_MAX ? INT32_MAX : (int)left);
	cmd_cancel_on(c, st->e->cancel);
	rc = cmd_run(c, &why);
	cmd_free(c);
	if (rc < 0) {
		set_errf(err, "copy '%s': %s", src, why ? why : "?");
	} else if (seed_fix(&sd, tmp, err) < 0) {
		rc = -1;
	} else if (rm_tree(st->obj) < 0 || rename(tmp, st->obj) < 0) {
		set_errf(err, "'%s': %s", st->obj, strerror(errno));
		rc = -1;
	}
	*rewritten = sd.rewritten;
out:
	if (rc < 0 && tmp)
		rm_tree(tmp);
	free(why);
	free(tmp);
	free(src);
	return rc;
}
