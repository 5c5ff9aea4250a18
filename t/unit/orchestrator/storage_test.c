// SPDX-License-Identifier: GPL-2.0-only
/* storage_test.c: one storage pass (orchestrator/storage.c) over a real
 * state directory and database: runs made concluded or left running by
 * hand, their files of known sizes, the shared cache; checks what the pass
 * deletes and records for the retention and for the budget, and what it
 * never touches (a running run, small files, a directory kept aside, the
 * root images, the database). The pass as kfleetd runs it, on real
 * guests, is in t/e2e-run.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <libvirt/virterror.h>
#include <sqlite3.h>

#include "common/log.h"
#include "common/util.h"
#include "db/db.h"
#include "orchestrator/orchestrator.h"
#include "orchestrator/orchint.h"
#include "orchestrator/storage.h"
#include "t/unit/testutil.h"
#include "t/unit/orchestrator/orch_testutil.h"

#define DAY (86400LL * 1000)

struct fx {
	char dir[256];
	char kernel[300];
	struct config c;
	struct orch *o;
	struct db *db;
	int64_t id[3];       /* ended 10 days ago, 1 day ago, running */
};

static void quiet(void *u, virErrorPtr e) { (void)u; (void)e; }

/* A file of n bytes (not sparse) at dir/name, its directories made */
static void put(const char *dir, const char *name, size_t n)
{
	char *p = tu_path(dir, name), *buf = malloc(n ? n : 1);
	const char *sub = strrchr(name, '/');
	char parent[512];

	snprintf(parent, sizeof(parent), "%s/%.*s", dir, sub ? (int)(sub - name) : 0, name);
	mkdir_p(parent, 0755);
	memset(buf, 'k', n);
	tu_write(p, buf, n, 0);
	free(buf);
	free(p);
}

static int exists(const char *dir, const char *name)
{
	char *p = tu_path(dir, name);
	int ok = access(p, F_OK) == 0;

	free(p);
	return ok;
}

static void sql(struct fx *f, const char *q)
{
	sqlite3 *s;
	char *e = NULL;

	assert_int_equal(sqlite3_open(orch_db_path(f->o), &s), SQLITE_OK);
	sqlite3_busy_timeout(s, 5000);
	if (sqlite3_exec(s, q, NULL, NULL, &e) != SQLITE_OK)
		fail_msg("%s: %s", q, e);
	sqlite3_close(s);
}

static char *run_dir(struct fx *f, int i)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "runs/%lld/a1", (long long)f->id[i]);
	return tu_path(f->dir, rel);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char *e = NULL, q[512];

	tu_tmpdir(f->dir, sizeof(f->dir), "storage");
	snprintf(f->kernel, sizeof(f->kernel), "%s/builds", f->dir);
	mkdir(f->kernel, 0755);
	snprintf(f->kernel, sizeof(f->kernel), "%s/builds/bzImage", f->dir);
	otu_fake_bzimage(f->kernel);
	otu_config(&f->c, f->dir);
	f->c.storage_large = 1 << 20;
	free(f->c.hosts[0].pool);
	f->c.hosts[0].pool = strdup("default-pool");   /* the test driver's */
	virSetErrorFunc(NULL, quiet);
	log_set_level(LOG_LVL_WARN);
	f->o = orch_new(&f->c, &e);
	if (!f->o)
		fail_msg("orch_new: %s", e);
	f->db = db_open(orch_db_path(f->o), &e);
	assert_non_null(f->db);
	for (int i = 0; i < 3; i++) {
		struct run_spec s = { .kernel = f->kernel, .arch = "x86_64", .vcpus = 1,
				      .command = "true" };
		char *d;

		if (orch_submit(f->o, &s, &f->id[i], &e) != 0)
			fail_msg("submit: %s", e);
		d = run_dir(f, i);
		put(d, RUN_FILE_INITRD, 300 << 10);
		put(d, RUN_FILE_CONSOLE, 2 << 20);
		put(d, RUN_FILE_OUTPUT, 100);
		put(d, RUN_FILE_XML, 100);
		put(d, RUN_FILE_MANIFEST, 100);
		put(d, RUN_DIR_RESULTS "/big.log", 3 << 20);
		put(d, RUN_DIR_RESULTS "/small.log", 10);
		snprintf(q, sizeof(q), "UPDATE runs SET state = '%s', ended_at = %lld, run_dir = '%s'"
			 " WHERE id = %lld", i < 2 ? "done" : "running",
			 i < 2 ? (long long)(now_ms() - (i ? 1 : 10) * DAY) : 0LL, d,
			 (long long)f->id[i]);
		sql(f, q);
		free(d);
	}
	/* another run's directory kept aside, and the cache */
	snprintf(q, sizeof(q), "%s/runs/%lld/a0.stale-1", f->dir, (long long)f->id[0]);
	put(q, RUN_FILE_INITRD, 300 << 10);
	snprintf(q, sizeof(q), "%s/cache", f->dir);
	put(q, "initramfs-ab.cpio.gz", 500 << 10);
	put(q, "pvh-ef.vmlinux", 600 << 10);           /* a bzImage's kernel (boot = fast) */
	put(q, "pvh-ef.vmlinux.tmp.99", 600 << 10);    /* ... being written */
	put(q, "rootfs-cd.ext4", 2 << 20);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	db_close(f->db);
	orch_free(f->o);
	config_release(&f->c);
	tu_rmrf(f->dir);
	free(f);
	return 0;
}

/* The pruned rows of run i as "name why bytes;" in order */
static void pruned_of(struct fx *f, int i, char *out, size_t n)
{
	struct db_pruned *v = NULL;
	size_t nv = 0, len = 0;

	assert_int_equal(db_pruned_list(f->db, f->id[i], 100, &v, &nv), 0);
	out[0] = '\0';
	for (size_t k = 0; k < nv; k++)
		len += (size_t)snprintf(out + len, n - len, "%s %s %lld;", v[k].name, v[k].why,
					(long long)v[k].bytes);
	db_rows_free(db_pruned_fields, v, sizeof(*v), nv);
}

static void test_retention(void **state)
{
	struct fx *f = *state;
	struct storage_report rep;
	char got[1024], *d0 = run_dir(f, 0), *d1 = run_dir(f, 1), *d2 = run_dir(f, 2);

	f->c.storage_keep_days = 5;
	assert_int_equal(storage_pass(f->o, f->db, &rep), 0);
	pruned_of(f, 0, got, sizeof(got));
	assert_string_equal(got, "initrd.img retention 307200;console.log retention 2097152;"
			    "results/big.log retention 3145728;");
	assert_int_equal(rep.files, 3);
	assert_int_equal(rep.runs, 1);
	assert_false(exists(d0, RUN_FILE_CONSOLE));
	assert_false(exists(d0, "results/big.log"));
	/* small files, the younger run, the running one, the cache stay */
	assert_true(exists(d0, RUN_FILE_OUTPUT) && exists(d0, RUN_FILE_XML));
	assert_true(exists(d0, RUN_FILE_MANIFEST) && exists(d0, "results/small.log"));
	assert_true(exists(d1, RUN_FILE_CONSOLE) && exists(d1, RUN_FILE_INITRD));
	assert_true(exists(d2, RUN_FILE_CONSOLE) && exists(d2, RUN_FILE_INITRD));
	assert_true(exists(f->dir, "cache/initramfs-ab.cpio.gz"));
	assert_true(exists(f->dir, "cache/pvh-ef.vmlinux"));
	/* a second pass finds nothing more */
	assert_int_equal(storage_pass(f->o, f->db, &rep), 0);
	assert_int_equal(rep.files, 0);
	free(d0);
	free(d1);
	free(d2);
}

static void test_budget(void **state)
{
	struct fx *f = *state;
	struct storage_report rep;
	char got[1024], q[600], *d1 = run_dir(f, 1), *d2 = run_dir(f, 2);

	f->c.storage_budget = 1;   /* everything that may go */
	assert_int_equal(storage_pass(f->o, f->db, &rep), 0);
	assert_true(rep.usage > 8 << 20);
	assert_int_equal(rep.files, 8);   /* 3 of each concluded run, the initramfs, the kernel */
	assert_int_equal(rep.cache_files, 2);
	pruned_of(f, 1, got, sizeof(got));
	assert_string_equal(got, "initrd.img budget 307200;results/big.log budget 3145728;"
			    "console.log budget 2097152;");
	assert_false(exists(d1, RUN_FILE_INITRD));
	assert_false(exists(f->dir, "cache/initramfs-ab.cpio.gz"));
	assert_false(exists(f->dir, "cache/pvh-ef.vmlinux"));
	assert_true(exists(f->dir, "cache/pvh-ef.vmlinux.tmp.99"));
	/* never: the running run, small files, the stale directory, root images,
	 * the database */
	pruned_of(f, 2, got, sizeof(got));
	assert_string_equal(got, "");
	assert_true(exists(d2, RUN_FILE_CONSOLE) && exists(d2, RUN_FILE_INITRD));
	assert_true(exists(d1, RUN_FILE_OUTPUT) && exists(d1, "results/small.log"));
	snprintf(q, sizeof(q), "runs/%lld/a0.stale-1/" RUN_FILE_INITRD, (long long)f->id[0]);
	assert_true(exists(f->dir, q));
	assert_true(exists(f->dir, "cache/rootfs-cd.ext4"));
	assert_true(exists(f->dir, "kfleet.db"));
	free(d1);
	free(d2);
}

/* Builds' artifacts and slots' O= directories count in the budget and go
 * whole, least recently used first; never a worktree, a kernel a run not
 * concluded boots, or anything while a build holds them */
static void test_builds_and_slots(void **state)
{
	struct fx *f = *state;
	struct storage_report rep;
	char busy[400], *e = NULL, *top[2];
	int64_t id;

	put(f->dir, "builds/old/vmlinuz", 1 << 20);
	put(f->dir, "builds/old/lib/modules/6.1.0/a.ko", 1 << 20);
	snprintf(busy, sizeof(busy), "%s/builds/busy/vmlinuz", f->dir);
	put(f->dir, "builds/busy/config", 10);
	otu_fake_bzimage(busy);
	put(f->dir, "slots/fake-x86_64-abcdef/obj/vmlinux", 2 << 20);
	put(f->dir, "slots/fake-src/Makefile", 1 << 20);
	{
		struct run_spec s = { .kernel = busy, .arch = "x86_64", .vcpus = 1,
				      .command = "true" };

		if (orch_submit(f->o, &s, &id, &e) != 0)
			fail_msg("submit: %s", e);
	}
	top[0] = tu_path(f->dir, "builds");
	top[1] = tu_path(f->dir, "slots");
	/* a build in progress: none of them (the pass's thread keeps what is
	 * held; with no budget yet, its first pass prunes nothing) */
	assert_int_equal(storage_start(f->o), 0);
	storage_hold(f->o, (const char *const *)top, 2);
	f->c.storage_budget = 1;
	assert_int_equal(storage_pass(f->o, f->db, &rep), 0);
	assert_true(exists(f->dir, "builds/old/vmlinuz"));
	assert_true(exists(f->dir, "slots/fake-x86_64-abcdef/obj/vmlinux"));
	storage_drop(f->o, (const char *const *)top, 2);
	assert_int_equal(storage_pass(f->o, f->db, &rep), 0);
	assert_false(exists(f->dir, "builds/old"));
	assert_false(exists(f->dir, "slots/fake-x86_64-abcdef"));
	assert_true(exists(f->dir, "builds/busy/vmlinuz"));   /* a queued run boots it */
	assert_true(exists(f->dir, "slots/fake-src/Makefile"));
	storage_stop(f->o);
	free(top[0]);
	free(top[1]);
}

static void test_no_policy(void **state)
{
	struct fx *f = *state;
	struct storage_report rep;

	assert_int_equal(storage_pass(f->o, f->db, &rep), 0);
	assert_int_equal(rep.files, 0);
	assert_true(exists(f->dir, "cache/initramfs-ab.cpio.gz"));
}

static int run_over(int64_t id, void *arg)
{
	struct fx *f = arg;

	return id == f->id[0] || id == f->id[1];
}

static void make_vol(virStoragePoolPtr p, const char *name)
{
	char xml[1024];
	virStorageVolPtr v;

	snprintf(xml, sizeof(xml), "<volume><name>%s</name><capacity>1024</capacity></volume>",
		 name);
	v = virStorageVolCreateXML(p, xml, 0);
	if (!v)
		fail_msg("volume '%s' not made", name);
	virStorageVolFree(v);
}

static int has_vol(virStoragePoolPtr p, const char *name)
{
	virStorageVolPtr v = virStorageVolLookupByName(p, name);

	if (v)
		virStorageVolFree(v);
	return v != NULL;
}

/* What upload_drop() missed on a host reached by upload: the volumes of
 * runs that are over go, a running run's and any other name stay, and
 * what stays is counted for kfleet hosts */
static void test_sweep_volumes(void **state)
{
	struct fx *f = *state;
	struct host *h = &f->o->hosts[0];
	virStoragePoolPtr p = virStoragePoolLookupByName(h->conn, "default-pool");
	char n[6][96];

	assert_non_null(p);
	snprintf(n[0], sizeof(n[0]), "kf-%s-%lld-initrd", f->o->instance, (long long)f->id[0]);
	snprintf(n[1], sizeof(n[1]), "kf-%s-%lld-root.qcow2", f->o->instance, (long long)f->id[1]);
	snprintf(n[2], sizeof(n[2]), "kf-%s-%lld-initrd", f->o->instance, (long long)f->id[2]);
	snprintf(n[3], sizeof(n[3]), "kf-other-%lld-initrd", (long long)f->id[0]);
	snprintf(n[4], sizeof(n[4]), "kernel-%s", "ab12");
	snprintf(n[5], sizeof(n[5]), "kf-%s-%lld-initrd.bak", f->o->instance, (long long)f->id[0]);
	for (int i = 0; i < 6; i++)
		make_vol(p, n[i]);
	assert_int_equal(upload_sweep(f->o, h, run_over, f), 2);
	/* what kfleet hosts shows of the pool: what is left, by kind */
	assert_int_equal(h->pool_seen.kernels, 1);
	assert_int_equal(h->pool_seen.run_files, 3);
	assert_int_equal(h->pool_seen.images, 0);
	assert_true(h->pool_seen.at > 0);
	assert_false(has_vol(p, n[0]));
	assert_false(has_vol(p, n[1]));
	for (int i = 2; i < 6; i++)
		assert_true(has_vol(p, n[i]));
	for (int i = 2; i < 6; i++) {
		virStorageVolPtr v = virStorageVolLookupByName(p, n[i]);

		virStorageVolDelete(v, 0);
		virStorageVolFree(v);
	}
	virStoragePoolFree(p);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_retention),
		T(test_budget),
		T(test_builds_and_slots),
		T(test_no_policy),
		T(test_sweep_volumes),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
