// SPDX-License-Identifier: GPL-2.0
/*
 * src/main.c: the fake tree's stand-in for init/main.c.
 */
#include <linux/kernel.h>

long do_getpgid(int pid);
size_t strlen(const char *s);

static const char banner[] = "Linux version 6.1.0 (fake kbuild)";

void start_kernel(void)
{
	pr_info("%s\n", banner);
	pr_info("banner is %lu bytes\n", (unsigned long)strlen(banner));
	pr_info("init pgid %ld\n", do_getpgid(0));
}
