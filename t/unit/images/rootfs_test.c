// SPDX-License-Identifier: GPL-2.0-only
/* rootfs_test.c: unit tests for rootfs.h (images/rootfs_cache.c, rootfs_key.c, rootfs_build.c).
 * Runs img_rootfs() against fake mmdebstrap scripts written into a
 * temporary directory (they log their arguments and make a small tree), so
 * the real mkfs.ext4 packs something known; reads the image back with
 * debugfs. With KFLEET_NET_TESTS=1 (and root) one test runs the real
 * mmdebstrap against deb.debian.org. */
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

#include "common/buf.h"
#include "common/cmd.h"
#include "common/log.h"
#include "common/util.h"
#include "images/rootfs.h"
#include "t/unit/testutil.h"

struct fixture {
	char dir[128];
	char *cache;
	char *log;       /* what the fakes append to: "run", then "arg X" lines */
	char *fake_ok, *fake_slow, *fake_fail, *fake_hang, *fake_baddeb;
};

/* Logs its arguments; makes a tree with a .deb file, as apt names them,
 * for each package of --include plus libc6, and what mmdebstrap copies in */
static const char fake_ok[] =
	"#!/bin/sh\n"
	"log=\"$(dirname \"$0\")/fake.log\"\n"
	"echo run >> \"$log\"\n"
	"for a in \"$@\"; do\n"
	"	echo \"arg $a\" >> \"$log\"\n"
	"	case $a in --include=*) inc=${a#--include=};; --arch=*) arch=${a#--arch=};; esac\n"
	"done\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"root=$3\n"
	"mkdir -p \"$root/bin\" \"$root/etc\" \"$root/usr/share/doc/fake\" \"$root/var/cache/apt/archives\"\n"
	"printf '#!fake dash\\n' > \"$root/bin/dash\"\n"
	"chmod 755 \"$root/bin/dash\"\n"
	"echo fake > \"$root/usr/share/doc/fake/README\"\n"
	"echo host > \"$root/etc/hostname\"\n"
	"for p in $(echo \"$inc\" | tr , ' '); do\n"
	"	: > \"$root/var/cache/apt/archives/${p}_1%3a1.0-1_$arch.deb\"\n"
	"done\n"
	": > \"$root/var/cache/apt/archives/libc6_2.36-9+deb12u4_$arch.deb\"\n"
	": > \"$root/var/cache/apt/pkgcache.bin\"\n"
	"echo 'I: success in 0.1 seconds' >&2\n";

static const char fake_slow[] =
	"#!/bin/sh\n"
	"sleep 1\n"
	"exec \"$(dirname \"$0\")/fake-ok\" \"$@\"\n";

/* Fails the way mmdebstrap does: apt's reason first, its own words last */
static const char fake_fail[] =
	"#!/bin/sh\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"mkdir -p \"$3/var/cache/apt/archives\"\n"
	"echo 'I: downloading packages with apt...' >&2\n"
	"echo 'E: Unable to locate package nosuchpkg' >&2\n"
	"echo 'E: mmdebstrap failed to run' >&2\n"
	"exit 1\n";

/* Leaves a .deb whose name apt would not give it */
static const char fake_baddeb[] =
	"#!/bin/sh\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"mkdir -p \"$3/var/cache/apt/archives\"\n"
	": > \"$3/var/cache/apt/archives/dash_0.5.12-2_amd64.deb\"\n"
	": > \"$3/var/cache/apt/archives/foo_1.0.deb\"\n";

static const char fake_hang[] =
	"#!/bin/sh\n"
	"while [ \"$1\" != -- ]; do shift; done\n"
	"mkdir -p \"$3\"\n"
	"sleep 30\n";

static char *put_script(const char *dir, const char *name, const char *text)
{
	char *p = tu_path(dir, name);

	tu_write_str(p, text);
	assert_int_equal(chmod(p, 0755), 0);
	return p;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "rootfs");
	f->cache = tu_path(f->dir, "cache");
	f->log = tu_path(f->dir, "fake.log");
	f->fake_ok = put_script(f->dir, "fake-ok", fake_ok);
	f->fake_slow = put_script(f->dir, "fake-slow", fake_slow);
	f->fake_fail = put_script(f->dir, "fake-fail", fake_fail);
	f->fake_hang = put_script(f->dir, "fake-hang", fake_hang);
	f->fake_baddeb = put_script(f->dir, "fake-baddeb", fake_baddeb);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tu_rmrf(f->dir);
	free(f->cache);
	free(f->log);
	free(f->fake_ok);
	free(f->fake_slow);
	free(f->fake_fail);
	free(f->fake_hang);
	free(f->fake_baddeb);
	free(f);
	return 0;
}

static struct img_rootfs_spec spec_of(const char *arch, const char *const *pkgs, size_t n,
				      const char *fake)
{
	struct img_rootfs_spec s = {
		.arch = arch,
		.suite = "bookworm",
		.mirror = "http://deb.debian.org/debian",
		.packages = pkgs,
		.npackages = n,
		.mmdebstrap = fake,
	};
	return s;
}

/* How many times the fakes ran */
static int runs(struct fixture *f)
{
	char *log = tu_slurp(f->log, NULL), *p;
	int n = 0;

	if (!log)
		return 0;
	for (p = log; (p = strstr(p, "run\n")); p += 4)
		if (p == log || p[-1] == '\n')
			n++;
	free(log);
	return n;
}

static int log_has(struct fixture *f, const char *line)
{
	char *log = tu_slurp(f->log, NULL), *want = NULL;
	int found;

	assert_non_null(log);
	assert_true(asprintf(&want, "\n%s\n", line) > 0);
	found = strstr(log, want) != NULL;
	free(want);
	free(log);
	return found;
}

/* How many entries of dir start with prefix (0 when dir does not exist) */
static int dir_entries(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    !strncmp(e->d_name, prefix, strlen(prefix)))
			n++;
	closedir(d);
	return n;
}

static void assert_ext4(const char *image)
{
	unsigned char magic[2];
	struct stat st;
	FILE *fp;

	assert_int_equal(stat(image, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0644);
	/* at least the 512 MiB of room for the job */
	assert_true(st.st_size >= (512ll << 20));
	fp = fopen(image, "rb");
	assert_non_null(fp);
	assert_int_equal(fseek(fp, 1080, SEEK_SET), 0);
	assert_int_equal(fread(magic, 1, 2, fp), 2);
	fclose(fp);
	assert_int_equal(magic[0] | magic[1] << 8, 0xEF53);
}

/* What debugfs -R REQUEST prints for the image; caller frees */
static char *debugfs(const char *image, const char *request)
{
	struct buf out = BUF_INIT(0);
	char *err = NULL;
	struct cmd *c = cmd_new("debugfs");

	cmd_args(c, "-R", request, image, NULL);
	cmd_stdout_buf(c, &out);
	cmd_timeout(c, 30000);
	if (cmd_run(c, &err) < 0)
		fail_msg("debugfs -R '%s' '%s': %s", request, image, err);
	cmd_free(c);
	return out.data ? buf_detach(&out) : strdup("");
}

static void assert_contains(const char *text, const char *want)
{
	if (!text || !strstr(text, want))
		fail_msg("'%s' does not contain '%s'", text ? text : "(null)", want);
}

static void expect_error(struct fixture *f, const struct img_rootfs_spec *s, const char *want)
{
	char *err = NULL, *img;

	img = img_rootfs(s, f->cache, &err);
	if (img)
		fail_msg("built '%s', want an error with '%s'", img, want);
	assert_contains(err, want);
	free(err);
	/* checked before anything is made */
	assert_int_equal(access(f->cache, F_OK), -1);
	assert_int_equal(runs(f), 0);
}

static void test_bad_arch(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "bash" };
	struct img_rootfs_spec s = spec_of("sparc", pkgs, 1, f->fake_ok);

	expect_error(f, &s, "rootfs arch 'sparc': not x86_64 or arm64");
	s.arch = "amd64";   /* Debian's name is not the guest's */
	expect_error(f, &s, "'amd64'");
	s.arch = NULL;
	expect_error(f, &s, "rootfs arch '(none)'");
}

static void test_bad_packages(void **state)
{
	struct fixture *f = *state;
	static const char *const bad[] = {
		"-x", "-o", "a,b", "", "foo bar", "Bash", "x", "bash=5.2", "?essential",
		"pkg/bookworm", "../x.deb",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *pkgs[] = { "bash", bad[i] };
		struct img_rootfs_spec s = spec_of("arm64", pkgs, 2, f->fake_ok);
		char want[128];

		snprintf(want, sizeof(want), "rootfs package '%s': not a Debian package name", bad[i]);
		expect_error(f, &s, want);
	}
}

static void test_too_many_packages(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[IMG_ROOTFS_PACKAGES_MAX + 1];
	char names[IMG_ROOTFS_PACKAGES_MAX + 1][16];
	struct img_rootfs_spec s;

	for (int i = 0; i <= IMG_ROOTFS_PACKAGES_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "pkg%d", i);
		pkgs[i] = names[i];
	}
	s = spec_of("x86_64", pkgs, IMG_ROOTFS_PACKAGES_MAX + 1, f->fake_ok);
	expect_error(f, &s, "rootfs: 65 packages, at most 64");
}

static void test_bad_suite_mirror(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "bash" };
	struct img_rootfs_spec s = spec_of("x86_64", pkgs, 1, f->fake_ok);

	s.suite = "-x";
	expect_error(f, &s, "rootfs suite '-x'");
	s.suite = "Bookworm";
	expect_error(f, &s, "rootfs suite 'Bookworm'");
	s.suite = "bookworm";
	s.mirror = "ftp://deb.debian.org/debian";
	expect_error(f, &s, "rootfs mirror 'ftp://deb.debian.org/debian'");
	s.mirror = "http://a b";
	expect_error(f, &s, "rootfs mirror 'http://a b'");
	s.mirror = "http://a,b";
	expect_error(f, &s, "rootfs mirror 'http://a,b'");
	s.mirror = "http://a\nb";
	expect_error(f, &s, "rootfs mirror 'http://a?b'");
}

static void test_build(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "iproute2", "bash", "busybox", "bash" };
	struct img_rootfs_spec s = spec_of("x86_64", pkgs, 4, f->fake_ok);
	char *err = NULL, *img, *img2, *man, *text;
	int64_t t0 = mono_ms();

	img = img_rootfs(&s, f->cache, &err);
	if (!img)
		fail_msg("img_rootfs: %s", err);
	print_message("fake build: %lld ms\n", (long long)(mono_ms() - t0));
	assert_int_equal(runs(f), 1);
	assert_true(log_has(f, "arg --variant=extract"));
	assert_true(log_has(f, "arg --arch=amd64"));
	assert_true(log_has(f, "arg --include=bash,busybox,dash,iproute2"));
	assert_true(log_has(f, "arg --"));
	assert_true(log_has(f, "arg bookworm"));
	assert_true(log_has(f, "arg http://deb.debian.org/debian"));
	assert_contains(img, "/cache/rootfs-");
	assert_ext4(img);

	/* the manifest, from the .deb names, which are gone from the image */
	man = img_rootfs_manifest_path(img);
	text = tu_slurp(man, NULL);
	assert_non_null(text);
	assert_string_equal(text, "bash 1:1.0-1 amd64\n"
				  "busybox 1:1.0-1 amd64\n"
				  "dash 1:1.0-1 amd64\n"
				  "iproute2 1:1.0-1 amd64\n"
				  "libc6 2.36-9+deb12u4 amd64\n");
	free(text);
	text = debugfs(img, "ls /var/cache/apt/archives");
	if (strstr(text, ".deb"))
		fail_msg("the image keeps .deb files: %s", text);
	free(text);
	text = debugfs(img, "ls /var/cache/apt");
	if (strstr(text, "pkgcache.bin"))
		fail_msg("the image keeps apt's cache: %s", text);
	free(text);

	/* what no maintainer script made */
	text = debugfs(img, "cat /etc/passwd");
	assert_string_equal(text, "root:x:0:0:root:/root:/bin/sh\n");
	free(text);
	text = debugfs(img, "cat /etc/group");
	assert_string_equal(text, "root:x:0:\n");
	free(text);
	text = debugfs(img, "stat /bin/sh");
	assert_contains(text, "Type: symlink");
	assert_contains(text, "\"dash\"");
	free(text);
	text = debugfs(img, "stat /tmp");
	assert_contains(text, "Mode:  01777");
	free(text);
	text = debugfs(img, "ls -l /");
	for (const char *d = "proc\0sys\0dev\0run\0kfleet\0root\0"; *d; d += strlen(d) + 1)
		assert_contains(text, d);
	if (strstr(text, "fake.log"))
		fail_msg("unexpected: %s", text);
	free(text);
	text = debugfs(img, "ls /etc");
	if (strstr(text, "hostname"))
		fail_msg("the host's /etc/hostname is in the image: %s", text);
	free(text);
	text = debugfs(img, "cat /usr/share/doc/fake/README");
	assert_string_equal(text, "fake\n");
	free(text);

	/* the cache: no temporary directory left, the same list again is a hit */
	assert_int_equal(dir_entries(f->cache, ".rootfs-"), 0);
	t0 = mono_ms();
	img2 = img_rootfs(&s, f->cache, &err);
	assert_non_null(img2);
	print_message("cache hit: %lld ms\n", (long long)(mono_ms() - t0));
	assert_string_equal(img, img2);
	assert_int_equal(runs(f), 1);
	free(img2);

	/* in another order, with dash named: the same image */
	{
		const char *same[] = { "dash", "busybox", "iproute2", "bash" };
		struct img_rootfs_spec s2 = spec_of("x86_64", same, 4, f->fake_ok);

		img2 = img_rootfs(&s2, f->cache, &err);
		assert_non_null(img2);
		assert_string_equal(img, img2);
		assert_int_equal(runs(f), 1);
		free(img2);
	}
	/* another list: another image */
	s.npackages = 2;
	img2 = img_rootfs(&s, f->cache, &err);
	if (!img2)
		fail_msg("img_rootfs: %s", err);
	assert_string_not_equal(img, img2);
	assert_int_equal(runs(f), 2);
	assert_true(log_has(f, "arg --include=bash,dash,iproute2"));
	free(img2);
	/* another mirror: another image */
	s.mirror = "http://ftp.de.debian.org/debian";
	img2 = img_rootfs(&s, f->cache, &err);
	assert_non_null(img2);
	assert_string_not_equal(img, img2);
	assert_int_equal(runs(f), 3);
	free(img2);

	free(man);
	free(img);
}

static void test_build_arm64_no_packages(void **state)
{
	struct fixture *f = *state;
	struct img_rootfs_spec s = spec_of("arm64", NULL, 0, f->fake_ok);
	char *err = NULL, *img, *man, *text;

	s.mirror = "file:/srv/mirror/debian";
	img = img_rootfs(&s, f->cache, &err);
	if (!img)
		fail_msg("img_rootfs: %s", err);
	assert_true(log_has(f, "arg --arch=arm64"));
	assert_true(log_has(f, "arg --include=dash"));
	/* file: archives are copied into the tree, as mmdebstrap takes them */
	assert_true(log_has(f, "arg copy:///srv/mirror/debian"));
	assert_ext4(img);
	man = img_rootfs_manifest_path(img);
	text = tu_slurp(man, NULL);
	assert_non_null(text);
	assert_string_equal(text, "dash 1:1.0-1 arm64\nlibc6 2.36-9+deb12u4 arm64\n");
	free(text);
	free(man);
	free(img);
}

static void test_fail(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "nosuchpkg" };
	struct img_rootfs_spec s = spec_of("arm64", pkgs, 1, f->fake_fail);
	char *err = NULL;

	assert_null(img_rootfs(&s, f->cache, &err));
	assert_non_null(err);
	assert_string_equal(err, "rootfs arm64 [nosuchpkg]: mmdebstrap: exited with 1: "
				 "E: Unable to locate package nosuchpkg");
	free(err);
	/* nothing but the lock file */
	assert_int_equal(dir_entries(f->cache, ""), 1);
	assert_int_equal(dir_entries(f->cache, "rootfs-"), 1);
	assert_int_equal(dir_entries(f->cache, ".rootfs-"), 0);
}

static void test_bad_deb_name(void **state)
{
	struct fixture *f = *state;
	struct img_rootfs_spec s = spec_of("x86_64", NULL, 0, f->fake_baddeb);
	char *err = NULL;

	assert_null(img_rootfs(&s, f->cache, &err));
	assert_contains(err, "rootfs x86_64 []: 'var/cache/apt/archives/foo_1.0.deb': "
			"not a name apt gives a package");
	free(err);
	assert_int_equal(dir_entries(f->cache, ".rootfs-"), 0);
	assert_int_equal(dir_entries(f->cache, "rootfs-"), 1);
}

/* A builder that died left its tree: the next build of the image removes it */
static void test_stale_tree(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "bash" };
	struct img_rootfs_spec s = spec_of("x86_64", pkgs, 1, f->fake_ok);
	char *err = NULL, *img, *img2, *hash, *stale, *other, *p;

	img = img_rootfs(&s, f->cache, &err);
	assert_non_null(img);
	hash = strstr(img, "/rootfs-") + 8;
	assert_true(asprintf(&stale, "%s/.rootfs-%.64s.Ab12Cd", f->cache, hash) > 0);
	/* another image's builder may be running: its tree stays */
	assert_true(asprintf(&other, "%s/.rootfs-%064d.Ab12Cd", f->cache, 0) > 0);
	assert_int_equal(mkdir(stale, 0700), 0);
	assert_int_equal(mkdir(other, 0700), 0);
	p = tu_path(stale, "root");
	assert_int_equal(mkdir(p, 0755), 0);
	free(p);
	p = tu_path(stale, "root/file");
	tu_write_str(p, "x");
	free(p);
	assert_int_equal(unlink(img), 0);

	img2 = img_rootfs(&s, f->cache, &err);
	assert_non_null(img2);
	assert_int_equal(runs(f), 2);
	assert_int_equal(access(stale, F_OK), -1);
	assert_int_equal(access(other, F_OK), 0);
	free(stale);
	free(other);
	free(img);
	free(img2);
}

static void test_timeout(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "bash" };
	struct img_rootfs_spec s = spec_of("x86_64", pkgs, 1, f->fake_hang);
	char *err = NULL;
	int64_t t0 = mono_ms();

	s.timeout_s = 1;
	assert_null(img_rootfs(&s, f->cache, &err));
	assert_contains(err, "rootfs x86_64 [bash]: mmdebstrap: timed out after 1 s");
	free(err);
	assert_true(mono_ms() - t0 < 10000);
	assert_int_equal(dir_entries(f->cache, ".rootfs-"), 0);
	assert_int_equal(dir_entries(f->cache, "rootfs-"), 1);
}

static void test_not_found(void **state)
{
	struct fixture *f = *state;
	struct img_rootfs_spec s = spec_of("x86_64", NULL, 0, "/nonexistent/mmdebstrap");
	char *err = NULL;

	assert_null(img_rootfs(&s, f->cache, &err));
	assert_contains(err, "rootfs x86_64 []: mmdebstrap: cannot run '/nonexistent/mmdebstrap'");
	free(err);
	assert_int_equal(dir_entries(f->cache, ".rootfs-"), 0);
}

struct racer {
	struct img_rootfs_spec spec;
	const char *cache;
	char *img, *err;
};

static void *race(void *arg)
{
	struct racer *r = arg;

	r->img = img_rootfs(&r->spec, r->cache, &r->err);
	return NULL;
}

static void test_concurrent(void **state)
{
	struct fixture *f = *state;
	const char *pkgs[] = { "bash" };
	struct racer r[3];
	pthread_t t[3];

	for (int i = 0; i < 3; i++) {
		r[i] = (struct racer){ spec_of("x86_64", pkgs, 1, f->fake_slow), f->cache, NULL, NULL };
		assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		if (!r[i].img)
			fail_msg("racer %d: %s", i, r[i].err);
	}
	assert_int_equal(runs(f), 1);
	assert_string_equal(r[0].img, r[1].img);
	assert_string_equal(r[0].img, r[2].img);
	assert_ext4(r[0].img);
	for (int i = 0; i < 3; i++)
		free(r[i].img);
}

static void test_manifest_path(void **state)
{
	char *p;

	p = img_rootfs_manifest_path("/c/rootfs-ab.ext4");
	assert_string_equal(p, "/c/rootfs-ab.manifest");
	free(p);
	p = img_rootfs_manifest_path("/c/image");
	assert_string_equal(p, "/c/image.manifest");
	free(p);
}

/* The real thing: KFLEET_NET_TESTS=1, as root, with deb.debian.org */
static void test_real_mmdebstrap(void **state)
{
	struct fixture *f = *state;
	const char *net = getenv("KFLEET_NET_TESTS"), *pkgs[] = { "busybox" };
	struct img_rootfs_spec s = spec_of("x86_64", pkgs, 1, NULL);
	char *err = NULL, *img, *man, *text;
	int64_t t0;

	if (!net || strcmp(net, "1"))
		skip();
	if (geteuid() != 0) {
		print_message("mmdebstrap --mode=root needs root: skipped\n");
		skip();
	}
	t0 = mono_ms();
	img = img_rootfs(&s, f->cache, &err);
	if (!img)
		fail_msg("img_rootfs: %s", err);
	print_message("real mmdebstrap of busybox: %lld ms\n", (long long)(mono_ms() - t0));
	assert_ext4(img);
	man = img_rootfs_manifest_path(img);
	text = tu_slurp(man, NULL);
	assert_non_null(text);
	assert_true(!strncmp(text, "busybox ", 8) || strstr(text, "\nbusybox "));
	assert_contains(text, "\ndash ");
	assert_contains(text, "\nlibc6 ");
	print_message("manifest:\n%s", text);
	free(text);
	text = debugfs(img, "stat /bin/busybox");
	assert_contains(text, "Type: regular");
	free(text);
	text = debugfs(img, "stat /bin/sh");
	assert_contains(text, "Type: symlink");
	free(text);
	assert_int_equal(dir_entries(f->cache, ".rootfs-"), 0);
	free(man);
	free(img);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bad_arch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_packages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_too_many_packages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_suite_mirror, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build, setup, teardown),
		cmocka_unit_test_setup_teardown(test_build_arm64_no_packages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_deb_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_tree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_found, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent, setup, teardown),
		cmocka_unit_test(test_manifest_path),
		cmocka_unit_test_setup_teardown(test_real_mmdebstrap, setup, teardown),
	};

	/* img_rootfs() logs each build; the tests say what they check */
	log_init("rootfs_test", LOG_LVL_WARN);
	return cmocka_run_group_tests_name("rootfs", tests, NULL, NULL);
}
