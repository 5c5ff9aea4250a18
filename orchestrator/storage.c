// SPDX-License-Identifier: GPL-2.0-only
/* storage.c: the storage pass (storage.h). A thread of kfleetd measures
 * the state directory, lists what it may prune (the large files of
 * concluded runs, the rebuildable shared archives and unpacked kernels
 * under cache/), lets prune.c choose by the [storage] budget and
 * retention, deletes that and records each file in the database for the
 * run page. It runs at start,
 * every interval, and shortly after a run concludes (storage_kick()).
 * What it never touches: the database, a run in flight (by the database's
 * state, and the cache files a run holds), files below `large`, builds/,
 * selftests/, ccache/ and the root images (those cost a build or a
 * mmdebstrap to make again; their owners decide). */
#include "orchestrator/orchint.h"
#include "orchestrator/storage.h"

#include <dirent.h>
#include <errno.h>
#include <fts.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

#define RUNS_PAGE 1000
#define KICK_DELAY_S 2          /* after a run's end: its outcome is stored by then */

struct held {
	char *path;
	int refs;
};

struct storage {
	pthread_t thread;
	int started, stop, kicked;
	pthread_mutex_t lock;        /* the fields above and held */
	pthread_cond_t cond;
	pthread_rwlock_t cache_lock; /* runs looking up parts (read), the pass (write) */
	struct held *held;
	size_t nheld, aheld;
};

/* A run's files by name: rank 0 goes first and is pruned at any size
 * (copies of shared files and leftovers), the rest only from `large` */
static const struct {
	const char *name;
	int prefix, rank;
} run_files[] = {
	{ RUN_FILE_INITRD, 0, 0 }, { RUN_FILE_DISK, 0, 0 }, { RUN_FILE_CONSOLE ".", 1, 0 },
	{ RUN_FILE_AGENT, 0, 1 }, { RUN_FILE_OUTPUT, 0, 3 }, { RUN_FILE_CONSOLE, 0, 4 },
};
#define RANK_RESULTS 2
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Cache files made again on demand, cheaply, by their name's start and
 * end: the initrd's archives, a bzImage's kernel unpacked */
static const struct {
	const char *prefix, *suffix;
} cache_kinds[] = {
	{ "initramfs-", ".cpio.gz" }, { "modules-", ".cpio.gz" }, { "programs-", ".cpio.gz" },
	{ "pvh-", ".vmlinux" },   /* kernels/pvh.c */
};

/* --- what the pass found ------------------------------------------------- */

struct cand {
	char *dir, *name;            /* name under dir */
	long long size;              /* st_size, for the record */
	int whole;                   /* a directory, pruned whole (a build, a slot) */
};

struct found {
	struct prune_item *v;
	struct cand *c;
	size_t n, alloc;
};

static int found_add(struct found *f, const char *dir, const char *name, const struct stat *st,
		     const struct prune_item *it)
{
	if (f->n == f->alloc) {
		size_t na = f->alloc ? 2 * f->alloc : 256;
		struct prune_item *v = realloc(f->v, na * sizeof(*v));
		struct cand *c = v ? realloc(f->c, na * sizeof(*c)) : NULL;

		if (v)
			f->v = v;
		if (!c)
			return -1;
		f->c = c;
		f->alloc = na;
	}
	f->c[f->n].dir = strdup(dir);
	f->c[f->n].name = strdup(name);
	f->c[f->n].size = (long long)st->st_size;
	f->c[f->n].whole = 0;
	if (!f->c[f->n].dir || !f->c[f->n].name) {
		free(f->c[f->n].dir);
		free(f->c[f->n].name);
		return -1;
	}
	f->v[f->n] = *it;
	f->v[f->n].bytes = (long long)st->st_blocks * 512;
	f->v[f->n].index = f->n;
	f->n++;
	return 0;
}

static void found_release(struct found *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->c[i].dir);
		free(f->c[i].name);
	}
	free(f->c);
	free(f->v);
	memset(f, 0, sizeof(*f));
}

static int run_file_rank(const char *name)
{
	for (size_t i = 0; i < NELEM(run_files); i++)
		if (run_files[i].prefix ? !strncmp(name, run_files[i].name, strlen(run_files[i].name))
					: !strcmp(name, run_files[i].name))
			return run_files[i].rank;
	return -1;
}

/* The files under dir/results, as "results/..." */
static int add_results(struct found *f, const char *dir, const struct prune_item *it)
{
	char *rdir = path_join(dir, RUN_DIR_RESULTS), *argv[] = { rdir, NULL };
	struct prune_item ri = *it;
	size_t dlen = strlen(dir);
	FTS *fts;
	FTSENT *e;
	int rc = 0;

	if (!rdir)
		return -1;
	ri.rank = RANK_RESULTS;
	fts = fts_open(argv, FTS_PHYSICAL | FTS_NOCHDIR, NULL);
	while (fts && rc == 0 && (e = fts_read(fts)))
		if (e->fts_info == FTS_F && e->fts_pathlen > dlen + 1 &&
		    (unsigned long long)e->fts_statp->st_size > 0)
			rc = found_add(f, dir, e->fts_path + dlen + 1, e->fts_statp, &ri);
	if (fts)
		fts_close(fts);
	free(rdir);
	return rc;
}

/* An attempt's directory (runs/ID/aN) of a concluded run */
static int add_attempt(const struct config *c, struct found *f, const char *dir,
		       const struct prune_item *it)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		int rank = run_file_rank(de->d_name);
		char *p;
		struct stat st;

		if (rank < 0)
			continue;
		p = path_join(dir, de->d_name);
		if (p && lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
		    (rank == 0 || (unsigned long long)st.st_size >= c->storage_large)) {
			struct prune_item ri = *it;

			ri.rank = rank;
			rc = found_add(f, dir, de->d_name, &st, &ri);
		}
		free(p);
	}
	closedir(d);
	return rc ? rc : add_results(f, dir, it);
}

/* A cache file's newest use, from the manifest of a run in dir */
static void note_uses(struct orch *o, struct found *f, size_t ncache, const char *dir,
		      int64_t when)
{
	char *mpath = path_join(dir, RUN_FILE_MANIFEST), *e = NULL;
	struct buf b = BUF_INIT(MANIFEST_MAX);
	struct manifest m;
	size_t clen = strlen(o->cache_dir);

	if (!ncache || !mpath || read_file(mpath, &b, MANIFEST_MAX) < 0) {
		free(mpath);
		buf_release(&b);
		return;
	}
	if (manifest_parse(buf_str(&b), b.len, mpath, &m, &e) == 0)
		for (size_t i = 0; i < m.nparts; i++) {
			const char *p = m.parts[i].path;

			if (strncmp(p, o->cache_dir, clen) || p[clen] != '/')
				continue;
			for (size_t j = 0; j < ncache; j++)
				if (!strcmp(f->c[j].name, p + clen + 1) && f->v[j].used_at < when)
					f->v[j].used_at = when;
		}
	manifest_release(&m);
	free(e);
	free(mpath);
	buf_release(&b);
}

/* The rebuildable archives under cache/, their last use their mtime until
 * a manifest says later */
static int add_cache(struct orch *o, struct found *f)
{
	DIR *d = opendir(o->cache_dir);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return 0;
	while (rc == 0 && (de = readdir(d))) {
		struct prune_item it = { 0 };
		struct stat st;
		size_t k, len = strlen(de->d_name);
		char *p;

		for (k = 0; k < NELEM(cache_kinds); k++)
			if (!strncmp(de->d_name, cache_kinds[k].prefix,
				     strlen(cache_kinds[k].prefix)) &&
			    len > strlen(cache_kinds[k].suffix) &&
			    !strcmp(de->d_name + len - strlen(cache_kinds[k].suffix),
				    cache_kinds[k].suffix))
				break;
		if (k == NELEM(cache_kinds))
			continue;
		p = path_join(o->cache_dir, de->d_name);
		if (p && lstat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			it.used_at = (int64_t)st.st_mtim.tv_sec * 1000;
			rc = found_add(f, o->cache_dir, de->d_name, &st, &it);
		}
		free(p);
	}
	closedir(d);
	return rc;
}

#define BUSY_MAX 100000

static int is_held(struct storage *s, const char *path);

/* Whether path is one of the n kernels in busy */
static int kernel_busy(const struct db_storage_kernel *busy, size_t n, const char *dir)
{
	size_t l = strlen(dir);

	for (size_t i = 0; i < n; i++)
		if (busy[i].path && !strncmp(busy[i].path, dir, l) && busy[i].path[l] == '/')
			return 1;
	return 0;
}

/* The directories under state/NAME (builds/KEY, the artifacts; slots/
 * TREE-ARCH-HASH, the O= directories), made again by a build when pruned:
 * least recently used first, never one a build in progress holds (the
 * builder holds state/NAME while it builds) or a kernel a run not
 * concluded boots */
static int add_dirs(struct orch *o, struct db *db, struct found *f, const char *name)
{
	char *top = path_join(o->state_dir, name);
	struct db_storage_kernel *busy = NULL;
	size_t nbusy = 0;
	DIR *d = top ? opendir(top) : NULL;
	struct dirent *de;
	int rc = 0, held = 0;

	if (!d) {
		free(top);
		return top ? 0 : -1;
	}
	if (o->storage) {
		pthread_mutex_lock(&o->storage->lock);
		held = is_held(o->storage, top);
		pthread_mutex_unlock(&o->storage->lock);
	}
	if (!strcmp(name, "builds") && db_storage_kernels_busy(db, BUSY_MAX, &busy, &nbusy) < 0)
		held = 1;   /* cannot tell: none */
	while (!held && rc == 0 && (de = readdir(d))) {
		struct prune_item it = { 0 };
		struct stat st;
		size_t len = strlen(de->d_name);
		char *p;

		if (de->d_name[0] == '.' || (len > 4 && !strcmp(de->d_name + len - 4, "-src")) ||
		    (len > 6 && !strcmp(de->d_name + len - 6, "-apply")))
			continue;   /* worktrees: a checkout, not a build */
		p = path_join(top, de->d_name);
		if (p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && !kernel_busy(busy, nbusy, p)) {
			it.used_at = (int64_t)st.st_mtim.tv_sec * 1000;
			rc = found_add(f, top, de->d_name, &st, &it);
			if (rc == 0) {
				f->v[f->n - 1].bytes = (long long)disk_use(p);
				f->c[f->n - 1].whole = 1;
			}
		}
		free(p);
	}
	closedir(d);
	if (busy)
		db_rows_free(db_storage_kernel_fields, busy, sizeof(*busy), nbusy);
	free(top);
	return rc;
}

/* A run's attempt directories: runs/ID/aN, never the ".stale-" ones kept
 * aside for another run's files */
static int add_run(struct orch *o, struct found *f, size_t ncache, const char *runs,
		   const struct db_storage_run *r)
{
	char parent[PATH_MAX], real[PATH_MAX];
	struct prune_item it = { .run_id = r->id };
	int done = r->state && !strcmp(r->state, "done");
	DIR *d;
	struct dirent *de;
	int rc = 0;

	snprintf(parent, sizeof(parent), "%s", r->run_dir);
	if (strrchr(parent, '/'))
		*strrchr(parent, '/') = '\0';
	if (!realpath(parent, real) || !path_inside(real, runs))
		return 0;   /* not kfleetd's to prune (an imported run's, a moved directory) */
	it.ended_at = done ? (r->ended_at ? r->ended_at : 1) : 0;
	d = opendir(real);
	while (d && rc == 0 && (de = readdir(d))) {
		char *dir;

		if (de->d_name[0] != 'a' || strspn(de->d_name + 1, "0123456789") !=
		    strlen(de->d_name + 1) || !de->d_name[1])
			continue;
		dir = path_join(real, de->d_name);
		if (!dir)
			rc = -1;
		else if (done)
			rc = add_attempt(o->conf, f, dir, &it);
		if (dir)
			note_uses(o, f, ncache, dir, done ? it.ended_at : now_ms());
		free(dir);
	}
	if (d)
		closedir(d);
	return rc;
}

static int collect(struct orch *o, struct db *db, struct found *f, size_t *ncache)
{
	char runs[PATH_MAX];
	int64_t after = 0;

	if (!realpath(o->runs_dir, runs))
		return 0;
	if (add_cache(o, f) < 0)
		return -1;
	*ncache = f->n;
	if (add_dirs(o, db, f, "builds") < 0 || add_dirs(o, db, f, "slots") < 0)
		return -1;
	for (;;) {
		struct db_storage_run *v = NULL;
		size_t n = 0;
		int rc = 0;

		if (db_storage_runs(db, after, RUNS_PAGE, &v, &n) < 0) {
			log_warn("storage: runs: %s", db_errmsg(db));
			return -1;
		}
		for (size_t i = 0; i < n && rc == 0; i++)
			rc = add_run(o, f, *ncache, runs, &v[i]);
		if (n)
			after = v[n - 1].id;
		db_rows_free(db_storage_run_fields, v, sizeof(*v), n);
		if (rc < 0)
			return -1;
		if (n < RUNS_PAGE)
			return 0;
	}
}

/* --- the cache files runs hold ------------------------------------------- */

static int is_held(struct storage *s, const char *path)
{
	for (size_t i = 0; i < s->nheld; i++)
		if (!strcmp(s->held[i].path, path))
			return 1;
	return 0;
}

void storage_hold(struct orch *o, const char *const *paths, size_t n)
{
	struct storage *s = o->storage;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < n; i++) {
		size_t j;

		if (!paths[i])
			continue;
		for (j = 0; j < s->nheld && strcmp(s->held[j].path, paths[i]); j++)
			;
		if (j == s->nheld) {
			size_t na = s->aheld ? 2 * s->aheld : 16;
			struct held *h = s->nheld < s->aheld ? s->held :
					 realloc(s->held, na * sizeof(*h));
			char *p = h ? strdup(paths[i]) : NULL;

			if (h && h != s->held) {
				s->held = h;
				s->aheld = na;
			}
			if (!p)
				continue;   /* unheld: the worst is a rebuild for the next run */
			s->held[s->nheld].path = p;
			s->held[s->nheld++].refs = 0;
		}
		s->held[j].refs++;
	}
	pthread_mutex_unlock(&s->lock);
}

void storage_drop(struct orch *o, const char *const *paths, size_t n)
{
	struct storage *s = o->storage;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; paths[i] && j < s->nheld; j++)
			if (!strcmp(s->held[j].path, paths[i])) {
				if (--s->held[j].refs == 0) {
					free(s->held[j].path);
					s->held[j] = s->held[--s->nheld];
				}
				break;
			}
	pthread_mutex_unlock(&s->lock);
}

void storage_lock_cache(struct orch *o)
{
	if (o->storage)
		pthread_rwlock_rdlock(&o->storage->cache_lock);
}

void storage_unlock_cache(struct orch *o)
{
	if (o->storage)
		pthread_rwlock_unlock(&o->storage->cache_lock);
}

/* --- the pass ------------------------------------------------------------ */

/* Deletes what prune_choose() marked and records it; under the cache lock,
 * so a cache file a run holds now is left */
static void apply(struct orch *o, struct db *db, struct found *f, struct storage_report *rep)
{
	struct storage *s = o->storage;
	int64_t last_run = -1;

	for (size_t i = 0; i < f->n; i++) {
		const struct prune_item *it = &f->v[i];
		const struct cand *c = &f->c[it->index];
		char *path;
		int held;

		if (it->why == PRUNE_KEEP)
			continue;
		path = path_join(c->dir, c->name);
		if (!path)
			continue;
		if (s)
			pthread_mutex_lock(&s->lock);
		held = s && !it->run_id && is_held(s, path);
		if (s)
			pthread_mutex_unlock(&s->lock);
		if (held || (c->whole ? rm_tree(path) < 0 :
			     (unlink(path) < 0 && errno != ENOENT))) {
			if (!held)
				log_warn("storage: cannot prune '%s': %s", path, strerror(errno));
			free(path);
			continue;
		}
		if (db_pruned_add(db, it->run_id, c->dir, c->name, c->size,
				  prune_why_name(it->why)) < 0)
			log_warn("storage: pruned '%s', but cannot record it: %s", path,
				 db_errmsg(db));
		log_debug("storage: pruned '%s' (%lld bytes, %s)", path, c->size,
			  prune_why_name(it->why));
		rep->freed += (unsigned long long)it->bytes;
		rep->files++;
		if (!it->run_id)
			rep->cache_files++;
		else if (it->run_id != last_run)
			rep->runs++;
		last_run = it->run_id ? it->run_id : last_run;
		free(path);
	}
}

int storage_pass(struct orch *o, struct db *db, struct storage_report *rep)
{
	const struct config *c = o->conf;
	struct prune_policy p = {
		.budget = c->storage_budget, .large = c->storage_large,
		.keep_days = c->storage_keep_days, .now = now_ms(),
	};
	struct found f = { 0 };
	size_t ncache = 0;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	if (!p.budget && !p.keep_days)
		return 0;
	rep->usage = disk_use(o->state_dir);
	if (collect(o, db, &f, &ncache) < 0)
		goto out;
	if (o->storage)
		pthread_rwlock_wrlock(&o->storage->cache_lock);
	if (prune_choose(&p, rep->usage, f.v, f.n))
		apply(o, db, &f, rep);
	if (o->storage)
		pthread_rwlock_unlock(&o->storage->cache_lock);
	rc = 0;
out:
	found_release(&f);
	return rc;
}

static int run_over(int64_t id, void *arg)
{
	struct run r;
	int over;

	memset(&r, 0, sizeof(r));
	over = db_run_get(arg, id, &r) == 1 && r.state == RUN_DONE;
	run_release(&r);
	return over;
}

/* The run's own volumes a host reached by upload still has of runs that
 * are over: upload_drop() missed them (the connection was down, kfleetd
 * died). Before the budget: they are not under the state directory. */
static void sweep_hosts(struct orch *o, struct db *db)
{
	for (size_t i = 0; i < o->nhosts; i++)
		if (o->hosts[i].upload && o->hosts[i].conf)
			upload_sweep(o, &o->hosts[i], run_over, db);
}

static void report(const struct config *c, const struct storage_report *rep)
{
	if (!rep->files) {
		log_debug("storage: %llu MiB under the state directory, nothing pruned",
			  rep->usage >> 20);
		return;
	}
	log_info("storage: pruned %zu files (%zu of shared caches) of %zu runs, %llu KiB; the "
		 "state directory had %llu KiB (budget %llu KiB, keep_days %d)", rep->files,
		 rep->cache_files, rep->runs, rep->freed >> 10, rep->usage >> 10,
		 c->storage_budget >> 10, c->storage_keep_days);
}

static void *storage_main(void *arg)
{
	struct orch *o = arg;
	struct storage *s = o->storage;
	char *err = NULL;
	struct db *db = db_open(o->db_path, &err);

	if (!db) {
		log_error("storage: %s", err ? err : "?");
		free(err);
		return NULL;
	}
	for (;;) {
		struct storage_report rep;
		struct timespec ts;
		int kicked;

		sweep_hosts(o, db);
		if (storage_pass(o, db, &rep) < 0)
			log_warn("storage: the pass did not finish: %s", db_errmsg(db));
		else
			report(o->conf, &rep);
		pthread_mutex_lock(&s->lock);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += o->conf->storage_interval_s;
		while (!s->stop && !s->kicked)
			if (pthread_cond_timedwait(&s->cond, &s->lock, &ts) == ETIMEDOUT)
				break;
		kicked = s->kicked;
		s->kicked = 0;
		if (kicked && !s->stop) {
			/* the worker stores the outcome just after the teardown */
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += KICK_DELAY_S;
			while (!s->stop && pthread_cond_timedwait(&s->cond, &s->lock, &ts) != ETIMEDOUT)
				;
		}
		if (s->stop) {
			pthread_mutex_unlock(&s->lock);
			break;
		}
		pthread_mutex_unlock(&s->lock);
	}
	db_close(db);
	return NULL;
}

int storage_start(struct orch *o)
{
	struct storage *s = calloc(1, sizeof(*s));

	if (!s)
		return -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	pthread_rwlock_init(&s->cache_lock, NULL);
	o->storage = s;
	if (pthread_create(&s->thread, NULL, storage_main, o)) {
		log_error("storage: cannot start its thread");
		return -1;
	}
	s->started = 1;
	return 0;
}

void storage_kick(struct orch *o)
{
	struct storage *s = o->storage;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->kicked = 1;
	pthread_cond_broadcast(&s->cond);
	pthread_mutex_unlock(&s->lock);
}

void storage_stop(struct orch *o)
{
	struct storage *s = o->storage;

	if (!s)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stop = 1;
		pthread_cond_broadcast(&s->cond);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	for (size_t i = 0; i < s->nheld; i++)
		free(s->held[i].path);
	free(s->held);
	pthread_rwlock_destroy(&s->cache_lock);
	pthread_cond_destroy(&s->cond);
	pthread_mutex_destroy(&s->lock);
	free(s);
	o->storage = NULL;
}
