// SPDX-License-Identifier: GPL-2.0-only
/* hash.c: SHA-256 of files and memory blocks through OpenSSL's libcrypto, as
 * hex: cache keys for kernels, rootfs images and initrds, and checksums. */
#include "common/hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <unistd.h>

static void to_hex(const unsigned char *d, unsigned n, char *out)
{
	static const char hx[] = "0123456789abcdef";

	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
	out[2 * n] = '\0';
}

void sha256_mem(const void *p, size_t n, char out[65])
{
	unsigned char d[EVP_MAX_MD_SIZE];
	unsigned dn = 0;

	EVP_Digest(p, n, d, &dn, EVP_sha256(), NULL);
	to_hex(d, dn, out);
}

int sha256_file(const char *path, char out[65])
{
	unsigned char d[EVP_MAX_MD_SIZE], chunk[65536];
	unsigned dn = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = -1, saved;
	EVP_MD_CTX *ctx;

	if (fd < 0)
		return -1;
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
		goto out;
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			goto out;
		}
		if (r == 0)
			break;
		EVP_DigestUpdate(ctx, chunk, (size_t)r);
	}
	EVP_DigestFinal_ex(ctx, d, &dn);
	to_hex(d, dn, out);
	rc = 0;
out:
	saved = errno;
	EVP_MD_CTX_free(ctx);
	close(fd);
	errno = saved;
	return rc;
}
