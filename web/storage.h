/* SPDX-License-Identifier: GPL-2.0-only */
/* storage.h: what the storage pass pruned of a run's files (storage.c),
 * on the run page, in its JSON, and as the answer for a pruned file. */
#ifndef KF_WEB_STORAGE_H
#define KF_WEB_STORAGE_H

#include <jansson.h>
#include <microhttpd.h>
#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "db/db.h"

#define WEB_PRUNED_MAX 1000     /* rows of one run shown */

/* The pruned row of run_dir's file name (as under the directory,
 * "results/x.log"), borrowed from v; NULL when it was not pruned */
const struct db_pruned *web_pruned_find(const struct db_pruned *v, size_t n,
					const char *run_dir, const char *name);
/* One line saying it was pruned: its size, when and why */
void web_pruned_note(struct buf *b, const struct db_pruned *p, const char *what);
/* The run page's storage section: the initrd's manifest, what was pruned */
void web_storage_html(struct buf *b, const char *run_dir, const struct db_pruned *v, size_t n);
/* A JSON array of {file, dir, bytes, pruned_at, why}; NULL when memory ran out */
json_t *web_pruned_json(const struct db_pruned *v, size_t n);
/* 410 Gone for a pruned file */
enum MHD_Result web_reply_pruned(struct MHD_Connection *c, int64_t run_id,
				 const struct db_pruned *p);

#endif
