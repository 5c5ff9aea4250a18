// SPDX-License-Identifier: GPL-2.0-only
/* quiet_build.c: the build beside a pinned run ([quiet] builds). The
 * builder thread's commands (git am, make and the compilers under bwrap)
 * are its children and theirs: "avoid" keeps every task of every one of
 * those processes, and the builder thread itself (what it starts next
 * inherits it), off the cores pinned on this machine; "pause" stops those
 * processes (SIGSTOP) and continues them (SIGCONT) when no pinned run is
 * left; "share" leaves
 * them be. Workers call this as pinned runs start and end, the ticker
 * every half second for what started since. */
#include "orchestrator/orchint.h"
#include "orchestrator/quietint.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

#define BUILD_PIDS_MAX 4096

int quiet_build_init(struct quiet *q)
{
	cpu_set_t *m = malloc(sizeof(*m));

	if (!m)
		return -1;
	CPU_ZERO(m);
	if (sched_getaffinity(0, sizeof(*m), m) < 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			CPU_SET(c, m);
	q->base_mask = m;
	return 0;
}

void quiet_build_release(struct quiet *q)
{
	free(q->base_mask);
	q->base_mask = NULL;
}

/* Every process descending from the builder thread tid, into p[0..max):
 * its children from /proc/self/task/TID/children, then theirs by the
 * parent each process names in /proc/PID/stat. Process groups would not
 * do: the build sandbox starts a session of its own (bwrap --new-session,
 * kernels/sandbox.c), and what a series' Makefile starts may too. */
static size_t build_pids(pid_t tid, pid_t *p, size_t max)
{
	char path[64];
	struct buf b = BUF_INIT(0);
	size_t n = 0, all = 0, grown;
	pid_t (*pp)[2] = NULL;
	DIR *d;
	struct dirent *e;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)tid);
	if (read_file(path, &b, 1 << 16) == 0 && b.data) {
		char *save = NULL;

		for (char *t = strtok_r(b.data, " \n", &save); t && n < max;
		     t = strtok_r(NULL, " \n", &save)) {
			long long v;

			if (parse_int(t, 1, INT32_MAX, &v) == 0)
				p[n++] = (pid_t)v;
		}
	}
	buf_release(&b);
	if (n == 0 || !(d = opendir("/proc")))
		return n;
	/* (pid, parent) of every process, then the closure over it */
	while ((e = readdir(d))) {
		char spath[300];
		const char *c;
		long long pid;
		int ppid;
		char state;

		if (parse_int(e->d_name, 1, INT32_MAX, &pid) != 0)
			continue;
		snprintf(spath, sizeof(spath), "/proc/%s/stat", e->d_name);
		/* "pid (comm) state ppid ...": comm may hold spaces and ')' */
		if (read_file(spath, &b, 4096) == 0 && b.data && (c = strrchr(b.data, ')')) &&
		    sscanf(c + 1, " %c %d", &state, &ppid) == 2) {
			if (all % 256 == 0) {
				pid_t (*np)[2] = realloc(pp, (all + 256) * sizeof(*pp));

				if (!np)
					break;
				pp = np;
			}
			pp[all][0] = (pid_t)pid;
			pp[all][1] = (pid_t)ppid;
			all++;
		}
		buf_release(&b);
	}
	buf_release(&b);
	closedir(d);
	do {
		grown = n;
		for (size_t i = 0; i < all && n < max; i++) {
			size_t j, k;

			for (j = 0; j < n && p[j] != pp[i][1]; j++)
				;
			if (j == n)
				continue;
			for (k = 0; k < n && p[k] != pp[i][0]; k++)
				;
			if (k == n)
				p[n++] = pp[i][0];
		}
	} while (n != grown && n < max);
	free(pp);
	return n;
}

/* Sets mask on every task of the processes p[0..n) */
static void pids_affinity(const pid_t *p, size_t n, const cpu_set_t *mask)
{
	for (size_t i = 0; i < n; i++) {
		char tpath[64];
		DIR *td;
		struct dirent *t;

		snprintf(tpath, sizeof(tpath), "/proc/%d/task", (int)p[i]);
		if (!(td = opendir(tpath)))
			continue;
		while ((t = readdir(td))) {
			long long tid;

			if (parse_int(t->d_name, 1, INT32_MAX, &tid) == 0)
				sched_setaffinity((pid_t)tid, sizeof(*mask), mask);
		}
		closedir(td);
	}
}

static void pids_signal(const pid_t *p, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++)
		if (kill(p[i], sig) < 0 && errno != ESRCH)
			log_warn("quiet: signal %d to build process %d: %s", sig, (int)p[i],
				 strerror(errno));
}

/* This machine's cores less those pinned by runs on its hosts (q->lock
 * held); 0 when no run is pinned here */
static int pinned_here(const struct quiet *q, cpu_set_t *mask)
{
	int any = 0;

	memcpy(mask, q->base_mask, sizeof(*mask));
	for (const struct quiet_run *x = q->runs; x; x = x->next)
		if (x->pin == QUIET_PINNED && x->local) {
			any = 1;
			for (int i = 0; i < x->ncores; i++)
				CPU_CLR(x->cores[i], mask);
		}
	if (any && CPU_COUNT(mask) == 0)
		memcpy(mask, q->base_mask, sizeof(*mask));   /* nowhere else to go */
	return any;
}

void quiet_builds_apply(struct quiet *q)
{
	int mode = q->o->conf->quiet_builds;
	pid_t g[BUILD_PIDS_MAX];
	cpu_set_t mask;
	size_t n;
	int any;

	if (mode == QUIET_BUILDS_SHARE)
		return;
	/* under q->lock throughout: the workers and the ticker apply in turn */
	pthread_mutex_lock(&q->lock);
	any = pinned_here(q, &mask) && !q->stop;
	if (!q->build || (!any && !q->paused && !q->restricted)) {
		pthread_mutex_unlock(&q->lock);
		return;
	}
	n = build_pids(q->build_tid, g, BUILD_PIDS_MAX);
	if (mode == QUIET_BUILDS_AVOID) {
		if (!any)
			memcpy(&mask, q->base_mask, sizeof(mask));
		sched_setaffinity(q->build_tid, sizeof(mask), &mask);
		pids_affinity(g, n, &mask);
		if (any != q->restricted)
			log_info("quiet: build of submission %" PRId64 " %s", q->build,
				 any ? "kept off the pinned cores" : "back on every core");
		q->restricted = any;
	} else {
		pids_signal(g, n, any ? SIGSTOP : SIGCONT);
		if (any != q->paused)
			log_info("quiet: build of submission %" PRId64 " %s", q->build,
				 any ? "paused beside a pinned run" : "resumed");
		q->paused = any;
	}
	pthread_mutex_unlock(&q->lock);
}

void quiet_builds_resume(struct quiet *q)
{
	pid_t g[BUILD_PIDS_MAX];
	size_t n;

	pthread_mutex_lock(&q->lock);
	if (q->build && q->paused) {
		n = build_pids(q->build_tid, g, BUILD_PIDS_MAX);
		pids_signal(g, n, SIGCONT);
	}
	q->paused = 0;
	pthread_mutex_unlock(&q->lock);
}

void quiet_build_begin(struct orch *o, int64_t sub)
{
	struct quiet *q = o->quiet;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->build = sub;
	q->build_tid = gettid();
	for (struct quiet_run *x = q->runs; x; x = x->next)
		if (x->local)
			quiet_note_build(q, x, sub);
	pthread_mutex_unlock(&q->lock);
	quiet_builds_apply(q);
}

void quiet_build_end(struct orch *o)
{
	struct quiet *q = o->quiet;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	if (q->restricted)
		sched_setaffinity(0, sizeof(cpu_set_t), q->base_mask);
	q->build = 0;
	q->paused = 0;
	q->restricted = 0;
	pthread_mutex_unlock(&q->lock);
}

void quiet_note_build(struct quiet *q, struct quiet_run *r, int64_t sub)
{
	int paused = r->pin == QUIET_PINNED && q->o->conf->quiet_builds == QUIET_BUILDS_PAUSE;

	for (int i = 0; i < r->nbuilds; i++)
		if (r->builds[i] == sub)
			return;
	if (r->nbuilds == QUIET_NEIGH_MAX) {
		r->more_builds++;
		return;
	}
	r->build_paused[r->nbuilds] = paused;
	r->builds[r->nbuilds++] = sub;
}
