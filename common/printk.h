/* SPDX-License-Identifier: GPL-2.0-only */
/* printk.h: the fields the kernel's printk puts before each console line,
 * read in one place for the KTAP parser (jobs/ktap.c) and the console's
 * crash scan and titles (analysis/crash.c): "[    1.234567] " (the time),
 * "[    T1]" / "[  C0]" (CONFIG_PRINTK_CALLER: a task or a CPU) and "<4>"
 * (the loglevel, as a raw /dev/kmsg read or a console with
 * console_msg_format=syslog shows it), in any order and width. */
#ifndef KF_PRINTK_H
#define KF_PRINTK_H

#include <stddef.h>

#define PRINTK_FIELDS_MAX 4   /* fields read before a line's text at most */

/* The length of the printk fields at the start of s[0..n) and of the one
 * blank after them; 0 when s does not start with one. Reads no byte past
 * s + n. */
size_t printk_prefix_len(const char *s, size_t n);

#endif
