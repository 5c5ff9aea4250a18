/* SPDX-License-Identifier: GPL-2.0-only */
/* watch.h: continuous testing: a watch follows a patchwork project
 * (REST: the series posted since its stored position), takes each new
 * series version its rules accept into kfleet's own series intake (the
 * same path as `kfleet test --patchwork`), and reports back: a
 * patchwork check per patch (pending when queued, then the verdict) and
 * a reply mail written to report_dir. The spec is the keys of a
 * [watch NAME] config section or of `kfleet watch add`, the same words
 * either way (watch/spec.c); the poller thread is watch.c. */
#ifndef KF_WATCH_H
#define KF_WATCH_H

#include <regex.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

struct orch;
struct json_t;

#define WATCH_NAME_MAX    64
#define WATCH_TAGS_MAX    32
#define WATCH_API_MAX     (4u << 20)   /* one answer of the REST API */
#define WATCH_PAGES_MAX   10           /* pages of series read per poll */
#define WATCH_PER_PAGE    50
#define WATCH_BACKOFF_MAX 3600         /* s: the longest wait after errors */
#define WATCH_INCOMPLETE_S 3600      /* s a series waits for the rest of its patches */
#define WATCH_TRIES_MAX   5            /* takes of a series (its mbox) before it is an error */
#define WATCH_PATCHES_WAIT_S 3600      /* a lore thread waits this long for its patches */

/* A subject tag and where its series go */
struct watch_tag {
	char *tag;                /* "bpf-next", compared without case */
	char *tree;               /* a tree kfleet has (kfleet tree add) */
	char *branch;             /* the base when the series names no base-commit; NULL:
				     the tree's head */
};

struct watch_spec {
	char *name;
	char *patchwork;          /* the instance's base URL (no /api) */
	char *project;            /* its linkname or id */
	char *lore;               /* or a public-inbox list ("https://lore.kernel.org/bpf"):
				     its Atom feed, then each series' thread mbox */
	struct watch_tag *tags;
	size_t ntags;
	char *tree, *branch;      /* where a series with no matching tag goes; NULL: skipped */
	char *subject;            /* an extended regex the series name must match, or NULL */
	regex_t re;
	int has_re;
	char *jobs, *arches, *vcpus;
	int repeat;
	int max_running;          /* its runs going at once, at most (0: no cap); the fair
				     queue reads it from the stored spec (db_queue_classes()) */
	int interval_s;           /* between polls */
	int timeout_s;            /* of one HTTP call */
	char *token, *token_file; /* patchwork's API token, or the file holding it */
	int checks;               /* post checks (default: when a token is given) */
	char *context;            /* the checks' context, "kfleet" */
	char *report_dir;         /* reply mails written here, or NULL */
	int send;                 /* also send them (SMTP): off unless "send = yes" */
	char *smtp, *from, *to;
	char *link_base;          /* kfleet's pages as the checks link them ("http://host:port") */
	char *kcidb;              /* the KCIDB export of each reported series: "file"
				     (into report_dir), a directory, or an http(s) URL
				     to POST it to; NULL: none */
	char *kcidb_token_file;   /* a file whose first line is the Bearer token of
				     the KCIDB POST (kcidb-ng's REST API), or NULL */
	char *since;              /* the first poll's position: a date, as patchwork's
				     ?since= takes it; NULL: when the watch was added */
};

/* Checks one key of a spec (from a config line or the API): 0, or -1
 * with msg ("tags: 'x' is not TAG=TREE[:BRANCH]"). */
int watch_key_check(const char *key, const char *value, char *msg, size_t n);
/* Every key a watch takes, NULL-terminated (static; for kfleetd.conf(5)) */
const char *const *watch_spec_keys(void);
/* The whole spec from a JSON object of string values (as stored): 0, or
 * -1 with msg naming the key. watch_spec_release() it either way. */
int watch_spec_parse(const char *name, const struct json_t *obj, struct watch_spec *s,
		     char *msg, size_t n);
void watch_spec_release(struct watch_spec *s);
/* The JSON object of n keys and values (a [watch] section); a new
 * reference, NULL when out of memory */
struct json_t *watch_spec_json(const char *const *keys, const char *const *values, size_t n);
/* Whether name is a watch name (1 to WATCH_NAME_MAX of A-Z a-z 0-9 . _ -) */
int watch_name_ok(const char *name);

/* A series' title: its name without the bracketed tags in front
 * ("[PATCH fake-next v2 0/3] ", patchwork's "[fake-next,v2] ") and the
 * blanks around them, so the versions of one series, a single patch's
 * too, have the same title; borrowed from name */
const char *watch_series_title(const char *name);
/* What the rules make of a series: 1 taken (tree and branch borrowed from
 * s, why says which rule), 0 skipped (why says why) */
int watch_rules_match(const struct watch_spec *s, const char *name, const char *subject,
		      const char **tree, const char **branch, char *why, size_t n);

/* Hands what the [watch NAME] sections of a config mean (watch/config.c)
 * to the config room, which keeps them as written: called by each program
 * that reads a config with watches (kfleetd, kfleet), before config_load() */
void watch_config_register(void);

/* The daemon's side (watch.c): the [watch] sections of the config stored
 * and the poller started; stopped before the database closes. */
int watcher_start(struct orch *o);
void watcher_stop(struct orch *o);
/* kfleet watch add: the spec checked and stored. 0, -1 bad (*err for the
 * user), -2 internal; *err: caller frees */
int orch_watch_add(struct orch *o, const char *name, const struct json_t *spec, char **err);
/* kfleet watch rm: 0, -1 no such watch or one of the config's, -2 */
int orch_watch_remove(struct orch *o, const char *name, char **err);

#endif
