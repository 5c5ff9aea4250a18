// SPDX-License-Identifier: GPL-2.0-only
/* wl.c: helpers of the workload programs under guest/workloads/: messages and
 * METRIC lines, time, the guest's sizes, bounded option parsing, small file
 * reads, and thin checked wrappers of bpf(2) and perf_event_open(2). Linked
 * statically into each program; nothing here exits. */
#include "wl.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *wl_name = "workload";

void wl_init(const char *name)
{
	wl_name = name;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

const char *wl_strerror(int e)
{
	if (e == 524)
		return "ENOTSUPP, not supported by this kernel";
	return strerror(e);
}

int wl_syserr(const char *fmt, ...)
{
	int e = errno;
	va_list ap;

	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", wl_strerror(e));
	errno = e;
	return -1;
}

int wl_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", wl_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

int wl_skip(const char *fmt, ...)
{
	va_list ap;

	fflush(stderr);
	fputs("SKIP: ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	return WL_EXIT_SKIP;
}

void wl_metric(const char *name, double v, const char *unit)
{
	if (!isfinite(v)) {
		printf("%s: not a finite value, not reported\n", name);
		return;
	}
	/* %g would print 4.7e+06; keep large values plain */
	if (fabs(v) >= 1e6)
		printf("METRIC %s=%.0f %s\n", name, v, unit);
	else
		printf("METRIC %s=%.6g %s\n", name, v, unit);
}

int wl_usage(const char *usage)
{
	fprintf(stderr, "%s: usage: %s %s\n", wl_name, wl_name, usage);
	return 2;
}

uint64_t wl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int wl_nproc(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

/* "0-3,5,7-8" as the kernel prints it: the highest CPU + 1 */
int wl_possible_cpus(void)
{
	char buf[256], *p, *end;
	long hi = -1, a, b;

	if (wl_read_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; *p && *p != '\n';) {
		errno = 0;
		a = strtol(p, &end, 10);
		if (end == p || errno || a < 0)
			return errno = EINVAL, -1;
		b = a;
		p = end;
		if (*p == '-') {
			b = strtol(p + 1, &end, 10);
			if (end == p + 1 || b < a)
				return errno = EINVAL, -1;
			p = end;
		}
		if (b > hi)
			hi = b;
		if (*p == ',')
			p++;
	}
	if (hi < 0 || hi > 65535)
		return errno = EINVAL, -1;
	return (int)hi + 1;
}

long wl_mem_available_mib(void)
{
	char buf[4096], *p;
	unsigned long kib;

	if (wl_read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "MemAvailable:");
	if (!p || sscanf(p, "MemAvailable: %lu kB", &kib) != 1)
		return -1;
	return (long)(kib / 1024);
}

int wl_opt_long(char opt, const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (end == s || *end || errno || v < min || v > max)
		return wl_error("option -%c: '%s' is not a number from %ld to %ld", opt, s,
				min, max);
	*out = v;
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double wl_percentile(double *v, size_t n, double p)
{
	size_t rank;

	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	rank = (size_t)ceil(p / 100.0 * (double)n);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1];
}

double wl_mean(const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++)
		s += v[i];
	return n ? s / (double)n : 0;
}

long wl_read_file(const char *path, char *buf, size_t n)
{
	size_t len = 0;
	ssize_t r;
	int fd, e;

	if (!n)
		return errno = EINVAL, -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (len < n - 1) {
		r = read(fd, buf + len, n - 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (!r)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	return (long)len;
}

int wl_read_ulong(const char *path, unsigned long *out)
{
	char buf[64], *end;

	if (wl_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	errno = 0;
	*out = strtoul(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return errno = EINVAL, -1;
	return 0;
}

static int has_events(const char *dir)
{
	char p[256];
	struct stat st;

	snprintf(p, sizeof(p), "%s/events", dir);
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

int wl_tracefs(char *dir, size_t n, char *why, size_t whyn)
{
	static const char *const dirs[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	int e;

	for (size_t i = 0; i < WL_ARRAY_SIZE(dirs); i++)
		if (has_events(dirs[i])) {
			snprintf(dir, n, "%s", dirs[i]);
			return 0;
		}
	if (mount("tracefs", dirs[0], "tracefs", 0, NULL) == 0 && has_events(dirs[0])) {
		snprintf(dir, n, "%s", dirs[0]);
		return 0;
	}
	e = errno;
	snprintf(why, whyn, "no tracefs: mount '%s': %s", dirs[0], strerror(e));
	errno = e;
	return -1;
}

long wl_bpf(int cmd, union bpf_attr *attr, unsigned int size)
{
	return syscall(SYS_bpf, cmd, attr, size);
}

int wl_perf_open(struct perf_event_attr *attr, int pid, int cpu, int group, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group, flags);
}

/* The verifier's log ends with its verdict; keep the last non-empty line */
static void last_line(const char *buf, char *out, size_t n)
{
	size_t len = strlen(buf), end, start;

	while (len && (buf[len - 1] == '\n' || buf[len - 1] == ' '))
		len--;
	end = len;
	start = end;
	while (start && buf[start - 1] != '\n')
		start--;
	snprintf(out, n, "%.*s", (int)(end - start), buf + start);
}

int wl_prog_load(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n,
		 uint32_t expected_attach_type, uint32_t attach_btf_id, char *log, size_t logn)
{
	static char vlog[64 * 1024];
	union bpf_attr a;
	int fd, e;

	if (log && logn)
		log[0] = '\0';
	memset(&a, 0, sizeof(a));
	a.prog_type = type;
	a.insns = (uint64_t)(uintptr_t)insns;
	a.insn_cnt = (uint32_t)n;
	a.license = (uint64_t)(uintptr_t)"GPL";
	a.expected_attach_type = expected_attach_type;
	a.attach_btf_id = attach_btf_id;
	fd = (int)wl_bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd >= 0 || !log || !logn || (errno != EINVAL && errno != EACCES))
		return fd;
	/* once more with the verifier's log, to say why */
	e = errno;
	vlog[0] = '\0';
	a.log_buf = (uint64_t)(uintptr_t)vlog;
	a.log_size = sizeof(vlog);
	a.log_level = 1;
	fd = (int)wl_bpf(BPF_PROG_LOAD, &a, sizeof(a));
	if (fd >= 0)
		return fd;
	last_line(vlog, log, logn);
	errno = e;
	return -1;
}

void wl_memlock_unlimited(void)
{
	struct rlimit r = { RLIM_INFINITY, RLIM_INFINITY };

	setrlimit(RLIMIT_MEMLOCK, &r);   /* best effort: 5.11+ charges memcg instead */
}
