/* hosts.c: host health. A worker asks before each claim whether its host
 * can take a run: its libvirt connection is alive (or was made again, at
 * most every few seconds, destroying the guests it left behind) and the
 * state directory has room. A change is recorded in the database, which
 * the status page and placement read. */
#include "orchestrator/orchint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "common/log.h"
#include "common/util.h"

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

int orch_host_ready(struct orch *o, struct host *h, struct db *db)
{
	char why[512];
	int ready, disk;

	/* its KVM probe still runs: which accel its runs get is not known */
	if (__atomic_load_n(&h->probing, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&h->lock);
	ready = h->conn && virConnectIsAlive(h->conn) == 1;
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
			db_host_health(db, h->conf->name, disk, disk ? NULL : why);
			h->healthy = disk;
		}
	}
	if (ready && h->disk_full) {
		pthread_mutex_unlock(&h->lock);
		return 0;
	}
	if (!ready && mono_ms() >= h->retry_at) {
		char *e = NULL;

		/* the old connection's guests are gone with it or ended by their
		 * workers as infrastructure failures */
		guest_host_disconnect(h);
		if (guest_host_connect(o, h, &e) == 0) {
			ready = 1;
			log_info("host '%s': connected again", h->conf->name);
			/* QEMU outlives libvirtd: guests of runs that ended while the
			 * host was away may still run there */
			for (size_t i = 0; i < h->norphans; i++) {
				log_info("host '%s': destroying '%s', left when the connection "
					 "died", h->conf->name, h->orphans[i]);
				guest_destroy_name(h, h->orphans[i]);
				free(h->orphans[i]);
			}
			h->norphans = 0;
		} else {
			h->retry_at = mono_ms() + RECONNECT_MS;
			if (h->healthy)
				log_warn("host '%s': out of placement: %s", h->conf->name,
					 e ? e : "?");
		}
		if ((ready && !h->disk_full) != h->healthy && !(ready && h->disk_full))
			db_host_health(db, h->conf->name, ready, ready ? NULL : e);
		h->healthy = ready && !h->disk_full;
		free(e);
	}
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
