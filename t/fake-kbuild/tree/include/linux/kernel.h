/* SPDX-License-Identifier: GPL-2.0 */
/* The fake tree's only header: what its src files need, freestanding (-nostdinc). */
#ifndef _LINUX_KERNEL_H
#define _LINUX_KERNEL_H

#define NULL ((void *)0)
#define EINVAL 22
#define ESRCH 3
#define EPERM 1
#define PID_MAX_DEFAULT 0x8000
#define KERN_INFO "\0016"

typedef unsigned long size_t;
typedef _Bool bool;
#define true 1
#define false 0

int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define pr_info(fmt, ...) printk(KERN_INFO fmt, ##__VA_ARGS__)

#define module_init(fn) int init_module(void) __attribute__((alias(#fn)))
#define module_exit(fn) void cleanup_module(void) __attribute__((alias(#fn)))
#define MODULE_LICENSE(s) static const char __module_license[] __attribute__((used)) = "license=" s
#define __init
#define __exit

#endif
