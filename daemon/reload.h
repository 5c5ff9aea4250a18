/* SPDX-License-Identifier: GPL-2.0-only */
/* reload.h: kfleetd's config read again, on SIGHUP and POST /api/reload
 * (reload.c): what changed is said key by key, what is safe to change
 * live is applied, the rest waits for the next restart. */
#ifndef KF_DAEMON_RELOAD_H
#define KF_DAEMON_RELOAD_H

struct config;
struct json_t;
struct reload;

/* running: the config kfleetd started with; path: the file it was read
 * from (NULL: the embedded defaults, nothing to read again); debug: -d
 * was given, which the config's log_level does not override. running and
 * path are borrowed for the reload's life. NULL when out of memory. */
struct reload *reload_new(const struct config *running, const char *path, int debug);
void reload_free(struct reload *r);
/* Reads path into a fresh config and compares it with the one kfleetd
 * runs with: logs one line per key that differs (old -> new, applied now
 * or at the next restart) and a summary, and applies what it can
 * (log_level). 0, with *answer (NULL: not wanted; caller decrefs) the same
 * as a JSON object (web.h's POST /api/reload); -1 when the file cannot be
 * read or has errors, logged and in *err (NULL: not wanted; caller frees):
 * then nothing changed. One reload at a time: a second caller waits. */
int reload_run(struct reload *r, struct json_t **answer, char **err);

#endif
