// SPDX-License-Identifier: GPL-2.0-only
/* modules_test.c: img_modules_initramfs() (images/initramfs.c) on a made-up
 * /lib/modules/RELEASE: dependency order from modules.dep, built-in modules
 * skipped, the archive's contents and load list, the cache, and the errors
 * for a missing module, a compressed one and a missing modules.dep. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <archive.h>
#include <archive_entry.h>

#include "common/util.h"
#include "images/images.h"
#include "t/unit/testutil.h"

struct fx {
	char dir[128];
	char moddir[256];
	char cache[256];
};

static void put(const char *root, const char *rel, const char *text)
{
	char *p = path_join(root, rel), *dir = strdup(p);
	size_t cut = (size_t)(strrchr(p, '/') - p);

	dir[cut] = '\0';
	assert_int_equal(mkdir_p(dir, 0755), 0);
	tu_write_str(p, text);
	free(dir);
	free(p);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	tu_tmpdir(f->dir, sizeof(f->dir), "modules");
	snprintf(f->moddir, sizeof(f->moddir), "%s/lib/modules/6.1.0-test", f->dir);
	snprintf(f->cache, sizeof(f->cache), "%s/cache", f->dir);
	/* as depmod writes it: every dependency listed, the one to load first last */
	put(f->moddir, "modules.dep",
	    "kernel/drivers/virtio/virtio.ko: kernel/drivers/virtio/virtio_ring.ko\n"
	    "kernel/drivers/virtio/virtio_ring.ko:\n"
	    "kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_modern_dev.ko"
	    " kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko\n"
	    "kernel/drivers/virtio/virtio_pci_modern_dev.ko: kernel/drivers/virtio/virtio.ko"
	    " kernel/drivers/virtio/virtio_ring.ko\n"
	    "kernel/drivers/char/virtio_console.ko: kernel/drivers/virtio/virtio.ko"
	    " kernel/drivers/virtio/virtio_ring.ko\n"
	    "kernel/fs/ext4/ext4.ko.xz: kernel/lib/crc16.ko\n"
	    "kernel/drivers/block/virtio-blk.ko: kernel/drivers/virtio/virtio.ko"
	    " kernel/drivers/virtio/virtio_ring.ko\n");
	put(f->moddir, "modules.builtin", "kernel/drivers/tty/serial/8250/8250.ko\n");
	put(f->moddir, "kernel/drivers/virtio/virtio.ko", "virtio module");
	put(f->moddir, "kernel/drivers/virtio/virtio_ring.ko", "virtio_ring module");
	put(f->moddir, "kernel/drivers/virtio/virtio_pci.ko", "virtio_pci module");
	put(f->moddir, "kernel/drivers/virtio/virtio_pci_modern_dev.ko", "modern module");
	put(f->moddir, "kernel/drivers/char/virtio_console.ko", "console module");
	put(f->moddir, "kernel/drivers/block/virtio-blk.ko", "blk module");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tu_rmrf(f->dir);
	free(f);
	return 0;
}

/* Reads the gzip'd cpio at path; returns the text of entry want (caller
 * frees) and the number of entries in *count. */
static char *entry_text(const char *path, const char *want, int *count)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *text = NULL;

	archive_read_support_filter_gzip(a);
	archive_read_support_format_cpio(a);
	assert_int_equal(archive_read_open_filename(a, path, 4096), ARCHIVE_OK);
	*count = 0;
	while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
		(*count)++;
		if (!strcmp(archive_entry_pathname(e), want)) {
			la_int64_t n = archive_entry_size(e);

			text = calloc(1, (size_t)n + 1);
			assert_int_equal(archive_read_data(a, text, (size_t)n), n);
		}
	}
	archive_read_free(a);
	return text;
}

static void test_order_and_contents(void **state)
{
	struct fx *f = *state;
	const char *names[] = { "virtio_pci", "virtio-console", "8250" };
	char *err = NULL, *path, *list, *mod;
	int count;

	path = img_modules_initramfs(f->moddir, names, 3, f->cache, &err);
	if (!path)
		fail_msg("%s", err);
	list = entry_text(path, "kfleet/modules", &count);
	assert_non_null(list);
	/* dependencies first, each once; 8250 is built in */
	assert_string_equal(list,
		"/lib/modules/6.1.0-test/kfleet/virtio_ring.ko\n"
		"/lib/modules/6.1.0-test/kfleet/virtio.ko\n"
		"/lib/modules/6.1.0-test/kfleet/virtio_pci_modern_dev.ko\n"
		"/lib/modules/6.1.0-test/kfleet/virtio_pci.ko\n"
		"/lib/modules/6.1.0-test/kfleet/virtio_console.ko\n");
	/* 4 directories, 5 modules, the list */
	assert_int_equal(count, 10);
	mod = entry_text(path, "lib/modules/6.1.0-test/kfleet/virtio_pci.ko", &count);
	assert_string_equal(mod, "virtio_pci module");
	free(mod);
	free(list);
	free(path);
}

static void test_cache(void **state)
{
	struct fx *f = *state;
	const char *names[] = { "virtio_console" };
	char *err = NULL, *a, *b, *c, *p;
	struct stat st1, st2;

	a = img_modules_initramfs(f->moddir, names, 1, f->cache, &err);
	assert_non_null(a);
	assert_int_equal(stat(a, &st1), 0);
	b = img_modules_initramfs(f->moddir, names, 1, f->cache, &err);
	assert_string_equal(a, b);
	assert_int_equal(stat(b, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	/* a changed module is a new archive */
	p = path_join(f->moddir, "kernel/drivers/char/virtio_console.ko");
	tu_write_str(p, "console module, rebuilt");
	c = img_modules_initramfs(f->moddir, names, 1, f->cache, &err);
	assert_non_null(c);
	assert_string_not_equal(a, c);
	free(p);
	free(a);
	free(b);
	free(c);
}

static void test_errors(void **state)
{
	struct fx *f = *state;
	const char *missing[] = { "virtio_pci", "nosuch" };
	const char *xz[] = { "ext4" };
	char *err = NULL, other[300];

	assert_null(img_modules_initramfs(f->moddir, missing, 2, f->cache, &err));
	assert_non_null(strstr(err, "module 'nosuch': not in"));
	free(err);
	err = NULL;
	assert_null(img_modules_initramfs(f->moddir, xz, 1, f->cache, &err));
	assert_non_null(strstr(err, "only uncompressed .ko modules"));
	free(err);
	err = NULL;
	snprintf(other, sizeof(other), "%s/lib/modules/9.9.9", f->dir);
	assert_null(img_modules_initramfs(other, xz, 1, f->cache, &err));
	assert_non_null(strstr(err, "modules.dep"));
	assert_non_null(strstr(err, "No such file"));
	free(err);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_order_and_contents),
		T(test_cache),
		T(test_errors),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
