// SPDX-License-Identifier: GPL-2.0-only
/* kcidb.c: kfleet's submissions, builds and runs as KCIDB report data
 * (kcidb.h), read through db/kcidb.h and built with jansson. A submission
 * gives a checkout of its base (id ORIGIN:TREE@BASE) and of its series
 * (ORIGIN:TREE@BASE+PATCHED); a build ORIGIN:build-ID; a run ORIGIN:run-ID,
 * its results ORIGIN:run-ID-result-ID and its metrics
 * ORIGIN:run-ID-metric-NAME. Nothing here depends on the clock or on files
 * that may go, so the ids of a second export are the same. */
#include "export/kcidb.h"

#include <ctype.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/hash.h"
#include "common/util.h"
#include "db/kcidb.h"

/* ---- the pieces ---- */

const char *kcidb_result_status(const char *s)
{
	static const char *const map[][2] = {
		{ "pass", "PASS" }, { "fail", "FAIL" }, { "skip", "SKIP" }, { "xfail", "PASS" },
		{ "error", "ERROR" }, { "timeout", "ERROR" }, { "missing", "MISS" },
	};

	for (size_t i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(s, map[i][0]))
			return map[i][1];
	return NULL;
}

const char *kcidb_run_status(const char *s)
{
	/* a kernel that crashed or did not boot is the tested code's fault
	 * (FAIL); a job that did not finish leaves the code's state unknown
	 * (ERROR); kfleet's own failures are the harness's (MISS) */
	static const char *const map[][2] = {
		{ "passed", "PASS" }, { "failed", "FAIL" }, { "crash", "FAIL" },
		{ "no-boot", "FAIL" }, { "timeout", "ERROR" }, { "console-flood", "ERROR" },
		{ "infra", "MISS" }, { "skipped", "SKIP" },
	};

	for (size_t i = 0; s && i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(s, map[i][0]))
			return map[i][1];
	return NULL;
}

int kcidb_time(int64_t ms, char *out, size_t n)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	char d[32];

	if (ms < 0 || !gmtime_r(&t, &tm) || !strftime(d, sizeof(d), "%Y-%m-%dT%H:%M:%S", &tm))
		return -1;
	return snprintf(out, n, "%s.%03d+00:00", d, (int)(ms % 1000)) < (int)n ? 0 : -1;
}

void kcidb_path_append(struct buf *out, const char *path)
{
	int fresh = 1;   /* at a component's start */

	for (const char *p = path ? path : ""; *p; p++) {
		if (*p == '/' || *p == '.') {
			fresh = 1;
			continue;
		}
		if (fresh && out->len && out->data[out->len - 1] != '.')
			buf_puts(out, ".");
		fresh = 0;
		buf_append(out, isalnum((unsigned char)*p) || *p == '_' || *p == '-' ? p : "_", 1);
	}
}

void kcidb_job_path(struct buf *out, const char *job)
{
	if (!job) {
		kcidb_path_append(out, "command");
	} else if (!strncmp(job, "kselftest-", 10) && job[10]) {
		kcidb_path_append(out, "kselftest");
		kcidb_path_append(out, job + 10);
	} else {
		kcidb_path_append(out, job);
	}
}

int kcidb_parse_since(const char *s, int64_t now, int64_t *ms, char *err, size_t n)
{
	struct tm tm;
	const char *end;
	long long x;
	size_t len = s ? strlen(s) : 0;

	if (len >= 2 && len <= 12 && strchr("smhd", s[len - 1])) {
		char num[16];
		static const int unit[] = { ['s' - 'a'] = 1, ['m' - 'a'] = 60, ['h' - 'a'] = 3600,
					    ['d' - 'a'] = 86400 };

		memcpy(num, s, len - 1);
		num[len - 1] = '\0';
		if (parse_int(num, 0, 100LL * 365 * 86400, &x) == 0) {
			*ms = now - x * unit[s[len - 1] - 'a'] * 1000;
			return 1;
		}
	}
	memset(&tm, 0, sizeof(tm));
	end = s && len <= 20 ? strptime(s, "%Y-%m-%d", &tm) : NULL;
	if (end && *end == 'T')
		end = strptime(end + 1, "%H:%M:%S", &tm);
	if (end && *end == 'Z')
		end++;
	if (!end || *end || tm.tm_year < 70) {
		snprintf(err, n, "since: '%.40s' is not a date (YYYY-MM-DD[THH:MM:SS], UTC) or a "
			 "time ago (30m, 12h, 7d)", s ? s : "");
		return -1;
	}
	*ms = (int64_t)timegm(&tm) * 1000;
	return 0;
}

/* The message at line (1-based) of the mbox, its "From " line included, up
 * to the next "From " line: the bytes of the patch file `git format-patch`
 * wrote it as (an mbox of them is their concatenation), so the hash is
 * what KCIDB's recipe, `sha256sum *.patch | cut -c-64 | sha256sum`, gives
 * on those files. 0 when the mbox has no such line */
static int message_at(const char *mbox, size_t len, long long line, const char **start,
		      size_t *mlen)
{
	size_t i = 0;

	for (long long l = 1; l < line && i < len; l++) {
		const char *nl = memchr(mbox + i, '\n', len - i);

		i = nl ? (size_t)(nl - mbox) + 1 : len;
	}
	if (i >= len || line < 1)
		return 0;
	*start = mbox + i;
	for (size_t j = i; j < len;) {
		const char *nl = memchr(mbox + j, '\n', len - j);

		if (j > i && len - j >= 5 && !memcmp(mbox + j, "From ", 5))
			break;
		j = nl ? (size_t)(nl - mbox) + 1 : len;
		*mlen = j - i;
	}
	return 1;
}

int kcidb_patchset_hash(const char *mbox, size_t len, const char *series_json, char out[65])
{
	json_t *j = series_json ? json_loads(series_json, 0, NULL) : NULL;
	json_t *patches = json_object_get(j, "patches"), *p;
	struct buf hashes = BUF_INIT(1 << 20);
	size_t count = json_array_size(patches), i;
	int rc = 0;

	/* by index, 1..count: patches is in that order as series_json() writes it */
	json_array_foreach(patches, i, p) {
		const char *m = NULL;
		size_t mlen = 0;
		char h[65];

		if (json_integer_value(json_object_get(p, "index")) != (json_int_t)i + 1 ||
		    !message_at(mbox, len, json_integer_value(json_object_get(p, "line")), &m, &mlen))
			goto out;
		sha256_mem(m, mlen, h);
		buf_printf(&hashes, "%s\n", h);
	}
	if (!count || !mbox)
		goto out;
	if (!hashes.data) {
		rc = -1;
		goto out;
	}
	sha256_mem(hashes.data, hashes.len, out);
	rc = 1;
out:
	buf_release(&hashes);
	json_decref(j);
	return rc;
}

/* ---- the report ---- */

struct ctx {
	const struct kcidb_opts *o;
	const char *origin;
	char pfx[96];              /* every id's start: "ORIGIN:INSTANCE" */
	json_t *checkouts, *builds, *tests;
	json_t *ids;               /* checkout ids given so far */
	int oom;
};

/* A JSON string of s: bytes that are not UTF-8 (a name from outside)
 * become '?' */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *c;

	if (j || !s)
		return j;
	if (!(c = strdup(s)))
		return NULL;
	for (unsigned char *p = (unsigned char *)c; *p; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j;
}

static void set(struct ctx *x, json_t *o, const char *key, json_t *v)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		x->oom = 1;
}

static void set_str(struct ctx *x, json_t *o, const char *key, const char *s)
{
	if (s)
		set(x, o, key, jstr(s));
}

static void set_fmt(struct ctx *x, json_t *o, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_fmt(struct ctx *x, json_t *o, const char *key, const char *fmt, ...)
{
	char s[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof(s), fmt, ap);
	va_end(ap);
	set_str(x, o, key, s);
}

static void set_time(struct ctx *x, json_t *o, const char *key, int64_t ms)
{
	char t[64];

	if (ms > 0 && kcidb_time(ms, t, sizeof(t)) == 0)
		set_str(x, o, key, t);
}

/* At most KCIDB_EXCERPT_MAX bytes of s, cut on a character boundary */
static void set_excerpt(struct ctx *x, json_t *o, const char *key, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char *c;

	if (!n)
		return;
	if (n <= KCIDB_EXCERPT_MAX) {
		set_str(x, o, key, s);
		return;
	}
	n = KCIDB_EXCERPT_MAX;
	while (n && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	if (!(c = strndup(s, n))) {
		x->oom = 1;
		return;
	}
	set_str(x, o, key, c);
	free(c);
}

/* A link to kfleet's page PATH, when the report has a link base */
static void set_link(struct ctx *x, json_t *o, const char *key, const char *fmt, int64_t id)
{
	char path[256];

	if (!x->o->link_base)
		return;
	snprintf(path, sizeof(path), fmt, (long long)id);
	set_fmt(x, o, key, "%s%s", x->o->link_base, path);
}

static int is_sha1(const char *s)
{
	return s && strlen(s) == 40 && strspn(s, "0123456789abcdef") == 40;
}

static int is_git_url(const char *u)
{
	return u && (!strncmp(u, "https://", 8) || !strncmp(u, "git://", 6)) && !strpbrk(u, " \t\n");
}

static void checkout_id(struct ctx *x, char *out, size_t n, const char *tree, const char *base,
			int series, const char *patched, int64_t submission_id)
{
	if (!series)
		snprintf(out, n, "%s:%s@%s", x->pfx, tree, base);
	else if (patched)
		snprintf(out, n, "%s:%s@%s+%s", x->pfx, tree, base, patched);
	else
		snprintf(out, n, "%s:%s@%s+submission-%lld", x->pfx, tree, base,
			 (long long)submission_id);
}

/* The message-id of the series' cover letter, else of its first patch */
static const char *series_msgid(json_t *sj)
{
	const char *m = json_string_value(json_object_get(json_object_get(sj, "cover"),
							  "message_id"));

	if (!m || !*m)
		m = json_string_value(json_object_get(json_array_get(json_object_get(sj, "patches"),
								     0), "message_id"));
	return m && strchr(m, '@') && !strpbrk(m, " <>") ? m : NULL;
}

static void add_checkout(struct ctx *x, const struct dbk_checkout *c, int series)
{
	char id[512];
	json_t *o, *misc;

	checkout_id(x, id, sizeof(id), c->tree, c->base_commit, series, c->patched_commit, c->id);
	if (json_object_get(x->ids, id))
		return;
	o = json_object();
	misc = json_object();
	if (!o || !misc || json_array_append_new(x->checkouts, o) < 0 ||
	    json_object_set_new(x->ids, id, json_true()) < 0) {
		json_decref(misc);
		x->oom = 1;
		return;
	}
	set_str(x, o, "id", id);
	set_str(x, o, "origin", x->origin);
	set_str(x, o, "tree_name", c->tree);
	if (is_git_url(c->tree_url))
		set_str(x, o, "git_repository_url", c->tree_url);
	else
		set_str(x, misc, "git_repository", c->tree_url);
	if (is_sha1(c->base_commit))
		set_str(x, o, "git_commit_hash", c->base_commit);
	else
		set_str(x, misc, "base_commit", c->base_commit);
	set_str(x, o, "git_repository_branch", c->tree_branch);
	set_time(x, o, "start_time", c->started_at ? c->started_at : c->created_at);
	/* plain text: the base, why, and git am's output (KCIDB: "e.g. git am output") */
	set_link(x, o, "log_url", "/submissions/%lld/log", c->id);
	set(x, misc, "submission", json_integer(c->id));
	if (!series) {
		set_str(x, o, "patchset_hash", "");
		set_fmt(x, o, "comment", "%s at %.12s", c->tree, c->base_commit);
		set(x, o, "valid", json_true());
	} else {
		json_t *sj = c->series_json ? json_loads(c->series_json, 0, NULL) : NULL;
		struct buf mbox = BUF_INIT(64 << 20);
		char h[65];
		int applied = c->patched_commit != NULL;

		if (c->mbox_path && read_file(c->mbox_path, &mbox, 64 << 20) == 0 &&
		    kcidb_patchset_hash(mbox.data, mbox.len, c->series_json, h) == 1)
			set_str(x, o, "patchset_hash", h);
		buf_release(&mbox);
		set_str(x, o, "message_id", series_msgid(sj));
		set_str(x, o, "comment", c->series_subject ? c->series_subject : c->series_name);
		/* canceled before it was applied: nothing is known of it */
		if (applied || !c->outcome || strcmp(c->outcome, "canceled"))
			set(x, o, "valid", json_boolean(applied));
		if (!applied && c->outcome && !strcmp(c->outcome, "does-not-apply"))
			set_excerpt(x, o, "log_excerpt", c->detail);
		set_str(x, misc, "patched_commit", c->patched_commit);
		set(x, misc, "patches", json_integer(json_array_size(json_object_get(sj, "patches"))));
		json_decref(sj);
	}
	set(x, o, "misc", misc);
}

static void add_build(struct ctx *x, const struct dbk_build *b)
{
	char id[512];
	json_t *o = json_object(), *misc = json_object();
	int patched = b->side && !strcmp(b->side, "patched");

	if (!o || !misc || json_array_append_new(x->builds, o) < 0) {
		json_decref(misc);
		x->oom = 1;
		return;
	}
	checkout_id(x, id, sizeof(id), b->tree, b->base_commit, patched, b->patched_commit,
		    b->submission_id);
	set_str(x, o, "checkout_id", id);
	set_fmt(x, o, "id", "%s:build-%lld", x->pfx, (long long)b->id);
	set_str(x, o, "origin", x->origin);
	set_time(x, o, "start_time", b->started_at);
	if (b->ms > 0)
		set(x, o, "duration", json_real((double)b->ms / 1000));
	set_str(x, o, "architecture", b->arch);
	set_str(x, o, "compiler", b->toolchain);
	if (b->fragments && *b->fragments)
		set_fmt(x, o, "config_name", "%s+%s", b->config, b->fragments);
	else
		set_str(x, o, "config_name", b->config);
	set_link(x, o, "log_url", "/builds/%lld/log", b->id);
	set(x, o, "valid", json_boolean(!strcmp(b->state, "done")));
	if (strcmp(b->state, "done"))
		set_excerpt(x, o, "log_excerpt", b->errors && *b->errors ? b->errors : b->detail);
	set(x, misc, "build", json_integer(b->id));
	set(x, misc, "submission", json_integer(b->submission_id));
	set_str(x, misc, "side", b->side);
	set_str(x, misc, "commit", b->commit_id);
	set_str(x, misc, "config_hash", b->config_hash);
	set_str(x, misc, "release", b->release);
	set(x, o, "misc", misc);
}

/* The environment of a run: where and on what it ran */
static json_t *environment(struct ctx *x, const struct dbk_run *r)
{
	json_t *e = json_object(), *misc = json_object();
	char c[512];

	if (!e || !misc) {
		json_decref(e);
		json_decref(misc);
		x->oom = 1;
		return NULL;
	}
	snprintf(c, sizeof(c), "%s guest, %lld vCPUs, %lld MiB, %s on host %s", r->arch,
		 (long long)r->vcpus, (long long)r->memory_mb, r->accel ? r->accel : "?",
		 r->host ? r->host : "?");
	set_str(x, e, "comment", c);
	set_str(x, misc, "host", r->host);
	set_str(x, misc, "arch", r->arch);
	set(x, misc, "vcpus", json_integer(r->vcpus));
	set(x, misc, "memory_mb", json_integer(r->memory_mb));
	set_str(x, misc, "accel", r->accel);
	set_str(x, misc, "machine", r->machine);
	set_str(x, misc, "cpu_model", r->cpu_model);
	set_str(x, misc, "qemu_version", r->qemu_version);
	set_str(x, misc, "topology", r->topology);
	set(x, misc, "numa_nodes", json_integer(r->numa_nodes));
	set(x, e, "misc", misc);
	return e;
}

/* A test object with what every test of run r has; NULL when out of memory */
static json_t *test_new(struct ctx *x, const struct dbk_run *r, const char *id,
			const char *path, const char *status)
{
	json_t *t = json_object();

	if (!t || json_array_append_new(x->tests, t) < 0) {
		x->oom = 1;
		return NULL;
	}
	set_fmt(x, t, "build_id", "%s:build-%lld", x->pfx, (long long)r->build_id);
	set_str(x, t, "id", id);
	set_str(x, t, "origin", x->origin);
	set_str(x, t, "path", path);
	set_str(x, t, "status", status);
	set(x, t, "environment", environment(x, r));
	set_link(x, t, "log_url", "/runs/%lld/output", r->id);
	return t;
}

static void add_run(struct ctx *x, const struct dbk_run *r)
{
	struct buf path = BUF_INIT(4096);
	const char *st = kcidb_run_status(r->outcome);
	char id[128];
	json_t *t, *misc;

	if (!st)
		return;
	snprintf(id, sizeof(id), "%s:run-%lld", x->pfx, (long long)r->id);
	kcidb_job_path(&path, r->job);
	t = test_new(x, r, id, path.data ? path.data : "", st);
	buf_release(&path);
	if (!t)
		return;
	set_time(x, t, "start_time", r->started_at);
	if (r->started_at && r->ended_at >= r->started_at)
		set(x, t, "duration", json_real((double)(r->ended_at - r->started_at) / 1000));
	if (strcmp(st, "PASS"))
		set_excerpt(x, t, "log_excerpt", r->detail);
	if (x->o->link_base) {
		json_t *files = json_array(), *f = json_object();
		char u[512];

		if (!files || !f || json_array_append_new(files, f) < 0) {
			json_decref(files);
			x->oom = 1;
		} else {
			snprintf(u, sizeof(u), "%s/runs/%lld/console", x->o->link_base, (long long)r->id);
			set_str(x, f, "name", "console.log");
			set_str(x, f, "url", u);
			set(x, t, "output_files", files);
		}
	}
	if (!(misc = json_object())) {
		x->oom = 1;
		return;
	}
	set(x, misc, "run", json_integer(r->id));
	set_str(x, misc, "outcome", r->outcome);
	set_str(x, misc, "job", r->job);
	if (!r->job)
		set_str(x, misc, "command", r->command);
	set_str(x, misc, "guest_release", r->guest_release);
	set_link(x, misc, "page", "/runs/%lld", r->id);
	set(x, t, "misc", misc);
}

static void add_result(struct ctx *x, const struct dbk_run *r, const struct dbk_result *res)
{
	struct buf path = BUF_INIT(8192);
	const char *st = kcidb_result_status(res->status);
	char id[128];
	json_t *t, *misc;

	if (!st)
		return;
	snprintf(id, sizeof(id), "%s:run-%lld-result-%lld", x->pfx, (long long)r->id,
		 (long long)res->id);
	kcidb_job_path(&path, r->job);
	kcidb_path_append(&path, res->path);
	t = test_new(x, r, id, path.data ? path.data : "", st);
	buf_release(&path);
	if (!t)
		return;
	set_time(x, t, "start_time", r->started_at);
	if (res->duration_ms >= 0)
		set(x, t, "duration", json_real((double)res->duration_ms / 1000));
	if (strcmp(st, "PASS"))
		set_excerpt(x, t, "log_excerpt", res->detail);
	if (!(misc = json_object())) {
		x->oom = 1;
		return;
	}
	set(x, misc, "run", json_integer(r->id));
	set_str(x, misc, "kfleet_path", res->path);
	set_str(x, misc, "kfleet_status", res->status);
	set(x, t, "misc", misc);
}

static void add_metric(struct ctx *x, const struct dbk_run *r, const struct dbk_metric *m)
{
	struct buf path = BUF_INIT(8192);
	json_t *t, *num, *misc;
	char id[512];

	snprintf(id, sizeof(id), "%s:run-%lld-metric-%s", x->pfx, (long long)r->id, m->metric);
	kcidb_job_path(&path, r->job);
	kcidb_path_append(&path, "metrics");
	kcidb_path_append(&path, m->metric);
	t = test_new(x, r, id, path.data ? path.data : "", "DONE");
	buf_release(&path);
	if (!t)
		return;
	set_time(x, t, "start_time", r->started_at);
	num = json_object();
	misc = json_object();
	if (!num || !misc) {
		json_decref(num);
		json_decref(misc);
		x->oom = 1;
		return;
	}
	set(x, num, "value", json_real(m->median));
	set_str(x, num, "unit", m->unit);
	set(x, t, "number", num);
	set(x, misc, "run", json_integer(r->id));
	set_str(x, misc, "metric", m->metric);
	set(x, misc, "samples", json_integer(m->n));
	set_str(x, misc, "value_is", "the median of the run's samples");
	set(x, t, "misc", misc);
}

/* The rows read for one export */
struct rows {
	struct dbk_checkout *c;
	struct dbk_build *b;
	struct dbk_run *r;
	struct dbk_result *res;
	struct dbk_metric *m;
	size_t nc, nb, nr, nres, nm;
};

static void rows_release(struct rows *w)
{
	db_rows_free(dbk_checkout_fields, w->c, sizeof(*w->c), w->nc);
	db_rows_free(dbk_build_fields, w->b, sizeof(*w->b), w->nb);
	db_rows_free(dbk_run_fields, w->r, sizeof(*w->r), w->nr);
	db_rows_free(dbk_result_fields, w->res, sizeof(*w->res), w->nres);
	dbk_metrics_free(w->m, w->nm);
}

static int rows_read(struct db *db, const struct dbk_scope *s, struct rows *w, char *err,
		     size_t n)
{
	int t[5] = { 0 };

	memset(w, 0, sizeof(*w));
	if (dbk_checkouts(db, s, &w->c, &w->nc, &t[0]) < 0 ||
	    dbk_builds(db, s, &w->b, &w->nb, &t[1]) < 0 || dbk_runs(db, s, &w->r, &w->nr, &t[2]) < 0 ||
	    dbk_results(db, s, &w->res, &w->nres, &t[3]) < 0 ||
	    dbk_metrics(db, s, &w->m, &w->nm, &t[4]) < 0) {
		snprintf(err, n, "database: %s", db_errmsg(db));
		return -1;
	}
	for (int i = 0; i < 5; i++)
		if (t[i]) {
			static const char *const what[] = { "submissions", "builds", "runs", "results",
							    "metrics" };

			snprintf(err, n, "more than %d %s in the export: ask for less (a later since)",
				 DBK_ROWS_MAX, what[i]);
			return -1;
		}
	return 0;
}

json_t *kcidb_export(struct db *db, const struct kcidb_opts *o, char *err, size_t n)
{
	struct dbk_scope s = { o->since_ms, o->submission_id };
	struct ctx x = { o, o->origin ? o->origin : KCIDB_ORIGIN_DEFAULT, "", NULL, NULL, NULL,
			 NULL, 0 };
	struct rows w;
	json_t *rep = NULL, *ver;
	size_t ri = 0, mi = 0;

	if (!kcidb_origin_ok(x.origin)) {
		snprintf(err, n, "origin '%.80s' is not 1 to 64 of a-z 0-9 _", x.origin);
		return NULL;
	}
	/* the database's own random id after the origin: row ids start at 1
	 * again in a new state directory, and two installs share "kfleet" */
	snprintf(x.pfx, sizeof(x.pfx), "%s:%s", x.origin, db_instance(db));
	if (rows_read(db, &s, &w, err, n) < 0)
		goto out;
	x.checkouts = json_array();
	x.builds = json_array();
	x.tests = json_array();
	x.ids = json_object();
	rep = json_object();
	ver = json_pack("{s:i, s:i}", "major", KCIDB_MAJOR, "minor", KCIDB_MINOR);
	if (!x.checkouts || !x.builds || !x.tests || !x.ids || !rep || !ver ||
	    json_object_set_new(rep, "version", ver) < 0)
		x.oom = 1;
	for (size_t i = 0; !x.oom && i < w.nc; i++) {
		add_checkout(&x, &w.c[i], 0);
		if (w.c[i].series_name)
			add_checkout(&x, &w.c[i], 1);
	}
	for (size_t i = 0; !x.oom && i < w.nb; i++)
		add_build(&x, &w.b[i]);
	/* runs by id; their results and metrics by run id */
	for (size_t i = 0; !x.oom && i < w.nr; i++) {
		add_run(&x, &w.r[i]);
		for (; ri < w.nres && w.res[ri].run_id <= w.r[i].id; ri++)
			if (w.res[ri].run_id == w.r[i].id && kcidb_run_status(w.r[i].outcome))
				add_result(&x, &w.r[i], &w.res[ri]);
		for (; mi < w.nm && w.m[mi].run_id <= w.r[i].id; mi++)
			if (w.m[mi].run_id == w.r[i].id && kcidb_run_status(w.r[i].outcome))
				add_metric(&x, &w.r[i], &w.m[mi]);
	}
	if (x.oom || json_object_set(rep, "checkouts", x.checkouts) < 0 ||
	    json_object_set(rep, "builds", x.builds) < 0 ||
	    json_object_set(rep, "tests", x.tests) < 0) {
		snprintf(err, n, "out of memory");
		json_decref(rep);
		rep = NULL;
	}
out:
	rows_release(&w);
	json_decref(x.checkouts);
	json_decref(x.builds);
	json_decref(x.tests);
	json_decref(x.ids);
	return rep;
}
