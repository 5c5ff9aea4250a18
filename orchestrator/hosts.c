// SPDX-License-Identifier: GPL-2.0-only
/* hosts.c: host health. A worker asks before each claim whether its host
 * can take a run: its libvirt connection is alive (or was made again, in
 * the background through hostconn.c, destroying the guests it left
 * behind) and the state directory has room. A change is kept in memory,
 * where the pages read it (orch_host_health()), and in the database,
 * written again at the next look when that failed (a full disk). */
#include "orchestrator/orchint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "common/log.h"
#include "common/util.h"
#include "orchestrator/storage.h"

#define RECONNECT_MS 5000

/* Room for run files, initrds and builds under the state directory: 1, or
 * 0 with why. A full disk fails every run as infra, so runs wait instead. */
static int disk_ok(struct orch *o, char *why, size_t n)
{
	unsigned long long min = o->conf->min_free_disk, avail;
	struct statvfs st;

	if (!min || statvfs(o->state_dir, &st) < 0)
		return 1;
	avail = (unsigned long long)st.f_bavail * st.f_frsize;
	if (avail >= min)
		return 1;
	snprintf(why, n, "disk: %llu MiB free under '%s', less than min_free_disk (%llu MiB)",
		 avail >> 20, o->state_dir, min >> 20);
	return 0;
}

/* --- health: memory first, then the database ------------------------------ */

/* Writes h's health into the database if it is not there yet */
static void store_health(struct orch *o, struct host *h, struct db *db)
{
	char why[sizeof(h->health)];
	int healthy, dirty;

	pthread_mutex_lock(&o->health_lock);
	dirty = h->health_dirty;
	healthy = h->healthy;
	memcpy(why, h->health, sizeof(why));
	pthread_mutex_unlock(&o->health_lock);
	if (!dirty || !db)
		return;
	if (db_host_health(db, h->conf->name, healthy, healthy ? NULL : why) < 0) {
		if (dirty == 1)
			log_warn("host '%s': cannot record its health in the database (%s): kept "
				 "in memory, written once it can be", h->conf->name, db_errmsg(db));
		pthread_mutex_lock(&o->health_lock);
		h->health_dirty = 2;   /* said once */
		pthread_mutex_unlock(&o->health_lock);
		return;
	}
	pthread_mutex_lock(&o->health_lock);
	if (h->healthy == healthy && !strcmp(h->health, why))
		h->health_dirty = 0;
	pthread_mutex_unlock(&o->health_lock);
}

/* h in placement or not (why); nothing when that is what it is already.
 * 1 when it changed */
static int set_health(struct orch *o, struct host *h, struct db *db, int healthy,
		      const char *why)
{
	int same;

	pthread_mutex_lock(&o->health_lock);
	same = h->healthy == healthy && !strcmp(h->health, healthy ? "" : why);
	if (!same) {
		h->healthy = healthy;
		snprintf(h->health, sizeof(h->health), "%s", healthy ? "" : why);
		h->health_dirty = 1;
	}
	pthread_mutex_unlock(&o->health_lock);
	if (!same)
		store_health(o, h, db);
	return !same;
}

/* h cannot be reached: "unreachable since TIME: why", the time of the
 * first failure kept while it stays so; said in the log when it changed */
static void set_unreachable(struct orch *o, struct host *h, struct db *db, const char *why)
{
	char since[32], msg[sizeof(h->health)];

	pthread_mutex_lock(&o->health_lock);
	if (!h->down_since)
		h->down_since = now_ms();
	fmt_time_ms(h->down_since, 0, since, sizeof(since));
	pthread_mutex_unlock(&o->health_lock);
	snprintf(msg, sizeof(msg), "unreachable since %s UTC: %s", since, why);
	if (set_health(o, h, db, 0, msg))
		log_warn("host '%s': out of placement: %s", h->conf->name, msg);
}

int orch_host_health(struct orch *o, const char *name, int *healthy, char *why, size_t n)
{
	for (size_t i = 0; o && i < o->nhosts; i++) {
		struct host *h = &o->hosts[i];

		if (strcmp(h->conf->name, name))
			continue;
		pthread_mutex_lock(&o->health_lock);
		*healthy = h->healthy;
		snprintf(why, n, "%s", h->health);
		pthread_mutex_unlock(&o->health_lock);
		return 1;
	}
	return 0;
}

int orch_host_live(struct orch *o, const char *name, struct orch_host_live *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; o && i < o->nhosts; i++) {
		struct host *h = &o->hosts[i];

		if (strcmp(h->conf->name, name))
			continue;
		pthread_mutex_lock(&o->lock);
		out->busy = h->busy;
		out->cpus_used = h->cpus_used;
		pthread_mutex_unlock(&o->lock);
		pthread_mutex_lock(&o->health_lock);
		out->down_since = h->down_since;
		out->pool_kernels = h->pool_seen.kernels;
		out->pool_images = h->pool_seen.images;
		out->pool_run_files = h->pool_seen.run_files;
		out->pool_bytes = h->pool_seen.bytes;
		out->pool_at = h->pool_seen.at;
		pthread_mutex_unlock(&o->health_lock);
		if (h->upload)
			snprintf(out->pool, sizeof(out->pool), "%s", h->conf->pool);
		out->slots = h->conf->slots;
		out->cpus = h->cpus;
		out->connected = h->conn != NULL;
		out->upload = h->upload;
		snprintf(out->accel_why, sizeof(out->accel_why), "%s", h->why_accel);
		snprintf(out->accel_arm64, sizeof(out->accel_arm64), "%s", h->accel_arm64);
		snprintf(out->machine, sizeof(out->machine), "%s", h->machine);
		return 1;
	}
	return 0;
}

void orch_disk_fault(struct orch *o, struct db *db, const char *why)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "disk: %s", why);
	for (size_t i = 0; i < o->nhosts; i++) {
		struct host *h = &o->hosts[i];

		pthread_mutex_lock(&h->lock);
		if (!h->disk_full)
			log_warn("host '%s': out of placement: %s", h->conf->name, msg);
		h->disk_full = 1;
		h->disk_at = mono_ms() + RECONNECT_MS;
		set_health(o, h, db, 0, msg);
		pthread_mutex_unlock(&h->lock);
	}
}

/* --- connecting ---------------------------------------------------------- */

/* h set up for the first time: its row, and the guests of this instance
 * a dead daemon left on it */
static void first_connect(struct orch *o, struct host *h, struct db *db)
{
	char prefix[32];

	log_info("host '%s' (%s): x86_64 %s (%s), max %d vCPUs; arm64 %s, max %d vCPUs; "
		 "%" PRId64 " MiB, QEMU %s, libvirt %s", h->conf->name, h->conf->uri,
		 h->accel, h->why_accel, h->max_vcpus,
		 h->accel_arm64[0] ? h->accel_arm64 : "none", h->max_vcpus_arm64,
		 h->memory_kb / 1024, h->qemu_version, h->libvirt_version);
	if (db_host_upsert(db, h->conf->name, h->conf->uri, h->accel, h->qemu_version,
			   h->libvirt_version, h->max_vcpus, h->memory_kb) < 0)
		log_warn("host '%s': cannot record it: %s", h->conf->name, db_errmsg(db));
	snprintf(prefix, sizeof(prefix), "kf-%s-", o->instance);
	guest_sweep(o, h, prefix);
	h->connected_once = 1;
}

/* QEMU outlives libvirtd: guests of runs that ended while the host was
 * away may still run there */
static void destroy_orphans(struct host *h)
{
	for (size_t i = 0; i < h->norphans; i++) {
		log_info("host '%s': destroying '%s', left when the connection died",
			 h->conf->name, h->orphans[i]);
		guest_destroy_name(h, h->orphans[i]);
		free(h->orphans[i]);
	}
	h->norphans = 0;
}

int orch_host_connect(struct orch *o, struct host *h, struct db *db, int64_t until)
{
	virConnectPtr conn = NULL;
	char *e = NULL;
	int rc;

	if (hostconn_start(h) < 0)
		rc = set_errf(&e, "host '%s' (%s): cannot start a thread to connect",
			      h->conf->name, h->conf->uri);
	else
		rc = hostconn_take(h, until, &conn, &e);
	if (rc == 0)
		return 0;
	if (rc == 1 && guest_host_setup(o, h, conn, &e) == 0) {
		if (!h->connected_once) {
			first_connect(o, h, db);
		} else {
			log_info("host '%s': connected again", h->conf->name);
			destroy_orphans(h);
		}
		pthread_mutex_lock(&o->health_lock);
		h->down_since = 0;
		pthread_mutex_unlock(&o->health_lock);
		/* in placement; the disk is looked at again before a claim */
		h->disk_full = 0;
		h->disk_at = 0;
		set_health(o, h, db, 1, NULL);
		/* a pass soon: it lists the pool (kfleet hosts) */
		if (h->upload)
			storage_kick(o);
		return 1;
	}
	h->retry_at = mono_ms() + RECONNECT_MS;
	if (!h->connected_once && db_host_known(db, h->conf->name, h->conf->uri) < 0)
		log_warn("host '%s': cannot record it: %s", h->conf->name, db_errmsg(db));
	set_unreachable(o, h, db, e ? e : "?");
	free(e);
	return -1;
}

int orch_host_ready(struct orch *o, struct host *h, struct db *db)
{
	char why[512];
	int ready, disk;

	/* its KVM probe still runs: which accel its runs get is not known */
	if (__atomic_load_n(&h->probing, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&h->lock);
	store_health(o, h, db);      /* a write that failed before */
	ready = h->conn && virConnectIsAlive(h->conn) == 1;
	if (!ready && (h->conn_try || mono_ms() >= h->retry_at)) {
		if (h->conn) {
			/* the old connection's guests are gone with it or ended by
			 * their workers as infrastructure failures */
			guest_host_disconnect(h);
			set_unreachable(o, h, db, "the connection was lost; connecting again");
		}
		ready = orch_host_connect(o, h, db, 0) == 1;
	}
	/* the state directory's room, looked at every few seconds */
	if (ready && mono_ms() >= h->disk_at) {
		disk = disk_ok(o, why, sizeof(why));
		h->disk_at = mono_ms() + RECONNECT_MS;
		if ((!disk) != h->disk_full) {
			h->disk_full = !disk;
			if (!disk)
				log_warn("host '%s': out of placement: %s", h->conf->name, why);
			else
				log_info("host '%s': back in placement: the disk has room again",
					 h->conf->name);
			set_health(o, h, db, disk, why);
		}
	}
	ready = ready && !h->disk_full;
	pthread_mutex_unlock(&h->lock);
	return ready;
}

void orch_host_orphan(struct host *h, const char *domain)
{
	char **v;

	pthread_mutex_lock(&h->lock);
	v = realloc(h->orphans, (h->norphans + 1) * sizeof(*v));
	if (v) {
		h->orphans = v;
		v[h->norphans] = strdup(domain);
		if (v[h->norphans])
			h->norphans++;
	}
	pthread_mutex_unlock(&h->lock);
}
