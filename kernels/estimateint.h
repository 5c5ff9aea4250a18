/* SPDX-License-Identifier: GPL-2.0-only */
/* estimateint.h: what estimate.c (a build's kbuild lines from its .config)
 * and estimate_mk.c (the part of make it reads Kbuild files with) share,
 * and their tests. Not make: no rules, no recursive expansion, few
 * functions; enough for the obj-y lists of a tree's Kbuild files. */
#ifndef KF_ESTIMATEINT_H
#define KF_ESTIMATEINT_H

#include <stddef.h>

#include "common/buf.h"
#include "kernels/kernelsint.h"

#define KMK_FILE_MAX (1u << 20)      /* a Kbuild file read; the longest in 6.1: 40 KiB */
#define KMK_VALUE_MAX (1u << 20)     /* a variable's value */

/* A set of strings with a value each (open addressing): variables, the
 * .config's options, the directories seen, the words of a list */
struct kmk_ent {
	char *key;                   /* NULL: a free slot */
	size_t klen;
	struct buf val;
};
struct kmk_map {
	struct kmk_ent *t;
	size_t cap, n;
};
/* Borrowed entry of key (n bytes), NULL when not there */
struct kmk_ent *kmk_get(const struct kmk_map *m, const char *key, size_t n);
/* key's entry, added (empty value) when not there; NULL when out of memory */
struct kmk_ent *kmk_put(struct kmk_map *m, const char *key, size_t n);
/* The value of key as a string, NULL when not there (borrowed) */
const char *kmk_value(const struct kmk_map *m, const char *key);
void kmk_map_release(struct kmk_map *m);
/* Adds each blank-separated word of s to m once */
void kmk_words_add(struct kmk_map *m, const char *s);

/* What a Kbuild file's variables are read against: the tree, the
 * .config's options (CONFIG_X -> y) and variables kbuild sets before it
 * reads the file (SRCARCH, ARCH_CORE, ...), all borrowed; and the work
 * left to the walk (bytes read and expanded, words compared; linux 6.1's
 * allmodconfig takes 3.4 M), which reading stops at when 0. Memory, too,
 * stays below it. */
#define KMK_WORK_MAX (64u << 20)
struct kmk_ctx {
	const char *src;
	const struct kmk_map *config, *pre;
	size_t left;
};
/* One Kbuild file's variables once read: obj-y, obj-m, fork-y, ... */
struct kmk {
	struct kmk_map vars;
	struct kmk_ctx *c;
};
/* Reads dir's Kbuild (else its Makefile) under c->src into mk: 0, or -1
 * (neither is a regular file reached without links, at most
 * KMK_FILE_MAX bytes) with mk empty. dir "" is the tree's root. Release
 * mk with kmk_release() in every case. */
int kmk_read(struct kmk *mk, struct kmk_ctx *c, const char *dir);
/* The same for dir/name */
int kmk_read_file(struct kmk *mk, struct kmk_ctx *c, const char *dir, const char *name);
/* Reads the text (len bytes) of one Kbuild file into mk, which starts
 * empty (made with c), as far as c->left lets it */
void kmk_eval(struct kmk *mk, const char *text, size_t len);
void kmk_release(struct kmk *mk);
/* Adds the words of variable var (ending in '/' or ".o") to into, but
 * those also in except (may be NULL) */
void kmk_words(const struct kmk *mk, const char *var, struct kmk_map *into,
	       const struct kmk_map *except);

#endif
