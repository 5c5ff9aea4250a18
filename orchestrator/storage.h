/* SPDX-License-Identifier: GPL-2.0-only */
/* storage.h: what the state directory keeps, and for how long. A run's
 * initrd is kept as a manifest of the shared parts it was made of plus
 * its own small part (manifest.c); a pass in kfleetd (storage.c) holds the
 * directory to a size budget and a retention, pruning by a pure choice
 * (prune.c) and recording in the database what it pruned. */
#ifndef KF_STORAGE_H
#define KF_STORAGE_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"

/* --- manifest.c: a run's initrd as the parts it was made of -------------- */

#define RUN_FILE_MANIFEST  "initrd.manifest"  /* what initrd.img was made of */
#define RUN_FILE_INITRD_OWN "initrd-run.cpio"  /* the run's own part of it */
#define MANIFEST_PARTS_MAX 8
#define MANIFEST_MAX (16u << 10)               /* bytes of a manifest read */

struct manifest_part {
	char sha[65];
	long long bytes;
	char *path;              /* absolute, or a name in the run's directory */
};

struct manifest {
	char sha[65];            /* of the whole initrd */
	long long bytes;
	struct manifest_part parts[MANIFEST_PARTS_MAX];
	size_t nparts;
};

/* Appends m in its text form to out. 0 / -1 */
int manifest_format(const struct manifest *m, struct buf *out);
/* Parses text (len bytes, from name, for messages) into m. 0, or -1 with
 * *err ("initrd.manifest:3: ...", caller frees); release m either way. */
int manifest_parse(const char *text, size_t len, const char *name, struct manifest *m,
		   char **err);
void manifest_release(struct manifest *m);

/* --- prune.c: what to prune (pure) --------------------------------------- */

enum prune_why { PRUNE_KEEP, PRUNE_BUDGET, PRUNE_RETENTION };

/* One file the pass may prune */
struct prune_item {
	int64_t run_id;          /* 0: a shared cache file */
	int64_t ended_at;        /* ms the run ended; 0: not concluded, never pruned */
	int64_t used_at;         /* a cache file: ms of its newest use */
	int busy;                /* in use by a run in flight: never pruned */
	int rank;                /* within a run, lower goes first (storage.c's table) */
	long long bytes;         /* on disk */
	enum prune_why why;      /* set by prune_choose() */
	size_t index;            /* the caller's */
};

struct prune_policy {
	unsigned long long budget;   /* 0: none */
	unsigned long long large;    /* a run's files of rank > 0 smaller than this stay */
	int keep_days;               /* 0: no retention */
	int64_t now;                 /* ms */
};

/* Marks what to prune in v[0..n): first every file of a run that ended
 * more than keep_days ago (retention), then, while usage is over the
 * budget, the files of the oldest concluded runs (lower rank first), then
 * cache files least recently used. A run's file of rank > 0 below large
 * is never pruned, nor a busy one or one of a run not concluded. Returns
 * the bytes marked; v is reordered. */
unsigned long long prune_choose(const struct prune_policy *p, unsigned long long usage,
				struct prune_item *v, size_t n);
const char *prune_why_name(enum prune_why w);

/* --- storage.c: the pass in kfleetd -------------------------------------- */

struct orch;
struct db;

/* What one pass saw and did */
struct storage_report {
	unsigned long long usage;    /* bytes under the state directory before */
	unsigned long long freed;
	size_t files, runs;          /* pruned: files, and runs they were of */
	size_t cache_files;
};

/* Starts the pass's thread: a pass now, then every interval and soon after
 * a run concludes (storage_kick()). 0 / -1 */
int storage_start(struct orch *o);
void storage_stop(struct orch *o);
void storage_kick(struct orch *o);
/* One pass with db (the caller's connection). 0 / -1 */
int storage_pass(struct orch *o, struct db *db, struct storage_report *rep);

/* The cache files a run in flight uses: holding them keeps the pass off
 * them until dropped. storage_lock_cache() is held while a run looks its
 * parts up and holds them, so the pass never deletes a part between the
 * lookup and the hold. */
void storage_lock_cache(struct orch *o);
void storage_unlock_cache(struct orch *o);
void storage_hold(struct orch *o, const char *const *paths, size_t n);
void storage_drop(struct orch *o, const char *const *paths, size_t n);

#endif
