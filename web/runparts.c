// SPDX-License-Identifier: GPL-2.0-only
/* runparts.c: the parts of a run too big for one answer, in pieces.
 * GET /api/runs/ID/results?offset=N&limit=M and .../samples?offset&limit:
 * a page of its results (in the order of GET /api/runs/ID, which carries
 * the first page and the link to the next) or of its metric samples.
 * GET /api/runs/ID/tail?console=N&output=M: what a run's console
 * and its command's output gained past byte offsets N and M, with the
 * run's state and outcome, for `kfleet logs -f` and the run page while the
 * guest runs. Each part is at most WEB_TAIL_CHUNK bytes, cut before an
 * unfinished UTF-8 sequence so that the next call starts on a whole one;
 * {"console": {"offset": where the text starts, "next": where to ask from
 * next, "size": the file's size, "text", "restarted": the file became
 * shorter than N (virtlogd rotated it at 2 MiB), so the text starts at 0}}.
 * A file not there yet is empty. A done run's pages are kept (cache.c). */
#include "web/cache.h"
#include "web/handlers.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "orchestrator/orchestrator.h"
#include "web/reply.h"
#include "web/runparts.h"
#include "web/server.h"

#define WEB_TAIL_CHUNK (64 * 1024)

/* Bytes at the end of p[0..n) that begin a UTF-8 sequence not finished
 * within it (0 to 3) */
static size_t utf8_unfinished(const unsigned char *p, size_t n)
{
	for (size_t k = 1; k <= 3 && k <= n; k++) {
		unsigned char c = p[n - k];

		if ((c & 0xc0) == 0x80)
			continue;              /* a continuation byte: look further back */
		if ((c & 0xe0) == 0xc0)
			return k < 2 ? k : 0;
		if ((c & 0xf0) == 0xe0)
			return k < 3 ? k : 0;
		if ((c & 0xf8) == 0xf0)
			return k < 4 ? k : 0;
		return 0;
	}
	return 0;
}

/* {"offset", "next", "size", "text", "restarted"} of dir/name from off;
 * NULL when out of memory */
static json_t *part(const char *dir, const char *name, long long off)
{
	char *path = dir ? path_join(dir, name) : NULL, *chunk = NULL;
	long long size = 0, start = off;
	int restarted = 0, fd = -1;
	ssize_t got = 0;
	struct stat st;
	json_t *o;

	if (path && (fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) >= 0 &&
	    fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		size = (long long)st.st_size;
		if (start > size) {
			start = 0;
			restarted = 1;
		}
		chunk = malloc(WEB_TAIL_CHUNK);
		if (chunk && size > start) {
			size_t want = (size_t)(size - start < WEB_TAIL_CHUNK ? size - start :
					       WEB_TAIL_CHUNK);

			got = pread(fd, chunk, want, (off_t)start);
			if (got < 0)
				got = 0;
			/* the rest of a sequence cut here comes with the next call;
			 * at the end of a finished file it is what it is */
			if (got > 0 && (size_t)got == want)
				got -= (ssize_t)utf8_unfinished((unsigned char *)chunk, (size_t)got);
		}
	} else if (fd < 0 && errno != ENOENT && path) {
		log_warn("web: '%s': %s", path, strerror(errno));
	}
	if (fd >= 0)
		close(fd);
	o = json_pack("{sI sI sI so sb}", "offset", (json_int_t)start, "next",
		      (json_int_t)(start + got), "size", (json_int_t)size, "text",
		      web_json_strn(chunk ? chunk : "", (size_t)got), "restarted", restarted);
	free(chunk);
	free(path);
	return o;
}

/* A console or output the storage pass took: its part says when and why
 * ("pruned": {"at", "why", "bytes"}), so a follower knows it is not just
 * empty */
static void tail_pruned(struct db *db, const struct run *r, json_t *o)
{
	static const char *const keys[] = { "console", "output" };
	static const char *const names[] = { RUN_FILE_CONSOLE, RUN_FILE_OUTPUT };
	struct db_pruned *v = NULL;
	size_t n = 0;

	if (r->state != RUN_DONE || db_pruned_list(db, r->id, 256, &v, &n) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < 2; k++) {
			json_t *part = json_object_get(o, keys[k]);

			if (v[i].name && !strcmp(v[i].name, names[k]) && part &&
			    json_integer_value(json_object_get(part, "size")) == 0)
				json_object_set_new(part, "pruned", json_pack("{sI so sI}",
					"at", (json_int_t)v[i].pruned_at, "why",
					web_json_str(v[i].why), "bytes", (json_int_t)v[i].bytes));
		}
	db_rows_free(db_pruned_fields, v, sizeof(*v), n);
}

static int offset_arg(struct MHD_Connection *c, const char *key, long long *v)
{
	const char *s = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, key);

	*v = 0;
	return s ? parse_int(s, 0, INT64_MAX, v) : 0;
}

WEB_HANDLER(api_run_tail)
{
	long long con, outp;
	enum MHD_Result rc;
	struct run r;
	struct db *db;
	json_t *o;
	int found;

	if (offset_arg(c, "console", &con) < 0 || offset_arg(c, "output", &outp) < 0)
		return web_reply_error(c, MHD_HTTP_BAD_REQUEST,
				       "console= and output= are byte offsets (0 or more)");
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db)
		return rc;
	memset(&r, 0, sizeof(r));
	found = db_run_get(db, arg->id, &r);
	if (found <= 0) {
		if (found < 0)
			log_warn("web: run %lld: %s", (long long)arg->id, db_errmsg(db));
		return found < 0 ? web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR,
						   "database: %s", db_errmsg(db)) :
			web_reply_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no such run",
					(long long)arg->id);
	}
	o = json_pack("{sI ss so so so so}", "id", (json_int_t)r.id, "state",
		      run_state_name(r.state), "outcome",
		      r.state == RUN_DONE ? json_string(run_outcome_name(r.outcome)) : json_null(),
		      "detail", web_json_str(r.state == RUN_DONE ? r.detail : NULL),
		      "console", part(r.run_dir, RUN_FILE_CONSOLE, con),
		      "output", part(r.run_dir, RUN_FILE_OUTPUT, outp));
	if (o)
		tail_pruned(db, &r, o);
	run_release(&r);
	return o ? web_reply_json(c, MHD_HTTP_OK, o) : MHD_NO;
}

/* ---- results and samples, a page at a time ---- */

json_t *web_result_rows_json(const struct result_row *rows, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++) {
		json_t *e = json_pack("{so so so}", "path", web_json_str(rows[i].path), "status",
				      web_json_str(rows[i].status), "detail",
				      web_json_str(rows[i].detail));

		if (!e || json_array_append_new(arr, e) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *web_sample_rows_json(const struct sample_row *rows, size_t n)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < n; i++) {
		/* stored values are finite; JSON has no NaN or infinity anyway */
		json_t *e = json_pack("{so so so sI}", "metric", web_json_str(rows[i].metric),
				      "unit", web_json_str(rows[i].unit), "value",
				      isfinite(rows[i].value) ? json_real(rows[i].value) :
				      json_null(), "seq", (json_int_t)rows[i].seq);

		if (!e || json_array_append_new(arr, e) < 0) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

json_t *web_run_page_next(int64_t id, const char *what, long long offset, size_t n,
			  long long total)
{
	char next[96];

	if (offset + (long long)n >= total)
		return json_null();
	snprintf(next, sizeof(next), "/api/runs/%lld/%s?offset=%lld", (long long)id, what,
		 offset + (long long)n);
	return json_string(next);
}

/* offset= and limit= of a page: 0, or -1 after replying 400 into *rc */
static int page_args(struct MHD_Connection *c, long long *offset, long long *limit, int max,
		     enum MHD_Result *rc)
{
	const char *ls = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "limit");

	*limit = max;
	if (offset_arg(c, "offset", offset) < 0 || (ls && parse_int(ls, 1, max, limit) < 0)) {
		*rc = web_reply_error(c, MHD_HTTP_BAD_REQUEST, "offset= is a row number (0 or "
				      "more), limit= a count from 1 to %d", max);
		return -1;
	}
	return 0;
}

/* 1 when run id exists, else 0 after replying (404, or 500) into *rc;
 * key (n bytes) gets what a page of it (what, offset, limit) is kept under
 * once the run is done (it changes only when the run runs or ends again),
 * "" while it is not */
static int run_exists(struct db *db, struct MHD_Connection *c, int64_t id, enum MHD_Result *rc,
		      const char *what, long long offset, long long limit, char *key, size_t n)
{
	struct run r;
	int found;

	memset(&r, 0, sizeof(r));
	found = db_run_get(db, id, &r);
	key[0] = '\0';
	if (found > 0 && r.state == RUN_DONE)
		snprintf(key, n, "%s/%lld/%d/%lld/%lld/%lld", what, (long long)id, r.attempt,
			 (long long)r.ended_at, offset, limit);
	run_release(&r);
	if (found > 0)
		return 1;
	if (found < 0)
		*rc = web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				      db_errmsg(db));
	else
		*rc = web_reply_error(c, MHD_HTTP_NOT_FOUND, "run %lld: no such run", (long long)id);
	return 0;
}

/* o (taken) as the answer, kept under key unless key is "" */
static enum MHD_Result reply_kept(struct web *w, struct MHD_Connection *c, json_t *o,
				  const char *key)
{
	struct buf b = BUF_INIT(0);
	enum MHD_Result rc = MHD_NO;
	char *js = o ? json_dumps(o, JSON_COMPACT) : NULL;

	json_decref(o);
	if (js && buf_puts(&b, js) == 0 && buf_puts(&b, "\n") == 0) {
		if (*key)
			web_cache_put(w, key, buf_str(&b), b.len, "application/json");
		rc = web_reply(c, MHD_HTTP_OK, "application/json", &b);
	}
	free(js);
	buf_release(&b);
	return rc;
}

WEB_HANDLER(api_run_results)
{
	long long offset, limit, total = 0;
	int64_t counts[7];
	struct result_row *rows = NULL;
	struct buf hit = BUF_INIT(0);
	enum MHD_Result rc;
	const char *ctype;
	struct db *db;
	char key[160];
	size_t n = 0;
	json_t *o;

	if (page_args(c, &offset, &limit, WEB_RESULTS_PAGE_MAX, &rc) < 0)
		return rc;
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db || !run_exists(db, c, arg->id, &rc, "results", offset, limit, key, sizeof(key)))
		return rc;
	if (*key && web_cache_get(w, key, &hit, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &hit);
		buf_release(&hit);
		return rc;
	}
	if (db_run_results_at(db, arg->id, offset, (int)limit, &rows, &n, counts) < 0) {
		log_warn("web: run %lld: %s", (long long)arg->id, db_errmsg(db));
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				       db_errmsg(db));
	}
	for (int i = 0; i < 7; i++)
		total += counts[i];
	o = json_pack("{sI sI sI so so}", "id", (json_int_t)arg->id, "offset", (json_int_t)offset,
		      "total", (json_int_t)total, "rows", web_result_rows_json(rows, n), "next",
		      web_run_page_next(arg->id, "results", offset, n, total));
	result_rows_free(rows, n);
	return reply_kept(w, c, o, key);
}

WEB_HANDLER(api_run_samples)
{
	long long offset, limit, total;
	struct sample_row *rows = NULL;
	struct buf hit = BUF_INIT(0);
	enum MHD_Result rc;
	const char *ctype;
	struct db *db;
	char key[160];
	size_t n = 0;
	json_t *o;

	if (page_args(c, &offset, &limit, WEB_SAMPLES_MAX, &rc) < 0)
		return rc;
	db = web_db_or_reply(w, c, 0, &rc);
	if (!db || !run_exists(db, c, arg->id, &rc, "samples", offset, limit, key, sizeof(key)))
		return rc;
	if (*key && web_cache_get(w, key, &hit, &ctype)) {
		rc = web_reply(c, MHD_HTTP_OK, ctype, &hit);
		buf_release(&hit);
		return rc;
	}
	total = db_run_sample_count(db, arg->id);
	if (total < 0 || db_run_samples_at(db, arg->id, offset, (int)limit, &rows, &n) < 0) {
		log_warn("web: run %lld: %s", (long long)arg->id, db_errmsg(db));
		return web_reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "database: %s",
				       db_errmsg(db));
	}
	o = json_pack("{sI sI sI so so}", "id", (json_int_t)arg->id, "offset", (json_int_t)offset,
		      "total", (json_int_t)total, "rows", web_sample_rows_json(rows, n), "next",
		      web_run_page_next(arg->id, "samples", offset, n, total));
	sample_rows_free(rows, n);
	return reply_kept(w, c, o, key);
}
