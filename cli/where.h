/* SPDX-License-Identifier: GPL-2.0-only */
/* where.h: where the queued and running runs are (where.c), under
 * `kfleet runs`: a queued run's place in the queue and expected start, a
 * running run's time so far against its job's usual time (GET /api/queue,
 * web/queue.c's estimates). */
#ifndef KF_CLI_WHERE_H
#define KF_CLI_WHERE_H

struct cli;

/* Prints a line per queued or running run; nothing when there is none.
 * 0, or -1 after saying why on stderr. */
int cli_runs_where(struct cli *k);

#endif
