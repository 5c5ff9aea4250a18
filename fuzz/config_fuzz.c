// SPDX-License-Identifier: GPL-2.0-only
/* config_fuzz.c: kfleetd's configuration file (config/): any bytes as
 * the file, read with watch/'s checker for [watch NAME] sections (their
 * URLs, rules, tags), printed back as kfleetd -nv prints it, and freed.
 * The file is a memfd, read again through /proc/self/fd at each input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "common/buf.h"
#include "config/config.h"
#include "watch/watch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	struct buf err = BUF_INIT(1 << 20);
	struct config c;
	FILE *null;

	if (fd < 0) {
		fd = memfd_create("kfleetd.conf", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		watch_config_register();
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (config_defaults(&c) < 0)
		return 0;
	if (config_load(&c, path, &err) == 0 && (null = fopen("/dev/null", "w"))) {
		config_print(&c, null);
		fclose(null);
	}
	config_release(&c);
	buf_release(&err);
	return 0;
}
