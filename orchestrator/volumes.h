/* SPDX-License-Identifier: GPL-2.0-only */
/* volumes.h: guest files (kernel, initrd, root disk) as libvirt storage
 * volumes, for hosts that share no filesystem with kfleetd: a dir pool on
 * the host, uploads and downloads over the libvirt connection (sparse both
 * ways), and qcow2 overlays on uploaded disks for one run each.
 *
 * Names of pools and volumes are [A-Za-z0-9._-]+, not starting with '.';
 * anything else is refused. Every function may be called from several
 * threads on one connection: calls on the same pool and volume name wait
 * for each other, in this process. That matters: libvirt (9.0) deletes a
 * volume an upload is writing into, and the upload still succeeds, into
 * the unlinked file. Another process uploading the same name can cost a
 * second upload or a failed call, never a corrupt volume (see vol_upload()).
 * Errors go to *err ("host pool 'kfleet' volume 'kernel-ab12': upload:
 * <why>"), which the caller frees. */
#ifndef KF_VOLUMES_H
#define KF_VOLUMES_H

#include <libvirt/libvirt.h>

/* Makes sure the host has a started dir pool `name` whose directory is
 * `path` (absolute, on the host), defining it (autostart off), building it
 * (libvirt makes the directory, mode 0755) and starting it when missing or
 * inactive. A pool of that name with another type or path is an error.
 * 0 / -1 with *err. */
int vol_pool_ensure(virConnectPtr conn, const char *name, const char *path, char **err);

/* Uploads the local regular file `local` into the pool as volume vol_name,
 * unless a volume of that name exists already with the same byte size:
 * the names kfleetd gives carry a content hash, so the same name means the
 * same content. The size is the file's (libvirt reports the virtual size
 * of a file that looks like qcow2 as its capacity). Any other size, or a
 * volume libvirt cannot stat, is a broken upload: deleted, uploaded again.
 *
 * Why the size check is enough: the volume is created empty (capacity 0,
 * raw, mode 0644) and the upload writes it front to back (holes are sent as
 * skips and libvirt extends the file over them), so the file reaches its
 * full size only with the last section of the stream. An upload cut short
 * anywhere (timeout, lost connection, crash of kfleetd or libvirtd) leaves a
 * shorter file, which the next call replaces; a failed upload also deletes
 * it right away. (A power loss of the host is up to its filesystem.) The volume is created under its final name because libvirt
 * cannot rename volumes and a host-side copy from a temporary name would
 * cost a second pass over the data without being atomic either.
 *
 * Sparse: holes in `local` (SEEK_DATA/SEEK_HOLE) are not sent. timeout_s
 * bounds the whole transfer (<= 0: no limit); it is checked between chunks
 * of the stream, so a call blocked inside libvirt on a dead connection
 * waits for libvirt's keepalive to end it.
 *
 * Returns the volume's path on the host (caller frees) or NULL with *err. */
char *vol_upload(virConnectPtr conn, const char *pool, const char *vol_name, const char *local,
		 int timeout_s, char **err);

/* Creates volume vol_name in the pool: a qcow2 overlay whose backing file
 * is backing_path (the path of a volume libvirt knows, as vol_upload()
 * returns it) in format backing_fmt (e.g. "raw"), with the backing
 * volume's capacity. An existing volume of that name is deleted first.
 * Returns its path on the host (caller frees) or NULL with *err. */
char *vol_overlay(virConnectPtr conn, const char *pool, const char *vol_name,
		  const char *backing_path, const char *backing_fmt, char **err);

/* Deletes the volume if it exists; 0 (also when there was none) / -1 with
 * *err. */
int vol_delete(virConnectPtr conn, const char *pool, const char *vol_name, char **err);

/* Downloads volume vol_name into the local file `local`, mode 0644, with
 * holes where the volume has them. The data goes to a temporary file next
 * to `local` that replaces it only when the download is complete.
 * timeout_s as for vol_upload(). 0 / -1 with *err. */
int vol_download(virConnectPtr conn, const char *pool, const char *vol_name, const char *local,
		 int timeout_s, char **err);

#endif
