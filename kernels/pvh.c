// SPDX-License-Identifier: GPL-2.0-only
/* pvh.c: the kernel inside an x86_64 bzImage, uncompressed, for QEMU to
 * enter directly at its PVH entry point ([host] boot = fast). A bzImage
 * boots through real-mode setup code and then unpacks itself: under TCG,
 * undoing the XZ of a distribution kernel's 8 MB is most of a 1-vCPU
 * guest's boot. The ELF vmlinux the bzImage carries (its payload, found by
 * the setup header's payload_offset and payload_length) has, with
 * CONFIG_PVH, a Xen note giving a 32-bit entry point; QEMU's -kernel boots
 * such an ELF with its pvh.bin option ROM, under SeaBIOS or qboot, the
 * initrd passed in the PVH start info. The payload is decompressed with
 * libarchive (gzip, xz, lzma, bzip2, lz4, zstd, lzo: whatever the kernel
 * was built with) and kept under the cache directory by the bzImage's
 * sha256. */
#include "kernels/kernels.h"

#include <archive.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/hash.h"
#include "common/util.h"

#define BZ_MAX   (64u << 20)    /* a bzImage bigger than this is not read */
#define ELF_MAX  (512u << 20)   /* nor an uncompressed kernel bigger than this */
#define XEN_ELFNOTE_PHYS32_ENTRY 18

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int kimage_payload(const unsigned char *bz, size_t len, size_t *off, size_t *n)
{
	size_t setup;

	/* the setup header (Documentation/arch/x86/boot.rst): "HdrS", protocol
	 * 2.08 or later for payload_offset/_length */
	if (len < 0x250 || memcmp(bz + 0x202, "HdrS", 4) || (bz[0x206] | bz[0x207] << 8) < 0x208)
		return 0;
	setup = (size_t)(bz[0x1f1] ? bz[0x1f1] : 4) + 1;
	*off = setup * 512 + le32(bz + 0x248);
	*n = le32(bz + 0x24c);
	return *n > 4 && *off < len && *n <= len - *off ? 1 : -1;
}

int kimage_pvh_entry(const unsigned char *e, size_t len)
{
	const Elf64_Ehdr *eh = (const void *)e;

	if (len < sizeof(*eh) || memcmp(e, ELFMAG, SELFMAG) || e[EI_CLASS] != ELFCLASS64 ||
	    eh->e_machine != EM_X86_64 || eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phoff > len || eh->e_phnum > (len - eh->e_phoff) / sizeof(Elf64_Phdr))
		return 0;
	for (unsigned i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr ph;
		size_t at, end;

		memcpy(&ph, e + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type != PT_NOTE || ph.p_offset > len || ph.p_filesz > len - ph.p_offset)
			continue;
		at = ph.p_offset;
		end = ph.p_offset + ph.p_filesz;
		while (end - at >= sizeof(Elf64_Nhdr)) {
			Elf64_Nhdr nh;
			size_t name, desc;

			memcpy(&nh, e + at, sizeof(nh));
			name = ((size_t)nh.n_namesz + 3) & ~(size_t)3;
			desc = ((size_t)nh.n_descsz + 3) & ~(size_t)3;
			if (name > end - at - sizeof(nh) || desc > end - at - sizeof(nh) - name)
				break;
			if (nh.n_namesz == 4 && !memcmp(e + at + sizeof(nh), "Xen", 4) &&
			    nh.n_type == XEN_ELFNOTE_PHYS32_ENTRY && nh.n_descsz >= 4)
				return 1;
			at += sizeof(nh) + name + desc;
		}
	}
	return 0;
}

/* The payload p[0..n) decompressed into out. The kernel's build appends
 * the uncompressed size after the stream (gzip's own trailer says it
 * instead): exactly that many bytes are wanted. 0, or -1 with why in err. */
static int unpack(const unsigned char *p, size_t n, struct buf *out, char *err, size_t en)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ent;
	size_t want = le32(p + n - 4);
	char blk1[1];
	int rc = -1;

	if (!a) {
		snprintf(err, en, "out of memory");
		return -1;
	}
	if (want < sizeof(Elf64_Ehdr) || want > ELF_MAX) {
		snprintf(err, en, "the payload says it unpacks to %zu bytes", want);
		goto out;
	}
	archive_read_support_filter_all(a);
	archive_read_support_format_raw(a);
	/* the stream alone: past it, xz's reader takes the size for the next
	 * stream and fails */
	if (archive_read_open_memory(a, p, n - (p[0] == 0x1f && p[1] == 0x8b ? 0 : 4)) !=
	    ARCHIVE_OK ||
	    archive_read_next_header(a, &ent) != ARCHIVE_OK) {
		snprintf(err, en, "the payload: %s", archive_error_string(a) ?
			 archive_error_string(a) : "not a compressed stream");
		goto out;
	}
	if (archive_filter_count(a) < 2) {   /* "none" alone: nothing was decompressed */
		snprintf(err, en, "the payload is not in a compression format libarchive reads");
		goto out;
	}
	while (out->len < want) {
		char blk[65536];
		la_ssize_t r = archive_read_data(a, blk, sizeof(blk));

		if (r < 0) {
			snprintf(err, en, "the payload (%s): %s", archive_filter_name(a, 0),
				 archive_error_string(a) ? archive_error_string(a) : "corrupt");
			goto out;
		}
		if (r == 0)
			break;
		if (buf_append(out, blk, (size_t)r) < 0) {
			snprintf(err, en, "out of memory");
			goto out;
		}
	}
	if (out->len < want) {
		snprintf(err, en, "the payload (%s) unpacks to %zu bytes, not the %zu it says",
			 archive_filter_name(a, 0), out->len, want);
		goto out;
	}
	if (out->len > want || archive_read_data(a, blk1, 1) != 0) {
		snprintf(err, en, "the payload (%s) unpacks to more than the %zu bytes it says",
			 archive_filter_name(a, 0), want);
		goto out;
	}
	rc = 0;
out:
	archive_read_free(a);
	return rc;
}

/* One unpacking at a time: two runs of a new kernel at once would write
 * the same temporary file (write_file's is per process) */
static pthread_mutex_t unpack_lock = PTHREAD_MUTEX_INITIALIZER;

/* The kernels looked at lately, by the file they came from as stat() saw
 * it, with what they gave (out NULL: no PVH entry): a run of one of them
 * reads, hashes and unpacks no 8 MB again (60 ms when it was unpacked
 * before; the whole unpacking, every run, for a kernel without the note) */
#define MEMO 16
static struct {
	int used;
	dev_t dev;
	ino_t ino;
	off_t size;
	struct timespec mtime;
	char *out;
} memo[MEMO];
static unsigned memo_next;

/* 1 when k was looked at before, *out then a copy of what it gave (NULL:
 * no PVH entry); 0 when not (or its file is gone from the cache) */
static int memo_find(const struct stat *k, char **out)
{
	int hit = 0;
	struct stat st;

	pthread_mutex_lock(&unpack_lock);
	for (unsigned i = 0; i < MEMO && !hit; i++)
		if (memo[i].used && memo[i].dev == k->st_dev && memo[i].ino == k->st_ino &&
		    memo[i].size == k->st_size && memo[i].mtime.tv_sec == k->st_mtim.tv_sec &&
		    memo[i].mtime.tv_nsec == k->st_mtim.tv_nsec &&
		    (!memo[i].out || stat(memo[i].out, &st) == 0)) {
			*out = memo[i].out ? strdup(memo[i].out) : NULL;
			hit = !memo[i].out || *out;
		}
	pthread_mutex_unlock(&unpack_lock);
	return hit;
}

/* Notes what k gave: out, or NULL for no PVH entry */
static void memo_add(const struct stat *k, const char *out)
{
	char *o = out ? strdup(out) : NULL;
	unsigned i;

	if (out && !o)
		return;
	pthread_mutex_lock(&unpack_lock);
	i = memo_next++ % MEMO;
	free(memo[i].out);
	memo[i].used = 1;
	memo[i].dev = k->st_dev;
	memo[i].ino = k->st_ino;
	memo[i].size = k->st_size;
	memo[i].mtime = k->st_mtim;
	memo[i].out = o;
	pthread_mutex_unlock(&unpack_lock);
}

int kimage_pvh(const char *path, const char *cache_dir, char **out, char **err)
{
	struct buf bz = BUF_INIT(BZ_MAX), elf = BUF_INIT(ELF_MAX);
	char sha[65], why[512], *dst = NULL;
	size_t off = 0, n = 0;
	struct stat st, ks;
	int rc = -1, p, known = stat(path, &ks) == 0;

	*out = *err = NULL;
	if (known && memo_find(&ks, out))
		return *out ? 1 : 0;
	if (read_file(path, &bz, BZ_MAX) < 0) {
		set_errf(err, "kernel '%s': %s", path, strerror(errno));
		goto out;
	}
	if (bz.truncated) {
		rc = 0;   /* not a bzImage that size */
		goto out;
	}
	sha256_mem(bz.data, bz.len, sha);
	if (asprintf(&dst, "%s/pvh-%s.vmlinux", cache_dir, sha) < 0) {
		dst = NULL;
		set_errf(err, "out of memory");
		goto out;
	}
	pthread_mutex_lock(&unpack_lock);
	if (stat(dst, &st) == 0 && S_ISREG(st.st_mode)) {
		*out = dst;
		dst = NULL;
		rc = 1;
		goto done;
	}
	p = kimage_payload((const unsigned char *)bz.data, bz.len, &off, &n);
	if (p <= 0) {
		if (p < 0)
			set_errf(err, "kernel '%s': its setup header puts the payload past the "
				 "file's end", path);
		rc = p;
		goto done;
	}
	if (unpack((const unsigned char *)bz.data + off, n, &elf, why, sizeof(why)) < 0) {
		set_errf(err, "kernel '%s': %s", path, why);
		goto done;
	}
	if (!kimage_pvh_entry((const unsigned char *)elf.data, elf.len)) {
		rc = 0;   /* built without CONFIG_PVH */
		goto done;
	}
	if (mkdir_p(cache_dir, 0755) < 0 || write_file(dst, elf.data, elf.len, 0644) < 0) {
		set_errf(err, "'%s': %s", dst, strerror(errno));
		goto done;
	}
	*out = dst;
	dst = NULL;
	rc = 1;
done:
	pthread_mutex_unlock(&unpack_lock);
	if (rc >= 0 && known)
		memo_add(&ks, *out);
out:
	buf_release(&bz);
	buf_release(&elf);
	free(dst);
	return rc;
}
