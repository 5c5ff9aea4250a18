// SPDX-License-Identifier: GPL-2.0-only
/* ktap.c: reads KTAP v1 and TAP 13 as kselftest and KUnit print them
 * (Documentation/dev-tools/ktap.rst, tools/testing/selftests/kselftest/
 * runner.sh) into one result row per test and subtest. A job's captured
 * output or a console log goes in; rows named "net/tcp_basic.sh/subtest"
 * come out for the results table, with "missing" rows for what a crash left
 * unreported, and the test cases counted as kunit_tool counts them
 * (tools/testing/kunit/kunit_parser.py, the reference for real logs). */
#include "jobs/jobsint.h"
#include "jobs/ktapint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/printk.h"

/* Nesting is told by each line's prefix, its leading blanks and "# "
 * markers: a version or plan line whose prefix extends the deepest open
 * level's opens a level (KTAP indents by two spaces, KUnit by four,
 * kselftest's runner prefixes its tests' own TAP with "# "); a result line
 * on an open level's exact prefix closes the levels below it and is their
 * parent. Subtests come before their parent's result line, so their rows
 * get the parent's name prefixed when it arrives. */

#define PREFIX_MAX 128          /* bytes of blanks and "# " before a line's text */
#define CONSOLE_MAX 64          /* bytes of a console prefix learned from a version line */
#define OV_ROWS 1               /* ovf[]: results at this prefix length past the cap */
#define OV_BAD 2                /* ... and one of their test cases did not pass */

struct level {
	char prefix[PREFIX_MAX + 1];
	size_t plen;
	size_t start;           /* first row of this level (and its subtests) in r */
	size_t doc_start;       /* first row of its current document */
	size_t open_line;
	long plan;              /* -1: no plan (yet) */
	size_t plan_line;
	unsigned char *seen;    /* reported numbers, a bit each, up to r->max */
	size_t seen_bytes;
	long last;              /* highest number reported, 0 none */
	char *hint;             /* the test running here, named before its result */
	size_t hint_line;
	char *skip_reason;      /* from "1..0 # SKIP why" */
	char *bail;             /* "Bail out! why" */
	int bad;                /* a test case in its rows did not pass */
	int skipped;            /* its plan said "# SKIP" */
};

struct ktap {
	struct job_results *r;
	struct level lv[KTAP_DEPTH_MAX];
	int depth;              /* levels open; lv[depth - 1] is the deepest */
	int full;               /* r is full: no more rows, only naming */
	int oom;
	int seen;               /* a level was opened: the output has TAP */
	int ov, ov_noted;       /* lines nested past KTAP_DEPTH_MAX under lv[depth - 1] */
	size_t ov_start;        /* their first row */
	unsigned char ovf[PREFIX_MAX + 1];   /* OV_* by prefix length, see overflow_result */
	size_t lineno;
	char *crash;            /* the panic that ends the open documents now */
	char console[CONSOLE_MAX];   /* the prefix before the first version line, */
	size_t clen;            /* taken off the lines that start with it; 0: none */
};

/* ---- small helpers ---- */

static char *dup_clean(struct ktap *k, const char *s, size_t n, size_t max)
{
	char *c = job_clean(s, n, max);

	if (!c)
		k->oom = 1;
	return c;
}

/* ---- console prefixes ----
 * A log read from a console carries the kernel's printk fields before each
 * line: "[    0.060000] ", "[    0.060000][    T1] " (CONFIG_PRINTK_CALLER,
 * also "[    C0]"), "<6>" (a raw /dev/kmsg read). They are taken off every
 * line, whatever their width (common/printk.c). Another prefix (a serial console server's
 * "host | ", a wider timestamp) is learned as kunit_tool's
 * extract_tap_lines() learns it, from the text before the first version
 * line, and taken off the lines that start with it; its digits and blanks
 * may differ from line to line (a clock). Unlike kunit_tool, a line without
 * the prefix keeps its text: it is read as it is. */

/* s starts with the learned prefix: the same bytes, but for digits and
 * blanks, which may stand for each other */
static int console_at(const struct ktap *k, const char *s, size_t n)
{
	if (!k->clen || n < k->clen)
		return 0;
	for (size_t i = 0; i < k->clen; i++) {
		char a = k->console[i], b = s[i];

		if (a != b && !((ktap_digit(a) || a == ' ') && (ktap_digit(b) || b == ' ')))
			return 0;
	}
	return 1;
}

/* s ends in a version line after a prefix that is not indentation:
 * remember the prefix (without the indentation before the version text,
 * which tells the nesting as on any line) */
static void learn_console(struct ktap *k, const char *s, size_t n)
{
	size_t q;

	if (n > CONSOLE_MAX + 32)
		return;
	for (size_t i = 1; i < n && i <= CONSOLE_MAX; i++) {
		if ((s[i] != 'K' && s[i] != 'T') || ktap_alnum(s[i - 1]) || !ktap_is_version(s + i, n - i))
			continue;
		q = i;
		while (q > 0 && (ktap_blank(s[q - 1]) || (s[q - 1] == '#' && ktap_blank(s[q]))))
			q--;
		if (q) {
			memcpy(k->console, s, q);
			k->clen = q;
		}
		return;
	}
}

/* ---- rows ---- */

static int add_row(struct ktap *k, const char *path, enum job_status st, const char *reason,
		   size_t line)
{
	int rc;

	if (k->full || k->oom)
		return 0;
	rc = job_result_add(k->r, path, strlen(path), st, reason, reason ? strlen(reason) : 0,
			    line);
	if (rc < 0)
		k->oom = 1;
	else if (rc > 0)
		k->full = 1;
	return rc < 0 ? -1 : 0;
}

static int status_ok(enum job_status st)
{
	return st == JOB_PASS || st == JOB_SKIP || st == JOB_XFAIL;
}

/* Adds the row of a test of level d (-1: of no level) and counts its test
 * cases as kunit_tool does (bubble_up_test_results): one when it has no
 * subtests, none of its own when it has (sub: rows of them) unless it did
 * not pass while none of them failed (bad: one of them did not pass) */
static void add_test(struct ktap *k, int d, const char *path, enum job_status st,
		     const char *reason, size_t line, size_t sub, int bad)
{
	size_t n = k->r->n;

	add_row(k, path, st, reason, line);
	if (k->r->n == n)
		return;
	if (!sub || (!status_ok(st) && !bad)) {
		k->r->tests[st]++;
		bad |= !status_ok(st);
	}
	if (d >= 0)
		k->lv[d].bad |= bad;
}

/* "name/path", at most JOB_PATH_MAX bytes cut on a character boundary */
static char *join_path(const char *name, const char *path)
{
	size_t a = strlen(name), b = strlen(path), n = a + 1 + b;
	char *s;

	if (n > JOB_PATH_MAX) {
		n = JOB_PATH_MAX;
		while (n > a + 1 && ((unsigned char)path[n - a - 1] & 0xc0) == 0x80)
			n--;
		if (n < a + 1)
			n = a + 1;
	}
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, name, a < n ? a : n);
	if (a < n) {
		s[a] = '/';
		memcpy(s + a + 1, path, n - a - 1);
	}
	s[n] = '\0';
	return s;
}

/* Names rows [from, n) as subtests of name */
static void prefix_rows(struct ktap *k, size_t from, const char *name)
{
	struct job_results *r = k->r;

	for (size_t i = from; i < r->n && !k->oom; i++) {
		char *p = join_path(name, r->v[i].path);

		if (!p) {
			k->oom = 1;
			return;
		}
		free(r->v[i].path);
		r->v[i].path = p;
	}
}

static void mark_seen(struct ktap *k, struct level *l, long num)
{
	size_t byte;

	if (num <= 0)
		return;
	if (num > l->last)
		l->last = num;
	if ((size_t)num > k->r->max)
		return;
	byte = (size_t)num / 8;
	if (byte >= l->seen_bytes) {
		size_t nb = l->seen_bytes ? l->seen_bytes : 16;
		unsigned char *p;

		while (nb <= byte)
			nb *= 2;
		if (nb > k->r->max / 8 + 1)
			nb = k->r->max / 8 + 1;
		p = realloc(l->seen, nb);
		if (!p) {
			k->oom = 1;
			return;
		}
		memset(p + l->seen_bytes, 0, nb - l->seen_bytes);
		l->seen = p;
		l->seen_bytes = nb;
	}
	l->seen[byte] |= (unsigned char)(1u << (num % 8));
}

static int was_seen(const struct level *l, long num)
{
	size_t byte = (size_t)num / 8;

	return byte < l->seen_bytes && (l->seen[byte] & (1u << (num % 8)));
}

/* ---- levels ---- */

static void level_reset(struct level *l)
{
	free(l->seen);
	free(l->hint);
	free(l->skip_reason);
	free(l->bail);
	l->seen = NULL;
	l->seen_bytes = 0;
	l->hint = l->skip_reason = l->bail = NULL;
	l->plan = -1;
	l->plan_line = 0;
	l->last = 0;
	l->skipped = 0;
}

/* Levels past the cap end with the deepest level's test */
static void overflow_end(struct ktap *k)
{
	k->ov = 0;
	memset(k->ovf, 0, sizeof(k->ovf));
}

static struct level *open_level(struct ktap *k, const char *prefix, size_t plen)
{
	struct level *l;

	if (k->depth >= KTAP_DEPTH_MAX) {
		if (!k->ov) {
			k->ov = 1;
			k->ov_start = k->r->n;
		}
		if (!k->ov_noted) {
			k->ov_noted = 1;
			if (job_note(&k->r->notes, k->lineno, "subtests nested deeper than %d "
				     "levels: their results are kept under level %d, their plans "
				     "not checked", KTAP_DEPTH_MAX, KTAP_DEPTH_MAX) < 0)
				k->oom = 1;
		}
		return NULL;
	}
	l = &k->lv[k->depth++];
	memset(l, 0, sizeof(*l));
	memcpy(l->prefix, prefix, plen);
	l->prefix[plen] = '\0';
	l->plen = plen;
	l->start = l->doc_start = k->r->n;
	l->open_line = k->lineno;
	l->plan = -1;
	k->seen = 1;
	return l;
}

/* The level whose prefix is exactly p[0..pl), deepest first; -1 none */
static int level_at(const struct ktap *k, const char *p, size_t pl)
{
	for (int d = k->depth - 1; d >= 0; d--)
		if (k->lv[d].plen == pl && !memcmp(k->lv[d].prefix, p, pl))
			return d;
	return -1;
}

/* p[0..pl) is deeper than the deepest open level */
static int extends_deepest(const struct ktap *k, const char *p, size_t pl)
{
	const struct level *l = &k->lv[k->depth - 1];

	return pl > l->plen && !memcmp(l->prefix, p, l->plen);
}

/* p[0..pl) is shallower than the top level (a new top-level document) */
static int above_top(const struct ktap *k, const char *p, size_t pl)
{
	return pl < k->lv[0].plen && !memcmp(k->lv[0].prefix, p, pl);
}

/* Why a test of level l never reported: its "Bail out!", the kernel's
 * panic, or what */
static const char *missing_why(const struct ktap *k, const struct level *l, const char *what)
{
	return l->bail ? l->bail : k->crash ? k->crash : what;
}

/* The document at level d ends: the test its runner started and the tests
 * its plan promised that never reported become missing rows. */
static void end_doc(struct ktap *k, int d)
{
	struct level *l = &k->lv[d];
	char name[32], why[64];
	long upto;

	if (l->hint) {
		long num = l->last + 1;

		add_test(k, d, l->hint, JOB_MISSING, missing_why(k, l, "started, never reported"),
			 l->hint_line, 0, 0);
		mark_seen(k, l, num);
		free(l->hint);
		l->hint = NULL;
	}
	if (l->plan <= 0)
		return;
	upto = l->plan;
	if ((size_t)upto > k->r->max) {
		upto = (long)k->r->max;
		k->r->truncated = 1;
	}
	snprintf(why, sizeof(why), "not reported (plan 1..%ld)", l->plan);
	for (long i = 1; i <= upto && !k->full && !k->oom; i++) {
		if (was_seen(l, i))
			continue;
		snprintf(name, sizeof(name), "#%ld", i);
		add_test(k, d, name, JOB_MISSING, missing_why(k, l, why), l->plan_line, 0, 0);
	}
}

/* The document at level d ended without a row: no tests ran in it (as
 * kunit_tool says). A kselftest's "1..0 # SKIP why" under its parent is a
 * skip that the parent's row tells; the whole output skipping is noted. */
static void note_no_tests(struct ktap *k, int d, const char *name)
{
	const struct level *l = &k->lv[d];
	int rc;

	if (k->full || k->r->n > l->doc_start || (d && l->skipped))
		return;
	if (!name && d)
		name = k->lv[d - 1].hint;
	if (l->skipped)
		rc = job_note(&k->r->notes, l->open_line, "no tests run (SKIP%s%s)",
			      l->skip_reason ? " " : "", l->skip_reason ? l->skip_reason : "");
	else if (name)
		rc = job_note(&k->r->notes, l->open_line, "'%s': no tests run", name);
	else
		rc = job_note(&k->r->notes, l->open_line, "no tests run");
	if (rc < 0)
		k->oom = 1;
}

/* Closes the deepest level. Its rows become subtests of name, the parent's
 * result that the caller adds next with *sub (the rows of its subtests) and
 * *bad (one of them did not pass); with name NULL the parent never
 * reported: it is the parent level's running test (or "#N") and missing. */
static void pop_level(struct ktap *k, const char *name, size_t *sub, int *bad)
{
	struct level *l = &k->lv[k->depth - 1];

	end_doc(k, k->depth - 1);
	note_no_tests(k, k->depth - 1, name);
	*sub = k->r->n - l->start;
	*bad = l->bad;
	if (name) {
		prefix_rows(k, l->start, name);
	} else if (k->depth >= 2) {
		struct level *p = &k->lv[k->depth - 2];
		char num[32], *pname = p->hint;
		long n = p->last + 1;
		size_t line = p->hint ? p->hint_line : l->open_line;

		snprintf(num, sizeof(num), "#%ld", n);
		prefix_rows(k, l->start, pname ? pname : num);
		add_test(k, k->depth - 2, pname ? pname : num, JOB_MISSING,
			 missing_why(k, p, "started, never reported"), line, *sub, *bad);
		mark_seen(k, p, n);
		free(p->hint);
		p->hint = NULL;
	}
	level_reset(l);
	if (k->depth == KTAP_DEPTH_MAX)
		overflow_end(k);
	k->depth--;
}

static void pop_to(struct ktap *k, int d)
{
	size_t sub;
	int bad;

	while (k->depth - 1 > d)
		pop_level(k, NULL, &sub, &bad);
}

/* The output ends here (what: "kernel panic", "output ended"): every
 * open document ends, and a note says how many tests never reported */
static void end_all(struct ktap *k, const char *what)
{
	size_t missing = k->r->count[JOB_MISSING];

	pop_to(k, -1);
	missing = k->r->count[JOB_MISSING] - missing;
	if (missing && job_note(&k->r->notes, k->lineno, "%s: %zu test%s never reported", what,
				missing, missing == 1 ? "" : "s") < 0)
		k->oom = 1;
}

/* A new document at level d (a second version line, a second plan) */
static void restart_level(struct ktap *k, int d)
{
	pop_to(k, d);
	if (d == KTAP_DEPTH_MAX - 1)
		overflow_end(k);
	end_doc(k, d);
	note_no_tests(k, d, NULL);
	level_reset(&k->lv[d]);
	k->lv[d].open_line = k->lineno;
	k->lv[d].doc_start = k->r->n;
}

/* ---- lines ---- */

static void on_version(struct ktap *k, const char *p, size_t pl)
{
	int d;

	if (!k->depth) {
		open_level(k, p, pl);
		return;
	}
	d = level_at(k, p, pl);
	if (d >= 0)
		restart_level(k, d);
	else if (extends_deepest(k, p, pl))
		open_level(k, p, pl);
	else if (above_top(k, p, pl)) {
		pop_to(k, -1);
		open_level(k, p, pl);
	}
}

static void on_plan(struct ktap *k, const char *p, size_t pl, long plan, const char *dir,
		    size_t dlen)
{
	struct level *l = NULL;
	int d;

	if (!k->depth) {
		/* a "# 1..3" before any TAP is more likely someone's text */
		if (!memchr(p, '#', pl))
			l = open_level(k, p, pl);
	} else if ((d = level_at(k, p, pl)) >= 0) {
		pop_to(k, d);
		if (k->lv[d].plan >= 0)
			restart_level(k, d);
		l = &k->lv[d];
	} else if (extends_deepest(k, p, pl)) {
		l = open_level(k, p, pl);
	} else if (above_top(k, p, pl)) {
		pop_to(k, -1);
		l = open_level(k, p, pl);
	}
	if (!l)
		return;
	l->plan = plan;
	l->plan_line = k->lineno;
	if (dir) {
		size_t i = 0;

		ktap_skip_blanks(dir, dlen, &i);
		if (ktap_word_is(dir + i, dlen - i, "SKIP")) {
			i += 4;
			l->skipped = 1;
			free(l->skip_reason);
			l->skip_reason = dlen > i ? dup_clean(k, dir + i, dlen - i, JOB_REASON_MAX) : NULL;
		}
	}
}

/* "selftests: net/forwarding: router.sh" -> "net/forwarding/router.sh" */
static char *runner_name(struct ktap *k, const char *s, size_t n)
{
	static const char pre[] = "selftests: ";
	char *c, *sep;

	if (!ktap_starts(s, n, pre))
		return NULL;
	c = dup_clean(k, s + sizeof(pre) - 1, n - (sizeof(pre) - 1), JOB_NAME_MAX);
	if (!c)
		return NULL;
	sep = strstr(c, ": ");
	if (sep && !strstr(sep + 2, ": ")) {
		*sep = '/';
		memmove(sep + 1, sep + 2, strlen(sep + 2) + 1);
	}
	return c;
}

/* "# selftests: dir: test" and "# Subtest: name" name the test that runs
 * now, before its result line. "# Subtest:" also opens the level of its
 * subtests when no version line did (KUnit before KTAP v1 nested them
 * without one, and with no plan: kunit_tool takes the header for both). */
static void on_hint(struct ktap *k, const char *p, size_t pl, const char *s, size_t n)
{
	size_t base;
	int d, to = -1, runner, open = 0;
	char *name;

	if (!k->depth || pl < 2 || p[pl - 2] != '#' || !ktap_blank(p[pl - 1]))
		return;
	runner = ktap_starts(s, n, "selftests: ");
	if (!runner && !ktap_starts(s, n, "Subtest: "))
		return;
	base = pl - 2;
	d = level_at(k, p, base);
	if (runner)
		to = d == k->depth - 1 ? d : -1;
	else if (d >= 1)
		to = d - 1;
	else if (d < 0 && extends_deepest(k, p, base)) {
		to = k->depth - 1;
		open = 1;
	}
	if (to < 0)
		return;
	name = runner ? runner_name(k, s, n) : dup_clean(k, s + 9, n - 9, JOB_NAME_MAX);
	if (!name)
		return;
	if (!*name) {
		free(name);
		return;
	}
	free(k->lv[to].hint);
	k->lv[to].hint = name;
	k->lv[to].hint_line = k->lineno;
	if (open)
		open_level(k, p, base);
}

/* "Kernel panic - not syncing: ...": nothing more of the TAP comes (kunit_tool
 * stops reading at a VFS panic, and any panic is the end of the kernel's
 * output); the tests not reached are missing, the panic their reason */
static void on_panic(struct ktap *k, const char *s, size_t n)
{
	if (!k->depth)
		return;
	k->crash = dup_clean(k, s, n, JOB_REASON_MAX);
	if (k->crash)
		end_all(k, "kernel panic");
	free(k->crash);
	k->crash = NULL;
}

static void on_bail(struct ktap *k, const char *p, size_t pl, const char *s, size_t n)
{
	int d = k->depth ? level_at(k, p, pl) : -1;

	if (d < 0)
		return;
	free(k->lv[d].bail);
	k->lv[d].bail = dup_clean(k, s, n, JOB_REASON_MAX);
}

static const struct {
	const char *word;
	enum job_status ok, not_ok;
} directives[] = {
	{ "SKIPPED", JOB_SKIP, JOB_SKIP },
	{ "SKIP", JOB_SKIP, JOB_SKIP },
	{ "TODO", JOB_PASS, JOB_XFAIL },
	{ "XFAIL", JOB_XFAIL, JOB_XFAIL },
	{ "TIMEOUT", JOB_TIMEOUT, JOB_TIMEOUT },
	{ "ERROR", JOB_ERROR, JOB_ERROR },
};

/* A result indented deeper than the deepest level is that level's when
 * the plan still expects its number (kunit_tool reads results at any
 * indentation): only blanks deeper, a number after the last and in the
 * plan, so a test's own "ok 1 ..." text and misaligned noise stay text */
static int deeper_result(const struct ktap *k, const char *p, size_t pl, long num)
{
	const struct level *l = &k->lv[k->depth - 1];

	if (!extends_deepest(k, p, pl) || l->plan <= 0 || num <= l->last || num > l->plan)
		return 0;
	for (size_t i = l->plen; i < pl; i++)
		if (!ktap_blank(p[i]))
			return 0;
	return 1;
}

/* The status, name and reason a result line gives; 0, or -1 when memory
 * ran out (k->oom set) */
static int read_result(struct ktap *k, const struct ktap_result *t, enum job_status *st,
		       char **name, char **reason)
{
	const char *why = t->dir;
	size_t whylen = t->dirlen, i = 0;
	char numname[32];

	*st = t->ok ? JOB_PASS : JOB_FAIL;
	*reason = NULL;
	/* status and reason from the directive */
	if (why) {
		ktap_skip_blanks(why, whylen, &i);
		for (size_t j = 0; j < sizeof(directives) / sizeof(directives[0]); j++) {
			if (ktap_word_is(why + i, whylen - i, directives[j].word)) {
				*st = t->ok ? directives[j].ok : directives[j].not_ok;
				i += strlen(directives[j].word);
				while (i < whylen && (ktap_blank(why[i]) || why[i] == ':'))
					i++;
				break;
			}
		}
		why += i;
		whylen -= i;
	}
	/* the name; the runner's "selftests: dir: test" is "dir/test" */
	*name = runner_name(k, t->desc, t->dlen);
	if (*name && !t->ok && *st == JOB_FAIL) {
		if (whylen == 6 && !memcmp(why, "exit=4", 6))
			*st = JOB_SKIP;             /* KSFT_SKIP */
		else if (whylen == 8 && !memcmp(why, "exit=124", 8))
			*st = JOB_TIMEOUT;          /* timeout(1)'s status */
	}
	if (!*name && !k->oom)
		*name = dup_clean(k, t->desc, t->dlen, JOB_NAME_MAX);
	if (*name && !**name) {
		free(*name);
		snprintf(numname, sizeof(numname), "#%ld", t->num);
		*name = strdup(numname);
		if (!*name)
			k->oom = 1;
	}
	if (*name && whylen)
		*reason = dup_clean(k, why, whylen, JOB_REASON_MAX);
	return *name ? 0 : -1;
}

/* A result nested past KTAP_DEPTH_MAX levels: a row under the deepest
 * level, its parents past the cap left out of its name and its plan not
 * checked, but counted with what its subtests did (ovf, by prefix length:
 * subtests are deeper), so a failing test case is never lost */
static void overflow_result(struct ktap *k, size_t pl, const struct ktap_result *t)
{
	unsigned char sub = 0;
	enum job_status st;
	char *name, *reason;
	size_t n = k->r->n;

	if (read_result(k, t, &st, &name, &reason) < 0)
		return;
	for (size_t j = pl + 1; j <= PREFIX_MAX; j++) {
		sub |= k->ovf[j];
		k->ovf[j] = 0;
	}
	add_test(k, k->depth - 1, name, st, reason, k->lineno, sub & OV_ROWS, !!(sub & OV_BAD));
	if (k->r->n > n)
		k->ovf[pl] |= OV_ROWS | ((sub & OV_BAD) || !status_ok(st) ? OV_BAD : 0);
	free(name);
	free(reason);
}

static void on_result(struct ktap *k, const char *p, size_t pl, const struct ktap_result *t)
{
	enum job_status st;
	char *name, *reason;
	struct level *l;
	size_t sub = 0;
	int d, bad = 0;

	if (!k->depth) {
		/* results without a version or plan line: a TAP stream all the same,
		 * unless it looks like someone's "# ok 1 ..." comment */
		if (memchr(p, '#', pl) || !open_level(k, p, pl))
			return;
		d = 0;
	} else if ((d = level_at(k, p, pl)) < 0) {
		if (k->ov && extends_deepest(k, p, pl)) {
			overflow_result(k, pl, t);
			return;
		}
		/* no version or plan line opened a level here: a test's own text
		 * that happens to read "ok 1 ..." (kselftest prints a plan even
		 * when KSFT_TAP_LEVEL hides the version line) */
		if (!deeper_result(k, p, pl, t->num))
			return;
		d = k->depth - 1;
	}
	l = &k->lv[d];
	if (read_result(k, t, &st, &name, &reason) < 0)
		return;
	/* levels below d are this test's subtests */
	pop_to(k, d + 1);
	if (k->depth - 1 == d + 1) {
		struct level *c = &k->lv[d + 1];

		if (st == JOB_SKIP && (!reason || !*reason) && c->skip_reason) {
			free(reason);
			reason = c->skip_reason;
			c->skip_reason = NULL;
		}
		pop_level(k, name, &sub, &bad);
	} else if (k->ov && d == k->depth - 1) {
		/* its subtests were nested past the cap */
		sub = k->r->n - k->ov_start;
		for (size_t j = 0; j <= PREFIX_MAX; j++)
			bad |= k->ovf[j] & OV_BAD;
		prefix_rows(k, k->ov_start, name);
		overflow_end(k);
	}
	add_test(k, d, name, st, reason, k->lineno, sub, !!bad);
	mark_seen(k, l, t->num);
	free(l->hint);
	l->hint = NULL;
	free(name);
	free(reason);
}

/* *s, *n: the line behind its console prefix (printk's fields, then a
 * learned one) */
static void strip_console(struct ktap *k, const char **s, size_t *n)
{
	size_t pl = printk_prefix_len(*s, *n);

	*s += pl;
	*n -= pl;
	if (!k->depth && !console_at(k, *s, *n)) {
		pl = ktap_line_prefix(*s, *n);
		if (!ktap_is_version(*s + pl, *n - pl))
			learn_console(k, *s, *n);
	}
	if (console_at(k, *s, *n)) {
		*s += k->clen;
		*n -= k->clen;
	}
}

static void on_line(struct ktap *k, const char *s, size_t n)
{
	struct ktap_result t;
	const char *x, *dir;
	size_t pl, xn, dlen;
	long plan;

	strip_console(k, &s, &n);
	pl = ktap_line_prefix(s, n);
	x = s + pl;
	xn = n - pl;
	if (pl > PREFIX_MAX || !xn)
		return;
	if (ktap_is_version(x, xn)) {
		on_version(k, s, pl);
	} else if ((plan = ktap_plan(x, xn, &dir, &dlen)) >= 0) {
		on_plan(k, s, pl, plan, dir, dlen);
	} else if (plan == -3) {
		if (job_note(&k->r->notes, k->lineno, "plan '%.*s' is too large, ignored",
			     (int)(xn > 40 ? 40 : xn), x) < 0)
			k->oom = 1;
	} else if (ktap_result_line(x, xn, &t)) {
		on_result(k, s, pl, &t);
	} else if (ktap_starts(x, xn, "Bail out!")) {
		on_bail(k, s, pl, x, xn);
	} else if (ktap_starts(x, xn, "Kernel panic - not syncing")) {
		on_panic(k, x, xn);
	} else {
		on_hint(k, s, pl, x, xn);   /* or a diagnostic or unknown line */
	}
}

int ktap_parse(const char *data, size_t len, struct job_results *r)
{
	struct ktap *k = calloc(1, sizeof(*k));
	struct job_lines it;
	struct job_line l;
	int rc = -1;

	if (!k)
		return -1;
	k->r = r;
	job_lines_init(&it, data, len);
	while (!k->full && !k->oom && job_lines_next(&it, &l)) {
		k->lineno = l.no;
		on_line(k, l.s, l.n);
	}
	if (k->full && job_note(&r->notes, k->lineno,
				"more than %zu results: the rest of the output was not read",
				r->max) < 0)
		k->oom = 1;
	/* the end of the output: what is still open never reported */
	if (!k->oom)
		end_all(k, "output ended");
	if (!k->seen && !k->oom &&
	    job_note(&r->notes, 0, "no KTAP or TAP output: no version line, plan or result") < 0)
		k->oom = 1;
	rc = k->oom ? -1 : 0;
	while (k->depth > 0)
		level_reset(&k->lv[--k->depth]);
	free(k);
	return rc;
}
