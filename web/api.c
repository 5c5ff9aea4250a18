/* api.c: the JSON API under /api/ (health, the run list, one run with its
 * attempts, output, results and metric samples, submitting a run of a
 * command or a job, the job definitions). Reads come from this thread's
 * database connection and the daemon's read-only job set; POST /api/runs
 * checks the bearer token and hands the request to orch_submit(). Every
 * string put into JSON is valid UTF-8. */
#include "web/pages2.h"
#include "web/trend.h"
#include "web/web.h"
#include "web/webint.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "common/util.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"

/* db_run_results() counts in the order of enum job_status */
_Static_assert(JOB_STATUS_COUNT == 7, "db_run_results() gives 7 counts");

static int is_get(const char *method)
{
	return !strcmp(method, MHD_HTTP_METHOD_GET) || !strcmp(method, MHD_HTTP_METHOD_HEAD);
}

/* ---- JSON building ---- */

static json_t *jstr_n(const char *s, size_t n)
{
	struct buf b = BUF_INIT(0);
	json_t *j;

	web_utf8(&b, s, n);
	j = json_stringn(buf_str(&b), b.len);
	buf_release(&b);
	return j;
}

static json_t *jstr(const char *s)
{
	return s ? jstr_n(s, strlen(s)) : json_null();
}

static json_t *jtime(int64_t ms)
{
	return ms > 0 ? json_integer(ms) : json_null();
}

/* json_object_set_new that remembers a failure in *bad */
static void put(json_t *o, const char *key, json_t *v, int *bad)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		*bad = 1;
}

static json_t *run_json(const struct run *r)
{
	json_t *o = json_object(), *k, *g, *f;
	char path[96];
	int bad = 0;

	if (!o)
		return NULL;
	put(o, "id", json_integer(r->id), &bad);
	put(o, "state", json_string(run_state_name(r->state)), &bad);
	put(o, "outcome", r->outcome == RUN_OUT_NONE ? json_null()
	    : json_string(run_outcome_name(r->outcome)), &bad);
	put(o, "detail", jstr(r->detail), &bad);
	put(o, "splat", jstr(r->splat), &bad);
	k = json_object();
	if (k) {
		put(k, "id", json_integer(r->kernel_id), &bad);
		put(k, "path", jstr(r->kernel_path), &bad);
	}
	put(o, "kernel", k, &bad);
	put(o, "arch", jstr(r->arch), &bad);
	put(o, "vcpus", json_integer(r->vcpus), &bad);
	put(o, "memory_mb", json_integer(r->memory_mb), &bad);
	put(o, "timeout_s", json_integer(r->timeout_s), &bad);
	put(o, "command", jstr(r->command), &bad);
	put(o, "job", jstr(r->job), &bad);
	put(o, "attempt", json_integer(r->attempt), &bad);
	put(o, "max_attempts", json_integer(r->max_attempts), &bad);
	put(o, "host", jstr(r->host), &bad);
	put(o, "accel", jstr(r->accel), &bad);
	put(o, "machine", jstr(r->machine), &bad);
	put(o, "cpu_model", jstr(r->cpu_model), &bad);
	put(o, "qemu_version", jstr(r->qemu_version), &bad);
	put(o, "libvirt_version", jstr(r->libvirt_version), &bad);
	put(o, "domain", jstr(r->domain), &bad);
	put(o, "queued_at", jtime(r->queued_at), &bad);
	put(o, "started_at", jtime(r->started_at), &bad);
	put(o, "booted_at", jtime(r->booted_at), &bad);
	put(o, "ended_at", jtime(r->ended_at), &bad);
	put(o, "duration_ms", r->started_at > 0 && r->ended_at >= r->started_at
	    ? json_integer(r->ended_at - r->started_at) : json_null(), &bad);
	put(o, "exit_code", r->has_exit_code ? json_integer(r->exit_code) : json_null(), &bad);
	g = json_object();
	if (g) {
		put(g, "release", jstr(r->guest_release), &bad);
		put(g, "nproc", r->guest_nproc > 0 ? json_integer(r->guest_nproc) : json_null(), &bad);
		put(g, "mem_kb", r->guest_mem_kb > 0 ? json_integer(r->guest_mem_kb) : json_null(),
		    &bad);
	}
	put(o, "guest", g, &bad);
	put(o, "run_dir", jstr(r->run_dir), &bad);
	f = json_object();
	if (f) {
		snprintf(path, sizeof(path), "/runs/%lld/console", (long long)r->id);
		put(f, "console", json_string(path), &bad);
		snprintf(path, sizeof(path), "/runs/%lld/output", (long long)r->id);
		put(f, "output", json_string(path), &bad);
		snprintf(path, sizeof(path), "/runs/%lld/domain.xml", (long long)r->id);
		put(f, "xml", json_string(path), &bad);
	}
	put(o, "files", f, &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- GET /api/runs ---- */

static enum MHD_Result runs_list(struct web *w, struct MHD_Connection *c)
{
	const char *ls = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");
	const char *bs = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "before");
	int64_t counts[RUN_STATE_COUNT];
	long long limit = WEB_LIST_DEFAULT, before = 0;
	struct run *runs = NULL;
	size_t n = 0;
	json_t *o = NULL, *arr, *cj;
	enum MHD_Result rc;
	struct db *db;
	int bad = 0;

	if (ls && parse_int(ls, 1, LLONG_MAX, &limit) < 0)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "limit '%.64s': not a number from 1 to %d", ls, WEB_LIST_MAX);
	if (limit > WEB_LIST_MAX)
		limit = WEB_LIST_MAX;
	if (bs && parse_int(bs, 0, INT64_MAX, &before) < 0)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "before '%.64s': not a run id", bs);
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	if (db_run_list(db, (int)limit, before, &runs, &n) < 0 || db_run_counts(db, counts) < 0) {
		log_warn("web: run list: %s", db_errmsg(db));
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				     db_errmsg(db));
		goto out;
	}
	o = json_object();
	arr = json_array();
	cj = json_object();
	if (!o || !arr || !cj) {
		json_decref(o);
		json_decref(arr);
		json_decref(cj);
		rc = MHD_NO;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(arr, run_json(&runs[i])) < 0)
			bad = 1;
	for (int s = 0; s < RUN_STATE_COUNT; s++)
		put(cj, run_state_name((enum run_state)s), json_integer(counts[s]), &bad);
	put(o, "runs", arr, &bad);
	put(o, "counts", cj, &bad);
	if (bad) {
		json_decref(o);
		rc = MHD_NO;
		goto out;
	}
	rc = web_reply_json(c, MHD_HTTP_OK, o);
out:
	run_list_free(runs, n);
	return rc;
}

/* ---- GET /api/runs/ID ---- */

static json_t *attempts_json(struct db *db, int64_t id)
{
	struct attempt *a = NULL;
	size_t n = 0;
	json_t *arr;
	int bad = 0;

	if (db_attempt_list(db, id, &a, &n) < 0)
		return NULL;
	arr = json_array();
	for (size_t i = 0; arr && i < n; i++) {
		json_t *e = json_object();

		if (!e) {
			bad = 1;
			break;
		}
		put(e, "n", json_integer(a[i].n), &bad);
		put(e, "host", jstr(a[i].host), &bad);
		put(e, "started_at", jtime(a[i].started_at), &bad);
		put(e, "ended_at", jtime(a[i].ended_at), &bad);
		put(e, "outcome", a[i].outcome == RUN_OUT_NONE ? json_null()
		    : json_string(run_outcome_name(a[i].outcome)), &bad);
		put(e, "detail", jstr(a[i].detail), &bad);
		if (json_array_append_new(arr, e) < 0)
			bad = 1;
	}
	attempt_list_free(a, n);
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* {"counts": {"pass": N, ...}, "rows": [{path, status, detail}...],
 * "truncated": bool}: at most WEB_RESULTS_MAX rows, those that did not pass
 * first. NULL when the database or memory failed. */
static json_t *results_json(struct db *db, int64_t id)
{
	struct result_row *rows = NULL;
	int64_t counts[JOB_STATUS_COUNT], total = 0;
	size_t n = 0;
	json_t *o, *cj, *arr;
	int bad = 0;

	if (db_run_results(db, id, WEB_RESULTS_MAX, &rows, &n, counts) < 0)
		return NULL;
	o = json_object();
	cj = json_object();
	arr = json_array();
	if (!o || !cj || !arr) {
		json_decref(o);
		json_decref(cj);
		json_decref(arr);
		result_rows_free(rows, n);
		return NULL;
	}
	for (int i = 0; i < JOB_STATUS_COUNT; i++) {
		put(cj, job_status_name((enum job_status)i), json_integer(counts[i]), &bad);
		total += counts[i];
	}
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_object();

		if (!e) {
			bad = 1;
			break;
		}
		put(e, "path", jstr(rows[i].path), &bad);
		put(e, "status", jstr(rows[i].status), &bad);
		put(e, "detail", jstr(rows[i].detail), &bad);
		if (json_array_append_new(arr, e) < 0)
			bad = 1;
	}
	put(o, "counts", cj, &bad);
	put(o, "rows", arr, &bad);
	put(o, "truncated", json_boolean(total > (int64_t)n), &bad);
	result_rows_free(rows, n);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* [{metric, unit, value, seq}...] by metric and seq, at most
 * WEB_SAMPLES_MAX; *truncated set when there are more. NULL when the
 * database or memory failed. */
static json_t *samples_json(struct db *db, int64_t id, int *truncated)
{
	struct sample_row *rows = NULL;
	size_t n = 0, shown;
	json_t *arr;
	int bad = 0;

	/* one more than shown, to know whether there are more */
	if (db_run_samples(db, id, WEB_SAMPLES_MAX + 1, &rows, &n) < 0)
		return NULL;
	*truncated = n > WEB_SAMPLES_MAX;
	shown = *truncated ? WEB_SAMPLES_MAX : n;
	arr = json_array();
	for (size_t i = 0; arr && i < shown; i++) {
		json_t *e = json_object();

		if (!e) {
			bad = 1;
			break;
		}
		put(e, "metric", jstr(rows[i].metric), &bad);
		put(e, "unit", jstr(rows[i].unit), &bad);
		/* stored values are finite; JSON has no NaN or infinity anyway */
		put(e, "value", isfinite(rows[i].value) ? json_real(rows[i].value) : json_null(),
		    &bad);
		put(e, "seq", json_integer(rows[i].seq), &bad);
		if (json_array_append_new(arr, e) < 0)
			bad = 1;
	}
	sample_rows_free(rows, n);
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

static enum MHD_Result run_get(struct web *w, struct MHD_Connection *c, int64_t id)
{
	struct run r;
	struct buf out = BUF_INIT(0);
	json_t *o = NULL, *att, *res, *smp;
	enum MHD_Result rc;
	struct db *db;
	char *path = NULL;
	int found, bad = 0, have_output = 0, smp_truncated = 0;

	memset(&r, 0, sizeof(r));
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	found = db_run_get(db, id, &r);
	if (found < 0) {
		log_warn("web: run %lld: %s", (long long)id, db_errmsg(db));
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				     db_errmsg(db));
		goto out;
	}
	if (!found) {
		rc = web_reply_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no such run", (long long)id);
		goto out;
	}
	att = attempts_json(db, id);
	res = att ? results_json(db, id) : NULL;
	smp = res ? samples_json(db, id, &smp_truncated) : NULL;
	if (!smp) {
		log_warn("web: run %lld: %s", (long long)id, db_errmsg(db));
		json_decref(att);
		json_decref(res);
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				     db_errmsg(db));
		goto out;
	}
	o = run_json(&r);
	if (!o) {
		json_decref(att);
		json_decref(res);
		json_decref(smp);
		rc = MHD_NO;
		goto out;
	}
	put(o, "attempts", att, &bad);
	put(o, "results", res, &bad);
	put(o, "samples", smp, &bad);
	put(o, "samples_truncated", json_boolean(smp_truncated), &bad);
	put(o, "result_files", web_results_json(r.run_dir, id), &bad);
	if (r.run_dir) {
		path = path_join(r.run_dir, RUN_FILE_OUTPUT);
		if (path && read_file(path, &out, WEB_OUTPUT_MAX) == 0)
			have_output = 1;
		else if (path && errno != ENOENT)
			log_warn("web: run %lld: cannot read '%s': %s", (long long)id, path,
				 strerror(errno));
	}
	put(o, "output", have_output ? jstr_n(buf_str(&out), out.len) : json_null(), &bad);
	put(o, "output_truncated", json_boolean(have_output && out.truncated), &bad);
	if (bad) {
		json_decref(o);
		rc = MHD_NO;
		goto out;
	}
	rc = web_reply_json(c, MHD_HTTP_OK, o);
out:
	free(path);
	buf_release(&out);
	run_release(&r);
	return rc;
}

/* ---- POST /api/runs ---- */

/* 0 when the request carries the server's token, else -1 with *why set */
int web_check_token(struct web *w, struct MHD_Connection *c, const char **why)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						    MHD_HTTP_HEADER_AUTHORIZATION);
	char want[65], got[65];
	unsigned char diff = 0;

	if (!w->token[0]) {
		*why = "the server has no token configured";
		return -1;
	}
	if (!h || strncasecmp(h, "Bearer ", 7) != 0) {
		*why = "no 'Authorization: Bearer' header";
		return -1;
	}
	h += 7;
	while (*h == ' ')
		h++;
	/* comparing digests takes the same time whatever the tokens hold */
	sha256_mem(w->token, strlen(w->token), want);
	sha256_mem(h, strlen(h), got);
	for (int i = 0; i < 64; i++)
		diff |= (unsigned char)(want[i] ^ got[i]);
	if (diff) {
		*why = "the token does not match";
		return -1;
	}
	return 0;
}

/* Reads an optional positive int field (absent: 0, the configured default);
 * 0 / -1 with msg filled */
int web_field_int(json_t *body, const char *key, int *out, char *msg, size_t msglen)
{
	json_t *v = json_object_get(body, key);
	json_int_t n;

	*out = 0;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_integer(v)) {
		snprintf(msg, msglen, "field '%s': expected an integer", key);
		return -1;
	}
	n = json_integer_value(v);
	if (n < 1 || n > INT_MAX) {
		snprintf(msg, msglen, "field '%s': %lld is not from 1 to %d", key, (long long)n,
			 INT_MAX);
		return -1;
	}
	*out = (int)n;
	return 0;
}

int web_field_str(json_t *body, const char *key, int required, const char **out,
		  char *msg, size_t msglen)
{
	json_t *v = json_object_get(body, key);

	*out = NULL;
	if (!v || json_is_null(v)) {
		if (!required)
			return 0;
		snprintf(msg, msglen, "field '%s' is required", key);
		return -1;
	}
	if (!json_is_string(v)) {
		snprintf(msg, msglen, "field '%s': expected a string", key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

/* POST /api/runs, and POST /api/requests (request set): the same fields,
 * plus the patched kernel and the repeats of a request */
static enum MHD_Result runs_submit(struct web *w, struct MHD_Connection *c,
				   struct web_req *req, int request)
{
	static const char *const known[] = {
		"kernel", "arch", "vcpus", "memory_mb", "timeout_s", "command", "job",
		"topology", "numa_nodes", "patched", "repeat",
	};
	const size_t nknown = sizeof(known) / sizeof(known[0]) - (request ? 0 : 2);
	const char *patched = NULL;
	int repeat = 0;
	struct run_spec spec;
	json_error_t jerr;
	json_t *body = NULL;
	const char *why, *key;
	json_t *v;
	enum MHD_Result rc;
	char msg[256];
	char *err = NULL;
	int64_t id = 0;
	int r;

	if (web_check_token(w, c, &why) < 0)
		return web_reply_error(c, MHD_HTTP_UNAUTHORIZED, "missing or wrong token: %s", why);
	if (req->too_big)
		return web_reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
				       "request body: more than the %d bytes allowed", WEB_BODY_MAX);
	body = json_loadb(buf_str(&req->body), req->body.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!body)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "request body: line %d, column %d: %s",
				       jerr.line, jerr.column, jerr.text);
	if (!json_is_object(body)) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: expected a JSON object");
		goto out;
	}
	json_object_foreach(body, key, v) {
		size_t i;

		for (i = 0; i < nknown; i++)
			if (!strcmp(key, known[i]))
				break;
		if (i == nknown) {
			rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST,
					     "request body: unknown field '%.64s'", key);
			goto out;
		}
	}
	memset(&spec, 0, sizeof(spec));
	if (web_field_str(body, "kernel", 1, &spec.kernel, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "command", 0, &spec.command, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "job", 0, &spec.job, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "arch", 0, &spec.arch, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "vcpus", &spec.vcpus, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "memory_mb", &spec.memory_mb, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "timeout_s", &spec.timeout_s, msg, sizeof(msg)) < 0 ||
	    web_field_str(body, "topology", 0, &spec.topology, msg, sizeof(msg)) < 0 ||
	    web_field_int(body, "numa_nodes", &spec.numa_nodes, msg, sizeof(msg)) < 0 ||
	    (request && (web_field_str(body, "patched", 1, &patched, msg, sizeof(msg)) < 0 ||
			 web_field_int(body, "repeat", &repeat, msg, sizeof(msg)) < 0))) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
		goto out;
	}
	/* one of the two; orch_submit() refuses both */
	if (!spec.command && (!spec.job || !*spec.job)) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				     "request body: field 'command' or 'job' is required");
		goto out;
	}
	if (!spec.arch)
		spec.arch = "x86_64";
	if (!w->orch) {
		rc = web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "runs cannot be submitted here");
		goto out;
	}
	pthread_mutex_lock(&w->submit_lock);
	if (request)
		r = orch_submit_request(w->orch, &spec, patched, repeat ? repeat : 1, &id, &err);
	else
		r = orch_submit(w->orch, &spec, &id, &err);
	pthread_mutex_unlock(&w->submit_lock);
	if (r == -1) {
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "%s", err ? err : "bad request");
	} else if (r < 0) {
		log_error("web: submit: %s", err ? err : "internal error");
		rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "%s",
				     err ? err : "internal error");
	} else if (request) {
		rc = web_reply_json(c, MHD_HTTP_CREATED, json_pack("{s:I}", "id", (json_int_t)id));
	} else {
		if (spec.job)
			log_info("web: run %lld queued (job '%s', kernel '%s')", (long long)id,
				 spec.job, spec.kernel);
		else
			log_info("web: run %lld queued (kernel '%s')", (long long)id, spec.kernel);
		rc = web_reply_json(c, MHD_HTTP_CREATED, json_pack("{s:I}", "id", (json_int_t)id));
	}
out:
	free(err);
	json_decref(body);
	return rc;
}

/* ---- GET /api/jobs, /api/jobs/NAME ---- */

static json_t *strs_json(char *const *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, jstr(v[i])) < 0) {
			json_decref(arr);
			return NULL;
		}
	return arr;
}

/* 0 in a definition means the daemon's default: null */
static json_t *jdefault(int v)
{
	return v > 0 ? json_integer(v) : json_null();
}

static json_t *job_json(const struct job_def *d)
{
	json_t *o = json_object(), *ms;
	int bad = 0;

	if (!o)
		return NULL;
	put(o, "name", jstr(d->name), &bad);
	put(o, "description", jstr(d->description), &bad);
	put(o, "kind", jstr(d->kind), &bad);
	put(o, "command", jstr(d->command), &bad);
	put(o, "parser", jstr(d->parser), &bad);
	put(o, "programs", strs_json(d->programs, d->nprograms), &bad);
	put(o, "config", strs_json(d->config, d->nconfig), &bad);
	put(o, "rootfs", strs_json(d->rootfs, d->nrootfs), &bad);
	put(o, "image", jstr(d->image), &bad);
	put(o, "results", jstr(d->results), &bad);
	put(o, "selftests", jstr(d->selftests), &bad);
	put(o, "timeout_s", jdefault(d->timeout_s), &bad);
	put(o, "memory_mb", jdefault(d->memory_mb), &bad);
	put(o, "vcpus", jdefault(d->vcpus), &bad);
	ms = json_array();
	for (size_t i = 0; ms && i < d->nmetrics; i++) {
		json_t *m = json_object();

		if (!m) {
			bad = 1;
			break;
		}
		put(m, "name", jstr(d->metrics[i].name), &bad);
		put(m, "unit", jstr(d->metrics[i].unit), &bad);
		put(m, "better", json_string(d->metrics[i].higher_better ? "higher" : "lower"),
		    &bad);
		if (json_array_append_new(ms, m) < 0)
			bad = 1;
	}
	put(o, "metrics", ms, &bad);
	put(o, "file", jstr(d->file), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static enum MHD_Result jobs_list(struct web *w, struct MHD_Connection *c)
{
	const struct job_set *set = web_jobs(w);
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < set->n; i++)
		if (json_array_append_new(arr, job_json(set->v[i])) < 0) {
			json_decref(arr);
			return MHD_NO;
		}
	if (!arr)
		return MHD_NO;
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:o}", "jobs", arr));
}

static enum MHD_Result job_get(struct web *w, struct MHD_Connection *c, const char *name)
{
	const struct job_def *d = job_set_find(web_jobs(w), name);

	if (!d)
		return web_reply_error(c, MHD_HTTP_NOT_FOUND, "job '%.100s': no such job", name);
	return web_reply_json(c, MHD_HTTP_OK, job_json(d));
}

/* ---- routing ---- */

enum MHD_Result api_route(struct web *w, struct MHD_Connection *c, const char *method,
			  const char *url, struct web_req *req)
{
	const char *rest;
	int64_t id;

	if (!strcmp(url, "/api/health")) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:b}", "ok", 1));
	}
	if (!strcmp(url, "/api/runs")) {
		if (is_get(method))
			return runs_list(w, c);
		if (!strcmp(method, MHD_HTTP_METHOD_POST))
			return runs_submit(w, c, req, 0);
		return web_reply_method(c, "GET, HEAD, POST", 1);
	}
	if (!strcmp(url, "/api/requests")) {
		if (!strcmp(method, MHD_HTTP_METHOD_POST))
			return runs_submit(w, c, req, 1);
		return web_reply_method(c, "POST", 1);
	}
	if (!strncmp(url, "/api/requests/", 14) && web_parse_id(url + 14, &id, &rest) == 0 &&
	    !*rest) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return api_request(w, c, id);
	}
	if (!strncmp(url, "/api/runs/", 10) && web_parse_id(url + 10, &id, &rest) == 0 &&
	    !*rest) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return run_get(w, c, id);
	}
	if (!strcmp(url, "/api/jobs")) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return jobs_list(w, c);
	}
	if (!strncmp(url, "/api/jobs/", 10) && url[10]) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return job_get(w, c, url + 10);
	}
	if (!strcmp(url, "/api/queue") || !strcmp(url, "/api/hosts")) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return url[5] == 'q' ? api_queue(w, c) : api_hosts(w, c);
	}
	if (!strncmp(url, "/api/trees", 10) || !strncmp(url, "/api/submissions", 16) ||
	    !strncmp(url, "/api/builds", 11) || !strcmp(url, "/api/import"))
		return api_builds_route(w, c, method, url, req);
	if (!strcmp(url, "/api/trend")) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return api_trend(w, c);
	}
	if (!strcmp(url, "/api/compare")) {
		if (!is_get(method))
			return web_reply_method(c, "GET, HEAD", 1);
		return web_compare(w, c);
	}
	return web_reply_error(c, MHD_HTTP_NOT_FOUND, "'%.200s': no such path", url);
}
