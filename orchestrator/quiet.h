/* SPDX-License-Identifier: GPL-2.0-only */
/* quiet.h: quiet measurements (quiet.c). A benchmark's guest gets host
 * cores of its own (<cputune>: its vCPUs and emulator threads pinned),
 * handed out here so two pinned guests never share one; the other guests
 * of the host are kept to the cores left, builds are kept off the pinned
 * cores or paused, and every run records what else ran on its host
 * meanwhile (its neighbours: runs, builds, load). The workers (sched.c)
 * call quiet_begin() and quiet_end() around a run, the builder
 * (builder.c) quiet_build_begin() and quiet_build_end() around a build.
 * The decision and the allocator are pure functions, for the unit tests. */
#ifndef KF_QUIET_H
#define KF_QUIET_H

#include <stddef.h>
#include <stdint.h>

#define QUIET_CPUS_MAX 1024      /* host cores kfleet pins on; more are not used for it */
#define QUIET_NEIGH_MAX 32       /* neighbours of each kind recorded per run */

enum quiet_pin {
	QUIET_PINNED,            /* cores of its own */
	QUIET_UNPINNED,          /* on the cores no run has to itself; why says why */
	QUIET_OVERCOMMITTED,     /* more vCPUs than the host has cores */
	QUIET_WAIT,              /* a run to pin, but its cores are not free yet */
};

const char *quiet_pin_name(enum quiet_pin p);

/* What a run of vcpus gets on a host of cpus cores (0: not known), reserve
 * of them never pinned and nfree of the rest not pinned by another run.
 * want: the run is one to pin ([quiet] pin = yes, or auto and a job with
 * metrics; why_not says why not when it is not); wait: [quiet] busy =
 * wait. Writes why (for the run's record) and returns the decision. */
enum quiet_pin quiet_decide(int want, const char *why_not, int wait, int vcpus, int cpus,
			    int reserve, int nfree, char *why, size_t n);

/* The cores of [reserve, cpus) that used[] (1: pinned by a run) leaves */
int quiet_cores_free(const unsigned char *used, int cpus, int reserve);
/* Picks n of those from the top down (the low cores take the host's
 * interrupts) into got[], ascending. 0, or -1 when fewer are free. */
int quiet_cores_pick(const unsigned char *used, int cpus, int reserve, int n, int *got);
/* cores[0..n) (ascending) as a libvirt cpuset: "1", "2-3,6" */
void quiet_cpuset(const int *cores, int n, char *out, size_t len);

struct orch;
struct host;
struct run;
struct db;
struct guest_spec;
struct claim_fit;

/* Made by sched_start() (with its ticker thread), freed by sched_stop() */
int quiet_start(struct orch *o);
void quiet_stop(struct orch *o);

/* What h may take of the runs to pin, into fit (o->lock held) */
void quiet_fit(struct orch *o, const struct host *h, struct claim_fit *fit);

/* A claimed run r on h (claim_lock held): its cores, its neighbours so far,
 * the load, recorded into db. */
void quiet_begin(struct orch *o, struct host *h, struct db *db, const struct run *r);
/* The pinning of run_id into its guest's spec (run.c, as it fills it):
 * strings borrowed until quiet_end() */
void quiet_spec(struct orch *o, int64_t run_id, struct guest_spec *gs);
/* r's guest is gone: its neighbours and the load into db, its cores free */
void quiet_end(struct orch *o, struct db *db, const struct run *r);

/* The builder starts or ends building submission sub (on its own thread) */
void quiet_build_begin(struct orch *o, int64_t sub);
void quiet_build_end(struct orch *o);

#endif
