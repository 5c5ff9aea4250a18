// SPDX-License-Identifier: GPL-2.0-only
/* report.c: one cell's metric comparison as the request page draws it
 * (web/request.c): a row per metric with its verdict, the runs left out
 * as outliers, the report's notes and a strip plot of both sides
 * (web/svg.c). Everything from the database goes through web_html(). */
#include "web/report.h"
#include "web/reply.h"
#include "web/svg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis.h"
#include "analysis/cells.h"
#include "common/util.h"

static const char *const side_names[2] = { "base", "patched" };

static void fmt_num(struct buf *b, double v)
{
	if (isfinite(v))
		buf_printf(b, "%.4g", v);
	else
		buf_puts(b, "n/a");
}

static const char *verdict_class(enum cmp_verdict v)
{
	static const char *const cls[CMP_VERDICT_COUNT] = {
		"better", "worse", "changed", "no-change", "uncertain",
	};

	return (unsigned)v < CMP_VERDICT_COUNT ? cls[v] : "";
}

/* The runs each metric left out as outliers, linked by id */
static void outliers_html(struct buf *b, const struct cmp_report *rep)
{
	int any = 0;

	for (size_t j = 0; j < rep->n; j++) {
		const struct cmp_metric *m = &rep->v[j];

		if (!m->noutliers[0] && !m->noutliers[1])
			continue;
		if (!any++)
			buf_puts(b, "<ul class=\"note outliers\">\n");
		buf_puts(b, "<li>outlying runs of ");
		web_html_str(b, m->name);
		buf_puts(b, ", left out of the test:");
		for (int s = 0; s < 2; s++) {
			size_t shown = m->noutliers[s] < CMP_OUTLIERS_MAX ? m->noutliers[s]
				: CMP_OUTLIERS_MAX;

			if (!m->noutliers[s])
				continue;
			buf_printf(b, " %s", side_names[s]);
			for (size_t i = 0; i < shown; i++) {
				if (m->outlier_by_id)
					buf_printf(b, "%s <a href=\"/runs/%lld\">run %lld</a>", i ? "," : "",
						   (long long)m->outlier[s][i], (long long)m->outlier[s][i]);
				else
					buf_printf(b, "%s run #%lld", i ? "," : "",
						   (long long)m->outlier[s][i]);
			}
			if (m->noutliers[s] > shown)
				buf_printf(b, " and %zu more", m->noutliers[s] - shown);
			buf_puts(b, s == 0 && m->noutliers[1] ? ";" : "");
		}
		buf_puts(b, "</li>\n");
	}
	if (any)
		buf_puts(b, "</ul>\n");
}

/* One metric's row of the comparison table */
static void report_row(struct buf *b, const struct cmp_metric *m)
{
	buf_puts(b, "<tr><td>");
	web_html_str(b, m->name);
	buf_puts(b, "</td><td>");
	web_html_str(b, m->unit);
	buf_printf(b, "</td><td>%s</td><td class=\"num\">%zu / %zu</td><td class=\"num\">",
		   m->higher_better < 0 ? "?" : m->higher_better ? "higher" : "lower",
		   m->base.n, m->patched.n);
	fmt_num(b, m->base.median);
	buf_puts(b, "</td><td class=\"num\">");
	fmt_num(b, m->patched.median);
	buf_puts(b, "</td><td class=\"num\">");
	if (isfinite(m->change_pct))
		buf_printf(b, "%+.1f%%", m->change_pct);
	else
		buf_puts(b, "n/a");
	buf_puts(b, "</td><td class=\"num\">");
	if (isfinite(m->mdc))
		buf_printf(b, "&ge;%.1f%%", m->mdc * 100);
	else
		buf_puts(b, "n/a");
	buf_printf(b, "</td><td class=\"%s\">%s", verdict_class(m->verdict),
		   cmp_verdict_name(m->verdict));
	if (isfinite(m->margin))
		buf_printf(b, " <span class=\"note\">(margin &plusmn;%.3g%%)</span>",
			   m->margin * 100);
	if (m->verdict == CMP_UNCERTAIN && m->runs_needed)
		buf_printf(b, " <span class=\"note\">(~%d runs per side)</span>",
			   m->runs_needed);
	buf_puts(b, "</td><td class=\"num\">");
	fmt_num(b, m->p);
	buf_puts(b, "</td><td class=\"num\">");
	fmt_num(b, m->q);
	buf_puts(b, "</td><td class=\"num\">");
	if (m->have_ci)
		buf_printf(b, "%.4g &ndash; %.4g", m->ci_lo, m->ci_hi);
	else
		buf_puts(b, "-");
	buf_puts(b, "</td></tr>\n");
}

/* The report's notes as a list ("metric 'x': no patched samples") */
static void report_notes(struct buf *b, const struct cmp_report *rep)
{
	if (!rep->nnotes && !rep->notes_dropped)
		return;
	buf_puts(b, "<ul class=\"note\">\n");
	for (size_t j = 0; j < rep->nnotes; j++) {
		buf_puts(b, "<li>");
		web_html_str(b, rep->notes[j]);
		buf_puts(b, "</li>\n");
	}
	if (rep->notes_dropped)
		buf_printf(b, "<li>%zu more notes</li>\n", rep->notes_dropped);
	buf_puts(b, "</ul>\n");
}

/* The strip plot of metric m, a dot per run of cell c: none when the
 * cell has no samples of it */
static void report_plot(struct buf *b, const struct cell *c, const struct cmp_metric *m)
{
	const struct cell_metric *rm = NULL;
	struct svg_series s[2];
	struct buf title = BUF_INIT(512);

	for (size_t k = 0; k < c->nm && !rm; k++)
		if (!strcmp(c->m[k].name, m->name))
			rm = &c->m[k];
	if (!rm)
		return;
	s[0] = (struct svg_series){ "base", rm->v[0], rm->n[0], m->base.median };
	s[1] = (struct svg_series){ "patched", rm->v[1], rm->n[1], m->patched.median };
	buf_printf(&title, "%s: base vs patched, a dot per run", m->name);
	buf_puts(b, "<figure><figcaption>");
	web_html_str(b, m->name);
	if (m->unit) {
		buf_puts(b, " (");
		web_html_str(b, m->unit);
		buf_puts(b, ")");
	}
	buf_printf(b, " <span class=\"%s\">%s</span></figcaption>\n",
		   verdict_class(m->verdict), cmp_verdict_name(m->verdict));
	svg_strip(b, buf_str(&title), m->unit, s, 2);
	buf_puts(b, "</figure>\n");
	buf_release(&title);
}

void web_report_html(struct buf *b, const struct cell *c, const struct cmp_report *rep)
{
	struct buf text = BUF_INIT(1024 * 1024);

	buf_puts(b, "<table class=\"compare\"><thead><tr><th>metric</th><th>unit</th>"
		 "<th>better</th><th>runs</th><th>base median</th><th>patched median</th>"
		 "<th>change</th><th>can see</th><th>verdict</th><th>p</th><th>q</th>"
		 "<th>90% interval of ratio</th></tr></thead><tbody>\n");
	for (size_t j = 0; j < rep->n; j++)
		report_row(b, &rep->v[j]);
	buf_puts(b, "</tbody></table>\n");
	buf_printf(b, "<p class=\"note\">better/worse: Student&#39;s t on the runs&#39; logs, outlying runs "
		   "left out, Benjamini-Hochberg q &lt; %.2g across these %zu metrics (false "
		   "alarms at most %.0f%% per table); no change: the ratio&#39;s 90%% interval within "
		   "the margin; uncertain: neither, with the runs per side that would settle it; "
		   "can see: the least change these runs would call with 80%% chance</p>\n",
		   CMP_ALPHA, rep->n, CMP_ALPHA * 100);
	outliers_html(b, rep);
	report_notes(b, rep);
	/* one strip plot per compared metric: a dot per run */
	buf_puts(b, "<div class=\"plots\">\n");
	for (size_t j = 0; j < rep->n; j++)
		report_plot(b, c, &rep->v[j]);
	buf_puts(b, "</div>\n");
	if (cmp_render_text(rep, CMP_COL_ALL, &text) == 0) {
		buf_puts(b, "<details><summary>as text, for a commit message</summary><pre>");
		web_html(b, buf_str(&text), text.len);
		buf_puts(b, "</pre></details>\n");
	}
	buf_release(&text);
}
