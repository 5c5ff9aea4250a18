// SPDX-License-Identifier: GPL-2.0-only
/* paths.c: where a run finds what it needs that others made: a job's
 * programs (built into programs_dir) and the kselftest archive for a
 * kernel (made by the builder). Read by submission checks, the builder and
 * the run's initrd alike. */
#include "orchestrator/orchint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#include <errno.h>
#include <limits.h>
#include <sys/stat.h>

/* 1 when sb is the same file as name's */
static int same_file(const struct stat *sb, const char *name)
{
	struct stat st;

	return stat(name, &st) == 0 && st.st_dev == sb->st_dev && st.st_ino == sb->st_ino;
}

int orch_path_allowed(const char *state_dir, const char *db_path, const char *path,
		      const char *what, char **err)
{
	static const char *const sfx[] = { "", "-wal", "-shm", "-journal" };
	char real[PATH_MAX], state[PATH_MAX], builds[PATH_MAX + 8];
	struct stat sb;

	if (stat(path, &sb) < 0)
		return set_errf(err, "%s '%.300s': %s", what, path, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return set_errf(err, "%s '%.300s': not a regular file", what, path);
	for (size_t i = 0; db_path && i < sizeof(sfx) / sizeof(sfx[0]); i++) {
		char f[PATH_MAX];

		snprintf(f, sizeof(f), "%s%s", db_path, sfx[i]);
		if (same_file(&sb, f))
			return set_errf(err, "%s '%.300s': is kfleetd's database (%s): refused, and "
					"not opened", what, path, f);
	}
	if (!realpath(path, real))
		return set_errf(err, "%s '%.300s': %s", what, path, strerror(errno));
	if (state_dir && realpath(state_dir, state)) {
		snprintf(builds, sizeof(builds), "%s/builds", state);
		if (path_inside(real, state) && !path_inside(real, builds))
			return set_errf(err, "%s '%.300s': inside kfleetd's state directory (%s), "
					"where only the kernels it built (builds/) are taken", what,
					path, state);
	}
	return 0;
}

char *orch_program_path(const struct config *c, const char *arch, const char *name)
{
	char *p = NULL;

	if (asprintf(&p, "%s/%s/%s", c->programs_dir, arch, name) < 0)
		return NULL;
	return p;
}

char *orch_selftests_path(const char *state_dir, const char *kernel_path, const char *sha,
			  const char *target)
{
	const char *slash = strrchr(kernel_path, '/');
	size_t n = strlen(state_dir);
	char *p = NULL, sum[65];

	if (!slash)
		return NULL;
	if (!strncmp(kernel_path, state_dir, n) && !strncmp(kernel_path + n, "/builds/", 8)) {
		if (asprintf(&p, "%.*s/kselftest-%s.cpio.gz", (int)(slash - kernel_path),
			     kernel_path, target) < 0)
			return NULL;
		return p;
	}
	if (!sha && sha256_file(kernel_path, sum) < 0)
		return NULL;
	if (asprintf(&p, "%s/selftests/%.16s/kselftest-%s.cpio.gz", state_dir, sha ? sha : sum,
		     target) < 0)
		return NULL;
	return p;
}
