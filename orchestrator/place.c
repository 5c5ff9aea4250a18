// SPDX-License-Identifier: GPL-2.0-only
/* place.c: placement, what a host may take now. A worker asks this before
 * it claims a run (the fair queue, fairq.c, picks one of those that fit),
 * under o->lock, so it sees every host's slots, CPUs and memory as they
 * are. */
#include "orchestrator/orchint.h"
#include "orchestrator/quiet.h"

#include <limits.h>
#include <string.h>

#include "common/util.h"

#define HOST_MEM_RESERVE_MB 512 /* a host's memory kept for itself, not for guests */

int place_cpus(const struct host *h)
{
	if (h->conf->cpus >= 0)
		return h->conf->cpus;
	return h->cpus > 0 ? h->cpus : 0;
}

int place_cpus_of(const struct host *h, int vcpus)
{
	int c = place_cpus(h);

	return vcpus < c ? vcpus : c;
}

/* CPUs: a run takes min(vCPUs, cpus) of the host's, and the host takes
 * runs while they fit beside its running ones (an empty host takes any).
 * A run that fits the host only emptier and has waited reserve_after is
 * waited for: the fair queue then keeps the host for it.
 * Cores: a run to pin (a benchmark) that fits the host's cores but not
 * those free of other pinned runs now waits, when [quiet] busy = wait.
 * Memory: the host's, less what its running guests were given and
 * HOST_MEM_RESERVE_MB for itself; guests are packed until it is used up.
 * KVM first: a host that runs x86_64 under TCG leaves the runs that an
 * idle KVM host could take to that host, so they run several times
 * faster; when every KVM slot is busy it takes them, so the fleet stays
 * busy. */
void place_fit(const struct orch *o, const struct host *h, struct claim_fit *fit)
{
	int64_t mem = h->memory_kb / 1024 - HOST_MEM_RESERVE_MB - h->mem_used_mb;

	memset(fit, 0, sizeof(*fit));
	fit->max_vcpus_x86_64 = h->max_vcpus;
	fit->max_vcpus_arm64 = h->max_vcpus_arm64;
	fit->max_memory_mb = h->memory_kb <= 0 ? INT_MAX : mem < 0 ? 0 :
			     mem > INT_MAX ? INT_MAX : (int)mem;
	mem += h->mem_used_mb;
	fit->memory_total_mb = h->memory_kb <= 0 ? INT_MAX : mem < 0 ? 0 :
			       mem > INT_MAX ? INT_MAX : (int)mem;
	fit->cpus = place_cpus(h);
	fit->cpus_free = fit->cpus - h->cpus_used;
	if (o->conf->reserve_after_s > 0)
		fit->hold_before = now_ms() - (int64_t)o->conf->reserve_after_s * 1000;
	/* a run to pin waits for cores of its own (quiet.c) */
	quiet_fit((struct orch *)o, h, fit);
	if (!strcmp(h->accel, "kvm"))
		return;
	for (size_t i = 0; i < o->nhosts; i++) {
		const struct host *k = &o->hosts[i];
		int64_t kmem = k->memory_kb / 1024 - HOST_MEM_RESERVE_MB - k->mem_used_mb;

		if (k == h || strcmp(k->accel, "kvm") || !k->healthy || !k->conn ||
		    k->busy >= k->conf->slots)
			continue;
		if (k->max_vcpus > fit->leave_vcpus)
			fit->leave_vcpus = k->max_vcpus;
		if (kmem > fit->leave_memory_mb)
			fit->leave_memory_mb = kmem > INT_MAX ? INT_MAX : (int)kmem;
	}
}
