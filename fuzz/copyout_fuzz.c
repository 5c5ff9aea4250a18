// SPDX-License-Identifier: GPL-2.0-only
/* copyout_fuzz.c: libFuzzer target for the extraction half of a results
 * copy-out (images/extract.c, img_copy_extract): the tar a guest's disk
 * yields is whatever the guest wrote, so any bytes must be taken without a
 * fault, and whatever comes out must be regular files and directories
 * inside the target directory, within the limits, or nothing at all. */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <ftw.h>

#include "common/util.h"
#include "images/copyout.h"

static char top[64];
static unsigned long long seen_bytes;
static unsigned seen_entries;

static int check_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)path;
	(void)f;
	if (type != FTW_F && type != FTW_D && type != FTW_DP)
		abort();     /* a symlink or something else got out */
	if (S_ISREG(st->st_mode)) {
		if (st->st_mode & (S_ISUID | S_ISGID))
			abort();
		seen_bytes += (unsigned long long)st->st_size;
	}
	seen_entries++;
	return 0;
}

static void remove_top(void)
{
	rm_tree(top);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned n;
	struct img_copy_limits lim = { .max_bytes = 1 << 20, .max_files = 64, .timeout_s = 10 };
	struct img_copy_report rep;
	char tar[128], out[128], side[128];
	char *err = NULL;
	DIR *d;
	int rc;

	if (!top[0]) {
		snprintf(top, sizeof(top), "/tmp/kfleet-fuzz-copyout-%d", (int)getpid());
		if (mkdir(top, 0700) < 0)
			abort();
		atexit(remove_top);
	}
	snprintf(tar, sizeof(tar), "%s/in.tar", top);
	snprintf(out, sizeof(out), "%s/out-%u", top, n++);
	snprintf(side, sizeof(side), "%s/side", top);
	mkdir(side, 0700);
	if (write_file(tar, data, size, 0600) < 0)
		abort();
	memset(&rep, 0, sizeof(rep));
	rc = img_copy_extract(tar, out, &lim, &rep, &err);
	if (rc < 0 && !err)
		abort();
	seen_bytes = 0;
	seen_entries = 0;
	if (rc == 0) {
		nftw(out, check_one, 16, FTW_PHYS);
		if (seen_bytes > lim.max_bytes || seen_bytes != rep.bytes)
			abort();
	} else if (access(out, F_OK) == 0) {
		/* all or nothing: a failed extraction leaves no tree behind */
		d = opendir(out);
		struct dirent *e;

		while (d && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				abort();
		if (d)
			closedir(d);
	}
	/* nothing may land next to the target: a name that escaped */
	d = opendir(side);
	if (d) {
		struct dirent *e;

		while ((e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				abort();
		closedir(d);
	}
	free(err);
	rm_tree(out);
	return 0;
}
