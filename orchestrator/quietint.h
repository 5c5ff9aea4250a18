/* SPDX-License-Identifier: GPL-2.0-only */
/* quietint.h: what quiet.c and quiet_build.c share (quiet.h is what the
 * rest of the orchestrator sees) */
#ifndef KF_QUIETINT_H
#define KF_QUIETINT_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "orchestrator/quiet.h"

#define QUIET_CPUSET_LEN 5120    /* "0,2,4,...,1022" fits */

/* A run with a guest on a host, from quiet_begin() to quiet_end() */
struct quiet_run {
	int64_t id;
	int host;                    /* index into o->hosts */
	int machine;                 /* ... of the first host on the same machine, whose
				      * cores it shares (used, gen) */
	int vcpus;
	int local;                   /* the host is this machine: builds are its neighbours */
	char domain[64];
	enum quiet_pin pin;
	char why[160];
	int cores[QUIET_CPUS_MAX];   /* pinned: its cores, ascending */
	int ncores;
	char cpuset[QUIET_CPUSET_LEN];     /* its cores now, "" any */
	char xml_cpuset[QUIET_CPUSET_LEN]; /* ... as its domain XML got them */
	unsigned gen;                /* the host's core generation its cores follow */
	unsigned tick;               /* the ticker's last try to move it */
	int64_t runs[QUIET_NEIGH_MAX];     /* its neighbours */
	int run_vcpus[QUIET_NEIGH_MAX];
	int nruns, more_runs;
	int64_t builds[QUIET_NEIGH_MAX];
	int build_paused[QUIET_NEIGH_MAX];
	int nbuilds, more_builds;
	struct quiet_run *next;
};

struct quiet {
	struct orch *o;
	pthread_mutex_t lock;        /* under o->lock when both are taken */
	pthread_cond_t cond;
	unsigned char (*used)[QUIET_CPUS_MAX];   /* per host: cores pinned by a run */
	unsigned *gen;               /* per host: bumped when its pinned cores change */
	char *pin_jobs;              /* ",a,b," the jobs to pin, "*" all, NULL none */
	struct quiet_run *runs;
	pthread_t ticker;
	int ticker_started;
	int stop;
	/* the build (quiet_build.c) */
	int64_t build;               /* submission being built, 0 none */
	pid_t build_tid;             /* the builder thread */
	int paused;                  /* its processes are stopped */
	int restricted;              /* its processes are kept off the pinned cores */
	void *base_mask;             /* cpu_set_t: this process's cores at the start */
};

int quiet_host_local(const struct host *h);
double quiet_loadavg(void);
void quiet_shared_set(const struct quiet *q, const struct host *h, int i, char *out, size_t n);
void quiet_note_build(struct quiet *q, struct quiet_run *r, int64_t sub);
void *quiet_ticker(void *arg);

/* quiet_build.c */
int quiet_build_init(struct quiet *q);
void quiet_build_release(struct quiet *q);
/* Holds the build back ([quiet] builds) while a pinned run is on a local
 * host, lets it go when none is */
void quiet_builds_apply(struct quiet *q);
void quiet_builds_resume(struct quiet *q);

/* guest.c: moves the running domain's vCPUs and emulator threads to the
 * cores of cpuset ("" all of h's). 0 / -1 (no such domain, libvirt error) */
int guest_repin_live(struct host *h, const char *domain, int vcpus, const char *cpuset);

#endif
