// SPDX-License-Identifier: GPL-2.0-only
/* kimage_test.c: unit tests for kimage_check() (kernels/kimage.c), which
 * refuses at submit time what is not a bootable kernel image for the arch,
 * and for kimage_btf(), which tells whether a vmlinux has BTF (ELF files
 * written section by section here, well-formed and broken).
 * Fake bzImage and arm64 Image headers are written to a temporary
 * directory; the host's own /boot/vmlinuz-* is checked when there is one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <elf.h>
#include <glob.h>
#include <signal.h>
#include <sys/wait.h>

#include "kernels/kernels.h"
#include "t/unit/testutil.h"

#define KIB 1024

struct fixture {
	char dir[128];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	tu_tmpdir(f->dir, sizeof(f->dir), "kimage");
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

/* Writes size bytes of pseudo-random data with the given magic bytes set;
 * returns the path, caller frees. */
static char *fake(struct fixture *f, const char *name, size_t size,
		  const unsigned char *bytes, size_t nbytes, size_t at)
{
	char *path = tu_path(f->dir, name);
	unsigned char *data = malloc(size);
	uint32_t x = 2463534242U;

	assert_non_null(data);
	for (size_t i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		data[i] = (unsigned char)x;
	}
	if (nbytes)
		memcpy(data + at, bytes, nbytes);
	tu_write(path, data, size, 0);
	free(data);
	return path;
}

static char *fake_bzimage(struct fixture *f, const char *name, size_t size)
{
	char *path = fake(f, name, size, (const unsigned char *)"\x55\xaa", 2, 0x1fe);
	char *tmp = tu_slurp(path, NULL);

	/* "HdrS" at 0x202 too */
	memcpy(tmp + 0x202, "HdrS", 4);
	tu_write(path, tmp, size, 0);
	free(tmp);
	return path;
}

static void expect_ok(const char *path, const char *arch)
{
	char *err = (char *)"unset";

	if (kimage_check(path, arch, &err) < 0)
		fail_msg("'%s' refused for %s: %s", path, arch, err ? err : "?");
	assert_null(err);
}

/* Refused, with an error that names the path and says why */
static void expect_err(const char *path, const char *arch, const char *why)
{
	char *err = NULL;

	if (kimage_check(path, arch, &err) == 0)
		fail_msg("'%s' accepted for %s", path ? path : "(null)", arch);
	assert_non_null(err);
	if (path && !strstr(err, path))
		fail_msg("error does not name '%s': %s", path, err);
	if (!strstr(err, why))
		fail_msg("error lacks '%s': %s", why, err);
	free(err);
}

static void test_bzimage(void **state)
{
	struct fixture *f = *state;
	char *p = fake_bzimage(f, "bzImage", 64 * KIB);

	expect_ok(p, "x86_64");
	expect_err(p, "arm64", "not an arm64 Image");
	expect_err(p, "riscv64", "unknown arch");
	free(p);
	/* bigger is fine too */
	p = fake_bzimage(f, "bzImage-big", 12 * KIB * KIB);
	expect_ok(p, "x86_64");
	free(p);
}

static void test_bzimage_half_header(void **state)
{
	struct fixture *f = *state;
	char *p = fake(f, "boot-flag-only", 64 * KIB, (const unsigned char *)"\x55\xaa", 2, 0x1fe);
	char *q = fake(f, "hdrs-only", 64 * KIB, (const unsigned char *)"HdrS", 4, 0x202);

	expect_err(p, "x86_64", "not an x86_64 bzImage");
	expect_err(q, "x86_64", "not an x86_64 bzImage");
	free(p);
	free(q);
}

static void test_arm64_image(void **state)
{
	struct fixture *f = *state;
	char *p = fake(f, "Image", 64 * KIB, (const unsigned char *)"ARM\x64", 4, 0x38);

	expect_ok(p, "arm64");
	expect_err(p, "x86_64", "not an x86_64 bzImage");
	free(p);
}

static void test_bad_paths(void **state)
{
	struct fixture *f = *state;
	char *missing = tu_path(f->dir, "vmlinuz-missing"), *err = NULL;

	expect_err("boot/vmlinuz", "x86_64", "not an absolute path");
	expect_err("./bzImage", "x86_64", "not an absolute path");
	expect_err("", "x86_64", "not an absolute path");
	assert_int_equal(kimage_check(NULL, "x86_64", &err), -1);
	assert_non_null(err);
	free(err);
	expect_err(missing, "x86_64", "No such file");
	expect_err(f->dir, "x86_64", "not a regular file");
	expect_err("/dev/null", "x86_64", "not a regular file");
	free(missing);
}

static void test_sizes(void **state)
{
	struct fixture *f = *state;
	char *small = fake_bzimage(f, "small", 64 * KIB - 1);
	char *empty = tu_path(f->dir, "empty");

	expect_err(small, "x86_64", "size is not that of a kernel image");
	tu_write(empty, "", 0, 0);
	expect_err(empty, "x86_64", "size is not that of a kernel image");
	free(small);
	free(empty);
}

static void test_random_bytes(void **state)
{
	struct fixture *f = *state;
	char *p = fake(f, "random", 256 * KIB, NULL, 0, 0);

	expect_err(p, "x86_64", "not an x86_64 bzImage");
	expect_err(p, "arm64", "not an arm64 Image");
	free(p);
}

/* A FIFO is refused at once: kimage_check() runs on the submit path with a
 * path the user chose, so it must not wait for a writer that never comes.
 * Run in a child that is killed after 3 s. */
static void test_fifo_does_not_block(void **state)
{
	struct fixture *f = *state;
	char *p = tu_path(f->dir, "fifo");
	int status = 0;
	pid_t pid, w = 0;

	assert_int_equal(mkfifo(p, 0644), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char *err = NULL;
		int rc = kimage_check(p, "x86_64", &err);

		_exit(rc == -1 && err && strstr(err, "not a regular file") ? 0 : 3);
	}
	for (int i = 0; i < 300 && (w = waitpid(pid, &status, WNOHANG)) == 0; i++)
		usleep(10000);
	if (w == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		free(p);
		fail_msg("kimage_check on a FIFO still blocked after 3 s");
	}
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	free(p);
}

static void test_unreadable(void **state)
{
	struct fixture *f = *state;
	char *p = fake_bzimage(f, "secret", 64 * KIB);

	chmod(p, 0);
	if (access(p, R_OK) == 0) {
		/* root reads anything: nothing to check here */
		free(p);
		skip();
	}
	expect_err(p, "x86_64", "Permission denied");
	free(p);
}

static void test_host_kernel(void **state)
{
	glob_t g;
	size_t checked = 0;

	(void)state;
	if (glob("/boot/vmlinuz-*", 0, NULL, &g) != 0)
		skip();
	for (size_t i = 0; i < g.gl_pathc; i++) {
		if (access(g.gl_pathv[i], R_OK) < 0)
			continue;
		expect_ok(g.gl_pathv[i], "x86_64");
		checked++;
	}
	globfree(&g);
	if (!checked)
		skip();
}

/* x86_64: the setup header's kernel_version offset (0x20e) points, from
 * 0x200, to "RELEASE (builder) #1 ..." */
static void test_release_x86(void **state)
{
	struct fixture *f = *state;
	char *p = fake_bzimage(f, "bzImage-rel", 64 * KIB), *data = tu_slurp(p, NULL);
	static const char v[] = "6.13.0-rc1-kf+ (tom@box) #7 SMP";
	char rel[64];

	data[0x20e] = 0x00;   /* 0x1000 - 0x200 = 0x0e00 */
	data[0x20f] = 0x0e;
	memcpy(data + 0x1000, v, sizeof(v));
	tu_write(p, data, 64 * KIB, 0);
	assert_int_equal(kimage_release(p, "x86_64", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "6.13.0-rc1-kf+");
	/* a pointer to garbage is no release */
	memcpy(data + 0x1000, "\x01\x02zz", 4);
	tu_write(p, data, 64 * KIB, 0);
	assert_int_equal(kimage_release(p, "x86_64", rel, sizeof(rel)), -1);
	free(data);
	free(p);
}

/* arm64: the "Linux version" banner anywhere in the Image, also across the
 * reader's chunk boundary */
static void test_release_arm64(void **state)
{
	struct fixture *f = *state;
	static const char banner[] = "Linux version 6.1.0-57-arm64 (debian-kernel@lists.debian.org)";
	size_t at[] = { 0x3000, 65536 - 5, 3 * 65536 + 100 };
	char rel[64];

	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		char *p = fake(f, "Image-rel", 512 * KIB, (const unsigned char *)banner,
			       sizeof(banner) - 1, at[i]);

		assert_int_equal(kimage_release(p, "arm64", rel, sizeof(rel)), 0);
		assert_string_equal(rel, "6.1.0-57-arm64");
		free(p);
	}
}

static void test_release_host(void **state)
{
	glob_t g;
	char rel[128], want[160];

	(void)state;
	if (glob("/boot/vmlinuz-*", 0, NULL, &g) != 0 || g.gl_pathc == 0)
		skip();
	assert_int_equal(kimage_release(g.gl_pathv[0], "x86_64", rel, sizeof(rel)), 0);
	snprintf(want, sizeof(want), "/boot/vmlinuz-%s", rel);
	assert_string_equal(g.gl_pathv[0], want);
	globfree(&g);
}

/* An ELF64 file with sections named names[i] of sizes[i] bytes (plus the
 * null section and .shstrtab); cut: bytes dropped from the end */
static char *fake_elf(struct fixture *f, const char *file, const char *const *names,
		      const size_t *sizes, size_t n, size_t cut)
{
	char strtab[256] = "", *data, *path = tu_path(f->dir, file);
	size_t slen = 1, off, total, shoff;
	Elf64_Ehdr eh = { 0 };
	Elf64_Shdr sh[8] = { 0 };

	assert_true(n + 2 <= 8);
	off = sizeof(eh);
	for (size_t i = 0; i < n; i++) {
		sh[i + 1].sh_name = (Elf64_Word)slen;
		sh[i + 1].sh_type = SHT_PROGBITS;
		sh[i + 1].sh_offset = off;
		sh[i + 1].sh_size = sizes[i];
		off += sizes[i];
		strcpy(strtab + slen, names[i]);
		slen += strlen(names[i]) + 1;
	}
	sh[n + 1].sh_name = (Elf64_Word)slen;
	strcpy(strtab + slen, ".shstrtab");
	slen += 10;
	sh[n + 1].sh_type = SHT_STRTAB;
	sh[n + 1].sh_offset = off;
	sh[n + 1].sh_size = slen;
	shoff = off + slen;
	total = shoff + (n + 2) * sizeof(Elf64_Shdr);
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_X86_64;
	eh.e_shoff = shoff;
	eh.e_ehsize = sizeof(eh);
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)(n + 2);
	eh.e_shstrndx = (Elf64_Half)(n + 1);
	data = calloc(1, total);
	assert_non_null(data);
	memcpy(data, &eh, sizeof(eh));
	memset(data + sizeof(eh), 0xb7, off - sizeof(eh));
	memcpy(data + off, strtab, slen);
	memcpy(data + shoff, sh, (n + 2) * sizeof(Elf64_Shdr));
	tu_write(path, data, total - cut, 0);
	free(data);
	return path;
}

static void btf_expect(const char *path, int rc, const char *msg)
{
	char *err = NULL;

	assert_int_equal(kimage_btf(path, &err), rc);
	if (rc == 0) {
		assert_null(err);
		return;
	}
	assert_non_null(err);
	if (!strstr(err, msg))
		fail_msg("'%s': expected '%s' in '%s'", path, msg, err);
	free(err);
}

static void test_btf(void **state)
{
	struct fixture *f = *state;
	static const char *const with[] = { ".text", ".BTF", ".BTF_ids" };
	static const char *const ids[] = { ".text", ".BTF_ids", ".BTF.ext" };
	static const char *const empty[] = { ".BTF" };
	static const size_t sz[] = { 4096, 1024, 64 }, zero[] = { 0 };
	char *p;

	p = fake_elf(f, "vmlinux", with, sz, 3, 0);
	btf_expect(p, 0, NULL);
	free(p);
	/* names that start like .BTF are not it */
	p = fake_elf(f, "ids", ids, sz, 3, 0);
	btf_expect(p, -1, "no .BTF section");
	free(p);
	p = fake_elf(f, "empty", empty, zero, 1, 0);
	btf_expect(p, -1, "no .BTF section");
	free(p);
	/* the section table cut short */
	p = fake_elf(f, "cut", with, sz, 3, 20);
	btf_expect(p, -1, "cut short");
	free(p);
	p = fake(f, "random", 64 * KIB, NULL, 0, 0);
	btf_expect(p, -1, "not a 64-bit little-endian ELF");
	free(p);
	p = fake(f, "short", 10, (const unsigned char *)ELFMAG, SELFMAG, 0);
	btf_expect(p, -1, "not a 64-bit little-endian ELF");
	free(p);
	btf_expect("/nonexistent/vmlinux", -1, "No such file");
}

/* Header fields that point outside the file: the string table's index,
 * its offset, a section's size */
static void test_btf_malformed(void **state)
{
	struct fixture *f = *state;
	static const char *const with[] = { ".BTF" };
	static const size_t sz[] = { 512 };
	size_t len;
	char *p = fake_elf(f, "bad", with, sz, 1, 0), *d = tu_slurp(p, &len);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)d;
	Elf64_Shdr *sh = (Elf64_Shdr *)(d + eh->e_shoff);

	eh->e_shstrndx = 9;
	tu_write(p, d, len, 0);
	btf_expect(p, -1, "malformed");
	eh->e_shstrndx = 2;
	sh[2].sh_offset = 1u << 30;
	tu_write(p, d, len, 0);
	btf_expect(p, -1, "malformed");
	sh[2].sh_offset = sizeof(*eh) + 512;
	sh[1].sh_size = 1u << 30;     /* .BTF past the end of the file */
	tu_write(p, d, len, 0);
	btf_expect(p, -1, "no .BTF section");
	sh[1].sh_size = 512;
	sh[1].sh_name = 60000;        /* a name past the string table */
	tu_write(p, d, len, 0);
	btf_expect(p, -1, "no .BTF section");
	sh[1].sh_name = 1;
	eh->e_shentsize = 40;
	tu_write(p, d, len, 0);
	btf_expect(p, -1, "malformed");
	free(d);
	free(p);
}

/* The host's bzImage is not a vmlinux: kfleet extracts one from it */
static void test_btf_bzimage(void **state)
{
	glob_t g;

	(void)state;
	if (glob("/boot/vmlinuz-*", 0, NULL, &g) != 0 || g.gl_pathc == 0)
		skip();
	btf_expect(g.gl_pathv[0], -1, "not a 64-bit little-endian ELF");
	globfree(&g);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_bzimage),
		T(test_bzimage_half_header),
		T(test_arm64_image),
		T(test_bad_paths),
		T(test_sizes),
		T(test_random_bytes),
		T(test_fifo_does_not_block),
		T(test_unreadable),
		cmocka_unit_test(test_host_kernel),
		T(test_release_x86),
		T(test_release_arm64),
		cmocka_unit_test(test_release_host),
		T(test_btf),
		T(test_btf_malformed),
		cmocka_unit_test(test_btf_bzimage),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
