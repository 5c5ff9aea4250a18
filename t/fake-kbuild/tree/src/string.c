// SPDX-License-Identifier: GPL-2.0
/*
 * src/string.c: the fake tree's stand-in for lib/string.c.
 */
#include <linux/kernel.h>

size_t strlen(const char *s)
{
	const char *p = s;

	while (*p)
		p++;
	return p - s;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}
