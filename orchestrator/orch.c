/* orch.c: the orchestrator's life: start-up (state directory, database,
 * recovery of runs a dead daemon left in flight, libvirt hosts and their
 * event loop), validating and queuing submitted runs, and shutdown. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <libvirt/virterror.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "kernels/kernels.h"

#define COMMAND_MAX (16 * 1024)

static int event_loop_registered;

static void *event_main(void *arg)
{
	struct orch *o = arg;

	for (;;) {
		int stop;

		pthread_mutex_lock(&o->lock);
		stop = o->stopping > 1;
		pthread_mutex_unlock(&o->lock);
		if (stop)
			break;
		if (virEventRunDefaultImpl() < 0)
			usleep(100000);
	}
	return NULL;
}

/* libvirt prints every error to stderr unless told otherwise; kfleet
 * reports the ones that matter itself, with the run they belong to. */
static void libvirt_error(void *opaque, virErrorPtr e)
{
	if (e && e->message)
		log_debug("libvirt: %s", e->message);
}

static void tick(int timer, void *opaque)
{
	/* wakes the event loop so it sees o->stopping */
}

/* Runs the start-up recovery: runs left in flight become infrastructure
 * failures (requeued when they have attempts left) and every domain of this
 * instance still on a host is destroyed. */
static void recover(struct orch *o)
{
	char **doms = NULL, prefix[32];
	size_t n = 0;

	if (db_recover(o->db, &doms, &n) < 0) {
		log_error("recovery: %s", db_errmsg(o->db));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		log_warn("recovery: domain '%s' was in flight when kfleetd stopped", doms[i]);
		free(doms[i]);
	}
	free(doms);
	snprintf(prefix, sizeof(prefix), "kf-%s-", o->instance);
	for (size_t i = 0; i < o->nhosts; i++)
		if (o->hosts[i].conn)
			guest_sweep(&o->hosts[i], prefix);
}

struct orch *orch_new(const struct config *c, char **err)
{
	struct orch *o = calloc(1, sizeof(*o));
	char *e = NULL;

	*err = NULL;
	if (!o)
		return NULL;
	o->conf = c;
	pthread_mutex_init(&o->lock, NULL);
	pthread_mutex_init(&o->claim_lock, NULL);
	pthread_cond_init(&o->work, NULL);
	pthread_cond_init(&o->events, NULL);
	pthread_cond_init(&o->build_work, NULL);
	o->event_timer = -1;
	o->state_dir = path_abs(c->state_dir);
	if (!o->state_dir || mkdir_p(o->state_dir, 0755) < 0) {
		set_errf(err, "state directory '%s': %s", c->state_dir, strerror(errno));
		goto fail;
	}
	o->db_path = path_join(o->state_dir, "kfleet.db");
	o->cache_dir = path_join(o->state_dir, "cache");
	o->runs_dir = path_join(o->state_dir, "runs");
	o->agent_x86_64 = path_join(c->agent_dir, "kfleet-agent-x86_64");
	o->agent_arm64 = path_join(c->agent_dir, "kfleet-agent-arm64");
	o->tcg1_dir = path_join(o->state_dir, "tcg1");
	if (o->tcg1_dir && guest_write_tcg1(o->tcg1_dir) < 0) {
		set_errf(err, "QEMU wrappers in '%s': %s", o->tcg1_dir, strerror(errno));
		goto fail;
	}
	if (!o->db_path || !o->cache_dir || !o->runs_dir || !o->agent_x86_64 || !o->agent_arm64)
		goto fail;
	if (mkdir_p(o->runs_dir, 0755) < 0 || mkdir_p(o->cache_dir, 0755) < 0) {
		set_errf(err, "state directory '%s': %s", o->state_dir, strerror(errno));
		goto fail;
	}
	if (access(o->agent_x86_64, R_OK) < 0)
		log_warn("agent '%s': %s; x86_64 runs will fail", o->agent_x86_64, strerror(errno));
	{
		struct buf jerr = BUF_INIT(64 * 1024);
		int left_out = job_set_load(&o->jobs, c->job_dirs, &jerr);

		if (left_out < 0)
			goto fail;
		/* a broken job file is reported and left out, never fatal */
		for (char *l = jerr.data, *nl; l && *l; l = nl) {
			nl = strchr(l, '\n');
			if (nl)
				*nl++ = '\0';
			log_warn("jobs: %s", l);
		}
		log_info("jobs: %zu loaded from '%s'%s", o->jobs.n, c->job_dirs,
			 left_out ? ", some left out (see above)" : "");
		buf_release(&jerr);
	}
	o->db = db_open(o->db_path, &e);
	if (!o->db) {
		*err = e;
		goto fail;
	}
	snprintf(o->instance, sizeof(o->instance), "%s", db_instance(o->db));

	if (!event_loop_registered) {
		virSetErrorFunc(NULL, libvirt_error);
		if (virEventRegisterDefaultImpl() < 0) {
			set_errf(err, "libvirt: cannot set up its event loop");
			goto fail;
		}
		event_loop_registered = 1;
	}
	o->event_timer = virEventAddTimeout(500, tick, o, NULL);
	o->hosts = calloc(c->nhosts, sizeof(*o->hosts));
	if (!o->hosts)
		goto fail;
	o->nhosts = c->nhosts;
	for (size_t i = 0; i < c->nhosts; i++) {
		struct host *h = &o->hosts[i];

		h->conf = &c->hosts[i];
		h->callback_id = -1;
		h->healthy = 1;
		pthread_mutex_init(&h->lock, NULL);
		if (guest_host_connect(o, h, &e) < 0) {
			*err = e;
			goto fail;
		}
		log_info("host '%s' (%s): x86_64 %s (%s), max %d vCPUs; arm64 %s, max %d vCPUs; "
			 "%" PRId64 " MiB, QEMU %s, libvirt %s", h->conf->name, h->conf->uri,
			 h->accel, h->why_accel, h->max_vcpus,
			 h->accel_arm64[0] ? h->accel_arm64 : "none", h->max_vcpus_arm64,
			 h->memory_kb / 1024, h->qemu_version, h->libvirt_version);
		/* connected: in placement, whatever an earlier daemon left said */
		if (db_host_upsert(o->db, h->conf->name, h->conf->uri, h->accel, h->qemu_version,
				   h->libvirt_version, h->max_vcpus, h->memory_kb) < 0 ||
		    db_host_health(o->db, h->conf->name, 1, NULL) < 0) {
			set_errf(err, "database: %s", db_errmsg(o->db));
			goto fail;
		}
	}
	if (pthread_create(&o->event_thread, NULL, event_main, o)) {
		set_errf(err, "cannot start the libvirt event thread");
		goto fail;
	}
	o->event_thread_started = 1;
	recover(o);
	return o;
fail:
	if (!*err)
		*err = strdup("out of memory");
	orch_free(o);
	return NULL;
}

#define RECONNECT_MS 5000

/* Room for run files, initrds and builds under the state directory: 1, or
 * 0 with why. A full disk fails every run as infra, so runs wait instead. */
static int disk_ok(struct orch *o, char *why, size_t n)
{
	unsigned long long min = o->conf->min_free_disk, avail;
	struct statvfs st;

	if (!min || statvfs(o->state_dir, &st) < 0)
		return 1;
	avail = (unsigned long long)st.f_bavail * st.f_frsize;
	if (avail >= min)
		return 1;
	snprintf(why, n, "disk: %llu MiB free under '%s', less than min_free_disk (%llu MiB)",
		 avail >> 20, o->state_dir, min >> 20);
	return 0;
}

int orch_host_ready(struct orch *o, struct host *h, struct db *db)
{
	char why[512];
	int ready, disk;

	pthread_mutex_lock(&h->lock);
	ready = h->conn && virConnectIsAlive(h->conn) == 1;
	/* the state directory's room, looked at every few seconds */
	if (ready && mono_ms() >= h->disk_at) {
		disk = disk_ok(o, why, sizeof(why));
		h->disk_at = mono_ms() + RECONNECT_MS;
		if ((!disk) != h->disk_full) {
			h->disk_full = !disk;
			if (!disk)
				log_warn("host '%s': out of placement: %s", h->conf->name, why);
			else
				log_info("host '%s': back in placement: the disk has room again",
					 h->conf->name);
			db_host_health(db, h->conf->name, disk, disk ? NULL : why);
			h->healthy = disk;
		}
	}
	if (ready && h->disk_full) {
		pthread_mutex_unlock(&h->lock);
		return 0;
	}
	if (!ready && mono_ms() >= h->retry_at) {
		char *e = NULL;

		/* the old connection's guests are gone with it or ended by their
		 * workers as infrastructure failures */
		guest_host_disconnect(h);
		if (guest_host_connect(o, h, &e) == 0) {
			ready = 1;
			log_info("host '%s': connected again", h->conf->name);
			/* QEMU outlives libvirtd: guests of runs that ended while the
			 * host was away may still run there */
			for (size_t i = 0; i < h->norphans; i++) {
				log_info("host '%s': destroying '%s', left when the connection "
					 "died", h->conf->name, h->orphans[i]);
				guest_destroy_name(h, h->orphans[i]);
				free(h->orphans[i]);
			}
			h->norphans = 0;
		} else {
			h->retry_at = mono_ms() + RECONNECT_MS;
			if (h->healthy)
				log_warn("host '%s': out of placement: %s", h->conf->name,
					 e ? e : "?");
		}
		if ((ready && !h->disk_full) != h->healthy && !(ready && h->disk_full))
			db_host_health(db, h->conf->name, ready, ready ? NULL : e);
		h->healthy = ready && !h->disk_full;
		free(e);
	}
	pthread_mutex_unlock(&h->lock);
	return ready;
}

void orch_host_orphan(struct host *h, const char *domain)
{
	char **v;

	pthread_mutex_lock(&h->lock);
	v = realloc(h->orphans, (h->norphans + 1) * sizeof(*v));
	if (v) {
		h->orphans = v;
		v[h->norphans] = strdup(domain);
		if (v[h->norphans])
			h->norphans++;
	}
	pthread_mutex_unlock(&h->lock);
}

int orch_start(struct orch *o)
{
	if (sched_start(o) < 0)
		return -1;
	return builder_start(o);
}

char *orch_program_path(const struct config *c, const char *arch, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s/%s", c->programs_dir, arch, name) < 0)
		return NULL;
	return p;
}

char *orch_selftests_path(const char *state_dir, const char *kernel_path, const char *sha,
			  const char *target)
{
	const char *slash = strrchr(kernel_path, '/');
	size_t n = strlen(state_dir);
	char *p = NULL, sum[65];

	if (!slash)
		return NULL;
	if (!strncmp(kernel_path, state_dir, n) && !strncmp(kernel_path + n, "/builds/", 8)) {
		if (asprintf(&p, "%.*s/kselftest-%s.cpio.gz", (int)(slash - kernel_path),
			     kernel_path, target) < 0)
			return NULL;
		return p;
	}
	if (!sha && sha256_file(kernel_path, sum) < 0)
		return NULL;
	if (asprintf(&p, "%s/selftests/%.16s/kselftest-%s.cpio.gz", state_dir, sha ? sha : sum,
		     target) < 0)
		return NULL;
	return p;
}

const struct job_set *orch_jobs(const struct orch *o)
{
	return &o->jobs;
}

const char *orch_db_path(const struct orch *o)
{
	return o->db_path;
}

void orch_free(struct orch *o)
{
	if (!o)
		return;
	builder_stop(o);
	if (o->workers)
		sched_stop(o);
	pthread_mutex_lock(&o->lock);
	o->stopping = 2;
	pthread_mutex_unlock(&o->lock);
	if (o->event_thread_started)
		pthread_join(o->event_thread, NULL);
	for (size_t i = 0; i < o->nhosts; i++) {
		guest_host_disconnect(&o->hosts[i]);
		for (size_t j = 0; j < o->hosts[i].norphans; j++)
			free(o->hosts[i].orphans[j]);
		free(o->hosts[i].orphans);
		if (o->hosts[i].conf)
			pthread_mutex_destroy(&o->hosts[i].lock);
	}
	if (o->event_timer >= 0)
		virEventRemoveTimeout(o->event_timer);
	free(o->hosts);
	db_close(o->db);
	free(o->agent_x86_64);
	free(o->agent_arm64);
	free(o->tcg1_dir);
	job_set_release(&o->jobs);
	free(o->runs_dir);
	free(o->cache_dir);
	free(o->db_path);
	free(o->state_dir);
	pthread_cond_destroy(&o->events);
	pthread_cond_destroy(&o->build_work);
	pthread_cond_destroy(&o->work);
	pthread_mutex_destroy(&o->lock);
	pthread_mutex_destroy(&o->claim_lock);
	free(o);
}

/* --- submitting ---------------------------------------------------------- */

/* Validates s and fills req (sha is its storage for the kernel's hash):
 * 0, or -1 with *err for the user. */
static int prepare(struct orch *o, const struct run_spec *s, struct run_request *r, char sha[65],
		   char **err)
{
	const struct config *c = o->conf;
	struct run_request req;
	char *e = NULL;
	int max_vcpus = 0;
	int64_t max_mem_kb = 0;
	const char *arch = s->arch && *s->arch ? s->arch : "x86_64";
	const char *command = s->command;
	const struct job_def *job = NULL;

	*err = NULL;
	int arm = !strcmp(arch, "arm64");

	if (strcmp(arch, "x86_64") && !arm)
		return set_errf(err, "arch '%s': unknown (known: x86_64, arm64)", arch);
	if (arm && access(o->agent_arm64, R_OK) < 0)
		return set_errf(err, "arch 'arm64': no guest agent '%s' (build it with "
			    "gcc-aarch64-linux-gnu installed)", o->agent_arm64);
	if (arm && access(c->busybox_arm64, R_OK) < 0)
		return set_errf(err, "arch 'arm64': no busybox '%s' (images/fetch-arm64.sh "
			    "installs Debian's)", c->busybox_arm64);
	if (s->job && *s->job) {
		job = job_set_find(&o->jobs, s->job);
		if (!job)
			return set_errf(err, "job '%s': no such job (kfleet jobs lists them)", s->job);
		if (s->command && *s->command)
			return set_errf(err, "job '%s': give a job or a command, not both", s->job);
		command = job->command;
		for (size_t i = 0; i < job->nprograms; i++) {
			char *p = orch_program_path(c, arch, job->programs[i]);
			int ok = p && access(p, R_OK) == 0;

			if (!ok) {
				set_errf(err, "job '%s': program '%s' is not built for %s ('%s': %s)",
				     s->job, job->programs[i], arch, p ? p : job->programs[i],
				     strerror(errno));
				free(p);
				return -1;
			}
			free(p);
		}
	}
	if (!command || !*command)
		return set_errf(err, "command: empty");
	if (strlen(command) > COMMAND_MAX)
		return set_errf(err, "command: %zu bytes, more than the %d allowed",
			   strlen(command), COMMAND_MAX);
	if (!s->kernel || !*s->kernel)
		return set_errf(err, "kernel: missing");
	if (kimage_check(s->kernel, arch, &e) < 0) {
		*err = e;
		return -1;
	}
	for (size_t i = 0; i < o->nhosts; i++) {
		int mv = arm ? o->hosts[i].max_vcpus_arm64 : o->hosts[i].max_vcpus;

		if (mv > max_vcpus)
			max_vcpus = mv;
		if (o->hosts[i].memory_kb > max_mem_kb)
			max_mem_kb = o->hosts[i].memory_kb;
	}
	memset(&req, 0, sizeof(req));
	req.kernel_path = s->kernel;
	req.arch = arch;
	req.command = command;
	req.job = job ? job->name : NULL;
	req.vcpus = s->vcpus ? s->vcpus : job && job->vcpus ? job->vcpus : 1;
	req.memory_mb = s->memory_mb ? s->memory_mb :
			job && job->memory_mb ? job->memory_mb : c->run_memory_mb;
	req.timeout_s = s->timeout_s ? s->timeout_s :
			job && job->timeout_s ? job->timeout_s : c->run_timeout_s;
	req.max_attempts = c->max_attempts;
	if (max_vcpus == 0)
		return set_errf(err, "arch '%s': no host here runs it", arch);
	if (req.vcpus < 1 || req.vcpus > max_vcpus)
		return set_errf(err, "vcpus %d: must be from 1 to %d, the most any host here takes "
			    "for %s", req.vcpus, max_vcpus, arch);
	if (req.memory_mb < 64 || (int64_t)req.memory_mb * 1024 > max_mem_kb)
		return set_errf(err, "memory %d MiB: must be from 64 to %" PRId64 " MiB, the most "
			   "any host here has", req.memory_mb, max_mem_kb / 1024);
	if (s->topology && *s->topology) {
		unsigned so, co, th;
		char end;

		if (sscanf(s->topology, "%u:%u:%u%c", &so, &co, &th, &end) != 3 || !so || !co ||
		    !th || (long long)so * co * th != req.vcpus)
			return set_errf(err, "topology '%s': must be SOCKETS:CORES:THREADS whose product "
				    "is the %d vCPUs", s->topology, req.vcpus);
		req.topology = s->topology;
	}
	req.numa_nodes = s->numa_nodes > 0 ? s->numa_nodes : 1;
	if (req.numa_nodes > 1 && (req.vcpus % req.numa_nodes || req.memory_mb % req.numa_nodes))
		return set_errf(err, "numa %d: the %d vCPUs and %d MiB must split evenly over the nodes",
			    req.numa_nodes, req.vcpus, req.memory_mb);
	if (req.numa_nodes > 64)
		return set_errf(err, "numa %d: at most 64 nodes", req.numa_nodes);
	if (req.timeout_s < 1 || req.timeout_s > 7 * 86400)
		return set_errf(err, "timeout %d s: must be from 1 s to 7 days", req.timeout_s);
	if (sha256_file(s->kernel, sha) < 0)
		return set_errf(err, "kernel '%s': %s", s->kernel, strerror(errno));
	req.kernel_sha256 = sha;
	if (job && job->selftests) {
		char *k = orch_selftests_path(o->state_dir, s->kernel, sha, job->selftests);
		int ok = k && access(k, R_OK) == 0;

		free(k);
		if (!ok)
			return set_errf(err, "job '%s': needs the kselftest target '%s' built for "
					"this kernel: submit it through a tree (kfleet submit --tree "
					"T --job %s, and --kernel PATH for a kernel built elsewhere)",
					s->job, job->selftests, s->job);
	}
	*r = req;
	return 0;
}

int orch_submit(struct orch *o, const struct run_spec *s, int64_t *id, char **err)
{
	struct run_request req;
	char sha[65];
	int rc;

	if (prepare(o, s, &req, sha, err) < 0)
		return -1;
	pthread_mutex_lock(&o->lock);
	rc = db_run_insert(o->db, &req, id);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	else
		pthread_cond_signal(&o->work);
	pthread_mutex_unlock(&o->lock);
	if (rc < 0)
		return -2;
	log_info("run %" PRId64 ": queued: %s on '%s', %d vCPUs, %d MiB", *id, req.arch,
		 s->kernel, req.vcpus, req.memory_mb);
	return 0;
}

int orch_import(struct orch *o, const struct import_spec *sp, int64_t *id, char **err)
{
	static const char *const parsers[] = { "ktap", "test_progs", "bench", "metrics" };
	struct job_def tmp = { 0 };
	const struct job_def *def = NULL;
	struct run_spec spec = { 0 };
	struct run_request req;
	struct run run = { 0 };
	char sha[65], detail[512], rel[64], *dir = NULL, *outp = NULL, *cmd = NULL;
	enum run_outcome oc;
	int rc = -1;

	*err = NULL;
	if (!sp->log || sp->len > JOB_OUTPUT_MAX)
		return set_errf(err, "log: %s", sp->log ? "larger than 64 MiB" : "missing");
	if (sp->job && *sp->job) {
		def = job_set_find(&o->jobs, sp->job);
		if (!def)
			return set_errf(err, "job '%s': no such job (kfleet jobs lists them)", sp->job);
	} else {
		for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]) && !def; i++)
			if (sp->parser && !strcmp(sp->parser, parsers[i])) {
				tmp.name = "imported";
				tmp.parser = (char *)parsers[i];
				def = &tmp;
			}
		if (!def)
			return set_errf(err, "parser '%s': not ktap, test_progs, bench or metrics "
					"(or name a job)", sp->parser ? sp->parser : "");
	}
	if (asprintf(&cmd, "imported from %.200s", sp->name && *sp->name ? sp->name : "a log") < 0)
		return set_errf(err, "out of memory");
	/* the kernel as for a run; a job's own command is not what ran */
	spec.kernel = sp->kernel;
	spec.arch = sp->arch;
	spec.vcpus = sp->vcpus;
	spec.command = cmd;
	if (prepare(o, &spec, &req, sha, err) < 0)
		goto out;
	req.job = def == &tmp ? NULL : def->name;
	pthread_mutex_lock(&o->lock);
	if (db_run_import(o->db, &req, "passed", NULL, NULL, id) < 0) {
		set_errf(err, "database: %s", db_errmsg(o->db));
		pthread_mutex_unlock(&o->lock);
		rc = -2;
		goto out;
	}
	snprintf(rel, sizeof(rel), "%" PRId64 "/imported", *id);
	dir = path_join(o->runs_dir, rel);
	outp = dir ? path_join(dir, RUN_FILE_OUTPUT) : NULL;
	if (!outp || mkdir_p(dir, 0755) < 0 || write_file(outp, sp->log, sp->len, 0644) < 0) {
		db_run_set_outcome(o->db, *id, "infra", "import: cannot write the log");
		set_errf(err, "import: '%s': %s", dir ? dir : "?", strerror(errno));
		pthread_mutex_unlock(&o->lock);
		rc = -2;
		goto out;
	}
	db_run_started(o->db, *id, "imported", NULL, NULL, NULL, dir);
	run.id = *id;
	oc = sched_parse_output(o->db, def, &run, outp, detail, sizeof(detail));
	db_run_set_outcome(o->db, *id, run_outcome_name(oc), detail[0] ? detail : NULL);
	pthread_mutex_unlock(&o->lock);
	log_info("run %" PRId64 ": imported from '%s' (%s, kernel '%s'): %s", *id,
		 sp->name ? sp->name : "?", def->parser, sp->kernel, run_outcome_name(oc));
	rc = 0;
out:
	free(outp);
	free(dir);
	free(cmd);
	return rc;
}

int orch_submit_request(struct orch *o, const struct run_spec *s, const char *patched,
			int repeat, int64_t *id, char **err)
{
	struct run_spec ps = *s;
	struct run_request base, pat;
	char sha_b[65], sha_p[65];
	int rc;

	*err = NULL;
	if (repeat < 1 || repeat > 100)
		return set_errf(err, "repeat %d: must be from 1 to 100", repeat);
	if (!patched || !*patched)
		return set_errf(err, "patched: missing");
	ps.kernel = patched;
	if (prepare(o, s, &base, sha_b, err) < 0 || prepare(o, &ps, &pat, sha_p, err) < 0)
		return -1;
	pthread_mutex_lock(&o->lock);
	rc = db_request_insert(o->db, &base, &pat, repeat, id);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	else
		pthread_cond_broadcast(&o->work);
	pthread_mutex_unlock(&o->lock);
	if (rc < 0)
		return -2;
	log_info("request %" PRId64 ": %d x (base '%s', patched '%s'), interleaved", *id, repeat,
		 s->kernel, patched);
	return 0;
}
