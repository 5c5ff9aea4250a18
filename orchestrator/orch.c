// SPDX-License-Identifier: GPL-2.0-only
/* orch.c: the orchestrator's life, at the top of the part: start-up
 * (state directory, jobs, database, recovery of runs a dead daemon left in
 * flight, libvirt hosts and their event loop), starting the workers
 * (sched.c) and the builder (builder.c), and shutdown. Work comes in
 * through submit.c. */
#include "orchestrator/orchint.h"
#include "orchestrator/storage.h"

#include <errno.h>
#include <libvirt/virterror.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "kernels/kernels.h"


static int event_loop_registered;

static void *event_main(void *arg)
{
	struct orch *o = arg;

	for (;;) {
		int stop;

		pthread_mutex_lock(&o->lock);
		stop = o->stopping > 1;
		pthread_mutex_unlock(&o->lock);
		if (stop)
			break;
		if (virEventRunDefaultImpl() < 0)
			usleep(100000);
	}
	return NULL;
}

/* libvirt prints every error to stderr unless told otherwise; kfleet
 * reports the ones that matter itself, with the run they belong to. */
static void libvirt_error(void *opaque, virErrorPtr e)
{
	if (e && e->message)
		log_debug("libvirt: %s", e->message);
}

static void tick(int timer, void *opaque)
{
	/* wakes the event loop so it sees o->stopping */
}

/* Runs the start-up recovery: runs left in flight become infrastructure
 * failures (requeued when they have attempts left); the domains of this
 * instance still on a host are destroyed when it is first connected
 * (hosts.c). */
static void recover(struct orch *o)
{
	char **doms = NULL;
	size_t n = 0;

	if (db_recover(o->db, &doms, &n) < 0) {
		log_error("recovery: %s", db_errmsg(o->db));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		log_warn("recovery: domain '%s' was in flight when kfleetd stopped", doms[i]);
		free(doms[i]);
	}
	free(doms);
}

/* The job definitions; a broken job file is reported and left out, never
 * fatal. 0 / -1 (out of memory) */
static int load_jobs(struct orch *o)
{
	const struct config *c = o->conf;
	struct buf jerr = BUF_INIT(64 * 1024);
	int left_out = job_set_load(&o->jobs, c->job_dirs, &jerr);

	if (left_out < 0) {
		buf_release(&jerr);
		return -1;
	}
	for (char *l = jerr.data, *nl; l && *l; l = nl) {
		nl = strchr(l, '\n');
		if (nl)
			*nl++ = '\0';
		log_warn("jobs: %s", l);
	}
	log_info("jobs: %zu loaded from '%s'%s", o->jobs.n, c->job_dirs,
		 left_out ? ", some left out (see above)" : "");
	buf_release(&jerr);
	return 0;
}

/* Connects every configured host, all at once, each waited for at most
 * its connect_timeout: one that cannot be reached is down (its health
 * says why and since when) and tried again in the background while the
 * others serve. 0 / -1 with *err (NULL: out of memory) */
static int connect_hosts(struct orch *o, char **err)
{
	const struct config *c = o->conf;
	int64_t t0 = mono_ms();

	o->hosts = calloc(c->nhosts, sizeof(*o->hosts));
	if (!o->hosts)
		return -1;
	o->nhosts = c->nhosts;
	for (size_t i = 0; i < c->nhosts; i++) {
		struct host *h = &o->hosts[i];

		h->conf = &c->hosts[i];
		h->callback_id = -1;
		pthread_mutex_init(&h->lock, NULL);
		if (hostconn_start(h) < 0)
			return set_errf(err, "host '%s': cannot start a thread to connect",
					h->conf->name);
	}
	for (size_t i = 0; i < c->nhosts; i++)
		orch_host_connect(o, &o->hosts[i], o->db,
				  t0 + (int64_t)c->hosts[i].connect_timeout_s * 1000);
	return 0;
}

/* Runs on disk but no database (deleted, emptied): a new one would start
 * run ids at 1 again over the old runs' directories and forget their
 * guests. 1 (and *err) to refuse, 0 to go on. Only stat(): the database
 * file is never opened but by SQLite. */
static int state_has_runs_but_no_db(struct orch *o, char **err)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int runs = 0;

	if (stat(o->db_path, &st) == 0 && st.st_size > 0)
		return 0;
	if (!(d = opendir(o->runs_dir)))
		return 0;
	while ((e = readdir(d)))
		runs += e->d_name[0] >= '0' && e->d_name[0] <= '9';
	closedir(d);
	if (!runs)
		return 0;
	set_errf(err, "state directory '%s': %d run director%s under runs/ but %s: refusing to "
		 "start a new database over them (run ids would start at 1 again, and the old "
		 "runs' guests would never be cleaned up). Restore kfleet.db, or, to start "
		 "fresh, move '%s' away (or remove its runs/)", o->state_dir, runs,
		 runs == 1 ? "y" : "ies", stat(o->db_path, &st) == 0 ? "kfleet.db is empty" :
		 "no kfleet.db", o->state_dir);
	return 1;
}

struct orch *orch_new(const struct config *c, char **err)
{
	struct orch *o = calloc(1, sizeof(*o));
	char *e = NULL;

	*err = NULL;
	if (!o)
		return NULL;
	o->conf = c;
	pthread_mutex_init(&o->lock, NULL);
	pthread_mutex_init(&o->claim_lock, NULL);
	pthread_mutex_init(&o->health_lock, NULL);
	pthread_mutex_init(&o->db_lock, NULL);
	pthread_cond_init(&o->work, NULL);
	pthread_cond_init(&o->events, NULL);
	pthread_cond_init(&o->build_work, NULL);
	o->event_timer = -1;
	o->state_dir = path_abs(c->state_dir);
	if (!o->state_dir || mkdir_p(o->state_dir, 0755) < 0) {
		set_errf(err, "state directory '%s': %s", c->state_dir, strerror(errno));
		goto fail;
	}
	o->db_path = path_join(o->state_dir, "kfleet.db");
	o->cache_dir = path_join(o->state_dir, "cache");
	o->runs_dir = path_join(o->state_dir, "runs");
	o->agent_x86_64 = path_join(c->agent_dir, "kfleet-agent-x86_64");
	o->agent_arm64 = path_join(c->agent_dir, "kfleet-agent-arm64");
	o->tcg1_dir = path_join(o->state_dir, "tcg1");
	if (o->tcg1_dir && guest_write_tcg1(o->tcg1_dir) < 0) {
		set_errf(err, "QEMU wrappers in '%s': %s", o->tcg1_dir, strerror(errno));
		goto fail;
	}
	if (!o->db_path || !o->cache_dir || !o->runs_dir || !o->agent_x86_64 || !o->agent_arm64)
		goto fail;
	if (mkdir_p(o->runs_dir, 0755) < 0 || mkdir_p(o->cache_dir, 0755) < 0) {
		set_errf(err, "state directory '%s': %s", o->state_dir, strerror(errno));
		goto fail;
	}
	if (orch_qemu_reach(c, err) < 0)
		goto fail;
	if (access(o->agent_x86_64, R_OK) < 0)
		log_warn("agent '%s': %s; x86_64 runs will fail", o->agent_x86_64, strerror(errno));
	if (load_jobs(o) < 0)
		goto fail;
	if (state_has_runs_but_no_db(o, err))
		goto fail;
	o->db = db_open(o->db_path, &e);
	if (!o->db) {
		*err = e;
		goto fail;
	}
	/* runs' outputs and patches may be what users would not share: the
	 * database is private (its -wal and -shm follow its mode when made) */
	for (size_t i = 0; i < 3; i++) {
		static const char *const sfx[] = { "", "-wal", "-shm" };
		char f[PATH_MAX];

		snprintf(f, sizeof(f), "%s%s", o->db_path, sfx[i]);
		if (chmod(f, 0600) < 0 && errno != ENOENT)
			log_warn("'%s': cannot make it private: %s", f, strerror(errno));
	}
	if (db_quick_check(o->db, &e) < 0) {
		set_errf(err, "database '%s' is damaged (%s): kfleetd does not start on it. Keep "
			 "a copy, then try `sqlite3 %s .recover`, or move it away to start fresh",
			 o->db_path, e ? e : "?", o->db_path);
		free(e);
		goto fail;
	}
	snprintf(o->instance, sizeof(o->instance), "%s", db_instance(o->db));

	if (!event_loop_registered) {
		virSetErrorFunc(NULL, libvirt_error);
		if (virEventRegisterDefaultImpl() < 0) {
			set_errf(err, "libvirt: cannot set up its event loop");
			goto fail;
		}
		event_loop_registered = 1;
	}
	o->event_timer = virEventAddTimeout(500, tick, o, NULL);
	/* before the hosts: their keepalive needs the loop running */
	if (pthread_create(&o->event_thread, NULL, event_main, o)) {
		set_errf(err, "cannot start the libvirt event thread");
		goto fail;
	}
	o->event_thread_started = 1;
	if (connect_hosts(o, err) < 0)
		goto fail;
	recover(o);
	return o;
fail:
	if (!*err)
		*err = strdup("out of memory");
	orch_free(o);
	return NULL;
}

int orch_start(struct orch *o)
{
	if (storage_start(o) < 0 || sched_start(o) < 0 || builder_start(o) < 0)
		return -1;
	return decided_start(o);
}

const struct job_set *orch_jobs(const struct orch *o)
{
	return &o->jobs;
}

void orch_set_url(struct orch *o, const char *url)
{
	snprintf(o->url, sizeof(o->url), "%s", url);
}

const char *orch_db_path(const struct orch *o)
{
	return o->db_path;
}

void orch_free(struct orch *o)
{
	if (!o)
		return;
	builder_stop(o);
	decided_stop(o);
	if (o->workers)
		sched_stop(o);
	storage_stop(o);   /* after the workers, which hold its cache files */
	/* a KVM probe still booting gives up; it records its host's accel */
	orch_ask_stop(o);
	for (size_t i = 0; i < o->nhosts; i++)
		kvmprobe_join(&o->hosts[i]);
	pthread_mutex_lock(&o->lock);
	o->stopping = 2;
	pthread_mutex_unlock(&o->lock);
	if (o->event_thread_started)
		pthread_join(o->event_thread, NULL);
	for (size_t i = 0; i < o->nhosts; i++) {
		hostconn_drop(&o->hosts[i]);
		guest_host_disconnect(&o->hosts[i]);
		for (size_t j = 0; j < o->hosts[i].norphans; j++)
			free(o->hosts[i].orphans[j]);
		free(o->hosts[i].orphans);
		if (o->hosts[i].conf)
			pthread_mutex_destroy(&o->hosts[i].lock);
	}
	if (o->event_timer >= 0)
		virEventRemoveTimeout(o->event_timer);
	free(o->hosts);
	db_close(o->db);
	free(o->agent_x86_64);
	free(o->agent_arm64);
	free(o->tcg1_dir);
	job_set_release(&o->jobs);
	free(o->runs_dir);
	free(o->cache_dir);
	free(o->db_path);
	free(o->state_dir);
	pthread_cond_destroy(&o->events);
	pthread_cond_destroy(&o->build_work);
	pthread_cond_destroy(&o->work);
	pthread_mutex_destroy(&o->lock);
	pthread_mutex_destroy(&o->claim_lock);
	pthread_mutex_destroy(&o->health_lock);
	pthread_mutex_destroy(&o->db_lock);
	free(o);
}
