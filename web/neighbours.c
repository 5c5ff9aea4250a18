// SPDX-License-Identifier: GPL-2.0-only
/* neighbours.c: what a comparison's runs ran beside, from their records
 * (db/neighbours.c): each side's runs counted (analysis/neighbours.c), the
 * warning under the table when the sides differ, and the counts for the
 * JSON. Used by /api/compare (comparisons.c) and the request page. */
#include "web/reply.h"

#include <stdlib.h>

#include "analysis/cells.h"
#include "db/db.h"

/* The distinct run ids of side s over the cell's metrics into ids (caller
 * frees); how many, or -1 */
static long side_runs(const struct cell *c, int s, int64_t **ids)
{
	size_t n = 0, cap = 0;

	*ids = NULL;
	for (size_t j = 0; j < c->nm; j++)
		for (size_t i = 0; i < c->m[j].n[s]; i++) {
			int64_t id = c->m[j].run[s] ? c->m[j].run[s][i] : 0;
			size_t k;

			for (k = 0; k < n && (*ids)[k] != id; k++)
				;
			if (!id || k < n)
				continue;
			if (n == cap) {
				int64_t *v = realloc(*ids, (cap = cap ? 2 * cap : 16) * sizeof(*v));

				if (!v)
					return -1;
				*ids = v;
			}
			(*ids)[n++] = id;
		}
	return (long)n;
}

int web_report_neighbours(struct db *db, struct cmp_report *r, const struct cell *c,
			  const char *const names[2], struct cmp_quiet_side *s)
{
	struct buf w = BUF_INIT(1024);

	for (int side = 0; side < 2; side++) {
		int64_t *ids;
		long n = side_runs(c, side, &ids);

		s[side] = (struct cmp_quiet_side){ 0 };
		for (long i = 0; i < n; i++) {
			struct run_quiet rq;
			int got = db_quiet_get(db, ids[i], &rq);

			if (got < 0) {
				free(ids);
				return -1;
			}
			cmp_quiet_count(&s[side], got, rq.pin, rq.runs, rq.builds);
			if (got)
				db_quiet_release(&rq);
		}
		free(ids);
		if (n < 0)
			return -1;
	}
	if (cmp_quiet_warning(s, names, &w))
		cmp_report_note(r, "%s", buf_str(&w));
	buf_release(&w);
	return 0;
}

json_t *web_neighbours_json(const struct cmp_quiet_side *s, const char *warning)
{
	json_t *o = json_object();

	for (int i = 0; o && i < 2; i++)
		json_object_set_new(o, i ? "patched" : "base",
				    json_pack("{s:I,s:I,s:I,s:I,s:I,s:I}", "runs", (json_int_t)s[i].runs,
					      "recorded", (json_int_t)s[i].known,
					      "beside_build", (json_int_t)s[i].beside_build,
					      "beside_run", (json_int_t)s[i].beside_run,
					      "pinned", (json_int_t)s[i].pinned,
					      "overcommitted", (json_int_t)s[i].overcommitted));
	if (o)
		json_object_set_new(o, "warning", warning ? json_string(warning) : json_null());
	return o;
}

/* ---- a run's own record ---- */

static json_t *opt_real(int has, double v)
{
	return has ? json_real(v) : json_null();
}

static json_t *opt_str(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *web_run_neighbours_json(struct db *db, int64_t id)
{
	struct run_quiet q;
	json_t *o;

	if (db_quiet_get(db, id, &q) != 1)
		return json_null();
	o = json_pack("{s:I,s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b}", "attempt",
		      (json_int_t)q.attempt, "pin", q.pin ? q.pin : "?", "cores", opt_str(q.cores),
		      "why", opt_str(q.why), "builds_mode", opt_str(q.builds_mode), "runs",
		      opt_str(q.runs), "builds", opt_str(q.builds), "load_start",
		      opt_real(q.has_load_start, q.load_start), "load_end",
		      opt_real(q.has_load_end, q.load_end), "ended", (int)q.ended);
	db_quiet_release(&q);
	return o ? o : json_null();
}

/* "12:1 13:2" as links to the runs */
static void run_links(struct buf *b, const char *runs)
{
	const char *p = runs;

	while (*p) {
		long long id;
		int vcpus, used;

		if (sscanf(p, " %lld:%d%n", &id, &vcpus, &used) == 2) {
			buf_printf(b, "<a href=\"/runs/%lld\">run %lld</a> (%d vCPU%s) ", id, id, vcpus,
				   vcpus == 1 ? "" : "s");
			p += used;
		} else {
			web_html_str(b, p);
			break;
		}
	}
}

void web_run_neighbours_html(struct buf *b, struct db *db, int64_t id)
{
	struct run_quiet q;
	char s[160];

	if (db_quiet_get(db, id, &q) != 1)
		return;
	buf_puts(b, "<h2>neighbours</h2>\n<table class=\"kv\">\n");
	snprintf(s, sizeof(s), "%s%s%s", q.pin ? q.pin : "?", q.cores ? " on host cores " : "",
		 q.cores ? q.cores : "");
	web_html_kv(b, "cores", s, "-");
	web_html_kv(b, "why not pinned", q.why, "-");
	web_html_kv(b, "builds beside pinned runs", q.builds_mode, "-");
	buf_puts(b, "<tr><th>other runs on the host</th><td>");
	if (q.runs && *q.runs)
		run_links(b, q.runs);
	else
		buf_puts(b, q.ended ? "none" : "(so far: recorded at the end)");
	buf_puts(b, "</td></tr>\n");
	web_html_kv(b, "builds meanwhile (submissions)", q.builds && *q.builds ? q.builds :
		    q.ended ? "none" : NULL, "-");
	if (q.has_load_start)
		snprintf(s, sizeof(s), "%.2f", q.load_start);
	web_html_kv(b, "load at the start", q.has_load_start ? s : "unknown", "-");
	if (q.has_load_end)
		snprintf(s, sizeof(s), "%.2f", q.load_end);
	web_html_kv(b, "load at the end", q.has_load_end ? s : q.ended ? "unknown" : NULL, "-");
	buf_puts(b, "</table>\n");
	db_quiet_release(&q);
}
