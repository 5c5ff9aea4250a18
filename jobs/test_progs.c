// SPDX-License-Identifier: GPL-2.0-only
/* test_progs.c: reads what the BPF selftests runner test_progs prints
 * (tools/testing/selftests/bpf/test_progs.c) and the JSON summary its -J
 * option writes, into result rows: "#83/1 htab_update/reenter_update:FAIL"
 * is the row "htab_update/reenter_update", failed, with the last
 * "name:FAIL:why" line of its log as the reason. */
#include "jobs/jobsint.h"

#include <stdlib.h>
#include <string.h>

#define NUMBER_DIGITS 9

struct tprogs {
	struct job_results *r;
	struct tprogs_summary *sum;
	struct job_index *paths;   /* path -> row, so a test printed twice is one row */
	char *last_fail;           /* last "x:FAIL:why" line since the previous result */
	char *test_fail;           /* first one since the previous test's own result */
	long pending;              /* test whose subtests came but not its own line */
	char *pending_name;
	size_t pending_line;
	int full, oom;
};

static int blank(char c)
{
	return c == ' ' || c == '\t';
}

static int digit(char c)
{
	return c >= '0' && c <= '9';
}

static long number(const char *s, size_t n, size_t *i)
{
	long v = 0;
	int d = 0;

	while (*i < n && digit(s[*i])) {
		if (++d > NUMBER_DIGITS)
			return -1;
		v = v * 10 + (s[(*i)++] - '0');
	}
	return d ? v : -1;
}

static int index_rows(struct tprogs *t)
{
	t->paths = job_index_new();
	if (!t->paths)
		return -1;
	for (size_t i = 0; i < t->r->n; i++) {
		long *v = job_index_add(t->paths, t->r->v[i].path);

		if (!v)
			return -1;
		*v = (long)i;
	}
	return 0;
}

/* Adds a row, or gives its reason to the row with that path already there */
static void add(struct tprogs *t, const char *path, size_t plen, enum job_status st,
		const char *reason, size_t line)
{
	char *key;
	long *row;
	int rc;

	if (t->full || t->oom)
		return;
	key = job_clean(path, plen, JOB_PATH_MAX);
	if (!key) {
		t->oom = 1;
		return;
	}
	if (!*key) {
		free(key);
		return;
	}
	row = job_index_find(t->paths, key);
	if (row) {
		struct job_result *x = &t->r->v[*row];

		if (!x->reason && reason && *reason && !(x->reason = strdup(reason)))
			t->oom = 1;
		if (st == JOB_FAIL && x->status != JOB_FAIL)
			job_result_set_status(t->r, (size_t)*row, JOB_FAIL);
		free(key);
		return;
	}
	rc = job_result_add(t->r, key, strlen(key), st, reason, reason ? strlen(reason) : 0, line);
	if (rc > 0) {
		t->full = 1;
	} else if (rc < 0 || !(row = job_index_add(t->paths, key))) {
		t->oom = 1;
	} else {
		*row = (long)t->r->n - 1;
	}
	free(key);
}

static void set_str(struct tprogs *t, char **dst, const char *s, size_t n)
{
	char *c = job_clean(s, n, JOB_REASON_MAX);

	if (!c) {
		t->oom = 1;
		return;
	}
	free(*dst);
	*dst = c;
}

/* "Summary: 395/3176 PASSED, 59 SKIPPED, 2 FAILED" (and the older
 * "Summary: 12 PASSED, 0 FAILED"); 1 when it was one */
static int summary(struct tprogs *t, const char *s, size_t n)
{
	static const char pre[] = "Summary: ";
	struct tprogs_summary x = { 1, 0, -1, -1, 0 };
	size_t i = sizeof(pre) - 1;

	if (n < i || memcmp(s, pre, i) || (x.passed = number(s, n, &i)) < 0)
		return 0;
	if (i < n && s[i] == '/') {
		i++;
		if ((x.subtests_passed = number(s, n, &i)) < 0)
			return 0;
	}
	if (n - i < 9 || memcmp(s + i, " PASSED, ", 9))
		return 0;
	i += 9;
	if ((x.failed = number(s, n, &i)) < 0)
		return 0;
	if (n - i >= 10 && !memcmp(s + i, " SKIPPED, ", 10)) {
		x.skipped = x.failed;
		i += 10;
		if ((x.failed = number(s, n, &i)) < 0)
			return 0;
	}
	if (n - i < 7 || memcmp(s + i, " FAILED", 7))
		return 0;
	*t->sum = x;
	return 1;
}

/* "#83/1   name/sub:FAIL", "#83      name:OK (SKIP: 3/5)"; 1 when it was one */
static int result_line(struct tprogs *t, const char *s, size_t n, size_t no)
{
	static const struct {
		const char *word;
		enum job_status st;
	} words[] = { { "OK", JOB_PASS }, { "FAIL", JOB_FAIL }, { "SKIP", JOB_SKIP } };
	size_t i = 1, ns, colon = 0, extra = 0, en;
	long num, sub = -1;
	enum job_status st = JOB_PASS;
	const char *reason = NULL;
	char *extra_s = NULL;
	int found = 0;

	if (!n || s[0] != '#' || (num = number(s, n, &i)) < 0)
		return 0;
	if (i < n && s[i] == '/') {
		i++;
		if ((sub = number(s, n, &i)) < 0)
			return 0;
	}
	if (i >= n || !blank(s[i]))
		return 0;
	while (i < n && blank(s[i]))
		i++;
	ns = i;
	/* the status is after the last ':' that is followed by one */
	for (size_t c = n; c-- > ns && !found;) {
		if (s[c] != ':')
			continue;
		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
			size_t wl = strlen(words[w].word);

			if (n - c - 1 >= wl && !memcmp(s + c + 1, words[w].word, wl) &&
			    (c + 1 + wl == n || blank(s[c + 1 + wl]))) {
				colon = c;
				st = words[w].st;
				extra = c + 1 + wl;
				found = 1;
				break;
			}
		}
	}
	if (!found || colon == ns)
		return 0;
	/* "OK (SKIP: 3/5)": some subtests skipped */
	while (extra < n && (blank(s[extra]) || s[extra] == '('))
		extra++;
	en = n;
	while (en > extra && (blank(s[en - 1]) || s[en - 1] == ')'))
		en--;
	if (en > extra) {
		set_str(t, &extra_s, s + extra, en - extra);
		reason = extra_s;
	}
	if (st == JOB_FAIL)
		reason = sub >= 0 || !t->test_fail ? t->last_fail : t->test_fail;
	if (sub >= 0) {
		const char *slash = memchr(s + ns, '/', colon - ns);

		if (t->pending != num) {
			t->pending = num;
			t->pending_line = no;
			if (slash)
				set_str(t, &t->pending_name, s + ns, (size_t)(slash - (s + ns)));
			else {
				free(t->pending_name);
				t->pending_name = NULL;
			}
		}
	} else if (t->pending == num) {
		t->pending = 0;
	}
	add(t, s + ns, colon - ns, st, reason, no);
	if (sub < 0) {
		free(t->test_fail);
		t->test_fail = NULL;
	}
	free(t->last_fail);
	t->last_fail = NULL;
	free(extra_s);
	return 1;
}

static void text_line(struct tprogs *t, const char *s, size_t n, size_t no)
{
	if (result_line(t, s, n, no) || summary(t, s, n))
		return;
	if (memmem(s, n, ":FAIL:", 6)) {
		set_str(t, &t->last_fail, s, n);
		if (!t->test_fail && t->last_fail && !(t->test_fail = strdup(t->last_fail)))
			t->oom = 1;
	}
}

static void tprogs_release(struct tprogs *t)
{
	job_index_free(t->paths);
	free(t->last_fail);
	free(t->test_fail);
	free(t->pending_name);
}

int tprogs_parse(const char *data, size_t len, struct job_results *r,
		 struct tprogs_summary *sum)
{
	struct tprogs_summary dummy;
	struct tprogs t;
	struct job_lines it;
	struct job_line l = { 0 };
	int rc = -1;

	memset(&t, 0, sizeof(t));
	t.r = r;
	t.sum = sum ? sum : &dummy;
	memset(t.sum, 0, sizeof(*t.sum));
	t.sum->subtests_passed = t.sum->skipped = -1;
	if (index_rows(&t) < 0)
		goto out;
	job_lines_init(&it, data, len);
	while (!t.full && !t.oom && job_lines_next(&it, &l))
		text_line(&t, l.s, l.n, l.no);
	if (t.oom)
		goto out;
	if (t.full) {
		if (job_note(&r->notes, l.no, "more than %zu results: the rest was not read",
			     r->max) < 0)
			goto out;
	} else if (!t.sum->present) {
		/* cut off: the test whose subtests we saw never finished */
		if (t.pending > 0 && t.pending_name)
			add(&t, t.pending_name, strlen(t.pending_name), JOB_MISSING,
			    "output ends before its result", t.pending_line);
		if (job_note(&r->notes, l.no, "no Summary line: the output is cut off or "
			     "test_progs did not finish") < 0)
			t.oom = 1;
	}
	rc = t.oom ? -1 : 0;
out:
	tprogs_release(&t);
	return rc;
}

/* ---- -J FILE ---- */

/* The reason in a test's log: its last "x:FAIL:why" line, else the first
 * line that says anything */
static char *log_reason(const char *m, size_t n)
{
	const char *first = NULL, *fail = NULL;
	size_t firstn = 0, failn = 0;
	struct job_lines it;
	struct job_line l;

	job_lines_init(&it, m, n);
	while (job_lines_next(&it, &l)) {
		size_t k = 0;

		while (k < l.n && blank(l.s[k]))
			k++;
		if (k == l.n)
			continue;
		if (!first) {
			first = l.s;
			firstn = l.n;
		}
		if (memmem(l.s, l.n, ":FAIL:", 6)) {
			fail = l.s;
			failn = l.n;
		}
	}
	if (fail)
		return job_clean(fail, failn, JOB_REASON_MAX);
	return first ? job_clean(first, firstn, JOB_REASON_MAX) : strdup("");
}

/* One failed test or subtest of the JSON; prefix is "test/" for subtests */
static void json_entry(struct tprogs *t, json_t *o, const char *prefix)
{
	json_t *name = json_object_get(o, "name"), *msg = json_object_get(o, "message");
	char path[JOB_PATH_MAX + 1];
	char *why;

	if (!json_is_true(json_object_get(o, "failed")) || !json_is_string(name))
		return;
	why = json_is_string(msg) ? log_reason(json_string_value(msg), json_string_length(msg))
				  : strdup("");
	if (!why) {
		t->oom = 1;
		return;
	}
	snprintf(path, sizeof(path), "%s%.*s", prefix, (int)(json_string_length(name) > JOB_NAME_MAX
		 ? JOB_NAME_MAX : json_string_length(name)), json_string_value(name));
	/* a NUL inside the name ends it here; job_clean makes the rest clean */
	add(t, path, strlen(path), JOB_FAIL, why, 0);
	free(why);
}

static long jint(json_t *root, const char *key, int *ok)
{
	json_t *v = json_object_get(root, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0) {
		*ok = 0;
		return -1;
	}
	return (long)json_integer_value(v);
}

int tprogs_parse_json(const char *data, size_t len, struct job_results *r,
		      struct tprogs_summary *sum)
{
	struct tprogs_summary dummy;
	struct tprogs t;
	json_error_t e;
	json_t *root = NULL, *results, *test;
	size_t i;
	int ok = 1, rc = -1;

	memset(&t, 0, sizeof(t));
	t.r = r;
	t.sum = sum ? sum : &dummy;
	memset(t.sum, 0, sizeof(*t.sum));
	t.sum->subtests_passed = t.sum->skipped = -1;
	root = json_loadb(data ? data : "", data ? len : 0, JSON_ALLOW_NUL, &e);
	if (!root) {
		job_note(&r->notes, (size_t)(e.line > 0 ? e.line : 0),
			 "not JSON: column %d: %s", e.column, e.text);
		goto out;
	}
	results = json_object_get(root, "results");
	if (!json_is_object(root) || !json_is_array(results)) {
		job_note(&r->notes, 1, "not test_progs -J JSON: no \"results\" array");
		goto out;
	}
	t.sum->passed = jint(root, "success", &ok);
	t.sum->subtests_passed = jint(root, "success_subtest", &ok);
	t.sum->skipped = jint(root, "skipped", &ok);
	t.sum->failed = jint(root, "failed", &ok);
	t.sum->present = ok;
	if (!ok && job_note(&r->notes, 1, "test_progs JSON without its counts") < 0)
		goto out;
	if (index_rows(&t) < 0)
		goto out;
	json_array_foreach(results, i, test) {
		json_t *name = json_object_get(test, "name"), *subs = json_object_get(test, "subtests");
		json_t *sub;
		size_t j;

		if (!json_is_object(test) || !json_is_string(name))
			continue;
		if (json_is_array(subs)) {
			char prefix[JOB_NAME_MAX + 2];

			snprintf(prefix, sizeof(prefix), "%.*s/", (int)(json_string_length(name) >
				 JOB_NAME_MAX ? JOB_NAME_MAX : json_string_length(name)),
				 json_string_value(name));
			json_array_foreach(subs, j, sub)
				if (json_is_object(sub))
					json_entry(&t, sub, prefix);
		}
		json_entry(&t, test, "");
		if (t.full || t.oom)
			break;
	}
	if (t.full && job_note(&r->notes, 0, "more than %zu results: the rest was not read",
			       r->max) < 0)
		t.oom = 1;
	rc = t.oom ? -1 : 0;
out:
	json_decref(root);
	tprogs_release(&t);
	return rc;
}
