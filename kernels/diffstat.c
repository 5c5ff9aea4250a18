// SPDX-License-Identifier: GPL-2.0-only
/* diffstat.c: what a patch's diff touches (files, lines added, lines
 * removed), counted from its hunk headers as git apply would read them. A
 * hunk cut short or longer than its header says means the mail was
 * damaged on its way (a mailer wrapping lines, a paste cut off): series.c
 * refuses such a patch with the file and line this says. */
#include "kernels/kernelsint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

/* "@@ -a[,b] +c[,d] @@": the line counts b and d */
static int hunk_header(const char *l, long *old_n, long *new_n)
{
	const char *p = l + 3;
	char *e;
	long v;

	if (*p != '-')
		return -1;
	v = strtol(p + 1, &e, 10);
	if (e == p + 1 || v < 0)
		return -1;
	*old_n = 1;
	if (*e == ',') {
		p = e + 1;
		*old_n = strtol(p, &e, 10);
		if (e == p || *old_n < 0 || *old_n > 100000000)
			return -1;
	}
	if (*e != ' ' || e[1] != '+')
		return -1;
	p = e + 2;
	v = strtol(p, &e, 10);
	if (e == p || v < 0)
		return -1;
	*new_n = 1;
	if (*e == ',') {
		p = e + 1;
		*new_n = strtol(p, &e, 10);
		if (e == p || *new_n < 0 || *new_n > 100000000)
			return -1;
	}
	return *e == ' ' ? 0 : -1;
}

/* The file a "diff --git a/X b/Y" or "+++ b/Y" line names, into out */
static void diff_file(const char *l, size_t len, char *out, size_t n)
{
	const char *b = NULL;

	if (!strncmp(l, "diff --git ", 11)) {
		/* the b/ side; paths with spaces are rare, take the last " b/" */
		for (const char *p = l; p + 3 <= l + len; p++)
			if (!strncmp(p, " b/", 3))
				b = p + 3;
		if (!b)
			b = l + 11;
	} else {
		b = l + 4;
		if (!strncmp(b, "b/", 2))
			b += 2;
	}
	snprintf(out, n, "%.*s", (int)(l + len - b), b);
	for (char *p = out; *p; p++)
		if (*p == '\t' || (unsigned char)*p < 0x20)
			*p = *p == '\t' ? '\0' : '?';
}

int series_diffstat(const char *patch, int *files, int *ins, int *del, char **why)
{
	const char *p = patch ? patch : "";
	long old_left = 0, new_left = 0;
	int git_header = 0;
	char file[256] = "";
	unsigned dline = 0;

	*files = *ins = *del = 0;
	if (why)
		*why = NULL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		dline++;
		if (len && p[len - 1] == '\r')
			len--;
		if (old_left > 0 || new_left > 0) {
			char c = len ? p[0] : ' ';

			if (c == ' ') {
				old_left--;
				new_left--;
			} else if (c == '-') {
				old_left--;
				(*del)++;
			} else if (c == '+') {
				new_left--;
				(*ins)++;
			} else if (c != '\\') {
				return set_errf(why, "the diff of '%s' is cut short (a hunk ends early, "
						"line %u of the diff)", file, dline);
			}
			if (old_left < 0 || new_left < 0)
				return set_errf(why, "the diff of '%s' is damaged (a hunk is longer "
						"than its header says, line %u of the diff)", file, dline);
		} else if (len >= 11 && !strncmp(p, "diff --git ", 11)) {
			(*files)++;
			git_header = 1;
			diff_file(p, len, file, sizeof(file));
		} else if (len >= 4 && !strncmp(p, "+++ ", 4)) {
			if (!git_header) {
				(*files)++;     /* a plain diff without a git header */
				diff_file(p, len, file, sizeof(file));
			}
			git_header = 0;
		} else if (len >= 4 && !strncmp(p, "@@ -", 4) && *files) {
			if (hunk_header(p, &old_left, &new_left) < 0)
				return set_errf(why, "the diff of '%s' has a bad hunk header "
						"(line %u of the diff)", file, dline);
			git_header = 0;
		}
		p = nl ? nl + 1 : p + strlen(p);
	}
	if (old_left > 0 || new_left > 0)
		return set_errf(why, "the diff of '%s' is cut short (it ends inside a hunk)", file);
	return 0;
}
