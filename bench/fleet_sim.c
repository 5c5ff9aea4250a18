// SPDX-License-Identifier: GPL-2.0-only
/* fleet_sim.c: the placement (claim_fit, as orchestrator/place.c fills it)
 * and the fair queue (db_queue_classes() in SQLite, then fairq_order() and
 * fairq_pick(), then db_run_claim_id(): what a worker does for each run)
 * driven with simulated hosts and queued runs, no guest, no libvirt.
 *   1. the time of one placement decision with QUEUED runs queued, on a
 *      real database file: DECISIONS decisions, median and p99;
 *   2. a whole simulated day: RUNS runs on HOSTS hosts (a mix of big KVM
 *      hosts and small TCG ones, each with slots, CPUs and memory), each
 *      run's length drawn from a known distribution; every free slot asks
 *      for a run, simulated time jumps to the next run's end. Makespan
 *      against the ideal (the larger of: the CPU-seconds over the fleet's
 *      CPUs, and the longest run), and the decisions' time.
 * Usage: fleet_sim HOSTS QUEUED DECISIONS RUNS DIR */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db.h"
#include "db/dbint.h"
#include "orchestrator/fairq.h"

static uint64_t rng = 0x666c656574ULL;

static uint32_t rnd(void)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (uint32_t)(rng >> 33);
}

struct shost {
	char name[16];
	int slots, cpus, mem_mb, max_vcpus, kvm;
	int busy, cpus_used, mem_used;
};

struct slot_run {
	int64_t id;
	double end;
	int host, vcpus, mem;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* a run's shape and, in the simulation, its length (s) */
static void shape(int *vcpus, int *mem, double *len, const char **watch)
{
	static const int v[] = { 1, 1, 2, 2, 2, 4, 4, 8, 16, 32 };
	static const char *const watches[] = { "bpf", "netdev", "mm", "sched", "fs" };

	*vcpus = v[rnd() % 10];
	*mem = 512 << (rnd() % 4);
	*len = 30 + (rnd() % 570);               /* 30 s to 10 min */
	*watch = rnd() % 10 < 3 ? watches[rnd() % 5] : NULL;
}

static int queue(struct db *db, int n, double *len)
{
	struct run_request q = { "/boot/vmlinuz-sim",
				 "5151515151515151515151515151515151515151515151515151515151515151",
				 "x86_64", 1, 512, 600, "true", NULL, NULL, 1, 2, NULL };

	if (dbi_begin(db) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		int64_t id;
		double l;

		shape(&q.vcpus, &q.memory_mb, &l, &q.watch);
		if (dbi_run_insert(db, &q, 0, &id) < 0) {
			dbi_rollback(db);
			return -1;
		}
		if (len)
			len[id] = l;
	}
	return dbi_commit(db);
}

static void hosts_make(struct shost *h, int n, struct db *db)
{
	for (int i = 0; i < n; i++) {
		int big = i % 5 == 0;

		snprintf(h[i].name, sizeof(h[i].name), "h%03d", i);
		h[i].kvm = big;
		h[i].slots = big ? 8 : 4;
		h[i].cpus = big ? 64 : 16;
		h[i].mem_mb = big ? 256 * 1024 : 64 * 1024;
		h[i].max_vcpus = big ? 96 : 16;
		h[i].busy = h[i].cpus_used = h[i].mem_used = 0;
		db_host_upsert(db, h[i].name, "sim", big ? "kvm" : "tcg", "sim", "sim", h[i].max_vcpus,
			       (int64_t)h[i].mem_mb * 1024);
	}
}

/* What place_fit() makes of host h (no pinning, no holds): the claim's
 * limits */
static void fit_of(const struct shost *h, const struct shost *all, int n, struct claim_fit *f)
{
	memset(f, 0, sizeof(*f));
	f->max_vcpus_x86_64 = h->max_vcpus;
	f->max_memory_mb = h->mem_mb - 512 - h->mem_used;
	f->memory_total_mb = h->mem_mb - 512;
	f->cpus = h->cpus;
	f->cpus_free = h->cpus - h->cpus_used;
	if (h->kvm)
		return;
	/* a TCG host leaves to an idle KVM host what it could take */
	for (int i = 0; i < n; i++)
		if (all[i].kvm && all[i].busy < all[i].slots) {
			if (all[i].max_vcpus > f->leave_vcpus)
				f->leave_vcpus = all[i].max_vcpus;
			if (all[i].mem_mb - 512 - all[i].mem_used > f->leave_memory_mb)
				f->leave_memory_mb = all[i].mem_mb - 512 - all[i].mem_used;
		}
}

/* One decision for host h: 1 a run taken (*r), 0 none, -1 error */
static int decide(struct db *db, struct shost *h, struct shost *all, int n, struct run *r)
{
	struct claim_fit f;
	struct queue_class *v = NULL;
	struct fairq_choice c;
	size_t nv = 0;
	int rc;

	fit_of(h, all, n, &f);
	if (db_queue_classes(db, &f, &v, &nv) < 0)
		return -1;
	fairq_order(v, nv);
	fairq_pick(v, nv, &c);
	rc = c.act == FAIRQ_TAKE ? db_run_claim_id(db, h->name, c.run_id, r) : 0;
	queue_classes_free(v, nv);
	return rc;
}

static void report(const char *what, double *t, size_t n)
{
	qsort(t, n, sizeof(*t), cmp_d);
	printf("%-34s %8zu decisions  median %7.2f ms  p99 %7.2f ms\n", what, n,
	       n ? t[n / 2] * 1e3 : 0, n ? t[n * 99 / 100] * 1e3 : 0);
}

int main(int argc, char **argv)
{
	int nh = argc > 1 ? atoi(argv[1]) : 100, queued = argc > 2 ? atoi(argv[2]) : 100000;
	int decisions = argc > 3 ? atoi(argv[3]) : 200, nruns = argc > 4 ? atoi(argv[4]) : 5000;
	const char *dir = argc > 5 ? argv[5] : "/tmp";
	char path[512], *err = NULL;
	struct shost *h = calloc((size_t)nh, sizeof(*h));
	double *t = calloc((size_t)(decisions + nruns + 1), sizeof(*t)), *len;
	struct slot_run *live = calloc((size_t)nh * 8 + 1, sizeof(*live));
	size_t nt = 0, nlive = 0;
	struct db *db;
	double sim = 0, cpu_s = 0, run_s = 0, longest = 0, t0;
	int fleet_cpus = 0, fleet_slots = 0, done = 0;

	if (!h || !t || !live)
		return 1;
	/* 1. decisions with the whole queue waiting */
	snprintf(path, sizeof(path), "%s/decide.db", dir);
	if (!(db = db_open(path, &err))) {
		fprintf(stderr, "db: %s\n", err ? err : "?");
		return 1;
	}
	hosts_make(h, nh, db);
	t0 = now_s();
	if (queue(db, queued, NULL) < 0) {
		fprintf(stderr, "queue: %s\n", db_errmsg(db));
		return 1;
	}
	printf("%d hosts (%d KVM: 64 CPUs, 8 slots; %d TCG: 16 CPUs, 4 slots); %d runs queued in %.1f s\n",
	       nh, (nh + 4) / 5, nh - (nh + 4) / 5, queued, now_s() - t0);
	for (int i = 0; i < decisions; i++) {
		struct shost *x = &h[rnd() % nh];
		struct run r;
		double a = now_s();
		int rc = decide(db, x, h, nh, &r);

		t[nt++] = now_s() - a;
		if (rc == 1) {
			/* the slot frees at once: the queue stays as long */
			db_run_finish(db, r.id, RUN_OUT_PASSED, NULL, NULL, 1, 0);
			run_release(&r);
		}
	}
	report("a decision, queue full:", t, nt);
	db_close(db);

	/* 2. a simulated day: every run placed, simulated time to its end */
	snprintf(path, sizeof(path), "%s/day.db", dir);
	if (!(db = db_open(path, &err)) || !(len = calloc((size_t)nruns + 2, sizeof(*len)))) {
		fprintf(stderr, "db: %s\n", err ? err : "?");
		return 1;
	}
	hosts_make(h, nh, db);
	if (queue(db, nruns, len) < 0) {
		fprintf(stderr, "queue: %s\n", db_errmsg(db));
		return 1;
	}
	for (int i = 0; i < nh; i++) {
		fleet_cpus += h[i].cpus;
		fleet_slots += h[i].slots;
	}
	nt = 0;
	t0 = now_s();
	while (done < nruns) {
		int placed = 0;

		for (int i = 0; i < nh; i++) {
			while (h[i].busy < h[i].slots) {
				struct run r;
				double a = now_s();
				int rc = decide(db, &h[i], h, nh, &r);

				t[nt++ % (size_t)(decisions + nruns)] = now_s() - a;
				if (rc != 1)
					break;
				live[nlive++] = (struct slot_run){ r.id, sim + len[r.id], i,
								   r.vcpus < h[i].cpus ? r.vcpus : h[i].cpus,
								   r.memory_mb };
				h[i].busy++;
				h[i].cpus_used += live[nlive - 1].vcpus;
				h[i].mem_used += r.memory_mb;
				cpu_s += len[r.id] * live[nlive - 1].vcpus;
				run_s += len[r.id];
				if (len[r.id] > longest)
					longest = len[r.id];
				run_release(&r);
				placed++;
			}
		}
		if (!nlive) {
			fprintf(stderr, "stuck: %d runs left, none running\n", nruns - done);
			return 1;
		}
		/* the next run to end */
		{
			size_t k = 0;

			for (size_t j = 1; j < nlive; j++)
				if (live[j].end < live[k].end)
					k = j;
			sim = live[k].end;
			db_run_finish(db, live[k].id, RUN_OUT_PASSED, NULL, NULL, 1, 0);
			h[live[k].host].busy--;
			h[live[k].host].cpus_used -= live[k].vcpus;
			h[live[k].host].mem_used -= live[k].mem;
			live[k] = live[--nlive];
			done++;
		}
		(void)placed;
	}
	{
		double ideal = cpu_s / fleet_cpus;
		size_t n = nt < (size_t)(decisions + nruns) ? nt : (size_t)(decisions + nruns);

		if (run_s / fleet_slots > ideal)
			ideal = run_s / fleet_slots;
		if (longest > ideal)
			ideal = longest;
		printf("a simulated fleet: %d runs of 30 s to 10 min on %d hosts (%d CPUs, %d slots)\n",
		       nruns, nh, fleet_cpus, fleet_slots);
		printf("  makespan %.0f s, ideal %.0f s (the largest of: CPU-seconds over the fleet's "
		       "CPUs, run-seconds over its slots, the longest run): %.3f of it\n", sim, ideal,
		       sim / ideal);
		printf("  %zu decisions in %.1f s of this machine's time\n", nt, now_s() - t0);
		report("  a decision, as the queue drains:", t, n);
	}
	db_close(db);
	return 0;
}
