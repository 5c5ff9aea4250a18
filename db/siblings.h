/* SPDX-License-Identifier: GPL-2.0-only */
/* siblings.h: the requests that compare the same two kernels with the
 * same job as a given one (siblings.c), made at other vCPU counts (a
 * submission's --vcpus 1,16,96, or kfleet test --vcpus 1,2): what the
 * request page's scaling chart (web/scaling.c) draws together. */
#ifndef KF_DB_SIBLINGS_H
#define KF_DB_SIBLINGS_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct request;

/* The ids of the latest max requests (q among them) with q's base and
 * patched kernel and job, oldest first, into *ids (the caller frees).
 * 0 / -1 */
int db_request_siblings(struct db *db, const struct request *q, size_t max, int64_t **ids,
			size_t *n);

#endif
