/* cli.h: kfleet CLI commands that live outside kfleet.c, each in a
 * cli_NAME.c of its own. kfleet.c's main() hands them its argv from the
 * command word on and exits with what they return. */
#ifndef KF_CLI_H
#define KF_CLI_H

/* `kfleet series show ...` (argv[0] is "series"): reads a patch series
 * from an mbox file, a URL, a lore message-id or a patchwork series and
 * prints it as kfleet understood it. Needs neither the daemon nor a
 * config. Returns the exit status: 0, or 2 for usage, fetch and parse
 * errors (the message on stderr). */
int cli_series(int argc, char **argv);

#endif
