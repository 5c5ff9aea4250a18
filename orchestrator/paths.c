/* paths.c: where a run finds what it needs that others made: a job's
 * programs (built into programs_dir) and the kselftest archive for a
 * kernel (made by the builder). Read by submission checks, the builder and
 * the run's initrd alike. */
#include "orchestrator/orchint.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

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
