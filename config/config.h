/* SPDX-License-Identifier: GPL-2.0-only */
/* config.h: kfleetd's configuration, an INI file read with inih.
 * With no file the embedded defaults apply (state ./var, one host
 * qemu:///system, web on 127.0.0.1:8080). Errors name file:line. */
#ifndef KF_CONFIG_H
#define KF_CONFIG_H

#include <stdio.h>

#include "common/buf.h"
#include "common/log.h"

struct config_host {
	char *name;
	char *uri;      /* libvirt URI */
	int slots;      /* guests at once on this host */
	int cpus;       /* the CPUs runs are packed into, a run taking min(vCPUs, cpus):
			   -1 auto (the host's, as libvirt says), 0 not counted */
	char *accel;    /* "auto", "kvm" or "tcg" */
	char *transfer; /* "auto", "files" or "upload": how kernels, initrds and disks reach
			   the host (paths, or storage volumes), and whether console and
			   channel come back as files or libvirt streams */
	char *pool;       /* upload: the host's storage pool for them ("kfleet") ... */
	char *pool_path;  /* ... and its directory there, made when the pool is new */
	char *firmware;   /* x86_64 guests' BIOS: "seabios" (QEMU's default) or "qboot"
			     (QEMU's qboot.rom: a direct kernel boot ~150 ms sooner) */
	char *boot;       /* "default", or "fast": the quickest guest setup that still
			     runs the jobs (orchestrator/guest.c, GUEST_FAST_ARGS) */
	char *kernel_args; /* after kfleet's own (and boot = fast's) on every guest's
			      kernel command line, "" none: printable ASCII, at most
			      CONFIG_KERNEL_ARGS_MAX bytes; part of the run's boot setup */
	int connect_timeout_s;  /* a connection not made by then: the host is down,
				   tried again in the background (hostconn.c) */
};

#define CONFIG_KERNEL_ARGS_MAX 512

/* QEMU's qboot ROM on a host, for firmware = qboot */
#define CONFIG_QBOOT_ROM "/usr/share/qemu/qboot.rom"

/* A [watch NAME] section: its keys as written (watch/spec.c
 * checks them) */
struct config_watch {
	char *name;
	char **keys, **values;
	size_t n;
};

#define CONFIG_WATCH_NAME_MAX 64

/* What the [watch NAME] sections mean, which the config room keeps as
 * written (config/watches.c): watch/ gives it (watch_config_register()).
 * name_ok: 1 when a watch may be called name; key and whole: 0, or -1
 * with msg */
struct config_watch_checker {
	int (*name_ok)(const char *name);
	int (*key)(const char *key, const char *value, char *msg, size_t n);
	int (*whole)(const struct config_watch *w, char *msg, size_t n);
};
/* Before config_load(); without it, a [watch NAME] section is an error */
void config_watch_checker_set(const struct config_watch_checker *k);

struct config {
	char *path;              /* the file read, NULL for the embedded defaults */
	int installed;           /* kfleetd/kfleet run from an install (PREFIX/sbin beside
				    PREFIX/lib/kfleet), not from the build tree */
	char *etc_dir;           /* installed: SYSCONFDIR/kfleet; else NULL */
	char *state_dir;         /* database, token, runs/, cache/ */
	char *listen_addr;       /* IPv4 or IPv6 literal */
	int listen_port;
	enum log_level log_level;
	unsigned long long min_free_disk; /* under state_dir; less: hosts out of placement */
	char *kcidb_origin;      /* the KCIDB export's origin ("kfleet") */
	char *public_url;        /* the base of every link kfleet writes for others
				    (KCIDB, checks, mail): "https://host[:port][/path]",
				    no trailing '/'; NULL: the listen address */
	char *public_host;       /* its "NAME[:PORT]", a Host the pages are served for */
	char *allowed_hosts;     /* names a request's Host may give besides the daemon's
				    own: "NAME[:PORT] ..." normalised, NULL for none */
	struct config_host *hosts;
	size_t nhosts;
	/* [run] defaults and limits */
	int run_memory_mb;
	int run_timeout_s;
	int boot_timeout_s;
	int silence_timeout_s;   /* no console or agent output this long: a hang; 0 = off */
	int max_attempts;
	int reserve_after_s;     /* a queued run that fits a host only emptier waits this
				    long, then the host keeps room for it; 0: never */
	unsigned long long console_max;   /* bytes of console kept; more ends the run */
	unsigned long long output_max;    /* bytes of command output kept */
	unsigned long long results_stream;/* a results archive up to this size comes from
					     the agent; 0: always copied out of the disk */
	/* [image] */
	char *busybox;           /* static busybox for x86_64 guests */
	char *busybox_arm64;     /* static busybox for arm64 guests */
	char *modules_path;      /* ':'-separated dirs holding RELEASE/modules.dep */
	char *programs_dir;      /* a job's programs: programs_dir/ARCH/NAME */
	char *job_dirs;          /* ':'-separated dirs of *.job files */
	char *agent_dir;         /* where kfleet-agent-<arch> lives; default: next to kfleetd */
	char *debian_suite;      /* root disks of jobs with rootfs: Debian release ... */
	char *debian_mirror;     /* ... and the archive their packages come from */
	/* [build] kernels built from trees and series */
	int build_jobs;          /* make -jN; default: the host's CPUs */
	int build_timeout_s;     /* a whole build */
	int build_sandbox;       /* bwrap around git am and make */
	char *build_user;        /* the unprivileged user builds run as */
	unsigned long long build_log_max;   /* a build log's cap (a step past it is stopped) */
	unsigned long long build_disk_max;  /* what one build may write in O= and its stage */
	int build_ccache;
	char *build_config;      /* the base config when a submission names none */
	char *configs_dir;       /* kfleet's config fragments (kernels/configs) */
	char *build_arches;      /* the arches a submission builds when it names none */
	int build_speculate;     /* a bisection builds its next step's two possible
				    commits ahead: 1 yes, 0 no, -1 auto (when the host has
				    CPUs to spare: 8 or more) */
	/* [quiet] benchmarks on cores of their own (quiet.c) */
	int quiet_pin;           /* QUIET_PIN_*: which runs get host cores of their own */
	int quiet_busy_wait;     /* no cores free: 1 a run to pin waits, 0 it runs unpinned */
	int quiet_builds;        /* QUIET_BUILDS_*: builds beside a pinned run */
	int quiet_reserve;       /* host cores never pinned (kept for the host) */
	/* [storage] what the state directory keeps (orchestrator/storage.c) */
	unsigned long long storage_budget; /* bytes the state directory may hold; 0: no budget */
	int storage_keep_days;   /* a concluded run's large files kept this long; 0: always */
	unsigned long long storage_large;  /* a run's files this big or more may be pruned */
	int storage_interval_s;  /* a pass this often (and after runs conclude) */
	int storage_keep_initrd; /* keep each run's whole initrd (kfleet before the
				    manifest): for comparison, bench/storage.sh */
	struct config_watch *watches;  /* [watch NAME] sections (watch/watch.h) */
	size_t nwatches;
};

enum { QUIET_PIN_AUTO, QUIET_PIN_YES, QUIET_PIN_NO };   /* auto: jobs with metrics */
enum { QUIET_BUILDS_AVOID, QUIET_BUILDS_PAUSE, QUIET_BUILDS_SHARE };

/* Fills c with the embedded defaults. 0 / -1 */
int config_defaults(struct config *c);
/* Reads path over the defaults already in c. On error returns -1 and
 * appends one "file:line: message" line per problem to err. */
int config_load(struct config *c, const char *path, struct buf *err);
/* Prints the configuration normalised, in the file's own format. */
/* The ids of [build] user (a name, or UID:GID; never root's). 0 / -1 */
int config_build_user(const struct config *c, unsigned *uid, unsigned *gid);
void config_print(const struct config *c, FILE *out);
/* 1 when listen is not a loopback address, with msg saying what that
 * exposes (kfleetd warns at start and with -n); else 0 */
int config_listen_exposed(const struct config *c, char *msg, size_t n);
void config_release(struct config *c);

/* The database, token and per-run paths under the state directory; caller frees. */
char *config_db_path(const struct config *c);
/* The i-th of the keys kfleetd reads, in the parser's order (sections,
 * then keys, sorted): its section ("host" for every [host NAME]), *key
 * set; NULL past the last. [watch NAME]'s keys are watch/'s. */
const char *config_keyword_at(size_t i, const char **key);
/* Whether section is "WORD NAME" (blanks between, NAME maybe in double
 * quotes): 1 with NAME unquoted in out (NULL: not wanted), 0 when it is
 * another section, -1 when NAME needs n bytes or more */
int config_section_arg(const char *section, const char *word, char *out, size_t n);
/* config/watches.c, for config.c: a [watch NAME] header, one of its keys
 * (into c->watches), every section once the file is read (how many are
 * wrong, each said in err as "PATH: [watch NAME]: why"); printing and
 * freeing them */
int config_watch_section(const char *section, char *msg, size_t n);
int config_watch_key(struct config *c, const char *section, const char *key, const char *v,
		     char *msg, size_t n);
int config_watch_check(const struct config *c, const char *path, struct buf *err);
void config_watch_print(const struct config *c, FILE *out);
void config_watch_release(struct config *c);
char *config_token_path(const struct config *c);
/* install.c: sets agent_dir, job_dirs and configs_dir (and, installed,
 * state_dir and etc_dir) from where the running binary is. 0 / -1 */
int config_find_install(struct config *c);
/* The config file read when none is named: SYSCONFDIR/kfleet/kfleetd.conf
 * for an installed kfleet, if it exists (caller frees); NULL from the
 * build tree (the embedded defaults) or when there is none */
char *config_default_file(const struct config *c);

/* ---- diff.c: two configurations compared key by key (kfleetd's reload) ---- */

/* One key of a configuration as config_print() writes it */
struct config_entry {
	char *section;   /* "daemon", "host NAME", "watch NAME", ... */
	char *key;
	char *value;     /* "" for a key printed empty */
};
struct config_entries {
	struct config_entry *v;
	size_t n;
};
/* c's keys in config_print()'s order into e: 0 / -1 (out of memory).
 * Release e with config_entries_release(). */
int config_entries_init(struct config_entries *e, const struct config *c);
void config_entries_release(struct config_entries *e);
/* The value of key in section (borrowed), NULL when e has no such key */
const char *config_entries_get(const struct config_entries *e, const char *section,
			       const char *key);
/* key in section set to value (a copy), added at the end when e lacks it:
 * 0 / -1 (out of memory) */
int config_entries_set(struct config_entries *e, const char *section, const char *key,
		       const char *value);
/* A key whose value differs between two configurations: its strings are
 * borrowed from the two config_entries */
struct config_change {
	const char *section, *key;
	const char *old_value;   /* NULL: the old one lacks the key (its section added) */
	const char *new_value;   /* NULL: the new one lacks it (its section removed) */
};
/* The keys that differ from a to b, a's keys first in a's order (changed,
 * or gone), then b's keys that a lacks in b's order: *out (caller frees
 * the array, not the strings, valid while a and b are) and *n. 0 / -1 */
int config_entries_diff(const struct config_entries *a, const struct config_entries *b,
			struct config_change **out, size_t *n);

#endif
