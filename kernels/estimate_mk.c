// SPDX-License-Identifier: GPL-2.0-only
/* estimate_mk.c: the part of make that estimate.c reads a tree's Kbuild
 * files with: assignments (=, :=, +=, ?=) with $(VAR), $(CONFIG_X) and a
 * few functions expanded at once, ifeq/ifneq/ifdef/ifndef/else/endif,
 * continuation lines and comments; rules, recipes, define blocks and
 * includes skipped. A file is outside input (a series may change it):
 * read beneath the tree without following links, bounded, never a
 * reason to fail the build. */
#include "kernels/estimateint.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define KMK_COND_MAX 32              /* nested ifeq */
#define KMK_DEPTH_MAX 8              /* $( inside $( */

static size_t kmk_hash(const char *k, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)k[i]) * 1099511628211ULL;
	return (size_t)h;
}

struct kmk_ent *kmk_get(const struct kmk_map *m, const char *key, size_t n)
{
	if (!m->cap)
		return NULL;
	for (size_t i = kmk_hash(key, n) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		struct kmk_ent *e = &m->t[i];

		if (!e->key)
			return NULL;
		if (e->klen == n && !memcmp(e->key, key, n))
			return e;
	}
}

static int kmk_grow(struct kmk_map *m)
{
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct kmk_ent *t = calloc(cap, sizeof(*t));

	if (!t)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->t[i].key)
			continue;
		j = kmk_hash(m->t[i].key, m->t[i].klen) & (cap - 1);
		while (t[j].key)
			j = (j + 1) & (cap - 1);
		t[j] = m->t[i];
	}
	free(m->t);
	m->t = t;
	m->cap = cap;
	return 0;
}

struct kmk_ent *kmk_put(struct kmk_map *m, const char *key, size_t n)
{
	struct kmk_ent *e = kmk_get(m, key, n);
	size_t i;

	if (e)
		return e;
	if ((m->n + 1) * 2 > m->cap && kmk_grow(m) < 0)
		return NULL;
	for (i = kmk_hash(key, n) & (m->cap - 1); m->t[i].key; i = (i + 1) & (m->cap - 1))
		;
	e = &m->t[i];
	if (!(e->key = malloc(n + 1)))
		return NULL;
	memcpy(e->key, key, n);
	e->key[n] = '\0';
	e->klen = n;
	buf_init(&e->val, KMK_VALUE_MAX);
	m->n++;
	return e;
}

const char *kmk_value(const struct kmk_map *m, const char *key)
{
	const struct kmk_ent *e = m ? kmk_get(m, key, strlen(key)) : NULL;

	return e ? buf_str(&e->val) : NULL;
}

void kmk_map_release(struct kmk_map *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->t[i].key);
		buf_release(&m->t[i].val);
	}
	free(m->t);
	memset(m, 0, sizeof(*m));
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The next blank-separated word of s from *at: its start, *n its length;
 * NULL when no word is left */
static const char *next_word(const char *s, size_t len, size_t *at, size_t *n)
{
	size_t i = *at, j;

	while (i < len && blank(s[i]))
		i++;
	if (i == len)
		return NULL;
	for (j = i; j < len && !blank(s[j]); j++)
		;
	*at = j;
	*n = j - i;
	return s + i;
}

void kmk_words_add(struct kmk_map *m, const char *s)
{
	size_t at = 0, n, len = strlen(s);
	const char *w;

	while ((w = next_word(s, len, &at, &n)))
		kmk_put(m, w, n);
}

/* A variable's value: the file's own, a CONFIG_ option, kbuild's; NULL */
static const char *lookup(const struct kmk *mk, const char *name, size_t n)
{
	const struct kmk_ent *e = kmk_get(&mk->vars, name, n);

	if (!e && n > 7 && !memcmp(name, "CONFIG_", 7) && mk->c->config)
		e = kmk_get(mk->c->config, name, n);
	if (!e && mk->c->pre)
		e = kmk_get(mk->c->pre, name, n);
	return e ? buf_str(&e->val) : NULL;
}

/* Takes n units of the walk's work (bytes read and made, words
 * compared): 0, or -1 when they are used up (and stay so) */
static int spend(struct kmk *mk, size_t n)
{
	if (mk->c->left < n) {
		mk->c->left = 0;
		return -1;
	}
	mk->c->left -= n;
	return 0;
}

static void expand(struct kmk *mk, const char *s, size_t len, struct buf *out, int depth);

/* The end of the reference that opens at s[0] ('(' or '{'): the index of
 * its closing bracket, len when it does not close */
static size_t ref_end(const char *s, size_t len)
{
	char open = s[0], close = open == '(' ? ')' : '}';
	int d = 0;

	for (size_t i = 0; i < len; i++) {
		if (s[i] == open)
			d++;
		else if (s[i] == close && --d == 0)
			return i;
	}
	return len;
}

/* A function's comma-separated arguments (the last takes the rest), each
 * expanded: how many of at most max */
static int fn_args(struct kmk *mk, const char *s, size_t len, struct buf *args, int max,
		   int depth)
{
	size_t start = 0;
	int n = 0, d = 0;

	for (size_t i = 0; i <= len && n < max; i++) {
		if (i < len && (s[i] == '(' || s[i] == '{'))
			d++;
		else if (i < len && (s[i] == ')' || s[i] == '}'))
			d--;
		if (i == len || (s[i] == ',' && d == 0 && n < max - 1)) {
			expand(mk, s + start, i - start, &args[n++], depth + 1);
			start = i + 1;
		}
	}
	return n;
}

/* Whether word w (n bytes) matches a filter pattern with at most one % */
static int pattern_match(const char *pat, size_t pn, const char *w, size_t n)
{
	const char *pc = memchr(pat, '%', pn);
	size_t pre, suf;

	if (!pc)
		return pn == n && !memcmp(pat, w, n);
	pre = (size_t)(pc - pat);
	suf = pn - pre - 1;
	return n >= pre + suf && !memcmp(w, pat, pre) && !memcmp(w + n - suf, pc + 1, suf);
}

/* $(filter P,L) (keep 1) and $(filter-out P,L) (keep 0) */
static void fn_filter(struct kmk *mk, const struct buf *a, struct buf *out, int keep)
{
	size_t at = 0, n;
	const char *w;

	while ((w = next_word(buf_str(&a[1]), a[1].len, &at, &n))) {
		size_t pat = 0, pn;
		const char *p;
		int hit = 0;

		while (!hit && (p = next_word(buf_str(&a[0]), a[0].len, &pat, &pn))) {
			if (spend(mk, 1) < 0)
				return;
			hit = pattern_match(p, pn, w, n);
		}
		if (hit == keep) {
			buf_append(out, w, n);
			buf_puts(out, " ");
		}
	}
}

/* $(patsubst P,R,TEXT): each word P matches (its % the stem) as R (its %
 * the stem), others as they are: lib-y := $(patsubst %.o,%.stub.o,$(lib-y)) */
static void fn_patsubst(struct kmk *mk, const struct buf *a, struct buf *out)
{
	const char *pat = buf_str(&a[0]), *pc = strchr(pat, '%');
	const char *rep = buf_str(&a[1]), *rc = strchr(rep, '%');
	size_t at = 0, n, pre = pc ? (size_t)(pc - pat) : 0;
	const char *w;

	while ((w = next_word(buf_str(&a[2]), a[2].len, &at, &n)) && spend(mk, n + a[1].len) == 0) {
		if (!pattern_match(pat, a[0].len, w, n))
			buf_append(out, w, n);
		else if (!pc || !rc)
			buf_puts(out, rep);
		else
			buf_printf(out, "%.*s%.*s%s", (int)(rc - rep), rep,
				   (int)(n - (a[0].len - 1)), w + pre, rc + 1);
		buf_puts(out, " ");
	}
}

/* $(subst FROM,TO,TEXT): obj-$(subst m,y,$(CONFIG_IPV6)) */
static void fn_subst(struct kmk *mk, const struct buf *a, struct buf *out)
{
	const char *t = buf_str(&a[2]), *hit;

	if (!a[0].len) {
		buf_append(out, t, a[2].len);
		return;
	}
	while ((hit = strstr(t, buf_str(&a[0]))) && spend(mk, a[1].len + 1) == 0) {
		buf_append(out, t, (size_t)(hit - t));
		buf_append(out, buf_str(&a[1]), a[1].len);
		t = hit + a[0].len;
	}
	buf_puts(out, t);
}

/* $(addprefix P,L), $(addsuffix S,L), $(strip L), $(if C,T,E), $(filter
 * P,L), $(filter-out P,L), $(subst F,T,X), $(patsubst P,R,X); any other
 * function is empty (cc-option and the like: what the compiler says,
 * which an estimate does without) */
static void function(struct kmk *mk, const char *fn, size_t fl, const char *s, size_t len,
		     struct buf *out, int depth)
{
	struct buf a[3] = {
		BUF_INIT(KMK_VALUE_MAX), BUF_INIT(KMK_VALUE_MAX), BUF_INIT(KMK_VALUE_MAX)
	};
	int n, pre = fl == 9 && !memcmp(fn, "addprefix", 9);
	int suf = fl == 9 && !memcmp(fn, "addsuffix", 9);
	size_t at = 0, wn;
	const char *w;

	if (pre || suf) {
		n = fn_args(mk, s, len, a, 2, depth);
		while (n == 2 && (w = next_word(buf_str(&a[1]), a[1].len, &at, &wn))) {
			buf_printf(out, "%s%.*s%s ", pre ? buf_str(&a[0]) : "", (int)wn, w,
				   suf ? buf_str(&a[0]) : "");
		}
	} else if (fl == 5 && !memcmp(fn, "strip", 5)) {
		fn_args(mk, s, len, a, 1, depth);
		while ((w = next_word(buf_str(&a[0]), a[0].len, &at, &wn)))
			buf_printf(out, "%s%.*s", out->len ? " " : "", (int)wn, w);
	} else if (fl == 2 && !memcmp(fn, "if", 2)) {
		n = fn_args(mk, s, len, a, 3, depth);
		if (next_word(buf_str(&a[0]), a[0].len, &at, &wn))
			buf_append(out, buf_str(&a[1]), a[1].len);
		else if (n == 3)
			buf_append(out, buf_str(&a[2]), a[2].len);
	} else if ((fl == 6 && !memcmp(fn, "filter", 6)) ||
		   (fl == 10 && !memcmp(fn, "filter-out", 10))) {
		if (fn_args(mk, s, len, a, 2, depth) == 2)
			fn_filter(mk, a, out, fl == 6);
	} else if (fl == 5 && !memcmp(fn, "subst", 5)) {
		if (fn_args(mk, s, len, a, 3, depth) == 3)
			fn_subst(mk, a, out);
	} else if (fl == 8 && !memcmp(fn, "patsubst", 8)) {
		if (fn_args(mk, s, len, a, 3, depth) == 3)
			fn_patsubst(mk, a, out);
	}
	for (int i = 0; i < 3; i++)
		buf_release(&a[i]);
}

/* The inside of $(...): a function call or a variable's name */
static void reference(struct kmk *mk, const char *s, size_t len, struct buf *out, int depth)
{
	struct buf name = BUF_INIT(4096);
	size_t i;
	const char *v;

	for (i = 0; i < len && !blank(s[i]) && s[i] != '$' && s[i] != ':'; i++)
		;
	if (i < len && blank(s[i])) {
		size_t j = i;

		while (j < len && blank(s[j]))
			j++;
		function(mk, s, i, s + j, len - j, out, depth);
		return;
	}
	if (memchr(s, ':', len))
		return;          /* $(VAR:.o=.s): not in the lists estimate.c reads */
	expand(mk, s, len, &name, depth + 1);
	if ((v = lookup(mk, buf_str(&name), name.len)))
		buf_puts(out, v);
	buf_release(&name);
}

static void expand(struct kmk *mk, const char *s, size_t len, struct buf *out, int depth)
{
	size_t i = 0, before = out->len;

	/* what a line reads and makes is paid for: a file doubling a
	 * variable on every line, or nesting references, stops the walk, not
	 * kfleetd */
	if (depth > KMK_DEPTH_MAX || spend(mk, len + 1) < 0)
		return;
	while (i < len) {
		const char *d = memchr(s + i, '$', len - i);
		size_t end;

		if (!d) {
			buf_append(out, s + i, len - i);
			break;
		}
		buf_append(out, s + i, (size_t)(d - (s + i)));
		i = (size_t)(d - s);
		if (i + 1 >= len)
			break;
		if (s[i + 1] == '$') {
			buf_puts(out, "$");
			i += 2;
		} else if (s[i + 1] == '(' || s[i + 1] == '{') {
			end = i + 1 + ref_end(s + i + 1, len - i - 1);
			if (end >= len)
				break;
			reference(mk, s + i + 2, end - i - 2, out, depth);
			i = end + 1;
		} else {
			i += 2;          /* $@, $<: only in rules */
		}
	}
	spend(mk, out->len - before);
}

/* s without blanks around it (n bytes in, *n out) */
static const char *trim(const char *s, size_t *n)
{
	while (*n && blank(*s)) {
		s++;
		(*n)--;
	}
	while (*n && blank(s[*n - 1]))
		(*n)--;
	return s;
}

/* s (n bytes) expanded and trimmed into out, reset first */
static void expand_trim(struct kmk *mk, const char *s, size_t n, struct buf *out)
{
	const char *t;
	size_t tn;

	buf_reset(out);
	expand(mk, s, n, out, 0);
	if (!out->data)
		return;
	tn = out->len;
	t = trim(out->data, &tn);
	memmove(out->data, t, tn);
	out->len = tn;
	out->data[tn] = '\0';
}

/* The two arguments of an ifeq/ifneq, "(A,B)", "'A' 'B'" or "\"A\" \"B\"",
 * each expanded and trimmed: 0, or -1 when s is none of those */
static int cond_args(struct kmk *mk, const char *s, size_t n, struct buf *a, struct buf *b)
{
	const char *q1, *s2, *q2;
	size_t n2;
	int d = 0;

	if (n >= 2 && s[0] == '(' && s[n - 1] == ')') {
		for (size_t i = 1; i < n - 1; i++) {
			d += s[i] == '(' || s[i] == '{';
			d -= s[i] == ')' || s[i] == '}';
			if (s[i] == ',' && d == 0) {
				expand_trim(mk, s + 1, i - 1, a);
				expand_trim(mk, s + i + 1, n - i - 2, b);
				return 0;
			}
		}
		return -1;
	}
	if (n < 2 || (s[0] != '"' && s[0] != '\'') || !(q1 = memchr(s + 1, s[0], n - 1)))
		return -1;
	n2 = (size_t)(s + n - q1 - 1);
	s2 = trim(q1 + 1, &n2);
	if (n2 < 2 || (s2[0] != '"' && s2[0] != '\'') || !(q2 = memchr(s2 + 1, s2[0], n2 - 1)))
		return -1;
	expand_trim(mk, s + 1, (size_t)(q1 - s - 1), a);
	expand_trim(mk, s2 + 1, (size_t)(q2 - s2 - 1), b);
	return 0;
}

/* The condition of an ifeq/ifneq (kw) with its arguments, or of an
 * ifdef/ifndef with a name: 1 true, 0 false (arguments it cannot read:
 * false) */
static int condition(struct kmk *mk, const char *kw, const char *s, size_t n)
{
	struct buf a = BUF_INIT(KMK_VALUE_MAX), b = BUF_INIT(KMK_VALUE_MAX);
	int def = !strcmp(kw, "ifdef"), ndef = !strcmp(kw, "ifndef"), r = 0;

	s = trim(s, &n);
	if (def || ndef) {
		const char *v;

		expand_trim(mk, s, n, &a);
		v = lookup(mk, buf_str(&a), a.len);
		r = (v && *v) == def;
	} else if (cond_args(mk, s, n, &a, &b) == 0) {
		r = !strcmp(buf_str(&a), buf_str(&b)) == !strcmp(kw, "ifeq");
	}
	buf_release(&b);
	buf_release(&a);
	return r;
}

/* Where the reading is: the ifeq nesting, define blocks, recipes */
struct kmk_state {
	struct {
		int parent, on, taken;
	} cond[KMK_COND_MAX];
	int ncond, lost;             /* lost: nesting past KMK_COND_MAX, skipped whole */
	int in_define, in_rule;
};

static int active(const struct kmk_state *st)
{
	return !st->lost && (!st->ncond || st->cond[st->ncond - 1].on);
}

/* The directive word at s ("ifeq", "else", ...): its length, 0 when s is
 * not one */
static size_t directive(const char *s, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && !memcmp(s, word, w) && (n == w || blank(s[w]) || s[w] == '(') ? w : 0;
}

/* A conditional line (ifeq ..., else [ifeq ...], endif): 1 it was one */
static int conditional(struct kmk *mk, struct kmk_state *st, const char *s, size_t n)
{
	static const char *const ifs[] = { "ifeq", "ifneq", "ifdef", "ifndef", NULL };
	size_t w = 0;
	int k, is_else = 0;

	if (directive(s, n, "endif")) {
		if (st->lost)
			st->lost--;
		else if (st->ncond)
			st->ncond--;
		return 1;
	}
	if ((w = directive(s, n, "else"))) {
		is_else = 1;
		s += w;
		n -= w;
		s = trim(s, &n);
	}
	for (k = 0; ifs[k] && !(w = directive(s, n, ifs[k])); k++)
		;
	if (is_else) {
		if (st->lost || !st->ncond)
			return 1;
		if (st->cond[st->ncond - 1].taken) {
			st->cond[st->ncond - 1].on = 0;
		} else {
			int c = !ifs[k] ? 1 : st->cond[st->ncond - 1].parent &&
					       condition(mk, ifs[k], s + w, n - w);

			st->cond[st->ncond - 1].on = st->cond[st->ncond - 1].parent && c;
			st->cond[st->ncond - 1].taken = c;
		}
		return 1;
	}
	if (!ifs[k])
		return 0;
	if (st->lost || st->ncond == KMK_COND_MAX) {
		st->lost++;
		return 1;
	}
	st->cond[st->ncond].parent = active(st);
	st->cond[st->ncond].on = st->cond[st->ncond].parent && condition(mk, ifs[k], s + w, n - w);
	st->cond[st->ncond].taken = st->cond[st->ncond].on;
	st->ncond++;
	return 1;
}

/* An assignment line: 1 (set, or not one of ours), 0 not an assignment
 * (a rule, a directive, a bare $(call ...)) */
static int assignment(struct kmk *mk, const char *s, size_t n)
{
	struct buf lhs = BUF_INIT(4096), rhs = BUF_INIT(KMK_VALUE_MAX);
	size_t op = n, olen = 0;
	int d = 0;
	struct kmk_ent *e;

	for (size_t i = 0; i < n && op == n; i++) {
		d += s[i] == '(' || s[i] == '{';
		d -= s[i] == ')' || s[i] == '}';
		if (d)
			continue;
		if (s[i] == ':') {
			if (i + 1 < n && s[i + 1] == '=') {
				op = i;
				olen = 2;
			} else if (i + 2 < n && s[i + 1] == ':' && s[i + 2] == '=') {
				op = i;
				olen = 3;
			} else {
				return 0;                        /* a rule */
			}
		} else if (s[i] == '=') {
			op = i > 0 && strchr("+?!", s[i - 1]) ? i - 1 : i;
			olen = i - op + 1;
		}
	}
	if (op == n || op == 0)
		return 0;
	expand_trim(mk, s, op, &lhs);
	if (lhs.len && !memchr(buf_str(&lhs), ' ', lhs.len) && s[op] != '!' &&
	    !(s[op] == '?' && kmk_get(&mk->vars, buf_str(&lhs), lhs.len)) &&
	    (e = kmk_put(&mk->vars, buf_str(&lhs), lhs.len))) {
		expand_trim(mk, s + op + olen, n - op - olen, &rhs);
		if (s[op] != '+')
			buf_reset(&e->val);
		else if (e->val.len && rhs.len)
			buf_puts(&e->val, " ");
		buf_append(&e->val, buf_str(&rhs), rhs.len);
	}
	buf_release(&rhs);
	buf_release(&lhs);
	return 1;
}

/* One logical line (continuations joined, the comment cut) */
static void line(struct kmk *mk, struct kmk_state *st, const char *s, size_t n, int tab)
{
	size_t w;

	s = trim(s, &n);
	if (st->in_define) {
		st->in_define = !directive(s, n, "endef");
		return;
	}
	if (!n || (tab && st->in_rule) || conditional(mk, st, s, n) || !active(st))
		return;
	st->in_rule = 0;
	if (directive(s, n, "define")) {
		st->in_define = 1;
		return;
	}
	if ((w = directive(s, n, "export")) || (w = directive(s, n, "override"))) {
		s += w;
		n -= w;
		s = trim(s, &n);
	}
	if (directive(s, n, "include") || directive(s, n, "-include") ||
	    directive(s, n, "sinclude") || directive(s, n, "unexport") || directive(s, n, "vpath"))
		return;
	if (!assignment(mk, s, n) && memchr(s, ':', n))
		st->in_rule = 1;
}

void kmk_eval(struct kmk *mk, const char *text, size_t len)
{
	struct kmk_state st;
	struct buf l = BUF_INIT(KMK_FILE_MAX);
	size_t i = 0;

	memset(&st, 0, sizeof(st));
	while (i < len && mk->c->left) {
		int tab = text[i] == '\t', comment = 0;

		buf_reset(&l);
		/* a logical line: "\\\n" joins, '#' (not "\#") starts a comment */
		for (; i < len && text[i] != '\n'; i++) {
			if (text[i] == '\\' && i + 1 < len && text[i + 1] == '\n') {
				buf_puts(&l, " ");
				i++;
			} else if (text[i] == '\\' && i + 1 < len && text[i + 1] == '#') {
				if (!comment)
					buf_puts(&l, "#");
				i++;
			} else if (text[i] == '#' && !(tab && st.in_rule)) {
				comment = 1;
			} else if (!comment) {
				buf_append(&l, text[i] ? text + i : " ", 1);   /* a NUL: a blank */
			}
		}
		i++;
		line(mk, &st, buf_str(&l), l.len, tab);
	}
	buf_release(&l);
}

int kmk_read_file(struct kmk *mk, struct kmk_ctx *c, const char *dir, const char *name)
{
	struct buf b = BUF_INIT(KMK_FILE_MAX), rel = BUF_INIT(4096);
	char *why = NULL;
	int rc;

	memset(mk, 0, sizeof(*mk));
	mk->c = c;
	buf_printf(&rel, "%s%s%s", dir, *dir ? "/" : "", name);
	/* as a build's own output is read: no link on the way, a regular file */
	rc = rel.truncated ? -1 :
	     kbuild_read_beneath(c->src, buf_str(&rel), &b, KMK_FILE_MAX, &why);
	if (rc == 0 && spend(mk, b.len) == 0)
		kmk_eval(mk, buf_str(&b), b.len);
	free(why);
	buf_release(&rel);
	buf_release(&b);
	return rc;
}

int kmk_read(struct kmk *mk, struct kmk_ctx *c, const char *dir)
{
	if (kmk_read_file(mk, c, dir, "Kbuild") == 0)
		return 0;
	return kmk_read_file(mk, c, dir, "Makefile");
}

void kmk_release(struct kmk *mk)
{
	kmk_map_release(&mk->vars);
}

void kmk_words(const struct kmk *mk, const char *var, struct kmk_map *into,
	       const struct kmk_map *except)
{
	const struct kmk_ent *v = kmk_get(&mk->vars, var, strlen(var));
	const char *s = v ? buf_str(&v->val) : "";
	size_t at = 0, n, len = strlen(s);
	const char *w;

	while ((w = next_word(s, len, &at, &n))) {
		if (!(w[n - 1] == '/' || (n > 2 && !memcmp(w + n - 2, ".o", 2))))
			continue;
		if (!except || !kmk_get(except, w, n))
			kmk_put(into, w, n);
	}
}
