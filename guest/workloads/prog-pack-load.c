// SPDX-License-Identifier: GPL-2.0-only
/* prog-pack-load.c: workloads.md #4, run in a kfleet guest. Times a CPU-bound
 * workload with ~1 MiB of code (4096 generated functions) on WORKERS threads
 * for SECONDS alone ("base"), then with PROGS BPF socket filters loaded and
 * TRIGGERED of them run in loops by BPF_PROG_TEST_RUN ("loaded"). Instructions
 * and iTLB misses are counted where the guest's PMU can (not under TCG). */
#include "wl.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define USAGE "[-s SECONDS_PER_PHASE (5)] [-p PROGS (8*nproc)] " \
	"[-t TRIGGERED (5*nproc)] [-j TRIGGER_THREADS (nproc/2)] " \
	"[-w WORKERS (nproc)]"

#define PROGS_MAX   4096
#define THREADS_MAX 1024
#define CPUS_MAX    1024            /* perf counters opened per CPU */
#define PROG_ALU    30              /* pairs of ALU instructions a program */

/* --- the large code footprint ------------------------------------------- */

#define STEP(k) \
	x ^= x >> ((k) % 29 + 3); \
	x *= 0x9E3779B97F4A7C15ull ^ ((uint64_t)(k) << 20); \
	x += (uint64_t)(k) * 0x632BE59BD9B4E019ull; \
	x ^= x << ((k) % 13 + 5);
#define FN(n) \
	static __attribute__((noinline)) uint64_t f##n(uint64_t x) \
	{ STEP(0##n) STEP(0##n + 1) STEP(0##n + 2) STEP(0##n + 3) return x; }
#define FN8(p) FN(p##0) FN(p##1) FN(p##2) FN(p##3) FN(p##4) FN(p##5) FN(p##6) FN(p##7)
#define FN64(p) FN8(p##0) FN8(p##1) FN8(p##2) FN8(p##3) FN8(p##4) FN8(p##5) FN8(p##6) FN8(p##7)
#define FN512(p) FN64(p##0) FN64(p##1) FN64(p##2) FN64(p##3) FN64(p##4) FN64(p##5) \
	FN64(p##6) FN64(p##7)
FN512(0) FN512(1) FN512(2) FN512(3) FN512(4) FN512(5) FN512(6) FN512(7)

#define TF8(p) f##p##0, f##p##1, f##p##2, f##p##3, f##p##4, f##p##5, f##p##6, f##p##7,
#define TF64(p) TF8(p##0) TF8(p##1) TF8(p##2) TF8(p##3) TF8(p##4) TF8(p##5) TF8(p##6) TF8(p##7)
#define TF512(p) TF64(p##0) TF64(p##1) TF64(p##2) TF64(p##3) TF64(p##4) TF64(p##5) \
	TF64(p##6) TF64(p##7)
static uint64_t (*const fns[4096])(uint64_t) = {
	TF512(0) TF512(1) TF512(2) TF512(3) TF512(4) TF512(5) TF512(6) TF512(7)
};

static volatile int stop;

struct worker {
	pthread_t tid;
	uint64_t n;          /* calls, or program runs */
	uint64_t sink;
	int first, step, count, err;
	char pad[32];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	uint64_t x = 0x243F6A8885A308D3ull + (uint64_t)w->first, n = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = 0; i < 1024; i++)
			x = fns[(x >> 17) & 4095](x);
		n += 1024;
	}
	w->n = n;
	w->sink = x;
	return NULL;
}

/* --- the BPF programs ----------------------------------------------------- */

static int progs[PROGS_MAX];

static int load_prog(int i, char *log, size_t logn)
{
	struct bpf_insn p[2 + 2 * PROG_ALU + 1];
	size_t n = 0;

	p[n++] = (struct bpf_insn)WL_MOV64_IMM(BPF_REG_0, i);
	p[n++] = (struct bpf_insn)WL_MOV64_IMM(BPF_REG_2, 0x5bd1e995);
	for (int k = 0; k < PROG_ALU; k++) {
		p[n++] = (struct bpf_insn)WL_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_2);
		p[n++] = (struct bpf_insn)WL_ALU64_IMM(BPF_XOR, BPF_REG_0, i * 31 + k);
	}
	p[n++] = (struct bpf_insn)WL_EXIT();
	return wl_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, p, n, 0, 0, log, logn);
}

static int test_run(int fd)
{
	static const unsigned char pkt[64];   /* an Ethernet frame of zeroes */
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.test.prog_fd = (uint32_t)fd;
	a.test.data_in = (uint64_t)(uintptr_t)pkt;
	a.test.data_size_in = sizeof(pkt);
	a.test.repeat = 1;
	return (int)wl_bpf(BPF_PROG_TEST_RUN, &a, sizeof(a));
}

static void *trigger(void *arg)
{
	struct worker *w = arg;
	uint64_t n = 0;

	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (int i = w->first; i < w->count; i += w->step) {
			if (test_run(progs[i]) < 0) {
				w->err = errno;
				w->n = n;
				return NULL;
			}
			n++;
		}
	}
	w->n = n;
	return NULL;
}

/* --- counters ------------------------------------------------------------- */

enum { C_INSN, C_ITLB, C_N };
static const char *const counter_name[C_N] = { "instructions", "iTLB-load-misses" };

struct counters {
	int fd[C_N][CPUS_MAX];
	int ncpu, have[C_N];
	uint64_t v[C_N];
};

static void counters_open(struct counters *c, int ncpu)
{
	struct perf_event_attr attr;

	c->ncpu = ncpu > CPUS_MAX ? CPUS_MAX : ncpu;
	for (int k = 0; k < C_N; k++) {
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.disabled = 1;
		if (k == C_INSN) {
			attr.type = PERF_TYPE_HARDWARE;
			attr.config = PERF_COUNT_HW_INSTRUCTIONS;
		} else {
			attr.type = PERF_TYPE_HW_CACHE;
			attr.config = PERF_COUNT_HW_CACHE_ITLB |
				      (PERF_COUNT_HW_CACHE_OP_READ << 8) |
				      (PERF_COUNT_HW_CACHE_RESULT_MISS << 16);
		}
		c->have[k] = 1;
		for (int cpu = 0; cpu < c->ncpu; cpu++) {
			c->fd[k][cpu] = wl_perf_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
			if (c->fd[k][cpu] < 0) {
				printf("perf: no %s counter in this guest (perf_event_open "
				       "on CPU %d: %s%s); its metrics are absent\n",
				       counter_name[k], cpu, wl_strerror(errno),
				       errno == ENOENT || errno == EOPNOTSUPP ?
				       ": no PMU that counts it, as under TCG" : "");
				while (cpu-- > 0)
					close(c->fd[k][cpu]);
				c->have[k] = 0;
				break;
			}
		}
	}
}

static void counters_ctl(struct counters *c, unsigned long req)
{
	for (int k = 0; k < C_N; k++)
		for (int cpu = 0; c->have[k] && cpu < c->ncpu; cpu++)
			if (ioctl(c->fd[k][cpu], req, 0) < 0)
				wl_syserr("perf ioctl %s CPU %d", counter_name[k], cpu);
}

static void counters_read(struct counters *c)
{
	for (int k = 0; k < C_N; k++) {
		c->v[k] = 0;
		for (int cpu = 0; c->have[k] && cpu < c->ncpu; cpu++) {
			uint64_t v;

			if (read(c->fd[k][cpu], &v, sizeof(v)) != sizeof(v)) {
				wl_syserr("read perf %s CPU %d", counter_name[k], cpu);
				c->have[k] = 0;
				break;
			}
			c->v[k] += v;
		}
	}
}

static void counters_close(struct counters *c)
{
	for (int k = 0; k < C_N; k++)
		for (int cpu = 0; c->have[k] && cpu < c->ncpu; cpu++)
			close(c->fd[k][cpu]);
}

/* --- one phase ----------------------------------------------------------- */

/* Runs nwork workload threads (and ntrig trigger threads over the first
 * ntriggered programs) for secs; prints and reports name.*; 0 or -1 */
static int phase(const char *name, struct worker *w, int nwork, int ntrig, int ntriggered,
		 long secs, struct counters *c)
{
	uint64_t t0, calls = 0, runs = 0;
	int i, err, started = 0, rc = 0, trig_err = 0;
	double dt, rate;
	char m[64];

	stop = 0;
	counters_ctl(c, PERF_EVENT_IOC_RESET);
	counters_ctl(c, PERF_EVENT_IOC_ENABLE);
	t0 = wl_now_ns();
	for (i = 0; i < nwork + ntrig; i++, started++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].first = i < nwork ? i : i - nwork;
		w[i].step = ntrig;
		w[i].count = ntriggered;
		if ((err = pthread_create(&w[i].tid, NULL, i < nwork ? work : trigger, &w[i]))) {
			errno = err;
			wl_syserr("pthread_create");
			rc = -1;
			break;
		}
	}
	if (!rc)
		usleep((useconds_t)(secs * 1000000));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < started; i++) {
		pthread_join(w[i].tid, NULL);
		if (i < nwork)
			calls += w[i].n;
		else
			runs += w[i].n;
		if (w[i].err)
			trig_err = w[i].err;
	}
	dt = (double)(wl_now_ns() - t0) / 1e9;
	counters_ctl(c, PERF_EVENT_IOC_DISABLE);
	counters_read(c);
	if (rc)
		return -1;
	if (trig_err) {
		errno = trig_err;
		return wl_syserr("bpf PROG_TEST_RUN");
	}
	rate = (double)calls / dt / 1e6;
	printf("%s: %.3f M calls/s on %d threads", name, rate, nwork);
	if (ntrig)
		printf(", %.0f program runs/s on %d threads", (double)runs / dt, ntrig);
	if (c->have[C_INSN])
		printf(", %.0f M instructions/s", (double)c->v[C_INSN] / dt / 1e6);
	if (c->have[C_ITLB])
		printf(", %.0f iTLB misses/s", (double)c->v[C_ITLB] / dt);
	printf("\n");
#define M(what, v, unit) (snprintf(m, sizeof(m), "%s.%s", name, what), wl_metric(m, v, unit))
	M("calls_per_s", rate, "M/s");
	if (ntrig)
		M("prog_runs_per_s", (double)runs / dt, "runs/s");
	if (c->have[C_INSN])
		M("instructions_per_s", (double)c->v[C_INSN] / dt / 1e6, "M/s");
	if (c->have[C_ITLB])
		M("itlb_misses_per_s", (double)c->v[C_ITLB] / dt, "misses/s");
	if (c->have[C_INSN] && c->have[C_ITLB] && c->v[C_INSN])
		M("itlb_misses_per_kinsn", (double)c->v[C_ITLB] * 1000 / (double)c->v[C_INSN],
		  "misses/1000insn");
#undef M
	return 0;
}

int main(int argc, char **argv)
{
	int nproc = wl_nproc(), nloaded = 0, c, rc = 1;
	long secs = 5, nprogs = 0, ntriggered = 0, ntrig = 0, nwork = 0;
	struct counters *cnt = NULL;
	struct worker *w = NULL;
	char log[256];

	wl_init("prog-pack-load");
	while ((c = getopt(argc, argv, "s:p:t:j:w:")) != -1) {
		switch (c) {
		case 's':
			if (wl_opt_long('s', optarg, 1, 3600, &secs) < 0)
				return 2;
			break;
		case 'p':
			if (wl_opt_long('p', optarg, 1, PROGS_MAX, &nprogs) < 0)
				return 2;
			break;
		case 't':
			if (wl_opt_long('t', optarg, 1, PROGS_MAX, &ntriggered) < 0)
				return 2;
			break;
		case 'j':
			if (wl_opt_long('j', optarg, 1, THREADS_MAX, &ntrig) < 0)
				return 2;
			break;
		case 'w':
			if (wl_opt_long('w', optarg, 1, THREADS_MAX, &nwork) < 0)
				return 2;
			break;
		default:
			return wl_usage(USAGE);
		}
	}
	if (optind < argc)
		return wl_usage(USAGE);
	if (!nprogs)
		nprogs = 8L * nproc > PROGS_MAX ? PROGS_MAX : 8L * nproc;
	if (!ntriggered)
		ntriggered = 5L * nproc;
	if (ntriggered > nprogs)
		ntriggered = nprogs;
	if (!ntrig)
		ntrig = nproc / 2 > 0 ? nproc / 2 : 1;
	if (ntrig > ntriggered)
		ntrig = ntriggered;
	if (!nwork)
		nwork = nproc;
	wl_memlock_unlimited();

	/* can this kernel load and run a socket filter? */
	progs[0] = load_prog(0, log, sizeof(log));
	if (progs[0] < 0) {
		if (errno == ENOSYS || errno == EPERM)
			return wl_skip("bpf() unavailable: BPF_PROG_LOAD socket filter: %s",
				       wl_strerror(errno));
		return wl_syserr("bpf PROG_LOAD socket filter%s%s", log[0] ? ": " : "", log), 1;
	}
	nloaded = 1;
	if (test_run(progs[0]) < 0) {
		if (errno == EINVAL || errno == 524 || errno == EOPNOTSUPP) {
			rc = wl_skip("BPF_PROG_TEST_RUN of socket filters unsupported by this "
				     "kernel (%s)", wl_strerror(errno));
			goto out;
		}
		wl_syserr("bpf PROG_TEST_RUN");
		goto out;
	}
	w = calloc((size_t)(nwork + ntrig), sizeof(*w));
	cnt = calloc(1, sizeof(*cnt));
	if (!w || !cnt) {
		wl_syserr("threads");
		goto out;
	}
	printf("prog-pack-load: %ld workload threads for %ld s per phase; then %ld socket "
	       "filters loaded, %ld of them run by %ld threads; %d CPUs\n", nwork, secs, nprogs,
	       ntriggered, ntrig, nproc);
	counters_open(cnt, nproc);
	if (phase("base", w, (int)nwork, 0, 0, secs, cnt) < 0)
		goto out;
	for (; nloaded < nprogs; nloaded++) {
		progs[nloaded] = load_prog(nloaded, log, sizeof(log));
		if (progs[nloaded] < 0) {
			wl_syserr("bpf PROG_LOAD program %d%s%s", nloaded, log[0] ? ": " : "", log);
			goto out;
		}
	}
	wl_metric("progs_loaded", (double)nloaded, "progs");
	wl_metric("progs_triggered", (double)ntriggered, "progs");
	if (phase("loaded", w, (int)nwork, (int)ntrig, (int)ntriggered, secs, cnt) < 0)
		goto out;
	rc = 0;
out:
	if (cnt)
		counters_close(cnt);
	while (nloaded-- > 0)
		close(progs[nloaded]);
	free(cnt);
	free(w);
	return rc;
}
