// SPDX-License-Identifier: GPL-2.0-only
/* url_fuzz.c: the URLs kfleet reads or writes itself (libcurl and
 * libmicrohttpd parse the rest): a Link: header's next page
 * (kernels/fetch.c, which the watches page with), patchwork's list and
 * events URLs built from a watch's base, project and date (watch/pw.c,
 * their query strings percent-encoded by common/buf.c), and the URL keys
 * of a watch (watch/spec.c). The input is lines: a Link header, a base,
 * a project, a date. A next page is the text between a '<' and a '>' of
 * the header; what is encoded is [A-Za-z0-9._~-] and %XX only. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "kernels/kernels.h"
#include "watch/pw.h"
#include "watch/watch.h"

static void check_encoded(const char *s)
{
	struct buf b = BUF_INIT(0);

	if (buf_url_encode(&b, s) < 0) {
		buf_release(&b);
		return;
	}
	for (const char *p = buf_str(&b); *p; p++) {
		if (isalnum((unsigned char)*p) || strchr("._~-", *p))
			continue;
		if (*p != '%' || !isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]))
			abort();
		p += 2;
	}
	buf_release(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), *part[4] = { "", "", "", "" }, *save = NULL, *next, msg[256];
	static const char *const keys[] = { "patchwork", "lore", "link_base", "kcidb" };
	int i = 0;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	for (char *t = strtok_r(s, "\n", &save); t && i < 4; t = strtok_r(NULL, "\n", &save))
		part[i++] = t;
	next = fetch_link_next(part[0]);
	if (next) {
		char *quoted = malloc(strlen(next) + 3);

		if (quoted) {
			strcpy(quoted, "<");
			strcat(strcat(quoted, next), ">");
			if (!strstr(part[0], quoted) || strchr(next, '>'))
				abort();
			free(quoted);
		}
		free(next);
	}
	free(pw_series_url(part[1], part[2], part[3], 1 + (int)(size % 7)));
	free(pw_events_url(part[1], part[2], part[3], 1));
	check_encoded(part[2]);
	check_encoded(part[3]);
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
		watch_key_check(keys[k], part[1], msg, sizeof(msg));
	free(s);
	return 0;
}
