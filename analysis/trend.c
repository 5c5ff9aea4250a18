// SPDX-License-Identifier: GPL-2.0-only
/* trend.c: a metric across the commits of a tree, and its tests' pass
 * rates. Summarises each commit's runs, finds change points by binary
 * segmentation with the Mann-Whitney test of stats.c (the rule is in
 * trend.h), classes pass-rate changes per test path, and gives it all as
 * JSON. web/trends.c reads the database and draws; nothing here does I/O. */
#include "analysis/trend.h"
#include "analysis/analysis.h"
#include "analysis/passfail.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const dir_names[TREND_DIR_COUNT] = { "better", "worse", "changed" };

const char *trend_dir_name(enum trend_dir d)
{
	return (unsigned)d < TREND_DIR_COUNT ? dir_names[d] : "?";
}

const char *trend_event_name(enum trend_event_kind k)
{
	return k == TREND_REGRESSION ? "regression" : k == TREND_FIX ? "fix" : "?";
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double trend_quantile(const double *sorted, size_t n, double q)
{
	double h, lo;
	size_t i;

	if (!n)
		return NAN;
	h = q * (double)(n - 1);
	i = (size_t)floor(h);
	if (i + 1 >= n)
		return sorted[n - 1];
	lo = sorted[i];
	return lo + (h - (double)i) * (sorted[i + 1] - lo);
}

/* median of v[0..n), sorting v */
static double median_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_dbl);
	return trend_quantile(v, n, 0.5);
}

void trend_release(struct trend *t)
{
	for (size_t i = 0; t->v && i < t->n; i++) {
		free(t->v[i].commit);
		free(t->v[i].v);
	}
	free(t->v);
	free(t->c);
	for (size_t i = 0; i < t->ntests; i++) {
		free(t->tests[i].path);
		free(t->tests[i].c);
	}
	free(t->tests);
	free(t->runs);
	free(t->ev);
	memset(t, 0, sizeof(*t));
}

/* ---- change points ---- */

struct seg {
	struct trend *t;
	const size_t *pts;    /* indices of the points with runs */
	size_t m;
	int oom;
};

struct tagged {
	double v;
	size_t pos;   /* into pts */
};

static int cmp_tagged(const void *a, const void *b)
{
	return cmp_dbl(&((const struct tagged *)a)->v, &((const struct tagged *)b)->v);
}

struct cand {
	size_t split;
	double z;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->z != y->z)
		return x->z < y->z ? 1 : -1;
	return (x->split > y->split) - (x->split < y->split);
}

/* the runs of the points pts[a..b) into out (room for all); their count */
static size_t gather(const struct seg *s, size_t a, size_t b, double *out)
{
	size_t k = 0;

	for (size_t p = a; p < b; p++) {
		const struct trend_point *pt = &s->t->v[s->pts[p]];

		memcpy(out + k, pt->v, pt->n * sizeof(*out));
		k += pt->n;
	}
	return k;
}

/* Whether more than half of the points pts[a..b), and at least
 * TREND_MIN_POINTS, have their median on the side of mid that level is on */
static int holds(const struct seg *s, size_t a, size_t b, double level, double mid)
{
	size_t agree = 0;

	for (size_t p = a; p < b; p++) {
		double md = s->t->v[s->pts[p]].median;

		if (level > mid ? md > mid : md < mid)
			agree++;
	}
	return agree >= TREND_MIN_POINTS && 2 * agree > b - a;
}

/* Fills c from the runs on either side: left and right (nl, nr of them,
 * sorted here); the p-value too when test is set (else NAN). 0 / -1 */
static int set_change(const struct trend *t, struct trend_change *c, double *left, size_t nl,
		      double *right, size_t nr, int test)
{
	struct stats_mw mw;
	int up;

	c->before = median_sort(left, nl);
	c->after = median_sort(right, nr);
	c->n_before = nl;
	c->n_after = nr;
	c->change_pct = c->before != 0 ? (c->after - c->before) / fabs(c->before) * 100 : NAN;
	up = c->after > c->before;
	if (t->higher_better < 0)
		c->dir = TREND_CHANGED;
	else
		c->dir = up == (t->higher_better == 1) ? TREND_BETTER : TREND_WORSE;
	c->p = NAN;
	if (!test)
		return 0;
	if (stats_mann_whitney(left, nl, right, nr, &mw) < 0)
		return -1;
	c->p = mw.p * (double)(c->splits ? c->splits : 1);
	if (c->p > 1)
		c->p = 1;
	return 0;
}

/* Tags every run of pts[a..b) with its point, sorts them, and sums the
 * midranks per point into rs (cnt: runs per point). Returns the tie
 * correction's sum of g^3 - g over groups of equal values. */
static double seg_ranks(struct seg *s, size_t a, size_t b, struct tagged *tg, size_t r,
			double *rs, size_t *cnt)
{
	double tie = 0;
	size_t i = 0;

	for (size_t p = a, k = 0; p < b; p++) {
		const struct trend_point *pt = &s->t->v[s->pts[p]];

		for (size_t j = 0; j < pt->n; j++)
			tg[k++] = (struct tagged){ pt->v[j], p - a };
		cnt[p - a] = pt->n;
	}
	qsort(tg, r, sizeof(*tg), cmp_tagged);
	/* midranks over the segment: U of any split from prefix sums */
	while (i < r) {
		size_t j = i;
		double rank, g;

		while (j + 1 < r && tg[j + 1].v == tg[i].v)
			j++;
		rank = ((double)(i + 1) + (double)(j + 1)) / 2;
		g = (double)(j - i + 1);
		tie += g * g * g - g;
		for (size_t k = i; k <= j; k++)
			rs[tg[k].pos] += rank;
		i = j + 1;
	}
	return tie;
}

/* Scores every split of the segment (npts points from a, r runs) with at
 * least TREND_MIN_POINTS on each side by its Mann-Whitney z into cd,
 * best first; returns how many */
static size_t seg_candidates(size_t a, size_t npts, size_t r, const double *rs,
			     const size_t *cnt, double tie, struct cand *cd)
{
	double rl = 0, nl = 0, nn = (double)r;
	size_t nc = 0;

	for (size_t p = 0; p + TREND_MIN_POINTS <= npts; p++) {
		double nr, mu, var;

		if (p >= TREND_MIN_POINTS) {
			nr = nn - nl;
			mu = nl * nr / 2;
			var = nl * nr / 12 * ((nn + 1) - tie / (nn * (nn - 1)));
			if (var > 0) {
				cd[nc].split = a + p;
				cd[nc].z = fabs(rl - nl * (nl + 1) / 2 - mu) / sqrt(var);
				if (cd[nc].z > 0)
					nc++;
			}
		}
		rl += rs[p];
		nl += (double)cnt[p];
	}
	qsort(cd, nc, sizeof(*cd), cmp_cand);
	return nc;
}

/* Tests the best scoring split that is big enough and holds, and records
 * it as a change; returns its index, or 0 when none is kept (s->oom set
 * when memory ran out). left and right hold the runs of a side. */
static size_t seg_pick(struct seg *s, size_t a, size_t b, const struct cand *cd, size_t nc,
		       double *left, double *right)
{
	size_t npts = b - a;

	for (size_t k = 0; k < nc; k++) {
		size_t sp = cd[k].split, nl, nr;
		struct trend_change ch = { .index = s->pts[sp], .splits = npts - 2 * TREND_MIN_POINTS + 1 };
		double mid;

		nl = gather(s, a, sp, left);
		nr = gather(s, sp, b, right);
		set_change(s->t, &ch, left, nl, right, nr, 0);
		if (ch.before != 0 ? fabs(ch.after - ch.before) < TREND_MIN_CHANGE * fabs(ch.before)
		    : ch.after == 0)
			continue;
		mid = (ch.before + ch.after) / 2;
		if (!holds(s, a, sp, ch.before, mid) || !holds(s, sp, b, ch.after, mid))
			continue;
		if (set_change(s->t, &ch, left, nl, right, nr, 1) < 0) {
			s->oom = 1;
			return 0;
		}
		if (!(ch.p < TREND_ALPHA))
			return 0;
		if (s->t->nc == TREND_CHANGES_MAX) {
			s->t->changes_dropped = 1;
			return 0;
		}
		s->t->c[s->t->nc++] = ch;
		return sp;
	}
	return 0;
}

/* Searches the points pts[a..b) for a change point and, when there is one,
 * both sides of it */
static void segment(struct seg *s, size_t a, size_t b)
{
	size_t npts = b - a, r = 0, nc, found = 0;
	struct tagged *tg = NULL;
	double *rs = NULL, *left = NULL, *right = NULL, tie;
	size_t *cnt = NULL;
	struct cand *cd = NULL;

	if (s->oom || npts < 2 * TREND_MIN_POINTS || s->t->changes_dropped)
		return;
	for (size_t p = a; p < b; p++)
		r += s->t->v[s->pts[p]].n;
	tg = malloc(r * sizeof(*tg));
	rs = calloc(npts, sizeof(*rs));
	cnt = calloc(npts, sizeof(*cnt));
	cd = malloc(npts * sizeof(*cd));
	left = malloc(r * sizeof(*left));
	right = malloc(r * sizeof(*right));
	if (!tg || !rs || !cnt || !cd || !left || !right) {
		s->oom = 1;
		goto out;
	}
	tie = seg_ranks(s, a, b, tg, r, rs, cnt);
	nc = seg_candidates(a, npts, r, rs, cnt, tie, cd);
	found = seg_pick(s, a, b, cd, nc, left, right);
out:
	free(tg);
	free(rs);
	free(cnt);
	free(cd);
	free(left);
	free(right);
	if (found) {
		segment(s, a, found);
		segment(s, found, b);
	}
}

static int cmp_change(const void *a, const void *b)
{
	size_t x = ((const struct trend_change *)a)->index;
	size_t y = ((const struct trend_change *)b)->index;

	return (x > y) - (x < y);
}

/* The position in pts of point index */
static size_t pos_of(const struct seg *s, size_t index)
{
	size_t lo = 0, hi = s->m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->pts[mid] < index)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Each change point's sides taken again between its neighbours */
static int refine(struct seg *s)
{
	struct trend *t = s->t;
	size_t r = 0;
	double *left, *right;
	int rc = -1;

	for (size_t p = 0; p < s->m; p++)
		r += t->v[s->pts[p]].n;
	left = malloc((r ? r : 1) * sizeof(*left));
	right = malloc((r ? r : 1) * sizeof(*right));
	if (!left || !right)
		goto out;
	for (size_t i = 0; i < t->nc; i++) {
		size_t a = i ? pos_of(s, t->c[i - 1].index) : 0;
		size_t sp = pos_of(s, t->c[i].index);
		size_t b = i + 1 < t->nc ? pos_of(s, t->c[i + 1].index) : s->m;
		size_t nl = gather(s, a, sp, left), nr = gather(s, sp, b, right);

		if (set_change(t, &t->c[i], left, nl, right, nr, 1) < 0)
			goto out;
	}
	rc = 0;
out:
	free(left);
	free(right);
	return rc;
}

int trend_build(struct trend *t, const struct trend_point_in *in, size_t n,
		int higher_better, char *err, size_t errlen)
{
	struct seg s = { t, NULL, 0, 0 };
	size_t *pts = NULL;
	int rc = -1, oom = 0;

	memset(t, 0, sizeof(*t));
	t->higher_better = higher_better < 0 ? -1 : !!higher_better;
	if (n > TREND_POINTS_MAX) {
		seterr(err, errlen, "trend: %zu commits, more than the %d allowed", n,
		       TREND_POINTS_MAX);
		return -1;
	}
	t->v = calloc(n ? n : 1, sizeof(*t->v));
	t->c = calloc(TREND_CHANGES_MAX, sizeof(*t->c));
	pts = calloc(n ? n : 1, sizeof(*pts));
	if (!t->v || !t->c || !pts) {
		oom = 1;
		goto out;
	}
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		struct trend_point *p = &t->v[i];

		p->order = in[i].order;
		p->median = p->p25 = p->p75 = p->min = p->max = NAN;
		if (!in[i].commit) {
			seterr(err, errlen, "trend: point %zu has no commit", i);
			goto out;
		}
		if (in[i].n > TREND_RUNS_MAX) {
			seterr(err, errlen, "trend: commit '%.40s': %zu runs, more than the %d "
			       "allowed", in[i].commit, in[i].n, TREND_RUNS_MAX);
			goto out;
		}
		p->commit = strdup(in[i].commit);
		p->v = malloc((in[i].n ? in[i].n : 1) * sizeof(*p->v));
		if (!p->commit || !p->v) {
			oom = 1;
			goto out;
		}
		for (size_t j = 0; j < in[i].n; j++) {
			if (!isfinite(in[i].v[j])) {
				seterr(err, errlen, "trend: commit '%.40s': value %zu is not finite",
				       in[i].commit, j);
				goto out;
			}
			p->v[j] = in[i].v[j];
		}
		p->n = in[i].n;
		if (!p->n)
			continue;
		qsort(p->v, p->n, sizeof(*p->v), cmp_dbl);
		p->min = p->v[0];
		p->max = p->v[p->n - 1];
		p->median = trend_quantile(p->v, p->n, 0.5);
		p->p25 = trend_quantile(p->v, p->n, 0.25);
		p->p75 = trend_quantile(p->v, p->n, 0.75);
		pts[s.m++] = i;
	}
	s.pts = pts;
	segment(&s, 0, s.m);
	if (s.oom) {
		oom = 1;
		goto out;
	}
	qsort(t->c, t->nc, sizeof(*t->c), cmp_change);
	if (refine(&s) < 0) {
		oom = 1;
		goto out;
	}
	rc = 0;
out:
	if (oom)
		seterr(err, errlen, "trend: out of memory");
	free(pts);
	return rc;
}

/* ---- pass rates ---- */

static int cmp_row(const void *a, const void *b)
{
	const struct trend_result *x = *(const struct trend_result *const *)a;
	const struct trend_result *y = *(const struct trend_result *const *)b;
	int c;

	if (!x->path || !y->path)
		c = !x->path - !y->path;   /* runs without rows last */
	else
		c = strcmp(x->path, y->path);
	if (c)
		return c;
	if (x->point != y->point)
		return (x->point > y->point) - (x->point < y->point);
	return (x->run > y->run) - (x->run < y->run);
}

static int cmp_point_run(const void *a, const void *b)
{
	const struct trend_result *x = *(const struct trend_result *const *)a;
	const struct trend_result *y = *(const struct trend_result *const *)b;

	if (x->point != y->point)
		return (x->point > y->point) - (x->point < y->point);
	return (x->run > y->run) - (x->run < y->run);
}

/* worst first: fail, missing, skip, pass (as passfail.c counts duplicates) */
static int severity(enum passfail_outcome o)
{
	switch (o) {
	case PASSFAIL_OUT_FAIL: return 3;
	case PASSFAIL_OUT_MISSING: return 2;
	case PASSFAIL_OUT_SKIP: return 1;
	default: return 0;
	}
}

/* Counts one path's rows g[0..ng) (sorted by point, run) into c[t->n] */
static int count_path(const struct trend *t, const struct trend_result *const *g, size_t ng,
		      struct trend_count *c)
{
	memset(c, 0, t->n * sizeof(*c));
	for (size_t i = 0; i < ng;) {
		enum passfail_outcome worst = PASSFAIL_OUT_PASS, o;
		size_t j = i;

		for (; j < ng && g[j]->point == g[i]->point && g[j]->run == g[i]->run; j++) {
			if (passfail_outcome_of(g[j]->status, &o) < 0)
				return -1;
			if (severity(o) > severity(worst))
				worst = o;
		}
		if (worst == PASSFAIL_OUT_PASS)
			c[g[i]->point].pass++;
		else if (worst == PASSFAIL_OUT_FAIL)
			c[g[i]->point].fail++;
		i = j;
	}
	for (size_t p = 0; p < t->n; p++)
		c[p].skip = t->runs[p] - c[p].pass - c[p].fail;
	return 0;
}

/* Appends the regressions and fixes of test ti: over the points with a
 * verdict, a stretch of TREND_HOLD or more in a row that fail (or all pass)
 * where the state held before was the other one. The first stretch sets
 * the state, however short. */
static int path_events(struct trend *t, size_t ti, size_t *alloc)
{
	const struct trend_count *c = t->tests[ti].c;
	size_t *vp, k = 0;
	int state = -1, rc = -1;   /* -1 none yet, 0 passing, 1 failing */

	vp = malloc((t->n ? t->n : 1) * sizeof(*vp));
	if (!vp)
		return -1;
	for (size_t p = 0; p < t->n; p++)
		if (c[p].pass + c[p].fail > 0)
			vp[k++] = p;
	for (size_t j = 0, e; j < k; j = e) {
		int fail = c[vp[j]].fail > 0;

		for (e = j; e < k && (c[vp[e]].fail > 0) == fail; e++)
			;
		if (state < 0) {
			state = fail;
			continue;
		}
		if (fail == state || e - j < TREND_HOLD)
			continue;
		state = fail;
		if (t->nev == *alloc) {
			size_t na = *alloc ? *alloc * 2 : 16;
			struct trend_event *ne = realloc(t->ev, na * sizeof(*ne));

			if (!ne)
				goto out;
			t->ev = ne;
			*alloc = na;
		}
		t->ev[t->nev++] = (struct trend_event){ ti, vp[j],
			fail ? TREND_REGRESSION : TREND_FIX };
	}
	rc = 0;
out:
	free(vp);
	return rc;
}

static int cmp_event(const void *a, const void *b)
{
	const struct trend_event *x = a, *y = b;

	if (x->index != y->index)
		return (x->index > y->index) - (x->index < y->index);
	return (x->test > y->test) - (x->test < y->test);
}

/* x's flips across its n points (see struct trend_test) */
static void path_flips(struct trend_test *x, size_t n)
{
	int last = -1;

	x->flips = x->chances = x->flaky_points = 0;
	for (size_t p = 0; p < n; p++) {
		const struct trend_count *c = &x->c[p];
		int v = c->fail ? 1 : c->pass ? 0 : -1;

		x->flaky_points += c->pass >= 1 && c->fail >= 1;
		if (v < 0)
			continue;
		if (last >= 0) {
			x->chances++;
			x->flips += v != last;
		}
		last = v;
	}
}

int trend_passrate(struct trend *t, const struct trend_result *rows, size_t n,
		   char *err, size_t errlen)
{
	const struct trend_result **ord = NULL;
	struct trend_count *scratch = NULL;
	size_t alloc_ev = 0;
	int rc = -1, oom = 0;

	if (n > TREND_ROWS_MAX) {
		seterr(err, errlen, "trend: %zu result rows, more than the %d allowed", n,
		       TREND_ROWS_MAX);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		enum passfail_outcome o;

		if (rows[i].point >= t->n) {
			seterr(err, errlen, "trend: result row %zu: point %zu of %zu", i,
			       rows[i].point, t->n);
			return -1;
		}
		if (rows[i].path && passfail_outcome_of(rows[i].status, &o) < 0) {
			seterr(err, errlen, "trend: result row %zu: status '%.20s' is unknown", i,
			       rows[i].status ? rows[i].status : "(none)");
			return -1;
		}
	}
	t->runs = calloc(t->n ? t->n : 1, sizeof(*t->runs));
	ord = malloc((n ? n : 1) * sizeof(*ord));
	scratch = malloc((t->n ? t->n : 1) * sizeof(*scratch));
	if (!t->runs || !ord || !scratch) {
		oom = 1;
		goto out;
	}
	/* the runs of each point */
	for (size_t i = 0; i < n; i++)
		ord[i] = &rows[i];
	qsort(ord, n, sizeof(*ord), cmp_point_run);
	for (size_t i = 0; i < n; i++)
		if (!i || ord[i]->point != ord[i - 1]->point || ord[i]->run != ord[i - 1]->run)
			t->runs[ord[i]->point]++;
	/* per path; only the ones that ever failed are kept */
	qsort(ord, n, sizeof(*ord), cmp_row);
	for (size_t i = 0; i < n && ord[i]->path;) {
		size_t j = i;
		int failed = 0;

		while (j < n && ord[j]->path && !strcmp(ord[j]->path, ord[i]->path))
			j++;
		/* cannot fail: the statuses were checked above */
		if (count_path(t, ord + i, j - i, scratch) < 0) {
			oom = 1;
			goto out;
		}
		for (size_t p = 0; p < t->n; p++)
			failed |= scratch[p].fail > 0;
		if (!failed) {
			t->always_pass++;
		} else if (t->ntests == TREND_TESTS_MAX) {
			t->tests_dropped++;
		} else {
			struct trend_test *nt = realloc(t->tests, (t->ntests + 1) * sizeof(*nt));

			if (!nt) {
				oom = 1;
				goto out;
			}
			t->tests = nt;
			nt = &t->tests[t->ntests];
			nt->path = strdup(ord[i]->path);
			nt->c = malloc((t->n ? t->n : 1) * sizeof(*nt->c));
			if (!nt->path || !nt->c) {
				free(nt->path);
				free(nt->c);
				oom = 1;
				goto out;
			}
			memcpy(nt->c, scratch, t->n * sizeof(*nt->c));
			path_flips(nt, t->n);
			t->ntests++;
			if (path_events(t, t->ntests - 1, &alloc_ev) < 0) {
				oom = 1;
				goto out;
			}
		}
		i = j;
	}
	qsort(t->ev, t->nev, sizeof(*t->ev), cmp_event);
	t->have_passrate = 1;
	rc = 0;
out:
	if (oom)
		seterr(err, errlen, "trend: out of memory");
	free(ord);
	free(scratch);
	return rc;
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* json_object_set_new that remembers a failure in *bad */
static void put(json_t *o, const char *key, json_t *v, int *bad)
{
	if (!v || json_object_set_new(o, key, v) < 0)
		*bad = 1;
}

static void append(json_t *a, json_t *v, int *bad)
{
	if (!v || json_array_append_new(a, v) < 0)
		*bad = 1;
}

/* A JSON string of s with invalid UTF-8 made '?': commits and paths come
 * from git and guests */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s);
	char *d;

	if (j || !s)
		return j ? j : json_null();
	d = strdup(s);
	if (!d)
		return NULL;
	for (char *p = d; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	j = json_string(d);
	free(d);
	return j;
}

static json_t *passrate_json(const struct trend *t)
{
	json_t *o = json_object(), *runs = json_array(), *tests = json_array();
	json_t *ev = json_array();
	int bad = !o || !runs || !tests || !ev;

	for (size_t p = 0; !bad && p < t->n; p++)
		append(runs, json_integer(t->runs[p]), &bad);
	for (size_t i = 0; !bad && i < t->ntests; i++) {
		json_t *x = json_object(), *pa = json_array(), *fa = json_array();
		json_t *sa = json_array();

		if (!x || !pa || !fa || !sa) {
			json_decref(x);
			json_decref(pa);
			json_decref(fa);
			json_decref(sa);
			bad = 1;
			break;
		}
		for (size_t p = 0; p < t->n; p++) {
			append(pa, json_integer(t->tests[i].c[p].pass), &bad);
			append(fa, json_integer(t->tests[i].c[p].fail), &bad);
			append(sa, json_integer(t->tests[i].c[p].skip), &bad);
		}
		put(x, "path", jstr(t->tests[i].path), &bad);
		put(x, "pass", pa, &bad);
		put(x, "fail", fa, &bad);
		put(x, "skip", sa, &bad);
		put(x, "flips", json_integer(t->tests[i].flips), &bad);
		put(x, "chances", json_integer(t->tests[i].chances), &bad);
		put(x, "flip_rate", t->tests[i].chances ? json_real((double)t->tests[i].flips /
			t->tests[i].chances) : json_null(), &bad);
		put(x, "flaky_points", json_integer(t->tests[i].flaky_points), &bad);
		append(tests, x, &bad);
	}
	for (size_t i = 0; !bad && i < t->nev; i++)
		append(ev, json_pack("{s:o, s:I, s:o, s:s}",
				     "path", jstr(t->tests[t->ev[i].test].path),
				     "index", (json_int_t)t->ev[i].index,
				     "commit", jstr(t->v[t->ev[i].index].commit),
				     "kind", trend_event_name(t->ev[i].kind)), &bad);
	if (bad) {
		json_decref(o);
		json_decref(runs);
		json_decref(tests);
		json_decref(ev);
		return NULL;
	}
	put(o, "runs", runs, &bad);
	put(o, "tests", tests, &bad);
	put(o, "always_pass", json_integer((json_int_t)t->always_pass), &bad);
	put(o, "events", ev, &bad);
	put(o, "tests_dropped", json_integer((json_int_t)t->tests_dropped), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *trend_json(const struct trend *t)
{
	json_t *o = json_object(), *pts = json_array(), *chg = json_array();
	int bad = !o || !pts || !chg;

	for (size_t i = 0; !bad && i < t->n; i++) {
		const struct trend_point *p = &t->v[i];
		json_t *x = json_object(), *vals = json_array();

		if (!x || !vals) {
			json_decref(x);
			json_decref(vals);
			bad = 1;
			break;
		}
		for (size_t j = 0; j < p->n; j++)
			append(vals, json_real(p->v[j]), &bad);
		put(x, "commit", jstr(p->commit), &bad);
		put(x, "order", json_integer(p->order), &bad);
		put(x, "n", json_integer((json_int_t)p->n), &bad);
		put(x, "median", jnum(p->median), &bad);
		put(x, "p25", jnum(p->p25), &bad);
		put(x, "p75", jnum(p->p75), &bad);
		put(x, "min", jnum(p->min), &bad);
		put(x, "max", jnum(p->max), &bad);
		put(x, "values", vals, &bad);
		append(pts, x, &bad);
	}
	for (size_t i = 0; !bad && i < t->nc; i++) {
		const struct trend_change *c = &t->c[i];

		append(chg, json_pack("{s:I, s:o, s:o, s:o, s:I, s:I, s:o, s:o, s:I, s:s}",
				      "index", (json_int_t)c->index,
				      "commit", jstr(t->v[c->index].commit),
				      "before", jnum(c->before), "after", jnum(c->after),
				      "n_before", (json_int_t)c->n_before,
				      "n_after", (json_int_t)c->n_after,
				      "change_pct", jnum(c->change_pct), "p", jnum(c->p),
				      "splits", (json_int_t)c->splits,
				      "verdict", trend_dir_name(c->dir)), &bad);
	}
	if (bad) {
		json_decref(o);
		json_decref(pts);
		json_decref(chg);
		return NULL;
	}
	put(o, "better", t->higher_better < 0 ? json_null()
	    : json_string(t->higher_better ? "higher" : "lower"), &bad);
	put(o, "params", json_pack("{s:f, s:f, s:i}", "alpha", TREND_ALPHA,
				   "min_change_pct", TREND_MIN_CHANGE * 100,
				   "min_points", TREND_MIN_POINTS), &bad);
	put(o, "points", pts, &bad);
	put(o, "changes", chg, &bad);
	put(o, "changes_dropped", json_boolean(t->changes_dropped), &bad);
	if (t->have_passrate)
		put(o, "passrate", passrate_json(t), &bad);
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}
