// SPDX-License-Identifier: GPL-2.0-only
/* section.c: a "[WORD NAME]" section header's NAME ([host NAME],
 * [watch NAME]), for config.c's parser and watches.c's checker alike */
#include <string.h>

#include "config/config.h"

int config_section_arg(const char *section, const char *word, char *out, size_t n)
{
	size_t w = strlen(word), l;
	const char *s = section + w;

	if (strncmp(section, word, w) || (*s != ' ' && *s != '\t'))
		return 0;
	if (!out)
		return 1;
	while (*s == ' ' || *s == '\t')
		s++;
	l = strlen(s);
	if (l >= 2 && s[0] == '"' && s[l - 1] == '"') {
		s++;
		l -= 2;
	}
	if (l >= n)
		return -1;
	memcpy(out, s, l);
	out[l] = '\0';
	return 1;
}
