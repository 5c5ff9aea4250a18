// SPDX-License-Identifier: GPL-2.0-only
/* api.c: the JSON API under /api/ (health, the run list, one run with its
 * attempts, output, results and metric samples, submitting a run of a
 * command or a job, the job definitions with their noise). Reads come from
 * this thread's database connection and the daemon's read-only job set;
 * POST /api/runs
 * checks the bearer token and hands the request to orch_submit(). Every
 * string put into JSON is valid UTF-8. */
#include "web/cache.h"
#include "web/calib.h"
#include "web/handlers.h"
#include "web/reply.h"
#include "web/results.h"
#include "web/runparts.h"
#include "web/server.h"
#include "web/storage.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "jobs/jobs.h"
#include "orchestrator/orchestrator.h"

/* db_run_results() counts in the order of enum job_status */
_Static_assert(JOB_STATUS_COUNT == 7, "db_run_results() gives 7 counts");

/* ---- JSON building ---- */

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
	put(o, "detail", web_json_str(r->detail), &bad);
	put(o, "splat", web_json_str(r->splat), &bad);
	k = json_object();
	if (k) {
		put(k, "id", json_integer(r->kernel_id), &bad);
		put(k, "path", web_json_str(r->kernel_path), &bad);
	}
	put(o, "kernel", k, &bad);
	put(o, "arch", web_json_str(r->arch), &bad);
	put(o, "vcpus", json_integer(r->vcpus), &bad);
	put(o, "memory_mb", json_integer(r->memory_mb), &bad);
	put(o, "timeout_s", json_integer(r->timeout_s), &bad);
	put(o, "command", web_json_str(r->command), &bad);
	put(o, "job", web_json_str(r->job), &bad);
	put(o, "attempt", json_integer(r->attempt), &bad);
	put(o, "max_attempts", json_integer(r->max_attempts), &bad);
	put(o, "host", web_json_str(r->host), &bad);
	put(o, "accel", web_json_str(r->accel), &bad);
	put(o, "machine", web_json_str(r->machine), &bad);
	put(o, "cpu_model", web_json_str(r->cpu_model), &bad);
	put(o, "boot", web_json_str(r->boot), &bad);
	put(o, "qemu_version", web_json_str(r->qemu_version), &bad);
	put(o, "libvirt_version", web_json_str(r->libvirt_version), &bad);
	put(o, "domain", web_json_str(r->domain), &bad);
	put(o, "queued_at", web_json_time(r->queued_at), &bad);
	put(o, "started_at", web_json_time(r->started_at), &bad);
	put(o, "booted_at", web_json_time(r->booted_at), &bad);
	put(o, "ended_at", web_json_time(r->ended_at), &bad);
	put(o, "duration_ms", r->started_at > 0 && r->ended_at >= r->started_at
	    ? json_integer(r->ended_at - r->started_at) : json_null(), &bad);
	put(o, "exit_code", r->has_exit_code ? json_integer(r->exit_code) : json_null(), &bad);
	g = json_object();
	if (g) {
		put(g, "release", web_json_str(r->guest_release), &bad);
		put(g, "nproc", r->guest_nproc > 0 ? json_integer(r->guest_nproc) : json_null(), &bad);
		put(g, "mem_kb", r->guest_mem_kb > 0 ? json_integer(r->guest_mem_kb) : json_null(),
		    &bad);
	}
	put(o, "guest", g, &bad);
	put(o, "run_dir", web_json_str(r->run_dir), &bad);
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

/* ---- GET /api/health ---- */

WEB_HANDLER(api_health)
{
	return web_reply_json(c, MHD_HTTP_OK, json_pack("{s:b}", "ok", 1));
}

/* ---- GET /api/runs ---- */

WEB_HANDLER(api_runs_list)
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
		put(e, "host", web_json_str(a[i].host), &bad);
		put(e, "started_at", web_json_time(a[i].started_at), &bad);
		put(e, "ended_at", web_json_time(a[i].ended_at), &bad);
		put(e, "outcome", a[i].outcome == RUN_OUT_NONE ? json_null()
		    : json_string(run_outcome_name(a[i].outcome)), &bad);
		put(e, "detail", web_json_str(a[i].detail), &bad);
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
 * "truncated": bool, "next": the next page's path or null}: at most
 * WEB_RESULTS_MAX rows, those that did not pass first (the rest from
 * /api/runs/ID/results). NULL when the database or memory failed. */
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
	arr = web_result_rows_json(rows, n);
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
	put(o, "counts", cj, &bad);
	put(o, "rows", arr, &bad);
	put(o, "truncated", json_boolean(total > (int64_t)n), &bad);
	put(o, "next", web_run_page_next(id, "results", 0, n, total), &bad);
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
	arr = web_sample_rows_json(rows, shown);
	if (!arr)
		bad = 1;
	sample_rows_free(rows, n);
	if (bad) {
		json_decref(arr);
		return NULL;
	}
	return arr;
}

/* Looks a done run's answer up in the cache, under a key (into key; left
 * alone for a run not done) that changes when the run runs again (its
 * attempt), ends again or has files pruned. 1 when out holds the answer */
static int run_cached(struct web *w, const struct run *r, int64_t id,
		      const struct db_pruned *pr, size_t npr, char *key, size_t len,
		      struct buf *out)
{
	const char *ctype;

	if (r->state != RUN_DONE)
		return 0;
	snprintf(key, len, "run/%lld/%d/%lld/%zu/%lld", (long long)id, r->attempt,
		 (long long)r->ended_at, npr, npr ? (long long)pr[npr - 1].id : 0LL);
	return web_cache_get(w, key, out, &ctype);
}

/* A run's attempts, results and samples: 0, or -1 when the database
 * failed (logged, nothing to free) */
static int run_parts_json(struct db *db, int64_t id, json_t **att, json_t **res,
			  json_t **smp, int *smp_truncated)
{
	*att = attempts_json(db, id);
	*res = *att ? results_json(db, id) : NULL;
	*smp = *res ? samples_json(db, id, smp_truncated) : NULL;
	if (*smp)
		return 0;
	log_warn("web: run %lld: %s", (long long)id, db_errmsg(db));
	json_decref(*att);
	json_decref(*res);
	return -1;
}

/* The run's output file, at most WEB_OUTPUT_MAX of it, into out: 1 read,
 * 0 none (not there, or it could not be read: logged) */
static int run_output_read(const struct run *r, int64_t id, struct buf *out)
{
	char *path;
	int have_output = 0;

	if (!r->run_dir)
		return 0;
	path = path_join(r->run_dir, RUN_FILE_OUTPUT);
	if (path && read_file(path, out, WEB_OUTPUT_MAX) == 0)
		have_output = 1;
	else if (path && errno != ENOENT)
		log_warn("web: run %lld: cannot read '%s': %s", (long long)id, path,
			 strerror(errno));
	free(path);
	return have_output;
}

WEB_HANDLER(api_run)
{
	int64_t id = arg->id;
	struct run r;
	struct buf out = BUF_INIT(0);
	json_t *o = NULL, *att, *res, *smp;
	struct db_pruned *pr = NULL;
	size_t npr = 0;
	enum MHD_Result rc;
	struct db *db;
	char *js = NULL, key[96] = "";
	int found, bad = 0, have_output, smp_truncated = 0;

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
	if (db_pruned_list(db, id, WEB_PRUNED_MAX, &pr, &npr) < 0)
		log_warn("web: run %lld: pruned files: %s", (long long)id, db_errmsg(db));
	/* a done run's answer is kept, so that a run shared with many is
	 * read once */
	if (run_cached(w, &r, id, pr, npr, key, sizeof(key), &out)) {
		rc = web_reply(c, MHD_HTTP_OK, "application/json", &out);
		goto out;
	}
	if (run_parts_json(db, id, &att, &res, &smp, &smp_truncated) < 0) {
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
	put(o, "neighbours", web_run_neighbours_json(db, id), &bad);
	put(o, "samples", smp, &bad);
	put(o, "samples_truncated", json_boolean(smp_truncated), &bad);
	put(o, "samples_next", smp_truncated ? web_run_page_next(id, "samples", 0,
								  WEB_SAMPLES_MAX,
								  WEB_SAMPLES_MAX + 1) :
	    json_null(), &bad);
	put(o, "result_files", web_results_json(r.run_dir, id), &bad);
	put(o, "pruned", web_pruned_json(pr, npr), &bad);
	have_output = run_output_read(&r, id, &out);
	put(o, "output", have_output ? web_json_strn(buf_str(&out), out.len) : json_null(), &bad);
	put(o, "output_truncated", json_boolean(have_output && out.truncated), &bad);
	js = bad ? NULL : json_dumps(o, JSON_COMPACT);
	json_decref(o);
	buf_reset(&out);
	if (!js || buf_puts(&out, js) < 0 || buf_puts(&out, "\n") < 0) {
		rc = MHD_NO;
		goto out;
	}
	if (*key)
		web_cache_put(w, key, buf_str(&out), out.len, "application/json");
	rc = web_reply(c, MHD_HTTP_OK, "application/json", &out);
out:
	db_rows_free(db_pruned_fields, pr, sizeof(*pr), npr);
	free(js);
	buf_release(&out);
	run_release(&r);
	return rc;
}

/* ---- POST /api/runs ---- */

/* A submission as POST /api/runs and POST /api/requests give it: the
 * patched kernel, the repeats and the until-decided mode are a request's */
struct submit {
	struct run_spec spec;
	const char *patched;
	int repeat, until_decided, max_runs;
	double margin;
};

/* The fields of body into s, strings borrowed from body; a request's
 * (request set) too. 0, or -1 with what is wrong in msg */
static int submit_parse(json_t *body, int request, struct submit *s, char *msg, size_t len)
{
	static const char *const known[] = {
		"kernel", "arch", "vcpus", "memory_mb", "timeout_s", "command", "job",
		"topology", "numa_nodes", "patched", "repeat", "until_decided", "max_runs", "margin",
	};
	const size_t nknown = sizeof(known) / sizeof(known[0]) - (request ? 0 : 5);
	struct run_spec *spec = &s->spec;
	const char *key;
	json_t *v;

	if (!json_is_object(body)) {
		snprintf(msg, len, "expected a JSON object");
		return -1;
	}
	json_object_foreach(body, key, v) {
		size_t i;

		for (i = 0; i < nknown; i++)
			if (!strcmp(key, known[i]))
				break;
		if (i == nknown) {
			snprintf(msg, len, "unknown field '%.64s'", key);
			return -1;
		}
	}
	memset(s, 0, sizeof(*s));
	if (web_field_str(body, "kernel", 1, &spec->kernel, msg, len) < 0 ||
	    web_field_str(body, "command", 0, &spec->command, msg, len) < 0 ||
	    web_field_str(body, "job", 0, &spec->job, msg, len) < 0 ||
	    web_field_str(body, "arch", 0, &spec->arch, msg, len) < 0 ||
	    web_field_int(body, "vcpus", &spec->vcpus, msg, len) < 0 ||
	    web_field_int(body, "memory_mb", &spec->memory_mb, msg, len) < 0 ||
	    web_field_int(body, "timeout_s", &spec->timeout_s, msg, len) < 0 ||
	    web_field_str(body, "topology", 0, &spec->topology, msg, len) < 0 ||
	    web_field_int(body, "numa_nodes", &spec->numa_nodes, msg, len) < 0 ||
	    (request && (web_field_str(body, "patched", 1, &s->patched, msg, len) < 0 ||
			 web_field_int(body, "repeat", &s->repeat, msg, len) < 0 ||
			 web_field_decided(body, &s->until_decided, &s->max_runs, &s->margin,
					   msg, len) < 0)))
		return -1;
	/* one of the two; orch_submit() refuses both */
	if (!spec->command && (!spec->job || !*spec->job)) {
		snprintf(msg, len, "field 'command' or 'job' is required");
		return -1;
	}
	if (!spec->arch)
		spec->arch = "x86_64";
	return 0;
}

/* Hands s to the orchestrator, as a run or a request (request set), and
 * answers with the new id or why not */
static enum MHD_Result submit_answer(struct web *w, struct MHD_Connection *c,
				     const struct submit *s, int request)
{
	const struct run_spec *spec = &s->spec;
	enum MHD_Result rc;
	char *err = NULL;
	int64_t id = 0;
	int r;

	if (!w->orch)
		return web_reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE,
				       "runs cannot be submitted here");
	pthread_mutex_lock(&w->submit_lock);
	if (request)
		r = orch_submit_request_mode(w->orch, spec, s->patched,
					     s->repeat ? s->repeat : 1, s->until_decided,
					     s->max_runs, s->margin, &id, &err);
	else
		r = orch_submit(w->orch, spec, &id, &err);
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
		if (spec->job)
			log_info("web: run %lld queued (job '%s', kernel '%s')", (long long)id,
				 spec->job, spec->kernel);
		else
			log_info("web: run %lld queued (kernel '%s')", (long long)id, spec->kernel);
		rc = web_reply_json(c, MHD_HTTP_CREATED, json_pack("{s:I}", "id", (json_int_t)id));
	}
	free(err);
	return rc;
}

/* POST /api/runs, and POST /api/requests (request set): the same fields,
 * plus the patched kernel, the repeats and the until-decided mode of a
 * request */
static enum MHD_Result runs_submit(struct web *w, struct MHD_Connection *c,
				   struct web_req *req, int request)
{
	struct submit s;
	json_error_t jerr;
	json_t *body;
	enum MHD_Result rc;
	char msg[256];

	if (web_unauthorized(w, c, &rc))
		return rc;
	if (req->too_big)
		return web_reply_error(c, MHD_HTTP_CONTENT_TOO_LARGE,
				       "request body: more than the %d bytes allowed", WEB_BODY_MAX);
	body = json_loadb(buf_str(&req->body), req->body.len, JSON_REJECT_DUPLICATES, &jerr);
	if (!body)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "request body: line %d, column %d: %s",
				       jerr.line, jerr.column, jerr.text);
	if (submit_parse(body, request, &s, msg, sizeof(msg)) < 0)
		rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "request body: %s", msg);
	else
		rc = submit_answer(w, c, &s, request);
	json_decref(body);
	return rc;
}

WEB_HANDLER(api_runs_submit)
{
	return runs_submit(w, c, arg->req, 0);
}

WEB_HANDLER(api_requests_submit)
{
	return runs_submit(w, c, arg->req, 1);
}

/* ---- GET /api/jobs, /api/jobs/NAME ---- */

static json_t *strs_json(char *const *v, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++)
		if (json_array_append_new(arr, web_json_str(v[i])) < 0) {
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
	put(o, "name", web_json_str(d->name), &bad);
	put(o, "description", web_json_str(d->description), &bad);
	put(o, "kind", web_json_str(d->kind), &bad);
	put(o, "command", web_json_str(d->command), &bad);
	put(o, "parser", web_json_str(d->parser), &bad);
	put(o, "programs", strs_json(d->programs, d->nprograms), &bad);
	put(o, "config", strs_json(d->config, d->nconfig), &bad);
	put(o, "rootfs", strs_json(d->rootfs, d->nrootfs), &bad);
	put(o, "image", web_json_str(d->image), &bad);
	put(o, "results", web_json_str(d->results), &bad);
	put(o, "selftests", web_json_str(d->selftests), &bad);
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
		put(m, "name", web_json_str(d->metrics[i].name), &bad);
		put(m, "unit", web_json_str(d->metrics[i].unit), &bad);
		put(m, "better", json_string(d->metrics[i].higher_better ? "higher" : "lower"),
		    &bad);
		put(m, "margin", d->metrics[i].margin > 0 ? json_real(d->metrics[i].margin)
		    : json_null(), &bad);
		if (json_array_append_new(ms, m) < 0)
			bad = 1;
	}
	put(o, "metrics", ms, &bad);
	put(o, "file", web_json_str(d->file), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

WEB_HANDLER(api_jobs)
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

WEB_HANDLER(api_job)
{
	const char *name = arg->name;
	const struct job_def *d = job_set_find(web_jobs(w), name);

	char *err = NULL;
	struct db *db;
	json_t *o;

	if (!d)
		return web_reply_error(c, MHD_HTTP_NOT_FOUND, "job '%.100s': no such job", name);
	/* the job's noise too (web/calib.c); the definition alone when the
	 * database cannot be read */
	db = web_db(w, &err);
	o = job_json(d);
	if (!o || web_calib_json(o, db, d->name, err) < 0) {
		json_decref(o);
		free(err);
		return MHD_NO;
	}
	free(err);
	return web_reply_json(c, MHD_HTTP_OK, o);
}
