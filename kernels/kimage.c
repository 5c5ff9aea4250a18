// SPDX-License-Identifier: GPL-2.0-only
/* kimage.c: recognises kernel image files before a run is queued, so a
 * wrong path or a file that is not a kernel is refused at submit time with
 * a clear message instead of becoming a guest that never boots. */
#include "kernels/kernels.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KIMAGE_MIN (64 * 1024)
#define KIMAGE_MAX (512LL * 1024 * 1024)

static int fail(char **err, const char *path, const char *why)
{
	if (asprintf(err, "kernel '%s': %s", path, why) < 0)
		*err = NULL;
	return -1;
}

int kimage_check(const char *path, const char *arch, char **err)
{
	unsigned char hdr[0x240];
	struct stat st;
	ssize_t n;
	int fd, rc = -1;

	*err = NULL;
	if (!path || path[0] != '/')
		return fail(err, path ? path : "", "not an absolute path");
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fail(err, path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		fail(err, path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		fail(err, path, "not a regular file");
		goto out;
	}
	if (st.st_size < KIMAGE_MIN || st.st_size > KIMAGE_MAX) {
		fail(err, path, "size is not that of a kernel image (64 KiB to 512 MiB)");
		goto out;
	}
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr)) {
		fail(err, path, n < 0 ? strerror(errno) : "short read");
		goto out;
	}
	if (!strcmp(arch, "x86_64")) {
		/* boot_flag 0xAA55 at 0x1fe and the setup header magic at 0x202
		 * (Documentation/arch/x86/boot.rst) */
		if (hdr[0x1fe] != 0x55 || hdr[0x1ff] != 0xaa || memcmp(hdr + 0x202, "HdrS", 4)) {
			fail(err, path, "not an x86_64 bzImage (no 'HdrS' setup header at 0x202)");
			goto out;
		}
	} else if (!strcmp(arch, "arm64")) {
		/* Documentation/arch/arm64/booting.rst: magic at offset 0x38 */
		if (memcmp(hdr + 0x38, "ARM\x64", 4)) {
			fail(err, path, "not an arm64 Image (no 'ARM\\x64' magic at 0x38)");
			goto out;
		}
	} else {
		fail(err, path, "unknown arch");
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

/* The release is the first word of what follows; it must look like one. */
static int take_release(const char *s, size_t len, char *out, size_t n)
{
	size_t k = 0;

	while (k < len && k + 1 < n && s[k] > ' ' && s[k] < 0x7f)
		k++;
	if (k == 0 || k + 1 >= n || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(out, s, k);
	out[k] = '\0';
	return 0;
}

int kimage_release(const char *path, const char *arch, char *out, size_t n)
{
	static const char banner[] = "Linux version ";
	unsigned char hdr[0x210];
	char chunk[65536 + 128];
	size_t carry = 0;
	off_t off = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY), rc = -1;

	if (fd < 0)
		return -1;
	if (!strcmp(arch, "x86_64")) {
		/* kernel_version at 0x20e: offset of the string from 0x200 */
		if (pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr)) {
			off_t at = 0x200 + (hdr[0x20e] | hdr[0x20f] << 8);
			ssize_t r = pread(fd, chunk, 128, at);

			if (r > 0)
				rc = take_release(chunk, (size_t)r, out, n);
		}
		goto out;
	}
	/* arm64: scan the Image for the banner, at most 128 MiB */
	while (off < (128 << 20)) {
		ssize_t r = pread(fd, chunk + carry, sizeof(chunk) - 128 - carry, off);
		const char *hit;

		if (r <= 0)
			break;
		off += r;
		hit = memmem(chunk, carry + (size_t)r, banner, sizeof(banner) - 1);
		if (hit) {
			size_t at = (size_t)(hit - chunk) + sizeof(banner) - 1;
			size_t have = carry + (size_t)r - at;

			if (have < 64) {
				ssize_t more = pread(fd, chunk + carry + r, 64, off);

				if (more > 0)
					have += (size_t)more;
			}
			rc = take_release(chunk + at, have, out, n);
			goto out;
		}
		{
			/* keep a tail, in case the banner straddles two reads */
			size_t total = carry + (size_t)r;

			carry = total < 64 ? total : 64;
			memmove(chunk, chunk + total - carry, carry);
		}
	}
out:
	close(fd);
	return rc;
}

/* Section header i of an ELF64 file into sh. 0, or -1 when it is not there */
static int elf_section(int fd, const Elf64_Ehdr *eh, off_t size, unsigned i, Elf64_Shdr *sh)
{
	off_t at = (off_t)eh->e_shoff + (off_t)i * eh->e_shentsize;

	if (i >= eh->e_shnum || at < 0 || at + (off_t)sizeof(*sh) > size)
		return -1;
	return pread(fd, sh, sizeof(*sh), at) == (ssize_t)sizeof(*sh) ? 0 : -1;
}

int kimage_btf(const char *path, char **err)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, names;
	struct stat st;
	char name[8];
	int fd, rc = -1;

	*err = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fail(err, path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		fail(err, path, "not a regular file");
		goto out;
	}
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB) {
		fail(err, path, "not a 64-bit little-endian ELF file (a vmlinux)");
		goto out;
	}
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    elf_section(fd, &eh, st.st_size, eh.e_shstrndx, &names) < 0 ||
	    names.sh_offset > (uint64_t)st.st_size || names.sh_size > (uint64_t)st.st_size -
	    names.sh_offset) {
		fail(err, path, "ELF section headers are cut short or malformed");
		goto out;
	}
	for (unsigned i = 1; i < eh.e_shnum; i++) {
		if (elf_section(fd, &eh, st.st_size, i, &sh) < 0) {
			fail(err, path, "ELF section headers are cut short");
			goto out;
		}
		if (sh.sh_name >= names.sh_size || sh.sh_size == 0 ||
		    pread(fd, name, sizeof(name), (off_t)(names.sh_offset + sh.sh_name)) < 5)
			continue;
		if (!memcmp(name, ".BTF", 5) && sh.sh_offset <= (uint64_t)st.st_size &&
		    sh.sh_size <= (uint64_t)st.st_size - sh.sh_offset) {
			rc = 0;
			goto out;
		}
	}
	fail(err, path, "no .BTF section: built without CONFIG_DEBUG_INFO_BTF");
out:
	close(fd);
	return rc;
}
