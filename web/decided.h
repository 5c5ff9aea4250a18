/* SPDX-License-Identifier: GPL-2.0-only */
/* decided.h: a request's until-decided mode as the request page and
 * /api/requests/ID show it (web/decided.c): its cap, rounds, runs a side
 * and why it stopped, or that it is still deciding. web/ only. */
#ifndef KF_WEB_DECIDED_H
#define KF_WEB_DECIDED_H

#include <jansson.h>

#include "common/buf.h"

struct db;
struct request;

/* 1 when the request is still deciding (more rounds may come) */
int web_decided_pending(const struct request *q);
/* Rows of the page's table onto b (inside <table class="kv">) */
void web_decided_html(struct buf *b, struct db *db, const struct request *q);
/* {"mode": "fixed"|"until-decided", "state", "max_runs", "margin",
 * "rounds", "runs_per_side", "stop_reason", "decided_at", "round_list":
 * [{"n", "pairs", "queued_at", "why"}]}: new reference, NULL on error */
json_t *web_decided_json(struct db *db, const struct request *q);

#endif
