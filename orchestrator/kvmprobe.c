// SPDX-License-Identifier: GPL-2.0-only
/* kvmprobe.c: whether KVM really boots guests on a host. A paused KVM guest
 * that starts (guest.c) is not proof: on some machines SeaBIOS runs under
 * KVM and Linux then hangs as it leaves real mode ("Probing EDD"). So before
 * a host's x86_64 runs get KVM, a tiny guest boots under it: a kernel of the
 * daemon's machine (/boot) with the base initramfs, its init busybox's
 * `poweroff -f`, bounded in time. The answer is kept under the cache
 * directory per host URI, QEMU and libvirt version and kernel.
 *
 * The boot takes up to PROBE_BOOT_MS where KVM hangs, and longer to upload
 * its files to a remote host, so it runs in a thread of its own
 * (kvmprobe_start()): the daemon serves at once, and the host stays out of
 * placement, "probing", until the answer is in.
 *
 * KFLEET_TEST_KVM=starts-no-boot makes this machine look like one whose
 * KVM starts guests but boots no kernel (the paused guest "starts", the
 * probe guest runs under TCG and its init sleeps), for t/e2e-upload.sh on
 * machines whose KVM fails otherwise. */
#include "orchestrator/orchint.h"
#include "orchestrator/volumes.h"

#include <libvirt/virterror.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "images/images.h"
#include "kernels/kernels.h"

#define PROBE_BOOT_MS   30000   /* a working KVM boots it in 1-3 s */
#define PROBE_UPLOAD_S  120
#define PROBE_FAIL_KEEP (24 * 3600)  /* a failed probe is tried again after a day */

int kvmprobe_seam(void)
{
	const char *e = getenv("KFLEET_TEST_KVM");

	return e && !strcmp(e, "starts-no-boot");
}

/* kvmprobe_boot() of domain type, named label in why; hang: init sleeps
 * instead of powering off (the seam) */
static int boot(virConnectPtr conn, const char *type, const char *label, int hang,
		const char *kernel, const char *initrd, int timeout_ms, const int *stop,
		char *why, size_t n)
{
	static int seq;
	struct buf xml = BUF_INIT(8192);
	virDomainPtr d;
	int64_t deadline;
	int rc = 0, state, reason;

	/* paths of /boot, the cache and a pool: nothing to escape, and what
	 * would need it is refused */
	if (strpbrk(kernel, "&<>'\"") || strpbrk(initrd, "&<>'\"")) {
		snprintf(why, n, "the KVM probe's paths hold XML markup: '%.60s', '%.60s'", kernel,
			 initrd);
		return -1;
	}
	/* on_reboot restart: a triple fault resets the guest, which must not
	 * pass for the poweroff that only a booted kernel reaches */
	buf_printf(&xml, "<domain type='%s'><name>kfleet-kvm-boot-%d-%d</name>"
		   "<memory unit='MiB'>256</memory><vcpu>1</vcpu>"
		   "<os><type arch='x86_64' machine='q35'>hvm</type><kernel>%s</kernel>"
		   "<initrd>%s</initrd><cmdline>", type,
		   (int)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED), kernel, initrd);
	buf_printf(&xml, "console=ttyS0 quiet rdinit=/bin/busybox -- %s"
		   "</cmdline></os><features><acpi/></features>%s"
		   "<on_poweroff>destroy</on_poweroff><on_reboot>restart</on_reboot>"
		   "<on_crash>destroy</on_crash><devices><controller type='usb' model='none'/>"
		   "<memballoon model='none'/></devices></domain>",
		   hang ? "sleep 86400" : "poweroff -f",
		   strcmp(type, "kvm") ? "" : "<cpu mode='host-passthrough'/>");
	if (xml.truncated) {
		snprintf(why, n, "the probe's domain XML is too long");
		buf_release(&xml);
		return -1;
	}
	d = virDomainCreateXML(conn, buf_str(&xml), VIR_DOMAIN_START_AUTODESTROY);
	buf_release(&xml);
	if (!d) {
		const char *e = virGetLastErrorMessage();

		snprintf(why, n, "a %s guest does not start: %.100s", label, e ? e : "?");
		virResetLastError();
		return 0;
	}
	deadline = mono_ms() + timeout_ms;
	for (;;) {
		if (virDomainGetState(d, &state, &reason, 0) < 0 || state == VIR_DOMAIN_SHUTOFF) {
			rc = 1;      /* gone: a transient domain that powered off */
			break;
		}
		if (mono_ms() >= deadline) {
			const char *base = strrchr(kernel, '/');

			snprintf(why, n, "a %s guest starts but does not boot: %.40s did not "
				 "power off within %d s", label, base ? base + 1 : kernel,
				 timeout_ms / 1000);
			break;
		}
		if (stop && __atomic_load_n(stop, __ATOMIC_RELAXED)) {
			snprintf(why, n, "the daemon stopped before the %s guest booted", label);
			rc = -1;
			break;
		}
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
	virResetLastError();
	if (rc != 1)
		virDomainDestroy(d);
	virResetLastError();
	virDomainFree(d);
	return rc;
}

int kvmprobe_boot(virConnectPtr conn, const char *type, const char *kernel, const char *initrd,
		  int timeout_ms, const int *stop, char *why, size_t n)
{
	return boot(conn, type, type, 0, kernel, initrd, timeout_ms, stop, why, n);
}

/* The newest x86_64 kernel image in /boot ("vmlinuz-*"), caller frees; NULL
 * when there is none */
static char *probe_kernel(void)
{
	DIR *dir = opendir("/boot");
	struct dirent *e;
	char *best = NULL;

	while (dir && (e = readdir(dir))) {
		char *p, *err = NULL;

		if (strncmp(e->d_name, "vmlinuz-", 8) || (best && strverscmp(e->d_name, best) <= 0))
			continue;
		p = path_join("/boot", e->d_name);
		if (p && kimage_check(p, "x86_64", &err) == 0) {
			free(best);
			best = strdup(e->d_name);
		}
		free(err);
		free(p);
	}
	if (dir)
		closedir(dir);
	if (best) {
		char *p = path_join("/boot", best);

		free(best);
		return p;
	}
	return NULL;
}

/* The cache file of this host's answer for kernel (its SHA-256), caller
 * frees */
static char *cache_path(const struct orch *o, struct host *h, const char *ksum)
{
	unsigned long qv = 0, lv = 0;
	char key[65], *text = NULL, *dir, *p;

	virConnectGetVersion(h->conn, &qv);
	virConnectGetLibVersion(h->conn, &lv);
	virResetLastError();
	if (asprintf(&text, "%s\n%lu\n%lu\n%s\n", h->conf->uri, qv, lv, ksum) < 0)
		return NULL;
	sha256_mem(text, strlen(text), key);
	free(text);
	dir = path_join(o->cache_dir, "kvm-probe");
	if (!dir || (mkdir(dir, 0755) < 0 && errno != EEXIST)) {
		free(dir);
		return NULL;
	}
	key[32] = '\0';
	p = path_join(dir, key);
	free(dir);
	return p;
}

/* A kept answer: 1 booted, 0 did not (why filled), -1 none or stale */
static int cache_read(const char *path, char *why, size_t n)
{
	struct buf b = BUF_INIT(512);
	struct stat st;
	int rc = -1;

	if (!path || stat(path, &st) < 0 || read_file(path, &b, 400) < 0)
		goto out;
	if (!strncmp(buf_str(&b), "boots\n", 6))
		rc = 1;
	else if (!strncmp(buf_str(&b), "fails ", 6) && time(NULL) - st.st_mtime < PROBE_FAIL_KEEP) {
		snprintf(why, n, "%.*s (kept from an earlier probe)",
			 (int)strcspn(buf_str(&b) + 6, "\n"), buf_str(&b) + 6);
		rc = 0;
	}
out:
	buf_release(&b);
	return rc;
}

/* The kernel and the initrd as paths on h, which conn reaches: the files
 * themselves, or volumes in its pool. 0 / -1 with why. */
static int probe_files(struct orch *o, struct host *h, virConnectPtr conn, const char *kernel,
		       const char *ksum, char **kpath, char **ipath, char *why, size_t n)
{
	char *base, *err = NULL, *name = NULL, isum[65];
	int rc = -1;

	base = img_base_initramfs(o->conf->busybox, o->agent_x86_64, o->cache_dir, &err);
	if (!base) {
		snprintf(why, n, "no initramfs to probe KVM with: %.100s", err ? err : "?");
		goto out;
	}
	if (!h->upload) {
		*kpath = strdup(kernel);
		*ipath = base;
		base = NULL;
		rc = *kpath ? 0 : -1;
		goto out;
	}
	if (sha256_file(base, isum) < 0 || asprintf(&name, "kernel-%s", ksum) < 0)
		goto out;
	*kpath = vol_upload(conn, h->conf->pool, name, kernel, PROBE_UPLOAD_S, &err);
	free(name);
	name = NULL;
	isum[16] = '\0';
	if (*kpath && asprintf(&name, "kvm-probe-initrd-%s", isum) >= 0)
		*ipath = vol_upload(conn, h->conf->pool, name, base, PROBE_UPLOAD_S, &err);
	if (!*kpath || !*ipath)
		snprintf(why, n, "the KVM probe's files do not reach the host: %.100s",
			 err ? err : "?");
	else
		rc = 0;
out:
	free(name);
	free(err);
	free(base);
	return rc;
}

/* One probe of a host: what the thread runs, or the caller when no thread
 * starts. Owns kernel and cache. */
struct probe {
	struct orch *o;
	struct host *h;
	char *kernel;
	char *cache;       /* the answer's file, NULL when it cannot be kept */
	char ksum[65];
	char why[160];
	int rc;            /* 1 boots, 0 does not */
};

static void probe_release(struct probe *p)
{
	free(p->kernel);
	free(p->cache);
	free(p);
}

/* Uploads and boots on conn; p->rc and p->why */
static void probe_run(struct probe *p, virConnectPtr conn)
{
	struct host *h = p->h;
	char *kpath = NULL, *ipath = NULL;
	int64_t t0 = mono_ms();
	int seam = kvmprobe_seam(), rc;

	p->rc = 0;
	if (probe_files(p->o, h, conn, p->kernel, p->ksum, &kpath, &ipath, p->why,
			sizeof(p->why)) < 0)
		goto out;
	rc = boot(conn, seam ? "qemu" : "kvm", "kvm", seam, kpath, ipath, PROBE_BOOT_MS,
		  &p->o->stopping, p->why, sizeof(p->why));
	if (rc < 0)
		goto out;  /* not tried: nothing learnt to keep */
	p->rc = rc;
	log_info("host '%s': KVM probe: %s in %lld ms", h->conf->name,
		 rc ? "a guest booted" : p->why, (long long)(mono_ms() - t0));
	if (p->cache) {
		char line[256];

		snprintf(line, sizeof(line), rc ? "boots\n" : "fails %s\n", p->why);
		if (write_file(p->cache, line, strlen(line), 0644) < 0)
			log_warn("kvm probe: cannot keep the answer in '%s': %s", p->cache,
				 strerror(errno));
	}
out:
	free(kpath);
	free(ipath);
}

/* The probe thread: a connection of its own (the host's may be made again
 * while it runs), the answer settled into the host and the database */
static void *probe_main(void *arg)
{
	struct probe *p = arg;
	struct host *h = p->h;
	virConnectPtr conn = virConnectOpen(h->conf->uri);
	struct db *db;
	char *err = NULL;

	if (!conn) {
		char *e = guest_last_error();

		snprintf(p->why, sizeof(p->why), "the KVM probe cannot reach the host: %.100s",
			 e ? e : "?");
		free(e);
		p->rc = 0;
	} else {
		probe_run(p, conn);
	}
	guest_accel_settle(p->o, h, conn, p->rc, p->why);
	if (conn)
		virConnectClose(conn);
	log_info("host '%s': x86_64 %s (%s), max %d vCPUs; in placement", h->conf->name,
		 h->accel, h->why_accel, h->max_vcpus);
	db = db_open(p->o->db_path, &err);
	if (!db || db_host_upsert(db, h->conf->name, h->conf->uri, h->accel, h->qemu_version,
				  h->libvirt_version, h->max_vcpus, h->memory_kb) < 0)
		log_warn("host '%s': cannot record its accel: %s", h->conf->name,
			 db ? db_errmsg(db) : err ? err : "?");
	db_close(db);
	free(err);
	probe_release(p);
	return NULL;
}

int kvmprobe_host(struct orch *o, struct host *h, char *why, size_t n)
{
	struct probe *p;
	int rc;

	if (__atomic_load_n(&h->probing, __ATOMIC_ACQUIRE))
		return 2;  /* made again while its probe runs */
	p = calloc(1, sizeof(*p));
	if (!p) {
		snprintf(why, n, "out of memory for the KVM probe");
		return 0;
	}
	p->o = o;
	p->h = h;
	p->kernel = probe_kernel();
	if (!p->kernel) {
		snprintf(why, n, "a KVM guest starts, but /boot has no x86_64 kernel to prove "
			 "that one boots");
		probe_release(p);
		return 0;
	}
	if (sha256_file(p->kernel, p->ksum) < 0) {
		snprintf(why, n, "kernel '%s': %s", p->kernel, strerror(errno));
		probe_release(p);
		return 0;
	}
	p->cache = cache_path(o, h, p->ksum);
	rc = cache_read(p->cache, why, n);
	if (rc >= 0) {
		probe_release(p);
		return rc;
	}
	if (h->probe_started) {
		pthread_join(h->probe_thread, NULL);  /* ended: probing is 0 */
		h->probe_started = 0;
	}
	__atomic_store_n(&h->probing, 1, __ATOMIC_RELEASE);
	if (pthread_create(&h->probe_thread, NULL, probe_main, p) == 0) {
		h->probe_started = 1;
		snprintf(why, n, "booting a kernel under KVM to see that it boots");
		return 2;
	}
	__atomic_store_n(&h->probing, 0, __ATOMIC_RELEASE);
	probe_run(p, h->conn);
	rc = p->rc;
	snprintf(why, n, "%s", p->why);
	probe_release(p);
	return rc;
}

void kvmprobe_join(struct host *h)
{
	if (h->probe_started)
		pthread_join(h->probe_thread, NULL);
	h->probe_started = 0;
}

void guest_accel_settle(struct orch *o, struct host *h, virConnectPtr conn, int boots,
			const char *why)
{
	char *caps = conn ? virConnectGetDomainCapabilities(conn, NULL, "x86_64", "q35",
							    boots ? "kvm" : "qemu", 0) : NULL;
	int max = caps ? guest_caps_max_vcpus(caps) : 0;

	free(caps);
	virResetLastError();
	pthread_mutex_lock(&o->lock);
	snprintf(h->accel, sizeof(h->accel), "%s", boots ? "kvm" : "tcg");
	snprintf(h->why_accel, sizeof(h->why_accel), "%s",
		 boots ? "libvirt and the CPU support kvm, and a KVM guest boots" : why);
	if (max > 0)
		h->max_vcpus = max;
	__atomic_store_n(&h->probing, 0, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&o->work);
	pthread_mutex_unlock(&o->lock);
}
