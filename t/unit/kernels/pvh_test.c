// SPDX-License-Identifier: GPL-2.0-only
/* pvh_test.c: unit tests for kimage_pvh() (kernels/pvh.c), the
 * uncompressed kernel a bzImage carries, for a direct PVH entry. bzImages
 * are made here: a setup header pointing at an ELF with or without the
 * PVH note, compressed by libarchive (xz as Debian's kernels, gzip), and
 * broken ones (a payload past the end, a corrupt stream, a wrong size).
 * The host's own /boot/vmlinuz-* is unpacked too when there is one. */
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
#include <elf.h>
#include <glob.h>

#include "common/buf.h"
#include "kernels/kernels.h"
#include "t/unit/testutil.h"

struct fixture {
	char dir[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "pvh");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	tu_rmrf(f->dir);
	free(f);
	return 0;
}

/* An x86_64 ELF of len bytes with one PT_NOTE segment holding a "Xen" note
 * of type note_type (18: the PVH entry), its other bytes a pattern */
static void make_elf(unsigned char *e, size_t len, uint32_t note_type)
{
	Elf64_Ehdr eh = { 0 };
	Elf64_Phdr ph = { 0 };
	Elf64_Nhdr nh = { 4, 4, note_type };
	uint32_t entry = 0x1000000;

	for (size_t i = 0; i < len; i++)
		e[i] = (unsigned char)(i * 7 + i / 251);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_phoff = sizeof(eh);
	eh.e_phentsize = sizeof(ph);
	eh.e_phnum = 1;
	ph.p_type = PT_NOTE;
	ph.p_offset = 512;
	ph.p_filesz = sizeof(nh) + 4 + 4;
	memcpy(e, &eh, sizeof(eh));
	memcpy(e + sizeof(eh), &ph, sizeof(ph));
	memcpy(e + 512, &nh, sizeof(nh));
	memcpy(e + 512 + sizeof(nh), "Xen", 4);
	memcpy(e + 512 + sizeof(nh) + 4, &entry, 4);
}

/* p[0..n) compressed by libarchive's filter (ARCHIVE_FILTER_XZ, _GZIP),
 * with the size appended as the kernel's build does (not for gzip, whose
 * trailer says it) */
static void compress(const unsigned char *p, size_t n, int filter, struct buf *out)
{
	struct archive *a = archive_write_new();
	struct archive_entry *ent = archive_entry_new();
	size_t used = 0, cap = n + 65536;
	unsigned char *mem = malloc(cap), sz[4];

	assert_non_null(a);
	assert_non_null(mem);
	assert_int_equal(archive_write_add_filter(a, filter), ARCHIVE_OK);
	assert_int_equal(archive_write_set_format_raw(a), ARCHIVE_OK);
	assert_int_equal(archive_write_set_bytes_in_last_block(a, 1), ARCHIVE_OK);
	assert_int_equal(archive_write_open_memory(a, mem, cap, &used), ARCHIVE_OK);
	archive_entry_set_pathname(ent, "vmlinux");
	archive_entry_set_filetype(ent, AE_IFREG);
	archive_entry_set_size(ent, (la_int64_t)n);
	assert_int_equal(archive_write_header(a, ent), ARCHIVE_OK);
	assert_int_equal(archive_write_data(a, p, n), (la_ssize_t)n);
	assert_int_equal(archive_write_close(a), ARCHIVE_OK);
	archive_write_free(a);
	archive_entry_free(ent);
	assert_int_equal(buf_append(out, mem, used), 0);
	if (filter != ARCHIVE_FILTER_GZIP) {
		for (int i = 0; i < 4; i++)
			sz[i] = (unsigned char)(n >> (8 * i));
		assert_int_equal(buf_append(out, sz, 4), 0);
	}
	free(mem);
}

/* A bzImage at dir/name: 2 sectors of setup (one setup_sects), the
 * header's payload_offset and payload_length (length + extra: a header
 * that lies), then the payload */
static char *make_bz(const char *dir, const char *name, const struct buf *payload, long extra)
{
	unsigned char *bz = calloc(1, 1024 + payload->len);
	uint32_t len = (uint32_t)((long)payload->len + extra), off = 0;
	char *path = tu_path(dir, name);

	assert_non_null(bz);
	bz[0x1f1] = 1;
	memcpy(bz + 0x202, "HdrS", 4);
	bz[0x206] = 0x0f;   /* protocol 2.15 */
	bz[0x207] = 0x02;
	memcpy(bz + 0x248, &off, 4);
	memcpy(bz + 0x24c, &len, 4);
	memcpy(bz + 1024, payload->data, payload->len);
	tu_write(path, bz, 1024 + payload->len, 0);
	free(bz);
	return path;
}

/* kimage_pvh() of path into f's cache: its return, the file it names
 * compared with want (want_len bytes) when it gave one */
static int pvh(struct fixture *f, const char *path, const unsigned char *want, size_t want_len,
	       char **err)
{
	char *cache = tu_path(f->dir, "cache"), *out = NULL;
	int rc = kimage_pvh(path, cache, &out, err);

	if (rc == 1) {
		struct buf got = BUF_INIT(0);

		assert_non_null(out);
		assert_int_equal(strncmp(out, cache, strlen(cache)), 0);
		assert_int_equal(read_file(out, &got, 1 << 26), 0);
		assert_int_equal(got.len, want_len);
		assert_memory_equal(got.data, want, want_len);
		buf_release(&got);
	} else {
		assert_null(out);
	}
	free(out);
	free(cache);
	return rc;
}

static void test_unpacks(void **state)
{
	struct fixture *f = *state;
	size_t n = 300000;
	unsigned char *elf = malloc(n);
	static const int filters[] = { ARCHIVE_FILTER_XZ, ARCHIVE_FILTER_GZIP };
	char *err = NULL;

	assert_non_null(elf);
	make_elf(elf, n, 18);
	assert_int_equal(kimage_pvh_entry(elf, n), 1);
	for (size_t i = 0; i < 2; i++) {
		struct buf p = BUF_INIT(0);
		char name[32], *bz;

		compress(elf, n, filters[i], &p);
		snprintf(name, sizeof(name), "bz%zu", i);
		bz = make_bz(f->dir, name, &p, 0);
		assert_int_equal(pvh(f, bz, elf, n, &err), 1);
		assert_null(err);
		assert_int_equal(pvh(f, bz, elf, n, &err), 1);   /* again, from the cache */
		free(bz);
		buf_release(&p);
	}
	free(elf);
}

/* What has no PVH entry to give is 0, quietly: an ELF without the note,
 * a file that is not a bzImage */
static void test_none(void **state)
{
	struct fixture *f = *state;
	size_t n = 4096;
	unsigned char *elf = malloc(n);
	struct buf p = BUF_INIT(0);
	char *err = NULL, *bz, *other = tu_path(f->dir, "Image");

	assert_non_null(elf);
	make_elf(elf, n, 17);   /* XEN_ELFNOTE_SUPPORTED_FEATURES, not the entry */
	assert_int_equal(kimage_pvh_entry(elf, n), 0);
	compress(elf, n, ARCHIVE_FILTER_XZ, &p);
	bz = make_bz(f->dir, "nopvh", &p, 0);
	assert_int_equal(pvh(f, bz, NULL, 0, &err), 0);
	assert_null(err);
	{
		/* the answer is kept by the file's stat: the same file is not
		 * unpacked again (its stream broken behind the same size and
		 * mtime still says 0), a changed one is (-1 then) */
		struct stat st;
		struct timespec t[2];

		assert_int_equal(stat(bz, &st), 0);
		t[0] = st.st_atim;
		t[1] = st.st_mtim;
		p.data[p.len / 2] ^= 0x55;
		p.data[p.len / 2 + 1] ^= 0x55;
		free(make_bz(f->dir, "nopvh", &p, 0));
		assert_int_equal(utimensat(AT_FDCWD, bz, t, 0), 0);
		assert_int_equal(pvh(f, bz, NULL, 0, &err), 0);
		assert_null(err);
		t[1].tv_sec -= 10;
		assert_int_equal(utimensat(AT_FDCWD, bz, t, 0), 0);
		assert_int_equal(pvh(f, bz, NULL, 0, &err), -1);
		assert_non_null(strstr(err, "the payload"));
		free(err);
		err = NULL;
	}
	tu_write(other, elf, n, 0);   /* an ELF itself: no setup header */
	assert_int_equal(pvh(f, other, NULL, 0, &err), 0);
	assert_null(err);
	free(bz);
	free(other);
	buf_release(&p);
	free(elf);
}

/* A bzImage that should carry a kernel but does not give it: -1 with why */
static void test_broken(void **state)
{
	struct fixture *f = *state;
	size_t n = 200000;
	unsigned char *elf = malloc(n);
	struct buf p = BUF_INIT(0);
	char *err = NULL, *bz;

	assert_non_null(elf);
	make_elf(elf, n, 18);
	compress(elf, n, ARCHIVE_FILTER_XZ, &p);

	bz = make_bz(f->dir, "past", &p, 100);
	assert_int_equal(pvh(f, bz, NULL, 0, &err), -1);
	assert_non_null(strstr(err, "past the file's end"));
	assert_non_null(strstr(err, bz));
	free(err);
	free(bz);

	p.data[p.len / 2] ^= 0x55;   /* the stream corrupt */
	p.data[p.len / 2 + 1] ^= 0x55;
	bz = make_bz(f->dir, "corrupt", &p, 0);
	assert_int_equal(pvh(f, bz, NULL, 0, &err), -1);
	assert_non_null(strstr(err, "the payload"));
	free(err);
	free(bz);
	p.data[p.len / 2] ^= 0x55;
	p.data[p.len / 2 + 1] ^= 0x55;

	p.data[p.len - 1] = 0x01;   /* the size appended says 16 MiB more than it holds */
	bz = make_bz(f->dir, "short", &p, 0);
	assert_int_equal(pvh(f, bz, NULL, 0, &err), -1);
	assert_non_null(strstr(err, "unpacks to 200000 bytes, not the 16977216 it says"));
	free(err);
	free(bz);
	p.data[p.len - 1] = 0x00;
	p.data[p.len - 2] = 0x01;   /* ... 128 KiB less */
	bz = make_bz(f->dir, "long", &p, 0);
	assert_int_equal(pvh(f, bz, NULL, 0, &err), -1);
	assert_non_null(strstr(err, "unpacks to more than the 68928 bytes it says"));
	free(err);
	free(bz);

	buf_reset(&p);   /* not compressed at all, with its size after it */
	assert_int_equal(buf_append(&p, elf, n), 0);
	assert_int_equal(buf_append(&p, "\x40\x0d\x03\x00", 4), 0);
	bz = make_bz(f->dir, "plain", &p, 0);
	assert_int_equal(pvh(f, bz, NULL, 0, &err), -1);
	assert_non_null(strstr(err, "not in a compression format"));
	free(err);
	free(bz);
	buf_release(&p);
	free(elf);
}

/* The host's kernel: Debian's are XZ and CONFIG_PVH */
static void test_host_kernel(void **state)
{
	struct fixture *f = *state;
	char *cache = tu_path(f->dir, "cache"), *out = NULL, *err = NULL;
	struct buf got = BUF_INIT(0);
	glob_t g;

	if (glob("/boot/vmlinuz-*", 0, NULL, &g) != 0) {
		free(cache);
		skip();
	}
	assert_int_equal(kimage_pvh(g.gl_pathv[g.gl_pathc - 1], cache, &out, &err), 1);
	assert_int_equal(read_file(out, &got, 1u << 30), 0);
	assert_int_equal(kimage_pvh_entry((unsigned char *)got.data, got.len), 1);
	assert_true(got.len > 4u << 20);
	buf_release(&got);
	free(out);
	free(cache);
	globfree(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unpacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_none, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken, setup, teardown),
		cmocka_unit_test_setup_teardown(test_host_kernel, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
