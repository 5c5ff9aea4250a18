// SPDX-License-Identifier: GPL-2.0-only
/* printk.c: the printk fields before a console line (printk.h): a
 * console's text is untrusted, so every field is bounded in width and
 * count and nothing is read past the line. */
#include "common/printk.h"

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Digits at s[*i], at most max of them; how many */
static size_t skip_digits(const char *s, size_t n, size_t *i, size_t max)
{
	size_t d = 0;

	while (*i < n && d < max && is_digit(s[*i])) {
		(*i)++;
		d++;
	}
	return d;
}

/* The end of one field at s[i] (the byte after its '>' or ']'), or 0 */
static size_t field_end(const char *s, size_t n, size_t i)
{
	size_t j = i + 1;

	if (s[i] == '<') {
		if (!skip_digits(s, n, &j, 3) || j >= n || s[j] != '>')
			return 0;
		return j + 1;
	}
	if (s[i] != '[')
		return 0;
	while (j < n && j - i < 16 && s[j] == ' ')
		j++;
	if (j < n && (s[j] == 'T' || s[j] == 'C')) {
		j++;
		if (!skip_digits(s, n, &j, 10))
			return 0;
	} else if (!skip_digits(s, n, &j, 12) || j >= n || s[j++] != '.' ||
		   !skip_digits(s, n, &j, 9)) {
		return 0;
	}
	return j < n && s[j] == ']' ? j + 1 : 0;
}

size_t printk_prefix_len(const char *s, size_t n)
{
	size_t i = 0, e;

	for (int f = 0; f < PRINTK_FIELDS_MAX && i < n && (e = field_end(s, n, i)); f++)
		i = e;
	if (i && i < n && s[i] == ' ')
		i++;
	return i;
}
