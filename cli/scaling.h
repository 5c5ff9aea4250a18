/* SPDX-License-Identifier: GPL-2.0-only */
/* scaling.h: the CLI's scaling tables (scaling.c): a comparison's cells
 * that differ only in vCPUs, laid out with vCPUs as rows
 * (analysis/scaling.h), after kfleet compare's and kfleet test's tables;
 * and the --vcpus list kfleet test takes. */
#ifndef KF_CLI_SCALING_H
#define KF_CLI_SCALING_H

#include <jansson.h>

#include "common/buf.h"

struct cli;

#define CLI_VCPUS_MAX 16   /* vCPU counts in one kfleet test */

/* The scaling tables of GET /api/compare's "comparisons" onto out (text,
 * or markdown), for each group of cells with two vCPU counts or more;
 * nothing when there is none. 0, or -1 after saying why on stderr. */
int cli_scaling_render(json_t *comparisons, int markdown, struct buf *out);
/* GET /api/compare of kernels a and b for job (margin may be NULL) and
 * prints its scaling tables, with a blank line first; nothing when the
 * cells do not span two vCPU counts. 0 / -1 after saying why */
int cli_scaling_report(struct cli *k, long long a, long long b, const char *job, int markdown,
		       const char *margin);
/* "1,2,16" into v[0..*n) (each 1 to 4096, at most CLI_VCPUS_MAX).
 * 0, or -1 after saying what is wrong on stderr (cmd names the command) */
int cli_vcpus_list(const char *cmd, const char *s, int *v, size_t *n);

#endif
