/* SPDX-License-Identifier: GPL-2.0-only */
/* runparts.h: a run's results and samples as JSON rows, and the link to
 * the next page of them (runparts.c), for GET /api/runs/ID and its pages */
#ifndef KF_WEB_RUNPARTS_H
#define KF_WEB_RUNPARTS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define WEB_RESULTS_PAGE_MAX 5000   /* rows of GET /api/runs/ID/results at most */

/* [{path, status, detail}...] / [{metric, unit, value, seq}...]; NULL when
 * out of memory */
json_t *web_result_rows_json(const struct result_row *rows, size_t n);
json_t *web_sample_rows_json(const struct sample_row *rows, size_t n);
/* "/api/runs/ID/WHAT?offset=N" of the page after n rows from offset, or
 * JSON null when they reach total */
json_t *web_run_page_next(int64_t id, const char *what, long long offset, size_t n,
			  long long total);

#endif
