// SPDX-License-Identifier: GPL-2.0-only
/* host.c: facts about the machine kfleetd runs on (is KVM usable here), read
 * from /dev and /proc; the orchestrator asks before it picks an accelerator. */
#include "common/host.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int kvm_usable_here(char *why, size_t n)
{
	FILE *f;
	char line[4096];
	int flags = 0;
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		if (why)
			snprintf(why, n, "/dev/kvm cannot be opened");
		return 0;
	}
	close(fd);
	f = fopen("/proc/cpuinfo", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		flags = strstr(line, " vmx") || strstr(line, " svm");
		break;
	}
	if (f)
		fclose(f);
	if (!flags && why)
		snprintf(why, n, "/dev/kvm exists but the CPU shows no vmx/svm flag");
	return flags;
}
