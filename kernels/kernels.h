/* kernels.h: the kernels kfleet boots. For now a kernel is an image file the
 * user names (imported); building kernels from a tree and a patch series
 * comes later and lands here too. */
#ifndef KF_KERNELS_H
#define KF_KERNELS_H

/* Checks that path is a bootable kernel image for arch: a readable regular
 * file of sane size whose header says so (x86_64: a bzImage with the "HdrS"
 * setup header; arm64: an Image with the "ARM\x64" magic). 0, or -1 with
 * *err (caller frees) saying what is wrong. */
int kimage_check(const char *path, const char *arch, char **err);

#endif
