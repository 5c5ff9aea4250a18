/* kbuild_fuzz.c: libFuzzer target for what kfleet reads of git's and make's
 * output after applying or building a series (kernels/build.c): which patch
 * and file a failed git am names, a build log's first errors, and the
 * options a config fragment asks for that a .config lacks. A series
 * chooses file names and what the compiler prints about its code, so any
 * bytes must be read without a fault, within the bounds promised. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "kernels/kernels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char why[384];
	char *e;

	kbuild_am_failure((const char *)data, size, 3, why, sizeof(why));
	if (strnlen(why, sizeof(why)) == sizeof(why) || strncmp(why, "patch ", 6) &&
	    strcmp(why, "a patch") && strncmp(why, "a patch, ", 9))
		abort();
	e = kbuild_log_errors((const char *)data, size);
	if (e && strlen(e) >= KBUILD_ERRORS_MAX)
		abort();
	free(e);
	/* a series' own config fragment against itself and against nothing */
	{
		struct buf b = BUF_INIT(1u << 16);

		kbuild_config_dropped((const char *)data, size, (const char *)data, size, &b);
		kbuild_config_dropped((const char *)data, size, "", 0, &b);
		buf_release(&b);
	}
	return 0;
}
