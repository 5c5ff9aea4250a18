/* SPDX-License-Identifier: GPL-2.0-only */
/* calib.h: a job's noise on its page and in its JSON (calib.c), for
 * pages_job and api_job. */
#ifndef KF_WEB_CALIB_H
#define KF_WEB_CALIB_H

#include <jansson.h>

#include "common/buf.h"

struct db;

/* The job's noise per metric and cell (analysis/calib.h) as a section of
 * its page: a table, or a line saying why there is none. */
void web_calib_html(struct buf *b, struct db *db, const char *job);
/* The same as {"calibration": [{"metric", "unit", "arch", "vcpus", "cv",
 * "log_scale", "runs", "kernels", "runs_needed": [{"change", "runs"}]}],
 * "calibration_truncated"} set into o; db NULL or an error sets
 * "calibration" null and "calibration_error". 0, -1 out of memory. */
int web_calib_json(json_t *o, struct db *db, const char *job, const char *db_err);

#endif
