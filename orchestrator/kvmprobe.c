/* kvmprobe.c: whether KVM really boots guests on a host. A paused KVM guest
 * that starts (guest.c) is not proof: on some machines SeaBIOS runs under
 * KVM and Linux then hangs as it leaves real mode ("Probing EDD"). So before
 * a host's x86_64 runs get KVM, a tiny guest boots under it: a kernel of the
 * daemon's machine (/boot) with the base initramfs, its init busybox's
 * `poweroff -f`, bounded in time. The answer is kept under the cache
 * directory per host URI, QEMU and libvirt version and kernel. */
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

int kvmprobe_boot(virConnectPtr conn, const char *type, const char *kernel, const char *initrd,
		  int timeout_ms, char *why, size_t n)
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
	buf_printf(&xml, "console=ttyS0 quiet rdinit=/bin/busybox -- poweroff -f"
		   "</cmdline></os><features><acpi/></features>%s"
		   "<on_poweroff>destroy</on_poweroff><on_reboot>restart</on_reboot>"
		   "<on_crash>destroy</on_crash><devices><controller type='usb' model='none'/>"
		   "<memballoon model='none'/></devices></domain>",
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

		snprintf(why, n, "a %s guest does not start: %.100s", type, e ? e : "?");
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
			snprintf(why, n, "a %s guest starts but does not boot: %s did not power "
				 "off within %d s", type, kernel, timeout_ms / 1000);
			break;
		}
		struct timespec ts = { 0, 100 * 1000000L };
		nanosleep(&ts, NULL);
	}
	virResetLastError();
	if (!rc)
		virDomainDestroy(d);
	virResetLastError();
	virDomainFree(d);
	return rc;
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

/* The kernel and the initrd as paths on h: the files themselves, or
 * volumes in its pool. 0 / -1 with why. */
static int probe_files(struct orch *o, struct host *h, const char *kernel, const char *ksum,
		       char **kpath, char **ipath, char *why, size_t n)
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
	*kpath = vol_upload(h->conn, h->conf->pool, name, kernel, PROBE_UPLOAD_S, &err);
	free(name);
	name = NULL;
	isum[16] = '\0';
	if (*kpath && asprintf(&name, "kvm-probe-initrd-%s", isum) >= 0)
		*ipath = vol_upload(h->conn, h->conf->pool, name, base, PROBE_UPLOAD_S, &err);
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

int kvmprobe_host(struct orch *o, struct host *h, char *why, size_t n)
{
	char *kernel = probe_kernel(), *cache = NULL, *kpath = NULL, *ipath = NULL, ksum[65];
	int rc = 0;
	int64_t t0 = mono_ms();

	if (!kernel) {
		snprintf(why, n, "a KVM guest starts, but /boot has no x86_64 kernel to prove "
			 "that one boots");
		return 0;
	}
	if (sha256_file(kernel, ksum) < 0) {
		snprintf(why, n, "kernel '%s': %s", kernel, strerror(errno));
		goto out;
	}
	cache = cache_path(o, h, ksum);
	rc = cache_read(cache, why, n);
	if (rc >= 0)
		goto out;
	rc = 0;
	if (probe_files(o, h, kernel, ksum, &kpath, &ipath, why, n) < 0)
		goto out;
	rc = kvmprobe_boot(h->conn, "kvm", kpath, ipath, PROBE_BOOT_MS, why, n);
	if (rc < 0) {
		rc = 0;
		goto out;  /* not tried: nothing learnt to keep */
	}
	log_info("host '%s': KVM probe: %s in %lld ms", h->conf->name,
		 rc ? "a guest booted" : why, (long long)(mono_ms() - t0));
	if (cache) {
		char line[256];

		snprintf(line, sizeof(line), rc ? "boots\n" : "fails %s\n", why);
		if (write_file(cache, line, strlen(line), 0644) < 0)
			log_warn("kvm probe: cannot keep the answer in '%s': %s", cache,
				 strerror(errno));
	}
out:
	free(kpath);
	free(ipath);
	free(cache);
	free(kernel);
	return rc;
}
