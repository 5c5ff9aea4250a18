/* copyout.c: copies a finished guest's results directory out of its disk
 * image (copyout.h). libguestfs's appliance mounts the guest's filesystem
 * read-only inside its own QEMU and streams the directory back as a tar
 * archive into a file next to the destination; the archive is extracted here
 * with libarchive, trusting nothing in it. A watchdog thread per call bounds
 * the time (it kills the appliance) and the archive's size (it cancels the
 * transfer). kfleetd's workers call this after a run's guest has stopped. */
#include "images/copyout.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <guestfs.h>
#include <limits.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

#define COPY_MEMSIZE_MB 512     /* appliance RAM: tar streams, a mount needs little */
#define COPY_FS_MAX     16      /* filesystems tried at most on one disk */
#define COPY_TAIL_MAX   1024    /* appliance console kept for error messages */
#define COPY_ERRS_MAX   600     /* libguestfs errors kept for one step's message */
#define COPY_NAME_MAX   120     /* bytes of a guest's name quoted in a message */
#define COPY_POLL_MS    100     /* how often the archive's size is looked at */
#define COPY_KILL_MS    500     /* after the deadline, how often QEMU is looked for */
#define COPY_CHUNK      65536   /* extraction buffer */
#define COPY_CMDLINE_MAX 65536  /* QEMU's command line as read from /proc */
#define COPY_QEMU_USER  "nobody" /* who the appliance's QEMU runs as when we are root */
/* The archive may hold more than max_bytes of file data: a 512-byte header
 * per entry, padding to 512, a GNU long-name entry for long names, and
 * entries that are skipped (symlinks, fifos). Allow that much per entry for
 * twice max_files entries before the transfer is cut off. */
#define COPY_TAR_ENTRY  2048ull
#define COPY_TAR_SLACK  (64ull << 10)

/* What the timeout message says the copy was doing */
#define PHASE_LAUNCH "starting the appliance"
#define PHASE_FIND   "looking for the directory"
#define PHASE_DU     "measuring the directory"
#define PHASE_TAR    "reading the directory"
#define PHASE_CLOSE  "stopping the appliance"
#define PHASE_UNTAR  "extracting the archive"

/* One per img_copy_out() call. libguestfs calls are synchronous and hold
 * the handle's lock, and libguestfs has no per-call timeout (only a 20 min
 * one for the launch), so a blocked call cannot be interrupted through the
 * handle: the thread finds the appliance's QEMU in /proc by a marker this
 * call put on the appliance kernel's command line (so it is in QEMU's argv)
 * and kills it, which makes the blocked call fail at once.
 * guestfs_user_cancel() is the one call that takes no lock: it stops a
 * transfer between chunks, which is how an archive that grows past its cap
 * is cut off. */
struct watchdog {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int mu_ready, cv_ready, running;
	int done;                       /* asks the thread to return */
	int64_t deadline;               /* mono_ms() */
	guestfs_h *g;                   /* NULL once the handle is closed */
	char mark[48];                  /* in our QEMU's argv; "" until set */
	int tar_fd;                     /* the archive being written, or -1 */
	unsigned long long tar_cap;
	const char *phase;
	int expired;                    /* the deadline passed */
	int overflowed;                 /* the archive passed tar_cap */
};

struct copy {
	const char *guest_dir;
	char *disk;                     /* absolute */
	const char *format;
	char what[PATH_MAX + 256];      /* "results '/r' on disk '/d.qcow2'", for messages */
	unsigned long long max_bytes;
	unsigned max_files;
	int timeout_s;
	guestfs_h *g;
	struct watchdog wd;
	char tail[COPY_TAIL_MAX];       /* the appliance console's last bytes */
	size_t tail_len;
	char errs[COPY_ERRS_MAX];       /* libguestfs's errors in the current step */
	size_t errs_len;
};

/* One archive being extracted */
struct extract {
	struct archive *a;
	int root;                       /* the tree being built */
	const char *what;
	unsigned long long max_bytes;
	unsigned max_files;
	struct watchdog *wd;            /* NULL: no deadline */
	struct img_copy_report *rep;
	char *chunk;
};

/* --- small helpers ------------------------------------------------------- */

/* Copies s (n bytes at most, or up to a NUL) into out (outn bytes, "..."
 * marking a cut) to quote in a message: control characters and non-ASCII
 * bytes become '?' (names and console lines come from the guest), runs of
 * blanks one space. Returns out. */
static const char *clean(const char *s, size_t n, char *out, size_t outn)
{
	size_t i, o = 0;
	int space = 1;

	for (i = 0; i < n && s[i] && o + 4 < outn; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
			if (!space)
				out[o++] = ' ';
			space = 1;
			continue;
		}
		out[o++] = ch >= 0x20 && ch < 0x7f ? (char)ch : '?';
		space = 0;
	}
	if (i < n && s[i]) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
	return out;
}

/* "912 MiB": v in the largest binary unit it has one of, rounded up or
 * down, so "over the limit" never prints the limit's own number. */
static const char *fmt_size(unsigned long long v, int up, char out[32])
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	unsigned long long div = 1;
	unsigned i = 0;

	while (i + 1 < sizeof(units) / sizeof(units[0]) && v / div >= 1024) {
		div *= 1024;
		i++;
	}
	snprintf(out, 32, "%llu %s", v / div + (up && v % div ? 1 : 0), units[i]);
	return out;
}

/* A guest directory in normal form: "/" or "/a/b" with no empty, "." or
 * ".." components. The appliance's realpath of it must come back the same,
 * which is how a symlink on the way is noticed. */
static int guest_dir_ok(const char *p)
{
	const char *c;

	if (p[0] != '/' || strlen(p) >= PATH_MAX)
		return 0;
	if (!p[1])
		return 1;
	for (c = p + 1;; ) {
		size_t n = strcspn(c, "/");

		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return 0;
		if (!c[n])
			return 1;
		c += n + 1;
	}
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* --- the watchdog ---------------------------------------------------------- */

/* Reads at most n - 1 bytes of a /proc file into buf, NUL-terminated;
 * returns the length or -1 */
static int read_small(const char *path, char *buf, size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;
	size_t len = 0;

	if (fd < 0)
		return -1;
	while (len + 1 < n && (r = read(fd, buf + len, n - 1 - len)) > 0)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	return (int)len;
}

/* SIGKILLs this process's children whose command line has mark: the
 * appliance's QEMU (direct backend), started by this call's thread. */
static void kill_appliance(const char *mark)
{
	char path[64], st[1024], *paren, *cl;
	size_t slen = strlen(mark);
	pid_t self = getpid();
	struct dirent *de;
	DIR *d;

	if (!slen || !(cl = malloc(COPY_CMDLINE_MAX)))
		return;
	if (!(d = opendir("/proc"))) {
		free(cl);
		return;
	}
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		int ppid = 0, n;

		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		/* the name in parentheses may hold anything: parse after the last ')' */
		if (read_small(path, st, sizeof(st)) <= 0 || !(paren = strrchr(st, ')')) ||
		    sscanf(paren + 1, " %*c %d", &ppid) != 1 || ppid != self)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
		n = read_small(path, cl, COPY_CMDLINE_MAX);
		if (n > 0 && memmem(cl, (size_t)n, mark, slen))
			kill((pid_t)pid, SIGKILL);
	}
	closedir(d);
	free(cl);
}

static void *wd_main(void *arg)
{
	struct watchdog *wd = arg;
	struct timespec ts;

	pthread_mutex_lock(&wd->mu);
	while (!wd->done) {
		int64_t now = mono_ms(), next;

		if (now >= wd->deadline) {
			if (!wd->expired && wd->g)
				guestfs_user_cancel(wd->g);
			wd->expired = 1;
			/* Again and again: during the appliance build QEMU
			 * is not running yet, and it must not get away. */
			kill_appliance(wd->mark);
			next = now + COPY_KILL_MS;
		} else {
			next = wd->deadline;
			if (wd->tar_fd >= 0) {
				struct stat st;

				if (!wd->overflowed && fstat(wd->tar_fd, &st) == 0 &&
				    (unsigned long long)st.st_size > wd->tar_cap && wd->g) {
					wd->overflowed = 1;
					guestfs_user_cancel(wd->g);
				}
				if (next > now + COPY_POLL_MS)
					next = now + COPY_POLL_MS;
			}
		}
		ts.tv_sec = next / 1000;
		ts.tv_nsec = (next % 1000) * 1000000;
		pthread_cond_timedwait(&wd->cv, &wd->mu, &ts);
	}
	pthread_mutex_unlock(&wd->mu);
	return NULL;
}

static int wd_start(struct watchdog *wd, int timeout_s)
{
	pthread_condattr_t ca;
	int rc;

	wd->tar_fd = -1;
	wd->phase = PHASE_LAUNCH;
	wd->deadline = mono_ms() + (int64_t)timeout_s * 1000;
	if ((rc = pthread_mutex_init(&wd->mu, NULL)))
		return rc;
	wd->mu_ready = 1;
	if ((rc = pthread_condattr_init(&ca)))
		return rc;
	rc = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	if (!rc)
		rc = pthread_cond_init(&wd->cv, &ca);
	pthread_condattr_destroy(&ca);
	if (rc)
		return rc;
	wd->cv_ready = 1;
	if ((rc = pthread_create(&wd->thread, NULL, wd_main, wd)))
		return rc;
	wd->running = 1;
	return 0;
}

static void wd_stop(struct watchdog *wd)
{
	if (wd->running) {
		pthread_mutex_lock(&wd->mu);
		wd->done = 1;
		pthread_cond_signal(&wd->cv);
		pthread_mutex_unlock(&wd->mu);
		pthread_join(wd->thread, NULL);
		wd->running = 0;
	}
	if (wd->cv_ready)
		pthread_cond_destroy(&wd->cv);
	if (wd->mu_ready)
		pthread_mutex_destroy(&wd->mu);
	wd->cv_ready = wd->mu_ready = 0;
}

/* Sets what the copy is doing; returns 1 when the deadline has passed */
static int wd_phase(struct watchdog *wd, const char *phase)
{
	int expired;

	if (!wd->running)
		return 0;
	pthread_mutex_lock(&wd->mu);
	if (phase && !wd->expired)
		wd->phase = phase;
	expired = wd->expired;
	pthread_mutex_unlock(&wd->mu);
	return expired;
}

static void wd_set(struct watchdog *wd, guestfs_h *g, int tar_fd)
{
	pthread_mutex_lock(&wd->mu);
	wd->g = g;
	wd->tar_fd = tar_fd;
	pthread_mutex_unlock(&wd->mu);
}

static int wd_overflowed(struct watchdog *wd)
{
	int o;

	pthread_mutex_lock(&wd->mu);
	o = wd->overflowed;
	pthread_mutex_unlock(&wd->mu);
	return o;
}

static int timed_out(const char *what, struct watchdog *wd, int timeout_s, char **err)
{
	return set_errf(err, "%s: not copied out in %d s (stopped while %s)", what, timeout_s,
			wd->phase);
}

/* --- extraction ------------------------------------------------------------ */

/* Cleans an archive entry's name into out: "a/b", without "." and empty
 * components. 1: a name; 0: the top directory itself ("./"); -1: refused
 * (absolute, a ".." component, too long). */
static int clean_name(const char *name, char *out, size_t n)
{
	const char *p = name;
	size_t len = 0;

	if (*p == '/')
		return -1;
	while (*p) {
		size_t cl = strcspn(p, "/");

		if (cl == 2 && p[0] == '.' && p[1] == '.')
			return -1;
		if (cl > NAME_MAX)
			return -1;
		if (cl && !(cl == 1 && p[0] == '.')) {
			if (len + 1 + cl + 1 > n)
				return -1;
			if (len)
				out[len++] = '/';
			memcpy(out + len, p, cl);
			len += cl;
		}
		p += cl;
		if (*p == '/')
			p++;
	}
	out[len] = '\0';
	return len ? 1 : 0;
}

static int x_room(struct extract *x, const char *name, char **err)
{
	char q[COPY_NAME_MAX + 4];

	if ((unsigned long long)x->rep->files + x->rep->dirs < x->max_files)
		return 0;
	return set_errf(err, "%s: more than the %u files and directories allowed (at '%s')",
			x->what, x->max_files, clean(name, strlen(name), q, sizeof(q)));
}

static int x_io(struct extract *x, const char *doing, const char *name, char **err)
{
	char q[COPY_NAME_MAX + 4];
	int e = errno;

	return set_errf(err, "%s: %s '%s': %s", x->what, doing,
			clean(name, strlen(name), q, sizeof(q)), strerror(e));
}

/* Makes directory comp in dirfd with mode 0755 (whatever the umask) and
 * returns it open, counted in rep->dirs; -1 with *err. name: for messages. */
static int x_mkdir(struct extract *x, int dirfd, const char *comp, const char *name, char **err)
{
	int fd;

	if (x_room(x, name, err) < 0)
		return -1;
	if (mkdirat(dirfd, comp, 0700) < 0)
		return x_io(x, "creating directory", name, err);
	fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fchmod(fd, 0755) < 0) {
		x_io(x, "creating directory", name, err);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	x->rep->dirs++;
	return fd;
}

/* Opens (making it when missing) directory comp in dirfd. -1 with *err;
 * -2 when something else is in the way (a file listed before a name under
 * it): the entry is skipped. Never follows a symlink: none is ever made
 * here, but the tree must not be escaped even if one were. */
static int x_dir(struct extract *x, int dirfd, const char *comp, const char *name, char **err)
{
	int fd = openat(dirfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd >= 0)
		return fd;
	if (errno == ENOTDIR || errno == ELOOP)
		return -2;
	if (errno != ENOENT)
		return x_io(x, "opening directory", name, err);
	return x_mkdir(x, dirfd, comp, name, err);
}

/* Opens the directory that holds name's last component (*last), making the
 * ones on the way. Returns an fd, -1 with *err, or -2 (skip the entry). */
static int x_parent(struct extract *x, char *name, const char **last, char **err)
{
	int fd = dup(x->root), nfd;
	char *p = name, *slash;

	if (fd < 0)
		return x_io(x, "opening", ".", err);
	while ((slash = strchr(p, '/'))) {
		*slash = '\0';
		nfd = x_dir(x, fd, p, name, err);
		*slash = '/';
		close(fd);
		if (nfd < 0)
			return nfd;
		fd = nfd;
		p = slash + 1;
	}
	*last = p;
	return fd;
}

static int x_archive_err(struct extract *x, char **err)
{
	const char *m = archive_error_string(x->a);
	char q[COPY_NAME_MAX * 2 + 4];

	return set_errf(err, "%s: reading the archive: %s", x->what,
			m ? clean(m, strlen(m), q, sizeof(q)) : "unknown error");
}

/* Writes one regular file's data. 0, 1 (skipped: the name exists already,
 * a guest's filesystem can list one name twice) or -1 with *err. */
static int x_file(struct extract *x, struct archive_entry *e, int dirfd, const char *last,
		  const char *name, char **err)
{
	char q[COPY_NAME_MAX + 4], lim[32];
	unsigned long long left = x->max_bytes - x->rep->bytes;
	la_ssize_t r;
	int fd, rc = -1;

	if (x_room(x, name, err) < 0)
		return -1;
	/* The size in the header is known before anything is written */
	if (archive_entry_size_is_set(e) && archive_entry_size(e) > 0 &&
	    (unsigned long long)archive_entry_size(e) > left)
		goto too_big;
	fd = openat(dirfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		if (errno == EEXIST)
			return 1;
		return x_io(x, "creating", name, err);
	}
	while ((r = archive_read_data(x->a, x->chunk, COPY_CHUNK)) > 0) {
		if ((unsigned long long)r > left) {
			close(fd);
			goto too_big;
		}
		left -= (unsigned long long)r;
		x->rep->bytes += (unsigned long long)r;
		if (write_all(fd, x->chunk, (size_t)r) < 0) {
			x_io(x, "writing", name, err);
			goto out;
		}
	}
	if (r < 0) {
		x_archive_err(x, err);
		goto out;
	}
	/* 0755 or 0644, never setuid, setgid or sticky, whoever's umask */
	if (fchmod(fd, archive_entry_perm(e) & 0111 ? 0755 : 0644) < 0) {
		x_io(x, "setting the mode of", name, err);
		goto out;
	}
	if (archive_entry_mtime_is_set(e)) {
		struct timespec ts[2] = {
			{ .tv_nsec = UTIME_OMIT },
			{ .tv_sec = archive_entry_mtime(e),
			  .tv_nsec = archive_entry_mtime_nsec(e) },
		};

		/* Only for the reader's benefit: a time the host cannot
		 * store leaves the file with the time it was written */
		if (ts[1].tv_nsec < 0 || ts[1].tv_nsec >= 1000000000)
			ts[1].tv_nsec = 0;
		(void)futimens(fd, ts);
	}
	x->rep->files++;
	rc = 0;
out:
	if (close(fd) < 0 && rc == 0)
		rc = x_io(x, "writing", name, err);
	return rc;
too_big:
	return set_errf(err, "%s: files add up to more than the %s limit (at '%s')", x->what,
			fmt_size(x->max_bytes, 0, lim), clean(name, strlen(name), q, sizeof(q)));
}

/* Reads every entry of the archive on fd into the tree at x->root. -1 with
 * *err, or -2 when the watchdog's deadline passed. */
static int extract_fd(struct extract *x, int fd, char **err)
{
	struct archive_entry *e;
	char name[PATH_MAX];
	int rc;

	x->a = archive_read_new();
	x->chunk = malloc(COPY_CHUNK);
	if (!x->a || !x->chunk)
		return set_errf(err, "%s: out of memory", x->what);
	/* tar only (guestfs_tar_out writes GNU tar): no compression, no
	 * other formats for a hostile stream to pick */
	if (archive_read_support_format_tar(x->a) != ARCHIVE_OK ||
	    archive_read_open_fd(x->a, fd, COPY_CHUNK) != ARCHIVE_OK)
		return x_archive_err(x, err);
	for (;;) {
		const char *raw, *last = NULL;
		int type, pfd, sub;

		if (x->wd && wd_phase(x->wd, NULL))
			return -2;
		rc = archive_read_next_header(x->a, &e);
		if (rc == ARCHIVE_EOF)
			break;
		if (rc < ARCHIVE_WARN)
			return x_archive_err(x, err);
		raw = archive_entry_pathname(e);
		type = archive_entry_filetype(e);
		/* Links, devices, fifos and sockets are not results */
		if (archive_entry_hardlink(e) || (type != AE_IFREG && type != AE_IFDIR)) {
			x->rep->skipped++;
			continue;
		}
		rc = raw ? clean_name(raw, name, sizeof(name)) : -1;
		if (rc == 0)
			continue;       /* "./": the directory itself */
		if (rc < 0) {
			x->rep->skipped++;
			continue;
		}
		pfd = x_parent(x, name, &last, err);
		if (pfd == -2) {
			x->rep->skipped++;
			continue;
		}
		if (pfd < 0)
			return -1;
		if (type == AE_IFDIR) {
			sub = x_dir(x, pfd, last, name, err);
			if (sub >= 0)
				close(sub);
			else if (sub == -2)
				x->rep->skipped++;
		} else {
			sub = x_file(x, e, pfd, last, name, err);
			if (sub == 1)
				x->rep->skipped++;
		}
		close(pfd);
		if (sub == -1)
			return -1;
	}
	return 0;
}

/* The destination: host_dir without trailing slashes into out; it must
 * not exist, or be an empty directory (not a symlink to one) */
static int check_host_dir(const char *host_dir, char *out, size_t n, char **err)
{
	size_t len = host_dir ? strlen(host_dir) : 0;
	struct stat st;
	struct dirent *de;
	DIR *d;

	while (len > 1 && host_dir[len - 1] == '/')
		len--;
	if (!len || len >= n || (len == 1 && host_dir[0] == '/'))
		return set_errf(err, "host directory '%s' is not a usable path",
				host_dir ? host_dir : "(null)");
	memcpy(out, host_dir, len);
	out[len] = '\0';
	if (lstat(out, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		return set_errf(err, "host directory '%s': %s", out, strerror(errno));
	}
	if (!S_ISDIR(st.st_mode))
		return set_errf(err, "host directory '%s' exists and is not a directory", out);
	if (!(d = opendir(out)))
		return set_errf(err, "host directory '%s': %s", out, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			break;
	closedir(d);
	if (de)
		return set_errf(err, "host directory '%s' is not empty", out);
	return 0;
}

/* The work directory next to host (same filesystem, so the finished tree
 * is renamed into place): "HOST.copyout-XXXXXX", holding "tree". */
static int make_work(const char *host, char *work, size_t n, char **err)
{
	char *parent = strdup(host), *slash;
	int rc = 0;

	if (!parent)
		return set_errf(err, "host directory '%s': out of memory", host);
	slash = strrchr(parent, '/');
	if (slash && slash != parent) {
		*slash = '\0';
		if (mkdir_p(parent, 0755) < 0)
			rc = set_errf(err, "host directory '%s': creating '%s': %s", host, parent,
				      strerror(errno));
	}
	free(parent);
	if (rc)
		return rc;
	if ((size_t)snprintf(work, n, "%s.copyout-XXXXXX", host) >= n)
		return set_errf(err, "host directory '%s': path too long", host);
	if (!mkdtemp(work))
		return set_errf(err, "host directory '%s': creating '%s': %s", host, work,
				strerror(errno));
	return 0;
}

/* Extracts the archive on tar_fd into WORK/tree and renames that to host */
static int extract_into(int tar_fd, const char *work, const char *host, const char *what,
			const struct img_copy_limits *lim, struct watchdog *wd,
			struct img_copy_report *rep, char **err)
{
	struct extract x = {
		.root = -1, .what = what, .wd = wd, .rep = rep,
		.max_bytes = lim->max_bytes, .max_files = lim->max_files,
	};
	char *tree = path_join(work, "tree");
	int rc = -1;

	if (!tree)
		return set_errf(err, "%s: out of memory", what);
	if (mkdir(tree, 0700) < 0 ||
	    (x.root = open(tree, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0 ||
	    fchmod(x.root, 0755) < 0) {
		set_errf(err, "%s: creating '%s': %s", what, tree, strerror(errno));
		goto out;
	}
	rc = extract_fd(&x, tar_fd, err);
	if (rc == -2)
		rc = timed_out(what, wd, lim->timeout_s, err);
	if (rc < 0)
		goto out;
	if (rename(tree, host) < 0) {
		rc = set_errf(err, "%s: moving '%s' to '%s': %s", what, tree, host,
			      strerror(errno));
		goto out;
	}
out:
	if (x.root >= 0)
		close(x.root);
	if (x.a)
		archive_read_free(x.a);
	free(x.chunk);
	free(tree);
	return rc;
}

static void limits_init(struct img_copy_limits *l, const struct img_copy_limits *in)
{
	memset(l, 0, sizeof(*l));
	if (in)
		*l = *in;
	if (!l->max_bytes)
		l->max_bytes = IMG_COPY_MAX_BYTES;
	if (!l->max_files)
		l->max_files = IMG_COPY_MAX_FILES;
	if (l->timeout_s <= 0)
		l->timeout_s = IMG_COPY_TIMEOUT_S;
}

int img_copy_extract(const char *tar, const char *host_dir, const struct img_copy_limits *lim,
		     struct img_copy_report *rep, char **err)
{
	struct img_copy_limits l;
	char host[PATH_MAX], work[PATH_MAX + 32], what[PATH_MAX + 16];
	int fd, rc;

	*err = NULL;
	memset(rep, 0, sizeof(*rep));
	limits_init(&l, lim);
	snprintf(what, sizeof(what), "archive '%s'", tar);
	if ((fd = open(tar, O_RDONLY | O_CLOEXEC)) < 0)
		return set_errf(err, "%s: %s", what, strerror(errno));
	rc = check_host_dir(host_dir, host, sizeof(host), err);
	if (!rc)
		rc = make_work(host, work, sizeof(work), err);
	if (!rc) {
		rc = extract_into(fd, work, host, what, &l, NULL, rep, err);
		rm_tree(work);
	}
	close(fd);
	if (rc)
		memset(rep, 0, sizeof(*rep));
	return rc;
}

/* --- libguestfs ------------------------------------------------------------ */

/* The appliance console (QEMU's stderr, the appliance kernel's errors when
 * not verbose): its tail goes into error messages. Warnings go to our log
 * instead of stderr. Called in the thread making the call. */
static void on_event(guestfs_h *g, void *opaque, uint64_t event, int handle, int flags,
		     const char *buf, size_t len, const uint64_t *array, size_t array_len)
{
	struct copy *c = opaque;
	char q[512];

	if (event == GUESTFS_EVENT_WARNING) {
		log_warn("%s: libguestfs: %s", c->what, clean(buf, len, q, sizeof(q)));
		return;
	}
	if (len >= COPY_TAIL_MAX) {
		buf += len - COPY_TAIL_MAX;
		len = COPY_TAIL_MAX;
	}
	if (c->tail_len + len > COPY_TAIL_MAX) {
		size_t drop = c->tail_len + len - COPY_TAIL_MAX;

		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, buf, len);
	c->tail_len += len;
}

/* libguestfs's errors, instead of its default handler printing them on
 * stderr: the first line of each (the rest is advice to run
 * libguestfs-test-tool), joined with "; ". */
static void on_error(guestfs_h *g, void *opaque, const char *msg)
{
	struct copy *c = opaque;
	char q[COPY_ERRS_MAX];
	size_t n;

	clean(msg, strcspn(msg, "\n"), q, sizeof(q));
	if (!*q || strstr(c->errs, q))
		return;
	n = strlen(q);
	if (c->errs_len + 2 + n + 1 > sizeof(c->errs))
		return;
	if (c->errs_len) {
		memcpy(c->errs + c->errs_len, "; ", 2);
		c->errs_len += 2;
	}
	memcpy(c->errs + c->errs_len, q, n + 1);
	c->errs_len += n;
}

/* Starts a step: clears the errors kept, sets the phase. Returns 1 when
 * the deadline has passed already: nothing more is asked of libguestfs. */
static int step(struct copy *c, const char *phase)
{
	c->errs_len = 0;
	c->errs[0] = '\0';
	return wd_phase(&c->wd, phase);
}

/* -1 with *err: what failed, libguestfs's messages and the console's tail;
 * or the timeout, when the watchdog got there first. */
static int gfail(struct copy *c, const char *doing, char **err)
{
	const char *t = c->tail;
	size_t n = c->tail_len;
	char tail[400];
	const char *nl;

	if (wd_phase(&c->wd, NULL))
		return timed_out(c->what, &c->wd, c->timeout_s, err);
	/* The last 300 bytes, from the start of a line when there is one */
	if (n > 300) {
		t += n - 300;
		n = 300;
		if ((nl = memchr(t, '\n', n)) && nl + 1 < t + n) {
			n -= (size_t)(nl + 1 - t);
			t = nl + 1;
		}
	}
	clean(t, n, tail, sizeof(tail));
	if (!c->errs_len) {
		const char *m = guestfs_last_error(c->g);

		if (m)
			on_error(c->g, c, m);
	}
	return set_errf(err, "%s: %s: %s%s%s%s", c->what, doing,
			c->errs_len ? c->errs : "unknown libguestfs error",
			*tail ? " (appliance: " : "", tail, *tail ? ")" : "");
}

/* Puts "kfleet_copyout=PPPPPPPPNNNNNNNN" (this process, a call counter;
 * fixed width, so one is never a prefix of another) on the appliance
 * kernel's command line, which is in QEMU's argv: how the watchdog tells
 * this call's QEMU from those of calls running in other threads. The
 * kernel hands unknown parameters to the appliance's init, which ignores
 * them. (guestfs_get_sockdir() names only the parent, "/tmp".) */
static int mark_appliance(struct copy *c)
{
	static unsigned calls;
	unsigned n = __atomic_add_fetch(&calls, 1, __ATOMIC_RELAXED);
	const char *old = guestfs_get_append(c->g);
	char *append;
	int rc;

	pthread_mutex_lock(&c->wd.mu);
	snprintf(c->wd.mark, sizeof(c->wd.mark), "kfleet_copyout=%08x%08x",
		 (unsigned)getpid(), n);
	c->wd.g = c->g;
	pthread_mutex_unlock(&c->wd.mu);
	if (old && *old)
		rc = asprintf(&append, "%s %s", old, c->wd.mark);
	else
		rc = asprintf(&append, "%s", c->wd.mark);
	if (rc < 0) {
		on_error(c->g, c, "out of memory");
		return -1;
	}
	rc = guestfs_set_append(c->g, append);
	free(append);
	return rc;
}

/* The appliance's kernel parses a filesystem crafted by untrusted code; if
 * that gets it, QEMU's device emulation is the next wall, and with the
 * direct backend QEMU runs as we do: root, for kfleetd. QEMU's -runas drops
 * to COPY_QEMU_USER once it has opened its files and sockets. (libvirt's
 * backend runs QEMU as its own user already.) */
static int run_qemu_unprivileged(struct copy *c)
{
	struct passwd pw, *res = NULL;
	char buf[1024], *backend;
	int direct, rc = 0;

	if (geteuid() != 0)
		return 0;
	backend = guestfs_get_backend(c->g);
	if (!backend)
		return -1;
	direct = !strcmp(backend, "direct");
	free(backend);
	if (direct && getpwnam_r(COPY_QEMU_USER, &pw, buf, sizeof(buf), &res) == 0 && res)
		rc = guestfs_config(c->g, "-runas", COPY_QEMU_USER);
	return rc;
}

static int open_handle(struct copy *c, char **err)
{
	const char *env;

	/* The environment is read (LIBGUESTFS_PATH, _HV, _CACHEDIR, _DEBUG,
	 * TMPDIR... are how an operator makes the appliance work on a host
	 * or debugs it); the settings that matter for safety are forced
	 * after it. */
	c->g = guestfs_create_flags(0);
	if (!c->g)
		return set_errf(err, "%s: creating a libguestfs handle: %s", c->what,
				strerror(errno));
	guestfs_set_error_handler(c->g, on_error, c);
	/* Tracing would print every call to stderr, from every worker at
	 * once; errors come back in *err instead */
	guestfs_set_trace(c->g, 0);
	/* The console is kept for error messages; with LIBGUESTFS_DEBUG=1
	 * it goes to stderr as usual (a callback would swallow it) */
	if (guestfs_set_event_callback(c->g, on_event, GUESTFS_EVENT_WARNING |
				       (guestfs_get_verbose(c->g) ? 0 : GUESTFS_EVENT_APPLIANCE),
				       0, c) < 0)
		return gfail(c, "configuring libguestfs", err);
	/* "direct": QEMU is our child, so the watchdog can find and kill it.
	 * With libvirt the appliance would be a domain on the libvirtd that
	 * runs the fleet's guests, and the watchdog could only cancel
	 * transfers. An operator may still choose it. */
	env = getenv("LIBGUESTFS_BACKEND");
	if ((!env || !*env) && guestfs_set_backend(c->g, "direct") < 0)
		return gfail(c, "configuring libguestfs", err);
	env = getenv("LIBGUESTFS_BACKEND_SETTINGS");
	if ((!env || !*env) && !kvm_usable_here(NULL, 0) &&
	    guestfs_set_backend_setting(c->g, "force_tcg", "1") < 0)
		return gfail(c, "configuring libguestfs", err);
	/* Many of these may run at once: the default (1280 MiB on Debian)
	 * is far more than mounting and tar need */
	env = getenv("LIBGUESTFS_MEMSIZE");
	if ((!env || !*env) && guestfs_set_memsize(c->g, COPY_MEMSIZE_MB) < 0)
		return gfail(c, "configuring libguestfs", err);
	/* Nothing is written, so nothing to sync at close: one RPC less to
	 * a possibly wedged appliance. No network for it either. */
	if (guestfs_set_autosync(c->g, 0) < 0 || guestfs_set_network(c->g, 0) < 0)
		return gfail(c, "configuring libguestfs", err);
	if (mark_appliance(c) < 0 || run_qemu_unprivileged(c) < 0)
		return gfail(c, "configuring libguestfs", err);
	return 0;
}

static int launch(struct copy *c, char **err)
{
	if (step(c, PHASE_LAUNCH))
		return timed_out(c->what, &c->wd, c->timeout_s, err);
	/* readonly=1: QEMU opens the image read-only under a throwaway
	 * overlay (a dirty journal is still replayed, into the overlay);
	 * the format is given, never probed, so a raw image cannot pass
	 * itself off as qcow2 with a backing file of its choosing */
	if (guestfs_add_drive_opts(c->g, c->disk, GUESTFS_ADD_DRIVE_OPTS_READONLY, 1,
				   GUESTFS_ADD_DRIVE_OPTS_FORMAT, c->format, -1) < 0)
		return gfail(c, "adding the disk", err);
	/* Adding a read-only disk ran qemu-img: the deadline may be gone */
	if (step(c, NULL))
		return timed_out(c->what, &c->wd, c->timeout_s, err);
	if (guestfs_launch(c->g) < 0)
		return gfail(c, "starting the libguestfs appliance", err);
	return 0;
}

/* Is guest_dir a directory on the filesystem mounted now, reached without
 * a symlink? 1 yes, 0 no (*why may say why not), -1 error */
static int dir_here(struct copy *c, const char **why, char **err)
{
	char *real;
	int r;

	real = guestfs_realpath(c->g, c->guest_dir);
	if (!real) {
		int e = guestfs_last_errno(c->g);

		if (e == ENOENT || e == ENOTDIR)
			return 0;
		return gfail(c, "looking for the directory", err);
	}
	r = strcmp(real, c->guest_dir);
	free(real);
	if (r) {
		*why = "leads through a symlink";
		return 0;
	}
	r = guestfs_is_dir_opts(c->g, c->guest_dir, GUESTFS_IS_DIR_OPTS_FOLLOWSYMLINKS, 0, -1);
	if (r < 0)
		return gfail(c, "looking for the directory", err);
	if (!r)
		*why = "is not a directory";
	return r;
}

/* Mounts the first filesystem that has guest_dir on "/". 1 found, 0 when
 * none has it (rep->missing), -1 with *err (also when a filesystem could
 * not be mounted or the path is a symlink and none had it). */
static int find_dir(struct copy *c, char **err)
{
	char **fs, mount_err[COPY_ERRS_MAX + 64] = "";
	const char *why = NULL;
	size_t i, tried = 0;
	int rc = -1, r;

	if (step(c, PHASE_FIND))
		return timed_out(c->what, &c->wd, c->timeout_s, err);
	fs = guestfs_list_filesystems(c->g);
	if (!fs)
		return gfail(c, "listing filesystems", err);
	for (i = 0; fs[i] && fs[i + 1]; i += 2) {
		const char *dev = fs[i], *type = fs[i + 1];
		char q[COPY_NAME_MAX + 4];

		if (!strcmp(type, "swap") || !strcmp(type, "unknown") || !*type)
			continue;
		if (++tried > COPY_FS_MAX)
			break;
		if (step(c, NULL)) {
			rc = timed_out(c->what, &c->wd, c->timeout_s, err);
			goto out;
		}
		/* Nothing on it is ever run by the appliance; the options
		 * say so anyway */
		if (guestfs_mount_options(c->g, "ro,nosuid,nodev,noexec", dev, "/") < 0) {
			if (wd_phase(&c->wd, NULL)) {
				rc = timed_out(c->what, &c->wd, c->timeout_s, err);
				goto out;
			}
			if (!*mount_err)
				snprintf(mount_err, sizeof(mount_err), "mounting '%s': %s",
					 clean(dev, strlen(dev), q, sizeof(q)),
					 c->errs_len ? c->errs : "failed");
			continue;
		}
		r = dir_here(c, &why, err);
		if (r != 0) {
			rc = r;
			goto out;
		}
		step(c, NULL);
		if (guestfs_umount_all(c->g) < 0) {
			rc = gfail(c, "unmounting", err);
			goto out;
		}
	}
	if (!tried)
		rc = set_errf(err, "%s: no filesystem on the disk", c->what);
	else if (*mount_err)
		rc = set_errf(err, "%s: %s", c->what, mount_err);
	else if (why)
		rc = set_errf(err, "%s: '%s' %s", c->what, c->guest_dir, why);
	else
		rc = 0;
out:
	for (i = 0; fs[i]; i++)
		free(fs[i]);
	free(fs);
	return rc;
}

/* Refuses early what cannot fit. du counts allocated blocks: up to a block
 * (4 KiB) more than the data for every file and directory, and less for
 * sparse files. So only what is over max_bytes even after a block per
 * allowed entry is refused here; extraction enforces the limit exactly. */
static int check_size(struct copy *c, char **err)
{
	unsigned long long used, slack = (unsigned long long)c->max_files * 4096;
	char a[32], b[32];
	int64_t kib;

	if (step(c, PHASE_DU))
		return timed_out(c->what, &c->wd, c->timeout_s, err);
	kib = guestfs_du(c->g, c->guest_dir);
	if (kib < 0)
		return gfail(c, "measuring the directory", err);
	used = (unsigned long long)kib;
	used = used > ULLONG_MAX / 1024 ? ULLONG_MAX : used * 1024;
	if (used > c->max_bytes && used - c->max_bytes > slack)
		return set_errf(err, "%s: %s is over the %s limit", c->what, fmt_size(used, 1, a),
				fmt_size(c->max_bytes, 0, b));
	return 0;
}

static int tar_out(struct copy *c, const char *tar, int tar_fd, char **err)
{
	char a[32], b[32];
	int rc;

	if (step(c, PHASE_TAR))
		return timed_out(c->what, &c->wd, c->timeout_s, err);
	pthread_mutex_lock(&c->wd.mu);
	c->wd.tar_fd = tar_fd;
	c->wd.tar_cap = c->max_bytes + 2ull * c->max_files * COPY_TAR_ENTRY + COPY_TAR_SLACK;
	pthread_cond_signal(&c->wd.cv);         /* it sleeps until the deadline otherwise */
	pthread_mutex_unlock(&c->wd.mu);
	/* Numeric owners: nothing to look up in the appliance, and owners
	 * are dropped anyway */
	rc = guestfs_tar_out_opts(c->g, c->guest_dir, tar,
				  GUESTFS_TAR_OUT_OPTS_NUMERICOWNER, 1, -1);
	wd_set(&c->wd, c->g, -1);
	if (rc < 0 && wd_overflowed(&c->wd))
		return set_errf(err, "%s: files add up to more than the %s limit (copying "
				"stopped when the archive passed %s)", c->what,
				fmt_size(c->max_bytes, 0, b), fmt_size(c->wd.tar_cap, 1, a));
	if (rc < 0)
		return gfail(c, "reading the directory", err);
	return 0;
}

/* Stops the appliance. The handle leaves the watchdog first: it must not
 * call guestfs_user_cancel() on a freed handle. */
static void close_handle(struct copy *c)
{
	if (!c->g)
		return;
	wd_phase(&c->wd, PHASE_CLOSE);
	if (c->wd.mu_ready)
		wd_set(&c->wd, NULL, -1);
	guestfs_close(c->g);
	c->g = NULL;
}

/* A guest's appliance dying writes to a closed socket: SIGPIPE, which
 * libguestfs does not guard against and which kills a process that has
 * not ignored it. It is blocked in this thread for the call, and one that
 * came meanwhile is taken off before the old mask is back. */
static void sigpipe_block(sigset_t *old)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &s, old);
}

static void sigpipe_restore(const sigset_t *old)
{
	struct timespec zero = { 0, 0 };
	sigset_t s;

	if (sigismember(old, SIGPIPE))
		return;         /* the caller blocks it: theirs to handle */
	sigemptyset(&s);
	sigaddset(&s, SIGPIPE);
	while (sigtimedwait(&s, NULL, &zero) == SIGPIPE)
		;
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* The appliance up, with its watchdog and SIGPIPE blocked in this thread:
 * what both callers start with. 0, or -1 with *err; either way
 * appliance_end() undoes what was done. */
static int appliance_start(struct copy *c, sigset_t *old, char **err)
{
	int r;

	sigpipe_block(old);
	if ((r = wd_start(&c->wd, c->timeout_s)))
		return set_errf(err, "%s: starting the watchdog thread: %s", c->what, strerror(r));
	if (open_handle(c, err) < 0 || launch(c, err) < 0)
		return -1;
	return 0;
}

static void appliance_end(struct copy *c, const sigset_t *old)
{
	close_handle(c);
	wd_stop(&c->wd);
	sigpipe_restore(old);
}

/* Checks what can be checked on the host before anything starts */
static int check_args(struct copy *c, const char *disk, char **err)
{
	unsigned char magic[4];
	struct stat st;
	int fd;
	ssize_t n;

	if (!disk || !*disk)
		return set_errf(err, "no disk image given");
	if (!c->format || (strcmp(c->format, "qcow2") && strcmp(c->format, "raw")))
		return set_errf(err, "disk '%s': format '%s' is not qcow2 or raw", disk,
				c->format ? c->format : "(null)");
	if (!c->guest_dir || !guest_dir_ok(c->guest_dir))
		return set_errf(err, "disk '%s': guest directory '%s' is not an absolute path in "
				"normal form", disk, c->guest_dir ? c->guest_dir : "(null)");
	c->disk = path_abs(disk);
	if (!c->disk)
		return set_errf(err, "disk '%s': %s", disk, strerror(errno));
	snprintf(c->what, sizeof(c->what), "results '%s' on disk '%s'", c->guest_dir, c->disk);
	fd = open(c->disk, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return set_errf(err, "disk '%s': %s", c->disk, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return set_errf(err, "disk '%s': not a regular file", c->disk);
	}
	n = read(fd, magic, sizeof(magic));
	close(fd);
	/* libguestfs would only say "qemu-img exited with error status 1" */
	if (!strcmp(c->format, "qcow2") &&
	    (n != (ssize_t)sizeof(magic) || memcmp(magic, "QFI\xfb", 4)))
		return set_errf(err, "disk '%s': not a qcow2 image (no QFI magic)", c->disk);
	return 0;
}

int img_copy_out(const char *disk, const char *format, const char *guest_dir,
		 const char *host_dir, const struct img_copy_limits *lim,
		 struct img_copy_report *rep, char **err)
{
	struct copy *c = calloc(1, sizeof(*c));
	struct img_copy_limits l;
	char host[PATH_MAX], work[PATH_MAX + 32], *tar = NULL;
	int tar_fd = -1, rc = -1, r, have_work = 0;
	sigset_t old;

	*err = NULL;
	memset(rep, 0, sizeof(*rep));
	if (!c)
		return set_errf(err, "disk '%s': out of memory", disk ? disk : "(null)");
	limits_init(&l, lim);
	c->max_bytes = l.max_bytes;
	c->max_files = l.max_files;
	c->timeout_s = l.timeout_s;
	c->format = format;
	c->guest_dir = guest_dir;
	c->wd.tar_fd = -1;
	if (check_args(c, disk, err) < 0 ||
	    check_host_dir(host_dir, host, sizeof(host), err) < 0) {
		free(c->disk);
		free(c);
		return -1;
	}
	if (make_work(host, work, sizeof(work), err) < 0)
		goto out;
	have_work = 1;
	tar = path_join(work, "results.tar");
	if (!tar) {
		set_errf(err, "%s: out of memory", c->what);
		goto out;
	}
	/* Made here (0600, in a fresh 0700 directory) so the watchdog can
	 * watch its size through this fd; libguestfs reopens it by name */
	tar_fd = open(tar, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (tar_fd < 0) {
		set_errf(err, "%s: creating '%s': %s", c->what, tar, strerror(errno));
		goto out;
	}
	if (appliance_start(c, &old, err) < 0)
		goto out_sig;
	r = find_dir(c, err);
	if (r < 0)
		goto out_sig;
	if (r == 0) {
		rep->missing = 1;
		rc = 0;
		goto out_sig;
	}
	if (check_size(c, err) < 0 || tar_out(c, tar, tar_fd, err) < 0)
		goto out_sig;
	/* The appliance is not needed for extracting: its memory and CPU
	 * go back now */
	close_handle(c);
	if (lseek(tar_fd, 0, SEEK_SET) < 0) {
		set_errf(err, "%s: '%s': %s", c->what, tar, strerror(errno));
		goto out_sig;
	}
	wd_phase(&c->wd, PHASE_UNTAR);
	rc = extract_into(tar_fd, work, host, c->what, &l, &c->wd, rep, err);
out_sig:
	appliance_end(c, &old);
out:
	if (tar_fd >= 0)
		close(tar_fd);
	if (have_work && rm_tree(work) < 0)
		log_warn("%s: could not remove '%s': %s", c->what, work, strerror(errno));
	if (rc < 0)
		memset(rep, 0, sizeof(*rep));
	free(tar);
	free(c->disk);
	free(c);
	return rc;
}

/* --- a distro image's root ------------------------------------------------ */

/* "/dev/sda1" in the appliance (virtio-scsi) is "/dev/vda1" in a guest
 * that has the disk as its only virtio-blk disk */
static int guest_dev(const char *dev, char *out, size_t n)
{
	if (strncmp(dev, "/dev/sda", 8) || dev[8 + strspn(dev + 8, "0123456789")])
		return -1;
	snprintf(out, n, "/dev/vda%s", dev + 8);
	return 0;
}

int img_disk_root(const char *disk, const char *format, char *dev, size_t dev_n, char *fstype,
		  size_t fstype_n, char **err)
{
	struct copy *c = calloc(1, sizeof(*c));
	char **roots = NULL, *type = NULL;
	int rc = -1;
	sigset_t old;

	*err = NULL;
	if (!c)
		return set_errf(err, "disk '%s': out of memory", disk ? disk : "(null)");
	c->format = format;
	c->guest_dir = "/";
	c->timeout_s = IMG_COPY_TIMEOUT_S;
	c->wd.tar_fd = -1;
	if (check_args(c, disk, err) < 0) {
		free(c->disk);
		free(c);
		return -1;
	}
	snprintf(c->what, sizeof(c->what), "disk '%s'", c->disk);
	if (appliance_start(c, &old, err) < 0)
		goto out_sig;
	if (step(c, "inspecting the disk")) {
		timed_out(c->what, &c->wd, c->timeout_s, err);
		goto out_sig;
	}
	/* libguestfs's inspection reads the disk's filesystems in its own
	 * appliance, the way it finds an OS's root for virt-* tools */
	roots = guestfs_inspect_os(c->g);
	if (!roots) {
		gfail(c, "inspecting the disk", err);
		goto out_sig;
	}
	if (!roots[0]) {
		set_errf(err, "%s: no operating system found on it", c->what);
		goto out_sig;
	}
	type = guestfs_vfs_type(c->g, roots[0]);
	if (!type) {
		gfail(c, "reading the root filesystem's type", err);
		goto out_sig;
	}
	if (guest_dev(roots[0], dev, dev_n) < 0) {
		set_errf(err, "%s: its root is on '%.64s', not a partition of the disk itself "
			 "(LVM and RAID roots are not supported)", c->what, roots[0]);
		goto out_sig;
	}
	snprintf(fstype, fstype_n, "%s", type);
	rc = 0;
out_sig:
	appliance_end(c, &old);
	for (size_t i = 0; roots && roots[i]; i++)
		free(roots[i]);
	free(roots);
	free(type);
	free(c->disk);
	free(c);
	return rc;
}
