// SPDX-License-Identifier: GPL-2.0-only
/* virt.c: small helpers over libvirt that the host code shares: libvirt's
 * last error as a string, and a host's vCPU limit from its capabilities. */
#include "orchestrator/orchint.h"

#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

char *guest_last_error(void)
{
	virErrorPtr e = virGetLastError();

	return strdup(e && e->message ? e->message : "unknown libvirt error");
}

int guest_caps_max_vcpus(const char *caps)
{
	const char *p = caps ? strstr(caps, "<vcpu max='") : NULL;
	const char *q = p ? strchr(p + 11, '\'') : NULL;
	char num[16];
	long long n;

	if (!q || q - (p + 11) >= (long)sizeof(num))
		return 0;
	snprintf(num, sizeof(num), "%.*s", (int)(q - (p + 11)), p + 11);
	return parse_int(num, 1, GUEST_VCPUS_MAX, &n) < 0 ? 0 : (int)n;
}
