// SPDX-License-Identifier: GPL-2.0-only
/* cmd_repro.c: `kfleet repro RUN [-d DIR | -o FILE.tar.gz]`: what a run
 * booted, gathered so that it can be shared and booted again by hand: the
 * kernel, the initrd (made again from its manifest, orchestrator/
 * manifest.c, and checked against the hash the run booted), the domain XML
 * with its paths made the reproducer's, the kernel config when one is
 * beside the kernel, the command, and run.sh, which boots it with `virsh
 * create` (or `run.sh qemu`: bare QEMU) and prints the command's output
 * from the agent's frames (common/frame.h). The run's files are read from
 * the daemon's state directory (the paths /api/runs/ID gives), so it runs
 * on the daemon's machine. */
#include "cli/repro.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "common/buf.h"
#include "common/hash.h"
#include "common/util.h"

#define REPRO_XML_MAX (1024 * 1024)

/* Appends src to fd; 0, or -1 with err */
static int append_file(const char *src, int fd, struct buf *err)
{
	char b[65536];
	ssize_t n;
	int in = open(src, O_RDONLY | O_CLOEXEC);

	if (in < 0) {
		buf_printf(err, "'%s': %s", src, strerror(errno));
		return -1;
	}
	while ((n = read(in, b, sizeof(b))) > 0)
		if (write(fd, b, (size_t)n) != n) {
			buf_printf(err, "write: %s", strerror(errno));
			close(in);
			return -1;
		}
	close(in);
	if (n < 0) {
		buf_printf(err, "'%s': %s", src, strerror(errno));
		return -1;
	}
	return 0;
}

static int copy_file(const char *src, const char *dst, int mode, struct buf *err)
{
	int fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode), rc;

	if (fd < 0) {
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		return -1;
	}
	rc = append_file(src, fd, err);
	if (close(fd) < 0 && !rc) {
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		rc = -1;
	}
	return rc;
}

static int write_text(const char *path, const char *s, int mode, struct buf *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	size_t n = strlen(s);

	if (fd < 0 || write(fd, s, n) != (ssize_t)n || close(fd) < 0) {
		buf_printf(err, "'%s': %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return 0;
}

/* src into a new dst with src's holes left holes (a root image is mostly
 * holes: 49 MB of data in 596 MB); 0, or -1 with err */
static int copy_sparse(const char *src, const char *dst, struct buf *err)
{
	int in = open(src, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
	char *b = malloc(1 << 20);
	struct stat st;
	off_t at = 0;

	if (in < 0 || fstat(in, &st) < 0 || !b) {
		buf_printf(err, "'%s': %s", src, b ? strerror(errno) : "out of memory");
		goto out;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		goto out;
	}
	while (at < st.st_size) {
		off_t data = lseek(in, at, SEEK_DATA), hole;

		if (data < 0 && errno == ENXIO)
			break;                          /* holes to the end */
		if (data < 0)
			data = at;                      /* no SEEK_DATA here: all data */
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0)
			hole = st.st_size;
		for (at = data; at < hole;) {
			size_t want = (size_t)(hole - at) < (1u << 20) ? (size_t)(hole - at) : 1u << 20;
			ssize_t n = pread(in, b, want, at);

			if (n <= 0 || pwrite(out, b, (size_t)n, at) != n) {
				buf_printf(err, "'%s' to '%s': %s", src, dst,
					   n == 0 ? "cut short" : strerror(errno));
				goto out;
			}
			at += n;
		}
	}
	if (ftruncate(out, st.st_size) < 0) {
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (out >= 0 && close(out) < 0 && !rc) {
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		rc = -1;
	}
	if (in >= 0)
		close(in);
	free(b);
	return rc;
}

/* The root image the run's overlay was on (run_dir/disk.base, written by
 * orchestrator/disk.c) into dst, when it is still the file it was then.
 * *fmt gets its format ("raw", "qcow2"). 0, or -1 with err */
static int disk_make(const char *run_dir, const char *dst, char fmt[16], struct buf *err)
{
	char *note = path_join(run_dir, "disk.base"), path[4096];
	struct buf b = BUF_INIT(8192);
	long long size, mtime;
	struct stat st;
	int rc = -1;

	if (!note || read_file(note, &b, 8192) < 0) {
		buf_printf(err, "'%s': %s (a run from before kfleet noted its root image)",
			   note ? note : "disk.base", strerror(errno));
		goto out;
	}
	if (sscanf(buf_str(&b), "%15s %lld %lld %4095[^\n]", fmt, &size, &mtime, path) != 4 ||
	    (strcmp(fmt, "raw") && strcmp(fmt, "qcow2"))) {
		buf_printf(err, "'%s': not 'FORMAT SIZE MTIME PATH'", note);
		goto out;
	}
	if (stat(path, &st) < 0) {
		buf_printf(err, "the run's root image '%s': %s", path, strerror(errno));
		goto out;
	}
	if (st.st_size != size ||
	    (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec != mtime) {
		buf_printf(err, "the run's root image '%s' changed since the run (size or time)",
			   path);
		goto out;
	}
	rc = copy_sparse(path, dst, err);
out:
	free(note);
	buf_release(&b);
	return rc;
}

/* The run's initrd into dst: the whole one when it was kept, else made
 * again from initrd.manifest's parts and checked against its hash */
static int initrd_make(const char *run_dir, const char *dst, struct buf *err)
{
	char *whole = path_join(run_dir, "initrd.img"), *man = path_join(run_dir, "initrd.manifest");
	char line[4096], want[65] = "", got[65];
	FILE *f = NULL;
	int fd = -1, rc = -1, lineno = 0;

	if (!whole || !man)
		goto out;
	f = fopen(man, "r");
	if (!f) {
		if (access(whole, R_OK) == 0)
			rc = copy_file(whole, dst, 0644, err);
		else
			buf_printf(err, "run dir '%s': neither initrd.img nor initrd.manifest", run_dir);
		goto out;
	}
	fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char sha[65], path[4000];
		unsigned long long bytes;

		lineno++;
		if (sscanf(line, "initrd %64s %llu", sha, &bytes) == 2) {
			snprintf(want, sizeof(want), "%s", sha);
		} else if (sscanf(line, "part %64s %llu %3999s", sha, &bytes, path) == 3) {
			char *p = path[0] == '/' ? strdup(path) : path_join(run_dir, path);

			if (!p || append_file(p, fd, err) < 0) {
				buf_printf(err, " (%s:%d)", man, lineno);
				free(p);
				goto out;
			}
			free(p);
		}
	}
	if (close(fd) < 0) {
		fd = -1;
		buf_printf(err, "'%s': %s", dst, strerror(errno));
		goto out;
	}
	fd = -1;
	if (!*want || sha256_file(dst, got) < 0 || strcmp(got, want)) {
		buf_printf(err, "'%s': the initrd made again is not the one the run booted "
			   "(sha256 %s, the manifest says %s): a shared part changed or is gone",
			   man, *want ? got : "?", *want ? want : "nothing");
		goto out;
	}
	rc = 0;
out:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	free(whole);
	free(man);
	return rc;
}

/* s with the first "<tag ...>...</tag>" taken out */
static void cut_element(struct buf *s, const char *open, const char *close)
{
	char *a = strstr(s->data, open), *z = a ? strstr(a, close) : NULL;

	if (!a || !z)
		return;
	z += strlen(close);
	while (*z == '\n')
		z++;
	memmove(a, z, strlen(z) + 1);
	s->len = strlen(s->data);
}

/* The text between open and close in s, copied (caller frees), or NULL */
static char *between(const char *s, const char *open, const char *close)
{
	const char *a = strstr(s, open), *z;

	if (!a)
		return NULL;
	a += strlen(open);
	z = strstr(a, close);
	return z ? strndup(a, (size_t)(z - a)) : NULL;
}

/* Every run_dir in s replaced by @DIR@, the kernel by @DIR@/vmlinuz */
static int replace_all(struct buf *s, const char *from, const char *to)
{
	struct buf o = BUF_INIT(REPRO_XML_MAX);
	const char *p = buf_str(s), *q;

	while ((q = strstr(p, from))) {
		buf_append(&o, p, (size_t)(q - p));
		buf_puts(&o, to);
		p = q + strlen(from);
	}
	buf_puts(&o, p);
	if (o.truncated) {
		buf_release(&o);
		return -1;
	}
	buf_release(s);
	*s = o;
	return 0;
}

/* The domain XML with the reproducer's paths: 0, or -1 with err */
static int domain_make(const char *run_dir, const char *kernel, struct buf *x, char **cmdline,
		       struct buf *err)
{
	char *src = path_join(run_dir, "domain.xml"), *chan;
	int rc = -1;

	if (!src || read_file(src, x, REPRO_XML_MAX) < 0) {
		buf_printf(err, "'%s': %s", src ? src : "domain.xml", strerror(errno));
		goto out;
	}
	if (strstr(buf_str(x), "<disk ")) {
		/* the run's overlay (here or on a remote host's pool): run.sh
		 * makes a fresh one on the image, as each run gets */
		char *d = between(buf_str(x), "<disk ", "</disk>");
		char *f = d ? between(d, "<source file='", "'/>") : NULL;
		struct buf from = BUF_INIT(8192);

		buf_printf(&from, "<source file='%s'/>", f ? f : "");
		if (!f || replace_all(x, buf_str(&from), "<source file='@DIR@/root.qcow2'/>") < 0) {
			buf_printf(err, "'%s': a disk with no source file", src);
			free(d);
			free(f);
			buf_release(&from);
			goto out;
		}
		free(d);
		free(f);
		buf_release(&from);
	}
	chan = between(buf_str(x), "<channel type='unix'>", "</channel>");
	if (!chan || !strstr(chan, "org.kfleet.agent.0")) {
		free(chan);
		buf_printf(err, "'%s': no virtio agent channel (a ttyS1 channel is not "
			   "reproduced yet)", src);
		goto out;
	}
	free(chan);
	cut_element(x, "<metadata>", "</metadata>");
	cut_element(x, "<cputune>", "</cputune>");
	{
		char *name = between(buf_str(x), "<name>", "</name>");
		struct buf n = BUF_INIT(256);

		buf_printf(&n, "<name>%s</name>", name ? name : "");
		if (name && replace_all(x, buf_str(&n), "<name>@NAME@</name>") < 0)
			rc = -2;
		free(name);
		buf_release(&n);
	}
	{
		/* the kernel the domain names: the run's, or (boot = fast,
		 * x86_64) the ELF kernel kfleetd unpacked from it into its cache
		 * for a PVH entry; the reproducer boots the run's bzImage */
		char *dk = between(buf_str(x), "<kernel>", "</kernel>");
		struct buf k = BUF_INIT(4096);

		buf_printf(&k, "<kernel>%s</kernel>", dk ? dk : kernel);
		free(dk);
		if (rc == -2 || replace_all(x, buf_str(&k), "<kernel>@DIR@/vmlinuz</kernel>") < 0 ||
		    replace_all(x, run_dir, "@DIR@") < 0) {
			buf_release(&k);
			buf_printf(err, "'%s': too big", src);
			goto out;
		}
		buf_release(&k);
	}
	{
		/* the agent's frames into a file, not kfleetd's socket */
		char *a = strstr(x->data, "<channel type='unix'>"), *z = strstr(a, "</channel>");
		struct buf o = BUF_INIT(REPRO_XML_MAX);

		buf_append(&o, x->data, (size_t)(a - x->data));
		buf_puts(&o, "<channel type='file'>\n      <source path='@DIR@/agent.out'/>\n"
			 "      <target type='virtio' name='org.kfleet.agent.0'/>\n    ");
		buf_puts(&o, z);
		buf_release(x);
		*x = o;
	}
	*cmdline = between(buf_str(x), "<cmdline>", "</cmdline>");
	rc = 0;
out:
	free(src);
	return rc;
}

static const char run_sh[] =
	"#!/bin/sh\n"
	"# run.sh: boots kfleet run %lld again, as it ran, and prints the command's\n"
	"# output (the agent's 'out' frames, common/frame.h), then its exit.\n"
	"#   sh run.sh          with virsh create on $LIBVIRT_DEFAULT_URI (qemu:///system)\n"
	"#   sh run.sh qemu     with bare QEMU, on the run's accelerator (ACCEL=kvm or tcg)\n"
	"# The directory must be readable by the user QEMU runs as (libvirt-qemu).\n"
	"set -e\n"
	"D=$(cd \"$(dirname \"$0\")\" && pwd)\n"
	"WAIT=%d\n"
	"DISKFMT=%s\n"
	"rm -f \"$D/agent.out\" \"$D/console.log\" \"$D/root.qcow2\"\n"
	"# a root disk: a fresh overlay on the image, as each run of the job boots\n"
	"[ -z \"$DISKFMT\" ] || qemu-img create -q -f qcow2 -F \"$DISKFMT\" -b \"$D/root-base.img\" \"$D/root.qcow2\"\n"
	"case ${1:-virsh} in\n"
	"virsh)\n"
	"\tURI=${LIBVIRT_DEFAULT_URI:-qemu:///system}\n"
	"\tNAME=kf-repro-%lld-$$\n"
	"\tsed \"s|@DIR@|$D|g; s|@NAME@|$NAME|g\" \"$D/domain.xml\" > \"$D/domain-now.xml\"\n"
	"\tvirsh -q -c \"$URI\" create \"$D/domain-now.xml\" >/dev/null\n"
	"\ti=0\n"
	"\twhile virsh -q -c \"$URI\" domstate \"$NAME\" >/dev/null 2>&1; do\n"
	"\t\ti=$((i + 1))\n"
	"\t\tif [ $i -gt $WAIT ]; then\n"
	"\t\t\tvirsh -q -c \"$URI\" destroy \"$NAME\" >/dev/null 2>&1 || :\n"
	"\t\t\techo \"run.sh: the guest did not end in $WAIT s (see console.log)\" >&2\n"
	"\t\t\texit 1\n"
	"\t\tfi\n"
	"\t\tsleep 1\n"
	"\tdone\n"
	"\t;;\n"
	"qemu)\n"
	"\ttimeout $WAIT %s -accel ${ACCEL:-%s} -m %d -smp %d \\\n"
	"\t\t-kernel \"$D/vmlinuz\" -initrd \"$D/initrd.img\" -append '%s' \\\n"
	"\t\t${DISKFMT:+-drive \"file=$D/root.qcow2,format=qcow2,if=virtio\"} \\\n"
	"\t\t-display none -no-reboot -serial \"file:$D/console.log\" \\\n"
	"\t\t-device virtio-serial -chardev \"file,id=agent,path=$D/agent.out\" \\\n"
	"\t\t-device virtserialport,chardev=agent,name=org.kfleet.agent.0 </dev/null\n"
	"\t;;\n"
	"*) echo \"usage: sh run.sh [virsh|qemu]\" >&2; exit 2;;\n"
	"esac\n"
	"[ -s \"$D/agent.out\" ] || { echo \"run.sh: no frames from the agent (see console.log)\" >&2; exit 1; }\n"
	"awk '$1 == \"KF1\" && $3 == \"out\" { print $5 }' \"$D/agent.out\" | xxd -r -p\n"
	"awk '$1 == \"KF1\" && $3 == \"exit\" { print $5 }' \"$D/agent.out\" | xxd -r -p |\n"
	"\tsed 's/^/run.sh: exit: /' >&2\n";

/* The kernel's config when one is beside it: CONFIG or config next to a
 * kfleet build's kernel, /boot/config-VERSION beside /boot/vmlinuz-VERSION */
static char *config_find(const char *kernel)
{
	const char *base = strrchr(kernel, '/');
	char *dir = base ? strndup(kernel, (size_t)(base - kernel)) : strdup("."), *p = NULL;
	static const char *const names[] = { "config", ".config", "kernel.config" };

	for (size_t i = 0; dir && i < sizeof(names) / sizeof(names[0]); i++) {
		p = path_join(dir, names[i]);
		if (p && access(p, R_OK) == 0)
			break;
		free(p);
		p = NULL;
	}
	if (!p && base && !strncmp(base + 1, "vmlinuz-", 8) && asprintf(&p, "%s/config-%s", dir,
									base + 9) >= 0 &&
	    access(p, R_OK) != 0) {
		free(p);
		p = NULL;
	}
	free(dir);
	return p;
}

/* The files of dir into a gzipped tar at out, under the directory name top */
static int tar_write(const char *dir, const char *top, const char *out, struct buf *err)
{
	static const char *const files[] = { "vmlinuz", "initrd.img", "root-base.img",
		"domain.xml", "run.sh", "command", "run.json", "config", "README" };
	struct archive *a = archive_write_new();
	int rc = -1;

	if (!a || archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
	    archive_write_open_filename(a, out) != ARCHIVE_OK) {
		buf_printf(err, "'%s': %s", out, a ? archive_error_string(a) : "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = path_join(dir, files[i]), name[512], b[65536];
		struct archive_entry *e;
		struct stat st;
		ssize_t n;
		int fd;

		if (!p || stat(p, &st) < 0) {
			free(p);
			continue;
		}
		fd = open(p, O_RDONLY | O_CLOEXEC);
		free(p);
		if (fd < 0)
			continue;
		e = archive_entry_new();
		snprintf(name, sizeof(name), "%s/%s", top, files[i]);
		archive_entry_set_pathname(e, name);
		archive_entry_set_size(e, st.st_size);
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, st.st_mode & 0777);
		archive_entry_set_mtime(e, st.st_mtime, 0);
		if (archive_write_header(a, e) != ARCHIVE_OK) {
			buf_printf(err, "'%s': %s", out, archive_error_string(a));
			archive_entry_free(e);
			close(fd);
			goto out;
		}
		while ((n = read(fd, b, sizeof(b))) > 0)
			if (archive_write_data(a, b, (size_t)n) != n) {
				buf_printf(err, "'%s': %s", out, archive_error_string(a));
				archive_entry_free(e);
				close(fd);
				goto out;
			}
		archive_entry_free(e);
		close(fd);
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		buf_printf(err, "'%s': %s", out, archive_error_string(a));
		goto out;
	}
	rc = 0;
out:
	archive_write_free(a);
	return rc;
}

/* The reproducer of run (its /api/runs/ID answer) in dir: 0 / -1 with err */
static int repro_write(json_t *run, const char *dir, struct buf *err)
{
	const char *run_dir = cli_jstr(run, "run_dir", NULL), *kernel = cli_jstr(json_object_get(run, "kernel"), "path", NULL);
	const char *arch = cli_jstr(run, "arch", "x86_64");
	struct buf x = BUF_INIT(REPRO_XML_MAX), t = BUF_INIT(0);
	char *cmdline = NULL, *cfg, *p = NULL, fmt[16] = "";
	long long id = cli_jint(run, "id", 0);
	int rc = -1, wait = (int)cli_jint(run, "timeout_s", 600) + 300, have_cfg;

	if (!run_dir || !kernel) {
		buf_printf(err, "run %lld: no run directory or kernel recorded (did it start?)", id);
		goto out;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		buf_printf(err, "'%s': %s", dir, strerror(errno));
		goto out;
	}
	chmod(dir, 0755);
	if (domain_make(run_dir, kernel, &x, &cmdline, err) < 0)
		goto out;
#define IN(name) (free(p), p = path_join(dir, name))
	if (!IN("vmlinuz") || copy_file(kernel, p, 0644, err) < 0 ||
	    !IN("initrd.img") || initrd_make(run_dir, p, err) < 0 ||
	    !IN("domain.xml") || write_text(p, buf_str(&x), 0644, err) < 0 ||
	    !IN("command") || write_text(p, cli_jstr(run, "command", ""), 0644, err) < 0)
		goto out;
	if (strstr(buf_str(&x), "<disk ") &&
	    (!IN("root-base.img") || disk_make(run_dir, p, fmt, err) < 0))
		goto out;
	if (cmdline && strchr(cmdline, '\'')) {
		buf_printf(err, "run %lld: the kernel command line has a quote", id);
		goto out;
	}
	buf_printf(&t, run_sh, id, wait, fmt, id, !strcmp(arch, "arm64") ?
		   "qemu-system-aarch64 -M virt -cpu max" : "qemu-system-x86_64 -M q35",
		   !strcmp(cli_jstr(run, "accel", "tcg"), "kvm") ? "kvm" : "tcg",
		   (int)cli_jint(run, "memory_mb", 512), (int)cli_jint(run, "vcpus", 1),
		   cmdline ? cmdline : "");
	if (!IN("run.sh") || write_text(p, buf_str(&t), 0755, err) < 0)
		goto out;
	buf_reset(&t);
	{
		char *js = json_dumps(run, JSON_INDENT(2) | JSON_SORT_KEYS);

		if (js)
			buf_printf(&t, "%s\n", js);
		free(js);
	}
	if (!IN("run.json") || write_text(p, buf_str(&t), 0644, err) < 0)
		goto out;
	cfg = config_find(kernel);
	if (cfg && (!IN("config") || copy_file(cfg, p, 0644, err) < 0)) {
		free(cfg);
		goto out;
	}
	have_cfg = cfg != NULL;
	free(cfg);
	buf_reset(&t);
	buf_printf(&t, "kfleet run %lld, made again: sh run.sh (virsh create) or sh run.sh qemu.\n"
		   "vmlinuz: the kernel (%s); initrd.img: the initrd it booted (its sha256 as the run's\n"
		   "manifest says); domain.xml: the run's domain, @DIR@ and @NAME@ filled in by run.sh;\n"
		   "command: what the guest ran; run.json: the run as kfleet recorded it%s%s.\n",
		   id, kernel, have_cfg ? "; config: the kernel's config" : "",
		   *fmt ? ";\nroot-base.img: the root disk's image (run.sh boots a fresh qcow2 overlay "
		   "on it, root.qcow2, each time)" : "");
	if (!IN("README") || write_text(p, buf_str(&t), 0644, err) < 0)
		goto out;
#undef IN
	rc = 0;
out:
	free(p);
	free(cmdline);
	buf_release(&x);
	buf_release(&t);
	return rc;
}

int cli_repro(struct cli *k, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *out = NULL;
	struct buf err = BUF_INIT(4096), path = BUF_INIT(256), tmp = BUF_INIT(4096);
	struct resp r = { 0 };
	long long id;
	int c, rc = CLI_USAGE;

	optind = 0;
	while ((c = getopt_long(argc, argv, "hd:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dir = optarg; break;
		case 'o': out = optarg; break;
		case 'h':
			cli_help_print(stdout, "repro");
			return CLI_OK;
		default:
			cli_help_print(stderr, "repro");
			return CLI_USAGE;
		}
	}
	if (optind + 1 != argc || (dir && out)) {
		cli_help_print(stderr, "repro");
		return CLI_USAGE;
	}
	if (cli_parse_num(k->cmd, "RUN", argv[optind], 1, INT64_MAX, &id) < 0)
		return CLI_USAGE;
	buf_printf(&path, "/api/runs/%lld", id);
	if (cli_api_call(k, "GET", buf_str(&path), NULL, NULL, &r) < 0) {
		fprintf(stderr, "kfleet: repro: %s\n", r.err);
		goto out;
	}
	if (out) {
		/* made in a directory beside it, then packed */
		buf_printf(&tmp, "%s.d", out);
		dir = buf_str(&tmp);
	} else if (!dir) {
		buf_printf(&tmp, "repro-%lld", id);
		dir = buf_str(&tmp);
	}
	if (repro_write(r.j, dir, &err) < 0) {
		fprintf(stderr, "kfleet: repro: run %lld: %s\n", id, buf_str(&err));
		goto out;
	}
	if (out) {
		char top[64];

		snprintf(top, sizeof(top), "repro-%lld", id);
		if (tar_write(dir, top, out, &err) < 0) {
			fprintf(stderr, "kfleet: repro: %s\n", buf_str(&err));
			goto out;
		}
		rm_tree(dir);
		printf("%s: run %lld's reproducer (tar xzf %s; sh %s/run.sh)\n", out, id, out, top);
	} else {
		printf("%s: run %lld's reproducer (sh %s/run.sh, or sh %s/run.sh qemu)\n", dir, id,
		       dir, dir);
	}
	rc = CLI_OK;
out:
	json_decref(r.j);
	buf_release(&err);
	buf_release(&path);
	buf_release(&tmp);
	return rc;
}
