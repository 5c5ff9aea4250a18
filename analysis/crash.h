/* SPDX-License-Identifier: GPL-2.0-only */
/* crash.h: a kernel report's title, the signature two crashes share when
 * they are the same bug ("WARNING in tcp_close", "KASAN: slab-use-after-free
 * in sk_destruct", "BUG: kernel NULL pointer dereference in foo"), in the
 * style of syzkaller's report titles: the report's kind from its first
 * line, the function from the line it names (WARNING's "at file:line
 * func+0x..", KASAN's "in func+0x..") or from the first RIP/pc line, and
 * numbers, addresses and task names left out, so the same bug on another
 * CPU, PID or boot gives the same title. Pure. */
#ifndef KF_ANALYSIS_CRASH_H
#define KF_ANALYSIS_CRASH_H

#include <stddef.h>

#define CRASH_TITLE_MAX 160

/* The title of splat (a report's first lines, as the console reader kept
 * them, its first line the report's own), into out (NUL-terminated, at
 * most n bytes). 0, or -1 when splat has no report line (out "") */
int crash_title(const char *splat, char *out, size_t n);

/* Where the text of the console line [l, end) starts: after printk's
 * fields (common/printk.h: "[    1.234567]", "[    T1]", "<4>") and a
 * "watchdog: " pr_fmt prefix (console.c's scan and the titles read lines
 * alike) */
const char *crash_line_text(const char *l, const char *end);

/* 1 when a crash titled title is the one asked for: want is a title, or
 * a part of one ("WARNING in fake_fn", "fake_fn"), compared as written */
int crash_title_matches(const char *title, const char *want);

#endif
