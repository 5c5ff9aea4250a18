// SPDX-License-Identifier: GPL-2.0-only
/* submit.c: how work enters kfleet: runs and requests (from the API, and
 * from the builder once a submission's kernels are built), imported
 * results, trees and series. Each is checked here, while the user waits
 * for the answer (a kernel of the wrong arch, a tree name or URL that
 * cannot work, an mbox that is not a complete series, a job kfleet does
 * not have), stored, and handed to the workers or the builder thread.
 * The daemon's own database connection is taken under o->db_lock only. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/decided.h"
#include "common/log.h"
#include "common/util.h"
#include "kernels/kernels.h"

#define SUBMIT_LIST_MAX 16
#define COMMAND_MAX (16 * 1024)

/* --- runs --------------------------------------------------------------- */

/* The job s names, with its programs built for arch; NULL with *err */
static const struct job_def *run_job(struct orch *o, const struct run_spec *s, const char *arch,
				     char **err)
{
	const struct job_def *job = job_set_find(&o->jobs, s->job);

	if (!job) {
		set_errf(err, "job '%s': no such job (kfleet jobs lists them)", s->job);
		return NULL;
	}
	if (s->command && *s->command) {
		set_errf(err, "job '%s': give a job or a command, not both", s->job);
		return NULL;
	}
	for (size_t i = 0; i < job->nprograms; i++) {
		char *p = orch_program_path(o->conf, arch, job->programs[i]);
		int ok = p && access(p, R_OK) == 0;

		if (!ok) {
			set_errf(err, "job '%s': program '%s' is not built for %s ('%s': %s)",
				 s->job, job->programs[i], arch, p ? p : job->programs[i],
				 strerror(errno));
			free(p);
			return NULL;
		}
		free(p);
	}
	return job;
}

/* The most vCPUs (of the arch) and memory any host here has */
static void host_limits(const struct orch *o, int arm, int *max_vcpus, int64_t *max_mem_kb)
{
	for (size_t i = 0; i < o->nhosts; i++) {
		int mv = arm ? o->hosts[i].max_vcpus_arm64 : o->hosts[i].max_vcpus;

		if (mv > *max_vcpus)
			*max_vcpus = mv;
		if (o->hosts[i].memory_kb > *max_mem_kb)
			*max_mem_kb = o->hosts[i].memory_kb;
	}
}

/* Validates s and fills req (sha is its storage for the kernel's hash):
 * 0, or -1 with *err for the user. */
/* "S:C:T", each field a number from 1 to 4096 in full (no wrap past
 * 2^32, no sign, no spaces), their product vcpus. 0 / -1 */
static int topology_check(const char *t, int vcpus)
{
	long long f[3], product = 1;
	char part[16];

	for (int i = 0; i < 3; i++) {
		size_t n = strcspn(t, ":");

		if (!n || n >= sizeof(part) || (i < 2 ? t[n] != ':' : t[n] != 0))
			return -1;
		memcpy(part, t, n);
		part[n] = 0;
		if (part[0] < '0' || part[0] > '9' || parse_int(part, 1, 4096, &f[i]) < 0)
			return -1;
		product *= f[i];
		t += n + (i < 2);
	}
	return product == vcpus ? 0 : -1;
}

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
		job = run_job(o, s, arch, err);
		if (!job)
			return -1;
		command = job->command;
	}
	if (!command || !*command)
		return set_errf(err, "command: empty");
	if (strlen(command) > COMMAND_MAX)
		return set_errf(err, "command: %zu bytes, more than the %d allowed",
			   strlen(command), COMMAND_MAX);
	if (!s->kernel || !*s->kernel)
		return set_errf(err, "kernel: missing");
	if (orch_path_allowed(o->state_dir, o->db_path, s->kernel, "kernel", err) < 0)
		return -1;
	if (kimage_check(s->kernel, arch, &e) < 0) {
		*err = e;
		return -1;
	}
	host_limits(o, arm, &max_vcpus, &max_mem_kb);
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
	req.watch = s->watch;
	if (max_vcpus == 0)
		return set_errf(err, "arch '%s': no host here runs it", arch);
	if (req.vcpus < 1 || req.vcpus > max_vcpus)
		return set_errf(err, "vcpus %d: must be from 1 to %d, the most any host here takes "
			    "for %s", req.vcpus, max_vcpus, arch);
	if (req.memory_mb < 64 || (int64_t)req.memory_mb * 1024 > max_mem_kb)
		return set_errf(err, "memory %d MiB: must be from 64 to %" PRId64 " MiB, the most "
			   "any host here has", req.memory_mb, max_mem_kb / 1024);
	if (s->topology && *s->topology) {
		if (topology_check(s->topology, req.vcpus) < 0)
			return set_errf(err, "topology '%.60s': must be SOCKETS:CORES:THREADS, each "
					"from 1 to 4096, whose product is the %d vCPUs", s->topology,
					req.vcpus);
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
	pthread_mutex_lock(&o->db_lock);
	rc = db_run_insert(o->db, &req, id);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0)
		return -2;
	orch_wake(o, &o->work, 0);
	log_info("run %" PRId64 ": queued: %s on '%s', %d vCPUs, %d MiB", *id, req.arch,
		 s->kernel, req.vcpus, req.memory_mb);
	return 0;
}

/* The parser an import names: a job's, or one of the parsers as a job of
 * its own (tmp). NULL with *err. */
static const struct job_def *import_def(struct orch *o, const struct import_spec *sp,
					struct job_def *tmp, char **err)
{
	static const char *const parsers[] = { "ktap", "test_progs", "bench", "metrics" };

	if (sp->job && *sp->job) {
		const struct job_def *def = job_set_find(&o->jobs, sp->job);

		if (!def)
			set_errf(err, "job '%s': no such job (kfleet jobs lists them)", sp->job);
		return def;
	}
	for (size_t i = 0; i < sizeof(parsers) / sizeof(parsers[0]); i++)
		if (sp->parser && !strcmp(sp->parser, parsers[i])) {
			tmp->name = "imported";
			tmp->parser = (char *)parsers[i];
			return tmp;
		}
	set_errf(err, "parser '%s': not ktap, test_progs, bench or metrics (or name a job)",
		 sp->parser ? sp->parser : "");
	return NULL;
}

/* The log into the imported run's directory, parsed and stored as its
 * results: only the database calls are under db_lock, not the writing or
 * the parsing of up to JOB_OUTPUT_MAX bytes. 0 / -2 with *err. */
static int import_log(struct orch *o, const struct import_spec *sp, const struct job_def *def,
		      int64_t id, enum run_outcome *oc, char **err)
{
	struct outcome out = { .o = RUN_OUT_PASSED, .has_exit = 1, .exit_code = 0 };
	struct job_output jo;
	char rel[64], *dir = NULL, *outp = NULL;
	int rc = -2;

	snprintf(rel, sizeof(rel), "%" PRId64 "/imported", id);
	dir = path_join(o->runs_dir, rel);
	outp = dir ? path_join(dir, RUN_FILE_OUTPUT) : NULL;
	if (!outp || mkdir_p(dir, 0755) < 0 || write_file(outp, sp->log, sp->len, 0600) < 0) {
		set_errf(err, "import: '%s': %s", dir ? dir : "?", strerror(errno));
		pthread_mutex_lock(&o->db_lock);
		db_run_set_outcome(o->db, id, "infra", "import: cannot write the log");
		pthread_mutex_unlock(&o->db_lock);
		goto out;
	}
	pthread_mutex_lock(&o->db_lock);
	db_run_started(o->db, id, "imported", NULL, NULL, NULL, dir);
	pthread_mutex_unlock(&o->db_lock);
	if (results_parse(def, id, outp, &jo) == 0) {
		pthread_mutex_lock(&o->db_lock);
		results_store(o, o->db, id, &jo);
		pthread_mutex_unlock(&o->db_lock);
		outcome_from_results(&jo.res, buf_str(&jo.text), &out);
	}
	results_release(&jo);
	pthread_mutex_lock(&o->db_lock);
	db_run_set_outcome(o->db, id, run_outcome_name(out.o), out.detail[0] ? out.detail : NULL);
	/* a job's imported run counts for its tests' flips like any other */
	if (sp->job && *sp->job) {
		struct run r;

		if (db_run_get(o->db, id, &r) == 1) {
			quarantine_update(o->db, &r);
			run_release(&r);
		}
	}
	pthread_mutex_unlock(&o->db_lock);
	*oc = out.o;
	rc = 0;
out:
	free(outp);
	free(dir);
	return rc;
}

int orch_import(struct orch *o, const struct import_spec *sp, int64_t *id, char **err)
{
	struct job_def tmp = { 0 };
	const struct job_def *def;
	struct run_spec spec = { 0 };
	struct run_request req;
	char sha[65], *cmd = NULL;
	enum run_outcome oc = RUN_OUT_NONE;
	int rc = -1;

	*err = NULL;
	if (!sp->log || sp->len > JOB_OUTPUT_MAX)
		return set_errf(err, "log: %s", sp->log ? "larger than 64 MiB" : "missing");
	def = import_def(o, sp, &tmp, err);
	if (!def)
		return -1;
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
	pthread_mutex_lock(&o->db_lock);
	rc = db_run_import(o->db, &req, "passed", NULL, NULL, id);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0 || import_log(o, sp, def, *id, &oc, err) < 0) {
		rc = -2;
		goto out;
	}
	log_info("run %" PRId64 ": imported from '%s' (%s, kernel '%s'): %s", *id,
		 sp->name ? sp->name : "?", def->parser, sp->kernel, run_outcome_name(oc));
	rc = 0;
out:
	free(cmd);
	return rc;
}

/* The mode of a request of repeat runs a side into m: max_runs 0 is the
 * default cap. 0, or -1 with *err */
static int request_mode(int repeat, int until_decided, int max_runs, double margin,
			struct request_mode *m, char **err)
{
	memset(m, 0, sizeof(*m));
	if (!until_decided) {
		if (max_runs)
			return set_errf(err, "max_runs: only with until_decided");
		if (margin)
			return set_errf(err, "margin: only with until_decided (else give it to "
					"the comparison: kfleet compare --margin)");
		return 0;
	}
	if (max_runs && (max_runs < repeat || max_runs > DECIDED_MAX_RUNS_MAX))
		return set_errf(err, "max_runs %d: must be from %d (the first round's runs, "
				"repeat) to %d", max_runs, repeat, DECIDED_MAX_RUNS_MAX);
	if (margin < 0 || margin > CMP_MARGIN_MAX || margin != margin)
		return set_errf(err, "margin %g%%: must be above 0 and at most %g%%",
				margin * 100, CMP_MARGIN_MAX * 100);
	m->until_decided = 1;
	m->max_runs = max_runs ? max_runs :
		      repeat > DECIDED_MAX_RUNS ? repeat : DECIDED_MAX_RUNS;
	m->margin = margin;
	return 0;
}

int orch_submit_request(struct orch *o, const struct run_spec *s, const char *patched,
			int repeat, int64_t *id, char **err)
{
	return orch_submit_request_mode(o, s, patched, repeat, 0, 0, 0, id, err);
}

int orch_submit_request_mode(struct orch *o, const struct run_spec *s, const char *patched,
			     int repeat, int until_decided, int max_runs, double margin,
			     int64_t *id, char **err)
{
	struct run_spec ps = *s;
	struct run_request base, pat;
	struct request_mode m;
	char sha_b[65], sha_p[65];
	int rc;

	*err = NULL;
	if (repeat < 1 || repeat > 100)
		return set_errf(err, "repeat %d: must be from 1 to 100", repeat);
	if (request_mode(repeat, until_decided, max_runs, margin, &m, err) < 0)
		return -1;
	if (!patched || !*patched)
		return set_errf(err, "patched: missing");
	ps.kernel = patched;
	if (prepare(o, s, &base, sha_b, err) < 0 || prepare(o, &ps, &pat, sha_p, err) < 0)
		return -1;
	pthread_mutex_lock(&o->db_lock);
	rc = db_request_insert_mode(o->db, &base, &pat, repeat, &m, id);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0)
		return -2;
	orch_wake(o, &o->work, 1);
	if (m.until_decided)
		log_info("request %" PRId64 ": %d x (base '%s', patched '%s'), interleaved, until "
			 "decided (at most %d a side)", *id, repeat, s->kernel, patched, m.max_runs);
	else
		log_info("request %" PRId64 ": %d x (base '%s', patched '%s'), interleaved", *id,
			 repeat, s->kernel, patched);
	return 0;
}

/* --- trees and series ---------------------------------------------------- */

static int url_ok(const char *u)
{
	static const char *const schemes[] = {
		"https://", "http://", "git://", "ssh://", "file://", NULL,
	};
	struct stat st;

	if (u[0] == '/')
		return stat(u, &st) == 0 && S_ISDIR(st.st_mode);
	for (int i = 0; schemes[i]; i++)
		if (!strncmp(u, schemes[i], strlen(schemes[i])) && u[strlen(schemes[i])])
			return 1;
	return 0;
}

int orch_tree_add(struct orch *o, const char *name, const char *url, const char *branch,
		  char **err)
{
	int rc;

	*err = NULL;
	if (!kbuild_name_ok(name))
		return set_errf(err, "tree name '%.80s': use 1 to %d of A-Z a-z 0-9 . _ - "
				"(not starting with . or -)", name ? name : "", KBUILD_NAME_MAX);
	if (!url || strlen(url) > 4096 || !url_ok(url))
		return set_errf(err, "tree '%s': '%.200s' is neither a directory on the daemon's "
				"machine (an absolute path) nor a git URL (https://, git://, "
				"ssh://, file://)", name, url ? url : "");
	if (branch && (!*branch || branch[0] == '-' || strlen(branch) > 200 ||
		       strpbrk(branch, " \t\n:~^?*[\\")))
		return set_errf(err, "tree '%s': branch '%.200s': not a branch name", name, branch);
	pthread_mutex_lock(&o->db_lock);
	rc = db_tree_add(o->db, name, url, branch);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0)
		return -2;
	if (rc == 1)
		return set_errf(err, "tree '%s': exists already (kfleet tree fetch %s updates it)",
				name, name);
	log_info("tree '%s': added: '%s'%s%s", name, url, branch ? " branch " : "",
		 branch ? branch : "");
	orch_wake(o, &o->build_work, 1);
	return 0;
}

int orch_tree_fetch(struct orch *o, const char *name, char **err)
{
	int rc;

	*err = NULL;
	pthread_mutex_lock(&o->db_lock);
	rc = db_tree_want_fetch(o->db, name);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0)
		return -2;
	if (rc == 0)
		return set_errf(err, "tree '%.80s': no such tree (kfleet trees lists them)", name);
	orch_wake(o, &o->build_work, 1);
	return 0;
}

/* Checks a ',' list against a check function; the list normalised */
static int list_check(const char *what, const char *list, size_t max,
		      int (*check)(struct orch *, const char *, char **), struct orch *o,
		      char **err)
{
	char *dup = strdup(list), *save = NULL;
	size_t n = 0;
	int rc = 0;

	if (!dup)
		return set_errf(err, "out of memory");
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (++n > max) {
			rc = set_errf(err, "%s: more than %zu given", what, max);
			break;
		}
		if (check(o, t, err) < 0) {
			rc = -1;
			break;
		}
	}
	if (!rc && !n)
		rc = set_errf(err, "%s: empty list", what);
	free(dup);
	return rc;
}

static int check_arch(struct orch *o, const char *a, char **err)
{
	(void)o;
	if (strcmp(a, "x86_64") && strcmp(a, "arm64"))
		return set_errf(err, "arch '%.40s': unknown (known: x86_64, arm64)", a);
	return 0;
}

static int check_job(struct orch *o, const char *j, char **err)
{
	if (!job_set_find(&o->jobs, j))
		return set_errf(err, "job '%.80s': no such job (kfleet jobs lists them)", j);
	return 0;
}

static int check_vcpus(struct orch *o, const char *v, char **err)
{
	long long n;

	(void)o;
	if (parse_int(v, 1, 4096, &n) < 0)
		return set_errf(err, "vcpus '%.40s': not a number from 1 to 4096", v);
	return 0;
}

static int check_fragment(struct orch *o, const char *f, char **err)
{
	char *p = NULL;
	int ok;

	if (strstr(f, "..") || !*f)
		return set_errf(err, "config fragment '%.200s': no '..' allowed", f);
	if (f[0] == '/')
		ok = access(f, R_OK) == 0;
	else if (strchr(f, '/'))
		return 0;   /* in the tree: checked when the commit is known */
	else
		ok = asprintf(&p, "%s/%s.config", o->conf->configs_dir, f) >= 0 &&
		     access(p, R_OK) == 0;
	free(p);
	if (!ok)
		return set_errf(err, "config fragment '%.200s': not found (a name in '%s', a path "
				"in the tree, or an absolute file)", f, o->conf->configs_dir);
	return 0;
}

/* A kernel built elsewhere is only tested: no series, no fragments, and
 * one arch, its own (found from the image when none is given) */
static int check_kernel(struct orch *o, const struct submit_spec *sp, const struct series *ser,
			const char **arch, char **err)
{
	char *e = NULL;

	if (orch_path_allowed(o->state_dir, o->db_path, sp->kernel, "kernel", err) < 0)
		return -1;
	if (ser)
		return set_errf(err, "kernel: a kernel built elsewhere is tested as it is: give "
				"no series with it");
	if (!sp->jobs || !*sp->jobs)
		return set_errf(err, "kernel: a kernel built elsewhere is only tested: name the "
				"jobs to run");
	if (sp->fragments && *sp->fragments)
		return set_errf(err, "fragments: a kernel built elsewhere is not built here");
	if (sp->arches && *sp->arches) {
		if (strchr(sp->arches, ','))
			return set_errf(err, "arch '%.40s': a kernel built elsewhere has one arch",
					sp->arches);
		*arch = sp->arches;
	} else if (kimage_check(sp->kernel, "x86_64", &e) == 0) {
		*arch = "x86_64";
		return 0;
	} else {
		free(e);
		e = NULL;
		*arch = "arm64";
	}
	if (kimage_check(sp->kernel, *arch, &e) < 0) {
		set_errf(err, "%s", e ? e : "kernel: cannot be read");
		free(e);
		return -1;
	}
	return 0;
}

/* A submission's vCPU count as its runs take it (submit_check() checked it) */
int builder_vcpus(const char *s)
{
	long long n;

	return parse_int(s, 1, 4096, &n) < 0 ? 0 : (int)n;
}

/* The tree the submission builds: sp's, else the one the series' subject
 * tags name, looked up into *t (released by the caller). 0 / -1 with *err */
static int submit_tree(struct orch *o, const struct submit_spec *sp, const struct series *ser,
		       const char **tree, struct tree_row *t, char **err)
{
	int found;

	*tree = sp->tree;
	if ((!*tree || !**tree) && ser)
		*tree = ser->tree;
	if (!*tree || !**tree)
		return set_errf(err, "tree: none given, and the series' subjects name none");
	pthread_mutex_lock(&o->db_lock);
	found = db_tree_get(o->db, *tree, t);
	pthread_mutex_unlock(&o->db_lock);
	if (found != 1)
		return set_errf(err, found < 0 ? "database error" : sp->tree && *sp->tree ?
				"tree '%.80s': no such tree (kfleet tree add NAME PATH-or-URL)" :
				"tree '%.80s' (from the subject tag): no such tree (kfleet tree add, "
				"or --tree)", *tree);
	return 0;
}

/* The rest of sp checked (base, arches, kernel, jobs, vCPUs, fragments,
 * config, repeats), s->arches and s->config and *mode set: 0 / -1 */
static int submit_check(struct orch *o, const struct submit_spec *sp, const struct series *ser,
			struct submission *s, struct request_mode *mode, char **err)
{
	if (sp->base && (!*sp->base || sp->base[0] == '-' || strlen(sp->base) > 200))
		return set_errf(err, "base '%.80s': not a revision", sp->base);
	s->arches = (char *)(sp->arches && *sp->arches ? sp->arches : o->conf->build_arches);
	s->config = (char *)(sp->config && *sp->config ? sp->config : o->conf->build_config);
	if (sp->kernel && check_kernel(o, sp, ser, (const char **)&s->arches, err) < 0)
		return -1;
	if (list_check("arch", s->arches, 2, check_arch, o, err) < 0 ||
	    (sp->jobs && *sp->jobs &&
	     list_check("jobs", sp->jobs, SUBMIT_LIST_MAX, check_job, o, err) < 0) ||
	    (sp->vcpus && *sp->vcpus &&
	     list_check("vcpus", sp->vcpus, SUBMIT_LIST_MAX, check_vcpus, o, err) < 0) ||
	    (sp->fragments && *sp->fragments &&
	     list_check("fragments", sp->fragments, SUBMIT_LIST_MAX - 2, check_fragment, o,
			err) < 0))
		return -1;
	if (strcmp(s->config, "tinyconfig") && strcmp(s->config, "defconfig") &&
	    strcmp(s->config, "allnoconfig") && (s->config[0] != '/' || access(s->config, R_OK)))
		return set_errf(err, "config '%.200s': not tinyconfig, defconfig, allnoconfig or a "
				"readable file (absolute path)", s->config);
	if (sp->repeat < 0 || sp->repeat > 100)
		return set_errf(err, "repeat %d: must be from 1 to 100", sp->repeat);
	if (request_mode(sp->repeat ? sp->repeat : 1, sp->until_decided, sp->max_runs,
			 sp->margin, mode, err) < 0)
		return -1;
	if (mode->until_decided && !ser)
		return set_errf(err, "until_decided: only with a series (base and patched to "
				"compare)");
	return 0;
}

/* The mbox as sent, stored by content under the state directory for the
 * builder and for the record (*path, *dir), and the series as JSON (*j,
 * *json), into s; the caller frees them. 0 / -2 with *err */
static int submit_store_series(struct orch *o, const struct submit_spec *sp,
			       const struct series *ser, struct submission *s, char **dir,
			       char **path, json_t **j, char **json, char **err)
{
	char hash[65];

	sha256_mem(sp->mbox, sp->mbox_len, hash);
	if (!(*dir = path_join(o->state_dir, "series")) || mkdir_p(*dir, 0755) < 0 ||
	    asprintf(path, "%s/%.16s.mbox", *dir, hash) < 0 ||
	    write_file(*path, sp->mbox, sp->mbox_len, 0600) < 0) {
		set_errf(err, "series: cannot store it under '%s': %s", *dir ? *dir : "?",
			 strerror(errno));
		return -2;
	}
	*j = series_json(ser);
	*json = *j ? json_dumps(*j, JSON_COMPACT) : NULL;
	s->series_name = ser->name;
	s->series_subject = ser->cover ? ser->cover->subject :
			    ser->count ? ser->patches[0].subject : NULL;
	s->series_json = *json;
	s->series_count = ser->count;
	s->mbox_path = *path;
	return 0;
}

int orch_submit_series(struct orch *o, const struct submit_spec *sp, int64_t *id, char **err)
{
	struct submission s;
	struct request_mode mode;
	struct series *ser = NULL;
	struct tree_row t;
	char *dir = NULL, *path = NULL, *json = NULL;
	const char *tree = NULL;
	json_t *j = NULL;
	int rc = -1;

	*err = NULL;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	if (sp->mbox && sp->mbox_len &&
	    series_parse_mem(sp->mbox_name ? sp->mbox_name : "mbox", sp->mbox, sp->mbox_len,
			     &ser, err) < 0)
		goto out;
	if (submit_tree(o, sp, ser, &tree, &t, err) < 0 ||
	    submit_check(o, sp, ser, &s, &mode, err) < 0)
		goto out;
	if (ser && (rc = submit_store_series(o, sp, ser, &s, &dir, &path, &j, &json, err)) < 0)
		goto out;
	s.tree = (char *)tree;
	s.base_spec = (char *)sp->base;
	s.fragments = (char *)sp->fragments;
	s.jobs = (char *)(sp->jobs && *sp->jobs ? sp->jobs : NULL);
	s.vcpus = (char *)(sp->vcpus && *sp->vcpus ? sp->vcpus : NULL);
	s.repeats = sp->repeat ? sp->repeat : 1;
	s.memory_mb = sp->memory_mb;
	s.kernel = (char *)sp->kernel;
	s.speculative = sp->speculative;
	s.watch = (char *)sp->watch;
	pthread_mutex_lock(&o->db_lock);
	rc = db_submission_insert_mode(o->db, &s, &mode);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->db_lock);
	if (rc < 0) {
		rc = -2;
		goto out;
	}
	*id = s.id;
	log_info("submission %" PRId64 ": tree '%s', %s, %s", s.id, tree,
		 ser ? ser->name : sp->kernel ? sp->kernel : "no series", s.arches);
	orch_wake(o, &o->build_work, 1);
out:
	db_row_release(db_tree_fields, &t, sizeof(t));
	series_free(ser);
	json_decref(j);
	free(json);
	free(path);
	free(dir);
	return rc;
}
