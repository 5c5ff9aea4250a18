// SPDX-License-Identifier: GPL-2.0-only
/* upload.c: a host reached by upload (qemu+ssh, qemu+tls) gets what its
 * guest boots as storage volumes. The kernel and the root image are named
 * by their content and stay, so the next run on that host sends nothing;
 * the initrd and the overlay are the run's own, named after its domain,
 * and deleted by upload_drop(); what a lost connection or a crash left
 * of them, upload_sweep() deletes once the run is over. The overlay comes
 * back for the copy-out. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/util.h"
#include "orchestrator/volumes.h"

#define UPLOAD_TIMEOUT_S 600   /* one volume to or from a host */

static char *vol_name(const char *domain, const char *what)
{
	char *n = NULL;

	return asprintf(&n, "%s-%s", domain, what) < 0 ? NULL : n;
}

int upload_run_files(struct host *h, const struct run *r, const char *initrd, const char *image,
		     const struct disk_image *di, struct upload_files *rf, char **err)
{
	char sum[65], *name = NULL, *base = NULL;
	int rc = -1;

	if (sha256_file(r->kernel_path, sum) < 0) {
		set_errf(err, "kernel '%s': %s", r->kernel_path, strerror(errno));
		return -1;
	}
	if (asprintf(&name, "kernel-%s", sum) < 0)
		return -1;
	rf->kernel = vol_upload(h->conn, h->conf->pool, name, r->kernel_path, UPLOAD_TIMEOUT_S, err);
	free(name);
	if (!rf->kernel)
		return -1;
	name = vol_name(r->domain, "initrd");
	/* an earlier attempt's initrd may have the same size, not the content */
	if (!name || vol_delete(h->conn, h->conf->pool, name, err) < 0)
		goto out;
	rf->initrd = vol_upload(h->conn, h->conf->pool, name, initrd, UPLOAD_TIMEOUT_S, err);
	free(name);
	name = NULL;
	if (!rf->initrd)
		goto out;
	if (image) {
		/* rootfs-HASH.ext4: its name is its content already */
		char dname[96];

		snprintf(dname, sizeof(dname), "distro-%s.%s", di->key, di->fmt);
		base = vol_upload(h->conn, h->conf->pool, di->key[0] ? dname :
				  strrchr(image, '/') + 1, image, UPLOAD_TIMEOUT_S, err);
		name = vol_name(r->domain, RUN_FILE_DISK);
		if (!base || !name)
			goto out;
		rf->disk = vol_overlay(h->conn, h->conf->pool, name, base, di->fmt, err);
		if (!rf->disk)
			goto out;
	}
	rc = 0;
out:
	free(name);
	free(base);
	return rc;
}

int upload_fetch_overlay(struct host *h, const struct run *r, const char *image,
			 const char *fmt, const char *disk, char **err)
{
	char *name = vol_name(r->domain, RUN_FILE_DISK);
	int rc = -1;

	if (name && vol_download(h->conn, h->conf->pool, name, disk, UPLOAD_TIMEOUT_S, err) == 0)
		rc = disk_overlay("rebase", image, fmt, disk, err);
	free(name);
	return rc;
}

void upload_drop(struct host *h, const struct run *r)
{
	static const char *const what[] = { "initrd", RUN_FILE_DISK };

	for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		char *name = vol_name(r->domain, what[i]), *err = NULL;

		if (name && vol_delete(h->conn, h->conf->pool, name, &err) < 0)
			log_warn("run %" PRId64 ": host '%s': %s", r->id, h->conf->name,
				 err ? err : "?");
		free(err);
		free(name);
	}
}

/* The run id of a run's own volume, "kf-INSTANCE-ID-initrd" or
 * "kf-INSTANCE-ID-root.qcow2" (prefix "kf-INSTANCE-"), else 0 */
static int64_t run_volume_id(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *dash;
	long long id;
	char num[24];

	if (strncmp(name, prefix, n) || !(dash = strchr(name + n, '-')) ||
	    (strcmp(dash + 1, "initrd") && strcmp(dash + 1, RUN_FILE_DISK)) ||
	    (size_t)(dash - name - n) >= sizeof(num))
		return 0;
	memcpy(num, name + n, (size_t)(dash - name - n));
	num[dash - name - n] = '\0';
	return parse_int(num, 1, INT64_MAX, &id) < 0 ? 0 : (int64_t)id;
}

/* Adds volume v, called name, to what the pool is seen to hold */
static void pool_count(struct pool_seen *ps, virStorageVolPtr v, const char *name)
{
	virStorageVolInfo info;

	if (!strncmp(name, "kernel-", 7))
		ps->kernels++;
	else if (!strncmp(name, "kf-", 3))
		ps->run_files++;
	else
		ps->images++;
	if (virStorageVolGetInfo(v, &info) == 0)
		ps->bytes += (long long)info.allocation;
}

int upload_sweep(struct orch *o, struct host *h, int (*over)(int64_t id, void *arg), void *arg)
{
	struct pool_seen ps = { 0 };
	virStorageVolPtr *vols = NULL;
	virStoragePoolPtr p;
	char prefix[40];
	int n, gone = 0;

	snprintf(prefix, sizeof(prefix), "kf-%s-", o->instance);
	pthread_mutex_lock(&h->lock);
	p = h->conn && virConnectIsAlive(h->conn) == 1 ?
	    virStoragePoolLookupByName(h->conn, h->conf->pool) : NULL;
	n = p ? virStoragePoolListAllVolumes(p, &vols, 0) : -1;
	for (int i = 0; i < n; i++) {
		const char *name = virStorageVolGetName(vols[i]);
		int64_t id = name ? run_volume_id(name, prefix) : 0;

		if (id && over(id, arg) && virStorageVolDelete(vols[i], 0) == 0) {
			log_info("host '%s': deleted volume '%s', left by run %" PRId64,
				 h->conf->name, name, id);
			gone++;
		} else if (name) {
			pool_count(&ps, vols[i], name);
		}
		virStorageVolFree(vols[i]);
	}
	free(vols);
	if (p)
		virStoragePoolFree(p);
	pthread_mutex_unlock(&h->lock);
	if (n >= 0) {
		ps.at = now_ms();
		pthread_mutex_lock(&o->health_lock);
		h->pool_seen = ps;
		pthread_mutex_unlock(&o->health_lock);
	}
	return n < 0 ? -1 : gone;
}

void upload_release(struct upload_files *rf)
{
	free(rf->kernel);
	free(rf->initrd);
	free(rf->disk);
	rf->kernel = rf->initrd = rf->disk = NULL;
}
