/* scaling.c: "scaling" on the request page (web/request.c): the requests
 * of the same base and patched kernel and job (db/siblings.c), one per
 * vCPU count as a submission's or kfleet test's --vcpus 1,2,... makes
 * them, each compared on its own passed runs (orchestrator/reqcmp.c, the
 * numbers of its own page), laid out by vCPUs (analysis/scaling.c): an
 * SVG chart per metric and the table a cover letter would carry. */
#include "web/scaling.h"
#include "web/reply.h"
#include "web/server.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/scaling.h"
#include "db/db.h"
#include "db/siblings.h"
#include "jobs/jobs.h"
#include "orchestrator/reqcmp.h"

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

/* The requests each vCPU count of sc came from, linked */
static void sources_html(struct buf *b, const struct scaling *sc, const struct sib *v,
			 size_t n, const struct cmp_report *const *reps, const size_t *owner,
			 size_t nrep, const size_t *group, size_t g)
{
	buf_puts(b, "<p class=\"note\">from");
	for (size_t k = 0; k < sc->nv; k++) {
		size_t from = nrep;

		/* the latest report of that count stands for it (scaling_build()) */
		for (size_t i = 0; i < nrep; i++)
			if (group[i] == g && reps[i]->cell.vcpus == sc->vcpus[k])
				from = i;
		if (from == nrep || owner[from] >= n)
			continue;
		buf_printf(b, "%s <a href=\"/requests/%lld\">request %lld</a> (%d vCPU%s)",
			   k ? "," : "", (long long)v[owner[from]].q.id,
			   (long long)v[owner[from]].q.id, sc->vcpus[k], sc->vcpus[k] == 1 ? "" : "s");
	}
	buf_puts(b, "; each count compared on its own request&#39;s passed runs</p>\n");
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

void web_scaling_section(struct buf *b, struct web *w, struct db *db, const struct request *q)
{
	const struct job_def *def = q->job ? job_set_find(web_jobs(w), q->job) : NULL;
	const struct cmp_report *reps[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
	size_t owner[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
	size_t group[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
	int64_t *ids = NULL;
	size_t nids = 0, nrep = 0, ng;
	struct sib *v = NULL;
	int rc = 0, shown = 0;

	if (db_request_siblings(db, q, WEB_SCALING_REQUESTS_MAX, &ids, &nids) < 0) {
		rc = -1;
		goto out;
	}
	if (nids < 2)
		goto out;
	v = calloc(nids, sizeof(*v));
	if (!v) {
		rc = -2;
		goto out;
	}
	for (size_t i = 0; i < nids && !rc; i++) {
		rc = sib_load(db, def, ids[i], &v[i]);
		for (size_t c = 0; !rc && c < v[i].x.cells.n && c < REQCMP_CELLS_MAX; c++)
			if (v[i].x.have_rep[c]) {
				owner[nrep] = i;
				reps[nrep++] = &v[i].x.rep[c];
			}
	}
	if (rc)
		goto out;
	ng = scaling_group(reps, nrep, group);
	for (size_t g = 0; g < ng; g++) {
		const struct cmp_report *sub[WEB_SCALING_REQUESTS_MAX * REQCMP_CELLS_MAX];
		size_t nsub = 0;
		struct scaling sc;
		struct buf d = BUF_INIT(1024);

		for (size_t i = 0; i < nrep; i++)
			if (group[i] == g)
				sub[nsub++] = reps[i];
		if (scaling_build(&sc, sub, nsub) < 0 || sc.nv < 2) {
			scaling_release(&sc);
			continue;
		}
		if (!shown++)
			buf_puts(b, "<h2 id=\"scaling\">scaling: base vs patched by vCPUs</h2>\n");
		scaling_cell_describe(&sc, &d);
		buf_puts(b, "<p>");
		web_html_str(b, buf_str(&d));
		buf_printf(b, ": %zu vCPU counts</p>\n", sc.nv);
		sources_html(b, &sc, v, nids, reps, owner, nrep, group, g);
		group_html(b, &sc);
		buf_release(&d);
		scaling_release(&sc);
	}
out:
	if (rc < 0) {
		buf_puts(b, "<h2 id=\"scaling\">scaling</h2>\n<p class=\"note\">not read: ");
		web_html_str(b, rc == -1 ? db_errmsg(db) : "out of memory");
		buf_puts(b, "</p>\n");
	}
	for (size_t i = 0; v && i < nids; i++)
		sib_release(&v[i]);
	free(v);
	free(ids);
}
