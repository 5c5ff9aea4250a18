// SPDX-License-Identifier: GPL-2.0-only
/* quote.c: how a results copy-out puts what a guest wrote (file names,
 * its appliance's console, libguestfs's errors) and sizes into messages:
 * cut short and printable, whatever the bytes were. */
#include "images/copyoutint.h"

#include <stdio.h>
#include <string.h>

/* Copies s (n bytes at most, or up to a NUL) into out (outn bytes, "..."
 * marking a cut) to quote in a message: control characters and non-ASCII
 * bytes become '?' (names and console lines come from the guest), runs of
 * blanks one space. Returns out. */
const char *img_quote(const char *s, size_t n, char *out, size_t outn)
{
	size_t i, o = 0;
	int space = 1;

	for (i = 0; i < n && s[i] && o + 4 < outn; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			if (!space)
				out[o++] = ' ';
			space = 1;
			continue;
		}
		out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		space = 0;
	}
	if (i < n && s[i]) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return out;
}

/* "912 MiB": v in the largest binary unit it has one of, rounded up or
 * down, so "over the limit" never prints the limit's own number. */
const char *img_fmt_size(unsigned long long v, int up, char out[32])
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned long long div = 1;
	unsigned i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) && v / div >= 1024) {
		div *= 1024;
		i++;
	}
	snprintf(out, 32, "%llu %s", v / div + (up && v % div ? 1 : 0), units[i]);
	return out;
}
