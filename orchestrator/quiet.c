// SPDX-License-Identifier: GPL-2.0-only
/* quiet.c: quiet measurements, the workers' side. Below the workers
 * (sched.c) and beside the builder: it decides which runs get host cores
 * of their own and which, hands the cores out per host so two pinned
 * guests never share one, keeps the host's other guests to the cores left
 * (live, through libvirt), and follows what ran beside each run (other
 * runs, builds, the load) into the run's record (db/neighbours.c).
 * What builds do beside a pinned run is quiet_build.c's. */
#include "orchestrator/orchint.h"
#include "orchestrator/quiet.h"
#include "orchestrator/quietint.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/util.h"

/* --- the decision and the allocator (pure) -------------------------------- */

const char *quiet_pin_name(enum quiet_pin p)
{
	switch (p) {
	case QUIET_PINNED: return "pinned";
	case QUIET_OVERCOMMITTED: return "overcommitted";
	case QUIET_WAIT: return "waiting";
	default: return "unpinned";
	}
}

enum quiet_pin quiet_decide(int want, const char *why_not, int wait, int vcpus, int cpus,
			    int reserve, int nfree, char *why, size_t n)
{
	int room = cpus - reserve;

	if (cpus > 0 && vcpus > cpus) {
		snprintf(why, n, "%d vCPUs on %d host cores: no cores of its own", vcpus, cpus);
		return QUIET_OVERCOMMITTED;
	}
	if (!want) {
		snprintf(why, n, "%s", why_not ? why_not : "not a run to pin");
		return QUIET_UNPINNED;
	}
	if (cpus <= 0) {
		snprintf(why, n, "the host's core count is not known");
		return QUIET_UNPINNED;
	}
	if (vcpus > room || cpus > QUIET_CPUS_MAX) {
		snprintf(why, n, "%d vCPUs: the host has %d cores and keeps %d for itself", vcpus,
			 cpus, reserve);
		return QUIET_UNPINNED;
	}
	if (vcpus > nfree) {
		snprintf(why, n, "%d of the host's %d cores to pin are free, %d wanted (busy = %s)",
			 nfree, room, vcpus, wait ? "wait" : "share");
		return wait ? QUIET_WAIT : QUIET_UNPINNED;
	}
	why[0] = '\0';
	return QUIET_PINNED;
}

int quiet_cores_free(const unsigned char *used, int cpus, int reserve)
{
	int n = 0;

	for (int c = reserve < 0 ? 0 : reserve; c < cpus && c < QUIET_CPUS_MAX; c++)
		n += !used[c];
	return n;
}

int quiet_cores_pick(const unsigned char *used, int cpus, int reserve, int n, int *got)
{
	int k = n;

	if (n <= 0 || quiet_cores_free(used, cpus, reserve) < n)
		return -1;
	for (int c = (cpus < QUIET_CPUS_MAX ? cpus : QUIET_CPUS_MAX) - 1; c >= reserve && k; c--)
		if (!used[c])
			got[--k] = c;
	return 0;
}

void quiet_cpuset(const int *cores, int n, char *out, size_t len)
{
	size_t at = 0;

	if (len)
		out[0] = '\0';
	for (int i = 0; i < n && at < len; ) {
		int j = i;

		while (j + 1 < n && cores[j + 1] == cores[j] + 1)
			j++;
		if (j == i)
			at += (size_t)snprintf(out + at, len - at, "%s%d", i ? "," : "", cores[i]);
		else
			at += (size_t)snprintf(out + at, len - at, "%s%d-%d", i ? "," : "", cores[i],
					       cores[j]);
		i = j + 1;
	}
}

/* --- the state ------------------------------------------------------------ */

static int host_index(const struct orch *o, const struct host *h)
{
	return (int)(h - o->hosts);
}

/* The first host entry on h's machine: two entries for one machine (a
 * local URI and an ssh one, say) hand out the same cores */
static int machine_index(const struct orch *o, const struct host *h)
{
	for (size_t j = 0; h->machine[0] && j < o->nhosts; j++)
		if (!strcmp(o->hosts[j].machine, h->machine))
			return (int)j;
	return host_index(o, h);
}

/* A host whose guests share this machine with the builds: no host part in
 * its URI, or this machine's own address */
int quiet_host_local(const struct host *h)
{
	const char *p = strstr(h->conf->uri, "://");

	if (!p || !p[3] || p[3] == '/')
		return 1;
	p += 3;
	if (strchr(p, '@') && strchr(p, '@') < strchr(p, '/'))
		p = strchr(p, '@') + 1;
	return !strncmp(p, "localhost", 9) || !strncmp(p, "127.0.0.1", 9) ||
	       !strncmp(p, "[::1]", 5);
}

/* The 1-minute load average of this machine, -1 when unreadable */
double quiet_loadavg(void)
{
	struct buf b = BUF_INIT(0);
	double v = -1;

	if (read_file("/proc/loadavg", &b, 256) == 0 && b.data && sscanf(b.data, "%lf", &v) != 1)
		v = -1;
	buf_release(&b);
	return v;
}

/* ",name," of every job with metrics (the benchmarks), or NULL: none */
static char *bench_jobs(const struct job_set *js)
{
	struct buf b = BUF_INIT(0);

	buf_puts(&b, ",");
	for (size_t i = 0; i < js->n; i++)
		if (js->v[i]->nmetrics)
			buf_printf(&b, "%s,", js->v[i]->name);
	if (b.len == 1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

int quiet_start(struct orch *o)
{
	struct quiet *q = calloc(1, sizeof(*q));

	if (!q)
		return -1;
	q->o = o;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	q->used = calloc(o->nhosts ? o->nhosts : 1, sizeof(*q->used));
	q->gen = calloc(o->nhosts ? o->nhosts : 1, sizeof(*q->gen));
	if (o->conf->quiet_pin == QUIET_PIN_AUTO)
		q->pin_jobs = bench_jobs(&o->jobs);
	else if (o->conf->quiet_pin == QUIET_PIN_YES)
		q->pin_jobs = strdup("*");
	if (!q->used || !q->gen || (o->conf->quiet_pin == QUIET_PIN_YES && !q->pin_jobs) ||
	    quiet_build_init(q) < 0) {
		free(q->used);
		free(q->gen);
		free(q->pin_jobs);
		free(q);
		return -1;
	}
	o->quiet = q;
	if (pthread_create(&q->ticker, NULL, quiet_ticker, q) == 0)
		q->ticker_started = 1;
	else
		log_warn("quiet: no ticker thread: builds are held back only as runs start");
	return 0;
}

void quiet_stop(struct orch *o)
{
	struct quiet *q = o->quiet;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	q->stop = 1;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	if (q->ticker_started)
		pthread_join(q->ticker, NULL);
	quiet_build_release(q);
	while (q->runs) {
		struct quiet_run *r = q->runs;

		q->runs = r->next;
		free(r);
	}
	free(q->used);
	free(q->gen);
	free(q->pin_jobs);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
	free(q);
	o->quiet = NULL;
}

void quiet_fit(struct orch *o, const struct host *h, struct claim_fit *fit)
{
	struct quiet *q = o->quiet;
	int reserve = o->conf->quiet_reserve;

	if (!q || !q->pin_jobs || !o->conf->quiet_busy_wait || h->cpus <= 0 ||
	    h->cpus > QUIET_CPUS_MAX)
		return;
	pthread_mutex_lock(&q->lock);
	fit->pin_jobs = q->pin_jobs;
	fit->pin_max = h->cpus - reserve;
	fit->pin_free = quiet_cores_free(q->used[machine_index(o, h)], h->cpus, reserve);
	pthread_mutex_unlock(&q->lock);
}

/* --- runs ----------------------------------------------------------------- */

/* Notes b as a's neighbour (q->lock held) */
static void add_run(struct quiet_run *a, const struct quiet_run *b)
{
	for (int i = 0; i < a->nruns; i++)
		if (a->runs[i] == b->id)
			return;
	if (a->nruns == QUIET_NEIGH_MAX) {
		a->more_runs++;
		return;
	}
	a->runs[a->nruns] = b->id;
	a->run_vcpus[a->nruns++] = b->vcpus;
}

static int want_pin(const struct quiet *q, const struct run *r, const char **why_not)
{
	char name[80];

	if (q->o->conf->quiet_pin == QUIET_PIN_NO) {
		*why_not = "pin = no";
		return 0;
	}
	if (q->pin_jobs && !strcmp(q->pin_jobs, "*"))
		return 1;
	*why_not = "not a benchmark (no metrics)";
	if (!r->job || !q->pin_jobs)
		return 0;
	snprintf(name, sizeof(name), ",%s,", r->job);
	return strstr(q->pin_jobs, name) != NULL;
}

/* The cores no run has to itself on host i as a cpuset; "" when every
 * core is free (no restriction) (q->lock held) */
void quiet_shared_set(const struct quiet *q, const struct host *h, int i, char *out, size_t n)
{
	int *cores = calloc((size_t)(h->cpus > 0 ? h->cpus : 1), sizeof(int)), k = 0;

	out[0] = '\0';
	if (!cores || h->cpus <= 0 || h->cpus > QUIET_CPUS_MAX) {
		free(cores);
		return;
	}
	for (int c = 0; c < h->cpus; c++)
		if (!q->used[i][c])
			cores[k++] = c;
	if (k < h->cpus)
		quiet_cpuset(cores, k, out, n);
	free(cores);
}

static const char *const builds_names[] = { "avoid", "pause", "share" };

void quiet_begin(struct orch *o, struct host *h, struct db *db, const struct run *r)
{
	struct quiet *q = o->quiet;
	const struct config *c = o->conf;
	struct quiet_run *qr;
	const char *why_not = NULL;
	int hi = host_index(o, h), mi = machine_index(o, h), nfree, want;
	double load;

	if (!q || !(qr = calloc(1, sizeof(*qr))))
		return;
	qr->id = r->id;
	qr->host = hi;
	qr->machine = mi;
	qr->vcpus = r->vcpus;
	qr->local = quiet_host_local(h);
	snprintf(qr->domain, sizeof(qr->domain), "%s", r->domain ? r->domain : "");
	pthread_mutex_lock(&q->lock);
	nfree = h->cpus > 0 && h->cpus <= QUIET_CPUS_MAX ?
		quiet_cores_free(q->used[mi], h->cpus, c->quiet_reserve) : 0;
	want = want_pin(q, r, &why_not);   /* before why_not is read */
	qr->pin = quiet_decide(want, why_not, c->quiet_busy_wait, r->vcpus, h->cpus,
			       c->quiet_reserve, nfree, qr->why, sizeof(qr->why));
	if (qr->pin == QUIET_WAIT) {
		/* claimed while its cores were taken (placement raced): run it
		 * rather than hold a slot, and say so */
		qr->pin = QUIET_UNPINNED;
		strncat(qr->why, ": claimed anyway", sizeof(qr->why) - strlen(qr->why) - 1);
	}
	if (qr->pin == QUIET_PINNED &&
	    quiet_cores_pick(q->used[mi], h->cpus, c->quiet_reserve, r->vcpus, qr->cores) == 0) {
		qr->ncores = r->vcpus;
		for (int i = 0; i < qr->ncores; i++)
			q->used[mi][qr->cores[i]] = 1;
		quiet_cpuset(qr->cores, qr->ncores, qr->cpuset, sizeof(qr->cpuset));
		q->gen[mi]++;
	} else if (qr->pin == QUIET_PINNED) {
		qr->pin = QUIET_UNPINNED;
		snprintf(qr->why, sizeof(qr->why), "no cores to pin (out of memory?)");
	}
	if (qr->pin != QUIET_PINNED)
		quiet_shared_set(q, h, mi, qr->cpuset, sizeof(qr->cpuset));
	qr->gen = q->gen[mi];
	for (struct quiet_run *x = q->runs; x; x = x->next)
		if (x->machine == mi) {
			add_run(x, qr);
			add_run(qr, x);
		}
	if (q->build && qr->local)
		quiet_note_build(q, qr, q->build);
	qr->next = q->runs;
	q->runs = qr;
	pthread_mutex_unlock(&q->lock);
	/* the builds step aside before the guest starts */
	if (qr->pin == QUIET_PINNED && qr->local)
		quiet_builds_apply(q);
	load = qr->local ? quiet_loadavg() : -1;
	if (db_quiet_begin(db, r->id, r->attempt, quiet_pin_name(qr->pin),
			   qr->cpuset[0] ? qr->cpuset : NULL, qr->why[0] ? qr->why : NULL,
			   builds_names[c->quiet_builds], load) < 0)
		log_warn("run %" PRId64 ": cannot record its pinning: %s", r->id, db_errmsg(db));
	log_info("run %" PRId64 ": %s%s%s%s%s", r->id, quiet_pin_name(qr->pin),
		 qr->cpuset[0] ? " on host cores " : "", qr->cpuset, qr->why[0] ? ": " : "",
		 qr->why);
}

void quiet_spec(struct orch *o, int64_t run_id, struct guest_spec *gs)
{
	struct quiet *q = o->quiet;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	for (struct quiet_run *x = q->runs; x; x = x->next) {
		if (x->id != run_id)
			continue;
		if (x->pin == QUIET_PINNED) {
			gs->pin = x->cores;
			gs->npin = x->ncores;
		}
		/* the set as it was at the start; later changes go in live */
		snprintf(x->xml_cpuset, sizeof(x->xml_cpuset), "%s", x->cpuset);
		gs->cpuset = x->xml_cpuset[0] ? x->xml_cpuset : NULL;
		break;
	}
	pthread_mutex_unlock(&q->lock);
}

/* "12:1 13:16 +3" and "5 6:paused" */
static void describe(const struct quiet_run *r, struct buf *runs, struct buf *builds)
{
	for (int i = 0; i < r->nruns; i++)
		buf_printf(runs, "%s%" PRId64 ":%d", i ? " " : "", r->runs[i], r->run_vcpus[i]);
	if (r->more_runs)
		buf_printf(runs, " +%d", r->more_runs);
	for (int i = 0; i < r->nbuilds; i++)
		buf_printf(builds, "%s%" PRId64 "%s", i ? " " : "", r->builds[i],
			   r->build_paused[i] ? ":paused" : "");
	if (r->more_builds)
		buf_printf(builds, " +%d", r->more_builds);
}

void quiet_end(struct orch *o, struct db *db, const struct run *r)
{
	struct quiet *q = o->quiet;
	struct quiet_run *qr = NULL;
	struct buf runs = BUF_INIT(4096), builds = BUF_INIT(4096);
	int pinned = 0, local = 0;

	if (!q)
		return;
	pthread_mutex_lock(&q->lock);
	for (struct quiet_run **p = &q->runs; *p; p = &(*p)->next)
		if ((*p)->id == r->id) {
			qr = *p;
			*p = qr->next;
			break;
		}
	if (qr) {
		for (int i = 0; i < qr->ncores; i++)
			q->used[qr->machine][qr->cores[i]] = 0;
		if (qr->ncores)
			q->gen[qr->machine]++;
		pinned = qr->pin == QUIET_PINNED;
		local = qr->local;
		describe(qr, &runs, &builds);
	}
	pthread_mutex_unlock(&q->lock);
	if (!qr)
		return;
	if (pinned && local)
		quiet_builds_apply(q);
	if (db_quiet_end(db, r->id, runs.len ? buf_str(&runs) : NULL,
			 builds.len ? buf_str(&builds) : NULL, local ? quiet_loadavg() : -1) < 0)
		log_warn("run %" PRId64 ": cannot record its neighbours: %s", r->id, db_errmsg(db));
	buf_release(&runs);
	buf_release(&builds);
	free(qr);
}

/* --- the ticker ------------------------------------------------------------ */

/* An unpinned guest of host hi whose cores changed since it was given
 * them: moved to the cores left (or all of them), live */
static void repin_host(struct quiet *q, int hi, unsigned tick)
{
	struct orch *o = q->o;
	struct host *h = &o->hosts[hi];
	char set[QUIET_CPUSET_LEN], dom[64];

	for (;;) {
		int64_t id = 0;
		int vcpus = 0;
		unsigned gen = 0;

		pthread_mutex_lock(&q->lock);
		for (struct quiet_run *x = q->runs; x; x = x->next)
			if (x->host == hi && x->pin != QUIET_PINNED && x->gen != q->gen[x->machine] &&
			    x->tick != tick) {
				x->tick = tick;   /* one try a tick: its guest may not exist yet */
				id = x->id;
				vcpus = x->vcpus;
				gen = q->gen[x->machine];
				snprintf(dom, sizeof(dom), "%s", x->domain);
				quiet_shared_set(q, h, x->machine, set, sizeof(set));
				break;
			}
		pthread_mutex_unlock(&q->lock);
		if (!id)
			return;
		if (guest_repin_live(h, dom, vcpus, set) < 0)
			continue;
		pthread_mutex_lock(&q->lock);
		for (struct quiet_run *x = q->runs; x; x = x->next)
			if (x->id == id) {
				x->gen = gen;
				snprintf(x->cpuset, sizeof(x->cpuset), "%s", set);
			}
		pthread_mutex_unlock(&q->lock);
	}
}

void *quiet_ticker(void *arg)
{
	struct quiet *q = arg;
	unsigned tick = 0;

	for (;;) {
		struct timespec ts;
		int stop;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 500 * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_mutex_lock(&q->lock);
		if (!q->stop)
			pthread_cond_timedwait(&q->cond, &q->lock, &ts);
		stop = q->stop;
		pthread_mutex_unlock(&q->lock);
		if (stop)
			break;
		for (size_t i = 0; i < q->o->nhosts; i++)
			repin_host(q, (int)i, ++tick);
		quiet_builds_apply(q);
	}
	quiet_builds_resume(q);
	return NULL;
}
