/* quiet_build.c: the build beside a pinned run ([quiet] builds). The
 * builder thread's commands (git am, make and the compilers under bwrap)
 * each run in a process group of their own (common/cmd.h), the children
 * of the builder thread: "avoid" keeps every task of those groups, and
 * the builder thread itself (what it starts next inherits it), off the
 * cores pinned on this machine; "pause" stops the groups (SIGSTOP) and
 * continues them (SIGCONT) when no pinned run is left; "share" leaves
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

#define BUILD_GROUPS_MAX 64

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

/* The builder thread's children (each a process group's leader) */
static size_t build_groups(pid_t tid, pid_t *g, size_t max)
{
	char path[64];
	struct buf b = BUF_INIT(0);
	size_t n = 0;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)tid);
	if (read_file(path, &b, 1 << 16) == 0 && b.data) {
		char *save = NULL;

		for (char *t = strtok_r(b.data, " \n", &save); t && n < max;
		     t = strtok_r(NULL, " \n", &save)) {
			long long v;

			if (parse_int(t, 1, INT32_MAX, &v) == 0)
				g[n++] = (pid_t)v;
		}
	}
	buf_release(&b);
	return n;
}

/* The process group of pid from /proc/PID/stat, or -1 */
static pid_t pgrp_of(const char *pid)
{
	char path[300];
	struct buf b = BUF_INIT(0);
	const char *p;
	int ppid, pgrp = -1;
	char state;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	/* "pid (comm) state ppid pgrp ...": comm may hold spaces and ')' */
	if (read_file(path, &b, 4096) == 0 && b.data && (p = strrchr(b.data, ')')) &&
	    sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) != 3)
		pgrp = -1;
	buf_release(&b);
	return (pid_t)pgrp;
}

/* Sets mask on every task of every process in the groups g[0..n) */
static void groups_affinity(const pid_t *g, size_t n, const cpu_set_t *mask)
{
	DIR *d = opendir("/proc");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char tpath[300];
		DIR *td;
		struct dirent *t;
		pid_t pg;
		size_t i;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		pg = pgrp_of(e->d_name);
		for (i = 0; i < n && g[i] != pg; i++)
			;
		if (i == n)
			continue;
		snprintf(tpath, sizeof(tpath), "/proc/%s/task", e->d_name);
		if (!(td = opendir(tpath)))
			continue;
		while ((t = readdir(td))) {
			long long tid;

			if (parse_int(t->d_name, 1, INT32_MAX, &tid) == 0)
				sched_setaffinity((pid_t)tid, sizeof(*mask), mask);
		}
		closedir(td);
	}
	closedir(d);
}

static void groups_signal(const pid_t *g, size_t n, int sig)
{
	for (size_t i = 0; i < n; i++)
		if (kill(-g[i], sig) < 0 && errno != ESRCH)
			log_warn("quiet: signal %d to build process group %d: %s", sig, (int)g[i],
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
	pid_t g[BUILD_GROUPS_MAX];
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
	n = build_groups(q->build_tid, g, BUILD_GROUPS_MAX);
	if (mode == QUIET_BUILDS_AVOID) {
		if (!any)
			memcpy(&mask, q->base_mask, sizeof(mask));
		sched_setaffinity(q->build_tid, sizeof(mask), &mask);
		groups_affinity(g, n, &mask);
		if (any != q->restricted)
			log_info("quiet: build of submission %" PRId64 " %s", q->build,
				 any ? "kept off the pinned cores" : "back on every core");
		q->restricted = any;
	} else {
		groups_signal(g, n, any ? SIGSTOP : SIGCONT);
		if (any != q->paused)
			log_info("quiet: build of submission %" PRId64 " %s", q->build,
				 any ? "paused beside a pinned run" : "resumed");
		q->paused = any;
	}
	pthread_mutex_unlock(&q->lock);
}

void quiet_builds_resume(struct quiet *q)
{
	pid_t g[BUILD_GROUPS_MAX];
	size_t n;

	pthread_mutex_lock(&q->lock);
	if (q->build && q->paused) {
		n = build_groups(q->build_tid, g, BUILD_GROUPS_MAX);
		groups_signal(g, n, SIGCONT);
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
