/* submit.c: how trees and series enter kfleet. Both are checked here,
 * while the user waits for the answer (a tree name or URL that cannot
 * work, an mbox that is not a complete series, a job or arch kfleet does
 * not have), stored, and handed to the builder thread. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "kernels/kernels.h"

#define SUBMIT_LIST_MAX 16

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
	pthread_mutex_lock(&o->lock);
	rc = db_tree_add(o->db, name, url, branch);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->lock);
	if (rc < 0)
		return -2;
	if (rc == 1)
		return set_errf(err, "tree '%s': exists already (kfleet tree fetch %s updates it)",
				name, name);
	log_info("tree '%s': added: '%s'%s%s", name, url, branch ? " branch " : "",
		 branch ? branch : "");
	builder_kick(o);
	return 0;
}

int orch_tree_fetch(struct orch *o, const char *name, char **err)
{
	int rc;

	*err = NULL;
	pthread_mutex_lock(&o->lock);
	rc = db_tree_want_fetch(o->db, name);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->lock);
	if (rc < 0)
		return -2;
	if (rc == 0)
		return set_errf(err, "tree '%.80s': no such tree (kfleet trees lists them)", name);
	builder_kick(o);
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
static int check_kernel(const struct submit_spec *sp, const struct series *ser,
			const char **arch, char **err)
{
	char *e = NULL;

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

int orch_submit_series(struct orch *o, const struct submit_spec *sp, int64_t *id, char **err)
{
	struct submission s;
	struct series *ser = NULL;
	struct tree_row t;
	char hash[65], *dir = NULL, *path = NULL, *json = NULL;
	const char *tree = sp->tree;
	json_t *j = NULL;
	int rc = -1, found;

	*err = NULL;
	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	if (sp->mbox && sp->mbox_len) {
		if (series_parse_mem(sp->mbox_name ? sp->mbox_name : "mbox", sp->mbox, sp->mbox_len,
				     &ser, err) < 0)
			goto out;
		if (!tree || !*tree)
			tree = ser->tree;
	}
	if (!tree || !*tree) {
		set_errf(err, "tree: none given, and the series' subjects name none");
		goto out;
	}
	pthread_mutex_lock(&o->lock);
	found = db_tree_get(o->db, tree, &t);
	pthread_mutex_unlock(&o->lock);
	if (found != 1) {
		set_errf(err, found < 0 ? "database error" : sp->tree && *sp->tree ?
			 "tree '%.80s': no such tree (kfleet tree add NAME PATH-or-URL)" :
			 "tree '%.80s' (from the subject tag): no such tree (kfleet tree add, "
			 "or --tree)", tree);
		goto out;
	}
	if (sp->base && (!*sp->base || sp->base[0] == '-' || strlen(sp->base) > 200)) {
		set_errf(err, "base '%.80s': not a revision", sp->base);
		goto out;
	}
	s.arches = (char *)(sp->arches && *sp->arches ? sp->arches : o->conf->build_arches);
	s.config = (char *)(sp->config && *sp->config ? sp->config : o->conf->build_config);
	if (sp->kernel && check_kernel(sp, ser, (const char **)&s.arches, err) < 0)
		goto out;
	if (list_check("arch", s.arches, 2, check_arch, o, err) < 0 ||
	    (sp->jobs && *sp->jobs &&
	     list_check("jobs", sp->jobs, SUBMIT_LIST_MAX, check_job, o, err) < 0) ||
	    (sp->vcpus && *sp->vcpus &&
	     list_check("vcpus", sp->vcpus, SUBMIT_LIST_MAX, check_vcpus, o, err) < 0) ||
	    (sp->fragments && *sp->fragments &&
	     list_check("fragments", sp->fragments, SUBMIT_LIST_MAX - 2, check_fragment, o,
			err) < 0))
		goto out;
	if (strcmp(s.config, "tinyconfig") && strcmp(s.config, "defconfig") &&
	    strcmp(s.config, "allnoconfig") && (s.config[0] != '/' || access(s.config, R_OK))) {
		set_errf(err, "config '%.200s': not tinyconfig, defconfig, allnoconfig or a "
			 "readable file (absolute path)", s.config);
		goto out;
	}
	if (sp->repeat < 0 || sp->repeat > 100) {
		set_errf(err, "repeat %d: must be from 1 to 100", sp->repeat);
		goto out;
	}
	if (ser) {
		/* the mbox as sent, by content, for the builder and for the record */
		sha256_mem(sp->mbox, sp->mbox_len, hash);
		if (!(dir = path_join(o->state_dir, "series")) || mkdir_p(dir, 0755) < 0 ||
		    asprintf(&path, "%s/%.16s.mbox", dir, hash) < 0 ||
		    write_file(path, sp->mbox, sp->mbox_len, 0644) < 0) {
			set_errf(err, "series: cannot store it under '%s': %s", dir ? dir : "?",
				 strerror(errno));
			rc = -2;
			goto out;
		}
		j = series_json(ser);
		json = j ? json_dumps(j, JSON_COMPACT) : NULL;
		s.series_name = ser->name;
		s.series_subject = ser->cover ? ser->cover->subject :
				   ser->count ? ser->patches[0].subject : NULL;
		s.series_json = json;
		s.series_count = ser->count;
		s.mbox_path = path;
	}
	s.tree = (char *)tree;
	s.base_spec = (char *)sp->base;
	s.fragments = (char *)sp->fragments;
	s.jobs = (char *)(sp->jobs && *sp->jobs ? sp->jobs : NULL);
	s.vcpus = (char *)(sp->vcpus && *sp->vcpus ? sp->vcpus : NULL);
	s.repeats = sp->repeat ? sp->repeat : 1;
	s.memory_mb = sp->memory_mb;
	s.kernel = (char *)sp->kernel;
	pthread_mutex_lock(&o->lock);
	rc = db_submission_insert(o->db, &s);
	if (rc < 0)
		set_errf(err, "database: %s", db_errmsg(o->db));
	pthread_mutex_unlock(&o->lock);
	if (rc < 0) {
		rc = -2;
		goto out;
	}
	*id = s.id;
	log_info("submission %" PRId64 ": tree '%s', %s, %s", s.id, tree,
		 ser ? ser->name : sp->kernel ? sp->kernel : "no series", s.arches);
	builder_kick(o);
out:
	db_row_release(db_tree_fields, &t, sizeof(t));
	series_free(ser);
	json_decref(j);
	free(json);
	free(path);
	free(dir);
	return rc;
}
