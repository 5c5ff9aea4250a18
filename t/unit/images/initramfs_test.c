// SPDX-License-Identifier: GPL-2.0-only
/* initramfs_test.c: unit tests for images/initramfs.c.
 * Builds the base initramfs from small fake busybox and agent files in a
 * temporary directory, reads it back with libarchive, and checks the cache
 * and the per-run initrd (run archive followed by the base's bytes). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"
#include "images/images.h"

struct fixture {
	char dir[64];
	char *busybox;
	char *agent;
	char *cache;
};

#define MAX_ENTRIES 32

struct entry {
	char name[128];
	unsigned mode;         /* type and permissions */
	unsigned rmajor, rminor;
	int64_t uid, gid, mtime;
	struct buf data;
};

struct listing {
	struct entry e[MAX_ENTRIES];
	int n;
};

static const char fake_busybox[] = "\x7f" "ELF fake busybox\n";
static const char fake_agent[] = "\x7f" "ELF fake kfleet-agent\n";

static void put(const char *path, const char *text)
{
	assert_int_equal(write_file(path, text, strlen(text), 0755), 0);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->dir, sizeof(f->dir), "/tmp/kfleet-initramfs-XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	f->busybox = path_join(f->dir, "busybox");
	f->agent = path_join(f->dir, "kfleet-agent");
	f->cache = path_join(f->dir, "cache/initramfs");
	put(f->busybox, fake_busybox);
	put(f->agent, fake_agent);
	*state = f;
	return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (nftw(f->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "could not remove '%s'\n", f->dir);
	free(f->busybox);
	free(f->agent);
	free(f->cache);
	free(f);
	return 0;
}

static void listing_release(struct listing *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		buf_release(&l->e[i].data);
	l->n = 0;
}

/* Reads every entry of an archive in memory (any filter, cpio format) */
static void list_archive(const void *p, size_t n, struct listing *l)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ae;
	char chunk[4096];
	la_ssize_t r;
	int rc;

	memset(l, 0, sizeof(*l));
	assert_non_null(a);
	assert_int_equal(archive_read_support_filter_all(a), ARCHIVE_OK);
	assert_int_equal(archive_read_support_format_cpio(a), ARCHIVE_OK);
	assert_int_equal(archive_read_open_memory(a, p, n), ARCHIVE_OK);
	while ((rc = archive_read_next_header(a, &ae)) == ARCHIVE_OK) {
		struct entry *e;

		assert_true(l->n < MAX_ENTRIES);
		e = &l->e[l->n++];
		snprintf(e->name, sizeof(e->name), "%s", archive_entry_pathname(ae));
		e->mode = archive_entry_mode(ae);
		e->rmajor = (unsigned)archive_entry_rdevmajor(ae);
		e->rminor = (unsigned)archive_entry_rdevminor(ae);
		e->uid = archive_entry_uid(ae);
		e->gid = archive_entry_gid(ae);
		e->mtime = archive_entry_mtime(ae);
		buf_init(&e->data, 0);
		while ((r = archive_read_data(a, chunk, sizeof(chunk))) > 0)
			assert_int_equal(buf_append(&e->data, chunk, (size_t)r), 0);
		assert_true(r == 0);
	}
	if (rc != ARCHIVE_EOF)
		fail_msg("archive: %s", archive_error_string(a));
	archive_read_free(a);
}

static const struct entry *find(const struct listing *l, const char *name)
{
	int i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->e[i].name, name) == 0)
			return &l->e[i];
	fail_msg("no entry '%s' in the archive", name);
	return NULL;
}

static void slurp(const char *path, struct buf *b)
{
	buf_init(b, 0);
	assert_int_equal(read_file(path, b, 64 << 20), 0);
}

static char *build_base(struct fixture *f)
{
	char *err = NULL;
	char *path = img_base_initramfs(f->busybox, f->agent, f->cache, &err);

	if (!path)
		fail_msg("img_base_initramfs: %s", err ? err : "(no message)");
	assert_null(err);
	return path;
}

static void test_base_contents(void **state)
{
	static const struct {
		const char *name;
		unsigned perm;
	} dirs[] = {
		{ "bin", 0755 }, { "sbin", 0755 }, { "usr", 0755 }, { "usr/bin", 0755 },
		{ "usr/sbin", 0755 }, { "dev", 0755 }, { "proc", 0555 }, { "sys", 0555 },
		{ "tmp", 01777 }, { "root", 0700 }, { "etc", 0755 }, { "kfleet", 0755 },
	};
	struct fixture *f = *state;
	struct listing l;
	const struct entry *e;
	struct buf b;
	struct stat st;
	char prefix[256];
	char *path;
	size_t i;
	int k;

	path = build_base(f);
	snprintf(prefix, sizeof(prefix), "%s/initramfs-", f->cache);
	assert_memory_equal(path, prefix, strlen(prefix));
	assert_int_equal(strlen(path), strlen(prefix) + 64 + strlen(".cpio.gz"));
	assert_string_equal(path + strlen(path) - 8, ".cpio.gz");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	slurp(path, &b);
	assert_true(b.len > 2);
	assert_int_equal((unsigned char)b.data[0], 0x1f);
	assert_int_equal((unsigned char)b.data[1], 0x8b);
	list_archive(b.data, b.len, &l);

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		e = find(&l, dirs[i].name);
		assert_int_equal(e->mode & AE_IFMT, AE_IFDIR);
		assert_int_equal(e->mode & 07777, dirs[i].perm);
	}
	e = find(&l, "dev/console");
	assert_int_equal(e->mode & AE_IFMT, AE_IFCHR);
	assert_int_equal(e->mode & 07777, 0600);
	assert_int_equal(e->rmajor, 5);
	assert_int_equal(e->rminor, 1);

	e = find(&l, "init");
	assert_int_equal(e->mode & AE_IFMT, AE_IFREG);
	assert_int_equal(e->mode & 07777, 0755);
	assert_memory_equal(e->data.data, "#!/bin/busybox sh\n", 18);
	assert_non_null(strstr(e->data.data, "\n/bin/busybox --install -s\n"));
	assert_non_null(strstr(e->data.data, "\n/sbin/kfleet-agent\n"));
	assert_non_null(strstr(e->data.data, "poweroff -f\n"));
	/* the agent is run before the poweroff */
	assert_true(strstr(e->data.data, "/sbin/kfleet-agent") < strstr(e->data.data, "poweroff"));

	e = find(&l, "bin/busybox");
	assert_int_equal(e->mode, AE_IFREG | 0755);
	assert_int_equal(e->data.len, strlen(fake_busybox));
	assert_memory_equal(e->data.data, fake_busybox, e->data.len);

	e = find(&l, "sbin/kfleet-agent");
	assert_int_equal(e->mode, AE_IFREG | 0755);
	assert_int_equal(e->data.len, strlen(fake_agent));
	assert_memory_equal(e->data.data, fake_agent, e->data.len);

	assert_int_equal(l.n, (int)(sizeof(dirs) / sizeof(dirs[0])) + 4);
	for (k = 0; k < l.n; k++) {
		assert_int_equal(l.e[k].uid, 0);
		assert_int_equal(l.e[k].gid, 0);
		assert_int_equal(l.e[k].mtime, 0);
	}
	listing_release(&l);
	buf_release(&b);
	free(path);
}

static void test_base_cache_hit(void **state)
{
	struct fixture *f = *state;
	struct timespec old[2] = { { 1000000, 0 }, { 1000000, 0 } };
	struct stat st1, st2;
	char *p1, *p2;

	p1 = build_base(f);
	/* an old mtime that a rebuild would replace */
	assert_int_equal(utimensat(AT_FDCWD, p1, old, 0), 0);
	assert_int_equal(stat(p1, &st1), 0);
	p2 = build_base(f);
	assert_string_equal(p1, p2);
	assert_int_equal(stat(p2, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(st2.st_mtim.tv_sec, 1000000);
	assert_int_equal(st2.st_ctim.tv_sec, st1.st_ctim.tv_sec);
	assert_int_equal(st2.st_ctim.tv_nsec, st1.st_ctim.tv_nsec);
	free(p1);
	free(p2);
}

static void test_base_reproducible(void **state)
{
	struct fixture *f = *state;
	struct buf b1, b2;
	char *p;

	p = build_base(f);
	slurp(p, &b1);
	assert_int_equal(unlink(p), 0);
	free(p);
	p = build_base(f);
	slurp(p, &b2);
	assert_int_equal(b1.len, b2.len);
	assert_memory_equal(b1.data, b2.data, b1.len);
	buf_release(&b1);
	buf_release(&b2);
	free(p);
}

static void test_base_changed_agent(void **state)
{
	struct fixture *f = *state;
	struct listing l;
	struct buf b;
	char *p1, *p2;

	p1 = build_base(f);
	put(f->agent, "\x7f" "ELF another agent\n");
	p2 = build_base(f);
	assert_string_not_equal(p1, p2);
	assert_int_equal(access(p1, F_OK), 0);
	slurp(p2, &b);
	list_archive(b.data, b.len, &l);
	assert_string_equal(find(&l, "sbin/kfleet-agent")->data.data, "\x7f" "ELF another agent\n");
	listing_release(&l);
	buf_release(&b);
	free(p1);
	free(p2);
}

static void test_base_missing_input(void **state)
{
	struct fixture *f = *state;
	char *missing = path_join(f->dir, "busyboxx");
	char *err = NULL, *want = NULL;
	char *p;

	p = img_base_initramfs(missing, f->agent, f->cache, &err);
	assert_null(p);
	assert_non_null(err);
	assert_true(asprintf(&want, "busybox '%s': No such file or directory", missing) > 0);
	assert_string_equal(err, want);
	free(err);
	free(want);

	err = NULL;
	p = img_base_initramfs(f->busybox, missing, f->cache, &err);
	assert_null(p);
	assert_non_null(err);
	assert_true(asprintf(&want, "agent '%s': No such file or directory", missing) > 0);
	assert_string_equal(err, want);
	free(err);
	free(want);

	/* a directory is not a busybox */
	err = NULL;
	p = img_base_initramfs(f->dir, f->agent, f->cache, &err);
	assert_null(p);
	assert_non_null(err);
	assert_non_null(strstr(err, f->dir));
	free(err);
	free(missing);
}

static void test_run_initrd(void **state)
{
	static const char cmd[] = "echo 'hello \"world\"'; uname -r\nexit 3\n";
	struct fixture *f = *state;
	struct img_run r = { .run_id = 42, .command = cmd, .timeout_s = 30, .output_max = 4096 };
	struct listing l;
	const struct entry *e;
	struct buf base, out;
	struct stat st;
	char *err = NULL, *path, *tmp;
	size_t prefix;

	path = build_base(f);
	tmp = path_join(f->dir, "run-42.initrd");
	if (img_run_initrd(path, &r, tmp, &err) < 0)
		fail_msg("img_run_initrd: %s", err);
	assert_null(err);
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	slurp(path, &base);
	slurp(tmp, &out);
	assert_true(out.len > base.len);
	prefix = out.len - base.len;
	/* the first archive: uncompressed newc */
	assert_memory_equal(out.data, "070701", 6);
	/* then exactly the base */
	assert_memory_equal(out.data + prefix, base.data, base.len);

	list_archive(out.data, prefix, &l);
	assert_int_equal(l.n, 3);
	e = find(&l, "kfleet");
	assert_int_equal(e->mode & AE_IFMT, AE_IFDIR);
	e = find(&l, "kfleet/cmd");
	assert_int_equal(e->mode, AE_IFREG | 0644);
	assert_int_equal(e->data.len, strlen(cmd));
	assert_string_equal(e->data.data, cmd);
	e = find(&l, "kfleet/run.conf");
	assert_string_equal(e->data.data, "run=42\ntimeout=30\noutput_max=4096\nchannel=ttyS1\n");
	listing_release(&l);

	/* no temporary file left behind */
	free(tmp);
	tmp = path_join(f->dir, "run-42.initrd.tmp");
	assert_int_equal(access(tmp, F_OK), -1);

	buf_release(&base);
	buf_release(&out);
	free(tmp);
	free(path);
}

static void test_run_initrd_errors(void **state)
{
	struct fixture *f = *state;
	struct img_run r = { .run_id = 1, .command = "true", .timeout_s = 10, .output_max = 100 };
	char *missing = path_join(f->dir, "no-base.cpio.gz");
	char *out = path_join(f->dir, "run-1.initrd");
	char *err = NULL, *want = NULL, *big;

	assert_int_equal(img_run_initrd(missing, &r, out, &err), -1);
	assert_non_null(err);
	assert_true(asprintf(&want, "base '%s': No such file or directory", missing) > 0);
	assert_string_equal(err, want);
	assert_int_equal(access(out, F_OK), -1);
	free(err);
	free(want);

	put(missing, "base");
	r.command = NULL;
	err = NULL;
	assert_int_equal(img_run_initrd(missing, &r, out, &err), -1);
	assert_non_null(err);
	free(err);

	r.command = "true";
	r.timeout_s = 0;
	err = NULL;
	assert_int_equal(img_run_initrd(missing, &r, out, &err), -1);
	assert_non_null(err);
	free(err);

	big = malloc(200 * 1024);
	assert_non_null(big);
	memset(big, 'x', 200 * 1024 - 1);
	big[200 * 1024 - 1] = '\0';
	r.command = big;
	r.timeout_s = 10;
	err = NULL;
	assert_int_equal(img_run_initrd(missing, &r, out, &err), -1);
	assert_non_null(err);
	assert_non_null(strstr(err, "run 1: command"));
	free(err);
	free(big);

	free(missing);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_base_contents, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_cache_hit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_reproducible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_changed_agent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_base_missing_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_initrd, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_initrd_errors, setup, teardown),
	};

	return cmocka_run_group_tests_name("initramfs", tests, NULL, NULL);
}
