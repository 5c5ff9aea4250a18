/* kernels.h: the kernels kfleet boots. For now a kernel is an image file the
 * user names (imported); building kernels from a tree and a patch series
 * comes later and lands here too. */
#ifndef KF_KERNELS_H
#define KF_KERNELS_H

#include <stddef.h>

/* Checks that path is a bootable kernel image for arch: a readable regular
 * file of sane size whose header says so (x86_64: a bzImage with the "HdrS"
 * setup header; arm64: an Image with the "ARM\x64" magic). 0, or -1 with
 * *err (caller frees) saying what is wrong. */
int kimage_check(const char *path, const char *arch, char **err);

/* Reads the kernel release ("6.1.0-57-amd64") from an image: x86_64 from
 * the setup header's kernel_version string, arm64 from the "Linux version"
 * banner in the uncompressed Image. 0, or -1 when it cannot be found. */
int kimage_release(const char *path, const char *arch, char *out, size_t n);

#endif
