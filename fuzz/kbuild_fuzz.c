// SPDX-License-Identifier: GPL-2.0-only
/* kbuild_fuzz.c: libFuzzer target for what kfleet reads of git's and make's
 * output after applying or building a series (kernels/apply.c, buildlog.c,
 * kconfig.c): which patch and file a failed git am names, a build log's
 * first errors, and the options a config fragment asks for that a .config
 * lacks. A series chooses file names and what the compiler prints about
 * its code, so any bytes must be read without a fault, within the bounds
 * promised. The same bytes as a kernel file: whether it is a vmlinux with
 * BTF (kimage_btf), for a kernel built elsewhere is whatever its submitter
 * made it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "kernels/kernels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[384];
	char *e;

	kbuild_am_failure((const char *)data, size, 3, why, sizeof(why));
	if (strnlen(why, sizeof(why)) == sizeof(why) || strncmp(why, "patch ", 6) &&
	    strcmp(why, "a patch") && strncmp(why, "a patch, ", 9))
		abort();
	e = kbuild_log_errors((const char *)data, size);
	if (e && strlen(e) >= KBUILD_ERRORS_MAX)
		abort();
	free(e);
	/* a series' own config fragment against itself and against nothing */
	{
		struct buf b = BUF_INIT(1u << 16);

		kbuild_config_dropped((const char *)data, size, (const char *)data, size, &b);
		kbuild_config_dropped((const char *)data, size, "", 0, &b);
		buf_release(&b);
	}
	{
		static int fd = -1;
		char path[64], *err = NULL;
		int rc;

		if (fd < 0)
			fd = memfd_create("kbuild-fuzz-vmlinux", MFD_CLOEXEC);
		if (fd >= 0 && ftruncate(fd, 0) == 0 && pwrite(fd, data, size, 0) == (ssize_t)size) {
			snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
			rc = kimage_btf(path, &err);
			if ((rc == 0) != (err == NULL) || (rc != 0 && rc != -1))
				abort();
			free(err);
		}
	}
	return 0;
}
