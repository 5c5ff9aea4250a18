// SPDX-License-Identifier: GPL-2.0-only
/* conlog.c: a guest's console file as virtlogd writes it. virtlogd
 * rotates it at its max_size (2 MiB by default: console.log becomes
 * console.log.0, .0 becomes .1, ..., max_backups of them kept), so the file
 * alone says neither how much the guest wrote nor what it wrote first.
 * conlog_poll() follows the rotations (a new inode under the name) and
 * counts every byte; at the first one it keeps the head, where the boot
 * log is; conlog_text() gives what is kept in order for the crash scan;
 * conlog_finish() leaves one console.log of the head and the tail. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"

#define BACKUPS_MAX 9            /* console.log.0 .. .8 looked at */
#define HEAD_MAX (512u << 10)    /* the boot log kept from the first file */

static void backup_name(char *out, size_t n, const char *path, int i)
{
	snprintf(out, n, "%s.%d", path, i);
}

/* Copies the first HEAD_MAX bytes of from into to: 0, or an errno */
static int keep_head(const char *from, const char *to)
{
	struct buf b = BUF_INIT(HEAD_MAX);
	int err = 0;

	if ((read_file(from, &b, HEAD_MAX) == 0 || b.len) &&
	    write_file(to, b.data ? b.data : "", b.len, 0600) < 0)
		err = errno;
	buf_release(&b);
	return err;
}

void conlog_poll(struct conlog *l, const char *path)
{
	struct stat st;
	char name[PATH_MAX];

	if (stat(path, &st) < 0)
		return;
	if (l->ino && st.st_ino != l->ino) {
		/* rotated: the file we followed is one of the backups now, and
		 * any newer than it were written and rotated in between */
		int found = -1;

		for (int i = 0; i < BACKUPS_MAX && found < 0; i++) {
			struct stat b;

			backup_name(name, sizeof(name), path, i);
			if (stat(name, &b) == 0 && b.st_ino == l->ino) {
				found = i;
				l->rotated += b.st_size;
				if (!l->rotations) {
					char head[PATH_MAX];

					snprintf(head, sizeof(head), "%s.head", path);
					l->head_werr = keep_head(name, head);
				}
			}
		}
		for (int i = 0; i < found; i++) {
			struct stat b;

			backup_name(name, sizeof(name), path, i);
			if (stat(name, &b) == 0)
				l->rotated += b.st_size;
		}
		if (found < 0)
			l->rotated += l->size;   /* gone already: at least what was seen */
		l->rotations++;
	}
	l->ino = st.st_ino;
	l->size = st.st_size;
}

long long conlog_total(const struct conlog *l)
{
	return l->rotated + l->size;
}

int conlog_text(const struct conlog *l, const char *path, struct buf *text, size_t max)
{
	char name[PATH_MAX];
	struct buf part = BUF_INIT(max);

	if (!l->rotations)
		return read_file(path, text, max);
	snprintf(name, sizeof(name), "%s.head", path);
	read_file(name, text, max);
	for (int i = BACKUPS_MAX - 1; i >= -1; i--) {
		if (i >= 0)
			backup_name(name, sizeof(name), path, i);
		buf_reset(&part);
		if (read_file(i >= 0 ? name : path, &part, max) < 0 && !part.len)
			continue;
		if (text->len + part.len > max)
			break;
		buf_append(text, part.data ? part.data : "", part.len);
	}
	buf_release(&part);
	return 0;
}

void conlog_finish(const struct conlog *l, const char *path, unsigned long long max)
{
	char name[PATH_MAX], note[200];
	struct buf head = BUF_INIT(0), tail = BUF_INIT(0);
	long long sizes[BACKUPS_MAX + 1], need;
	int from;

	if (!l->rotations) {
		console_cap(path, max);
		return;
	}
	snprintf(name, sizeof(name), "%s.head", path);
	buf_init(&head, HEAD_MAX + sizeof(note));
	read_file(name, &head, HEAD_MAX);
	/* the tail: from the newest file (the current one, index -1, at
	 * sizes[0]) back through the backups, as much as max leaves */
	need = (long long)(max > head.len + 4096 ? max - head.len : 4096);
	for (from = -1; from < BACKUPS_MAX; from++) {
		struct stat st;

		if (from >= 0)
			backup_name(name, sizeof(name), path, from);
		sizes[from + 1] = stat(from >= 0 ? name : path, &st) == 0 ? (long long)st.st_size : 0;
		if (sizes[from + 1] >= need)
			break;
		need -= sizes[from + 1];
	}
	if (from == BACKUPS_MAX)
		from = BACKUPS_MAX - 1;
	buf_init(&tail, (size_t)(max > head.len ? max : head.len) + 8192);
	for (int i = from; i >= -1; i--) {
		if (i >= 0)
			backup_name(name, sizeof(name), path, i);
		/* the oldest file taken: only its last bytes */
		if (i == from && sizes[i + 1] > need)
			read_file_tail(i >= 0 ? name : path, &tail, (size_t)need);
		else
			read_file(i >= 0 ? name : path, &tail, (size_t)sizes[i + 1]);
	}
	snprintf(note, sizeof(note), "\n[kfleet: the guest wrote %lld bytes to its console; "
		 "its first %zu and last %zu are kept]\n", conlog_total(l), head.len, tail.len);
	buf_puts(&head, note);
	if (write_file(path, "", 0, 0600) < 0 ||
	    (write_file(path, head.data, head.len, 0600) < 0)) {
		log_warn("console '%s': cannot write its head and tail", path);
	} else {
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);

		if (fd < 0 || write(fd, tail.data ? tail.data : "", tail.len) != (ssize_t)tail.len)
			log_warn("console '%s': cannot write its tail", path);
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < BACKUPS_MAX; i++) {
		backup_name(name, sizeof(name), path, i);
		unlink(name);
	}
	snprintf(name, sizeof(name), "%s.head", path);
	unlink(name);
	buf_release(&head);
	buf_release(&tail);
}

void console_cap(const char *path, unsigned long long max)
{
	struct stat st;
	char note[96];
	int fd;

	if (stat(path, &st) < 0 || (unsigned long long)st.st_size <= max)
		return;
	if (truncate(path, (off_t)max) < 0)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(note, sizeof(note), "\n[kfleet: console cut at %llu of %lld bytes]\n", max,
		 (long long)st.st_size);
	if (write(fd, note, strlen(note)) < 0)
		log_debug("console '%s': cannot mark the cut", path);
	close(fd);
}
