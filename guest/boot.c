// SPDX-License-Identifier: GPL-2.0-only
/* boot.c: the agent's part of the guest's own setup (guest.h): the
 * filesystems the command needs, the kernel modules the initramfs lists,
 * the agent channel's virtio port, and a job's root disk switched to and
 * settled after; and what agent.c and this file both call (say(),
 * slurp(), set_exit()). */
#include "guest/guest.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <linux/magic.h>
#include <dirent.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include "common/frame.h"
#include "common/util.h"
#include "images/images.h"

void say(const char *fmt, ...)
{
	va_list ap;

	fputs("kfleet-agent: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

/* Reads at most max bytes of path into a new NUL-terminated string (caller
 * frees). Returns NULL with errno set; EFBIG when the file is longer. */
char *slurp(const char *path, size_t max, size_t *lenp)
{
	struct buf b = BUF_INIT(0);
	int saved;

	if (read_file(path, &b, max) < 0 || b.truncated) {
		saved = b.truncated ? EFBIG : errno;
		buf_release(&b);
		errno = saved;
		return NULL;
	}
	if (lenp)
		*lenp = b.len;
	return buf_detach(&b);
}

void set_exit(struct agent *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(a->exit_payload, sizeof(a->exit_payload), fmt, ap);
	va_end(ap);
}

/* Mounts what the command expects in a minimal system; failures are reported */
void mount_guest(void)
{
	static const struct {
		const char *src, *dir, *type;
	} m[] = {
		{ "proc", "/proc", "proc" },
		{ "sysfs", "/sys", "sysfs" },
		{ "devtmpfs", "/dev", "devtmpfs" },
		{ "tmpfs", "/tmp", "tmpfs" },
	};
	size_t i;

	for (i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (mount(m[i].src, m[i].dir, m[i].type, 0, NULL) < 0 && errno != EBUSY)
			say("mount '%s': %s", m[i].dir, strerror(errno));
}

int open_tty(const char *path)
{
	struct termios tio;
	int fd;

	fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		say("channel '%s': %s", path, strerror(errno));
		return -1;
	}
	if (tcgetattr(fd, &tio) == 0) {
		cfmakeraw(&tio);
		cfsetispeed(&tio, B115200);
		cfsetospeed(&tio, B115200);
		if (tcsetattr(fd, TCSANOW, &tio) < 0)
			say("channel '%s': tcsetattr: %s", path, strerror(errno));
	}
	return fd;
}

/* Loads the modules /kfleet/modules lists, one path a line, in order (the
 * image builder resolved their dependencies). Failures are said on the
 * console; the channel then tells whether what mattered is there. */
void load_modules(void)
{
	char *list = slurp(IMG_MODULES_PATH, 64 * 1024, NULL), *line, *next;

	if (!list)
		return;
	for (line = list; line && *line; line = next) {
		int fd;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!*line)
			continue;
		fd = open(line, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			say("module '%s': %s", line, strerror(errno));
			continue;
		}
		if (syscall(SYS_finit_module, fd, "", 0) < 0 && errno != EEXIST)
			say("module '%s': %s", line, strerror(errno));
		close(fd);
	}
	free(list);
}

/* Finds the virtio-serial port named IMG_VIRTIO_PORT: its device node is
 * /dev/<vportNpM> (devtmpfs), its name in /sys/class/virtio-ports. The
 * driver probes asynchronously, so this waits a while for it. */
int open_virtio_port(void)
{
	int64_t until = mono_ms() + AGENT_PORT_WAIT_MS;

	do {
		DIR *d = opendir("/sys/class/virtio-ports");
		struct dirent *e;

		while (d && (e = readdir(d))) {
			char path[PATH_MAX], name[128];
			int fd;
			ssize_t n;

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/sys/class/virtio-ports/%s/name", e->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0)
				continue;
			n = read(fd, name, sizeof(name) - 1);
			close(fd);
			if (n <= 0)
				continue;
			name[n] = '\0';
			name[strcspn(name, "\n")] = '\0';
			if (strcmp(name, IMG_VIRTIO_PORT))
				continue;
			snprintf(path, sizeof(path), "/dev/%s", e->d_name);
			closedir(d);
			fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
			if (fd < 0)
				say("channel '%s': %s", path, strerror(errno));
			return fd;
		}
		if (d)
			closedir(d);
		usleep(50000);
	} while (mono_ms() < until);
	say("channel: no virtio port named '%s' after %d s", IMG_VIRTIO_PORT,
	    AGENT_PORT_WAIT_MS / 1000);
	return -1;
}

/* A virtio port's writes are done when QEMU has the buffers, not when
 * kfleetd has read them: powering off at once can lose the last frames.
 * kfleetd answers the exit frame with a line; wait for it, bounded. */
void wait_ack(int fd)
{
	int64_t until = mono_ms() + AGENT_ACK_WAIT_MS;
	char b[64];

	for (;;) {
		int64_t left = until - mono_ms();
		struct pollfd pf = { .fd = fd, .events = POLLIN };

		if (left <= 0) {
			say("channel: no acknowledgement from kfleetd in %d s", AGENT_ACK_WAIT_MS / 1000);
			return;
		}
		if (poll(&pf, 1, (int)left) > 0 && read(fd, b, sizeof(b)) > 0)
			return;
	}
}

/* Makes the job's root disk the root, as switch_root does: mount it, bring
 * the run's files (/kfleet, /kselftest) and fresh proc, sys, dev and tmp
 * mounts into it, move it over '/' and chroot. The initramfs stays in memory
 * underneath, which a test guest can afford. The block driver probes
 * asynchronously, so the device is waited for. 0, or -1 with the exit
 * payload set. */
int switch_to_disk(struct agent *a)
{
	static const char *const binds[] = { "/kfleet", "/kselftest" };
	static const struct {
		const char *src, *dir, *type;
		mode_t mode;
	} m[] = {
		{ "proc", "/newroot/proc", "proc", 0555 },
		{ "sysfs", "/newroot/sys", "sysfs", 0555 },
		{ "devtmpfs", "/newroot/dev", "devtmpfs", 0755 },
		{ "tmpfs", "/newroot/tmp", "tmpfs", 01777 },
	};
	int64_t until = mono_ms() + AGENT_PORT_WAIT_MS;
	struct stat st;
	char dst[PATH_MAX];

	while (stat(a->root_dev, &st) < 0 && mono_ms() < until)
		usleep(50000);
	if (mkdir("/newroot", 0755) < 0 && errno != EEXIST) {
		set_exit(a, "error=root disk: mkdir /newroot: %s", strerror(errno));
		return -1;
	}
	if (mount(a->root_dev, "/newroot", "ext4", 0, NULL) < 0) {
		set_exit(a, "error=root disk '%s': mount ext4: %s%s", a->root_dev, strerror(errno),
			 errno == ENOENT || errno == ENXIO ? " (no virtio-blk device: is "
			 "virtio_blk built in or loaded?)" : errno == ENODEV ?
			 " (no ext4 in this kernel)" : "");
		return -1;
	}
	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++) {
		if (stat(binds[i], &st) < 0)
			continue;
		snprintf(dst, sizeof(dst), "/newroot%s", binds[i]);
		if (mkdir_p(dst, 0755) < 0 || mount(binds[i], dst, NULL, MS_BIND | MS_REC, NULL) < 0) {
			set_exit(a, "error=root disk: bind %s: %s", binds[i], strerror(errno));
			return -1;
		}
	}
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		if (mkdir_p(m[i].dir, m[i].mode) < 0 ||
		    (mount(m[i].src, m[i].dir, m[i].type, 0, NULL) < 0 && errno != EBUSY)) {
			set_exit(a, "error=root disk: mount %s: %s", m[i].dir, strerror(errno));
			return -1;
		}
	}
	if (chdir("/newroot") < 0 || mount(".", "/", NULL, MS_MOVE, NULL) < 0 ||
	    chroot(".") < 0 || chdir("/") < 0) {
		set_exit(a, "error=root disk: switching root: %s", strerror(errno));
		return -1;
	}
	if (access("/bin/sh", X_OK) < 0) {
		set_exit(a, "error=root disk '%s' has no /bin/sh: %s", a->root_dev, strerror(errno));
		return -1;
	}
	say("root is now '%s'", a->root_dev);
	return 0;
}

/* Leaves the root disk clean for whoever reads it after the guest stops:
 * a read-only remount writes back everything and checkpoints the journal.
 * Something still holding a file open for writing keeps it busy; then sync
 * is all there is. */
void settle_disk(void)
{
	sync();
	if (mount(NULL, "/", NULL, MS_REMOUNT | MS_RDONLY, NULL) < 0)
		say("remounting the root disk read-only: %s", strerror(errno));
}

/* The guest's root is the initramfs: a ramfs or tmpfs holding run.conf */
int in_initramfs(void)
{
	struct statfs sf;

	if (statfs("/", &sf) < 0)
		return 0;
	if ((unsigned long)sf.f_type != RAMFS_MAGIC && (unsigned long)sf.f_type != TMPFS_MAGIC)
		return 0;
	return access(IMG_RUNCONF_PATH, F_OK) == 0;
}
