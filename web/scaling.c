// SPDX-License-Identifier: GPL-2.0-only
/* scaling.c: "scaling" on the request page (web/request.c): the requests
 * of the same base and patched kernel and job (db/siblings.c), one per
 * vCPU count as a submission's or kfleet test's --vcpus 1,2,... makes
 * them, each compared on its own passed runs (analysis/reqcmp.c, the
 * numbers of its own page), laid out by vCPUs (analysis/scaling.c): an
 * SVG chart per metric and the table a cover letter would carry. */
#include "web/scaling.h"
#include "web/reply.h"
#include "web/server.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/scaling.h"
#include "db/db.h"
#include "db/siblings.h"
#include "jobs/jobs.h"
#include "analysis/reqcmp.h"

/* One sibling request, compared */
struct sib {
	struct request q;
	struct run *runs;
	int *side;
	struct reqcmp x;
	int loaded;
};

static void sib_release(struct sib *s)
{
	for (size_t i = 0; s->runs && i < s->q.nruns; i++)
		run_release(&s->runs[i]);
	free(s->runs);
	free(s->side);
	if (s->loaded)
		reqcmp_release(&s->x);
	request_release(&s->q);
}

/* 0, -1 database error, -2 memory; release s in every case */
static int sib_load(struct db *db, const struct job_def *def, int64_t id, struct sib *s)
{
	int f;

	memset(s, 0, sizeof(*s));
	f = db_request_get(db, id, &s->q);
	if (f <= 0)
		return f < 0 ? -1 : 0;
	s->runs = calloc(s->q.nruns + 1, sizeof(*s->runs));
	s->side = calloc(s->q.nruns + 1, sizeof(*s->side));
	if (!s->runs || !s->side)
		return -2;
	for (size_t i = 0; i < s->q.nruns; i++) {
		f = db_run_get(db, s->q.run_ids[i], &s->runs[i]);
		if (f < 0)
			return -1;
		s->side[i] = reqcmp_side(&s->q, i, f ? &s->runs[i] : NULL);
	}
	s->loaded = 1;
	return reqcmp_build(db, &s->q, s->runs, s->side, def, &s->x);
}

static void group_html(struct buf *b, const struct scaling *sc)
{
	struct buf t = BUF_INIT(1024 * 1024);

	buf_puts(b, "<div class=\"plots\">\n");
	for (size_t i = 0; i < sc->nm; i++) {
		buf_puts(b, "<figure><figcaption>");
		web_html_str(b, sc->m[i].name);
		if (sc->m[i].unit) {
			buf_puts(b, " (");
			web_html_str(b, sc->m[i].unit);
			buf_puts(b, ")");
		}
		buf_puts(b, " against vCPUs</figcaption>\n");
		if (scaling_svg(sc, i, b) < 0)
			buf_puts(b, "<p class=\"note\">nothing to draw</p>\n");
		buf_puts(b, "</figure>\n");
	}
	buf_puts(b, "</div>\n");
	if (scaling_render_text(sc, &t) == 0) {
		buf_puts(b, "<pre class=\"scaling\">");
		web_html(b, buf_str(&t), t.len);
		buf_puts(b, "</pre>\n");
	}
	buf_reset(&t);
	if (scaling_render_markdown(sc, &t) == 0) {
		buf_puts(b, "<details><summary>as markdown, for a cover letter</summary><pre>");
		web_html(b, buf_str(&t), t.len);
		buf_puts(b, "</pre></details>\n");
	}
	buf_release(&t);
}

/* The request and its siblings, loaded and compared, their reports
 * grouped into cells but vCPUs */
struct sset {
	struct sib *v;
	size_t nids;
	const struct cmp_report *reps[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
	size_t owner[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];   /* index into v */
	size_t group[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
	size_t nrep, ng;
};

static void sset_free(struct sset *s)
{
	for (size_t i = 0; s && s->v && i < s->nids; i++)
		sib_release(&s->v[i]);
	if (s)
		free(s->v);
	free(s);
}

/* 0 (*out set, or NULL: fewer than two requests), -1 database error, -2
 * memory */
static int sset_load(struct web *w, struct db *db, const struct request *q, struct sset **out)
{
	const struct job_def *def = q->job ? job_set_find(web_jobs(w), q->job) : NULL;
	int64_t *ids = NULL;
	size_t nids = 0;
	struct sset *s = NULL;
	int rc = 0;

	*out = NULL;
	if (db_request_siblings(db, q, WEB_SCALING_REQUESTS_MAX, &ids, &nids) < 0)
		return -1;
	if (nids < 2)
		goto out;
	if (!(s = calloc(1, sizeof(*s))) || !(s->v = calloc(nids, sizeof(*s->v)))) {
		rc = -2;
		goto out;
	}
	s->nids = nids;
	for (size_t i = 0; i < nids && !rc; i++) {
		rc = sib_load(db, def, ids[i], &s->v[i]);
		for (size_t c = 0; !rc && c < s->v[i].x.cells.n && c < REQCMP_CELLS_MAX; c++)
			if (s->v[i].x.have_rep[c]) {
				s->owner[s->nrep] = i;
				s->reps[s->nrep++] = &s->v[i].x.rep[c];
			}
	}
	if (!rc)
		s->ng = scaling_group(s->reps, s->nrep, s->group);
out:
	free(ids);
	if (rc || !s || !s->v)
		sset_free(s);
	else
		*out = s;
	return rc;
}

/* Group g laid out by vCPUs: 1 (sc to release), 0 fewer than two counts */
static int sset_scaling(const struct sset *s, size_t g, struct scaling *sc)
{
	const struct cmp_report *sub[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
	size_t nsub = 0;

	for (size_t i = 0; i < s->nrep; i++)
		if (s->group[i] == g)
			sub[nsub++] = s->reps[i];
	if (scaling_build(sc, sub, nsub) < 0 || sc->nv < 2) {
		scaling_release(sc);
		return 0;
	}
	return 1;
}

/* The request vCPU count k of group g came from (the latest report of
 * that count stands for it, as in scaling_build()), or NULL */
static const struct request *sset_source(const struct sset *s, size_t g, int vcpus)
{
	size_t from = s->nrep;

	for (size_t i = 0; i < s->nrep; i++)
		if (s->group[i] == g && s->reps[i]->cell.vcpus == vcpus)
			from = i;
	return from == s->nrep || s->owner[from] >= s->nids ? NULL : &s->v[s->owner[from]].q;
}

/* The requests each vCPU count of sc came from, linked */
static void sources_html(struct buf *b, const struct sset *s, size_t g, const struct scaling *sc)
{
	buf_puts(b, "<p class=\"note\">from");
	for (size_t k = 0; k < sc->nv; k++) {
		const struct request *q = sset_source(s, g, sc->vcpus[k]);

		if (!q)
			continue;
		buf_printf(b, "%s <a href=\"/requests/%lld\">request %lld</a> (%d vCPU%s)",
			   k ? "," : "", (long long)q->id, (long long)q->id, sc->vcpus[k],
			   sc->vcpus[k] == 1 ? "" : "s");
	}
	buf_puts(b, "; each count compared on its own request&#39;s passed runs</p>\n");
}

void web_scaling_section(struct buf *b, struct web *w, struct db *db, const struct request *q)
{
	struct sset *s = NULL;
	int rc, shown = 0;

	rc = sset_load(w, db, q, &s);
	for (size_t g = 0; s && g < s->ng; g++) {
		struct scaling sc;
		struct buf d = BUF_INIT(1024);

		if (!sset_scaling(s, g, &sc))
			continue;
		if (!shown++)
			buf_puts(b, "<h2 id=\"scaling\">scaling: base vs patched by vCPUs</h2>\n");
		scaling_cell_describe(&sc, &d);
		buf_puts(b, "<p>");
		web_html_str(b, buf_str(&d));
		buf_printf(b, ": %zu vCPU counts</p>\n", sc.nv);
		sources_html(b, s, g, &sc);
		group_html(b, &sc);
		buf_release(&d);
		scaling_release(&sc);
	}
	if (rc < 0) {
		buf_puts(b, "<h2 id=\"scaling\">scaling</h2>\n<p class=\"note\">not read: ");
		web_html_str(b, rc == -1 ? db_errmsg(db) : "out of memory");
		buf_puts(b, "</p>\n");
	}
	sset_free(s);
}

static json_t *num(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* One metric of a scaling: its points by vCPUs */
static json_t *metric_json(const struct scaling_metric *m)
{
	json_t *pts = json_array();

	for (size_t k = 0; pts && k < m->n; k++) {
		const struct cmp_metric *c = m->p[k].m;

		if (json_array_append_new(pts, json_pack("{s:i, s:I, s:o, s:I, s:o, s:o, s:s}",
			"vcpus", m->p[k].vcpus, "base_n", (json_int_t)c->base.n,
			"base_median", num(c->base.median), "patched_n", (json_int_t)c->patched.n,
			"patched_median", num(c->patched.median), "change_pct", num(c->change_pct),
			"verdict", cmp_verdict_name(c->verdict))) < 0) {
			json_decref(pts);
			return NULL;
		}
	}
	return pts ? json_pack("{s:s, s:o, s:o, s:o}", "name", m->name, "unit",
			       web_json_str(m->unit), "better", m->higher_better < 0 ? json_null() :
			       json_string(m->higher_better ? "higher" : "lower"), "points", pts) : NULL;
}

/* One cell's scaling: {"cell", "vcpus", "requests", "metrics"} */
static json_t *group_json(const struct sset *s, size_t g, const struct scaling *sc)
{
	struct buf d = BUF_INIT(1024);
	json_t *vc = json_array(), *reqs = json_array(), *ms = json_array(), *o = NULL;
	int bad = !vc || !reqs || !ms;

	for (size_t k = 0; !bad && k < sc->nv; k++) {
		const struct request *q = sset_source(s, g, sc->vcpus[k]);

		bad = json_array_append_new(vc, json_integer(sc->vcpus[k])) < 0 ||
		      (q && json_array_append_new(reqs, json_pack("{s:i, s:I}", "vcpus",
				sc->vcpus[k], "id", (json_int_t)q->id)) < 0);
	}
	for (size_t i = 0; !bad && i < sc->nm; i++) {
		json_t *m = metric_json(&sc->m[i]);

		bad = !m || json_array_append_new(ms, m) < 0;
	}
	scaling_cell_describe(sc, &d);
	if (!bad)
		o = json_pack("{s:s, s:o, s:o, s:o}", "cell", buf_str(&d), "vcpus", vc,
			      "requests", reqs, "metrics", ms);
	else {
		json_decref(vc);
		json_decref(reqs);
		json_decref(ms);
	}
	buf_release(&d);
	return o;
}

json_t *web_scaling_json(struct web *w, struct db *db, const struct request *q)
{
	struct sset *s = NULL;
	json_t *a;
	int rc = sset_load(w, db, q, &s);

	if (rc < 0)
		return json_pack("{s:s+}", "error", "scaling not read: ",
				 rc == -1 ? db_errmsg(db) : "out of memory");
	a = json_array();
	for (size_t g = 0; a && s && g < s->ng; g++) {
		struct scaling sc;
		json_t *o;

		if (!sset_scaling(s, g, &sc))
			continue;
		o = group_json(s, g, &sc);
		scaling_release(&sc);
		if (!o || json_array_append_new(a, o) < 0) {
			json_decref(a);
			a = NULL;
		}
	}
	sset_free(s);
	return a;
}
