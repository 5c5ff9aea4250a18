// SPDX-License-Identifier: GPL-2.0-only
/* uprobe-fork.c: workloads.md #3, run in a kfleet guest. Attaches UPROBES
 * uprobes to this binary (perf_event_open, uprobe PMU) and detaches them in a
 * loop for SECONDS while a child forks in a loop, timing fork(): "idle", then
 * "busy", with a child that maps this binary too looping over mmap(MIB,
 * MAP_POPULATE)/munmap() so registration waits on its mmap_lock. METRIC: ms. */
#include "wl.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define USAGE "[-s SECONDS_PER_PHASE (5)] [-m MIB (MemAvailable/4, " \
	"at most 1024)] [-u UPROBES (4)]"

#define TARGETS 4

/* The probed functions: never called, kept apart so each has its own entry */
#define TARGET(n) \
	__attribute__((noinline, used)) unsigned long wl_uprobe_target##n(unsigned long x) \
	{ \
		__asm__ volatile("" : "+r"(x)); \
		return x * (n + 3) + (x >> (n + 1)); \
	}
TARGET(0)
TARGET(1)
TARGET(2)
TARGET(3)
static unsigned long (*const targets[TARGETS])(unsigned long) = {
	wl_uprobe_target0, wl_uprobe_target1, wl_uprobe_target2, wl_uprobe_target3,
};

struct shared {
	volatile int stop;
	volatile uint64_t forks, fork_sum_ns, fork_max_ns, maps;
};

static char exe[PATH_MAX];
static uint64_t offsets[TARGETS];
static unsigned long pmu_type;

/* File offset of addr in our own binary, from its mapping in /proc/self/maps */
static int file_offset(uintptr_t addr, uint64_t *off)
{
	static char maps[256 * 1024];
	char *line, *next;

	if (wl_read_file("/proc/self/maps", maps, sizeof(maps)) < 0)
		return wl_syserr("read '/proc/self/maps'");
	for (line = maps; line && *line; line = next) {
		unsigned long lo, hi, pgoff;
		int pathat = 0;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %n", &lo, &hi, &pgoff, &pathat) != 3 ||
		    !pathat || addr < lo || addr >= hi)
			continue;
		if (strcmp(line + pathat, exe))
			return wl_error("function at 0x%lx is mapped from '%s', not '%s'",
					(unsigned long)addr, line + pathat, exe);
		*off = addr - lo + pgoff;
		return 0;
	}
	return wl_error("function at 0x%lx: not in '/proc/self/maps'", (unsigned long)addr);
}

static int uprobe_open(int i)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)pmu_type;
	attr.uprobe_path = (uint64_t)(uintptr_t)exe;
	attr.probe_offset = offsets[i % TARGETS];
	return wl_perf_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The forking child: fork, the child exits at once, wait; until stop */
static int forker(struct shared *sh)
{
	uint64_t t0, d;
	pid_t pid;
	int status;

	while (!sh->stop) {
		t0 = wl_now_ns();
		pid = fork();
		if (pid < 0)
			return wl_syserr("fork"), 1;
		if (!pid)
			_exit(0);
		d = wl_now_ns() - t0;
		sh->forks++;
		sh->fork_sum_ns += d;
		if (d > sh->fork_max_ns)
			sh->fork_max_ns = d;
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR)
				return wl_syserr("waitpid"), 1;
	}
	return 0;
}

/* The busy child: keeps its mmap_lock taken, until stop */
static int mapper(struct shared *sh, size_t bytes)
{
	while (!sh->stop) {
		void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

		if (p == MAP_FAILED)
			return wl_syserr("mmap %zu MiB MAP_POPULATE", bytes >> 20), 1;
		if (munmap(p, bytes) < 0)
			return wl_syserr("munmap"), 1;
		sh->maps++;
	}
	return 0;
}

static pid_t spawn(struct shared *sh, size_t bytes)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		wl_syserr("fork");
	if (!pid)
		_exit(bytes ? mapper(sh, bytes) : forker(sh));
	return pid;
}

static int reap(pid_t pid, const char *what)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return wl_syserr("waitpid %s", what);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return wl_error("the %s process failed", what);
	return 0;
}

/* One phase: attach/detach loop for secs; prints its metrics. 0 or -1 */
static int phase(struct shared *sh, const char *name, size_t map_bytes, long secs, int nprobes)
{
	pid_t fk, mp = 0;
	uint64_t end, t0, t1, n = 0, sum = 0, max = 0, dsum = 0;
	int fds[TARGETS * 4], i, rc = 0;
	char m[64];

	memset((void *)sh, 0, sizeof(*sh));
	if (map_bytes && (mp = spawn(sh, map_bytes)) < 0)
		return -1;
	if ((fk = spawn(sh, 0)) < 0) {
		sh->stop = 1;
		if (mp > 0)
			reap(mp, "mmap");
		return -1;
	}
	usleep(200000);   /* both children at work */
	end = wl_now_ns() + (uint64_t)secs * 1000000000u;
	while (wl_now_ns() < end) {
		t0 = wl_now_ns();
		for (i = 0; i < nprobes; i++) {
			fds[i] = uprobe_open(i);
			if (fds[i] < 0) {
				wl_syserr("perf_event_open uprobe '%s':0x%llx", exe,
					  (unsigned long long)offsets[i % TARGETS]);
				rc = -1;
				break;
			}
		}
		t1 = wl_now_ns();
		while (i-- > 0)
			close(fds[i]);
		if (rc)
			break;
		dsum += wl_now_ns() - t1;
		n++;
		sum += t1 - t0;
		if (t1 - t0 > max)
			max = t1 - t0;
	}
	sh->stop = 1;
	if (reap(fk, "fork") < 0)
		rc = -1;
	if (mp > 0 && reap(mp, "mmap") < 0)
		rc = -1;
	if (rc)
		return -1;
	printf("%s: %llu forks, avg %.3f ms, max %.3f ms; %llu attaches of %d uprobes, "
	       "avg %.3f ms, max %.3f ms, detach avg %.3f ms", name,
	       (unsigned long long)sh->forks,
	       sh->forks ? (double)sh->fork_sum_ns / (double)sh->forks / 1e6 : 0.0,
	       (double)sh->fork_max_ns / 1e6, (unsigned long long)n, nprobes,
	       n ? (double)sum / (double)n / 1e6 : 0.0, (double)max / 1e6,
	       n ? (double)dsum / (double)n / 1e6 : 0.0);
	if (map_bytes)
		printf("; %llu mmap+munmap of %zu MiB", (unsigned long long)sh->maps,
		       map_bytes >> 20);
	printf("\n");
	if (!sh->forks || !n)
		return wl_error("%s: no fork or no attach completed in %ld s", name, secs);
#define M(what, v, unit) (snprintf(m, sizeof(m), "%s.%s", name, what), wl_metric(m, v, unit))
	M("fork_max", (double)sh->fork_max_ns / 1e6, "ms");
	M("fork_avg", (double)sh->fork_sum_ns / (double)sh->forks / 1e6, "ms");
	M("forks", (double)sh->forks, "forks");
	M("attach_avg", (double)sum / (double)n / 1e6, "ms");
	M("attach_max", (double)max / 1e6, "ms");
	M("detach_avg", (double)dsum / (double)n / 1e6, "ms");
	M("attaches", (double)n, "attaches");
#undef M
	return 0;
}

int main(int argc, char **argv)
{
	const char *pmu = "/sys/bus/event_source/devices/uprobe/type";
	long secs = 5, mib = 0, nprobes = 4, avail;
	struct shared *sh;
	ssize_t len;
	int c, fd, rc = 1;

	wl_init("uprobe-fork");
	while ((c = getopt(argc, argv, "s:m:u:")) != -1) {
		switch (c) {
		case 's':
			if (wl_opt_long('s', optarg, 1, 3600, &secs) < 0)
				return 2;
			break;
		case 'm':
			if (wl_opt_long('m', optarg, 1, 1 << 20, &mib) < 0)
				return 2;
			break;
		case 'u':
			if (wl_opt_long('u', optarg, 1, TARGETS * 4, &nprobes) < 0)
				return 2;
			break;
		default:
			return wl_usage(USAGE);
		}
	}
	if (optind < argc)
		return wl_usage(USAGE);
	avail = wl_mem_available_mib();
	if (!mib) {
		if (avail < 0)
			return wl_syserr("'/proc/meminfo': no MemAvailable"), 1;
		mib = avail / 4 > 1024 ? 1024 : avail / 4 < 16 ? 16 : avail / 4;
	}
	if (wl_read_ulong(pmu, &pmu_type) < 0)
		return wl_skip("no uprobe PMU in this kernel ('%s': %s)", pmu, strerror(errno));
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len < 0)
		return wl_syserr("readlink '/proc/self/exe'"), 1;
	exe[len] = '\0';
	for (int i = 0; i < TARGETS; i++)
		if (file_offset((uintptr_t)targets[i], &offsets[i]) < 0)
			return 1;
	fd = uprobe_open(0);
	if (fd < 0) {
		int e = errno;

		if (e == ENOENT || e == EOPNOTSUPP || e == EINVAL || e == 524)
			return wl_skip("uprobes on '%s' unsupported here (perf_event_open "
				       "uprobe: %s)", exe, wl_strerror(e));
		errno = e;
		return wl_syserr("perf_event_open uprobe '%s':0x%llx", exe,
				 (unsigned long long)offsets[0]), 1;
	}
	close(fd);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return wl_syserr("mmap shared"), 1;
	printf("uprobe-fork: %ld uprobes on '%s' (offsets 0x%llx...), %ld s per phase, "
	       "busy process maps %ld MiB (MemAvailable %ld MiB), %d CPUs\n", nprobes, exe,
	       (unsigned long long)offsets[0], secs, mib, avail, wl_nproc());
	if (phase(sh, "idle", 0, secs, (int)nprobes) == 0 &&
	    phase(sh, "busy", (size_t)mib << 20, secs, (int)nprobes) == 0)
		rc = 0;
	munmap(sh, sizeof(*sh));
	return rc;
}
