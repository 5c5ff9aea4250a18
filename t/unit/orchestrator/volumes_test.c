// SPDX-License-Identifier: GPL-2.0-only
/* volumes_test.c: unit tests for orchestrator/volumes.c, guest files as
 * libvirt storage volumes. Name and argument checks need no libvirt. The
 * rest runs against the real qemu:///system in a pool kfleet-ut-PID at a
 * fresh directory under /tmp, removed with the pool at the end whatever
 * happened: sparse uploads and downloads compared byte for byte, an upload
 * of what is there already (not sent again), a broken volume (replaced),
 * concurrent uploads of one name, a qcow2 overlay on an ext4 image checked
 * with qemu-img, deletes. KFLEET_SKIP_LIBVIRT=1 skips those; without it a
 * libvirtd that cannot be reached is a failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "common/buf.h"
#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"
#include "orchestrator/volumes.h"
#include "t/unit/testutil.h"

#define MIB (1024LL * 1024)

static void assert_contains(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		fail_msg("'%s' does not contain '%s'", text ? text : "(null)", want);
}

/* ---- names and arguments, no libvirt (conn is NULL: nothing may reach it) */

/* *err is read here, after the call in the argument list has set it */
static void assert_refused(int rc, char **err, const char *want)
{
	assert_int_equal(rc, -1);
	assert_contains(*err, want);
	free(*err);
	*err = NULL;
}

static void test_names(void **state)
{
	char *e = NULL, *p;
	char long_name[300];

	(void)state;
	p = vol_upload(NULL, "kfleet", "a/b", "/etc/hostname", 10, &e);
	assert_null(p);
	assert_refused(-1, &e, "volume name 'a/b': only letters, digits, '.', '_' and '-' "
		       "are allowed");
	assert_null(vol_upload(NULL, "kfleet", ".part", "/etc/hostname", 10, &e));
	assert_refused(-1, &e, "volume name '.part': must not start with '.'");
	assert_null(vol_upload(NULL, "kfleet", "", "/etc/hostname", 10, &e));
	assert_refused(-1, &e, "volume name is empty");
	assert_null(vol_upload(NULL, "kfleet", NULL, "/etc/hostname", 10, &e));
	assert_refused(-1, &e, "volume name is empty");
	/* what cannot be printed is not printed */
	assert_null(vol_upload(NULL, "kfleet", "a\nb c", "/etc/hostname", 10, &e));
	assert_refused(-1, &e, "volume name 'a?b c': only letters");
	memset(long_name, 'x', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = '\0';
	assert_refused(vol_delete(NULL, "kfleet", long_name, &e), &e,
		       "longer than 200 characters");
	assert_refused(vol_delete(NULL, "kf leet", "x", &e), &e, "pool name 'kf leet': only");
	assert_refused(vol_download(NULL, "kfleet", "../x", "/tmp/x", 10, &e), &e,
		       "volume name '../x'");
	assert_null(vol_overlay(NULL, "kfleet", "ov", "rel/base", "raw", &e));
	assert_refused(-1, &e, "backing file 'rel/base': not an absolute path");
	assert_null(vol_overlay(NULL, "kfleet", "ov", "/a/base", "raw'/>", &e));
	assert_refused(-1, &e, "volume 'ov': backing format 'raw'/>' is not a format name");
	assert_null(vol_overlay(NULL, "kfleet", "ov..", "/a/\tbase", "raw", &e));
	assert_refused(-1, &e, "backing file '/a/?base': has control characters");
	assert_refused(vol_pool_ensure(NULL, "kfleet", "var/pool", &e), &e,
		       "pool path 'var/pool': not an absolute path");
	assert_refused(vol_pool_ensure(NULL, ".kfleet", "/var/pool", &e), &e,
		       "pool name '.kfleet': must not start with '.'");
}

/* ---- against qemu:///system */

struct fixture {
	char dir[128];        /* /tmp/kfleet-vol-XXXXXX: local files, the pool under it */
	char *pool_dir;       /* dir/pool, made by libvirt */
	char *log;            /* dir/log: this process's log, to count uploads */
	char pool[64];        /* kfleet-ut-PID */
	virConnectPtr conn;
	int skipped;
};

static int skip_libvirt(void)
{
	const char *s = getenv("KFLEET_SKIP_LIBVIRT");

	return s && !strcmp(s, "1");
}

/* libvirt would print every error (our lookups of missing volumes too) */
static void quiet(void *opaque, virErrorPtr e)
{
}

/* Runs even when a test failed: the pool, its volumes and the directory go */
static int group_teardown(void **state)
{
	struct fixture *f = *state;
	virStoragePoolPtr p;
	virStorageVolPtr *vols = NULL;
	int n;

	if (f->conn) {
		p = virStoragePoolLookupByName(f->conn, f->pool);
		if (p) {
			n = virStoragePoolListAllVolumes(p, &vols, 0);
			for (int i = 0; i < n; i++) {
				virStorageVolDelete(vols[i], 0);
				virStorageVolFree(vols[i]);
			}
			free(vols);
			virStoragePoolDestroy(p);
			virStoragePoolUndefine(p);
			virStoragePoolFree(p);
		}
		virConnectClose(f->conn);
	}
	tu_rmrf(f->dir);
	free(f->pool_dir);
	free(f->log);
	free(f);
	return 0;
}

/* What the tests against qemu:///system share: the connection, the pool */
static int setup_libvirt(struct fixture *f)
{
	char *e = NULL;

	virSetErrorFunc(NULL, quiet);
	f->conn = virConnectOpen("qemu:///system");
	if (!f->conn) {
		fprintf(stderr, "volumes_test: cannot connect to qemu:///system: %s "
			"(is libvirtd running? KFLEET_SKIP_LIBVIRT=1 skips these tests)\n",
			virGetLastErrorMessage());
		return -1;
	}
	tu_tmpdir(f->dir, sizeof(f->dir), "vol");
	/* QEMU (libvirt-qemu) must be able to reach the pool's volumes */
	if (chmod(f->dir, 0755) < 0)
		return -1;
	f->pool_dir = tu_path(f->dir, "pool");
	f->log = tu_path(f->dir, "log");
	log_init("volumes_test", LOG_LVL_INFO);
	if (log_to_file(f->log) < 0)
		return -1;
	snprintf(f->pool, sizeof(f->pool), "kfleet-ut-%d", (int)getpid());
	if (vol_pool_ensure(f->conn, f->pool, f->pool_dir, &e) < 0) {
		fprintf(stderr, "volumes_test: %s\n", e);
		free(e);
		return -1;
	}
	return 0;
}

/* A failed setup fails every test; cmocka still runs the group teardown */
static int group_setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	*state = f;
	if (skip_libvirt()) {
		f->skipped = 1;
		return 0;
	}
	return setup_libvirt(f);
}

static void fill_random(char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (char)(seed >> 16);
	}
}

/* A sparse file of size bytes with len random bytes at each offset */
static void make_sparse(const char *path, long long size, const long long *offs,
			const long long *lens, int n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, size), 0);
	for (int i = 0; i < n; i++) {
		char *buf = malloc((size_t)lens[i]);

		assert_non_null(buf);
		fill_random(buf, (size_t)lens[i], (unsigned)i + 7);
		assert_int_equal(pwrite(fd, buf, (size_t)lens[i], offs[i]), lens[i]);
		free(buf);
	}
	close(fd);
}

static void assert_same_file(const char *a, const char *b)
{
	size_t na = 0, nb = 0;
	char *da = tu_slurp(a, &na), *db = tu_slurp(b, &nb);

	assert_non_null(da);
	assert_non_null(db);
	if (na != nb || memcmp(da, db, na))
		fail_msg("'%s' (%zu bytes) and '%s' (%zu bytes) differ", a, na, b, nb);
	free(da);
	free(db);
}

static long long disk_bytes(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return (long long)sb.st_blocks * 512;
}

/* How often this process logged an upload of the volume */
static int uploads_logged(struct fixture *f, const char *vol)
{
	char *text = tu_slurp(f->log, NULL), want[256];
	int n = 0;

	assert_non_null(text);
	snprintf(want, sizeof(want), "volume '%s': uploaded '", vol);
	for (const char *s = text; (s = strstr(s, want)); s++)
		n++;
	free(text);
	return n;
}

static void run_ok(const char *const *argv, struct buf *out)
{
	struct cmd *c = cmd_newv(argv);
	char *e = NULL;

	if (out)
		cmd_stdout_buf(c, out);
	if (cmd_run(c, &e) < 0)
		fail_msg("%s", e);
	cmd_free(c);
}

static char *upload_ok(struct fixture *f, const char *vol, const char *local)
{
	char *e = NULL, *path = vol_upload(f->conn, f->pool, vol, local, 60, &e);

	if (!path)
		fail_msg("vol_upload '%s' '%s': %s", vol, local, e);
	return path;
}

static void download_ok(struct fixture *f, const char *vol, const char *local)
{
	char *e = NULL;

	if (vol_download(f->conn, f->pool, vol, local, 60, &e) < 0)
		fail_msg("vol_download '%s' '%s': %s", vol, local, e);
}

/* Idempotent; a stopped pool is started again; another path is refused;
 * autostart stays off; libvirt made the directory 0755 */
static void test_pool_ensure(void **state)
{
	struct fixture *f = *state;
	virStoragePoolPtr p;
	struct stat sb;
	char *e = NULL, *other;
	int autostart = -1;

	if (f->skipped)
		skip();
	assert_int_equal(vol_pool_ensure(f->conn, f->pool, f->pool_dir, &e), 0);
	p = virStoragePoolLookupByName(f->conn, f->pool);
	assert_non_null(p);
	assert_int_equal(virStoragePoolGetAutostart(p, &autostart), 0);
	assert_int_equal(autostart, 0);
	assert_int_equal(stat(f->pool_dir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0755);

	assert_int_equal(virStoragePoolDestroy(p), 0);
	assert_int_equal(virStoragePoolIsActive(p), 0);
	assert_int_equal(vol_pool_ensure(f->conn, f->pool, f->pool_dir, &e), 0);
	assert_int_equal(virStoragePoolIsActive(p), 1);
	virStoragePoolFree(p);

	/* with a trailing slash it is the same path */
	other = tu_path(f->pool_dir, "");
	assert_int_equal(vol_pool_ensure(f->conn, f->pool, other, &e), 0);
	free(other);
	other = tu_path(f->dir, "elsewhere");
	assert_int_equal(vol_pool_ensure(f->conn, f->pool, other, &e), -1);
	assert_contains(e, "host pool '");
	assert_contains(e, "': exists at '");
	assert_contains(e, "/pool', not at '");
	free(e);
	free(other);
}

/* 64 MiB with 1 MiB of data at 8 MiB and 4 KiB at the end: on the host and
 * downloaded back it is the same bytes and stays sparse; a second upload
 * sends nothing; a truncated volume is replaced */
static void test_upload_sparse(void **state)
{
	struct fixture *f = *state;
	const long long offs[] = { 8 * MIB, 64 * MIB - 4096 }, lens[] = { MIB, 4096 };
	char *src, *back;
	char *path, *again;
	struct stat s1, s2;

	if (f->skipped)
		skip();
	src = tu_path(f->dir, "sparse.img");
	back = tu_path(f->dir, "back.img");
	make_sparse(src, 64 * MIB, offs, lens, 2);
	path = upload_ok(f, "sparse-1", src);
	assert_int_equal(strncmp(path, f->pool_dir, strlen(f->pool_dir)), 0);
	assert_same_file(src, path);
	assert_int_equal(stat(path, &s1), 0);
	assert_int_equal(s1.st_mode & 0777, 0644);
	if (disk_bytes(path) > 4 * MIB)
		fail_msg("volume '%s' takes %lld bytes on disk: not sparse", path, disk_bytes(path));
	assert_int_equal(uploads_logged(f, "sparse-1"), 1);

	download_ok(f, "sparse-1", back);
	assert_same_file(src, back);
	assert_int_equal(stat(back, &s2), 0);
	assert_int_equal(s2.st_mode & 0777, 0644);
	assert_int_equal(s2.st_size, 64 * MIB);
	if (disk_bytes(back) > 4 * MIB)
		fail_msg("download '%s' takes %lld bytes on disk: not sparse", back,
			 disk_bytes(back));

	/* there already: the same file, untouched, and no upload */
	again = upload_ok(f, "sparse-1", src);
	assert_string_equal(again, path);
	free(again);
	assert_int_equal(stat(path, &s2), 0);
	assert_int_equal(s2.st_ino, s1.st_ino);
	assert_int_equal(s2.st_mtim.tv_sec, s1.st_mtim.tv_sec);
	assert_int_equal(s2.st_mtim.tv_nsec, s1.st_mtim.tv_nsec);
	assert_int_equal(uploads_logged(f, "sparse-1"), 1);

	/* cut short (what a crashed upload leaves): uploaded again */
	assert_int_equal(truncate(path, 9 * MIB), 0);
	again = upload_ok(f, "sparse-1", src);
	assert_string_equal(again, path);
	free(again);
	assert_same_file(src, path);
	assert_int_equal(uploads_logged(f, "sparse-1"), 2);

	/* a file ending in a hole ends the same way on the host */
	assert_int_equal(truncate(src, 80 * MIB), 0);
	again = upload_ok(f, "sparse-2", src);
	assert_same_file(src, again);
	download_ok(f, "sparse-2", back);
	assert_same_file(src, back);
	free(again);

	/* empty is a size too */
	tu_write(src, "", 0, 0);
	again = upload_ok(f, "empty", src);
	assert_same_file(src, again);
	free(again);
	again = upload_ok(f, "empty", src);
	free(again);
	assert_int_equal(uploads_logged(f, "empty"), 1);

	free(path);
	free(src);
	free(back);
}

struct upload_call {
	pthread_t th;
	struct fixture *f;
	const char *vol, *local;
	char *path, *err;
};

static void *upload_thread(void *arg)
{
	struct upload_call *c = arg;

	c->path = vol_upload(c->f->conn, c->f->pool, c->vol, c->local, 60, &c->err);
	return NULL;
}

/* Four threads upload one name at once on one connection, two others
 * another name alongside: one upload of each name, every caller gets the
 * same complete volume */
static void test_upload_concurrent(void **state)
{
	struct fixture *f = *state;
	const long long offs[] = { 0, 20 * MIB }, lens[] = { 8 * MIB, 8 * MIB };
	const long long offs_b[] = { 4 * MIB }, lens_b[] = { 4 * MIB };
	char *src, *src_b;
	struct upload_call c[6];

	if (f->skipped)
		skip();
	src = tu_path(f->dir, "conc.img");
	src_b = tu_path(f->dir, "conc-b.img");
	make_sparse(src, 32 * MIB, offs, lens, 2);
	make_sparse(src_b, 16 * MIB, offs_b, lens_b, 1);
	for (int i = 0; i < 6; i++) {
		c[i] = (struct upload_call){ .f = f, .vol = i < 4 ? "conc" : "conc-b",
					     .local = i < 4 ? src : src_b };
		assert_int_equal(pthread_create(&c[i].th, NULL, upload_thread, &c[i]), 0);
	}
	for (int i = 0; i < 6; i++)
		assert_int_equal(pthread_join(c[i].th, NULL), 0);
	for (int i = 0; i < 6; i++) {
		if (!c[i].path)
			fail_msg("upload %d of '%s': %s", i, c[i].vol, c[i].err);
		assert_string_equal(c[i].path, c[i < 4 ? 0 : 4].path);
	}
	assert_same_file(src, c[0].path);
	assert_same_file(src_b, c[4].path);
	assert_int_equal(uploads_logged(f, "conc"), 1);
	assert_int_equal(uploads_logged(f, "conc-b"), 1);
	for (int i = 0; i < 6; i++)
		free(c[i].path);
	free(src);
	free(src_b);
}

/* A file whose content is a qcow2 image: libvirt reports the image's
 * virtual size as the volume's capacity, yet it is the same file, there
 * already the second time */
static void test_upload_qcow2_content(void **state)
{
	struct fixture *f = *state;
	char *src, *path;

	if (f->skipped)
		skip();
	src = tu_path(f->dir, "disk.qcow2");
	run_ok((const char *[]){ "qemu-img", "create", "-q", "-f", "qcow2", src, "1G", NULL },
	       NULL);
	path = upload_ok(f, "disk-qcow2", src);
	free(path);
	path = upload_ok(f, "disk-qcow2", src);
	assert_same_file(src, path);
	assert_int_equal(uploads_logged(f, "disk-qcow2"), 1);
	free(path);
	free(src);
}

/* Errors name the pool, the volume and what failed; a failed upload or
 * download leaves nothing behind */
static void test_errors(void **state)
{
	struct fixture *f = *state;
	char *e = NULL, *back;
	virStoragePoolPtr p;
	virStorageVolPtr v;
	DIR *d;
	struct dirent *de;

	if (f->skipped)
		skip();
	back = tu_path(f->dir, "nothing.img");
	assert_null(vol_upload(f->conn, f->pool, "missing", "/nonexistent/file", 10, &e));
	assert_refused(-1, &e, "volume 'missing': upload: cannot read '/nonexistent/file': "
		       "No such file or directory");
	assert_null(vol_upload(f->conn, f->pool, "dir", f->dir, 10, &e));
	assert_refused(-1, &e, "' is not a regular file");
	assert_null(vol_upload(f->conn, "kfleet-ut-none", "x", "/etc/hostname", 10, &e));
	assert_refused(-1, &e, "host pool 'kfleet-ut-none': lookup: ");
	assert_refused(vol_download(f->conn, f->pool, "missing", back, 10, &e), &e,
		       "volume 'missing': lookup: ");
	/* no volume was made, no temporary file left */
	p = virStoragePoolLookupByName(f->conn, f->pool);
	assert_non_null(p);
	v = virStorageVolLookupByName(p, "missing");
	assert_null(v);
	virStoragePoolFree(p);
	d = opendir(f->dir);
	assert_non_null(d);
	while ((de = readdir(d)))
		if (strstr(de->d_name, ".tmp-"))
			fail_msg("'%s' left in '%s'", de->d_name, f->dir);
	closedir(d);
	/* nothing there: fine */
	assert_int_equal(vol_delete(f->conn, f->pool, "missing", &e), 0);
	assert_null(vol_overlay(f->conn, f->pool, "ov-x", "/nonexistent/base", "raw", &e));
	assert_refused(-1, &e, "volume 'ov-x': backing file '/nonexistent/base': ");
	free(back);
}

/* An overlay on an uploaded ext4 image: qcow2 backed by it as raw, of its
 * size; made again it is new; deleted it is gone */
static void test_overlay(void **state)
{
	struct fixture *f = *state;
	char *tree, *img;
	char *hello, *base, *ov, *ov2, *e = NULL, want[512];
	struct buf info = BUF_INIT(0);
	struct stat s1, s2;

	if (f->skipped)
		skip();
	tree = tu_path(f->dir, "tree");
	img = tu_path(f->dir, "root.ext4");
	assert_int_equal(mkdir(tree, 0755), 0);
	hello = tu_path(tree, "hello");
	tu_write_str(hello, "hello from the root disk\n");
	run_ok((const char *[]){ "mkfs.ext4", "-q", "-F", "-d", tree, img, "64M", NULL }, NULL);
	base = upload_ok(f, "root-ext4", img);
	ov = vol_overlay(f->conn, f->pool, "run-1-root", base, "raw", &e);
	if (!ov)
		fail_msg("vol_overlay: %s", e);
	assert_int_equal(strncmp(ov, f->pool_dir, strlen(f->pool_dir)), 0);

	run_ok((const char *[]){ "qemu-img", "info", "--backing-chain", ov, NULL }, &info);
	assert_contains(info.data, "file format: qcow2\n");
	assert_contains(info.data, "virtual size: 64 MiB (67108864 bytes)\n");
	snprintf(want, sizeof(want), "backing file: %s\n", base);
	assert_contains(info.data, want);
	assert_contains(info.data, "backing file format: raw\n");
	/* the chain's second image is the base itself, raw */
	snprintf(want, sizeof(want), "image: %s\nfile format: raw\n", base);
	assert_contains(info.data, want);
	buf_release(&info);

	/* made again: a new file in its place */
	assert_int_equal(stat(ov, &s1), 0);
	assert_int_equal(truncate(ov, 0), 0);
	ov2 = vol_overlay(f->conn, f->pool, "run-1-root", base, "raw", &e);
	if (!ov2)
		fail_msg("vol_overlay again: %s", e);
	assert_string_equal(ov2, ov);
	assert_int_equal(stat(ov2, &s2), 0);
	assert_true(s2.st_size > 0);

	assert_int_equal(vol_delete(f->conn, f->pool, "run-1-root", &e), 0);
	assert_int_equal(access(ov, F_OK), -1);
	assert_int_equal(vol_delete(f->conn, f->pool, "run-1-root", &e), 0);
	/* the base is still there and still whole */
	assert_same_file(img, base);

	free(ov);
	free(ov2);
	free(base);
	free(hello);
	free(tree);
	free(img);
}

int main(void)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test(test_names),
	};
	const struct CMUnitTest virt[] = {
		cmocka_unit_test(test_pool_ensure),
		cmocka_unit_test(test_upload_sparse),
		cmocka_unit_test(test_upload_concurrent),
		cmocka_unit_test(test_upload_qcow2_content),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_overlay),
	};
	int failed = cmocka_run_group_tests_name("volumes", plain, NULL, NULL);

	if (skip_libvirt())
		fprintf(stderr, "volumes_test: KFLEET_SKIP_LIBVIRT=1: skipping the tests "
			"against qemu:///system\n");
	failed += cmocka_run_group_tests_name("volumes on qemu:///system", virt, group_setup,
					      group_teardown);
	return failed ? 1 : 0;
}
