// SPDX-License-Identifier: GPL-2.0-only
/* bpf-trigger.c: workloads.md #2 (after the selftests' `bench trig-*`), run
 * in a kfleet guest. THREADS threads call getpgid() in a loop for SECONDS with
 * no program (syscall-count), then with a counting BPF program (hand-written,
 * loaded by bpf(2)) on it by kprobe, tracepoint, raw tracepoint and fentry.
 * An attach type the kernel cannot do is skipped, with why. METRIC: M ops/s.
 * -b measures the syscall alone (no BPF needed): the getpgid-rate job. */
#include "wl.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define USAGE "[-b] [-s SECONDS_PER_TYPE (2)] [-t THREADS (nproc)]"

#if defined(__x86_64__)
#define SYSCALL_FUNC "__x64_sys_getpgid"
#elif defined(__aarch64__)
#define SYSCALL_FUNC "__arm64_sys_getpgid"
#else
#error "bpf-trigger: x86_64 or arm64 only"
#endif

#define THREADS_MAX 1024
#define BTF_MAX     (64 << 20)      /* bytes of /sys/kernel/btf/vmlinux read */

struct worker {
	pthread_t tid;
	uint64_t calls;
	char pad[48];
};

static pthread_barrier_t barrier;
static volatile int stop;

static void *loop(void *arg)
{
	struct worker *w = arg;
	uint64_t n = 0;

	pthread_barrier_wait(&barrier);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		syscall(SYS_getpgid, 0);
		n++;
	}
	w->calls = n;
	return NULL;
}

/* Runs the loop on n threads for secs; returns M calls/s, or -1 */
static double run_loop(struct worker *w, int n, long secs, uint64_t *calls)
{
	uint64_t t0, t1;
	int i, err;

	if ((err = pthread_barrier_init(&barrier, NULL, (unsigned)n + 1))) {
		errno = err;
		return wl_syserr("pthread_barrier_init"), -1;
	}
	stop = 0;
	for (i = 0; i < n; i++) {
		w[i].calls = 0;
		if ((err = pthread_create(&w[i].tid, NULL, loop, &w[i]))) {
			errno = err;
			wl_syserr("pthread_create thread %d", i);
			/* the barrier holds the others; nothing to unwind but exit */
			return -1;
		}
	}
	pthread_barrier_wait(&barrier);
	t0 = wl_now_ns();
	usleep((useconds_t)(secs * 1000000));
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	t1 = wl_now_ns();
	*calls = 0;
	for (i = 0; i < n; i++) {
		pthread_join(w[i].tid, NULL);
		*calls += w[i].calls;
	}
	pthread_barrier_destroy(&barrier);
	return (double)*calls / ((double)(t1 - t0) / 1e9) / 1e6;
}

/* --- the counting program: a per-CPU u64 at key 0, +1 a run ------------ */

static int map_fd = -1, ncpus;

static int map_create(void)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_PERCPU_ARRAY;
	a.key_size = 4;
	a.value_size = 8;
	a.max_entries = 1;
	return (int)wl_bpf(BPF_MAP_CREATE, &a, sizeof(a));
}

/* Sum of the per-CPU counters, which are then zeroed; 0 when unreadable */
static uint64_t map_take(void)
{
	uint64_t v[4096] = { 0 }, sum = 0;
	uint32_t key = 0;
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_fd = (uint32_t)map_fd;
	a.key = (uint64_t)(uintptr_t)&key;
	a.value = (uint64_t)(uintptr_t)v;
	if (wl_bpf(BPF_MAP_LOOKUP_ELEM, &a, sizeof(a)) < 0)
		return wl_syserr("bpf MAP_LOOKUP_ELEM"), 0;
	for (int i = 0; i < ncpus; i++)
		sum += v[i];
	memset(v, 0, sizeof(v));
	if (wl_bpf(BPF_MAP_UPDATE_ELEM, &a, sizeof(a)) < 0)
		wl_syserr("bpf MAP_UPDATE_ELEM");
	return sum;
}

static int load_counter(enum bpf_prog_type type, uint32_t attach_type, uint32_t btf_id,
			char *why, size_t whyn)
{
	struct bpf_insn prog[] = {
		WL_ST_MEM(BPF_W, BPF_REG_10, -4, 0),
		WL_MOV64_REG(BPF_REG_2, BPF_REG_10),
		WL_ALU64_IMM(BPF_ADD, BPF_REG_2, -4),
		WL_LD_MAP_FD(BPF_REG_1, map_fd),
		WL_CALL(BPF_FUNC_map_lookup_elem),
		WL_JMP_IMM(BPF_JEQ, BPF_REG_0, 0, 3),
		WL_LDX_MEM(BPF_DW, BPF_REG_1, BPF_REG_0, 0),
		WL_ALU64_IMM(BPF_ADD, BPF_REG_1, 1),
		WL_STX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, 0),
		WL_MOV64_IMM(BPF_REG_0, 0),
		WL_EXIT(),
	};
	char log[256];
	int fd;

	fd = wl_prog_load(type, prog, WL_ARRAY_SIZE(prog), attach_type, btf_id, log,
			  sizeof(log));
	if (fd < 0)
		snprintf(why, whyn, "BPF_PROG_LOAD: %s%s%s", wl_strerror(errno),
			 log[0] ? ": " : "", log);
	return fd;
}

/* --- attaching ---------------------------------------------------------- */

static int perf_attach(struct perf_event_attr *attr, int prog, const char *what, char *why,
		       size_t whyn)
{
	int pfd = wl_perf_open(attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (pfd < 0) {
		snprintf(why, whyn, "perf_event_open %s: %s", what, wl_strerror(errno));
		return -1;
	}
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog) < 0 ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		snprintf(why, whyn, "ioctl PERF_EVENT_IOC_SET_BPF %s: %s", what,
			 wl_strerror(errno));
		close(pfd);
		return -1;
	}
	return pfd;
}

static int attach_kprobe(int prog, char *why, size_t whyn)
{
	const char *pmu = "/sys/bus/event_source/devices/kprobe/type";
	struct perf_event_attr attr;
	unsigned long type;

	if (wl_read_ulong(pmu, &type) < 0) {
		snprintf(why, whyn, "no kprobe PMU: '%s': %s", pmu, wl_strerror(errno));
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (uint32_t)type;
	attr.kprobe_func = (uint64_t)(uintptr_t)SYSCALL_FUNC;
	attr.probe_offset = 0;
	return perf_attach(&attr, prog, "kprobe '" SYSCALL_FUNC "'", why, whyn);
}

static int attach_tp(int prog, char *why, size_t whyn)
{
	char dir[128], path[256], tws[160];
	struct perf_event_attr attr;
	unsigned long id;

	if (wl_tracefs(dir, sizeof(dir), tws, sizeof(tws)) < 0) {
		snprintf(why, whyn, "%s", tws);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_getpgid/id", dir);
	if (wl_read_ulong(path, &id) < 0) {
		snprintf(why, whyn, "no tracepoint: '%s': %s", path, wl_strerror(errno));
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	return perf_attach(&attr, prog, "tracepoint 'syscalls/sys_enter_getpgid'", why, whyn);
}

/* BPF_RAW_TRACEPOINT_OPEN: a raw tracepoint by name, or (name NULL) a
 * tracing program at the target it was loaded for */
static int attach_raw(int prog, const char *name, char *why, size_t whyn)
{
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.raw_tracepoint.name = (uint64_t)(uintptr_t)name;
	a.raw_tracepoint.prog_fd = (uint32_t)prog;
	fd = (int)wl_bpf(BPF_RAW_TRACEPOINT_OPEN, &a, sizeof(a));
	if (fd < 0)
		snprintf(why, whyn, "BPF_RAW_TRACEPOINT_OPEN%s%s: %s", name ? " " : "",
			 name ? name : "", wl_strerror(errno));
	return fd;
}

/* --- BTF: the id of the FUNC named name in the kernel's own BTF ---------- */

/* Bytes that follow a struct btf_type of this kind; -1 for an unknown kind */
static long btf_extra(const struct btf_type *t)
{
	unsigned vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC: case BTF_KIND_FLOAT:
	case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY: return (long)sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return (long)vlen * (long)sizeof(struct btf_member);
	case BTF_KIND_ENUM: return (long)vlen * (long)sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * (long)sizeof(struct btf_param);
	case BTF_KIND_VAR: return (long)sizeof(struct btf_var);
	case BTF_KIND_DATASEC: return (long)vlen * (long)sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return (long)sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64: return (long)vlen * (long)sizeof(struct btf_enum64);
	default: return -1;
	}
}

/* The type id, or 0 with the reason in why */
static uint32_t btf_func_id(const char *name, char *why, size_t whyn)
{
	const char *path = "/sys/kernel/btf/vmlinux";
	const struct btf_header *h;
	const char *types, *strs;
	uint32_t id = 0, found = 0;
	struct stat st;
	char *buf = NULL;
	long len;
	size_t off;

	if (stat(path, &st) < 0) {
		snprintf(why, whyn, "no kernel BTF: '%s': %s", path, wl_strerror(errno));
		return 0;
	}
	if (st.st_size < (off_t)sizeof(*h) || st.st_size > BTF_MAX) {
		snprintf(why, whyn, "'%s': size %lld is not of BTF", path, (long long)st.st_size);
		return 0;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		snprintf(why, whyn, "'%s': out of memory", path);
		return 0;
	}
	len = wl_read_file(path, buf, (size_t)st.st_size + 1);
	if (len < (long)sizeof(*h)) {
		snprintf(why, whyn, "read '%s': %s", path, len < 0 ? wl_strerror(errno) : "short");
		goto out;
	}
	h = (const struct btf_header *)buf;
	if (h->magic != BTF_MAGIC || h->hdr_len < sizeof(*h) ||
	    (uint64_t)h->hdr_len + h->type_off + h->type_len > (uint64_t)len ||
	    (uint64_t)h->hdr_len + h->str_off + h->str_len > (uint64_t)len) {
		snprintf(why, whyn, "'%s': not BTF this program reads (magic 0x%x)", path,
			 h->magic);
		goto out;
	}
	types = buf + h->hdr_len + h->type_off;
	strs = buf + h->hdr_len + h->str_off;
	for (off = 0; off + sizeof(struct btf_type) <= h->type_len;) {
		const struct btf_type *t = (const struct btf_type *)(types + off);
		long extra = btf_extra(t);

		id++;
		if (extra < 0) {
			snprintf(why, whyn, "'%s': type %u has kind %u, unknown to this program",
				 path, id, BTF_INFO_KIND(t->info));
			goto out;
		}
		if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC && t->name_off < h->str_len &&
		    !strncmp(strs + t->name_off, name, h->str_len - t->name_off) &&
		    strnlen(strs + t->name_off, h->str_len - t->name_off) == strlen(name)) {
			found = id;
			break;
		}
		off += sizeof(*t) + (size_t)extra;
	}
	if (!found)
		snprintf(why, whyn, "'%s': no function '%s'", path, name);
out:
	free(buf);
	return found;
}

/* --- one attach type, start to end -------------------------------------- */

enum kind { K_BASE, K_KPROBE, K_TP, K_RAWTP, K_FENTRY };
static const char *const kind_name[] = { "syscall-count", "kprobe", "tp", "rawtp", "fentry" };

/* Attaches the counter the kind's way; the fd that holds it (closing it
 * detaches), 0 for the baseline, -1 with why */
static int attach(enum kind k, int *prog, char *why, size_t whyn)
{
	uint32_t btf_id;

	*prog = -1;
	switch (k) {
	case K_BASE:
		return 0;
	case K_KPROBE:
		if ((*prog = load_counter(BPF_PROG_TYPE_KPROBE, 0, 0, why, whyn)) < 0)
			return -1;
		return attach_kprobe(*prog, why, whyn);
	case K_TP:
		if ((*prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, 0, 0, why, whyn)) < 0)
			return -1;
		return attach_tp(*prog, why, whyn);
	case K_RAWTP:
		if ((*prog = load_counter(BPF_PROG_TYPE_RAW_TRACEPOINT, 0, 0, why, whyn)) < 0)
			return -1;
		return attach_raw(*prog, "sys_enter", why, whyn);
	case K_FENTRY:
		if (!(btf_id = btf_func_id(SYSCALL_FUNC, why, whyn)))
			return -1;
		if ((*prog = load_counter(BPF_PROG_TYPE_TRACING, BPF_TRACE_FENTRY, btf_id, why,
					  whyn)) < 0)
			return -1;
		return attach_raw(*prog, NULL, why, whyn);
	}
	return -1;
}

int main(int argc, char **argv)
{
	long secs = 2, threads = 0;
	struct worker *w;
	double base = 0;
	int c, ran = 0, rc = 0, base_only = 0;

	wl_init("bpf-trigger");
	while ((c = getopt(argc, argv, "bs:t:")) != -1) {
		switch (c) {
		case 'b': base_only = 1; break;
		case 's':
			if (wl_opt_long('s', optarg, 1, 3600, &secs) < 0)
				return 2;
			break;
		case 't':
			if (wl_opt_long('t', optarg, 1, THREADS_MAX, &threads) < 0)
				return 2;
			break;
		default: return wl_usage(USAGE);
		}
	}
	if (optind < argc)
		return wl_usage(USAGE);
	if (!threads)
		threads = wl_nproc();
	wl_memlock_unlimited();
	ncpus = wl_possible_cpus();
	if (ncpus < 1 || ncpus > 4096)
		return wl_syserr("'/sys/devices/system/cpu/possible'"), 1;
	map_fd = base_only ? -1 : map_create();
	if (map_fd < 0 && !base_only) {
		if (errno == ENOSYS || errno == EPERM || errno == EINVAL)
			return wl_skip("bpf() unavailable: BPF_MAP_CREATE percpu array: %s",
				       wl_strerror(errno));
		return wl_syserr("bpf MAP_CREATE"), 1;
	}
	/* a loop of calls that fail measures nothing: say so, and fail */
	if (syscall(SYS_getpgid, 0) < 0)
		return wl_syserr("getpgid(0)"), 1;
	w = calloc((size_t)threads, sizeof(*w));
	if (!w)
		return wl_syserr("threads"), 1;
	printf("bpf-trigger: %ld threads call getpgid() for %ld s per attach type, %d CPUs, "
	       "target '%s'\n", threads, secs, wl_nproc(), SYSCALL_FUNC);

	for (enum kind k = K_BASE; k <= (base_only ? K_BASE : K_FENTRY); k++) {
		char why[512] = "", name[64];
		uint64_t calls = 0, runs;
		int prog, fd;
		double mops;

		fd = attach(k, &prog, why, sizeof(why));
		if (fd < 0) {
			printf("%s: SKIP: %s\n", kind_name[k], why);
			if (prog >= 0)
				close(prog);
			continue;
		}
		if (map_fd >= 0)
			map_take();
		mops = run_loop(w, (int)threads, secs, &calls);
		runs = map_fd >= 0 ? map_take() : 0;
		if (fd > 0)
			close(fd);
		if (prog >= 0)
			close(prog);
		if (mops < 0) {
			rc = 1;
			break;
		}
		if (k == K_BASE) {
			base = mops;
			printf("%s: %.3f M ops/s (%llu calls)\n", kind_name[k], mops,
			       (unsigned long long)calls);
		} else {
			ran++;
			printf("%s: %.3f M ops/s (%llu calls, program ran %llu times), %+.1f %% "
			       "against syscall-count\n", kind_name[k], mops,
			       (unsigned long long)calls, (unsigned long long)runs,
			       base > 0 ? (mops - base) / base * 100 : 0.0);
			if (runs < calls)
				printf("%s: the program ran fewer times than the syscall\n",
				       kind_name[k]);
		}
		snprintf(name, sizeof(name), "%s", kind_name[k]);
		wl_metric(name, mops, "M/s");
	}
	free(w);
	if (map_fd >= 0)
		close(map_fd);
	if (!rc && !ran && !base_only)
		return wl_skip("no attach type works on this kernel (see the lines above)");
	return rc;
}
