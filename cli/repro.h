/* SPDX-License-Identifier: GPL-2.0-only */
/* repro.h: kfleet repro RUN (cmd_repro.c): a run's reproducer, a
 * directory or tarball that boots it again by hand. */
#ifndef KF_CLI_REPRO_H
#define KF_CLI_REPRO_H

struct cli;

int cli_repro(struct cli *k, int argc, char **argv);

#endif
