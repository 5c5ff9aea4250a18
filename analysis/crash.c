// SPDX-License-Identifier: GPL-2.0-only
/* crash.c: a kernel report's title (crash.h). The splat is untrusted
 * console text: every read is bounded by the line's end. */
#include "analysis/crash.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/printk.h"

struct line {
	const char *p, *e;
};

const char *crash_line_text(const char *l, const char *end)
{
	static const char wd[] = "watchdog: ";

	l += printk_prefix_len(l, (size_t)(end - l));
	if ((size_t)(end - l) >= sizeof(wd) - 1 && !memcmp(l, wd, sizeof(wd) - 1))
		l += sizeof(wd) - 1;
	return l;
}

/* The next line of s from *pos, its prefixes skipped (crash_line_text,
 * then blanks), \r dropped; 0 at the end */
static int next_line(const char *s, size_t *pos, struct line *l)
{
	const char *p = s + *pos, *nl;

	if (!*p)
		return 0;
	nl = strchr(p, '\n');
	l->e = nl ? nl : p + strlen(p);
	*pos = (size_t)(l->e - s) + (nl ? 1 : 0);
	if (l->e > p && l->e[-1] == '\r')
		l->e--;
	p = crash_line_text(p, l->e);
	while (p < l->e && *p == ' ')
		p++;
	l->p = p;
	return 1;
}

static int starts(const struct line *l, const char *m)
{
	size_t n = strlen(m);

	return (size_t)(l->e - l->p) >= n && !memcmp(l->p, m, n);
}

/* Where m first is in the line, or NULL */
static const char *find(const struct line *l, const char *m)
{
	size_t n = strlen(m);

	for (const char *p = l->p; (size_t)(l->e - p) >= n; p++)
		if (!memcmp(p, m, n))
			return p;
	return NULL;
}

static int is_sym(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '.';
}

/* A symbol at p ("func+0x1c/0x40", "func.cold+0x3/0x5"): its name, without
 * the offset and a compiler's ".cold"/".isra.0" suffix, into f. 0 when
 * there is none (an address "0x7f..." is not one) */
static int symbol_at(const char *p, const char *e, char *f, size_t n)
{
	const char *q = p, *dot;
	size_t len;

	while (q < e && is_sym(*q))
		q++;
	if (q == p || q >= e || *q != '+' || (q - p > 1 && p[0] == '0' && p[1] == 'x'))
		return 0;
	dot = memchr(p, '.', (size_t)(q - p));
	len = (size_t)((dot ? dot : q) - p);
	if (!len || len >= n)
		return 0;
	memcpy(f, p, len);
	f[len] = 0;
	return 1;
}

/* The function the report is in: the first "RIP: 0010:func+.." (x86) or
 * "pc : func+.." (arm64) line after the first */
static int report_function(const char *splat, char *f, size_t n)
{
	size_t pos = 0;
	struct line l;
	int first = 1;

	while (next_line(splat, &pos, &l)) {
		const char *p;

		if (first) {
			first = 0;
			continue;
		}
		if (starts(&l, "RIP: ") && (p = memchr(l.p, ':', (size_t)(l.e - l.p))) &&
		    (p = memchr(p + 1, ':', (size_t)(l.e - p - 1))) && symbol_at(p + 1, l.e, f, n))
			return 1;
		if (starts(&l, "pc : ") && symbol_at(l.p + 5, l.e, f, n))
			return 1;
	}
	return 0;
}

/* Appends text [p, e) with numbers and addresses as "N" and spaces
 * collapsed, so a PID, CPU or address does not make another title */
static void put_text(char *out, size_t n, size_t *len, const char *p, const char *e)
{
	while (p < e && *len + 1 < n) {
		if (isdigit((unsigned char)*p) && (*len == 0 || !isalpha((unsigned char)out[*len - 1]))) {
			if (p + 1 < e && p[0] == '0' && p[1] == 'x')
				p += 2;
			while (p < e && isxdigit((unsigned char)*p))
				p++;
			out[(*len)++] = 'N';
			continue;
		}
		if (*p == ' ' && *len && out[*len - 1] == ' ') {
			p++;
			continue;
		}
		out[(*len)++] = isprint((unsigned char)*p) ? *p : '?';
		p++;
	}
	while (*len && out[*len - 1] == ' ')
		(*len)--;
	out[*len] = 0;
}

static void put(char *out, size_t n, size_t *len, const char *s)
{
	int k = snprintf(out + *len, n - *len, "%s", s);

	if (k > 0)
		*len += (size_t)k < n - *len ? (size_t)k : n - *len - 1;
}

/* "kind in func" when the function is known, else "kind" and tail */
static void kind_in(char *out, size_t n, size_t *len, const char *splat, const char *kind)
{
	char f[96];

	put(out, n, len, kind);
	if (report_function(splat, f, sizeof(f))) {
		put(out, n, len, " in ");
		put(out, n, len, f);
	}
}

/* Up to the first of the stop characters */
static const char *upto(const char *p, const char *e, const char *stops)
{
	while (p < e && !strchr(stops, *p))
		p++;
	return p;
}

int crash_title(const char *splat, char *out, size_t n)
{
	size_t pos = 0, len = 0;
	struct line l;
	char f[96];
	const char *p;

	if (!n)
		return -1;
	out[0] = 0;
	if (!splat || !next_line(splat, &pos, &l))
		return -1;
	if (starts(&l, "BUG: KASAN: ") || starts(&l, "BUG: KFENCE: ")) {
		/* "BUG: KASAN: slab-use-after-free in sk_destruct+0x4c/0x80" */
		const char *in = find(&l, " in ");

		put_text(out, n, &len, l.p + 5, in ? in : l.e);
		if (in && symbol_at(in + 4, l.e, f, sizeof(f))) {
			put(out, n, &len, " in ");
			put(out, n, &len, f);
		}
	} else if (starts(&l, "WARNING: ")) {
		/* "WARNING: CPU: 0 PID: 1 at net/core/sock.c:123 sk_foo+0x1c/0x40" */
		const char *at = find(&l, " at ");

		put(out, n, &len, "WARNING");
		if (at) {
			const char *file = at + 4, *fe = upto(file, l.e, ": ");
			const char *sp = upto(file, l.e, " ");

			put(out, n, &len, " in ");
			if (sp < l.e && symbol_at(sp + 1, l.e, f, sizeof(f)))
				put(out, n, &len, f);
			else
				put_text(out, n, &len, file, fe);
		}
	} else if (starts(&l, "UBSAN: ")) {
		/* "UBSAN: shift-out-of-bounds in lib/foo.c:12:3": the file, not the line */
		const char *in = find(&l, " in ");

		put_text(out, n, &len, l.p, in ? in : l.e);
		if (in) {
			put(out, n, &len, " in ");
			put_text(out, n, &len, in + 4, upto(in + 4, l.e, ": "));
		}
	} else if (starts(&l, "Kernel panic - not syncing")) {
		p = find(&l, ": ");
		put(out, n, &len, "kernel panic");
		if (p) {
			put(out, n, &len, ": ");
			put_text(out, n, &len, p + 2, l.e);
		}
	} else if (starts(&l, "kernel BUG at ")) {
		put(out, n, &len, "kernel BUG");
		if (report_function(splat, f, sizeof(f))) {
			put(out, n, &len, " in ");
			put(out, n, &len, f);
		} else {
			put(out, n, &len, " at ");
			put_text(out, n, &len, l.p + 14, upto(l.p + 14, l.e, ":!"));
		}
	} else if (starts(&l, "BUG: soft lockup")) {
		kind_in(out, n, &len, splat, "BUG: soft lockup");
	} else if (starts(&l, "Watchdog detected hard LOCKUP")) {
		kind_in(out, n, &len, splat, "hard lockup");
	} else if (starts(&l, "rcu: INFO: rcu_")) {
		put(out, n, &len, "INFO: rcu detected stall");
	} else if (starts(&l, "INFO: task ")) {
		put(out, n, &len, "INFO: task hung");
	} else if (starts(&l, "Out of memory: ")) {
		put(out, n, &len, "out of memory");
	} else if (starts(&l, "Memory cgroup out of memory: ")) {
		put(out, n, &len, "memory cgroup out of memory");
	} else if (starts(&l, "general protection fault")) {
		kind_in(out, n, &len, splat, "general protection fault");
	} else if (starts(&l, "Oops")) {
		kind_in(out, n, &len, splat, "Oops");
	} else if (starts(&l, "BUG: ")) {
		/* "BUG: kernel NULL pointer dereference, address: 0000000000000008",
		 * "BUG: unable to handle page fault for address: ffff..." */
		const char *e = upto(l.p + 5, l.e, ",:");
		const char *fa = find(&l, " for address");
		char kind[CRASH_TITLE_MAX];
		size_t kl = 0;

		if (fa && fa < e)
			e = fa;
		put_text(kind, sizeof(kind), &kl, l.p, e);
		kind_in(out, n, &len, splat, kind);
	} else {
		/* not a report line kfleet knows: its first words, numbers out */
		put_text(out, n, &len, l.p, l.e - l.p > 80 ? l.p + 80 : l.e);
	}
	return len ? 0 : -1;
}

int crash_title_matches(const char *title, const char *want)
{
	return title && want && *want && strstr(title, want) != NULL;
}
