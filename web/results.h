/* SPDX-License-Identifier: GPL-2.0-only */
/* results.h: the files a job left in its results directory (results.c),
 * for the run's page, its JSON and /runs/ID/results/PATH. */
#ifndef KF_WEB_RESULTS_H
#define KF_WEB_RESULTS_H

#include <jansson.h>
#include <microhttpd.h>
#include <stdint.h>

#include "common/buf.h"

/* A table for the run page (nothing when there are none) */
void web_results_html(struct buf *b, const char *run_dir, int64_t run_id);
/* A JSON array of {path, bytes, url}; NULL when memory ran out */
json_t *web_results_json(const char *run_dir, int64_t run_id);
/* One of them, rel being its path under the directory */
enum MHD_Result web_results_file(struct MHD_Connection *c, const char *run_dir, int64_t run_id,
				 const char *rel);

#endif
