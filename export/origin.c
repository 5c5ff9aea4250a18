// SPDX-License-Identifier: GPL-2.0-only
/* origin.c: what a KCIDB origin may be, apart from the export (kcidb.c)
 * so that the config room checks [daemon] kcidb_origin without the
 * database the export reads. */
#include "export/kcidb.h"

#include <string.h>

int kcidb_origin_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;

	return n && n <= 64 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == n;
}
