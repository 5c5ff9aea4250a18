// SPDX-License-Identifier: GPL-2.0-only
/* initrd.c: a run's initrd, made of cached archives: the base (busybox and
 * the agent), the kernel's modules the guest needs, the job's programs and
 * its kselftests, then the run's own part (its command, limits, root disk)
 * written by images/initramfs.c into the run's directory. QEMU boots one
 * file, so the run has the whole initrd while its guest runs; beside it a
 * manifest (manifest.c) names the parts by path and content hash and the
 * run's own part is kept apart, and once the run is over the whole copy
 * goes: the shared parts are kept once, in the cache (and builds/ for the
 * kselftests), instead of once per run. Content-addressed hard links were
 * the other way: they would save the same bytes but not the run's own
 * concatenation, which QEMU needs as one file and which differs per run. */
#include "orchestrator/orchint.h"
#include "orchestrator/storage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "images/images.h"
#include "kernels/kernels.h"

/* The modules a guest needs for the agent channel, and pvpanic's ISA device
 * on x86_64 where the kernel has it (a panic then ends the domain as
 * CRASHED, whatever the console managed to say); the ones a kernel has
 * built in are skipped. */
static const char *const channel_modules[] = { "virtio_pci", "virtio_console", "?pvpanic_mmio" };
/* A root disk: ext4 asks for crc32c through the crypto API, so nothing
 * depends on crc32c_generic by symbol and it must be named */
static const char *const disk_modules[] = { "virtio_blk", "ext4", "?crc32c_generic" };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Finds RELEASE/modules.dep under the ':'-separated module roots; the
 * directory, caller frees, or NULL. */
static char *find_moddir(const char *roots, const char *release)
{
	const char *p = roots;

	while (p && *p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *dir = NULL, *dep;

		if (n && asprintf(&dir, "%.*s/%s", (int)n, p, release) >= 0) {
			dep = path_join(dir, "modules.dep");
			if (dep && access(dep, R_OK) == 0) {
				free(dep);
				return dir;
			}
			free(dep);
			free(dir);
		}
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* The kernel's modules directory: a kernel kfleet built has its modules
 * next to it, others are looked up under the config's modules_path.
 * Caller frees; NULL when there is none. */
static char *kernel_moddir(const struct config *c, const struct run *r)
{
	char release[128], *moddir = NULL;

	if (kimage_release(r->kernel_path, r->arch, release, sizeof(release)) == 0) {
		char *kdir = strdup(r->kernel_path), *slash = kdir ? strrchr(kdir, '/') : NULL;
		char *roots = NULL;

		if (slash && (*slash = '\0', asprintf(&roots, "%s/lib/modules", kdir)) >= 0) {
			moddir = find_moddir(roots, release);
			free(roots);
		}
		free(kdir);
		if (!moddir)
			moddir = find_moddir(c->modules_path, release);
	}
	return moddir;
}

/* The modules' archive: the channel's, the root disk's and the job's own */
static char *modules_archive(struct orch *o, const char *moddir, const struct job_def *job,
			     char **err)
{
	const char *names[NELEM(channel_modules) + NELEM(disk_modules) + JOBDEF_PROGRAMS_MAX];
	size_t nn = 0;

	for (size_t i = 0; i < NELEM(channel_modules); i++)
		names[nn++] = channel_modules[i];
	for (size_t i = 0; job && (job->nrootfs || job->image) && i < NELEM(disk_modules); i++)
		names[nn++] = disk_modules[i];
	for (size_t i = 0; job && i < job->nmodules; i++)
		names[nn++] = job->modules[i];
	return img_modules_initramfs(moddir, names, nn, o->cache_dir, err);
}

/* The job's programs, built for arch, as a cached archive; caller frees. */
static char *job_programs(struct orch *o, const struct job_def *d, const char *arch, char **err)
{
	const char *src[JOBDEF_PROGRAMS_MAX];
	char *paths[JOBDEF_PROGRAMS_MAX] = { 0 }, *archive = NULL;
	size_t n = 0;

	for (; n < d->nprograms; n++) {
		paths[n] = orch_program_path(o->conf, arch, d->programs[n]);
		if (!paths[n])
			goto out;
		src[n] = paths[n];
	}
	archive = img_programs_initramfs(src, (const char *const *)d->programs, n, o->cache_dir,
					 err);
out:
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return archive;
}

/* The job's archives: its programs and its kselftests. 0 / -1 with *err */
static int job_archives(struct orch *o, const struct run *r, const struct job_def *job,
			struct run_initrd *ri, char **err)
{
	char *e = NULL;

	if (job->nprograms) {
		ri->progs = job_programs(o, job, r->arch, &e);
		if (!ri->progs) {
			set_errf(err, "job '%s': %s", job->name, e ? e : "?");
			free(e);
			return -1;
		}
		ri->ir.extra[ri->ir.nextra++] = ri->progs;
	}
	if (job->selftests) {
		/* built with the kernel, next to it, or for it by a submission
		 * (orchestrator/builder.c) */
		ri->kselftests = orch_selftests_path(o->state_dir, r->kernel_path, NULL,
						      job->selftests);
		if (!ri->kselftests || access(ri->kselftests, R_OK) < 0)
			return set_errf(err, "job '%s': no selftests '%s' built for this kernel "
					"('%s')", job->name, job->selftests,
					ri->kselftests ? ri->kselftests : "?");
		ri->ir.extra[ri->ir.nextra++] = ri->kselftests;
	}
	return 0;
}

/* The parts, in the order img_run_initrd() writes them after the run's own */
static size_t initrd_parts(const struct run_initrd *ri, const char **v)
{
	size_t n = 0;

	v[n++] = ri->base;
	for (size_t i = 0; i < ri->ir.nextra; i++)
		v[n++] = ri->ir.extra[i];
	return n;
}

/* The first n bytes of path into own, atomically */
static int copy_head(const char *path, long long n, const char *own)
{
	struct buf b = BUF_INIT(0);
	int rc = -1;

	if (n < 0 || n > (16LL << 20))
		return -1;
	buf_init(&b, (size_t)n);
	if (read_file(path, &b, (size_t)n) == 0 && b.len == (size_t)n)
		rc = write_file(own, b.data ? b.data : "", b.len, 0644);
	buf_release(&b);
	return rc;
}

/* The content hashes of shared parts, by file identity: a part (the
 * kselftests of a build, 90 MB for BPF's) is the same file for every run
 * that holds it, and hashing it again per run cost as much as writing the
 * initrd. A part changed in place would have a new mtime or size. */
#define PART_SHAS 64
static struct part_sha {
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char sha[65];
} part_shas[PART_SHAS];
static size_t part_sha_next;
static pthread_mutex_t part_sha_lock = PTHREAD_MUTEX_INITIALIZER;

static int same_file(const struct part_sha *e, const struct stat *st)
{
	return e->sha[0] && e->dev == st->st_dev && e->ino == st->st_ino &&
	       e->size == st->st_size && e->mtime.tv_sec == st->st_mtim.tv_sec &&
	       e->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* sha256_file() of a shared part, kept while the file stays the same */
static int part_sha256(const char *path, const struct stat *st, char sha[65])
{
	struct part_sha *e;
	int found = 0;

	pthread_mutex_lock(&part_sha_lock);
	for (size_t i = 0; i < PART_SHAS && !found; i++)
		if (same_file(&part_shas[i], st)) {
			memcpy(sha, part_shas[i].sha, 65);
			found = 1;
		}
	pthread_mutex_unlock(&part_sha_lock);
	if (found)
		return 0;
	if (sha256_file(path, sha) < 0)
		return -1;
	pthread_mutex_lock(&part_sha_lock);
	e = &part_shas[part_sha_next++ % PART_SHAS];
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->size = st->st_size;
	e->mtime = st->st_mtim;
	memcpy(e->sha, sha, 65);
	pthread_mutex_unlock(&part_sha_lock);
	return 0;
}

/* initrd.manifest and initrd-run.cpio beside path: 0 / -1 with *err */
static int write_manifest(const struct run_initrd *ri, const char *path, char **err)
{
	const char *parts[1 + sizeof(ri->ir.extra) / sizeof(ri->ir.extra[0])];
	char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL;
	char *own = NULL, *mpath = NULL;
	struct buf text = BUF_INIT(0);
	struct manifest m = { .nparts = 1 };
	size_t n = initrd_parts(ri, parts);
	long long rest = 0;
	struct stat st;
	int rc = -1;

	if (!slash)
		goto out;
	*slash = '\0';
	own = path_join(dir, RUN_FILE_INITRD_OWN);
	mpath = path_join(dir, RUN_FILE_MANIFEST);
	if (!own || !mpath || stat(path, &st) < 0 || sha256_file(path, m.sha) < 0)
		goto out;
	m.bytes = (long long)st.st_size;
	for (size_t i = 0; i < n; i++) {
		struct manifest_part *p = &m.parts[m.nparts++];

		if (stat(parts[i], &st) < 0 || part_sha256(parts[i], &st, p->sha) < 0)
			goto out;
		p->bytes = (long long)st.st_size;
		p->path = (char *)parts[i];
		rest += p->bytes;
	}
	m.parts[0].path = RUN_FILE_INITRD_OWN;
	m.parts[0].bytes = m.bytes - rest;
	if (copy_head(path, m.parts[0].bytes, own) < 0 || sha256_file(own, m.parts[0].sha) < 0 ||
	    manifest_format(&m, &text) < 0 || write_file(mpath, text.data, text.len, 0644) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		set_errf(err, "initrd manifest '%s': %s", mpath ? mpath : path, strerror(errno));
	buf_release(&text);
	free(own);
	free(mpath);
	free(dir);
	return rc;
}

int initrd_prepare(struct orch *o, const struct run *r, const struct job_def *job,
		   const struct run_disk *rd, const char *path, struct run_initrd *ri, char **err)
{
	const char *parts[1 + sizeof(ri->ir.extra) / sizeof(ri->ir.extra[0])];
	const struct config *c = o->conf;
	int arm = !strcmp(r->arch, "arm64");
	char *e = NULL;
	int rc = -1;

	memset(ri, 0, sizeof(*ri));
	/* from the first lookup to the hold: the storage pass waits */
	storage_lock_cache(o);
	ri->base = img_base_initramfs(arm ? c->busybox_arm64 : c->busybox,
				      arm ? o->agent_arm64 : o->agent_x86_64, o->cache_dir, &e);
	if (!ri->base) {
		set_errf(err, "initramfs: %s", e ? e : "?");
		goto out;
	}
	/* With the kernel's modules at hand the agent uses a virtio-serial port;
	 * without them x86_64 falls back to the second serial port, and arm64
	 * (one UART only) hopes virtio is built in. */
	ri->moddir = kernel_moddir(c, r);
	if (ri->moddir) {
		ri->mods = modules_archive(o, ri->moddir, job, &e);
		if (!ri->mods) {
			set_errf(err, "modules: %s", e ? e : "?");
			goto out;
		}
		ri->ir.extra[ri->ir.nextra++] = ri->mods;
	}
	ri->ir.virtio = ri->moddir || arm;
	if (rd) {
		ri->ir.root_dev = rd->di.dev;
		ri->ir.results = job->results;
		/* 1 byte: no archive fits, the agent sends none */
		ri->ir.results_max = c->results_stream ? c->results_stream : 1;
	}
	if (job && job_archives(o, r, job, ri, err) < 0)
		goto out;
	ri->ir.run_id = r->id;
	ri->ir.command = r->command;
	ri->ir.timeout_s = r->timeout_s;
	ri->ir.output_max = c->output_max;
	if (img_run_initrd(ri->base, &ri->ir, path, &e) < 0) {
		set_errf(err, "initrd: %s", e ? e : "?");
		goto out;
	}
	storage_hold(o, parts, initrd_parts(ri, parts));
	ri->held = 1;
	/* without a manifest the whole initrd stays: it tells what the run booted */
	if (write_manifest(ri, path, &e) == 0)
		ri->manifest = 1;
	else
		log_warn("run %" PRId64 ": %s (the whole initrd is kept)", r->id, e ? e : "?");
	rc = 0;
out:
	storage_unlock_cache(o);
	free(e);
	return rc;
}

void initrd_conclude(struct orch *o, const char *path, struct run_initrd *ri)
{
	const char *parts[1 + sizeof(ri->ir.extra) / sizeof(ri->ir.extra[0])];

	if (ri->manifest && path && !o->conf->storage_keep_initrd && unlink(path) < 0 &&
	    errno != ENOENT)
		log_warn("initrd '%s': cannot remove it: %s", path, strerror(errno));
	if (ri->held)
		storage_drop(o, parts, initrd_parts(ri, parts));
	ri->held = 0;
}

void initrd_release(struct run_initrd *ri)
{
	free(ri->base);
	free(ri->moddir);
	free(ri->mods);
	free(ri->progs);
	free(ri->kselftests);
	memset(ri, 0, sizeof(*ri));
}
