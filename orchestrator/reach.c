// SPDX-License-Identifier: GPL-2.0-only
/* reach.c: whether libvirt's QEMU, which runs as its own user
 * (libvirt-qemu on Debian), can reach the state directory where the
 * guests' kernels, initrds and channels are. A 0700 home or a `mktemp -d`
 * above it would make every run an infrastructure failure with
 * "Permission denied" deep in its detail; this says which directory and
 * what to do, once, at start (and for kfleetd -n). */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/util.h"

#define QEMU_USER "libvirt-qemu"
#define GROUPS_MAX 256

/* 1 when a host puts files where its QEMU opens them by path */
static int files_on_this_machine(const struct config *c)
{
	for (size_t i = 0; i < c->nhosts; i++)
		if (!strcmp(c->hosts[i].uri, "qemu:///system") &&
		    strcmp(c->hosts[i].transfer, "upload"))
			return 1;
	return 0;
}

/* 1 when the user (uid, its groups) may search the directory st */
static int may_search(const struct stat *st, uid_t uid, const gid_t *groups, int ngroups)
{
	if (st->st_uid == uid)
		return !!(st->st_mode & S_IXUSR);
	for (int i = 0; i < ngroups; i++)
		if (groups[i] == st->st_gid)
			return !!(st->st_mode & S_IXGRP);
	return !!(st->st_mode & S_IXOTH);
}

int orch_qemu_reach(const struct config *c, char **err)
{
	char real[PATH_MAX], part[PATH_MAX];
	gid_t groups[GROUPS_MAX];
	int ngroups = GROUPS_MAX;
	struct passwd *pw;
	const char *p;

	*err = NULL;
	if (!files_on_this_machine(c) || !(pw = getpwnam(QEMU_USER)))
		return 0;   /* no such user: QEMU's own user is not known here */
	if (getgrouplist(QEMU_USER, pw->pw_gid, groups, &ngroups) < 0)
		ngroups = 0;
	/* the state directory, or the part of its path that exists yet */
	snprintf(part, sizeof(part), "%s", c->state_dir);
	while (!realpath(part, real)) {
		char *slash = strrchr(part, '/');

		if (errno != ENOENT || !slash)
			return 0;
		if (slash == part) {
			snprintf(real, sizeof(real), "/");
			break;
		}
		*slash = 0;
	}
	/* every directory from / down to it, and it */
	for (p = real; ; p = strchr(p + 1, '/')) {
		struct stat st;
		size_t n = !p ? strlen(real) : p == real ? 1 : (size_t)(p - real);

		snprintf(part, sizeof(part), "%.*s", (int)n, real);
		if (stat(part, &st) < 0 || !S_ISDIR(st.st_mode))
			return 0;
		if (!may_search(&st, pw->pw_uid, groups, ngroups))
			return set_errf(err, "state directory '%s': QEMU runs as '%s', which cannot "
					"enter '%s' (mode %04o, owner uid %u): every run would fail to "
					"start. Give it search permission (chmod o+x '%s'), or set "
					"state_dir to a directory QEMU can reach (for example "
					"/var/lib/kfleet)", c->state_dir, QEMU_USER, part,
					(unsigned)(st.st_mode & 07777), (unsigned)st.st_uid, part);
		if (!p)
			break;
	}
	return 0;
}
