/* sched.c: the workers. Each claims the oldest queued run for its host in a
 * transaction, makes the run's initrd and domain XML, starts the guest,
 * follows the agent channel and the console until the guest stops or a
 * deadline passes, decides the outcome and stores it. A guest is always
 * destroyed before its run is finished, so nothing is left behind. */
#include "orchestrator/orchint.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "common/cmd.h"
#include "images/copyout.h"
#include "images/images.h"
#include "images/rootfs.h"
#include "orchestrator/volumes.h"
#include "kernels/kernels.h"

#define POLL_MS 250
#define EXIT_GRACE_MS 30000   /* after the agent's own timeout, before ours */
#define POWEROFF_GRACE_MS 5000 /* from the agent's exit frame to the guest gone */

struct worker {
	struct orch *o;
	struct host *h;
	int slot;
};

struct outcome {
	enum run_outcome o;
	char detail[512];
	char *splat;
	int has_exit;
	int exit_code;
};

static void set_outcome(struct outcome *out, enum run_outcome o, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void set_outcome(struct outcome *out, enum run_outcome o, const char *fmt, ...)
{
	va_list ap;

	out->o = o;
	va_start(ap, fmt);
	vsnprintf(out->detail, sizeof(out->detail), fmt, ap);
	va_end(ap);
}

static long long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) < 0 ? 0 : (long long)st.st_size;
}

/* Reads the machine type libvirt chose (q35 -> pc-q35-7.2). */
static void read_machine(virDomainPtr d, char *out, size_t n)
{
	char *xml = virDomainGetXMLDesc(d, 0);
	const char *p = xml ? strstr(xml, "machine='") : NULL;

	snprintf(out, n, "q35");
	if (p) {
		const char *q = strchr(p + 9, '\'');

		if (q && (size_t)(q - p - 9) < n) {
			memcpy(out, p + 9, (size_t)(q - p - 9));
			out[q - p - 9] = '\0';
		}
	}
	free(xml);
}

/* Keeps at most max bytes of the console, marking where it was cut. */
static void cap_console(const char *path, unsigned long long max)
{
	long long n = file_size(path);
	char note[96];
	int fd;

	if ((unsigned long long)n <= max)
		return;
	if (truncate(path, (off_t)max) < 0)
		return;
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return;
	snprintf(note, sizeof(note), "\n[kfleet: console cut at %llu of %lld bytes]\n", max, n);
	if (write(fd, note, strlen(note)) < 0)
		log_debug("console '%s': cannot mark the cut", path);
	close(fd);
}

/* libvirt keeps QEMU's own log (its command line, its errors) per domain
 * name on a local host; a copy goes into the run's directory, where it
 * helps to reproduce the run. */
static void take_qemu_log(const struct host *h, const char *domain, const char *dir)
{
	struct buf b = BUF_INIT(0);
	char *src = NULL, *dst = path_join(dir, RUN_FILE_QEMU_LOG);

	if (strcmp(h->conf->uri, "qemu:///system") || !dst ||
	    asprintf(&src, "/var/log/libvirt/qemu/%s.log", domain) < 0) {
		free(dst);
		return;
	}
	if (read_file(src, &b, 1u << 20) == 0)
		write_file(dst, b.data ? b.data : "", b.len, 0644);
	buf_release(&b);
	free(src);
	free(dst);
}

/* What the agent's exit frame, the console and the stop say, in that order
 * of weight: a crash in the console beats everything. */
static void decide(struct channel *ch, const char *console, int timed_out_boot,
		   int timed_out_run, int flooded, int pvpanic, const struct run *r,
		   const struct config *c, struct outcome *out)
{
	struct console_verdict v;
	struct buf text;

	buf_init(&text, 0);
	if (read_file(console, &text, 4u << 20) < 0)
		buf_reset(&text);
	console_scan(buf_str(&text), text.len, &v);
	buf_release(&text);

	if (flooded) {
		set_outcome(out, RUN_OUT_CONSOLE_FLOOD, "the guest wrote more than %llu bytes to "
			    "its console; the first %llu are kept", c->console_max, c->console_max);
	} else if (pvpanic && !v.crashed) {
		set_outcome(out, RUN_OUT_CRASH, "kernel panic, reported by pvpanic; the console "
			    "shows no report");
	} else if (v.crashed) {
		const char *nl = v.splat ? strchr(v.splat, '\n') : NULL;
		int len = nl ? (int)(nl - v.splat) : 0;

		set_outcome(out, RUN_OUT_CRASH, "%s: %.*s", v.what, len > 300 ? 300 : len,
			    v.splat ? v.splat : "");
		out->splat = v.splat;
		v.splat = NULL;
	} else if (ch->exited) {
		const char *p = ch->exit_payload;

		if (!strncmp(p, "code=", 5)) {
			out->has_exit = 1;
			out->exit_code = atoi(p + 5);
			if (out->exit_code == 0)
				set_outcome(out, RUN_OUT_PASSED, "command exited with code 0");
			else
				set_outcome(out, RUN_OUT_FAILED, "command exited with code %d",
					    out->exit_code);
		} else if (!strncmp(p, "signal=", 7)) {
			set_outcome(out, RUN_OUT_FAILED, "command was killed by signal %d",
				    atoi(p + 7));
		} else if (!strncmp(p, "timeout=", 8)) {
			set_outcome(out, RUN_OUT_TIMEOUT, "command ran past its timeout of %d s",
				    r->timeout_s);
		} else {
			set_outcome(out, RUN_OUT_FAILED, "agent: %.200s", p);
		}
	} else if (!ch->hello) {
		if (timed_out_boot)
			set_outcome(out, RUN_OUT_NO_BOOT, "no agent hello within %d s of start; "
				    "see the console", c->boot_timeout_s);
		else
			set_outcome(out, RUN_OUT_NO_BOOT, "the guest stopped before the agent "
				    "said hello; see the console");
	} else if (timed_out_run) {
		set_outcome(out, RUN_OUT_TIMEOUT, "no exit status %d s past the command's "
			    "timeout of %d s", EXIT_GRACE_MS / 1000, r->timeout_s);
	} else {
		set_outcome(out, RUN_OUT_FAILED, "the guest stopped before the agent reported "
			    "an exit status");
	}
	free(v.splat);
}

/* The modules a guest needs for the agent channel, and pvpanic's ISA device
 * on x86_64 where the kernel has it (a panic then ends the domain as
 * CRASHED, whatever the console managed to say); the ones a kernel has
 * built in are skipped. */
static const char *const channel_modules[] = { "virtio_pci", "virtio_console", "?pvpanic_mmio" };
/* A root disk: ext4 asks for crc32c through the crypto API, so nothing
 * depends on crc32c_generic by symbol and it must be named */
static const char *const disk_modules[] = { "virtio_blk", "ext4", "?crc32c_generic" };
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define UPLOAD_TIMEOUT_S 600   /* one volume to or from a host */
#define HOST_MEM_RESERVE_MB 512 /* a host's memory kept for itself, not for guests */

/* Finds RELEASE/modules.dep under the ':'-separated module roots; the
 * directory, caller frees, or NULL. */
static char *find_moddir(const char *roots, const char *release)
{
	const char *p = roots;

	while (p && *p) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		char *dir = NULL, *dep;

		if (n && asprintf(&dir, "%.*s/%s", (int)n, p, release) >= 0) {
			dep = path_join(dir, "modules.dep");
			if (dep && access(dep, R_OK) == 0) {
				free(dep);
				return dir;
			}
			free(dep);
			free(dir);
		}
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}

/* The agent's virtio port reaches the daemon through a unix socket QEMU
 * listens on; the daemon copies what arrives into agent.log, where
 * channel_poll() reads it like the serial port's file. */
struct pump {
	const char *path;
	int sock;
	virStreamPtr st;         /* or a libvirt stream (a host reached by upload) */
	int out;                 /* agent.log (or console.log), append */
	int eof;
	long long copied, max;
};

/* Appends what fits under max of the n bytes read; 1 once max is reached */
static int pump_keep(struct pump *p, const char *chunk, long long n)
{
	if (p->copied + n > p->max)
		n = p->max - p->copied;
	if (n > 0 && write(p->out, chunk, (size_t)n) == n)
		p->copied += n;
	return p->copied >= p->max;
}

/* What a non-blocking stream has now; it ends with the guest */
static void pump_stream(struct pump *p, char *chunk, size_t size)
{
	for (;;) {
		int r = virStreamRecv(p->st, chunk, size);

		if (r == -2)
			break;
		if (r <= 0) {
			p->eof = 1;
			break;
		}
		if (pump_keep(p, chunk, r))
			break;
	}
}

static void pump_poll(struct pump *p)
{
	char chunk[65536];

	if (p->eof || p->out < 0)
		return;
	if (p->st) {
		pump_stream(p, chunk, sizeof(chunk));
		return;
	}
	if (p->sock < 0) {
		struct sockaddr_un sa = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

		snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", p->path);
		if (fd < 0)
			return;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
			close(fd);
			return;  /* not listening yet: the next poll tries again */
		}
		p->sock = fd;
	}
	for (;;) {
		ssize_t r = read(p->sock, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0 || (r < 0 && errno != EAGAIN)) {
			p->eof = 1;
			break;
		}
		if (r < 0)
			break;
		if (pump_keep(p, chunk, r))
			break;
	}
}

static void pump_close(struct pump *p)
{
	if (p->st) {
		virStreamAbort(p->st);
		virStreamFree(p->st);
		p->st = NULL;
	}
	if (p->sock >= 0)
		close(p->sock);
	if (p->out >= 0)
		close(p->out);
	p->sock = p->out = -1;
}

/* The job's programs, built for arch, as a cached archive; caller frees. */
static char *job_programs(struct orch *o, const struct job_def *d, const char *arch, char **err)
{
	const char *src[JOBDEF_PROGRAMS_MAX];
	char *paths[JOBDEF_PROGRAMS_MAX] = { 0 }, *archive = NULL;
	size_t n = 0;

	for (; n < d->nprograms; n++) {
		paths[n] = orch_program_path(o->conf, arch, d->programs[n]);
		if (!paths[n])
			goto out;
		src[n] = paths[n];
	}
	archive = img_programs_initramfs(src, (const char *const *)d->programs, n, o->cache_dir,
					 err);
out:
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	return archive;
}

/* The job's root disk: the cached image of its Debian packages for arch,
 * and this run's qcow2 overlay on it, so that no run changes what the
 * next one boots. 0 / -1 with *err (caller frees). */
static char *job_root_image(struct orch *o, const struct job_def *d, const char *arch,
			    char **err)
{
	const struct config *c = o->conf;
	struct img_rootfs_spec spec = {
		.arch = arch, .suite = c->debian_suite, .mirror = c->debian_mirror,
		.packages = (const char *const *)d->rootfs, .npackages = d->nrootfs,
	};

	return img_rootfs(&spec, o->cache_dir, err);
}

/* A disk image a job names: its format from its first bytes (the operator
 * named it, so it is trusted that far), a key for it (path, size and
 * mtime: hashing gigabytes for every run would cost more than the run)
 * and its root, found once by libguestfs and kept in the cache. */
struct distro {
	char fmt[8];
	char key[65];
	char dev[32];        /* "/dev/vda1" */
	char fstype[16];
};

static int distro_inspect(struct orch *o, const char *image, struct distro *di, char **err)
{
	unsigned char magic[4] = { 0 };
	char id[PATH_MAX + 64], *cache = NULL, *name = NULL;
	struct buf b = BUF_INIT(256);
	struct stat st;
	int fd, rc = -1;

	fd = open(image, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    read(fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic)) {
		set_errf(err, "image '%s': %s", image, fd < 0 ? strerror(errno) :
			 "not a regular file of a disk image's size");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	snprintf(di->fmt, sizeof(di->fmt), "%s", memcmp(magic, "QFI\xfb", 4) ? "raw" : "qcow2");
	snprintf(id, sizeof(id), "%s\n%lld\n%lld.%09ld", image, (long long)st.st_size,
		 (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	sha256_mem(id, strlen(id), di->key);
	if (asprintf(&name, "distro-%s.root", di->key) < 0 || !(cache = path_join(o->cache_dir, name)))
		goto out;
	if (read_file(cache, &b, 256) == 0 &&
	    sscanf(buf_str(&b), "%31s %15s", di->dev, di->fstype) == 2) {
		rc = 0;
		goto out;
	}
	if (img_disk_root(image, di->fmt, di->dev, sizeof(di->dev), di->fstype,
			  sizeof(di->fstype), err) < 0)
		goto out;
	buf_reset(&b);
	buf_printf(&b, "%s %s\n", di->dev, di->fstype);
	if (write_file(cache, b.data, b.len, 0644) < 0)
		log_warn("image '%s': cannot keep its root in '%s': %s", image, cache,
			 strerror(errno));
	log_info("image '%s': root %s (%s), found by inspection", image, di->dev, di->fstype);
	rc = 0;
out:
	if (rc == 0 && strcmp(di->fstype, "ext4"))
		rc = set_errf(err, "image '%s': its root (%s) is %s; the agent mounts ext4 roots "
			      "only", image, di->dev, di->fstype);
	buf_release(&b);
	free(cache);
	free(name);
	return rc;
}

/* qemu-img on a local overlay: "create" a new one on image, or "rebase" it
 * (unsafe: only the pointer changes) onto image after it came back from a
 * host where its backing file had another path. 0 / -1 with *err. */
static int local_overlay(const char *verb, const char *image, const char *fmt,
			 const char *overlay, char **err)
{
	struct cmd *cmd = cmd_new("qemu-img");
	int rc;

	if (!strcmp(verb, "create"))
		cmd_args(cmd, "create", "-q", "-f", "qcow2", "-F", fmt, "-b", image, overlay,
			 NULL);
	else
		cmd_args(cmd, "rebase", "-u", "-f", "qcow2", "-F", fmt, "-b", image, overlay,
			 NULL);
	cmd_timeout(cmd, 60 * 1000);
	rc = cmd_run(cmd, err);
	cmd_free(cmd);
	return rc;
}

/* A host reached by upload: what the guest boots goes there as storage
 * volumes. The kernel and the root image are named by their content and
 * stay, so the next run on that host sends nothing; the initrd and the
 * overlay are the run's own, named after its domain, and deleted by
 * drop_run_volumes(). Paths on the host into the spec's fields (caller
 * frees them). 0 / -1 with *err. */
struct remote_files {
	char *kernel, *initrd, *disk;
};

static char *vol_name(const char *domain, const char *what)
{
	char *n = NULL;

	return asprintf(&n, "%s-%s", domain, what) < 0 ? NULL : n;
}

static int upload_run_files(struct host *h, const struct run *r, const char *initrd,
			    const char *image, const struct distro *di, struct remote_files *rf,
			    char **err)
{
	char sum[65], *name = NULL, *base = NULL;
	int rc = -1;

	if (sha256_file(r->kernel_path, sum) < 0) {
		set_errf(err, "kernel '%s': %s", r->kernel_path, strerror(errno));
		return -1;
	}
	if (asprintf(&name, "kernel-%s", sum) < 0)
		return -1;
	rf->kernel = vol_upload(h->conn, h->conf->pool, name, r->kernel_path, UPLOAD_TIMEOUT_S, err);
	free(name);
	if (!rf->kernel)
		return -1;
	name = vol_name(r->domain, "initrd");
	/* an earlier attempt's initrd may have the same size, not the content */
	if (!name || vol_delete(h->conn, h->conf->pool, name, err) < 0)
		goto out;
	rf->initrd = vol_upload(h->conn, h->conf->pool, name, initrd, UPLOAD_TIMEOUT_S, err);
	free(name);
	name = NULL;
	if (!rf->initrd)
		goto out;
	if (image) {
		/* rootfs-HASH.ext4: its name is its content already */
		char dname[96];

		snprintf(dname, sizeof(dname), "distro-%s.%s", di->key, di->fmt);
		base = vol_upload(h->conn, h->conf->pool, di->key[0] ? dname :
				  strrchr(image, '/') + 1, image, UPLOAD_TIMEOUT_S, err);
		name = vol_name(r->domain, RUN_FILE_DISK);
		if (!base || !name)
			goto out;
		rf->disk = vol_overlay(h->conn, h->conf->pool, name, base, di->fmt, err);
		if (!rf->disk)
			goto out;
	}
	rc = 0;
out:
	free(name);
	free(base);
	return rc;
}

/* The run's overlay back from the host, pointing at the local image, so
 * its results can be copied out here. 0 / -1 with *err. */
static int fetch_overlay(struct host *h, const struct run *r, const char *image,
			 const char *fmt, const char *disk, char **err)
{
	char *name = vol_name(r->domain, RUN_FILE_DISK);
	int rc = -1;

	if (name && vol_download(h->conn, h->conf->pool, name, disk, UPLOAD_TIMEOUT_S, err) == 0)
		rc = local_overlay("rebase", image, fmt, disk, err);
	free(name);
	return rc;
}

static void drop_run_volumes(struct host *h, const struct run *r)
{
	static const char *const what[] = { "initrd", RUN_FILE_DISK };

	for (size_t i = 0; i < NELEM(what); i++) {
		char *name = vol_name(r->domain, what[i]), *err = NULL;

		if (name && vol_delete(h->conn, h->conf->pool, name, &err) < 0)
			log_warn("run %" PRId64 ": host '%s': %s", r->id, h->conf->name,
				 err ? err : "?");
		free(err);
		free(name);
	}
}

/* Console and agent channel of a guest on a host reached by upload, as
 * streams: the guest starts paused, both are opened, then it runs, so not
 * a byte of the boot is missed. dev NULL is the first console. */
static int open_stream(virDomainPtr d, const char *dev, int channel, struct pump *p,
		       const char *file, long long max, char **err)
{
	p->out = open(file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	p->max = max;
	p->st = virStreamNew(virDomainGetConnect(d), VIR_STREAM_NONBLOCK);
	if (p->out < 0 || !p->st ||
	    (channel ? virDomainOpenChannel(d, dev, p->st, VIR_DOMAIN_CHANNEL_FORCE)
		     : virDomainOpenConsole(d, dev, p->st, VIR_DOMAIN_CONSOLE_FORCE)) < 0) {
		char *e = p->out < 0 ? strdup(strerror(errno)) : guest_last_error();

		set_errf(err, "%s '%s': %s", channel ? "channel" : "console",
			 dev ? dev : "serial0", e ? e : "?");
		free(e);
		return -1;
	}
	return 0;
}

/* Copies the job's results directory out of the stopped guest's overlay
 * (libguestfs reads it; the host never mounts it) into the run's directory,
 * then drops the overlay. A failure to copy does not change the outcome:
 * it is added to the outcome's detail. */
static void job_copy_results(const struct job_def *d, int64_t run_id, const char *overlay,
			     const char *dir, struct outcome *out)
{
	struct img_copy_limits lim = { 0 };
	struct img_copy_report rep = { 0 };
	char *host = path_join(dir, RUN_DIR_RESULTS), *err = NULL;
	int64_t t0 = mono_ms();

	if (!host) {
		err = strdup("out of memory");
	} else if (img_copy_out(overlay, "qcow2", d->results, host, &lim, &rep, &err) == 0) {
		log_info("run %" PRId64 ": results '%s': %s%u files, %llu bytes copied out in "
			 "%.1f s%s", run_id, d->results, rep.missing ? "missing; " : "", rep.files,
			 rep.bytes, (double)(mono_ms() - t0) / 1000,
			 rep.skipped ? " (links and special files skipped)" : "");
	}
	if (err) {
		size_t l = strlen(out->detail);

		log_warn("run %" PRId64 ": results '%s' not copied out: %s", run_id, d->results, err);
		snprintf(out->detail + l, sizeof(out->detail) - l, " (results not copied: %s)", err);
	}
	free(err);
	free(host);
}

/* Parses what a job printed with the job's parser (and METRIC lines, which
 * any job may print), stores the results and samples, and lets them speak
 * for the outcome: a job that exits 4 skipped (kselftest's code), and one
 * that exits 0 with subtests that did not pass failed. */
static void job_outcome(struct db *db, const struct job_def *d, const struct run *r,
			const char *outp, struct outcome *out)
{
	struct job_results res;
	struct job_samples smp;
	struct buf text = BUF_INIT(0);
	struct result_row *rows = NULL;
	struct sample_row *srows = NULL;
	size_t bad = 0;
	const char *first_bad = NULL;

	job_results_init(&res, 0);
	job_samples_init(&smp, 0);
	if (read_file(outp, &text, JOB_OUTPUT_MAX) < 0)
		goto out;
	if (job_def_parse(d, buf_str(&text), text.len, &res, &smp) < 0 ||
	    (strcmp(d->parser, "metrics") && strcmp(d->parser, "bench") &&
	     metrics_parse(buf_str(&text), text.len, &smp) < 0)) {
		log_warn("run %" PRId64 ": job '%s': parsing its output ran out of memory", r->id,
			 d->name);
		goto out;
	}
	rows = calloc(res.n ? res.n : 1, sizeof(*rows));
	srows = calloc(smp.n ? smp.n : 1, sizeof(*srows));
	if (!rows || !srows)
		goto out;
	for (size_t i = 0; i < res.n; i++) {
		rows[i].path = res.v[i].path;
		rows[i].status = (char *)job_status_name(res.v[i].status);
		rows[i].detail = res.v[i].reason;
		if (res.v[i].status != JOB_PASS && res.v[i].status != JOB_SKIP &&
		    res.v[i].status != JOB_XFAIL) {
			if (!bad)
				first_bad = res.v[i].path;
			bad++;
		}
	}
	for (size_t i = 0; i < smp.n; i++) {
		srows[i].metric = smp.v[i].name;
		srows[i].unit = smp.v[i].unit;
		srows[i].value = smp.v[i].value;
		srows[i].seq = (int)smp.v[i].seq;
	}
	if (db_run_store_results(db, r->id, rows, res.n, srows, smp.n) < 0)
		log_error("run %" PRId64 ": cannot store %zu results and %zu samples: %s", r->id,
			  res.n, smp.n, db_errmsg(db));
	if (out->o == RUN_OUT_FAILED && out->has_exit && out->exit_code == 4) {
		const char *skip = strstr(buf_str(&text), "SKIP:");
		int len = skip ? (int)strcspn(skip, "\n") : 0;

		if (skip)
			set_outcome(out, RUN_OUT_SKIPPED, "%.*s", len > 300 ? 300 : len, skip);
		else
			set_outcome(out, RUN_OUT_SKIPPED, "job exited 4 (skip)");
	} else if (out->o == RUN_OUT_PASSED && bad) {
		set_outcome(out, RUN_OUT_FAILED, "%zu of %zu results did not pass, the first: %.200s",
			    bad, res.n, first_bad);
	}
out:
	free(rows);
	free(srows);
	buf_release(&text);
	job_results_release(&res);
	job_samples_release(&smp);
}

enum run_outcome sched_parse_output(struct db *db, const struct job_def *d, const struct run *r,
				    const char *outp, char *detail, size_t n)
{
	struct outcome out = { .o = RUN_OUT_PASSED, .has_exit = 1, .exit_code = 0 };

	job_outcome(db, d, r, outp, &out);
	snprintf(detail, n, "%s", out.detail);
	return out.o;
}

/* Runs one claimed run to its end. Returns the outcome to store. */
static void run_one(struct worker *wk, struct db *db, struct run *r, struct outcome *out)
{
	struct orch *o = wk->o;
	struct host *h = wk->h;
	const struct config *c = o->conf;
	char dir_rel[64], machine[64];
	char *dir = NULL, *console = NULL, *chan = NULL, *outp = NULL, *xmlp = NULL;
	char *initrd = NULL, *base = NULL, *err = NULL, *sock = NULL, *moddir = NULL;
	char *mods = NULL, *emulator = NULL, release[128];
	int arm = !strcmp(r->arch, "arm64");
	const char *agent = arm ? o->agent_arm64 : o->agent_x86_64;
	const char *busybox = arm ? c->busybox_arm64 : c->busybox;
	struct pump pump = { .sock = -1, .out = -1 };
	long long chan_max = (long long)(2 * c->output_max + (4u << 20));
	struct img_run ir = { 0 };
	const struct job_def *job = r->job ? job_set_find(&o->jobs, r->job) : NULL;
	char *progs = NULL, *kselftests = NULL, *disk = NULL, *image = NULL;
	struct remote_files rf = { 0 };
	struct distro di = { .fmt = "" };
	struct pump con = { .sock = -1, .out = -1 };   /* the console, as a stream */
	int up = h->upload;
	struct guest_spec gs;
	struct buf xml = BUF_INIT(1 << 20);
	struct channel ch = { .out_fd = -1 };
	struct watch w;
	virDomainPtr d = NULL;
	int64_t t0, boot_deadline, run_deadline = 0, poweroff_deadline = 0;
	int timed_out_boot = 0, timed_out_run = 0, flooded = 0, destroyed = 0, chan_flood = 0;
	int silent = 0, crashed = 0;
	long long seen = -1;     /* console + channel bytes at the last change */
	int64_t last_output = 0;

	memset(&w, 0, sizeof(w));
	snprintf(dir_rel, sizeof(dir_rel), "%" PRId64 "/a%d", r->id, r->attempt);
	dir = path_join(o->runs_dir, dir_rel);
	if (!dir || mkdir_p(dir, 0755) < 0) {
		set_outcome(out, RUN_OUT_INFRA, "run directory '%s': %s", dir ? dir : "?",
			    strerror(errno));
		goto out;
	}
	console = path_join(dir, RUN_FILE_CONSOLE);
	chan = path_join(dir, RUN_FILE_AGENT);
	outp = path_join(dir, RUN_FILE_OUTPUT);
	xmlp = path_join(dir, RUN_FILE_XML);
	initrd = path_join(dir, RUN_FILE_INITRD);
	if (!console || !chan || !outp || !xmlp || !initrd) {
		set_outcome(out, RUN_OUT_INFRA, "out of memory");
		goto out;
	}
	unlink(console);
	unlink(chan);

	base = img_base_initramfs(busybox, agent, o->cache_dir, &err);
	if (!base) {
		set_outcome(out, RUN_OUT_INFRA, "initramfs: %s", err ? err : "?");
		goto out;
	}
	/* With the kernel's modules at hand the agent uses a virtio-serial port;
	 * without them x86_64 falls back to the second serial port, and arm64
	 * (one UART only) hopes virtio is built in. */
	if (kimage_release(r->kernel_path, r->arch, release, sizeof(release)) == 0) {
		/* a kernel kfleet built has its modules next to it */
		char *kdir = strdup(r->kernel_path), *slash = kdir ? strrchr(kdir, '/') : NULL;
		char *roots = NULL;

		if (slash && (*slash = '\0', asprintf(&roots, "%s/lib/modules", kdir)) >= 0) {
			moddir = find_moddir(roots, release);
			free(roots);
		}
		free(kdir);
		if (!moddir)
			moddir = find_moddir(c->modules_path, release);
	}
	if (moddir) {
		const char *names[NELEM(channel_modules) + NELEM(disk_modules) + JOBDEF_PROGRAMS_MAX];
		size_t nn = 0;

		for (size_t i = 0; i < NELEM(channel_modules); i++)
			names[nn++] = channel_modules[i];
		for (size_t i = 0; job && (job->nrootfs || job->image) && i < NELEM(disk_modules);
		     i++)
			names[nn++] = disk_modules[i];
		for (size_t i = 0; job && i < job->nmodules; i++)
			names[nn++] = job->modules[i];
		mods = img_modules_initramfs(moddir, names, nn, o->cache_dir, &err);
		if (!mods) {
			set_outcome(out, RUN_OUT_INFRA, "modules: %s", err ? err : "?");
			goto out;
		}
	}
	ir.virtio = moddir || arm;
	if (mods)
		ir.extra[ir.nextra++] = mods;
	if (r->job && !job) {
		set_outcome(out, RUN_OUT_INFRA, "job '%s' is not known to this kfleetd", r->job);
		goto out;
	}
	if (job && (job->nrootfs || job->image)) {
		if (job->image) {
			image = distro_inspect(o, job->image, &di, &err) < 0 ? NULL :
				strdup(job->image);
		} else {
			image = job_root_image(o, job, r->arch, &err);
			snprintf(di.fmt, sizeof(di.fmt), "raw");
			snprintf(di.dev, sizeof(di.dev), IMG_ROOT_DEV);
		}
		disk = path_join(dir, RUN_FILE_DISK);
		if (disk)
			unlink(disk);
		if (!image || !disk ||
		    (!up && local_overlay("create", image, di.fmt, disk, &err) < 0)) {
			set_outcome(out, RUN_OUT_INFRA, "job '%s': root disk: %s", job->name,
				    err ? err : "out of memory");
			goto out;
		}
		ir.root_dev = di.dev;
		ir.results = job->results;
	}
	if (job && job->nprograms) {
		progs = job_programs(o, job, r->arch, &err);
		if (!progs) {
			set_outcome(out, RUN_OUT_INFRA, "job '%s': %s", job->name, err ? err : "?");
			goto out;
		}
		ir.extra[ir.nextra++] = progs;
	}
	if (job && job->selftests) {
		/* built with the kernel, next to it, or for it by a submission
		 * (orchestrator/builder.c) */
		kselftests = orch_selftests_path(o->state_dir, r->kernel_path, NULL,
						  job->selftests);
		if (!kselftests || access(kselftests, R_OK) < 0) {
			set_outcome(out, RUN_OUT_INFRA, "job '%s': no selftests '%s' built for "
				    "this kernel ('%s')", job->name, job->selftests,
				    kselftests ? kselftests : "?");
			goto out;
		}
		ir.extra[ir.nextra++] = kselftests;
	}
	if (ir.virtio && !up) {
		/* sun_path holds 107 bytes */
		sock = path_join(dir, "agent.sock");
		if (sock && strlen(sock) > 100) {
			free(sock);
			if (asprintf(&sock, "/tmp/kfleet-%s-%" PRId64 ".sock", o->instance, r->id) < 0)
				sock = NULL;
		}
		if (!sock) {
			set_outcome(out, RUN_OUT_INFRA, "out of memory");
			goto out;
		}
		unlink(sock);
		pump.path = sock;
		pump.max = chan_max;
		pump.out = open(chan, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (pump.out < 0) {
			set_outcome(out, RUN_OUT_INFRA, "channel '%s': %s", chan, strerror(errno));
			goto out;
		}
	}
	ir.run_id = r->id;
	ir.command = r->command;
	ir.timeout_s = r->timeout_s;
	ir.output_max = c->output_max;
	if (img_run_initrd(base, &ir, initrd, &err) < 0) {
		set_outcome(out, RUN_OUT_INFRA, "initrd: %s", err ? err : "?");
		goto out;
	}
	if (up && upload_run_files(h, r, initrd, image, &di, &rf, &err) < 0) {
		set_outcome(out, RUN_OUT_INFRA, "host '%s': upload: %s", h->conf->name,
			    err ? err : "out of memory");
		goto out;
	}

	memset(&gs, 0, sizeof(gs));
	gs.name = r->domain;
	gs.run_id = r->id;
	gs.attempt = r->attempt;
	gs.arch = r->arch;
	gs.accel = arm ? h->accel_arm64 : h->accel;
	gs.vcpus = r->vcpus;
	gs.memory_mb = r->memory_mb;
	gs.kernel = up ? rf.kernel : r->kernel_path;
	gs.initrd = up ? rf.initrd : initrd;
	gs.streams = up;
	gs.console = console;
	gs.channel = chan;
	gs.virtio = ir.virtio;
	gs.pvpanic = !arm;
	gs.numa_nodes = r->numa_nodes;
	if (r->topology && sscanf(r->topology, "%d:%d:%d", &gs.sockets, &gs.cores,
				  &gs.threads) != 3)
		gs.sockets = gs.cores = gs.threads = 0;
	emulator = guest_tcg1_emulator(o, h, r->arch, gs.accel, r->vcpus);
	gs.emulator = emulator;
	gs.socket = sock;
	gs.disk = up ? rf.disk : disk;
	if (guest_domain_xml(&gs, &xml) < 0 ||
	    write_file(xmlp, xml.data, xml.len, 0644) < 0) {
		set_outcome(out, RUN_OUT_INFRA, "domain XML '%s': %s", xmlp, strerror(errno));
		goto out;
	}
	if (db_run_started(db, r->id, gs.accel, arm ? "virt" : "q35", h->qemu_version,
			   h->libvirt_version, dir) < 0)
		log_warn("run %" PRId64 ": cannot record its start: %s", r->id, db_errmsg(db));
	if (channel_open(&ch, chan, outp, c->output_max) < 0) {
		set_outcome(out, RUN_OUT_INFRA, "output '%s': %s", outp, strerror(errno));
		goto out;
	}

	snprintf(w.name, sizeof(w.name), "%s", r->domain);
	watch_add(o, &w);
	/* a guest of an earlier attempt that outlived a lost connection */
	guest_destroy_name(h, r->domain);
	t0 = mono_ms();
	d = virDomainCreateXML(h->conn, xml.data, up ? VIR_DOMAIN_START_PAUSED : 0);
	if (!d) {
		char *e = guest_last_error();

		set_outcome(out, RUN_OUT_INFRA, "libvirt on host '%s': %s", h->conf->name, e);
		free(e);
		goto out_watch;
	}
	if (up && (open_stream(d, NULL, 0, &con, console, (long long)c->console_max + 1, &err) < 0 ||
		   open_stream(d, gs.virtio ? IMG_VIRTIO_PORT : "serial1", gs.virtio, &pump, chan,
			       chan_max, &err) < 0 ||
		   virDomainResume(d) < 0)) {
		char *e = err ? NULL : guest_last_error();

		set_outcome(out, RUN_OUT_INFRA, "host '%s': %s", h->conf->name, err ? err : e);
		free(e);
		goto out_watch;
	}
	read_machine(d, machine, sizeof(machine));
	db_run_started(db, r->id, gs.accel, machine, h->qemu_version, h->libvirt_version, dir);
	{
		char cpu[96];

		guest_cpu_model(h, &gs, cpu, sizeof(cpu));
		if (db_run_cpu_model(db, r->id, cpu) < 0)
			log_warn("run %" PRId64 ": cannot record its CPU model: %s", r->id,
				 db_errmsg(db));
	}
	log_info("run %" PRId64 ": guest '%s' started on host '%s' (%s %s, %d vCPUs, %d MiB, "
		 "channel %s%s)", r->id, r->domain, h->conf->name, r->arch, gs.accel, r->vcpus,
		 r->memory_mb, gs.virtio ? "virtio" : "ttyS1",
		 emulator ? ", single-threaded TCG" : "");
	boot_deadline = t0 + (int64_t)c->boot_timeout_s * 1000;

	for (;;) {
		int news, stopped;

		if (gs.virtio || up)
			pump_poll(&pump);
		if (up)
			pump_poll(&con);
		news = channel_poll(&ch);
		int64_t now = mono_ms();

		if (news > 0 && ch.hello && !run_deadline) {
			run_deadline = now + (int64_t)r->timeout_s * 1000 + EXIT_GRACE_MS;
			db_run_booted(db, r->id, now_ms(), ch.release, ch.nproc, ch.mem_kb);
			log_info("run %" PRId64 ": guest booted in %.1f s (%s, %d cpus)", r->id,
				 (double)(now - t0) / 1000, ch.release, ch.nproc);
		}
		if (ch.exited && !poweroff_deadline) {
			poweroff_deadline = now + POWEROFF_GRACE_MS;
			/* the agent waits for this before it powers off */
			if (gs.virtio && pump.sock >= 0 && write(pump.sock, "ack\n", 4) != 4)
				log_warn("run %" PRId64 ": cannot acknowledge the agent's exit: %s",
					 r->id, strerror(errno));
			if (gs.virtio && pump.st && virStreamSend(pump.st, "ack\n", 4) != 4)
				log_warn("run %" PRId64 ": cannot acknowledge the agent's exit "
					 "through the channel stream", r->id);
		}
		if (c->silence_timeout_s) {
			long long bytes = file_size(console) + file_size(chan);

			if (bytes != seen) {
				seen = bytes;
				last_output = now;
			}
		}
		pthread_mutex_lock(&o->lock);
		stopped = w.stopped;
		pthread_mutex_unlock(&o->lock);
		if (stopped)
			break;
		if (virDomainIsActive(d) == 0)
			break;          /* an event lost with a broken connection */
		if ((unsigned long long)file_size(console) > c->console_max) {
			flooded = 1;
		} else if (file_size(chan) >= chan_max) {
			chan_flood = flooded = 1;
		} else if (!ch.hello && now > boot_deadline) {
			timed_out_boot = 1;
		} else if (run_deadline && now > run_deadline) {
			timed_out_run = 1;
		} else if (c->silence_timeout_s &&
			   now - last_output > (int64_t)c->silence_timeout_s * 1000) {
			silent = 1;
		} else if (poweroff_deadline && now > poweroff_deadline) {
			log_warn("run %" PRId64 ": guest did not power off within %d s of the "
				 "command's end", r->id, POWEROFF_GRACE_MS / 1000);
		} else if (o->stopping) {
			set_outcome(out, RUN_OUT_INFRA, "kfleetd stopped while the run was in flight");
		} else if (!virConnectIsAlive(h->conn)) {
			set_outcome(out, RUN_OUT_INFRA, "lost the connection to host '%s'",
				    h->conf->name);
		} else {
			watch_wait(o, &w, POLL_MS);
			continue;
		}
		if (virDomainDestroy(d) < 0 && virConnectIsAlive(h->conn) != 1)
			orch_host_orphan(h, r->domain);
		destroyed = 1;
		break;
	}
	if (gs.virtio || up)
		pump_poll(&pump);
	if (up)
		pump_poll(&con);
	channel_poll(&ch);
	cap_console(console, c->console_max);
	take_qemu_log(h, r->domain, dir);
	if (out->o == RUN_OUT_INFRA)
		goto out_watch;
	pthread_mutex_lock(&o->lock);
	crashed = w.crashed;
	pthread_mutex_unlock(&o->lock);
	if (crashed)
		log_info("run %" PRId64 ": the guest reported a panic through pvpanic", r->id);
	decide(&ch, console, timed_out_boot, timed_out_run, flooded, crashed, r, c, out);
	if (job)
		job_outcome(db, job, r, outp, out);
	if (job && job->results && disk) {
		char *e = NULL;

		if (up && fetch_overlay(h, r, image, di.fmt, disk, &e) < 0) {
			size_t l = strlen(out->detail);

			snprintf(out->detail + l, sizeof(out->detail) - l,
				 " (results not copied: host '%s': %s)", h->conf->name, e ? e : "?");
		} else {
			job_copy_results(job, r->id, disk, dir, out);
		}
		free(e);
	}
	if (chan_flood)
		set_outcome(out, RUN_OUT_CONSOLE_FLOOD, "the guest wrote more than %lld bytes to "
			    "its agent channel", chan_max);
	else if (silent && out->o != RUN_OUT_CRASH)
		set_outcome(out, RUN_OUT_TIMEOUT, "hang: no console or agent output for %d s",
			    c->silence_timeout_s);
	if (ch.out_capped || ch.truncated) {
		size_t l = strlen(out->detail);

		snprintf(out->detail + l, sizeof(out->detail) - l, " (output cut at %llu bytes)",
			 c->output_max);
	}
	log_info("run %" PRId64 ": %s: %s%s", r->id, run_outcome_name(out->o), out->detail,
		 destroyed ? " (guest destroyed)" : "");
out_watch:
	watch_remove(o, &w);
out:
	if (d) {
		if (virDomainIsActive(d) == 1)
			virDomainDestroy(d);
		virDomainFree(d);
	}
	channel_release(&ch);
	pump_close(&pump);
	pump_close(&con);
	if (up && h->conn && virConnectIsAlive(h->conn) == 1)
		drop_run_volumes(h, r);
	free(rf.kernel);
	free(rf.initrd);
	free(rf.disk);
	free(image);
	if (sock)
		unlink(sock);
	if (disk)
		unlink(disk);   /* up to the image's size; results are out by now */
	buf_release(&xml);
	free(sock);
	free(moddir);
	free(mods);
	free(progs);
	free(kselftests);
	free(disk);
	free(emulator);
	free(err);
	free(base);
	free(initrd);
	free(xmlp);
	free(outp);
	free(chan);
	free(console);
	free(dir);
}

/* What h may take now (o->lock held). Memory: the host's, less what its
 * running guests were given and HOST_MEM_RESERVE_MB for itself; guests are
 * packed until it is used up. KVM first: a host that runs x86_64 under TCG
 * leaves the runs that an idle KVM host could take to that host, so they
 * run several times faster; when every KVM slot is busy it takes them, so
 * the fleet stays busy. */
static void host_fit(struct orch *o, const struct host *h, struct claim_fit *fit)
{
	int64_t mem = h->memory_kb / 1024 - HOST_MEM_RESERVE_MB - h->mem_used_mb;

	memset(fit, 0, sizeof(*fit));
	fit->max_vcpus_x86_64 = h->max_vcpus;
	fit->max_vcpus_arm64 = h->max_vcpus_arm64;
	fit->max_memory_mb = h->memory_kb <= 0 ? INT_MAX : mem < 0 ? 0 :
			     mem > INT_MAX ? INT_MAX : (int)mem;
	if (!strcmp(h->accel, "kvm"))
		return;
	for (size_t i = 0; i < o->nhosts; i++) {
		const struct host *k = &o->hosts[i];
		int64_t kmem = k->memory_kb / 1024 - HOST_MEM_RESERVE_MB - k->mem_used_mb;

		if (k == h || strcmp(k->accel, "kvm") || !k->healthy || !k->conn ||
		    k->busy >= k->conf->slots)
			continue;
		if (k->max_vcpus > fit->leave_vcpus)
			fit->leave_vcpus = k->max_vcpus;
		if (kmem > fit->leave_memory_mb)
			fit->leave_memory_mb = kmem > INT_MAX ? INT_MAX : (int)kmem;
	}
}

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct orch *o = wk->o;
	struct db *db = NULL;
	char *err = NULL;

	db = db_open(o->db_path, &err);
	if (!db) {
		log_error("worker %s/%d: %s", wk->h->conf->name, wk->slot, err ? err : "?");
		free(err);
		free(wk);
		return NULL;
	}
	for (;;) {
		struct run r;
		struct outcome out;
		int rc;

		pthread_mutex_lock(&o->lock);
		if (o->stopping) {
			pthread_mutex_unlock(&o->lock);
			break;
		}
		pthread_mutex_unlock(&o->lock);
		if (orch_host_ready(o, wk->h, db)) {
			struct claim_fit fit;

			/* the database waits are not taken under o->lock, which
			 * the lifecycle events need */
			pthread_mutex_lock(&o->claim_lock);
			pthread_mutex_lock(&o->lock);
			host_fit(o, wk->h, &fit);
			pthread_mutex_unlock(&o->lock);
			rc = db_run_claim_fit(db, wk->h->conf->name, &fit, &r);
			if (rc > 0) {
				pthread_mutex_lock(&o->lock);
				wk->h->busy++;
				wk->h->mem_used_mb += r.memory_mb;
				pthread_mutex_unlock(&o->lock);
			}
			pthread_mutex_unlock(&o->claim_lock);
		} else {
			rc = 0;
		}
		if (rc <= 0) {
			struct timespec ts;

			if (rc < 0)
				log_error("worker %s/%d: claim: %s", wk->h->conf->name, wk->slot,
					  db_errmsg(db));
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_sec += 1;
			pthread_mutex_lock(&o->lock);
			if (!o->stopping)
				pthread_cond_timedwait(&o->work, &o->lock, &ts);
			pthread_mutex_unlock(&o->lock);
			continue;
		}
		log_info("run %" PRId64 ": claimed by %s/%d (attempt %d)", r.id,
			 wk->h->conf->name, wk->slot, r.attempt);
		memset(&out, 0, sizeof(out));
		run_one(wk, db, &r, &out);
		pthread_mutex_lock(&o->lock);
		wk->h->busy--;
		wk->h->mem_used_mb -= r.memory_mb;
		pthread_mutex_unlock(&o->lock);
		if (db_run_finish(db, r.id, out.o, out.detail, out.splat, out.has_exit,
				  out.exit_code) < 0)
			log_error("run %" PRId64 ": cannot store outcome '%s': %s", r.id,
				  run_outcome_name(out.o), db_errmsg(db));
		if (out.o == RUN_OUT_INFRA) {
			/* a requeued run is for any worker; wake them */
			pthread_mutex_lock(&o->lock);
			pthread_cond_broadcast(&o->work);
			pthread_mutex_unlock(&o->lock);
		}
		free(out.splat);
		run_release(&r);
	}
	db_close(db);
	free(wk);
	return NULL;
}

int sched_start(struct orch *o)
{
	size_t total = 0;

	for (size_t i = 0; i < o->nhosts; i++)
		total += (size_t)o->hosts[i].conf->slots;
	o->workers = calloc(total ? total : 1, sizeof(*o->workers));
	if (!o->workers)
		return -1;
	for (size_t i = 0; i < o->nhosts; i++) {
		for (int s = 0; s < o->hosts[i].conf->slots; s++) {
			struct worker *wk = calloc(1, sizeof(*wk));

			if (!wk)
				return -1;
			wk->o = o;
			wk->h = &o->hosts[i];
			wk->slot = s;
			if (pthread_create(&o->workers[o->nworkers], NULL, worker_main, wk)) {
				free(wk);
				return -1;
			}
			o->nworkers++;
		}
	}
	return 0;
}

void sched_stop(struct orch *o)
{
	pthread_mutex_lock(&o->lock);
	o->stopping = 1;
	pthread_cond_broadcast(&o->work);
	pthread_cond_broadcast(&o->events);
	pthread_mutex_unlock(&o->lock);
	for (size_t i = 0; i < o->nworkers; i++)
		pthread_join(o->workers[i], NULL);
	free(o->workers);
	o->workers = NULL;
	o->nworkers = 0;
}
