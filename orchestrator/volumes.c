// SPDX-License-Identifier: GPL-2.0-only
/* volumes.c: guest files as libvirt storage volumes (volumes.h). For a host
 * that shares no filesystem with kfleetd, the scheduler puts the kernel,
 * initrd and root disk into a dir pool on the host with vol_upload(), gives
 * each run a qcow2 overlay from vol_overlay() and fetches what it needs back
 * with vol_download(). Everything goes through the libvirt connection: no
 * file on the host is touched any other way. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libvirt/virterror.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/util.h"
#include "orchestrator/volumes.h"

/* A file name on the host, with room for what libvirt or an admin adds */
#define VOL_NAME_MAX 200
#define VOL_NAME_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-"

/* "host pool 'P' [volume 'V']: WHAT: <libvirt's last error in this thread>" */
static int virt_fail(char **err, const char *pool, const char *vol, const char *what)
{
	if (vol)
		return set_errf(err, "host pool '%s' volume '%s': %s: %s", pool, vol, what,
				virGetLastErrorMessage());
	return set_errf(err, "host pool '%s': %s: %s", pool, what, virGetLastErrorMessage());
}

/* A printable, bounded copy of a name we refuse, for the message */
static const char *shown(const char *s, char *tmp, size_t n)
{
	size_t i = 0;

	for (; *s && i + 4 < n; s++)
		tmp[i++] = (*s >= 0x20 && *s < 0x7f) ? *s : '?';
	if (*s)
		for (int k = 0; k < 3; k++)
			tmp[i++] = '.';
	tmp[i] = '\0';
	return tmp;
}

/* Pool and volume names become file names on the host and go into XML */
static int check_name(const char *kind, const char *name, char **err)
{
	char tmp[68];

	if (!name || !*name)
		return set_errf(err, "%s name is empty", kind);
	if (name[strspn(name, VOL_NAME_CHARS)])
		return set_errf(err, "%s name '%s': only letters, digits, '.', '_' and '-' are allowed",
				kind, shown(name, tmp, sizeof(tmp)));
	if (name[0] == '.')
		return set_errf(err, "%s name '%s': must not start with '.'", kind,
				shown(name, tmp, sizeof(tmp)));
	if (strlen(name) > VOL_NAME_MAX)
		return set_errf(err, "%s name '%s': longer than %d characters", kind,
				shown(name, tmp, sizeof(tmp)), VOL_NAME_MAX);
	return 0;
}

/* Paths on the host go into XML as text: absolute, no control characters */
static int check_path(const char *what, const char *path, char **err)
{
	char tmp[68];

	if (!path || path[0] != '/')
		return set_errf(err, "%s '%s': not an absolute path", what,
				shown(path ? path : "", tmp, sizeof(tmp)));
	for (const char *s = path; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return set_errf(err, "%s '%s': has control characters", what,
					shown(path, tmp, sizeof(tmp)));
	return 0;
}

static int xml_text(struct buf *b, const char *s)
{
	int bad = 0;

	for (; *s; s++) {
		switch (*s) {
		case '&': bad |= buf_puts(b, "&amp;"); break;
		case '<': bad |= buf_puts(b, "&lt;"); break;
		case '>': bad |= buf_puts(b, "&gt;"); break;
		case '\'': bad |= buf_puts(b, "&apos;"); break;
		case '"': bad |= buf_puts(b, "&quot;"); break;
		default: bad |= buf_append(b, s, 1); break;
		}
	}
	return bad ? -1 : 0;
}

/*
 * Calls on one pool and volume name wait for each other, calls on other
 * names do not: a 600 MiB upload must not hold up a kernel upload for
 * another run. The entries live on the callers' stacks for the call.
 * Same name on two hosts waits too (the key has no connection): it is the
 * same content, and two connections to one host must not race either.
 */
struct busy {
	struct busy *next;
	const char *pool, *name;
};

static pthread_mutex_t busy_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t busy_cond = PTHREAD_COND_INITIALIZER;
static struct busy *busy_list;

static void name_lock(struct busy *b, const char *pool, const char *name)
{
	struct busy *o;

	b->pool = pool;
	b->name = name;
	pthread_mutex_lock(&busy_lock);
	for (;;) {
		for (o = busy_list; o; o = o->next)
			if (!strcmp(o->name, name) && !strcmp(o->pool, pool))
				break;
		if (!o)
			break;
		pthread_cond_wait(&busy_cond, &busy_lock);
	}
	b->next = busy_list;
	busy_list = b;
	pthread_mutex_unlock(&busy_lock);
}

static void name_unlock(struct busy *b)
{
	pthread_mutex_lock(&busy_lock);
	for (struct busy **p = &busy_list; *p; p = &(*p)->next) {
		if (*p == b) {
			*p = b->next;
			break;
		}
	}
	pthread_cond_broadcast(&busy_cond);
	pthread_mutex_unlock(&busy_lock);
}

/* Takes the name's lock (released by name_unlock() whatever follows) and
 * looks the pool up: the start of every call on a volume */
static virStoragePoolPtr lock_pool(struct busy *b, virConnectPtr conn, const char *pool,
				   const char *vol_name, char **err)
{
	virStoragePoolPtr p;

	name_lock(b, pool, vol_name);
	p = virStoragePoolLookupByName(conn, pool);
	if (!p)
		virt_fail(err, pool, NULL, "lookup");
	return p;
}

/* Looks vol up in p: 1 found (*out, caller frees), 0 no such volume, -1 error */
static int vol_find(virStoragePoolPtr p, const char *pool, const char *name,
		    virStorageVolPtr *out, char **err)
{
	*out = virStorageVolLookupByName(p, name);
	if (*out)
		return 1;
	if (virGetLastErrorCode() == VIR_ERR_NO_STORAGE_VOL) {
		virResetLastError();
		return 0;
	}
	return virt_fail(err, pool, name, "lookup");
}

/* The XML of a new volume: raw and empty when backing is NULL, else a qcow2
 * overlay on backing. Names are checked and formats are plain words, so
 * only the backing path needs escaping. NULL when out of memory. */
static char *vol_xml(const char *name, unsigned long long capacity, const char *backing,
		     const char *backing_fmt)
{
	struct buf b = BUF_INIT(0);
	int bad = 0;

	bad |= buf_printf(&b, "<volume>\n  <name>%s</name>\n"
			  "  <capacity unit='bytes'>%llu</capacity>\n"
			  "  <allocation unit='bytes'>0</allocation>\n"
			  "  <target>\n    <format type='%s'/>\n"
			  "    <permissions><mode>0644</mode></permissions>\n  </target>\n",
			  name, capacity, backing ? "qcow2" : "raw");
	if (backing) {
		bad |= buf_puts(&b, "  <backingStore>\n    <path>");
		bad |= xml_text(&b, backing);
		bad |= buf_printf(&b, "</path>\n    <format type='%s'/>\n  </backingStore>\n",
				  backing_fmt);
	}
	bad |= buf_puts(&b, "</volume>\n");
	if (bad) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/* An existing pool must be the dir pool at path (escaped as libvirt
 * writes it in its XML) */
static int pool_check(virStoragePoolPtr p, const char *name, const char *path, char **err)
{
	struct buf want = BUF_INIT(0);
	char *desc = virStoragePoolGetXMLDesc(p, VIR_STORAGE_XML_INACTIVE);
	const char *t, *s, *e;
	int rc = -1;

	if (!desc) {
		virt_fail(err, name, NULL, "get XML");
		goto out;
	}
	if (strncmp(desc, "<pool type='dir'", 16)) {
		set_errf(err, "host pool '%s': exists and is not a dir pool: %.*s", name,
			 (int)strcspn(desc, ">\n"), desc);
		goto out;
	}
	t = strstr(desc, "<target>");
	s = t ? strstr(t, "<path>") : NULL;
	e = s ? strstr(s, "</path>") : NULL;
	if (!e) {
		set_errf(err, "host pool '%s': exists and has no target path", name);
		goto out;
	}
	s += strlen("<path>");
	if (xml_text(&want, path) < 0) {
		set_errf(err, "out of memory");
		goto out;
	}
	if ((size_t)(e - s) != want.len || memcmp(s, want.data, want.len)) {
		set_errf(err, "host pool '%s': exists at '%.*s', not at '%s'", name, (int)(e - s), s,
			 path);
		goto out;
	}
	rc = 0;
out:
	buf_release(&want);
	free(desc);
	return rc;
}

/* Pool definitions are rare and quick: one at a time in this process */
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;

int vol_pool_ensure(virConnectPtr conn, const char *name, const char *path, char **err)
{
	virStoragePoolPtr p = NULL;
	struct buf xml = BUF_INIT(0);
	char *dir = NULL, *msg = NULL;
	size_t n;
	int rc = -1, active, bad = 0;

	if (check_name("pool", name, err) < 0 || check_path("pool path", path, err) < 0)
		return -1;
	/* libvirt keeps the path without trailing slashes: compare it so */
	n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	dir = strndup(path, n);
	if (!dir)
		return set_errf(err, "out of memory");

	pthread_mutex_lock(&pool_lock);
	p = virStoragePoolLookupByName(conn, name);
	if (!p && virGetLastErrorCode() != VIR_ERR_NO_STORAGE_POOL) {
		virt_fail(err, name, NULL, "lookup");
		goto out;
	}
	if (!p) {
		bad |= buf_printf(&xml, "<pool type='dir'>\n  <name>%s</name>\n  <target>\n"
				  "    <path>", name);
		bad |= xml_text(&xml, dir);
		bad |= buf_puts(&xml, "</path>\n    <permissions><mode>0755</mode></permissions>\n"
				"  </target>\n</pool>\n");
		if (bad) {
			set_errf(err, "out of memory");
			goto out;
		}
		p = virStoragePoolDefineXML(conn, xml.data, 0);
		if (!p) {
			virt_fail(err, name, NULL, "define");
			goto out;
		}
		/* kfleetd starts it when it needs it; a host reboot should not */
		if (virStoragePoolSetAutostart(p, 0) < 0) {
			virt_fail(err, name, NULL, "set autostart off");
			goto out;
		}
		log_info("host pool '%s': defined at '%s'", name, dir);
	} else if (pool_check(p, name, dir, err) < 0) {
		goto out;
	}
	active = virStoragePoolIsActive(p);
	if (active < 0) {
		virt_fail(err, name, NULL, "get state");
		goto out;
	}
	/* the build makes the directory (a no-op when it is there) */
	if (!active && virStoragePoolCreate(p, VIR_STORAGE_POOL_CREATE_WITH_BUILD) < 0) {
		msg = strdup(virGetLastErrorMessage());
		/* another process (a second kfleetd, virsh) may have started it */
		if (virStoragePoolIsActive(p) != 1) {
			set_errf(err, "host pool '%s': build and start at '%s': %s", name, dir,
				 msg ? msg : "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	pthread_mutex_unlock(&pool_lock);
	if (p)
		virStoragePoolFree(p);
	buf_release(&xml);
	free(msg);
	free(dir);
	return rc;
}

/*
 * One stream transfer, shared by the callbacks of virStreamSparseSendAll
 * and virStreamSparseRecvAll. Those calls block, and the stream has no
 * timeout of its own: every callback checks the deadline and fails once it
 * has passed, and the *All call then aborts the stream (virStreamAbort), as
 * it does for any callback failure.
 */
struct xfer {
	int fd;
	const char *file;      /* the local file, for messages */
	long long size;        /* upload: the local file's size */
	int64_t deadline;      /* mono_ms(); 0: none */
	long long data, holes; /* bytes moved as data, bytes skipped as holes */
	const char *op;        /* the local call that failed ("read"), with err */
	int err;
	int timed_out;
};

static int xfer_late(struct xfer *x)
{
	if (x->deadline && mono_ms() > x->deadline) {
		x->timed_out = 1;
		errno = ETIMEDOUT;
		return 1;
	}
	return 0;
}

static int xfer_errno(struct xfer *x, const char *op)
{
	x->op = op;
	x->err = errno;
	return -1;
}

/* The error of a failed transfer: ours (timeout, local I/O) before libvirt's */
static void xfer_fail(char **err, const struct xfer *x, int timeout_s, const char *pool,
		      const char *vol, const char *what)
{
	if (x->timed_out)
		set_errf(err, "host pool '%s' volume '%s': %s: timed out after %d s "
			 "(%lld bytes of data and %lld of holes done)", pool, vol, what, timeout_s,
			 x->data, x->holes);
	else if (x->err)
		set_errf(err, "host pool '%s' volume '%s': %s: %s '%s': %s", pool, vol, what, x->op,
			 x->file, strerror(x->err));
	else
		virt_fail(err, pool, vol, what);
}

static int src_data(virStreamPtr st, char *buf, size_t n, void *opaque)
{
	struct xfer *x = opaque;
	ssize_t r;

	if (xfer_late(x))
		return -1;
	do
		r = read(x->fd, buf, n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return xfer_errno(x, "read");
	x->data += r;
	return (int)r;
}

/* Where the file position is: in data or in a hole, and for how long.
 * At the end of the file: no data, length 0. A filesystem without
 * SEEK_DATA is all data. */
static int src_hole(virStreamPtr st, int *in_data, long long *len, void *opaque)
{
	struct xfer *x = opaque;
	off_t cur, next;

	if (xfer_late(x))
		return -1;
	cur = lseek(x->fd, 0, SEEK_CUR);
	if (cur < 0)
		return xfer_errno(x, "seek in");
	if (cur >= x->size) {
		*in_data = 0;
		*len = 0;
		return 0;
	}
	next = lseek(x->fd, cur, SEEK_DATA);
	if (next < 0 && errno == ENXIO) {
		*in_data = 0;                   /* a hole up to the end */
		*len = x->size - cur;
	} else if (next < 0 && errno == EINVAL) {
		*in_data = 1;
		*len = x->size - cur;
	} else if (next < 0) {
		return xfer_errno(x, "seek in");
	} else if (next > cur) {
		*in_data = 0;
		*len = (next < x->size ? next : x->size) - cur;
	} else {
		next = lseek(x->fd, cur, SEEK_HOLE);
		if (next < 0)
			return xfer_errno(x, "seek in");
		*in_data = 1;
		*len = (next < x->size ? next : x->size) - cur;
	}
	if (lseek(x->fd, cur, SEEK_SET) < 0)
		return xfer_errno(x, "seek in");
	return 0;
}

static int src_skip(virStreamPtr st, long long len, void *opaque)
{
	struct xfer *x = opaque;

	if (xfer_late(x))
		return -1;
	if (lseek(x->fd, len, SEEK_CUR) < 0)
		return xfer_errno(x, "seek in");
	x->holes += len;
	return 0;
}

static int sink_data(virStreamPtr st, const char *buf, size_t n, void *opaque)
{
	struct xfer *x = opaque;
	size_t done = 0;

	if (xfer_late(x))
		return -1;
	while (done < n) {
		ssize_t w = write(x->fd, buf + done, n - done);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return xfer_errno(x, "write");
		done += (size_t)w;
	}
	x->data += (long long)n;
	return (int)n;
}

static int sink_hole(virStreamPtr st, long long len, void *opaque)
{
	struct xfer *x = opaque;

	if (xfer_late(x))
		return -1;
	if (len < 0) {
		errno = EINVAL;
		return xfer_errno(x, "seek in");
	}
	if (lseek(x->fd, len, SEEK_CUR) < 0)
		return xfer_errno(x, "seek in");
	x->holes += len;
	return 0;
}

/* The volume's size in bytes as a file (not the virtual size libvirt
 * reads from a header when the content looks like qcow2); -1 when libvirt
 * cannot tell (it stats the file for this) */
static long long vol_bytes(virStorageVolPtr v)
{
	virStorageVolInfo info;

	if (virStorageVolGetInfoFlags(v, &info, VIR_STORAGE_VOL_GET_PHYSICAL) < 0)
		return -1;
	return (long long)info.allocation;
}

/* Opens local for an upload into x (its fd and size): 0 / -1 with *err */
static int upload_open(struct xfer *x, const char *pool, const char *vol_name,
		       const char *local, char **err)
{
	struct stat sb;

	x->fd = open(local, O_RDONLY | O_CLOEXEC);
	if (x->fd < 0 || fstat(x->fd, &sb) < 0)
		return set_errf(err, "host pool '%s' volume '%s': upload: cannot read '%s': %s",
				pool, vol_name, local, strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return set_errf(err, "host pool '%s' volume '%s': upload: '%s' is not a regular "
				"file", pool, vol_name, local);
	x->size = (long long)sb.st_size;
	return 0;
}

/* A volume of that name already in the pool: kept when it has x's size
 * (the name carries the content's hash), else deleted as a broken upload.
 * 1 kept (in *v), 0 none there now, -1 with *err */
static int upload_existing(virStoragePoolPtr p, const char *pool, const char *vol_name,
			   const struct xfer *x, virStorageVolPtr *v, char **err)
{
	int found = vol_find(p, pool, vol_name, v, err);
	long long have;

	if (found <= 0)
		return found;
	have = vol_bytes(*v);
	if (have == x->size) {
		log_debug("host pool '%s' volume '%s': there already (%lld bytes)", pool, vol_name,
			  have);
		return 1;
	}
	if (have < 0)
		log_warn("host pool '%s' volume '%s': broken (%s): uploading it again", pool,
			 vol_name, virGetLastErrorMessage());
	else
		log_warn("host pool '%s' volume '%s': has %lld bytes, '%s' %lld: uploading it "
			 "again", pool, vol_name, have, x->file, x->size);
	if (virStorageVolDelete(*v, 0) < 0)
		return virt_fail(err, pool, vol_name, "delete the broken volume");
	virStorageVolFree(*v);
	*v = NULL;
	return 0;
}

/* Streams x's file into the new empty volume v (sparse), within
 * timeout_s, and checks it came out whole: 0 / -1 with *err */
static int upload_stream(virConnectPtr conn, virStorageVolPtr v, struct xfer *x,
			 const char *pool, const char *vol_name, int timeout_s, char **err)
{
	virStreamPtr st = virStreamNew(conn, 0);
	int64_t t0 = mono_ms();
	long long have;
	int rc = -1;

	if (!st)
		return virt_fail(err, pool, vol_name, "upload: new stream");
	x->deadline = timeout_s > 0 ? t0 + timeout_s * 1000LL : 0;
	if (virStorageVolUpload(v, st, 0, 0, VIR_STORAGE_VOL_UPLOAD_SPARSE_STREAM) < 0) {
		virt_fail(err, pool, vol_name, "upload");
		goto out;
	}
	/* on failure it has aborted the stream already */
	if (virStreamSparseSendAll(st, src_data, src_hole, src_skip, x) < 0) {
		xfer_fail(err, x, timeout_s, pool, vol_name, "upload");
		goto out;
	}
	/* where libvirt reports the host's write errors (ENOSPC) */
	if (virStreamFinish(st) < 0) {
		virt_fail(err, pool, vol_name, "upload");
		goto out;
	}
	/* the local file may have changed under us, or libvirt may have left
	 * a trailing hole unwritten: either way not what we promise */
	have = vol_bytes(v);
	if (have != x->size) {
		if (have < 0)
			virt_fail(err, pool, vol_name, "upload: get size");
		else
			set_errf(err, "host pool '%s' volume '%s': upload: has %lld bytes after the "
				 "upload of '%s' (%lld bytes)", pool, vol_name, have, x->file, x->size);
		goto out;
	}
	log_info("host pool '%s' volume '%s': uploaded '%s', %lld bytes (%lld of data) in "
		 "%lld ms", pool, vol_name, x->file, x->size, x->data, (long long)(mono_ms() - t0));
	rc = 0;
out:
	virStreamFree(st);
	return rc;
}

char *vol_upload(virConnectPtr conn, const char *pool, const char *vol_name, const char *local,
		 int timeout_s, char **err)
{
	virStoragePoolPtr p = NULL;
	virStorageVolPtr v = NULL;
	struct xfer x = { .fd = -1, .file = local };
	struct busy b;
	char *path = NULL, *xml = NULL;
	int locked = 0, created = 0, kept;

	if (check_name("pool", pool, err) < 0 || check_name("volume", vol_name, err) < 0)
		return NULL;
	if (upload_open(&x, pool, vol_name, local, err) < 0)
		goto out;
	locked = 1;
	p = lock_pool(&b, conn, pool, vol_name, err);
	if (!p)
		goto out;
	kept = upload_existing(p, pool, vol_name, &x, &v, err);
	if (kept < 0)
		goto out;
	if (!kept) {
		/* Empty, so that it reaches its full size only when the upload
		 * is complete (see volumes.h) */
		xml = vol_xml(vol_name, 0, NULL, NULL);
		if (!xml) {
			set_errf(err, "out of memory");
			goto out;
		}
		v = virStorageVolCreateXML(p, xml, 0);
		if (!v) {
			virt_fail(err, pool, vol_name, "create");
			goto out;
		}
		created = 1;
		if (upload_stream(conn, v, &x, pool, vol_name, timeout_s, err) < 0)
			goto out;
	}
	path = virStorageVolGetPath(v);
	if (!path)
		virt_fail(err, pool, vol_name, "get path");
out:
	/* a volume we failed to fill goes; if it cannot, its size marks it */
	if (created && !path && virStorageVolDelete(v, 0) < 0)
		log_warn("host pool '%s' volume '%s': cannot delete the failed upload: %s", pool,
			 vol_name, virGetLastErrorMessage());
	if (v)
		virStorageVolFree(v);
	if (p)
		virStoragePoolFree(p);
	if (locked)
		name_unlock(&b);
	if (x.fd >= 0)
		close(x.fd);
	free(xml);
	return path;
}

char *vol_overlay(virConnectPtr conn, const char *pool, const char *vol_name,
		  const char *backing_path, const char *backing_fmt, char **err)
{
	virStoragePoolPtr p = NULL;
	virStorageVolPtr v = NULL, bv = NULL;
	virStorageVolInfo info;
	struct busy b;
	char *path = NULL, *xml = NULL;
	int locked = 0, found;

	if (check_name("pool", pool, err) < 0 || check_name("volume", vol_name, err) < 0 ||
	    check_path("backing file", backing_path, err) < 0)
		return NULL;
	if (!backing_fmt || !*backing_fmt || strlen(backing_fmt) > 16 ||
	    backing_fmt[strspn(backing_fmt, "abcdefghijklmnopqrstuvwxyz0123456789")]) {
		set_errf(err, "host pool '%s' volume '%s': backing format '%.16s' is not a format name",
			 pool, vol_name, backing_fmt ? backing_fmt : "");
		return NULL;
	}

	locked = 1;
	p = lock_pool(&b, conn, pool, vol_name, err);
	if (!p)
		goto out;
	bv = virStorageVolLookupByPath(conn, backing_path);
	if (!bv || virStorageVolGetInfo(bv, &info) < 0) {
		set_errf(err, "host pool '%s' volume '%s': backing file '%s': %s", pool, vol_name,
			 backing_path, virGetLastErrorMessage());
		goto out;
	}
	found = vol_find(p, pool, vol_name, &v, err);
	if (found < 0)
		goto out;
	if (found) {
		if (virStorageVolDelete(v, 0) < 0) {
			virt_fail(err, pool, vol_name, "delete the old overlay");
			goto out;
		}
		virStorageVolFree(v);
		v = NULL;
	}
	xml = vol_xml(vol_name, info.capacity, backing_path, backing_fmt);
	if (!xml) {
		set_errf(err, "out of memory");
		goto out;
	}
	/* libvirt runs qemu-img create -f qcow2 -b BACKING -F FMT */
	v = virStorageVolCreateXML(p, xml, 0);
	if (!v) {
		virt_fail(err, pool, vol_name, "create overlay");
		goto out;
	}
	path = virStorageVolGetPath(v);
	if (!path)
		virt_fail(err, pool, vol_name, "get path");
out:
	if (v)
		virStorageVolFree(v);
	if (bv)
		virStorageVolFree(bv);
	if (p)
		virStoragePoolFree(p);
	if (locked)
		name_unlock(&b);
	free(xml);
	return path;
}

int vol_delete(virConnectPtr conn, const char *pool, const char *vol_name, char **err)
{
	virStoragePoolPtr p = NULL;
	virStorageVolPtr v = NULL;
	struct busy b;
	int rc = -1, found;

	if (check_name("pool", pool, err) < 0 || check_name("volume", vol_name, err) < 0)
		return -1;
	p = lock_pool(&b, conn, pool, vol_name, err);
	if (!p)
		goto out;
	found = vol_find(p, pool, vol_name, &v, err);
	if (found < 0)
		goto out;
	if (found && virStorageVolDelete(v, 0) < 0) {
		virt_fail(err, pool, vol_name, "delete");
		goto out;
	}
	rc = 0;
out:
	if (v)
		virStorageVolFree(v);
	if (p)
		virStoragePoolFree(p);
	name_unlock(&b);
	return rc;
}

int vol_download(virConnectPtr conn, const char *pool, const char *vol_name, const char *local,
		 int timeout_s, char **err)
{
	virStoragePoolPtr p = NULL;
	virStorageVolPtr v = NULL;
	virStreamPtr st = NULL;
	struct xfer x = { .fd = -1 };
	struct busy b;
	char *tmp = NULL;
	int locked = 0, made = 0, rc = -1;
	off_t end;

	if (check_name("pool", pool, err) < 0 || check_name("volume", vol_name, err) < 0)
		return -1;
	/* next to local, so that the rename is atomic */
	if (asprintf(&tmp, "%s.tmp-XXXXXX", local) < 0) {
		tmp = NULL;
		return set_errf(err, "out of memory");
	}
	x.file = tmp;
	x.fd = mkostemp(tmp, O_CLOEXEC);
	made = x.fd >= 0;
	if (x.fd < 0 || fchmod(x.fd, 0644) < 0) {
		set_errf(err, "host pool '%s' volume '%s': download: cannot create '%s': %s", pool,
			 vol_name, tmp, strerror(errno));
		goto out;
	}

	locked = 1;
	p = lock_pool(&b, conn, pool, vol_name, err);
	if (!p)
		goto out;
	v = virStorageVolLookupByName(p, vol_name);
	if (!v) {
		virt_fail(err, pool, vol_name, "lookup");
		goto out;
	}
	st = virStreamNew(conn, 0);
	if (!st) {
		virt_fail(err, pool, vol_name, "download: new stream");
		goto out;
	}
	x.deadline = timeout_s > 0 ? mono_ms() + timeout_s * 1000LL : 0;
	if (virStorageVolDownload(v, st, 0, 0, VIR_STORAGE_VOL_DOWNLOAD_SPARSE_STREAM) < 0) {
		virt_fail(err, pool, vol_name, "download");
		goto out;
	}
	/* on failure it has aborted the stream already */
	if (virStreamSparseRecvAll(st, sink_data, sink_hole, &x) < 0) {
		xfer_fail(err, &x, timeout_s, pool, vol_name, "download");
		goto out;
	}
	if (virStreamFinish(st) < 0) {
		virt_fail(err, pool, vol_name, "download");
		goto out;
	}
	/* a trailing hole was only a seek: make it part of the file */
	end = lseek(x.fd, 0, SEEK_CUR);
	if (end < 0 || ftruncate(x.fd, end) < 0) {
		set_errf(err, "host pool '%s' volume '%s': download: cannot size '%s': %s", pool,
			 vol_name, tmp, strerror(errno));
		goto out;
	}
	if (close(x.fd) < 0) {
		x.fd = -1;
		set_errf(err, "host pool '%s' volume '%s': download: cannot write '%s': %s", pool,
			 vol_name, tmp, strerror(errno));
		goto out;
	}
	x.fd = -1;
	if (rename(tmp, local) < 0) {
		set_errf(err, "host pool '%s' volume '%s': download: cannot rename '%s' to '%s': %s",
			 pool, vol_name, tmp, local, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (st)
		virStreamFree(st);
	if (v)
		virStorageVolFree(v);
	if (p)
		virStoragePoolFree(p);
	if (locked)
		name_unlock(&b);
	if (x.fd >= 0)
		close(x.fd);
	if (rc < 0 && made)
		unlink(tmp);
	free(tmp);
	return rc;
}
