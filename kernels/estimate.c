// SPDX-License-Identifier: GPL-2.0-only
/* estimate.c: how many kbuild lines ("  CC      kernel/fork.o") a build
 * from nothing of a .config prints, for a build's progress when no earlier
 * build of its arch and config gives a count (build.c notes it in the log
 * before make, buildlog.c reads it back for web/progress.c). Walks the
 * tree's Kbuild files as kbuild descends them, read by estimate_mk.c: the
 * obj-y, obj-m and lib-y entries whose CONFIG_ the .config sets, composite
 * objects' parts, a built-in.a per directory, the lines each module adds,
 * and the lines every build prints besides (measured, see EST_FIXED_X86). */
#include "kernels/estimateint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/util.h"

/* Lines make prints besides what the Kbuild files list: scripts/ (HOSTCC),
 * generated headers (SYSHDR, WRAP, UPD, GEN), the vDSO, the vmlinux link
 * (LD, MODPOST, NM, SORTTAB), the image; on x86 objtool, the real-mode
 * blob and the bzImage's setup and decompressor too. Measured on linux
 * 6.1, tinyconfig with kfleet's guest fragments (what `make demo`
 * builds), where every object and archive the walk finds is in the log
 * and every one in the log but these is the walk's: x86_64 1268 lines
 * from make, 1079 of them the walk's; arm64 1096, 967. est_link_extra()
 * adds what options add to the link. */
#define EST_FIXED_X86 189
#define EST_FIXED_ARM64 129
/* What a module adds to its objects: CC [M] its .mod.o, LD [M] its .ko,
 * then in modules_install INSTALL and STRIP (kfleet strips) */
#define EST_PER_MODULE 4
#define EST_DIRS_MAX 20000       /* a hostile tree's Kbuild files cannot walk forever */
#define EST_DEPTH_MAX 24

/* One directory to read (e->seen says whether it is built in) */
struct est_dir {
	char *path;              /* "" for the tree's root, else "drivers/net" */
	int depth;
};

struct est {
	struct kmk_ctx c;
	struct kmk_map config;   /* CONFIG_X -> y, m, "string", 123 */
	struct kmk_map pre;      /* SRCARCH, ARCH_CORE, ... */
	struct kmk_map seen;     /* directories queued; value "y": built in */
	struct est_dir *q;
	size_t nq, aq;
	struct kbuild_estimate *out;
};

/* The options of the .config text cfg (len bytes) into e->config */
static void est_config(struct est *e, const char *cfg, size_t len)
{
	const char *s = cfg, *end = cfg + len;

	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *le = nl ? nl : end;
		const char *eq = memchr(s, '=', (size_t)(le - s));
		struct kmk_ent *v;

		if (eq && eq - s > 7 && !memcmp(s, "CONFIG_", 7) && eq + 1 < le &&
		    (v = kmk_put(&e->config, s, (size_t)(eq - s)))) {
			const char *val = eq + 1;
			size_t n = (size_t)(le - val);

			/* a string as include/config/auto.conf has it: unquoted */
			if (n >= 2 && val[0] == '"' && val[n - 1] == '"') {
				val++;
				n -= 2;
			}
			buf_reset(&v->val);
			buf_append(&v->val, val, n);
		}
		s = nl ? nl + 1 : end;
	}
}

/* Whether word (n bytes, its trailing '/' gone) is a path down the tree:
 * no empty, "." or ".." component, not from its root */
static int downward(const char *word, size_t n)
{
	size_t i = 0;

	while (i <= n) {
		const char *sl = memchr(word + i, '/', n - i);
		size_t c = (sl ? (size_t)(sl - word) : n) - i;

		if (!c || (c == 1 && word[i] == '.') || (c == 2 && !memcmp(word + i, "..", 2)))
			return 0;
		i += c + 1;
	}
	return 1;
}

/* Queues directory from/word (word ends in '/') once; a word that climbs
 * out of the tree, starts at its root or names the same directory again
 * is not kbuild's and is skipped. A directory named by an obj-y of a
 * built-in one is built in. */
static void est_queue(struct est *e, const struct est_dir *from, const char *word, size_t n,
		      int builtin)
{
	struct buf p = BUF_INIT(4096);
	struct kmk_ent *seen;

	while (n && word[n - 1] == '/')
		n--;
	if (!n || !downward(word, n) || from->depth >= EST_DEPTH_MAX || e->nq >= EST_DIRS_MAX)
		return;
	if (*from->path)
		buf_printf(&p, "%s/", from->path);
	buf_append(&p, word, n);
	if (p.truncated)
		goto out;
	if ((seen = kmk_get(&e->seen, buf_str(&p), p.len))) {
		if (builtin && !seen->val.len)
			buf_puts(&seen->val, "y");
		goto out;
	}
	if (e->nq == e->aq) {
		size_t na = e->aq ? e->aq * 2 : 256;
		struct est_dir *q = realloc(e->q, na * sizeof(*q));

		if (!q)
			goto out;
		e->q = q;
		e->aq = na;
	}
	if (!(seen = kmk_put(&e->seen, buf_str(&p), p.len)))
		goto out;
	if (builtin)
		buf_puts(&seen->val, "y");
	e->q[e->nq].depth = from->depth + 1;
	e->q[e->nq++].path = buf_detach(&p);
out:
	buf_release(&p);
}

/* The kbuild lines of object word (NAME.o) of a directory's Kbuild file
 * mk: itself, or a composite's parts (NAME-y, NAME-objs, a module's
 * NAME-m); a module's link and own lines on top */
static long long est_object(struct est *e, const struct kmk *mk, const char *word, size_t n,
			    int module)
{
	static const char *const suffixes[] = { "-y", "-objs", "-m" };
	struct kmk_map parts = { 0 };
	struct buf name = BUF_INIT(4096);
	long long lines;

	for (int i = 0; i < (module ? 3 : 2); i++) {
		const struct kmk_ent *v;

		buf_reset(&name);
		buf_append(&name, word, n - 2);
		buf_puts(&name, suffixes[i]);
		if ((v = kmk_get(&mk->vars, buf_str(&name), name.len)))
			kmk_words_add(&parts, buf_str(&v->val));
	}
	/* kbuild puts a built-in composite's parts into built-in.a as they
	 * are; a module's are linked (LD [M]) */
	lines = parts.n ? (long long)parts.n : 1;
	e->out->objects += lines;
	if (module) {
		e->out->modules++;
		lines += (parts.n ? 1 : 0) + e->out->per_module;
	}
	kmk_map_release(&parts);
	buf_release(&name);
	return lines;
}

/* The lists of a directory's Kbuild file kbuild builds from: objects for
 * its built-in.a, its lib.a, extra-y's (built in every directory it
 * visits), modules; and directories it visits for none of those */
enum { EST_Y, EST_LIB, EST_EXTRA, EST_M, EST_SUBDIR, EST_LISTS };

/* Word w (n bytes) of list k of directory d: its lines, a directory
 * queued */
static long long est_word(struct est *e, const struct est_dir *d, const struct kmk *mk,
			  const char *w, size_t n, int k, int builtin)
{
	if (w[n - 1] == '/' || k == EST_SUBDIR) {
		est_queue(e, d, w, n, k == EST_Y && builtin);
		return 0;
	}
	/* a modules' directory's obj-y is not built: only a built-in.a
	 * would take it */
	if (n <= 2 || memcmp(w + n - 2, ".o", 2) || (k == EST_Y && !builtin))
		return 0;
	return est_object(e, mk, w, n, k == EST_M);
}

/* subdir-y and subdir-m's words (directories without their '/') into l */
static void est_subdirs(const struct kmk *mk, struct kmk_map *l)
{
	const char *v;

	if ((v = kmk_value(&mk->vars, "subdir-y")))
		kmk_words_add(l, v);
	if ((v = kmk_value(&mk->vars, "subdir-m")))
		kmk_words_add(l, v);
}

/* One directory: the lines of its objects and archives; the directories
 * it names queued */
static long long est_visit(struct est *e, size_t at)
{
	struct est_dir d = e->q[at];
	struct kmk mk;
	struct kmk_map l[EST_LISTS];
	const struct kmk_ent *seen = kmk_get(&e->seen, d.path, strlen(d.path));
	int builtin = !*d.path || (seen && seen->val.len), archives;
	long long lines = 0;

	if (kmk_read(&mk, &e->c, d.path) < 0) {
		kmk_release(&mk);
		return 0;                /* kbuild would stop here; the estimate goes on */
	}
	memset(l, 0, sizeof(l));
	kmk_words(&mk, "obj-y", &l[EST_Y], NULL);
	kmk_words(&mk, "lib-y", &l[EST_LIB], &l[EST_Y]);
	kmk_words(&mk, "extra-y", &l[EST_EXTRA], &l[EST_Y]);
	kmk_words(&mk, "obj-m", &l[EST_M], &l[EST_Y]);
	est_subdirs(&mk, &l[EST_SUBDIR]);
	e->out->dirs++;
	for (int k = 0; k < EST_LISTS; k++) {
		for (size_t i = 0; i < l[k].cap; i++) {
			const struct kmk_ent *w = &l[k].t[i];

			if (w->key && w->klen)
				lines += est_word(e, &d, &mk, w->key, w->klen, k, builtin);
		}
	}
	/* AR built-in.a (the root's is vmlinux.a, in the fixed part), AR lib.a */
	archives = (builtin && *d.path) + (l[EST_LIB].n > 0);
	e->out->archives += archives;
	for (int k = 0; k < EST_LISTS; k++)
		kmk_map_release(&l[k]);
	kmk_release(&mk);
	return lines + archives;
}

/* What arch/SRCARCH/Makefile adds to the root's list: the top Makefile's
 * ARCH_CORE, ARCH_LIB (lib/ and the arch's libs-y directories) and
 * ARCH_DRIVERS, which the root Kbuild names */
static void est_arch_dirs(struct est *e, const char *srcarch)
{
	struct kmk mk;
	struct kmk_map core = { 0 }, libs = { 0 }, drivers = { 0 };
	struct kmk_ent *v;
	char dir[64];

	snprintf(dir, sizeof(dir), "arch/%s", srcarch);
	kmk_read_file(&mk, &e->c, dir, "Makefile");
	kmk_words(&mk, "core-y", &core, NULL);
	kmk_words(&mk, "libs-y", &libs, NULL);
	kmk_words(&mk, "drivers-y", &drivers, NULL);
	kmk_words(&mk, "drivers-m", &drivers, NULL);
	kmk_put(&libs, "lib/", 4);
	for (int k = 0; k < 3; k++) {
		static const char *const names[] = { "ARCH_CORE", "ARCH_LIB", "ARCH_DRIVERS" };
		const struct kmk_map *l = k == 0 ? &core : k == 1 ? &libs : &drivers;

		if (!(v = kmk_put(&e->pre, names[k], strlen(names[k]))))
			continue;
		for (size_t i = 0; i < l->cap; i++)
			if (l->t[i].key && l->t[i].key[l->t[i].klen - 1] == '/')
				buf_printf(&v->val, "%s ", l->t[i].key);
	}
	kmk_map_release(&drivers);
	kmk_map_release(&libs);
	kmk_map_release(&core);
	kmk_release(&mk);
}

/* A tree whose root Kbuild does not list the directories (before linux
 * 5.19 the top Makefile did, in its own variables): kbuild's usual ones */
static void est_default_dirs(struct est *e, const char *srcarch)
{
	static const char *const dirs[] = {
		"init/", "usr/", "kernel/", "certs/", "mm/", "fs/", "ipc/", "security/",
		"crypto/", "drivers/", "sound/", "virt/", "lib/", NULL
	};
	struct est_dir root = { (char *)"", 0 };
	const char *v;
	char arch[64];

	for (int i = 0; dirs[i]; i++)
		est_queue(e, &root, dirs[i], strlen(dirs[i]), 1);
	for (int i = 0; i < 2; i++) {
		snprintf(arch, sizeof(arch), "arch/%s/%s", srcarch, i ? "lib/" : "");
		est_queue(e, &root, arch, strlen(arch), 1);
	}
	if ((v = kmk_value(&e->config, "CONFIG_BLOCK")) && !strcmp(v, "y"))
		est_queue(e, &root, "block/", 6, 1);
	if ((v = kmk_value(&e->config, "CONFIG_NET")) && !strcmp(v, "y"))
		est_queue(e, &root, "net/", 4, 1);
}

/* A module's lines past EST_PER_MODULE that the .config asks for: BTF,
 * signing, compression */
static int est_module_extra(const struct est *e)
{
	static const char *const opts[] = {
		"CONFIG_DEBUG_INFO_BTF_MODULES", "CONFIG_MODULE_SIG_ALL",
		"CONFIG_MODULE_COMPRESS_GZIP", "CONFIG_MODULE_COMPRESS_XZ",
		"CONFIG_MODULE_COMPRESS_ZSTD", NULL
	};
	int n = 0;

	for (int i = 0; opts[i]; i++) {
		const char *v = kmk_value(&e->config, opts[i]);

		n += v && !strcmp(v, "y");
	}
	return n;
}

/* Lines past the fixed part that the .config asks for (what
 * scripts/link-vmlinux.sh and modules_install print): two kallsyms
 * passes of LD, NM, KSYMS and AS; BTF's LD, BTF and BTFIDS; DEPMOD */
static int est_link_extra(const struct est *e)
{
	static const struct {
		const char *opt;
		int lines;
	} opts[] = {
		{ "CONFIG_KALLSYMS", 8 }, { "CONFIG_DEBUG_INFO_BTF", 3 }, { "CONFIG_MODULES", 1 },
	};
	int n = 0;

	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
		const char *v = kmk_value(&e->config, opts[i].opt);

		n += v && !strcmp(v, "y") ? opts[i].lines : 0;
	}
	return n;
}

/* kbuild's own variables for arch (x86_64, arm64, or a kernel SRCARCH)
 * and the root queued: 0 / -1 (errno) */
static int est_start(struct est *e, const char *arch)
{
	const char *srcarch = !strcmp(arch, "x86_64") ? "x86" : arch;
	struct kmk_ent *v;

	if (!*srcarch || strchr(srcarch, '/') || strstr(srcarch, "..") || strlen(srcarch) > 32) {
		errno = EINVAL;
		return -1;
	}
	if ((v = kmk_put(&e->pre, "SRCARCH", 7)))
		buf_puts(&v->val, srcarch);
	if ((v = kmk_put(&e->pre, "ARCH", 4)))
		buf_puts(&v->val, arch);
	if ((v = kmk_put(&e->pre, "BITS", 4)))
		buf_puts(&v->val, "64");
	est_arch_dirs(e, srcarch);
	if (!(e->q = calloc(256, sizeof(*e->q))) || !(e->q[0].path = strdup("")))
		return -1;
	e->aq = 256;
	e->nq = 1;
	return 0;
}

int kbuild_estimate(const char *src, const char *cfg, size_t len, const char *arch,
		    struct kbuild_estimate *out)
{
	struct est e;
	const char *v;
	long long lines;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	memset(&e, 0, sizeof(e));
	e.c.src = src;
	e.c.config = &e.config;
	e.c.pre = &e.pre;
	e.c.left = KMK_WORK_MAX;
	e.out = out;
	est_config(&e, cfg, len);
	if (est_start(&e, arch) < 0)
		goto out;
	out->per_module = EST_PER_MODULE + est_module_extra(&e);
	lines = est_visit(&e, 0);
	if (e.nq == 1 && (v = kmk_value(&e.pre, "SRCARCH")))
		est_default_dirs(&e, v);
	for (size_t i = 1; i < e.nq; i++)
		lines += est_visit(&e, i);
	if (out->dirs < 2 || !e.c.left) {
		errno = out->dirs < 2 ? ENOENT : E2BIG;   /* not a kernel tree; one made to stall */
		goto out;
	}
	out->fixed = (strcmp(arch, "arm64") ? EST_FIXED_X86 : EST_FIXED_ARM64) + est_link_extra(&e);
	out->lines = lines + out->fixed;
	rc = 0;
out:
	for (size_t i = 0; i < e.nq; i++)
		free(e.q[i].path);
	free(e.q);
	kmk_map_release(&e.seen);
	kmk_map_release(&e.pre);
	kmk_map_release(&e.config);
	return rc;
}
