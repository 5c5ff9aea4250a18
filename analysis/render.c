// SPDX-License-Identifier: GPL-2.0-only
/* render.c: a comparison report (compare.c) as kernel developers paste it:
 * a fixed-width plain table for a commit message or cover letter, the same
 * as markdown, and JSON for the API; and back from that JSON, so the CLI
 * prints exactly what the server computed. Output depends only on the
 * report: golden files under t/data/analysis/ hold it. */
#include "analysis/analysis.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELL_MAX   192     /* bytes of one table cell, NUL included */
#define NCOL_MAX   24

enum align { LEFT, RIGHT };

struct table {
	size_t ncol, nrow;        /* rows include the header */
	enum align align[NCOL_MAX];
	char (*cell)[CELL_MAX];   /* nrow * ncol */
};

static char *cell(struct table *t, size_t row, size_t col)
{
	return t->cell[row * t->ncol + col];
}

/* Display width of UTF-8 text: code points, not bytes ("µs" is 2) */
static size_t text_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

/* A value with about four significant digits and no exponent for the
 * sizes metrics have: 1843200, 12.35, 0.1834 */
static void fmt_value(char *out, size_t n, double v)
{
	double a = fabs(v);
	int mag, dec;

	if (!isfinite(v)) {
		snprintf(out, n, "n/a");
		return;
	}
	if (a == 0) {
		snprintf(out, n, "0");
		return;
	}
	if (a >= 1e12 || a < 1e-4) {
		snprintf(out, n, "%.4g", v);
		return;
	}
	mag = (int)floor(log10(a)) + 1;   /* digits before the point */
	dec = 4 - mag;
	if (dec < 0)
		dec = 0;
	if (dec > 8)
		dec = 8;
	snprintf(out, n, "%.*f", dec, v);
}

static void fmt_change(char *out, size_t n, double pct)
{
	if (!isfinite(pct))
		snprintf(out, n, "n/a");
	else if (fabs(pct) < 0.05)
		snprintf(out, n, "0.0%%");   /* no "-0.0%" */
	else
		snprintf(out, n, "%+.1f%%", pct);
}

static void fmt_verdict(char *out, size_t n, const struct cmp_metric *m)
{
	const char *v = cmp_verdict_name(m->verdict);

	if (m->verdict == CMP_UNCERTAIN && m->runs_needed > 0)
		snprintf(out, n, "%s (%s%d runs%s)", v, m->runs_needed >= CMP_RUNS_CAP ? ">=" : "~",
			 m->runs_needed, m->noisy ? ", noisy base" : "");
	else if (m->noisy)
		snprintf(out, n, "%s (noisy base)", v);
	else
		snprintf(out, n, "%s", v);
}

/* a fraction as a percentage: "4.1%", "n/a" */
static void fmt_pct(char *out, size_t n, double f)
{
	if (!isfinite(f))
		snprintf(out, n, "n/a");
	else
		snprintf(out, n, "%.*f%%", f * 100 < 9.95 ? 1 : 0, f * 100);
}

/* a margin: "2%", "2.5%" */
static void fmt_margin(char *out, size_t n, double f)
{
	if (!isfinite(f))
		snprintf(out, n, "n/a");
	else
		snprintf(out, n, "%.3g%%", f * 100);
}

/* 1 when the metrics' margins are not all the same (a margin column) */
static int margins_differ(const struct cmp_report *r)
{
	for (size_t i = 1; i < r->n; i++)
		if (!(r->v[i].margin == r->v[0].margin) &&
		    (isfinite(r->v[i].margin) || isfinite(r->v[0].margin)))
			return 1;
	return 0;
}

static void fmt_n(char *out, size_t n, const struct cmp_metric *m)
{
	if (m->base.n == m->patched.n)
		snprintf(out, n, "%zu", m->base.n);
	else
		snprintf(out, n, "%zu/%zu", m->base.n, m->patched.n);
}

/* Builds the table: header row, then one row per metric */
static int table_build(const struct cmp_report *r, unsigned cols, struct table *t)
{
	size_t c = 0;

	int mcol = margins_differ(r);

	memset(t, 0, sizeof(*t));
	t->nrow = r->n + 1;
	t->ncol = 8 + mcol + (cols & CMP_COL_MEAN ? 2 : 0) + (cols & CMP_COL_P99 ? 2 : 0) +
		  (cols & CMP_COL_MAX ? 2 : 0) + (cols & CMP_COL_TEST ? 3 : 0);
	t->cell = calloc(t->nrow * t->ncol, CELL_MAX);
	if (!t->cell)
		return -1;
#define COL(hdr, al, ...) do { \
		t->align[c] = (al); \
		snprintf(cell(t, 0, c), CELL_MAX, "%s", (hdr)); \
		for (size_t i = 0; i < r->n; i++) { \
			const struct cmp_metric *m = &r->v[i]; \
			char *o = cell(t, i + 1, c); \
			(void)m; \
			__VA_ARGS__; \
		} \
		c++; \
	} while (0)
	COL("metric", LEFT, snprintf(o, CELL_MAX, "%s", m->name));
	COL("unit", LEFT, snprintf(o, CELL_MAX, "%s", m->unit ? m->unit : "-"));
	COL("n", RIGHT, fmt_n(o, CELL_MAX, m));
	COL("base(median)", RIGHT, fmt_value(o, CELL_MAX, m->base.median));
	COL("patched(median)", RIGHT, fmt_value(o, CELL_MAX, m->patched.median));
	if (cols & CMP_COL_MEAN) {
		COL("base(avg)", RIGHT, fmt_value(o, CELL_MAX, m->base.mean));
		COL("patched(avg)", RIGHT, fmt_value(o, CELL_MAX, m->patched.mean));
	}
	if (cols & CMP_COL_P99) {
		COL("base(p99)", RIGHT, fmt_value(o, CELL_MAX, m->base.p99));
		COL("patched(p99)", RIGHT, fmt_value(o, CELL_MAX, m->patched.p99));
	}
	if (cols & CMP_COL_MAX) {
		COL("base(max)", RIGHT, fmt_value(o, CELL_MAX, m->base.max));
		COL("patched(max)", RIGHT, fmt_value(o, CELL_MAX, m->patched.max));
	}
	COL("change", RIGHT, fmt_change(o, CELL_MAX, m->change_pct));
	COL("mdc", RIGHT, fmt_pct(o, CELL_MAX, m->mdc));
	if (mcol)
		COL("margin", RIGHT, fmt_margin(o, CELL_MAX, m->margin));
	if (cols & CMP_COL_TEST) {
		COL("p", RIGHT, if (isfinite(m->p)) snprintf(o, CELL_MAX, "%.3g", m->p);
		    else snprintf(o, CELL_MAX, "n/a"));
		COL("q", RIGHT, if (isfinite(m->q)) snprintf(o, CELL_MAX, "%.3g", m->q);
		    else snprintf(o, CELL_MAX, "n/a"));
		COL(r->corrected ? "ratio 90% CI" : "ratio CI", LEFT, if (m->have_ci)
			snprintf(o, CELL_MAX, "%.3f..%.3f", m->ci_lo, m->ci_hi);
		    else snprintf(o, CELL_MAX, "n/a"));
	}
	COL("verdict", LEFT, fmt_verdict(o, CELL_MAX, m));
#undef COL
	return 0;
}

static void heading(const struct cmp_report *r, struct buf *b, const char *prefix)
{
	buf_printf(b, "%s%s%s%s vs %s\n", prefix, r->job ? r->job : "",
		   r->job ? ": " : "", r->base_label ? r->base_label : "base",
		   r->patched_label ? r->patched_label : "patched");
}

void cmp_outliers_describe(const struct cmp_metric *m, struct buf *b)
{
	static const char *const side[2] = { "base", "patched" };
	int first = 1;

	for (int s = 0; s < 2; s++) {
		size_t shown = m->noutliers[s] < CMP_OUTLIERS_MAX ? m->noutliers[s] : CMP_OUTLIERS_MAX;

		if (!m->noutliers[s])
			continue;
		buf_printf(b, "%s%s run%s ", first ? "" : "; ", side[s],
			   m->noutliers[s] == 1 ? "" : "s");
		for (size_t i = 0; i < shown; i++)
			buf_printf(b, "%s%s%lld", i ? ", " : "", m->outlier_by_id ? "" : "#",
				   (long long)m->outlier[s][i]);
		if (m->noutliers[s] > shown)
			buf_printf(b, " and %zu more", m->noutliers[s] - shown);
		first = 0;
	}
}

static void footer(const struct cmp_report *r, struct buf *b, const char *bullet)
{
	buf_printf(b, "\n%sn: runs per side; change: of the median; mdc: the least change these "
		   "runs would call with 80%% chance\n", bullet);
	if (r->corrected) {
		buf_printf(b, "%sbetter/worse: Student's t on the runs' logs (outlying runs left "
			   "out), Benjamini-Hochberg q < %.2g across the report's %zu metric%s: "
			   "false alarms at most %.0f%% per report\n", bullet, CMP_ALPHA, r->n,
			   r->n == 1 ? "" : "s", CMP_ALPHA * 100);
		buf_printf(b, "%sno change: the ratio's 90%% interval within ", bullet);
		if (r->n && !margins_differ(r)) {
			char mg[32];

			fmt_margin(mg, sizeof(mg), r->v[0].margin);
			buf_printf(b, "+-%s (the margin)", mg);
		} else {
			buf_puts(b, "+-margin");
		}
		buf_puts(b, "; uncertain: neither, with the runs per side that would settle it\n");
	} else {
		buf_printf(b, "%sbetter/worse: as computed by an older kfleet (Mann-Whitney p and "
			   "a bootstrap CI; no correction across metrics)\n", bullet);
	}
	for (size_t i = 0; i < r->n; i++) {
		const struct cmp_metric *m = &r->v[i];

		if (!m->noutliers[0] && !m->noutliers[1])
			continue;
		buf_printf(b, "%soutliers: %s: ", bullet, m->name);
		cmp_outliers_describe(m, b);
		buf_puts(b, " (left out of the test)\n");
	}
	for (size_t i = 0; i < r->nnotes; i++)
		buf_printf(b, "%snote: %s\n", bullet, r->notes[i]);
	if (r->notes_dropped)
		buf_printf(b, "%snote: %zu more notes left out\n", bullet, r->notes_dropped);
}

int cmp_render_text(const struct cmp_report *r, unsigned cols, struct buf *b)
{
	struct table t;
	size_t width[NCOL_MAX] = { 0 };

	if (table_build(r, cols, &t) < 0)
		return -1;
	for (size_t row = 0; row < t.nrow; row++)
		for (size_t c = 0; c < t.ncol; c++)
			if (text_width(cell(&t, row, c)) > width[c])
				width[c] = text_width(cell(&t, row, c));
	heading(r, b, "");
	cmp_cell_describe(&r->cell, b);
	buf_puts(b, "\n\n");
	for (size_t row = 0; row < t.nrow; row++) {
		size_t line_start = b->len;

		for (size_t c = 0; c < t.ncol; c++) {
			const char *s = cell(&t, row, c);
			size_t pad = width[c] - text_width(s);

			if (c)
				buf_puts(b, "  ");
			if (t.align[c] == RIGHT)
				buf_printf(b, "%*s", (int)pad, "");
			buf_puts(b, s);
			if (t.align[c] == LEFT)
				buf_printf(b, "%*s", (int)pad, "");
		}
		while (b->len > line_start && b->data[b->len - 1] == ' ')
			b->data[--b->len] = '\0';
		buf_puts(b, "\n");
	}
	footer(r, b, "");
	free(t.cell);
	return b->truncated ? -1 : 0;
}

/* s with '|' escaped, for a markdown table cell */
static void md_cell(struct buf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			buf_puts(b, "\\|");
		else
			buf_append(b, s, 1);
	}
}

int cmp_render_markdown(const struct cmp_report *r, unsigned cols, struct buf *b)
{
	struct table t;

	if (table_build(r, cols, &t) < 0)
		return -1;
	heading(r, b, "**");
	b->len--;   /* the newline: close the bold first */
	b->data[b->len] = '\0';
	buf_puts(b, "**  \n");
	cmp_cell_describe(&r->cell, b);
	buf_puts(b, "\n\n");
	for (size_t row = 0; row < t.nrow; row++) {
		buf_puts(b, "|");
		for (size_t c = 0; c < t.ncol; c++) {
			buf_puts(b, " ");
			md_cell(b, cell(&t, row, c));
			buf_puts(b, " |");
		}
		buf_puts(b, "\n");
		if (row == 0) {
			buf_puts(b, "|");
			for (size_t c = 0; c < t.ncol; c++)
				buf_puts(b, t.align[c] == RIGHT ? " ---: |" : " :--- |");
			buf_puts(b, "\n");
		}
	}
	footer(r, b, "- ");
	free(t.cell);
	return b->truncated ? -1 : 0;
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

static void put(json_t *o, const char *key, json_t *v, int *bad)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		*bad = 1;
}

static json_t *side_json(const struct stats_summary *s, double cv)
{
	json_t *o = json_object();
	int bad = !o;

	if (o) {
		put(o, "n", json_integer((json_int_t)s->n), &bad);
		put(o, "median", jnum(s->median), &bad);
		put(o, "mean", jnum(s->mean), &bad);
		put(o, "stddev", jnum(s->stddev), &bad);
		put(o, "p99", jnum(s->p99), &bad);
		put(o, "min", jnum(s->min), &bad);
		put(o, "max", jnum(s->max), &bad);
		put(o, "cv", jnum(cv), &bad);
	}
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *outliers_json(const struct cmp_metric *m)
{
	json_t *o = json_object(), *a[2] = { json_array(), json_array() };
	int bad = !o || !a[0] || !a[1];

	for (int s = 0; s < 2 && !bad; s++)
		for (size_t i = 0; i < m->noutliers[s] && i < CMP_OUTLIERS_MAX; i++)
			if (json_array_append_new(a[s], json_integer(m->outlier[s][i])) < 0)
				bad = 1;
	if (bad) {
		json_decref(o);
		json_decref(a[0]);
		json_decref(a[1]);
		return NULL;
	}
	put(o, "by", json_string(m->outlier_by_id ? "run" : "position"), &bad);
	put(o, "base", a[0], &bad);
	put(o, "patched", a[1], &bad);
	put(o, "count", json_pack("[II]", (json_int_t)m->noutliers[0],
				  (json_int_t)m->noutliers[1]), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *metric_json(const struct cmp_metric *m, int r_corrected)
{
	json_t *o = json_object();
	int bad = !o;

	if (!o)
		return NULL;
	put(o, "name", jstr(m->name), &bad);
	put(o, "unit", jstr(m->unit), &bad);
	put(o, "better", m->higher_better < 0 ? json_null()
	    : json_string(m->higher_better ? "higher" : "lower"), &bad);
	put(o, "base", side_json(&m->base, m->base_cv), &bad);
	put(o, "patched", side_json(&m->patched, stats_cv(&m->patched)), &bad);
	put(o, "change_pct", jnum(m->change_pct), &bad);
	put(o, "p", jnum(m->p), &bad);
	put(o, "p_exact", json_boolean(m->p_exact), &bad);
	put(o, "ci", m->have_ci ? json_pack("[ff]", m->ci_lo, m->ci_hi) : json_null(), &bad);
	put(o, "noisy", json_boolean(m->noisy), &bad);
	put(o, "verdict", json_string(cmp_verdict_name(m->verdict)), &bad);
	put(o, "runs_needed", m->runs_needed ? json_integer(m->runs_needed) : json_null(), &bad);
	put(o, "q", jnum(m->q), &bad);
	put(o, "margin", jnum(m->margin), &bad);
	put(o, "mdc", jnum(m->mdc), &bad);
	put(o, "ratio", jnum(m->dec.tested ? m->dec.ratio : NAN), &bad);
	put(o, "ci_level", m->have_ci && r_corrected ? json_real(1 - 2 * CMP_EQUIV_ALPHA)
	    : json_null(), &bad);
	put(o, "outliers", outliers_json(m), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *cmp_report_json(const struct cmp_report *r)
{
	json_t *o = json_object(), *ms = json_array(), *ns = json_array(), *cell = json_object();
	int bad = !o || !ms || !ns || !cell;

	if (bad) {
		json_decref(o);
		json_decref(ms);
		json_decref(ns);
		json_decref(cell);
		return NULL;
	}
	put(o, "job", jstr(r->job), &bad);
	put(o, "base", json_pack("{s:o}", "label", jstr(r->base_label)), &bad);
	put(o, "patched", json_pack("{s:o}", "label", jstr(r->patched_label)), &bad);
	put(cell, "arch", jstr(r->cell.arch), &bad);
	put(cell, "vcpus", json_integer(r->cell.vcpus), &bad);
	put(cell, "memory_mb", json_integer(r->cell.memory_mb), &bad);
	put(cell, "accel", jstr(r->cell.accel), &bad);
	put(cell, "host", jstr(r->cell.host), &bad);
	put(cell, "topology", jstr(r->cell.topology), &bad);
	put(cell, "boot", jstr(cmp_cell_boot_name(&r->cell)), &bad);
	put(cell, "numa_nodes", json_integer(r->cell.numa_nodes), &bad);
	put(o, "cell", cell, &bad);
	for (size_t i = 0; i < r->n; i++)
		if (json_array_append_new(ms, metric_json(&r->v[i], r->corrected)) < 0)
			bad = 1;
	put(o, "metrics", ms, &bad);
	for (size_t i = 0; i < r->nnotes; i++)
		if (json_array_append_new(ns, jstr(r->notes[i])) < 0)
			bad = 1;
	put(o, "notes", ns, &bad);
	put(o, "notes_dropped", json_integer((json_int_t)r->notes_dropped), &bad);
	if (r->corrected)
		put(o, "rule", json_pack("{s:s,s:f,s:s,s:f,s:f}", "test",
					 "student-t on logs, outliers left out", "alpha", CMP_ALPHA,
					 "correction", "benjamini-hochberg", "ci_level",
					 1 - 2 * CMP_EQUIV_ALPHA, "margin_default",
					 r->margin ? r->margin : CMP_MARGIN), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

/* ---- from JSON ---- */

static double jget_num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *jget_str(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* a copy of s; *bad set when memory ran out */
static char *dup_str(const char *s, int *bad)
{
	char *d = strdup(s);

	if (!d)
		*bad = 1;
	return d;
}

static int side_from_json(json_t *o, struct stats_summary *s)
{
	json_t *n = json_object_get(o, "n");

	if (!json_is_object(o) || !json_is_integer(n) || json_integer_value(n) < 1)
		return -1;
	s->n = (size_t)json_integer_value(n);
	s->median = jget_num(o, "median");
	s->mean = jget_num(o, "mean");
	s->stddev = jget_num(o, "stddev");
	s->p99 = jget_num(o, "p99");
	s->min = jget_num(o, "min");
	s->max = jget_num(o, "max");
	return 0;
}

/* "outliers": {"by", "base": [...], "patched": [...], "count": [nb, np]};
 * whatever is missing or malformed is none */
static void outliers_from_json(json_t *o, struct cmp_metric *m)
{
	static const char *const side[2] = { "base", "patched" };
	json_t *count = json_object_get(o, "count"), *v;
	size_t i;

	if (!json_is_object(o))
		return;
	m->outlier_by_id = !strcmp(jget_str(o, "by") ? jget_str(o, "by") : "", "run");
	for (int s = 0; s < 2; s++) {
		json_t *c = json_array_get(count, (size_t)s);

		json_array_foreach(json_object_get(o, side[s]), i, v)
			if (json_is_integer(v) && m->noutliers[s] < CMP_OUTLIERS_MAX)
				m->outlier[s][m->noutliers[s]++] = json_integer_value(v);
		/* more than were named: only past the names kept */
		if (m->noutliers[s] == CMP_OUTLIERS_MAX && json_is_integer(c) &&
		    json_integer_value(c) > CMP_OUTLIERS_MAX && json_integer_value(c) <= STATS_N_MAX)
			m->noutliers[s] = (size_t)json_integer_value(c);
	}
}

static int metric_from_json(json_t *o, struct cmp_metric *m, char *err, size_t errlen,
			    size_t idx)
{
	const char *name = jget_str(o, "name"), *better = jget_str(o, "better");
	json_t *ci = json_object_get(o, "ci"), *rn = json_object_get(o, "runs_needed");
	int bad = 0;

	memset(m, 0, sizeof(m[0]));
	if (!json_is_object(o) || !name) {
		snprintf(err, errlen, "metrics[%zu]: no name", idx);
		return -1;
	}
	if (side_from_json(json_object_get(o, "base"), &m->base) < 0 ||
	    side_from_json(json_object_get(o, "patched"), &m->patched) < 0) {
		snprintf(err, errlen, "metric '%.128s': base or patched is missing or has no n",
			 name);
		return -1;
	}
	if (cmp_verdict_parse(jget_str(o, "verdict"), &m->verdict) < 0) {
		snprintf(err, errlen, "metric '%.128s': no known verdict", name);
		return -1;
	}
	m->higher_better = !better ? -1 : !strcmp(better, "higher") ? 1 : 0;
	m->change_pct = jget_num(o, "change_pct");
	m->p = jget_num(o, "p");
	m->p_exact = json_is_true(json_object_get(o, "p_exact"));
	m->have_ci = json_is_array(ci) && json_array_size(ci) == 2 &&
		     json_is_number(json_array_get(ci, 0)) && json_is_number(json_array_get(ci, 1));
	m->ci_lo = m->have_ci ? json_number_value(json_array_get(ci, 0)) : NAN;
	m->ci_hi = m->have_ci ? json_number_value(json_array_get(ci, 1)) : NAN;
	m->base_cv = jget_num(json_object_get(o, "base"), "cv");
	m->noisy = json_is_true(json_object_get(o, "noisy"));
	m->runs_needed = json_is_integer(rn) && json_integer_value(rn) > 0 &&
			 json_integer_value(rn) <= CMP_RUNS_CAP ? (int)json_integer_value(rn) : 0;
	m->q = jget_num(o, "q");
	m->margin = jget_num(o, "margin");
	m->mdc = jget_num(o, "mdc");
	m->dec.ratio = jget_num(o, "ratio");
	m->dec.tested = isfinite(m->dec.ratio);
	outliers_from_json(json_object_get(o, "outliers"), m);
	m->name = dup_str(name, &bad);
	m->unit = jget_str(o, "unit") ? dup_str(jget_str(o, "unit"), &bad) : NULL;
	if (bad) {
		free(m->name);
		free(m->unit);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int cmp_report_from_json(json_t *j, struct cmp_report *r, char *err, size_t errlen)
{
	json_t *cell = json_object_get(j, "cell"), *ms = json_object_get(j, "metrics");
	json_t *ns = json_object_get(j, "notes"), *v;
	struct cmp_cell c = { 0 };
	char dummy[8];
	size_t i;

	if (!err || !errlen) {
		err = dummy;
		errlen = sizeof(dummy);
	}
	memset(r, 0, sizeof(*r));
	if (!json_is_object(j) || !json_is_object(cell) || !json_is_array(ms)) {
		snprintf(err, errlen, "not a comparison: no cell or metrics");
		return -1;
	}
	if (json_array_size(ms) > CMP_METRICS_MAX) {
		snprintf(err, errlen, "%zu metrics, more than %d", json_array_size(ms),
			 CMP_METRICS_MAX);
		return -1;
	}
	c.arch = (char *)jget_str(cell, "arch");
	c.vcpus = (int)json_integer_value(json_object_get(cell, "vcpus"));
	c.memory_mb = (int)json_integer_value(json_object_get(cell, "memory_mb"));
	c.accel = (char *)jget_str(cell, "accel");
	c.host = (char *)jget_str(cell, "host");
	c.topology = (char *)jget_str(cell, "topology");
	c.boot = (char *)jget_str(cell, "boot");
	c.numa_nodes = (int)json_integer_value(json_object_get(cell, "numa_nodes"));
	if (cmp_report_init(r, jget_str(j, "job"),
			    jget_str(json_object_get(j, "base"), "label"),
			    jget_str(json_object_get(j, "patched"), "label"), &c, &c,
			    err, errlen) < 0)
		return -1;
	r->v = calloc(json_array_size(ms) + 1, sizeof(*r->v));
	if (!r->v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r->alloc = json_array_size(ms) + 1;
	json_array_foreach(ms, i, v) {
		if (metric_from_json(v, &r->v[r->n], err, errlen, i) < 0)
			return -1;
		r->n++;
	}
	r->corrected = json_is_object(json_object_get(j, "rule"));
	json_array_foreach(ns, i, v)
		if (json_is_string(v))
			cmp_report_note(r, "%s", json_string_value(v));
	{
		json_int_t nd = json_integer_value(json_object_get(j, "notes_dropped"));

		if (nd > 0 && nd < 1000000)
			r->notes_dropped += (size_t)nd;
	}
	return 0;
}
