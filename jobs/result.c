// SPDX-License-Identifier: GPL-2.0-only
/* result.c: what the output parsers produce (jobs/ktap.c, test_progs.c,
 * bench.c, metrics.c): bounded lists of result rows and metric samples with
 * notes about malformed input, outside text cleaned into UTF-8 on the way
 * in, and their JSON form for the API and `kfleet parse --json`. */
#include "jobs/jobsint.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[JOB_STATUS_COUNT] = {
	[JOB_PASS] = "pass",
	[JOB_FAIL] = "fail",
	[JOB_SKIP] = "skip",
	[JOB_XFAIL] = "xfail",
	[JOB_ERROR] = "error",
	[JOB_TIMEOUT] = "timeout",
	[JOB_MISSING] = "missing",
};

const char *job_status_name(enum job_status s)
{
	return (unsigned)s < JOB_STATUS_COUNT ? status_names[s] : "?";
}

int job_status_parse(const char *s, enum job_status *out)
{
	for (int i = 0; i < JOB_STATUS_COUNT; i++) {
		if (!strcmp(s, status_names[i])) {
			*out = (enum job_status)i;
			return 0;
		}
	}
	return -1;
}

/* ---- lines ---- */

void job_lines_init(struct job_lines *it, const char *data, size_t len)
{
	it->p = data;
	it->end = data ? data + len : data;
	it->no = 0;
}

int job_lines_next(struct job_lines *it, struct job_line *l)
{
	const char *nl;
	size_t n;

	if (!it->p || it->p >= it->end)
		return 0;
	nl = memchr(it->p, '\n', (size_t)(it->end - it->p));
	n = nl ? (size_t)(nl - it->p) : (size_t)(it->end - it->p);
	l->s = it->p;
	l->n = n && it->p[n - 1] == '\r' ? n - 1 : n;
	l->no = ++it->no;
	it->p = nl ? nl + 1 : it->end;
	return 1;
}

/* ---- clean text ---- */

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if invalid */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned c = p[0];

	if (c < 0x80)
		return 1;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	if (c < 0xe0)
		return n >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
	if (c < 0xf0) {
		if (n < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
			return 0;
		if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))
			return 0;   /* overlong, surrogate */
		return 3;
	}
	if (n < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
		return 0;
	if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
		return 0;   /* overlong, above U+10FFFF */
	return 4;
}

static int blank(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

char *job_clean(const char *s, size_t n, size_t max)
{
	const unsigned char *p = (const unsigned char *)s, *end;
	size_t o = 0;
	char *out;

	if (!s)
		n = 0;
	while (n && blank(p[0])) {
		p++;
		n--;
	}
	while (n && blank(p[n - 1]))
		n--;
	end = p + n;
	out = malloc((n < max ? n : max) + 1);
	if (!out)
		return NULL;
	while (p < end) {
		size_t k = utf8_seq(p, (size_t)(end - p));

		if (k == 0 || (k == 1 && (*p < 0x20 || *p == 0x7f)) ||
		    (k == 2 && p[0] == 0xc2 && p[1] < 0xa0)) {
			/* invalid, C0 or C1 control: one '?' (a tab a space) */
			if (o + 1 > max)
				break;
			out[o++] = *p == '\t' ? ' ' : '?';
			p++;
			continue;
		}
		if (o + k > max)
			break;
		memcpy(out + o, p, k);
		o += k;
		p += k;
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return out;
}

/* ---- notes ---- */

int job_note(struct job_notes *ns, size_t line, const char *fmt, ...)
{
	char tmp[1024];
	struct job_note *v;
	va_list ap;
	char *what;

	if (ns->n >= JOB_NOTES_MAX) {
		ns->dropped++;
		return 0;
	}
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	what = job_clean(tmp, strlen(tmp), JOB_NOTE_MAX);
	if (!what)
		return -1;
	v = realloc(ns->v, (ns->n + 1) * sizeof(*v));
	if (!v) {
		free(what);
		return -1;
	}
	ns->v = v;
	v[ns->n].line = line;
	v[ns->n].what = what;
	ns->n++;
	return 0;
}

void job_notes_release(struct job_notes *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i].what);
	free(ns->v);
	memset(ns, 0, sizeof(*ns));
}

/* ---- results ---- */

void job_results_init(struct job_results *r, size_t max)
{
	memset(r, 0, sizeof(*r));
	r->max = max ? max : JOB_RESULTS_MAX;
}

void job_results_release(struct job_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].path);
		free(r->v[i].reason);
	}
	free(r->v);
	job_notes_release(&r->notes);
	memset(r, 0, sizeof(*r));
}

int job_result_add(struct job_results *r, const char *path, size_t pathlen,
		   enum job_status st, const char *reason, size_t reasonlen, size_t line)
{
	struct job_result *x;
	char *p = NULL, *why = NULL;

	if ((unsigned)st >= JOB_STATUS_COUNT)
		st = JOB_ERROR;
	if (r->n >= r->max) {
		r->truncated = 1;
		return 1;
	}
	if (r->n == r->alloc) {
		size_t na = r->alloc ? r->alloc * 2 : 64;

		if (na > r->max)
			na = r->max;
		x = realloc(r->v, na * sizeof(*x));
		if (!x)
			return -1;
		r->v = x;
		r->alloc = na;
	}
	p = job_clean(path, pathlen, JOB_PATH_MAX);
	if (reason && reasonlen)
		why = job_clean(reason, reasonlen, JOB_REASON_MAX);
	if (!p || (reason && reasonlen && !why)) {
		free(p);
		free(why);
		return -1;
	}
	if (why && !*why) {
		free(why);
		why = NULL;
	}
	x = &r->v[r->n++];
	x->path = p;
	x->reason = why;
	x->status = st;
	x->line = line;
	r->count[st]++;
	return 0;
}

void job_result_set_status(struct job_results *r, size_t i, enum job_status st)
{
	if (i >= r->n || (unsigned)st >= JOB_STATUS_COUNT)
		return;
	r->count[r->v[i].status]--;
	r->v[i].status = st;
	r->count[st]++;
}

/* ---- a string index (open addressing, FNV-1a) ---- */

struct job_index {
	char **keys;
	long *vals;
	size_t cap, n;   /* cap a power of two, n < cap / 2 */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

struct job_index *job_index_new(void)
{
	return calloc(1, sizeof(struct job_index));
}

void job_index_free(struct job_index *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->cap; i++)
		free(x->keys[i]);
	free(x->keys);
	free(x->vals);
	free(x);
}

static size_t slot_of(const struct job_index *x, const char *key)
{
	size_t i = (size_t)hash_str(key) & (x->cap - 1);

	while (x->keys[i] && strcmp(x->keys[i], key))
		i = (i + 1) & (x->cap - 1);
	return i;
}

long *job_index_find(struct job_index *x, const char *key)
{
	size_t i;

	if (!x || !x->cap)
		return NULL;
	i = slot_of(x, key);
	return x->keys[i] ? &x->vals[i] : NULL;
}

static int grow_index(struct job_index *x)
{
	size_t ncap = x->cap ? x->cap * 2 : 64;
	char **keys = calloc(ncap, sizeof(*keys));
	long *vals = calloc(ncap, sizeof(*vals));
	struct job_index old = *x;

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -1;
	}
	x->keys = keys;
	x->vals = vals;
	x->cap = ncap;
	for (size_t i = 0; i < old.cap; i++) {
		if (old.keys[i]) {
			size_t j = slot_of(x, old.keys[i]);

			x->keys[j] = old.keys[i];
			x->vals[j] = old.vals[i];
		}
	}
	free(old.keys);
	free(old.vals);
	return 0;
}

long *job_index_add(struct job_index *x, const char *key)
{
	size_t i;

	if (!x)
		return NULL;
	if ((x->n + 1) * 2 > x->cap && grow_index(x) < 0)
		return NULL;
	i = slot_of(x, key);
	if (!x->keys[i]) {
		x->keys[i] = strdup(key);
		if (!x->keys[i])
			return NULL;
		x->vals[i] = 0;
		x->n++;
	}
	return &x->vals[i];
}

/* ---- numbers ---- */

size_t job_decimal(const char *s, size_t n, double *v)
{
	char tmp[64];
	size_t i = 0, digits = 0, end;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		i++;
		digits++;
	}
	if (i < n && s[i] == '.') {
		i++;
		while (i < n && s[i] >= '0' && s[i] <= '9') {
			i++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	end = i;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t j = i + 1, ed = 0;

		if (j < n && (s[j] == '+' || s[j] == '-'))
			j++;
		while (j < n && s[j] >= '0' && s[j] <= '9') {
			j++;
			ed++;
		}
		if (ed)
			end = j;
	}
	if (end >= sizeof(tmp))
		return 0;   /* no value needs 64 characters; refuse rather than round */
	memcpy(tmp, s, end);
	tmp[end] = '\0';
	*v = strtod(tmp, NULL);
	return end;
}

/* ---- samples ---- */

void job_samples_init(struct job_samples *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->max = max ? max : JOB_SAMPLES_MAX;
}

void job_samples_release(struct job_samples *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].unit);
	}
	free(s->v);
	job_notes_release(&s->notes);
	job_index_free(s->seq_index);
	memset(s, 0, sizeof(*s));
}

int job_metric_name_ok(const char *name, size_t n)
{
	if (n < 1 || n > JOB_METRIC_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == ':' || c == '/' || c == '-'))
			return 0;
	}
	return 1;
}

int job_sample_add(struct job_samples *s, const char *name, double value,
		   const char *unit, long seq, size_t line)
{
	struct job_sample *x;
	char *nm = NULL, *u = NULL;

	if (!name || !job_metric_name_ok(name, strlen(name)) || !isfinite(value))
		return 0;   /* callers check; never store what the table would refuse */
	if (s->n >= s->max) {
		s->truncated = 1;
		return 1;
	}
	if (s->n == s->alloc) {
		size_t na = s->alloc ? s->alloc * 2 : 64;

		if (na > s->max)
			na = s->max;
		x = realloc(s->v, na * sizeof(*x));
		if (!x)
			return -1;
		s->v = x;
		s->alloc = na;
	}
	if (seq < 0) {
		long *cnt;

		if (!s->seq_index && !(s->seq_index = job_index_new()))
			return -1;
		cnt = job_index_add(s->seq_index, name);
		if (!cnt)
			return -1;
		seq = (*cnt)++;
	}
	nm = strdup(name);
	if (unit && *unit)
		u = job_clean(unit, strlen(unit), JOB_UNIT_MAX);
	if (!nm || (unit && *unit && !u)) {
		free(nm);
		free(u);
		return -1;
	}
	if (u && !*u) {
		free(u);
		u = NULL;
	}
	x = &s->v[s->n++];
	x->name = nm;
	x->unit = u;
	x->value = value;
	x->seq = seq;
	x->line = line;
	return 0;
}

/* ---- JSON ---- */

/* json_object_set_new that fails on a NULL value (jansson's refusal of
 * invalid UTF-8 or an allocation failure) */
static int jset(json_t *o, const char *k, json_t *v)
{
	return v ? json_object_set_new(o, k, v) : -1;
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

static json_t *notes_json(const struct job_notes *ns)
{
	json_t *a = json_array();

	if (!a)
		return NULL;
	for (size_t i = 0; i < ns->n; i++) {
		json_t *o = json_object();

		if (!o || json_array_append_new(a, o) < 0 ||
		    jset(o, "line", json_integer((json_int_t)ns->v[i].line)) < 0 ||
		    jset(o, "what", json_string(ns->v[i].what)) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *job_results_json(const struct job_results *r)
{
	json_t *root = json_object(), *c = json_object(), *a;

	if (!root || !c || jset(root, "results", (a = json_array())) < 0)
		goto fail;
	for (size_t i = 0; i < r->n; i++) {
		const struct job_result *x = &r->v[i];
		json_t *o = json_object();

		if (!o || json_array_append_new(a, o) < 0 ||
		    jset(o, "path", json_string(x->path)) < 0 ||
		    jset(o, "status", json_string(job_status_name(x->status))) < 0 ||
		    jset(o, "reason", jstr_or_null(x->reason)) < 0 ||
		    jset(o, "line", json_integer((json_int_t)x->line)) < 0)
			goto fail;
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++)
		if (jset(c, status_names[i], json_integer((json_int_t)r->count[i])) < 0)
			goto fail;
	/* test cases as kunit_tool counts them (KTAP only), beside the rows */
	{
		size_t n = 0;

		for (int i = 0; i < JOB_STATUS_COUNT; i++)
			n += r->tests[i];
		if (n) {
			json_t *t = json_object();

			for (int i = 0; t && i < JOB_STATUS_COUNT; i++)
				if (jset(t, status_names[i], json_integer((json_int_t)r->tests[i])) < 0) {
					json_decref(t);
					t = NULL;
				}
			if (!t || jset(root, "tests", t) < 0)
				goto fail;
		}
	}
	if (json_object_set(root, "counts", c) < 0 ||
	    jset(root, "truncated", json_boolean(r->truncated)) < 0 ||
	    jset(root, "notes", notes_json(&r->notes)) < 0 ||
	    jset(root, "notes_dropped", json_integer((json_int_t)r->notes.dropped)) < 0)
		goto fail;
	json_decref(c);
	return root;
fail:
	json_decref(c);
	json_decref(root);
	return NULL;
}

json_t *job_samples_json(const struct job_samples *s)
{
	json_t *root = json_object(), *a;

	if (!root || jset(root, "samples", (a = json_array())) < 0)
		goto fail;
	for (size_t i = 0; i < s->n; i++) {
		const struct job_sample *x = &s->v[i];
		json_t *o = json_object();

		if (!o || json_array_append_new(a, o) < 0 ||
		    jset(o, "name", json_string(x->name)) < 0 ||
		    jset(o, "value", json_real(x->value)) < 0 ||
		    jset(o, "unit", jstr_or_null(x->unit)) < 0 ||
		    jset(o, "seq", json_integer((json_int_t)x->seq)) < 0 ||
		    jset(o, "line", json_integer((json_int_t)x->line)) < 0)
			goto fail;
	}
	if (jset(root, "truncated", json_boolean(s->truncated)) < 0 ||
	    jset(root, "notes", notes_json(&s->notes)) < 0 ||
	    jset(root, "notes_dropped", json_integer((json_int_t)s->notes.dropped)) < 0)
		goto fail;
	return root;
fail:
	json_decref(root);
	return NULL;
}
