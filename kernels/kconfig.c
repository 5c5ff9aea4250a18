// SPDX-License-Identifier: GPL-2.0-only
/* kconfig.c: a build's .config. It is made from a base (tinyconfig,
 * defconfig, allnoconfig or a file), kfleet's guest fragments, the spec's
 * fragments and the options a job asks for, merged by the tree's own
 * merge_config.sh and settled by make olddefconfig; then every option asked
 * for is checked to have survived. The config hash names all of it. A slot
 * whose .config was made from the same inputs (the config hash, the
 * toolchain and the tree's files that make's config targets read) keeps
 * it: an incremental build does not pay for tinyconfig and olddefconfig
 * again (~15 s of a ~40 s build of linux-source-6.1 here). */
#include "kernels/kernelsint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/util.h"

#define FRAGMENT_MAX (1u << 20)
#define DOTCONFIG_MAX (FRAGMENT_MAX * 8)
#define LS_TREE_MAX   (64u << 20)      /* git ls-tree -r of a commit */
#define CONFIGURED_FILE   "configured"
#define CONFIGURED_FORMAT "kfleet-configured-1"
#define CONFIGURED_MAX    256           /* SLOT/configured: the format and two hashes */

int kbuild_is_named_config(const char *c)
{
	return !strcmp(c, "tinyconfig") || !strcmp(c, "defconfig") || !strcmp(c, "allnoconfig");
}

/* The i-th fragment a build of s merges, 0 <= i < s->nfragments + 2:
 * kfleet-guest, kfleet-guest-ARCH (written into guest), then the spec's */
static const char *fragment_at(const struct kbuild_spec *s, size_t i, char guest[40])
{
	if (i == 0)
		return "kfleet-guest";
	if (i == 1) {
		snprintf(guest, 40, "kfleet-guest-%s", s->arch);
		return guest;
	}
	return s->fragments[i - 2];
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
		if (strstr(p, "..") || !(gitdir = kbuild_tree_dir(e, s->tree)) ||
		    asprintf(&obj, "%s:%s", s->commit, p) < 0) {
			set_errf(err, "config fragment '%s': not a path in the tree", f);
			goto out;
		}
		c = kbuild_git(gitdir);
		cmd_args(c, "show", obj, NULL);
		cmd_stdout_buf(c, b);
		cmd_timeout(c, KBUILD_GIT_SHORT_MS);
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
	if (kbuild_is_named_config(s->config)) {
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
	for (size_t i = 0; i < s->nfragments + 2; i++) {
		const char *f = fragment_at(s, i, guest);

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

/* --- making the config (a build's first steps) ------------------------- */

/* The base config: make tinyconfig (defconfig, allnoconfig), or the
 * spec's file copied to cfg */
static int config_base(struct kbuild_steps *st, const struct kbuild_spec *s, const char *cfg,
		       char **err)
{
	struct cmd *c;
	char *why = NULL;

	if (kbuild_is_named_config(s->config)) {
		c = kbuild_make(st);
		cmd_arg(c, s->config);
		return kbuild_step(st, c, s->config, err);
	}
	/* copied in the sandbox: kfleetd never writes where a build did */
	c = kbuild_step_cmd(st, "cp", NULL);
	cmd_args(c, "--", s->config, cfg, NULL);
	if (kbuild_run_line(c, (char[2]){ 0 }, 2, &why) < 0) {
		set_errf(err, "config '%s': %s", s->config, why ? why : "?");
		free(why);
		return -1;
	}
	free(why);
	return 0;
}

/* The fragments merged over cfg by the tree's merge_config.sh; the
 * options asked for first written to a fragment of their own, optfrag */
static int config_merge(struct kbuild_steps *st, const struct kbuild_spec *s, const char *cfg,
			const char *optfrag, char **err)
{
	char guest[40];
	struct cmd *c;

	if (s->noptions) {
		struct buf o = BUF_INIT(0);

		for (size_t i = 0; i < s->noptions; i++)
			buf_printf(&o, "%s\n", s->options[i]);
		if (write_file(optfrag, buf_str(&o), o.len, 0644) < 0) {
			buf_release(&o);
			return set_errf(err, "'%s': %s", optfrag, strerror(errno));
		}
		buf_release(&o);
	}
	/* merge_config.sh makes its temporary files in its working directory */
	c = kbuild_step_cmd(st, "sh", st->obj);
	cmd_label(c, "merge_config.sh");
	cmd_argf(c, "%s/scripts/kconfig/merge_config.sh", st->src);
	cmd_args(c, "-m", "-O", st->obj, cfg, NULL);
	for (size_t i = 0; i < s->nfragments + 2; i++) {
		char kind, *p = fragment_path(st->e, fragment_at(s, i, guest), &kind);

		if (p && kind == 't')
			cmd_argf(c, "%s/%s", st->src, p);
		else if (p)
			cmd_arg(c, p);
		free(p);
	}
	if (s->noptions)
		cmd_arg(c, optfrag);
	cmd_env(c, "HOME", "/tmp");
	cmd_env(c, "LANG", "C");
	return kbuild_step(st, c, "merge_config.sh", err);
}

/* Every option asked for must have survived olddefconfig: those that did
 * not into *dropped (and the log); *modules whether the config has them */
static int config_check(struct kbuild_steps *st, const struct kbuild_spec *s, char **dropped,
			int *modules, char **err)
{
	struct buf frag = BUF_INIT(FRAGMENT_MAX + 1), dotcfg = BUF_INIT(DOTCONFIG_MAX);
	struct buf d = BUF_INIT(16384);
	char guest[40];
	int rc = -1;

	if (kbuild_read_beneath(kbuild_obj_host(st), ".config", &dotcfg, DOTCONFIG_MAX, err) < 0)
		goto out;
	for (size_t i = 0; i < s->nfragments + 2; i++) {
		buf_reset(&frag);
		if (fragment_read(st->e, s, fragment_at(s, i, guest), &frag, err) < 0)
			goto out;
		kbuild_config_dropped(buf_str(&frag), frag.len, buf_str(&dotcfg), dotcfg.len, &d);
	}
	for (size_t i = 0; i < s->noptions; i++)
		kbuild_config_dropped(s->options[i], strlen(s->options[i]), buf_str(&dotcfg),
				      dotcfg.len, &d);
	if (d.len) {
		*dropped = buf_detach(&d);
		kbuild_log_note(st->log, "options olddefconfig did not keep: %s", *dropped);
	}
	*modules = strstr(buf_str(&dotcfg), "\nCONFIG_MODULES=y\n") != NULL;
	rc = 0;
out:
	buf_release(&frag);
	buf_release(&dotcfg);
	buf_release(&d);
	return rc;
}

/* --- a .config made before ---------------------------------------------- */

int kbuild_config_input(const char *path)
{
	const char *base = strrchr(path, '/'), *rest;

	base = base ? base + 1 : path;
	if (!strncmp(base, "Kconfig", 7) || !strcmp(path, "Makefile") ||
	    !strncmp(path, "scripts/", 8) || !strncmp(path, "kernel/configs/", 15))
		return 1;
	/* arch/ARCH/Makefile* (included by the top Makefile's config targets),
	 * arch/ARCH/configs/ (defconfig, tiny.config) and arch/ARCH/tools/
	 * (scripts some arches' Kconfig runs) */
	if (strncmp(path, "arch/", 5) || !(rest = strchr(path + 5, '/')))
		return 0;
	return !strncmp(rest, "/Makefile", 9) || !strncmp(rest, "/configs/", 9) ||
	       !strncmp(rest, "/tools/", 7);
}

/* What a .config of s is made from, hashed into out: its config hash
 * chash, the toolchain (Kconfig asks the compiler what it can do) and
 * every file of the tree at s's commit that make's config targets read
 * (kbuild_config_input). 0 / -1 when it cannot be told. */
static int config_inputs(const struct kbuild_env *e, const struct kbuild_spec *s,
			 const char *chash, char out[65])
{
	char *gitdir = NULL;
	struct buf ls = BUF_INIT(LS_TREE_MAX), in = BUF_INIT(0);
	struct cmd *c;
	int rc = -1;

	if (!s->toolchain || !(gitdir = kbuild_tree_dir(e, s->tree)))
		goto out;
	c = kbuild_git(gitdir);
	cmd_args(c, "ls-tree", "-r", "-z", "--full-tree", s->commit, NULL);
	cmd_stdout_buf(c, &ls);
	cmd_timeout(c, KBUILD_GIT_SHORT_MS);
	rc = cmd_run(c, NULL);
	cmd_free(c);
	if (rc < 0 || ls.truncated) {
		rc = -1;
		goto out;
	}
	buf_printf(&in, "kfleet-config-inputs-1\nconfig %s\ntoolchain %s\n", chash, s->toolchain);
	/* "MODE TYPE OID\tPATH\0" per file */
	for (const char *p = buf_str(&ls), *end = p + ls.len; p < end;) {
		const char *z = memchr(p, '\0', (size_t)(end - p)), *tab;

		if (!z)
			break;
		if ((tab = memchr(p, '\t', (size_t)(z - p))) && kbuild_config_input(tab + 1))
			buf_printf(&in, "%s\n", p);
		p = z + 1;
	}
	if (in.len > LS_TREE_MAX) {
		rc = -1;
		goto out;
	}
	sha256_mem(buf_str(&in), in.len, out);
	rc = 0;
out:
	free(gitdir);
	buf_release(&ls);
	buf_release(&in);
	return rc;
}

/* sha256 of the build's .config as it is now (through a series' overlay
 * when there is one). 0 / -1 */
static int config_now(struct kbuild_steps *st, char out[65])
{
	struct buf b = BUF_INIT(DOTCONFIG_MAX);
	char *why = NULL;
	int rc = kbuild_read_beneath(kbuild_obj_host(st), ".config", &b, DOTCONFIG_MAX, &why);

	if (rc == 0)
		sha256_mem(buf_str(&b), b.len, out);
	free(why);
	buf_release(&b);
	return rc;
}

/* SLOT/configured's text for a .config (its sha256 now) made from inputs,
 * into out; -1 when the .config cannot be read */
static int configured_text(struct kbuild_steps *st, const char *inputs, char out[CONFIGURED_MAX])
{
	char have[65];

	if (config_now(st, have) < 0)
		return -1;
	snprintf(out, CONFIGURED_MAX, "%s\ninputs %s\nconfig %s\n", CONFIGURED_FORMAT, inputs,
		 have);
	return 0;
}

/* Whether SLOT/configured says the .config there was made from inputs
 * and is unchanged since */
static int config_made(struct kbuild_steps *st, const char *slot, const char *inputs)
{
	char *path = path_join(slot, CONFIGURED_FILE), want[CONFIGURED_MAX];
	struct buf b = BUF_INIT(CONFIGURED_MAX);
	int same = 0;

	if (path && read_file(path, &b, CONFIGURED_MAX - 1) == 0 && !b.truncated &&
	    configured_text(st, inputs, want) == 0) {
		same = !strcmp(buf_str(&b), want);
		if (!same)
			kbuild_log_note(st->log, "config: made again: the slot's .config %s",
					strstr(buf_str(&b), inputs) ? "changed since it was made" :
					"was made from other inputs");
	}
	buf_release(&b);
	free(path);
	return same;
}

void kbuild_configured_write(struct kbuild_steps *st, const char *slot, const char *inputs)
{
	char *path = path_join(slot, CONFIGURED_FILE), text[CONFIGURED_MAX];

	if (path && configured_text(st, inputs, text) == 0)
		write_file(path, text, strlen(text), 0644);
	free(path);
}

int kbuild_configure(struct kbuild_steps *st, const struct kbuild_spec *s, const char *chash,
		     const char *slot, char inputs[65], char **dropped, int *modules, char **err)
{
	char *cfg = path_join(st->obj, ".config");
	char *optfrag = path_join(st->in ? st->in : st->obj, "kfleet-options.config");
	char *made = NULL;
	struct cmd *c;
	int rc = -1;

	inputs[0] = '\0';
	if (!cfg || !optfrag) {
		set_errf(err, "out of memory");
		goto out;
	}
	if (slot && config_inputs(st->e, s, chash, inputs) == 0 && config_made(st, slot, inputs)) {
		kbuild_log_note(st->log, "config: the slot's .config was made from the same "
				"inputs (%.12s: the config, the toolchain, the tree's Kconfig "
				"files, scripts/ and arch Makefiles): not made again", inputs);
		rc = config_check(st, s, dropped, modules, err);
		goto out;
	}
	/* from here on the slot's .config is not one made from known inputs
	 * (a series' build writes through an overlay and leaves it alone) */
	if (slot && !st->untrusted && (made = path_join(slot, CONFIGURED_FILE)))
		unlink(made);
	if ((rc = config_base(st, s, cfg, err)) != 0 ||
	    (rc = config_merge(st, s, cfg, optfrag, err)) != 0)
		goto out;
	c = kbuild_make(st);
	cmd_arg(c, "olddefconfig");
	if ((rc = kbuild_step(st, c, "olddefconfig", err)) != 0)
		goto out;
	rc = config_check(st, s, dropped, modules, err);
out:
	free(made);
	free(optfrag);
	free(cfg);
	return rc;
}
