// SPDX-License-Identifier: GPL-2.0-only
/* submit_test.c: unit tests for how work enters the orchestrator
 * (orchestrator/submit.c: runs, requests, imports, trees and series), its
 * life (orch.c: start-up recovery, a bad state directory), the builder's
 * pure parts (builder_vcpus, the paths it shares with runs in paths.c) and
 * the capabilities' vCPU count guest.c reads. The orchestrator runs on
 * libvirt's test:///default driver; no worker is started unless a test
 * says so, so queued runs stay queued. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pwd.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "config/config.h"
#include "orchestrator/orchestrator.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"
#include "t/unit/orchestrator/orch_testutil.h"

struct fx {
	char dir[256];
	char kdir[256];               /* outside the state directory */
	char kernel[300];
	struct config c;
	struct orch *o;
	struct db *db;
};

static void quiet(void *u, virErrorPtr e) { (void)u; (void)e; }

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *e = NULL;

	tu_tmpdir(f->dir, sizeof(f->dir), "submit");
	tu_tmpdir(f->kdir, sizeof(f->kdir), "submitk");
	snprintf(f->kernel, sizeof(f->kernel), "%s/bzImage", f->kdir);
	otu_fake_bzimage(f->kernel);
	otu_config(&f->c, f->dir);
	free(f->c.job_dirs);
	f->c.job_dirs = strdup("jobs/defs");
	virSetErrorFunc(NULL, quiet);
	log_set_level(LOG_LVL_ERROR);
	f->o = orch_new(&f->c, &e);
	if (!f->o)
		fail_msg("orch_new: %s", e);
	f->db = db_open(orch_db_path(f->o), &e);
	assert_non_null(f->db);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	orch_free(f->o);
	db_close(f->db);
	config_release(&f->c);
	tu_rmrf(f->dir);
	tu_rmrf(f->kdir);
	free(f);
	return 0;
}

/* The call returned rc with an error (*errp, freed) that holds want */
static void refused(int rc, int want_rc, char **errp, const char *want)
{
	char *err = *errp;

	*errp = NULL;
	if (rc != want_rc)
		fail_msg("returned %d, not %d (%s), want '%s'", rc, want_rc, err ? err : "",
			 want);
	if (!err || !strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err ? err : "(none)", want);
	free(err);
}

/* --- runs ----------------------------------------------------------------- */

static void test_submit_refusals(void **state)
{
	struct fx *f = *state;
	static const struct {
		struct run_spec s;
		const char *want;
	} cases[] = {
		{ { .arch = "sparc", .command = "true" }, "arch 'sparc': unknown" },
		{ { .job = "no-such-job" }, "job 'no-such-job': no such job" },
		{ { .job = "kselftest-size", .command = "true" }, "give a job or a command, not both" },
		{ { .command = "" }, "command: empty" },
		{ { .command = "true" }, "kernel: missing" },
		{ { .command = "true", .vcpus = 100000 }, "vcpus 100000: must be from 1 to" },
		{ { .command = "true", .memory_mb = 32 }, "memory 32 MiB: must be from 64" },
		{ { .command = "true", .vcpus = 2, .topology = "1:1:1" }, "topology '1:1:1'" },
		{ { .command = "true", .vcpus = 2, .topology = "1:2" }, "topology '1:2'" },
		/* 2^32 + 1 wraps to 1 in an unsigned: each field is range-checked */
		{ { .command = "true", .vcpus = 1, .topology = "4294967297:1:1" },
		  "topology '4294967297:1:1'" },
		{ { .command = "true", .vcpus = 1, .topology = "+1:1:1" }, "topology '+1:1:1'" },
		{ { .command = "true", .vcpus = 1, .topology = "1:1:1:" }, "topology '1:1:1:'" },
		{ { .command = "true", .vcpus = 3, .numa_nodes = 2 }, "numa 2: the 3 vCPUs" },
		{ { .command = "true", .timeout_s = 8 * 86400 }, "timeout 691200 s" },
		{ { .job = "kselftest-size" }, "needs the kselftest target 'size'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run_spec s = cases[i].s;
		int64_t id = -1;
		char *e = NULL;

		if (strcmp(cases[i].want, "kernel: missing"))
			s.kernel = f->kernel;
		refused(orch_submit(f->o, &s, &id, &e), -1, &e, cases[i].want);
		assert_int_equal(id, -1);
	}
}

static void test_submit_queues(void **state)
{
	struct fx *f = *state;
	struct run_spec s = { .kernel = f->kernel, .command = "echo hi", .vcpus = 2,
			      .topology = "1:2:1" };
	struct run r;
	int64_t id = 0;
	char *e = NULL;

	assert_int_equal(orch_submit(f->o, &s, &id, &e), 0);
	assert_true(id > 0);
	assert_int_equal(db_run_get(f->db, id, &r), 1);
	assert_string_equal(run_state_name(r.state), "queued");
	assert_string_equal(r.arch, "x86_64");
	assert_string_equal(r.command, "echo hi");
	assert_int_equal(r.vcpus, 2);
	assert_int_equal(r.memory_mb, f->c.run_memory_mb);
	assert_int_equal(r.timeout_s, f->c.run_timeout_s);
	assert_string_equal(r.topology, "1:2:1");
	run_release(&r);
}

static void test_request(void **state)
{
	struct fx *f = *state;
	struct run_spec s = { .kernel = f->kernel, .command = "true" };
	char patched[320];
	struct request rq;
	int64_t id = 0;
	char *e = NULL;

	snprintf(patched, sizeof(patched), "%s/bzImage.patched", f->kdir);
	otu_fake_bzimage(patched);
	refused(orch_submit_request(f->o, &s, patched, 0, &id, &e), -1, &e, "repeat 0");
	refused(orch_submit_request(f->o, &s, patched, 101, &id, &e), -1, &e, "repeat 101");
	refused(orch_submit_request(f->o, &s, NULL, 1, &id, &e), -1, &e, "patched: missing");
	refused(orch_submit_request(f->o, &s, "/nonexistent/bzImage", 1, &id, &e), -1, &e,
		"/nonexistent/bzImage");
	assert_int_equal(orch_submit_request(f->o, &s, patched, 3, &id, &e), 0);
	assert_int_equal(db_request_get(f->db, id, &rq), 1);
	assert_int_equal(rq.repeats, 3);
	assert_int_equal(rq.nruns, 6);
	request_release(&rq);
}

/* --- imports -------------------------------------------------------------- */

static void test_import(void **state)
{
	struct fx *f = *state;
	static const char ktap[] = "TAP version 13\n1..2\nok 1 first\nnot ok 2 second\n";
	struct import_spec sp = { .kernel = f->kernel, .parser = "ktap", .name = "ci-42",
				  .log = ktap, .len = sizeof(ktap) - 1 };
	struct result_row *rows = NULL;
	size_t n = 0;
	int64_t counts[7], id = 0;
	struct run r;
	char *e = NULL, *path, *text;

	sp.log = NULL;
	refused(orch_import(f->o, &sp, &id, &e), -1, &e, "log: missing");
	sp.log = ktap;
	sp.parser = "junit";
	refused(orch_import(f->o, &sp, &id, &e), -1, &e, "parser 'junit'");
	sp.parser = NULL;
	sp.job = "nope";
	refused(orch_import(f->o, &sp, &id, &e), -1, &e, "job 'nope': no such job");
	sp.job = NULL;
	sp.parser = "ktap";
	assert_int_equal(orch_import(f->o, &sp, &id, &e), 0);
	assert_int_equal(db_run_get(f->db, id, &r), 1);
	assert_string_equal(run_state_name(r.state), "done");
	assert_string_equal(run_outcome_name(r.outcome), "failed");
	assert_non_null(strstr(r.detail, "1 of 2 results did not pass, the first: second"));
	assert_non_null(strstr(r.command, "imported from ci-42"));
	assert_non_null(r.run_dir);
	path = tu_path(r.run_dir, RUN_FILE_OUTPUT);
	text = tu_slurp(path, NULL);
	assert_string_equal(text, ktap);
	free(text);
	free(path);
	run_release(&r);
	assert_int_equal(db_run_results(f->db, id, 10, &rows, &n, counts), 0);
	assert_int_equal(n, 2);
	assert_int_equal(counts[0], 1);
	assert_int_equal(counts[1], 1);
	result_rows_free(rows, n);
}

/* --- trees and series ----------------------------------------------------- */

static void test_trees(void **state)
{
	struct fx *f = *state;
	struct tree_row t;
	char *e = NULL;

	refused(orch_tree_add(f->o, "-bad", f->dir, NULL, &e), -1, &e, "tree name '-bad'");
	refused(orch_tree_add(f->o, "t", "ftp://x", NULL, &e), -1, &e, "neither a directory");
	refused(orch_tree_add(f->o, "t", "/nonexistent-dir", NULL, &e), -1, &e,
		"neither a directory");
	refused(orch_tree_add(f->o, "t", f->dir, "a b", &e), -1, &e, "branch 'a b'");
	refused(orch_tree_fetch(f->o, "t", &e), -1, &e, "tree 't': no such tree");
	assert_int_equal(orch_tree_add(f->o, "t", f->dir, "main", &e), 0);
	refused(orch_tree_add(f->o, "t", f->dir, NULL, &e), -1, &e, "exists already");
	assert_int_equal(orch_tree_fetch(f->o, "t", &e), 0);
	assert_int_equal(db_tree_get(f->db, "t", &t), 1);
	assert_string_equal(t.url, f->dir);
	assert_string_equal(t.branch, "main");
	assert_true(t.fetch_wanted);
	db_row_release(db_tree_fields, &t, sizeof(t));
}

static void test_series_refusals(void **state)
{
	struct fx *f = *state;
	static const struct {
		struct submit_spec s;
		const char *want;
	} cases[] = {
		{ { .tree = NULL }, "tree: none given" },
		{ { .tree = "other" }, "tree 'other': no such tree" },
		{ { .tree = "t", .arches = "x86_64,mips" }, "arch 'mips': unknown" },
		{ { .tree = "t", .jobs = "nope" }, "job 'nope': no such job" },
		{ { .tree = "t", .vcpus = "1,x" }, "vcpus 'x': not a number" },
		{ { .tree = "t", .vcpus = "4097" }, "vcpus '4097'" },
		{ { .tree = "t", .fragments = "../etc" }, "no '..' allowed" },
		{ { .tree = "t", .config = "myconfig" }, "config 'myconfig'" },
		{ { .tree = "t", .repeat = 101 }, "repeat 101" },
		{ { .tree = "t", .base = "-x" }, "base '-x': not a revision" },
	};
	char *e = NULL;

	assert_int_equal(orch_tree_add(f->o, "t", f->dir, NULL, &e), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t id = -1;

		refused(orch_submit_series(f->o, &cases[i].s, &id, &e), -1, &e, cases[i].want);
		assert_int_equal(id, -1);
	}
}

static void test_series_queued(void **state)
{
	struct fx *f = *state;
	struct submit_spec s = { .tree = "t", .arches = "x86_64", .vcpus = "1,2", .repeat = 2 };
	struct submission sub;
	int64_t id = 0;
	char *e = NULL;

	assert_int_equal(orch_tree_add(f->o, "t", f->dir, NULL, &e), 0);
	assert_int_equal(orch_submit_series(f->o, &s, &id, &e), 0);
	assert_int_equal(db_submission_get(f->db, id, &sub), 1);
	assert_string_equal(sub.tree, "t");
	assert_string_equal(sub.arches, "x86_64");
	assert_string_equal(sub.vcpus, "1,2");
	assert_int_equal(sub.repeats, 2);
	assert_string_equal(sub.config, f->c.build_config);
	db_row_release(db_submission_fields, &sub, sizeof(sub));
}

/* The builder thread takes the submission of a tree that cannot be
 * cloned (a directory that is no git repository) and ends it failed */
static void test_builder_fails_clone(void **state)
{
	struct fx *f = *state;
	struct submit_spec s = { .tree = "t", .arches = "x86_64" };
	struct submission sub;
	char empty[300];
	int64_t id = 0;
	char *e = NULL;

	snprintf(empty, sizeof(empty), "%s/not-a-repo", f->dir);
	assert_int_equal(mkdir_p(empty, 0755), 0);
	assert_int_equal(orch_tree_add(f->o, "t", empty, NULL, &e), 0);
	assert_int_equal(orch_submit_series(f->o, &s, &id, &e), 0);
	assert_int_equal(orch_start(f->o), 0);
	for (int i = 0; i < 600; i++) {
		assert_int_equal(db_submission_get(f->db, id, &sub), 1);
		if (!strcmp(sub.state, "failed"))
			break;
		db_row_release(db_submission_fields, &sub, sizeof(sub));
		usleep(50000);
	}
	assert_string_equal(sub.state, "failed");
	assert_string_equal(sub.outcome, "error");
	assert_non_null(sub.detail);
	db_row_release(db_submission_fields, &sub, sizeof(sub));
}

/* --- the orchestrator's life ---------------------------------------------- */

/* A run a dead daemon left running is requeued at the next start */
static void test_recovery(void **state)
{
	struct fx *f = *state;
	struct run_spec s = { .kernel = f->kernel, .command = "true" };
	struct claim_fit fit = { .max_vcpus_x86_64 = 8, .max_memory_mb = 1 << 20 };
	struct run r;
	int64_t id = 0;
	char *e = NULL;

	assert_int_equal(orch_submit(f->o, &s, &id, &e), 0);
	assert_int_equal(db_run_claim_fit(f->db, f->c.hosts[0].name, &fit, &r), 1);
	assert_int_equal(r.id, id);
	run_release(&r);
	orch_free(f->o);
	f->o = orch_new(&f->c, &e);
	if (!f->o)
		fail_msg("orch_new: %s", e);
	assert_int_equal(db_run_get(f->db, id, &r), 1);
	assert_string_equal(run_state_name(r.state), "queued");
	assert_int_equal(r.attempt, 1);
	assert_non_null(strstr(r.detail, "in flight"));
	run_release(&r);
	assert_non_null(orch_jobs(f->o));
	assert_true(orch_jobs(f->o)->n > 0);
}

static void test_bad_state_dir(void **state)
{
	struct fx *f = *state;
	char file[300], *e = NULL;
	struct config c;

	snprintf(file, sizeof(file), "%s/a-file", f->dir);
	tu_write_str(file, "x");
	assert_int_equal(config_defaults(&c), 0);
	free(c.state_dir);
	if (asprintf(&c.state_dir, "%s/sub", file) < 0)
		fail_msg("out of memory");
	assert_null(orch_new(&c, &e));
	assert_non_null(e);
	assert_non_null(strstr(e, "state directory"));
	free(e);
	config_release(&c);
}

/* A state directory with runs but no database, or with a damaged one, is
 * refused at start, saying why and how to start fresh */
static void test_lost_or_damaged_db(void **state)
{
	struct fx *f = *state;
	char dir[300], p[400], *e = NULL;
	struct config c;
	struct orch *o;
	struct db *db;
	struct stat st;
	FILE *fp;

	snprintf(dir, sizeof(dir), "%s/state2", f->dir);
	otu_config(&c, dir);
	o = orch_new(&c, &e);
	assert_non_null(o);
	orch_free(o);
	/* the database is private */
	snprintf(p, sizeof(p), "%s/kfleet.db", dir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	/* a run's directory, then the database gone */
	snprintf(p, sizeof(p), "%s/runs/1", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	snprintf(p, sizeof(p), "%s/kfleet.db", dir);
	assert_int_equal(unlink(p), 0);
	assert_null(orch_new(&c, &e));
	assert_non_null(strstr(e, "1 run directory under runs/ but no kfleet.db"));
	assert_non_null(strstr(e, "to start fresh"));
	free(e);
	e = NULL;
	assert_int_equal(stat(p, &st), -1);   /* and none was made */
	/* emptied */
	tu_write(p, "", 0, 0);
	assert_null(orch_new(&c, &e));
	assert_non_null(strstr(e, "kfleet.db is empty"));
	free(e);
	e = NULL;
	unlink(p);
	snprintf(p, sizeof(p), "%s/runs/1", dir);
	rmdir(p);
	/* a database damaged mid-file: rows over several pages, then a page's
	 * bytes overwritten */
	snprintf(p, sizeof(p), "%s/kfleet.db", dir);
	db = db_open(p, &e);
	assert_non_null(db);
	assert_int_equal(sqlite3_exec(db_sqlite(db), "PRAGMA wal_checkpoint(TRUNCATE);"
				      "CREATE TABLE filler (x TEXT);"
				      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
				      "WHERE i < 2000) INSERT INTO filler SELECT printf('%0200d', i) "
				      "FROM n; PRAGMA wal_checkpoint(TRUNCATE);", NULL, NULL, NULL),
			 SQLITE_OK);
	db_close(db);
	assert_int_equal(stat(p, &st), 0);
	assert_true(st.st_size > 16 * 4096);
	fp = fopen(p, "r+");
	assert_non_null(fp);
	fseek(fp, 12 * 4096, SEEK_SET);
	for (int i = 0; i < 3000; i++)
		fputc(0xa5, fp);
	fclose(fp);
	assert_null(orch_new(&c, &e));
	assert_non_null(e);
	assert_non_null(strstr(e, "is damaged"));
	free(e);
	config_release(&c);
}

/* A state directory under a 0700 directory: QEMU (libvirt-qemu) cannot
 * reach it, and the check names the directory that blocks it */
static void test_qemu_reach(void **state)
{
	struct fx *f = *state;
	char top[300], sd[400], *e = NULL;
	struct config c;

	if (!getpwnam("libvirt-qemu")) {
		skip();
		return;
	}
	snprintf(top, sizeof(top), "%s/private", f->dir);
	assert_int_equal(mkdir(top, 0700), 0);
	snprintf(sd, sizeof(sd), "%s/not-yet/var", top);
	chmod(f->dir, 0755);
	assert_int_equal(config_defaults(&c), 0);
	free(c.state_dir);
	c.state_dir = strdup(sd);
	assert_int_equal(orch_qemu_reach(&c, &e), -1);
	if (!strstr(e, "cannot enter '"))
		fail_msg("%s", e);
	assert_non_null(strstr(e, "/private' (mode 0700"));
	free(e);
	e = NULL;
	/* orch_new refuses the same, before a database is made */
	assert_null(orch_new(&c, &e));
	assert_non_null(strstr(e, "QEMU runs as 'libvirt-qemu'"));
	free(e);
	e = NULL;
	chmod(top, 0711);
	assert_int_equal(orch_qemu_reach(&c, &e), 0);
	/* a host that uploads its files needs no path */
	chmod(top, 0700);
	free(c.hosts[0].transfer);
	c.hosts[0].transfer = strdup("upload");
	assert_int_equal(orch_qemu_reach(&c, &e), 0);
	config_release(&c);
}

/* --- pure parts ----------------------------------------------------------- */

static void test_builder_vcpus(void **state)
{
	(void)state;
	assert_int_equal(builder_vcpus("4"), 4);
	assert_int_equal(builder_vcpus("4096"), 4096);
	assert_int_equal(builder_vcpus("0"), 0);
	assert_int_equal(builder_vcpus("4097"), 0);
	assert_int_equal(builder_vcpus("4x"), 0);
	assert_int_equal(builder_vcpus(" 4"), 0);
	assert_int_equal(builder_vcpus("-2"), 0);
	assert_int_equal(builder_vcpus(""), 0);
}

static void test_paths(void **state)
{
	struct fx *f = *state;
	char kb[320], sum[65], want[400], *p;

	snprintf(kb, sizeof(kb), "%s/builds/KEY/bzImage", f->dir);
	p = orch_selftests_path(f->dir, kb, NULL, "bpf");
	snprintf(want, sizeof(want), "%s/builds/KEY/kselftest-bpf.cpio.gz", f->dir);
	assert_string_equal(p, want);
	free(p);
	/* a kernel built elsewhere: by its content */
	assert_int_equal(sha256_file(f->kernel, sum), 0);
	p = orch_selftests_path(f->dir, f->kernel, NULL, "size");
	snprintf(want, sizeof(want), "%s/selftests/%.16s/kselftest-size.cpio.gz", f->dir, sum);
	assert_string_equal(p, want);
	free(p);
	p = orch_selftests_path(f->dir, f->kernel, "0123456789abcdef0123", "size");
	snprintf(want, sizeof(want), "%s/selftests/0123456789abcdef/kselftest-size.cpio.gz",
		 f->dir);
	assert_string_equal(p, want);
	free(p);
	assert_null(orch_selftests_path(f->dir, "bzImage", NULL, "size"));
	assert_null(orch_selftests_path(f->dir, "/nonexistent/bzImage", NULL, "size"));
	p = orch_program_path(&f->c, "arm64", "wl");
	snprintf(want, sizeof(want), "%s/arm64/wl", f->c.programs_dir);
	assert_string_equal(p, want);
	free(p);
}

static void test_caps_max_vcpus(void **state)
{
	(void)state;
	assert_int_equal(guest_caps_max_vcpus("<domainCapabilities><vcpu max='255'/>"), 255);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='4096'/>"), 4096);
	assert_int_equal(guest_caps_max_vcpus(NULL), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='x'/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='12x'/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='-1'/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='0'/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max=''/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='99999999999999999999'/>"), 0);
	assert_int_equal(guest_caps_max_vcpus("<vcpu max='255"), 0);
}

/* A request's kernel is never the database (by inode), never in the state
 * directory but builds/, and never a FIFO; all refused before anything
 * opens the file (kimage_check would say "not a kernel image") */
static void test_kernel_paths_refused(void **state)
{
	struct fx *f = *state;
	char p[600], ln[600];
	struct run_spec s = { .command = "true" };
	int64_t id = -1;
	char *e = NULL;

	s.kernel = orch_db_path(f->o);
	refused(orch_submit(f->o, &s, &id, &e), -1, &e, "is kfleetd's database");
	/* a hard link elsewhere is the same file */
	snprintf(ln, sizeof(ln), "%s/innocent", f->kdir);
	assert_int_equal(link(orch_db_path(f->o), ln), 0);
	s.kernel = ln;
	refused(orch_submit(f->o, &s, &id, &e), -1, &e, "is kfleetd's database");
	/* a symbolic link into the state directory */
	snprintf(ln, sizeof(ln), "%s/sym", f->kdir);
	snprintf(p, sizeof(p), "%s/some-file", f->dir);
	otu_fake_bzimage(p);
	assert_int_equal(symlink(p, ln), 0);
	s.kernel = ln;
	refused(orch_submit(f->o, &s, &id, &e), -1, &e, "inside kfleetd's state directory");
	snprintf(p, sizeof(p), "%s/builds", f->dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/builds/../some-file", f->dir);
	s.kernel = p;
	refused(orch_submit(f->o, &s, &id, &e), -1, &e, "inside kfleetd's state directory");
	/* not a regular file: a FIFO would block the read */
	snprintf(p, sizeof(p), "%s/fifo", f->kdir);
	assert_int_equal(mkfifo(p, 0600), 0);
	s.kernel = p;
	refused(orch_submit(f->o, &s, &id, &e), -1, &e, "not a regular file");
	s.kernel = "/nonexistent/bzImage";
	refused(orch_submit(f->o, &s, &id, &e), -1, &e, "No such file");
	/* a kernel kfleet built is taken */
	snprintf(p, sizeof(p), "%s/builds/KEY", f->dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/builds/KEY/bzImage", f->dir);
	otu_fake_bzimage(p);
	s.kernel = p;
	assert_int_equal(orch_submit(f->o, &s, &id, &e), 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_submit_refusals),
		T(test_submit_queues),
		T(test_request),
		T(test_import),
		T(test_trees),
		T(test_series_refusals),
		T(test_series_queued),
		T(test_builder_fails_clone),
		T(test_recovery),
		T(test_bad_state_dir),
		T(test_lost_or_damaged_db),
		T(test_qemu_reach),
		cmocka_unit_test(test_builder_vcpus),
		T(test_paths),
		T(test_kernel_paths_refused),
		cmocka_unit_test(test_caps_max_vcpus),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
