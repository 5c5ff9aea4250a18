// SPDX-License-Identifier: GPL-2.0-only
/* bench.c: reads the output of the BPF selftests' bench tool
 * (tools/testing/selftests/bpf/bench.c and benchs/) into samples: one per
 * field of each "Iter N (...us): ..." progress line, and the mean and
 * standard deviation of each field of the "Summary: ..." line. Benchmarks
 * print their own fields, so a field is read by its shape, not its name:
 * "words VALUE [± SD][UNIT] [(VALUE UNIT/prod)]", fields split by commas. */
#include "jobs/jobsint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOKENS_MAX 64           /* tokens of one field list we look at */
#define BENCH_NAME_MAX 64

struct tok {
	const char *s;
	size_t n;
};

struct bench {
	struct job_samples *s;
	char name[BENCH_NAME_MAX + 1];   /* from "Setting up benchmark 'NAME'..." */
	size_t line;
	long seq;                        /* the iteration, or -1 for Summary */
	int fields;                      /* fields read from this line */
	int oom;
};

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int tok_is(const struct tok *t, const char *lit)
{
	return t->n == strlen(lit) && !memcmp(t->s, lit, t->n);
}

static int tok_has(const struct tok *t, char c)
{
	return memchr(t->s, c, t->n) != NULL;
}

/* A number token: it starts with a decimal number */
static int tok_num(const struct tok *t, double *v, struct tok *suffix)
{
	double x = 0;
	size_t k = job_decimal(t->s, t->n, &x);

	if (!k)
		return 0;
	if (v)
		*v = x;
	if (suffix) {
		suffix->s = t->s + k;
		suffix->n = t->n - k;
	}
	return 1;
}

static int is_pm(const struct tok *t)
{
	return tok_is(t, "\xc2\xb1") || tok_is(t, "+-");
}

/* Looks like a unit on its own: "ns/op", "%", "M", "MiB" */
static int unit_like(const struct tok *t)
{
	if (tok_has(t, '/') || tok_has(t, '%'))
		return 1;
	if (t->n > 3)
		return 0;
	for (size_t i = 0; i < t->n; i++)
		if (!((t->s[i] >= 'a' && t->s[i] <= 'z') || (t->s[i] >= 'A' && t->s[i] <= 'Z')))
			return 0;
	return t->n > 0;
}

/* Appends s[0..n) to a metric name under construction: lowercase, blanks
 * and characters a name cannot hold become '_' */
static void name_append(char *out, size_t *o, size_t cap, const char *s, size_t n)
{
	for (size_t i = 0; i < n && *o < cap; i++) {
		char c = s[i];

		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
		      c == ':' || c == '/' || c == '-'))
			c = '_';
		out[(*o)++] = c;
	}
	out[*o] = '\0';
}

/* Adds sample "[bench.]base[.suffix]" */
static void emit(struct bench *b, const char *base, const char *suffix, double v,
		 const char *unit)
{
	char name[JOB_METRIC_MAX + 32];
	size_t o = 0;

	if (b->oom || b->s->truncated || !isfinite(v) || !*base)
		return;
	name[0] = '\0';
	if (b->name[0]) {
		name_append(name, &o, sizeof(name) - 1, b->name, strlen(b->name));
		name_append(name, &o, sizeof(name) - 1, ".", 1);
	}
	name_append(name, &o, sizeof(name) - 1, base, strlen(base));
	if (suffix)
		name_append(name, &o, sizeof(name) - 1, suffix, strlen(suffix));
	if (!job_metric_name_ok(name, o)) {
		if (job_note(&b->s->notes, b->line, "metric name '%.60s' is too long, dropped",
			     name) < 0)
			b->oom = 1;
		return;
	}
	if (job_sample_add(b->s, name, v, unit, b->seq < 0 ? 0 : b->seq, b->line) < 0)
		b->oom = 1;
	b->fields++;
}

/* A field: "(mean, sd) unit" under base; Summary adds ".stddev", Iter ".iter" */
static void emit_field(struct bench *b, const char *base, double v, int has_sd, double sd,
		       const char *unit)
{
	if (b->seq >= 0) {
		emit(b, base, ".iter", v, unit);
		return;
	}
	emit(b, base, NULL, v, unit);
	if (has_sd)
		emit(b, base, ".stddev", sd, unit);
}

static void tok_cat(char *out, size_t cap, const struct tok *t, int space)
{
	size_t o = strlen(out);

	if (space && o && o + 1 < cap)
		out[o++] = ' ';
	for (size_t i = 0; i < t->n && o + 1 < cap; i++)
		out[o++] = t->s[i];
	out[o] = '\0';
}

/* "(  3.086M/prod)" after field base: base_per_prod in "M/s" */
static void paren(struct bench *b, const char *base, const struct tok *t, int m, int *i)
{
	char text[128] = "", unit[JOB_UNIT_MAX + 8];
	size_t n, k, ul;
	double v = 0;
	const char *p;

	while (*i < m) {
		const struct tok *x = &t[(*i)++];

		tok_cat(text, sizeof(text), x, 1);
		if (x->n && x->s[x->n - 1] == ')')
			break;
	}
	p = text + 1;   /* past '(' */
	n = strlen(p);
	if (n && p[n - 1] == ')')
		n--;
	while (n && blank(*p)) {
		p++;
		n--;
	}
	k = job_decimal(p, n, &v);
	if (!k)
		return;
	p += k;
	n -= k;
	while (n && blank(*p)) {
		p++;
		n--;
	}
	while (n && blank(p[n - 1]))
		n--;
	if (n < 5 || memcmp(p + n - 5, "/prod", 5) || n - 5 + 2 > JOB_UNIT_MAX)
		return;
	ul = n - 5;
	memcpy(unit, p, ul);
	memcpy(unit + ul, "/s", 3);
	if (b->seq >= 0)
		emit(b, base, "_per_prod.iter", v, unit);
	else
		emit(b, base, "_per_prod", v, unit);
}

/* "123 false hits of 456 total operations. Percentage = 0.12 %" */
static int false_hits(struct bench *b, const struct tok *t, int m)
{
	double fh, total, pct;

	if (m < 11 || !tok_num(&t[0], &fh, NULL) || !tok_is(&t[1], "false") ||
	    !tok_is(&t[2], "hits") || !tok_is(&t[3], "of") || !tok_num(&t[4], &total, NULL) ||
	    !tok_is(&t[7], "Percentage") || !tok_num(&t[9], &pct, NULL))
		return 0;
	emit_field(b, "false_hits", fh, 0, 0, NULL);
	emit_field(b, "total_operations", total, 0, 0, NULL);
	emit_field(b, "false_hits_percentage", pct, 0, 0, "%");
	return 1;
}

/* "1.23 kmallocs/create" (kmallocs_per_create), "1234 total" (total):
 * a segment that starts with its value */
static void number_first(struct bench *b, const struct tok *t, int m, double v,
			 const struct tok *suf)
{
	char base[JOB_METRIC_MAX + 2] = "", unit[JOB_UNIT_MAX + 8] = "";
	size_t o = 0;

	if (m == 2 && !suf->n && tok_has(&t[1], '/') && t[1].n <= JOB_UNIT_MAX) {
		for (size_t j = 0; j < t[1].n; j++) {
			if (t[1].s[j] == '/')
				name_append(base, &o, sizeof(base) - 1, "_per_", 5);
			else
				name_append(base, &o, sizeof(base) - 1, t[1].s + j, 1);
		}
		tok_cat(unit, sizeof(unit), &t[1], 0);
	} else {
		for (int j = 1; j < m; j++) {
			if (tok_num(&t[j], NULL, NULL) || is_pm(&t[j]) || t[j].s[0] == '(')
				return;
			if (j > 1)
				name_append(base, &o, sizeof(base) - 1, "_", 1);
			name_append(base, &o, sizeof(base) - 1, t[j].s, t[j].n);
		}
		if (suf->n <= JOB_UNIT_MAX)
			tok_cat(unit, sizeof(unit), suf, 0);
	}
	emit_field(b, base, v, 0, 0, unit);
}

/* The fields of one comma-separated segment */
static void segment(struct bench *b, const char *s, size_t n)
{
	struct tok t[TOKENS_MAX];
	int m = 0, i = 0;

	for (size_t j = 0; j < n && m < TOKENS_MAX;) {
		size_t st;

		while (j < n && blank(s[j]))
			j++;
		st = j;
		while (j < n && !blank(s[j]))
			j++;
		if (j > st) {
			t[m].s = s + st;
			t[m].n = j - st;
			m++;
		}
	}
	if (false_hits(b, t, m))
		return;
	while (i < m && !b->oom) {
		/* one byte more than a name may have, so emit() sees it is too long */
		char base[JOB_METRIC_MAX + 2] = "", unit[JOB_UNIT_MAX + 8] = "";
		struct tok suf = { NULL, 0 };
		double v = 0, sd = 0;
		int has_sd = 0, words = 0;
		size_t o = 0;

		if (tok_num(&t[i], &v, &suf)) {
			if (i == 0) {
				number_first(b, t, m, v, &suf);
				return;
			}
			i++;   /* a number without a name */
			continue;
		}
		if (t[i].n && t[i].s[0] == '(') {
			paren(b, "", t, m, &i);   /* no field before it: ignored */
			continue;
		}
		while (i < m && !tok_num(&t[i], NULL, NULL) && !(t[i].n && t[i].s[0] == '(')) {
			struct tok w = t[i++];

			while (w.n && (w.s[w.n - 1] == ':' || w.s[w.n - 1] == '='))
				w.n--;
			if (!w.n || is_pm(&w))
				continue;
			if (words++)
				name_append(base, &o, sizeof(base) - 1, "_", 1);
			name_append(base, &o, sizeof(base) - 1, w.s, w.n);
		}
		if (i >= m || !words || !tok_num(&t[i], &v, &suf))
			break;
		i++;
		if (i + 1 < m && is_pm(&t[i]) && tok_num(&t[i + 1], &sd, NULL)) {
			struct tok suf2;

			tok_num(&t[i + 1], NULL, &suf2);
			has_sd = 1;
			if (suf2.n)
				suf = suf2;
			i += 2;
		}
		tok_cat(unit, sizeof(unit), &suf, 0);
		if (!suf.n && i < m && unit_like(&t[i]) && t[i].s[0] != '(' &&
		    !(i + 1 < m && tok_num(&t[i + 1], NULL, NULL)))
			tok_cat(unit, sizeof(unit), &t[i++], 0);
		if (unit[0] && !strchr(unit, '/') && i < m && tok_has(&t[i], '/') &&
		    t[i].s[0] != '(' && !(i + 1 < m && tok_num(&t[i + 1], NULL, NULL)))
			tok_cat(unit, sizeof(unit), &t[i++], 1);
		if (strlen(unit) > JOB_UNIT_MAX)
			unit[0] = '\0';
		emit_field(b, base, v, has_sd, sd, unit);
		if (i < m && t[i].n && t[i].s[0] == '(')
			paren(b, base, t, m, &i);
	}
}

static void fields(struct bench *b, const char *s, size_t n)
{
	size_t st = 0;

	b->fields = 0;
	for (size_t i = 0; i <= n && !b->oom; i++) {
		if (i == n || s[i] == ',') {
			segment(b, s + st, i - st);
			st = i + 1;
		}
	}
	if (!b->fields && !b->oom && !b->s->truncated &&
	    job_note(&b->s->notes, b->line, "%s line without metrics",
		     b->seq >= 0 ? "Iter" : "Summary") < 0)
		b->oom = 1;
}

static int starts(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);

	return n >= m && !memcmp(s, lit, m);
}

static void bench_line(struct bench *b, const char *s, size_t n)
{
	static const char setup[] = "Setting up benchmark '";
	size_t i = 0;

	while (i < n && blank(s[i]))
		i++;
	s += i;
	n -= i;
	if (starts(s, n, setup)) {
		const char *q = memchr(s + sizeof(setup) - 1, '\'', n - (sizeof(setup) - 1));
		size_t o = 0;

		b->name[0] = '\0';
		if (q && q - (s + sizeof(setup) - 1) <= BENCH_NAME_MAX)
			name_append(b->name, &o, BENCH_NAME_MAX, s + sizeof(setup) - 1,
				    (size_t)(q - (s + sizeof(setup) - 1)));
		return;
	}
	if (starts(s, n, "Iter ")) {
		const char *close;
		size_t j = 5;
		long iter = 0;
		int digits = 0;

		while (j < n && blank(s[j]))
			j++;
		while (j < n && s[j] >= '0' && s[j] <= '9' && digits < 9) {
			iter = iter * 10 + (s[j++] - '0');
			digits++;
		}
		close = digits ? memmem(s + j, n - j, "):", 2) : NULL;
		if (!close || (j < n && s[j] >= '0' && s[j] <= '9')) {
			if (job_note(&b->s->notes, b->line, "Iter line not 'Iter N (T): fields'") < 0)
				b->oom = 1;
			return;
		}
		b->seq = iter;
		close += 2;
		fields(b, close, (size_t)(s + n - close));
		return;
	}
	if (starts(s, n, "Summary:")) {
		b->seq = -1;
		fields(b, s + 8, n - 8);
	}
}

int bench_parse(const char *data, size_t len, struct job_samples *s)
{
	struct bench b;
	struct job_lines it;
	struct job_line l = { 0 };

	memset(&b, 0, sizeof(b));
	b.s = s;
	job_lines_init(&it, data, len);
	while (!s->truncated && !b.oom && job_lines_next(&it, &l)) {
		b.line = l.no;
		bench_line(&b, l.s, l.n);
	}
	if (!b.oom && s->truncated &&
	    job_note(&s->notes, l.no, "more than %zu samples: the rest was not read", s->max) < 0)
		b.oom = 1;
	return b.oom ? -1 : 0;
}
