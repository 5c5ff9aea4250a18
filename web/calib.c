// SPDX-License-Identifier: GPL-2.0-only
/* calib.c: a job's noise per metric and cell on /jobs/NAME and in
 * /api/jobs/NAME: the runs the job has (db/calib.c), their noise pooled
 * within kernels and the runs a side a change of 2%, 5%, 10% would need
 * (analysis/calib.c, by cmp_decide()'s rule), so one can tell how many
 * runs to ask for before a comparison. */
#include "web/calib.h"
#include "web/reply.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/analysis.h"
#include "analysis/calib.h"
#include "common/log.h"
#include "db/db.h"

/* The job's series and their noise, est parallel to s. 0 / -1 (why in
 * err, static) */
static int load(struct db *db, const char *job, struct db_calib_series **s, size_t *n,
		struct calib_noise **est, int *truncated, const char **err)
{
	*est = NULL;
	if (db_calib_series(db, job, s, n, truncated) < 0) {
		*err = db_errmsg(db);
		return -1;
	}
	if (*n && !(*est = calloc(*n, sizeof(**est)))) {
		db_calib_free(*s, *n);
		*err = "out of memory";
		return -1;
	}
	for (size_t i = 0; i < *n; i++)
		if (calib_estimate((*s)[i].v, (*s)[i].kernel, (*s)[i].n, &(*est)[i]) < 0)
			(*est)[i].cv = NAN;   /* a value that is not finite: no estimate */
	return 0;
}

static void runs_cell(struct buf *b, int runs)
{
	if (runs <= 0)
		buf_puts(b, "<td>-</td>");
	else if (runs >= CMP_RUNS_CAP)
		buf_printf(b, "<td>&ge;%d</td>", CMP_RUNS_CAP);
	else
		buf_printf(b, "<td>%d</td>", runs);
}

void web_calib_html(struct buf *b, struct db *db, const char *job)
{
	struct db_calib_series *s = NULL;
	struct calib_noise *est = NULL;
	const char *err = NULL;
	size_t n = 0;
	int truncated = 0;

	buf_puts(b, "<h2>noise</h2>\n");
	if (!db || load(db, job, &s, &n, &est, &truncated, &err) < 0) {
		buf_puts(b, "<p>the noise could not be read: ");
		web_html_str(b, err ? err : "no database");
		buf_puts(b, "</p>\n");
		return;
	}
	if (!n) {
		buf_puts(b, "<p>no passed runs with metrics yet: run the job a few times on one "
			 "kernel (an A/A comparison) to see its noise</p>\n");
		goto out;
	}
	buf_printf(b, "<p>From the job's newest passed runs%s: the spread of the runs on one "
		   "kernel, pooled over kernels (kernels that differ do not count as noise), as "
		   "the comparisons see it (the SD of the logs, about the CV); and the runs a "
		   "side a comparison needs to call a change of that size at p &lt; %g with 80%% "
		   "chance.</p>\n", truncated ? " (only some of them: there are more)" : "",
		   CMP_ALPHA);
	buf_puts(b, "<table class=\"calib\"><thead><tr><th>metric</th><th>unit</th>"
		 "<th>arch</th><th>vCPUs</th><th>CV</th><th>runs</th><th>kernels</th>");
	for (int c = 0; c < CALIB_NCHANGES; c++)
		buf_printf(b, "<th>runs a side for %g%%</th>", calib_changes[c] * 100);
	buf_puts(b, "</tr></thead><tbody>\n");
	for (size_t i = 0; i < n; i++) {
		buf_puts(b, "<tr><td>");
		web_html_str(b, s[i].metric);
		buf_puts(b, "</td><td>");
		web_html_str(b, s[i].unit);
		buf_puts(b, "</td><td>");
		web_html_str(b, s[i].arch);
		buf_printf(b, "</td><td>%d</td><td>", s[i].vcpus);
		if (isfinite(est[i].cv))
			buf_printf(b, "%.2f%%%s", est[i].cv * 100, est[i].log_scale ? "" :
				   " (of the median)");
		else
			buf_puts(b, "- (needs 2 runs on one kernel)");
		buf_printf(b, "</td><td>%zu</td><td>%zu</td>", est[i].runs, est[i].kernels);
		for (int c = 0; c < CALIB_NCHANGES; c++)
			runs_cell(b, est[i].runs_needed[c]);
		buf_puts(b, "</tr>\n");
	}
	buf_puts(b, "</tbody></table>\n");
out:
	free(est);
	db_calib_free(s, n);
}

static json_t *row_json(const struct db_calib_series *s, const struct calib_noise *e)
{
	json_t *need = json_array();
	json_t *o = json_pack("{s:o, s:o, s:o, s:i, s:o, s:b, s:I, s:I}",
			      "metric", web_json_str(s->metric), "unit", web_json_str(s->unit),
			      "arch", web_json_str(s->arch), "vcpus", s->vcpus,
			      "cv", isfinite(e->cv) ? json_real(e->cv) : json_null(),
			      "log_scale", e->log_scale, "runs", (json_int_t)e->runs,
			      "kernels", (json_int_t)e->kernels);

	if (!o || !need)
		goto fail;
	for (int c = 0; c < CALIB_NCHANGES; c++) {
		json_t *r = json_pack("{s:f, s:o}", "change", calib_changes[c], "runs",
				      e->runs_needed[c] > 0 ? json_integer(e->runs_needed[c])
				      : json_null());

		if (!r || json_array_append_new(need, r) < 0)
			goto fail;
	}
	if (json_object_set_new(o, "runs_needed", need) < 0) {
		need = NULL;
		goto fail;
	}
	return o;
fail:
	json_decref(need);
	json_decref(o);
	return NULL;
}

int web_calib_json(json_t *o, struct db *db, const char *job, const char *db_err)
{
	struct db_calib_series *s = NULL;
	struct calib_noise *est = NULL;
	const char *err = db_err ? db_err : "no database";
	json_t *arr = NULL;
	size_t n = 0;
	int truncated = 0, rc = -1;

	if (!db || load(db, job, &s, &n, &est, &truncated, &err) < 0) {
		log_warn("web: job '%s': calibration: %s", job, err);
		return json_object_set_new(o, "calibration", json_null()) < 0 ||
		       json_object_set_new(o, "calibration_error", web_json_str(err)) < 0 ? -1 : 0;
	}
	if (!(arr = json_array()))
		goto out;
	for (size_t i = 0; i < n; i++)
		if (json_array_append_new(arr, row_json(&s[i], &est[i])) < 0)
			goto out;
	if (json_object_set_new(o, "calibration", arr) < 0) {
		arr = NULL;
		goto out;
	}
	arr = NULL;
	if (json_object_set_new(o, "calibration_truncated", json_boolean(truncated)) < 0)
		goto out;
	rc = 0;
out:
	json_decref(arr);
	free(est);
	db_calib_free(s, n);
	return rc;
}
