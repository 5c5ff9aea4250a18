// SPDX-License-Identifier: GPL-2.0-only
/* sock-filter-churn.c: workloads.md #1, run in a kfleet guest. PROCS
 * processes (nproc/2) open SOCKETS sockets, attach an accept-all classic BPF
 * filter (SO_ATTACH_FILTER) to each and close them, in a loop for SECONDS,
 * while this process attaches one every INTERVAL and times setsockopt().
 * METRIC: sockets attached and closed; setsockopt() avg, p99, max. */
#include "wl.h"

#include <errno.h>
#include <linux/filter.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define USAGE "[-s SECONDS (10)] [-p PROCS (nproc/2)] " \
	"[-n SOCKETS (256)] [-i INTERVAL_US (1000)]"

#define PROCS_MAX   1024
#define SOCKETS_MAX 1000            /* stays under the usual 1024 open files */
#define SAMPLES_MAX (1u << 21)      /* latency samples kept, 16 MiB */

struct shared {
	volatile uint64_t start_ns, deadline_ns;
	struct {
		volatile uint64_t done;
		char pad[56];
	} w[PROCS_MAX];
};

static struct sock_filter accept_all[] = {
	BPF_STMT(BPF_RET | BPF_K, 0xffffffff),
};
static const struct sock_fprog accept_prog = {
	.len = WL_ARRAY_SIZE(accept_all),
	.filter = accept_all,
};

static int new_socket(void)
{
	return socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static int attach(int fd)
{
	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &accept_prog, sizeof(accept_prog));
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/* One churning process: returns its exit code */
static int churn(struct shared *sh, int id, int nsock)
{
	int fds[SOCKETS_MAX], i, n;

	while (!__atomic_load_n(&sh->start_ns, __ATOMIC_ACQUIRE))
		usleep(1000);
	sleep_until(sh->start_ns);
	while (wl_now_ns() < sh->deadline_ns) {
		for (n = 0; n < nsock; n++) {
			fds[n] = new_socket();
			if (fds[n] < 0) {
				wl_syserr("process %d: socket", id);
				break;
			}
			if (attach(fds[n]) < 0) {
				wl_syserr("process %d: setsockopt SO_ATTACH_FILTER", id);
				n++;
				break;
			}
		}
		for (i = 0; i < n; i++)
			close(fds[i]);
		if (n < nsock)
			return 1;
		sh->w[id].done += (uint64_t)nsock;
	}
	return 0;
}

/* The every-interval attacher, until the deadline: samples in usec */
static int probe(struct shared *sh, uint64_t interval_ns, double *lat, size_t cap, size_t *nlat,
		 uint64_t *calls)
{
	uint64_t next, t0, t1;
	int fd = new_socket();

	if (fd < 0)
		return wl_syserr("socket");
	*nlat = 0;
	*calls = 0;
	sleep_until(sh->start_ns);
	next = sh->start_ns;
	while ((t0 = wl_now_ns()) < sh->deadline_ns) {
		if (attach(fd) < 0) {
			wl_syserr("setsockopt SO_ATTACH_FILTER every %llu us",
				  (unsigned long long)(interval_ns / 1000));
			close(fd);
			return -1;
		}
		t1 = wl_now_ns();
		(*calls)++;
		if (*nlat < cap)
			lat[(*nlat)++] = (double)(t1 - t0) / 1e3;
		next += interval_ns;
		if (next < t1)
			next = t1;   /* late: no catching up in a burst */
		sleep_until(next);
	}
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	long secs = 10, procs = 0, nsock = 256, interval_us = 1000;
	pid_t pids[PROCS_MAX], w;
	struct shared *sh;
	double *lat = NULL;
	size_t cap, nlat = 0;
	uint64_t calls = 0, total = 0;
	char jit[16] = "?";
	int c, fd, nproc = wl_nproc(), started = 0, rc = 1, status;

	wl_init("sock-filter-churn");
	while ((c = getopt(argc, argv, "s:p:n:i:")) != -1) {
		switch (c) {
		case 's':
			if (wl_opt_long('s', optarg, 1, 600, &secs) < 0)
				return 2;
			break;
		case 'p':
			if (wl_opt_long('p', optarg, 1, PROCS_MAX, &procs) < 0)
				return 2;
			break;
		case 'n':
			if (wl_opt_long('n', optarg, 1, SOCKETS_MAX, &nsock) < 0)
				return 2;
			break;
		case 'i':
			if (wl_opt_long('i', optarg, 100, 1000000, &interval_us) < 0)
				return 2;
			break;
		default:
			return wl_usage(USAGE);
		}
	}
	if (optind < argc)
		return wl_usage(USAGE);
	if (!procs)
		procs = nproc / 2 > 0 ? nproc / 2 : 1;

	/* can this kernel attach a classic filter at all? */
	fd = new_socket();
	if (fd < 0)
		return errno == EAFNOSUPPORT ? wl_skip("no AF_UNIX sockets in this kernel") :
		       (wl_syserr("socket"), 1);
	if (attach(fd) < 0) {
		int e = errno;

		close(fd);
		if (e == ENOPROTOOPT || e == EOPNOTSUPP)
			return wl_skip("SO_ATTACH_FILTER unsupported by this kernel (%s)",
				       strerror(e));
		errno = e;
		return wl_syserr("setsockopt SO_ATTACH_FILTER"), 1;
	}
	close(fd);
	if (wl_read_file("/proc/sys/net/core/bpf_jit_enable", jit, sizeof(jit)) > 0)
		jit[strcspn(jit, "\n")] = '\0';

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return wl_syserr("mmap %zu bytes", sizeof(*sh)), 1;
	cap = (size_t)secs * 1000000u / (size_t)interval_us + 16;
	if (cap > SAMPLES_MAX)
		cap = SAMPLES_MAX;
	lat = calloc(cap, sizeof(*lat));
	if (!lat) {
		wl_syserr("latency samples");
		goto out;
	}
	printf("sock-filter-churn: %ld churning processes x %ld sockets for %ld s, one attach "
	       "every %ld us, %d CPUs, bpf_jit_enable=%s\n", procs, nsock, secs, interval_us,
	       nproc, jit);

	fflush(stdout);
	for (started = 0; started < procs; started++) {
		pids[started] = fork();
		if (pids[started] < 0) {
			wl_syserr("fork process %d", started);
			goto out;
		}
		if (!pids[started])
			_exit(churn(sh, started, (int)nsock));
	}
	sh->deadline_ns = wl_now_ns() + 50000000u + (uint64_t)secs * 1000000000u;
	/* release: a process that sees the start sees the deadline */
	__atomic_store_n(&sh->start_ns, sh->deadline_ns - (uint64_t)secs * 1000000000u,
			 __ATOMIC_RELEASE);
	if (probe(sh, (uint64_t)interval_us * 1000, lat, cap, &nlat, &calls) < 0)
		goto out;
	rc = 0;
out:
	for (int i = 0; i < started; i++) {
		if (rc)
			kill(pids[i], SIGKILL);
		while ((w = waitpid(pids[i], &status, 0)) < 0 && errno == EINTR)
			;
		if (w < 0)
			status = -1;   /* not an exit: a failure below */
		if (!rc && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			wl_error("churning process %d failed", i);
			rc = 1;
		}
		total += sh->w[i].done;
	}
	if (!rc) {
		double avg = wl_mean(lat, nlat), p99 = wl_percentile(lat, nlat, 99);
		double max = nlat ? lat[nlat - 1] : 0;

		printf("sockets attached and closed: %llu in %ld s (%.0f/s)\n",
		       (unsigned long long)total, secs, (double)total / (double)secs);
		printf("setsockopt every %ld us: %llu calls, avg %.1f us, p99 %.1f us, "
		       "max %.1f us%s\n", interval_us, (unsigned long long)calls, avg, p99, max,
		       nlat < calls ? " (first samples only)" : "");
		wl_metric("sockets", (double)total, "sockets");
		wl_metric("sockets_per_s", (double)total / (double)secs, "sockets/s");
		wl_metric("setsockopt_avg", avg, "us");
		wl_metric("setsockopt_p99", p99, "us");
		wl_metric("setsockopt_max", max, "us");
		wl_metric("setsockopt_calls", (double)calls, "calls");
	}
	free(lat);
	munmap(sh, sizeof(*sh));
	return rc;
}
