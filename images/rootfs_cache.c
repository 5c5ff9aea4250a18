// SPDX-License-Identifier: GPL-2.0-only
/* rootfs_cache.c: root disk images from Debian packages (rootfs.h).
 * A job's package list (checked, sorted, plus dash: rootfs_key.c) keys a
 * cache entry; a miss is built once, under a lock, in a temporary directory
 * under the cache (rootfs_build.c), into the image the orchestrator
 * attaches to the guest. */
#include "images/rootfsint.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

/* Removes the trees of builders of this image that died (a killed daemon,
 * a power cut): they can be gigabytes, and with the lock held nobody else
 * is using them */
static void sweep_stale(struct rootfs *r)
{
	char prefix[80];
	struct dirent *e;
	DIR *d;

	snprintf(prefix, sizeof(prefix), ".rootfs-%s.", r->hash);
	d = opendir(r->dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *p;

		if (strncmp(e->d_name, prefix, strlen(prefix)))
			continue;
		p = path_join(r->dir, e->d_name);
		if (p && img_rootfs_tree_remove(p) < 0)
			log_warn("%s: could not remove '%s': %s", buf_str(&r->what), p,
				 strerror(errno));
		free(p);
	}
	closedir(d);
}

static int is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *img_rootfs(const struct img_rootfs_spec *spec, const char *cache_dir, char **err)
{
	struct rootfs r;
	char *lock = NULL, *tmp = NULL, *result = NULL;
	int lockfd = -1, made = 0;
	int64_t t0;

	if (err)
		*err = NULL;
	if (img_rootfs_check_spec(spec, cache_dir, err) < 0)
		return NULL;
	if (img_rootfs_init(&r, spec, cache_dir, err) < 0)
		goto out;
	if (is_file(r.image))
		goto done;

	if (mkdir_p(r.dir, 0755) < 0) {
		img_rootfs_fail(&r, err, "cache directory '%s': %s", r.dir, strerror(errno));
		goto out;
	}
	if (asprintf(&lock, "%s/rootfs-%s.lock", r.dir, r.hash) < 0)
		lock = NULL;
	if (asprintf(&tmp, "%s/.rootfs-%s.XXXXXX", r.dir, r.hash) < 0)
		tmp = NULL;
	if (!lock || !tmp) {
		set_errf(err, "rootfs: out of memory");
		goto out;
	}
	/* one builder per image; the lock file stays, as removing it would
	 * let a third party lock a new file while the second holds the old */
	lockfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (lockfd < 0) {
		img_rootfs_fail(&r, err, "lock '%s': %s", lock, strerror(errno));
		goto out;
	}
	while (flock(lockfd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			img_rootfs_fail(&r, err, "lock '%s': %s", lock, strerror(errno));
			goto out;
		}
	}
	if (is_file(r.image))
		goto done;   /* built while we waited */
	sweep_stale(&r);

	if (!mkdtemp(tmp)) {
		img_rootfs_fail(&r, err, "temporary directory '%s': %s", tmp, strerror(errno));
		goto out;
	}
	made = 1;
	t0 = mono_ms();
	log_info("%s: building '%s'", buf_str(&r.what), r.image);
	if (img_rootfs_build(&r, tmp, err) < 0)
		goto out;
	log_info("%s: built '%s' in %lld s", buf_str(&r.what), r.image,
		 (long long)((mono_ms() - t0) / 1000));
done:
	result = strdup(r.image);
	if (!result)
		set_errf(err, "rootfs: out of memory");
out:
	if (made && img_rootfs_tree_remove(tmp) < 0)
		log_warn("%s: could not remove '%s': %s", buf_str(&r.what), tmp, strerror(errno));
	if (lockfd >= 0)
		close(lockfd);   /* and with it the lock */
	free(lock);
	free(tmp);
	img_rootfs_release(&r);
	return result;
}
