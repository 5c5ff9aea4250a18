// SPDX-License-Identifier: GPL-2.0-only
/* guest.c: kfleet's side of libvirt. It writes the domain XML for a run
 * (direct kernel boot, the run's initrd, console and agent channel to files),
 * connects to each configured host, tells KVM from TCG, and follows domain
 * lifecycle events so workers learn at once when their guest stopped. */
#include "orchestrator/orchint.h"

#include <fcntl.h>
#include <libvirt/virterror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/util.h"
#include "images/images.h"
#include "orchestrator/quietint.h"
#include "orchestrator/volumes.h"

static void xml_text(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': buf_puts(b, "&amp;"); break;
		case '<': buf_puts(b, "&lt;"); break;
		case '>': buf_puts(b, "&gt;"); break;
		case '\'': buf_puts(b, "&apos;"); break;
		case '"': buf_puts(b, "&quot;"); break;
		default: buf_append(b, s, 1);
		}
	}
}

static const char *domain_type(const char *accel)
{
	if (!strcmp(accel, "kvm"))
		return "kvm";
	if (!strcmp(accel, "test"))
		return "test";
	return "qemu";
}

/* A serial port written to a file on the host, or (path NULL) a pty that
 * kfleetd reads through virDomainOpenConsole() */
static void xml_serial(struct buf *b, const char *path, int port)
{
	if (!path) {
		buf_printf(b, "    <serial type='pty'>\n      <target port='%d'/>\n    </serial>\n",
			   port);
		return;
	}
	buf_puts(b, "    <serial type='file'>\n      <source path='");
	xml_text(b, path);
	buf_printf(b, "'/>\n      <target port='%d'/>\n    </serial>\n", port);
}

/* The <cpu> element: the model (host under KVM, cortex-a57 for arm64
 * under TCG, QEMU's default for x86_64 under TCG), then the topology and
 * NUMA cells when the run asks for them. */
static void xml_cpu(struct buf *b, const struct guest_spec *s, int arm)
{
	int kvm = !strcmp(s->accel, "kvm"), numa = s->numa_nodes > 1, topo = s->sockets > 0;

	if (!kvm && !arm && !numa && !topo)
		return;
	if (kvm)
		buf_puts(b, "  <cpu mode='host-passthrough'");
	else if (arm)
		buf_puts(b, "  <cpu mode='custom' match='exact'");
	else
		buf_puts(b, "  <cpu");
	if (!arm && !numa && !topo) {
		buf_puts(b, "/>\n");
		return;
	}
	buf_puts(b, ">\n");
	if (arm && !kvm)
		buf_puts(b, "    <model fallback='forbid'>cortex-a57</model>\n");
	if (topo)
		buf_printf(b, "    <topology sockets='%d' dies='1' cores='%d' threads='%d'/>\n",
			   s->sockets, s->cores, s->threads);
	if (numa) {
		int per = s->vcpus / s->numa_nodes;

		buf_puts(b, "    <numa>\n");
		for (int i = 0; i < s->numa_nodes; i++)
			buf_printf(b, "      <cell id='%d' cpus='%d-%d' memory='%d' unit='MiB'/>\n", i,
				   i * per, (i + 1) * per - 1, s->memory_mb / s->numa_nodes);
		buf_puts(b, "    </numa>\n");
	}
	buf_puts(b, "  </cpu>\n");
}

/* A pinned guest's <cputune>: each vCPU on a core of its own, the
 * emulator threads (QEMU's main loop, I/O) on the same cores, so nothing
 * of it runs where another guest or a build does; an unpinned guest's
 * vCPUs and emulator are kept to the cores no pinned guest has (the
 * <vcpu cpuset> attribute, written by the caller) */
static void xml_cputune(struct buf *b, const struct guest_spec *s)
{
	if (s->npin <= 0 || !s->pin)
		return;
	buf_puts(b, "  <cputune>\n");
	for (int i = 0; i < s->vcpus; i++)
		buf_printf(b, "    <vcpupin vcpu='%d' cpuset='%d'/>\n", i, s->pin[i % s->npin]);
	buf_puts(b, "    <emulatorpin cpuset='");
	for (int i = 0; i < s->npin; i++) {
		int j = i;

		while (j + 1 < s->npin && s->pin[j + 1] == s->pin[j] + 1)
			j++;
		if (j == i)
			buf_printf(b, "%s%d", i ? "," : "", s->pin[i]);
		else
			buf_printf(b, "%s%d-%d", i ? "," : "", s->pin[i], s->pin[j]);
		i = j;
	}
	buf_puts(b, "'/>\n  </cputune>\n");
}

static void xml_vcpu(struct buf *b, const struct guest_spec *s)
{
	if (s->npin <= 0 && s->cpuset && *s->cpuset) {
		buf_puts(b, "  <vcpu placement='static' cpuset='");
		xml_text(b, s->cpuset);
		buf_printf(b, "'>%d</vcpu>\n", s->vcpus);
	} else {
		buf_printf(b, "  <vcpu>%d</vcpu>\n", s->vcpus);
	}
	xml_cputune(b, s);
}

/* The PCI slots of the virtio devices, on the root bus (pcie.0) as bare
 * QEMU's -device puts them. Without an address libvirt puts each behind
 * a pcie-root-port of its own and adds one spare port for hotplug: two
 * or three bridges the guest kernel probes (pcieport, PME, AER, hotplug)
 * at every boot and no job uses. Slot 1 is left to libvirt (video on
 * q35), 0x1f is q35's LPC/SATA/SMBus. */
enum { XML_SLOT_SERIAL = 2, XML_SLOT_DISK = 3 };

static void xml_root_bus_slot(struct buf *b, int slot)
{
	buf_printf(b, "      <address type='pci' domain='0x0000' bus='0x00' slot='0x%02x'"
		   " function='0x0'/>\n", slot);
}

/* x86_64: q35 with ACPI (poweroff -f needs it); arm64: virt with GICv3
 * (GICv2 stops at 8 vCPUs) and, under TCG, cortex-a57 (emulating "max"
 * with pointer authentication is about 3x slower). Both boot the kernel
 * directly, with no firmware of their own. */
int guest_domain_xml(const struct guest_spec *s, struct buf *b)
{
	int arm = !strcmp(s->arch, "arm64");

	if (!arm && strcmp(s->arch, "x86_64"))
		return -1;
	buf_printf(b, "<domain type='%s'>\n  <name>", domain_type(s->accel));
	xml_text(b, s->name);
	buf_printf(b, "</name>\n"
		   "  <metadata>\n"
		   "    <kfleet:run xmlns:kfleet='https://kfleet.invalid/xmlns/run/1'"
		   " id='%lld' attempt='%d'/>\n"
		   "  </metadata>\n"
		   "  <memory unit='MiB'>%d</memory>\n", (long long)s->run_id, s->attempt,
		   s->memory_mb);
	xml_vcpu(b, s);
	buf_printf(b, "  <os>\n"
		   "    <type arch='%s' machine='%s'>hvm</type>\n", arm ? "aarch64" : "x86_64",
		   arm ? "virt" : "q35");
	if (!arm && s->bios) {
		buf_puts(b, "    <loader readonly='yes' type='rom'>");
		xml_text(b, s->bios);
		buf_puts(b, "</loader>\n");
	}
	buf_puts(b, "    <kernel>");
	xml_text(b, s->kernel);
	buf_puts(b, "</kernel>\n    <initrd>");
	xml_text(b, s->initrd);
	/* panic=-1: a panicking kernel reboots at once, and on_reboot ends the
	 * domain; the console says it was a panic. no_timer_check under TCG:
	 * on a loaded host the emulated timer can miss the kernel's early
	 * check of its IRQ, which then panics ("IO-APIC + timer doesn't
	 * work!") before the guest has run anything. */
	buf_printf(b, "</initrd>\n    <cmdline>console=%s panic=-1 rdinit=/init%s",
		   arm ? "ttyAMA0" : "ttyS0,115200",
		   !arm && !strcmp(s->accel, "tcg") ? " no_timer_check" : "");
	if (s->fast)
		buf_puts(b, arm ? " " GUEST_FAST_ARGS : " " GUEST_FAST_ARGS_X86);
	if (s->cmdline && *s->cmdline) {
		buf_puts(b, " ");
		xml_text(b, s->cmdline);
	}
	buf_puts(b, "</cmdline>\n  </os>\n");
	if (arm)
		buf_puts(b, "  <features>\n    <gic version='3'/>\n  </features>\n");
	else
		buf_puts(b, "  <features>\n    <acpi/>\n  </features>\n");
	xml_cpu(b, s, arm);
	buf_puts(b, "  <clock offset='utc'/>\n"
		 "  <on_poweroff>destroy</on_poweroff>\n"
		 "  <on_reboot>destroy</on_reboot>\n"
		 "  <on_crash>destroy</on_crash>\n"
		 "  <devices>\n");
	if (s->emulator) {
		buf_puts(b, "    <emulator>");
		xml_text(b, s->emulator);
		buf_puts(b, "</emulator>\n");
	}
	if (s->disk) {
		buf_puts(b, "    <disk type='file' device='disk'>\n"
			 "      <driver name='qemu' type='qcow2'/>\n      <source file='");
		xml_text(b, s->disk);
		buf_puts(b, "'/>\n      <target dev='vda' bus='virtio'/>\n");
		xml_root_bus_slot(b, XML_SLOT_DISK);
		buf_puts(b, "    </disk>\n");
	}
	if (s->virtio) {
		buf_puts(b, "    <controller type='virtio-serial' index='0'>\n");
		xml_root_bus_slot(b, XML_SLOT_SERIAL);
		buf_puts(b, "    </controller>\n");
	}
	xml_serial(b, s->streams ? NULL : s->console, 0);
	if (s->virtio && s->streams) {
		/* libvirt picks the socket's path on the host; kfleetd reads the
		 * port through virDomainOpenChannel() */
		buf_puts(b, "    <channel type='unix'>\n      <source mode='bind'/>\n"
			 "      <target type='virtio' name='" IMG_VIRTIO_PORT "'/>\n"
			 "    </channel>\n");
	} else if (s->virtio) {
		buf_puts(b, "    <channel type='unix'>\n      <source mode='bind' path='");
		xml_text(b, s->socket);
		buf_puts(b, "'/>\n      <target type='virtio' name='" IMG_VIRTIO_PORT "'/>\n"
			 "    </channel>\n");
	} else {
		xml_serial(b, s->streams ? NULL : s->channel, 1);
	}
	if (!arm)
		buf_puts(b, "    <controller type='usb' model='none'/>\n");
	if (s->pvpanic)
		buf_puts(b, "    <panic model='isa'/>\n");
	buf_puts(b, "    <memballoon model='none'/>\n"
		 "  </devices>\n"
		 "</domain>\n");
	return b->truncated ? -1 : 0;
}

/* --- lifecycle events ---------------------------------------------------- */

static int lifecycle_cb(virConnectPtr conn, virDomainPtr dom, int event, int detail,
			void *opaque)
{
	struct orch *o = opaque;
	const char *name = virDomainGetName(dom);

	if (!name || (event != VIR_DOMAIN_EVENT_STOPPED && event != VIR_DOMAIN_EVENT_CRASHED &&
		      event != VIR_DOMAIN_EVENT_SHUTDOWN))
		return 0;
	pthread_mutex_lock(&o->lock);
	for (struct watch *w = o->watches; w; w = w->next) {
		if (strcmp(w->name, name) || (w->host && w->host->conn != conn))
			continue;
		/* a detail means something only with its event: a SHUTDOWN's
		 * HOST (QEMU killed by libvirt) is STOPPED's CRASHED's number */
		if (event == VIR_DOMAIN_EVENT_CRASHED || (event == VIR_DOMAIN_EVENT_STOPPED &&
		    detail == VIR_DOMAIN_EVENT_STOPPED_CRASHED))
			w->crashed = 1;
		if (event == VIR_DOMAIN_EVENT_STOPPED) {
			w->stopped = 1;
			w->detail = detail;
		}
		/* the guest powered itself off, not a kill from the host */
		if (event == VIR_DOMAIN_EVENT_SHUTDOWN && detail != VIR_DOMAIN_EVENT_SHUTDOWN_HOST)
			w->powered_off = 1;
	}
	pthread_cond_broadcast(&o->events);
	pthread_mutex_unlock(&o->lock);
	return 0;
}

void watch_add(struct orch *o, struct watch *w)
{
	pthread_mutex_lock(&o->lock);
	w->next = o->watches;
	o->watches = w;
	pthread_mutex_unlock(&o->lock);
}

void watch_remove(struct orch *o, struct watch *w)
{
	pthread_mutex_lock(&o->lock);
	for (struct watch **p = &o->watches; *p; p = &(*p)->next) {
		if (*p == w) {
			*p = w->next;
			break;
		}
	}
	pthread_mutex_unlock(&o->lock);
}

static void wait_for(struct orch *o, struct watch *w, int ms, int off)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&o->lock);
	if (!w->stopped && !(off && w->powered_off) && !o->stopping)
		pthread_cond_timedwait(&o->events, &o->lock, &ts);
	pthread_mutex_unlock(&o->lock);
}

void watch_wait(struct orch *o, struct watch *w, int ms)
{
	wait_for(o, w, ms, 0);
}

void watch_wait_off(struct orch *o, struct watch *w, int ms)
{
	wait_for(o, w, ms, 1);
}

/* --- hosts --------------------------------------------------------------- */

static void version_str(unsigned long v, char *out, size_t n)
{
	snprintf(out, n, "%lu.%lu.%lu", v / 1000000, v / 1000 % 1000, v % 1000);
}

/* "qemu+ssh://h/system" names a host; "qemu:///system" and "test:///default"
 * are this machine */
static int uri_has_host(const char *uri)
{
	const char *p = strstr(uri, "://");

	return p && p[3] && p[3] != '/';
}

static int caps_max_vcpus(const char *caps)
{
	return guest_caps_max_vcpus(caps);
}

/* libvirt saying it has KVM is not enough: on some machines /dev/kvm is
 * there and QEMU dies as it sets up the vCPU ("failed to set MSR"). So a
 * paused, disk-less guest with the CPU runs get (host-passthrough) is
 * started under KVM and destroyed at once (a second at most); 1 when it
 * started, else 0 with why. This is also the only look at KVM a remote
 * host gets: its /proc/cpuinfo is out of reach. */
static int kvm_probe(struct host *h, char *why, size_t n)
{
	static int seq;
	char xml[512];
	virDomainPtr d;
	char *e;

	if (kvmprobe_seam())
		return 1;   /* starts, as it does where KVM boots no kernel */
	snprintf(xml, sizeof(xml),
		 "<domain type='kvm'><name>kfleet-kvm-probe-%d-%d</name>"
		 "<memory unit='MiB'>64</memory><vcpu>1</vcpu>"
		 "<os><type arch='x86_64' machine='q35'>hvm</type></os><cpu mode='host-passthrough'/>"
		 "<devices><controller type='usb' model='none'/><memballoon model='none'/>"
		 "</devices></domain>", (int)getpid(), __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	d = virDomainCreateXML(h->conn, xml, VIR_DOMAIN_START_PAUSED | VIR_DOMAIN_START_AUTODESTROY);
	if (d) {
		virDomainDestroy(d);
		virDomainFree(d);
		return 1;
	}
	e = guest_last_error();
	/* QEMU's complaint is the part that says why; keep the line short */
	/* QEMU's own "error: ..." on the first line says why, after libvirt's
	 * "internal error:" and a time stamp */
	if (e) {
		char *p = e, *q;

		e[strcspn(e, "\n")] = '\0';
		while ((q = strstr(p, "error: ")))
			p = q + 7;
		snprintf(why, n, "libvirt has kvm, but a KVM guest does not start: %.100s", p);
	} else {
		snprintf(why, n, "libvirt has kvm, but a KVM guest does not start");
	}
	free(e);
	virResetLastError();
	return 0;
}

static int choose_accel(struct orch *o, struct host *h)
{
	const char *want = h->conf->accel;
	const char *type = virConnectGetType(h->conn);
	char *caps;
	int kvm_caps, boots = 0;

	if (type && !strcmp(type, "TEST")) {
		snprintf(h->accel, sizeof(h->accel), "test");
		snprintf(h->why_accel, sizeof(h->why_accel), "libvirt test driver");
		caps = NULL;
		h->max_vcpus = virConnectGetMaxVcpus(h->conn, NULL);
		return 0;
	}
	caps = virConnectGetDomainCapabilities(h->conn, NULL, "x86_64", "q35", "kvm", 0);
	kvm_caps = caps != NULL || kvmprobe_seam();
	if (!caps && kvm_caps) {
		/* the tests' KVM on a machine with no /dev/kvm: TCG's limit
		 * until the probe answers, so runs queued meanwhile are taken */
		virResetLastError();
		caps = virConnectGetDomainCapabilities(h->conn, NULL, "x86_64", "q35", "qemu", 0);
	}
	if (caps)
		h->max_vcpus = caps_max_vcpus(caps);
	free(caps);
	virResetLastError();
	if (!strcmp(want, "auto") && kvm_caps &&
	    (uri_has_host(h->conf->uri) || kvm_usable_here(h->why_accel, sizeof(h->why_accel))) &&
	    kvm_probe(h, h->why_accel, sizeof(h->why_accel))) {
		boots = kvmprobe_host(o, h, h->why_accel, sizeof(h->why_accel));
		if (boots == 2) {
			/* out of placement until its probe answers */
			snprintf(h->accel, sizeof(h->accel), "probing");
			return 0;
		}
	}
	if (!strcmp(want, "tcg") || (!strcmp(want, "auto") && !boots)) {
		snprintf(h->accel, sizeof(h->accel), "tcg");
		if (!strcmp(want, "tcg"))
			snprintf(h->why_accel, sizeof(h->why_accel), "accel = tcg in the config");
		else if (!kvm_caps)
			snprintf(h->why_accel, sizeof(h->why_accel), "libvirt reports no kvm");
		virResetLastError();
		caps = virConnectGetDomainCapabilities(h->conn, NULL, "x86_64", "q35", "qemu", 0);
		if (!caps)
			return -1;
		h->max_vcpus = caps_max_vcpus(caps);
		free(caps);
		return 0;
	}
	if (!kvm_caps)
		return -1;   /* accel = kvm but libvirt has none */
	snprintf(h->accel, sizeof(h->accel), "kvm");
	snprintf(h->why_accel, sizeof(h->why_accel), "libvirt and the CPU support kvm%s",
		 strcmp(want, "auto") ? "" : ", and a KVM guest boots");
	return 0;
}

/* arm64 guests run wherever QEMU has an aarch64 "virt" machine: under TCG
 * on other hosts (KVM would need an arm64 host, not handled yet). */
static void choose_arm64(struct host *h)
{
	const char *type = virConnectGetType(h->conn);
	char *caps;

	h->accel_arm64[0] = '\0';
	h->max_vcpus_arm64 = 0;
	if (type && !strcmp(type, "TEST"))
		return;
	caps = virConnectGetDomainCapabilities(h->conn, NULL, "aarch64", "virt", "qemu", 0);
	if (!caps) {
		virResetLastError();
		return;
	}
	h->max_vcpus_arm64 = caps_max_vcpus(caps);
	snprintf(h->accel_arm64, sizeof(h->accel_arm64), "tcg");
	free(caps);
}

/* The host CPU's model from libvirt's capabilities (<host><cpu><model>),
 * which a KVM guest's host-passthrough CPU is */
static void host_cpu_model(struct host *h)
{
	char *caps = virConnectGetCapabilities(h->conn);
	const char *p = caps ? strstr(caps, "<host>") : NULL, *end;

	h->cpu_model[0] = '\0';
	p = p ? strstr(p, "<model>") : NULL;
	end = p ? strstr(p, "</model>") : NULL;
	if (p && end && end - p - 7 < (long)sizeof(h->cpu_model))
		snprintf(h->cpu_model, sizeof(h->cpu_model), "%.*s", (int)(end - p - 7), p + 7);
	free(caps);
	virResetLastError();
}

void guest_boot_setup(const struct guest_spec *s, char *out, size_t n)
{
	const char *args = s->cmdline && *s->cmdline ? s->cmdline : NULL;

	if (!s->fast)
		snprintf(out, n, "default%s%s", args ? "; args: " : "", args ? args : "");
	else
		snprintf(out, n, "fast: %s%s%s%s%s", s->bios ? "qboot " : "", s->pvh ? "pvh " : "",
			 strcmp(s->arch, "arm64") ? GUEST_FAST_ARGS_X86 : GUEST_FAST_ARGS,
			 args ? "; args: " : "", args ? args : "");
}

/* The CPU model a guest of this spec gets: what guest_domain_xml() asks
 * for, and QEMU's default where it asks nothing */
void guest_cpu_model(const struct host *h, const struct guest_spec *s, char *out, size_t n)
{
	if (!strcmp(s->accel, "kvm"))
		snprintf(out, n, "host-passthrough%s%s%s", h->cpu_model[0] ? " (" : "",
			 h->cpu_model, h->cpu_model[0] ? ")" : "");
	else if (!strcmp(s->arch, "arm64"))
		snprintf(out, n, "cortex-a57");
	else if (!strcmp(s->accel, "test"))
		snprintf(out, n, "test");
	else
		snprintf(out, n, "qemu64");
}

int guest_host_setup(struct orch *o, struct host *h, virConnectPtr conn, char **err)
{
	unsigned long v = 0;
	virNodeInfo ni;

	*err = NULL;
	h->conn = conn;
	virConnectSetKeepAlive(h->conn, 5, 3);
	h->upload = !strcmp(h->conf->transfer, "upload") ||
		    (!strcmp(h->conf->transfer, "auto") && uri_has_host(h->conf->uri));
	if (h->upload && vol_pool_ensure(h->conn, h->conf->pool, h->conf->pool_path, err) < 0) {
		char *e = *err;

		if (asprintf(err, "host '%s' (%s): %s", h->conf->name, h->conf->uri,
			     e ? e : "?") < 0)
			*err = NULL;
		free(e);
		guest_host_disconnect(h);
		return -1;
	}
	choose_arm64(h);
	if (choose_accel(o, h) < 0) {
		char *e = guest_last_error();

		if (asprintf(err, "host '%s' (%s): cannot use accel '%s': %s", h->conf->name,
			     h->conf->uri, h->conf->accel, e) < 0)
			*err = NULL;
		free(e);
		guest_host_disconnect(h);
		return -1;
	}
	if (virConnectGetVersion(h->conn, &v) == 0)
		version_str(v, h->qemu_version, sizeof(h->qemu_version));
	if (virConnectGetLibVersion(h->conn, &v) == 0)
		version_str(v, h->libvirt_version, sizeof(h->libvirt_version));
	if (virNodeGetInfo(h->conn, &ni) == 0) {
		h->memory_kb = (int64_t)ni.memory;
		h->cpus = (int)ni.cpus;
	}
	if (h->max_vcpus <= 0)
		h->max_vcpus = 1;
	host_cpu_model(h);
	{
		/* the machine: its hostname and libvirt's host UUID, as machines
		 * cloned from one image often share a name (two host entries of
		 * one libvirtd share both: their cores are one machine's) */
		char *hn = virConnectGetHostname(h->conn), *caps = virConnectGetCapabilities(h->conn);
		const char *host = caps ? strstr(caps, "<host>") : NULL;
		const char *u = host ? strstr(host, "<uuid>") : NULL, *ue = u ? strstr(u, "</uuid>") : NULL;

		if (u && ue && ue - u - 6 > 0 && ue - u - 6 < 64)
			snprintf(h->machine, sizeof(h->machine), "%.60s %.*s", hn ? hn : h->conf->uri,
				 (int)(ue - u - 6), u + 6);
		else
			snprintf(h->machine, sizeof(h->machine), "%s", hn ? hn : h->conf->uri);
		free(hn);
		free(caps);
		virResetLastError();
	}
	h->callback_id = virConnectDomainEventRegisterAny(h->conn, NULL,
		VIR_DOMAIN_EVENT_ID_LIFECYCLE, VIR_DOMAIN_EVENT_CALLBACK(lifecycle_cb), o, NULL);
	if (h->callback_id < 0)
		goto fail;
	return 0;
fail:
	{
		char *e = guest_last_error();

		if (asprintf(err, "host '%s' (%s): %s", h->conf->name, h->conf->uri, e) < 0)
			*err = NULL;
		free(e);
	}
	guest_host_disconnect(h);
	return -1;
}

void guest_host_disconnect(struct host *h)
{
	if (!h->conn)
		return;
	if (h->callback_id >= 0)
		virConnectDomainEventDeregisterAny(h->conn, h->callback_id);
	h->callback_id = -1;
	virConnectClose(h->conn);
	h->conn = NULL;
}

int guest_destroy_name(struct host *h, const char *name)
{
	virDomainPtr d;
	int rc = 0;

	if (!h->conn)
		return -1;
	d = virDomainLookupByName(h->conn, name);
	if (!d) {
		virResetLastError();
		return 0;
	}
	if (virDomainIsActive(d) == 1 && virDomainDestroy(d) < 0)
		rc = -1;
	/* a defined (persistent) domain of ours is removed too */
	if (virDomainIsPersistent(d) == 1)
		virDomainUndefine(d);
	virDomainFree(d);
	return rc;
}

/* 1 when a worker watches the domain name: its run is in flight */
static int watched(struct orch *o, const char *name)
{
	int found = 0;

	pthread_mutex_lock(&o->lock);
	for (struct watch *w = o->watches; w && !found; w = w->next)
		found = !strcmp(w->name, name);
	pthread_mutex_unlock(&o->lock);
	return found;
}

int guest_sweep(struct orch *o, struct host *h, const char *prefix)
{
	virDomainPtr *doms = NULL;
	int n, killed = 0;

	if (!h->conn)
		return -1;
	n = virConnectListAllDomains(h->conn, &doms, 0);
	if (n < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		const char *name = virDomainGetName(doms[i]);

		if (name && !strncmp(name, prefix, strlen(prefix)) && !watched(o, name)) {
			log_info("host '%s': destroying leftover domain '%s'", h->conf->name, name);
			if (virDomainIsActive(doms[i]) == 1)
				virDomainDestroy(doms[i]);
			if (virDomainIsPersistent(doms[i]) == 1)
				virDomainUndefine(doms[i]);
			killed++;
		}
		virDomainFree(doms[i]);
	}
	free(doms);
	return killed;
}

/* --- moving a running guest's cores (quiet.c) ---------------------------- */

/* cpuset ("0,2-3") as libvirt's cpumap of h's cpus; "" is every core */
static unsigned char *cpumap_of(const char *cpuset, int cpus, int *maplen)
{
	unsigned char *map;
	const char *p = cpuset;

	*maplen = VIR_CPU_MAPLEN(cpus);
	if (!(map = calloc(1, (size_t)*maplen)))
		return NULL;
	if (!*p) {
		for (int c = 0; c < cpus; c++)
			VIR_USE_CPU(map, c);
		return map;
	}
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10), z = a;

		if (end == p)
			break;
		if (*end == '-')
			z = strtol(end + 1, &end, 10);
		for (long c = a; c <= z && c < cpus; c++)
			VIR_USE_CPU(map, (int)c);
		p = *end == ',' ? end + 1 : end;
		if (*end != ',')
			break;
	}
	return map;
}

int guest_repin_live(struct host *h, const char *domain, int vcpus, const char *cpuset)
{
	unsigned char *map;
	virDomainPtr d;
	int maplen, rc = -1;

	if (h->cpus <= 0)
		return -1;
	/* a host being reconnected is tried again at the next tick */
	if (pthread_mutex_trylock(&h->lock))
		return -1;
	d = h->conn ? virDomainLookupByName(h->conn, domain) : NULL;
	pthread_mutex_unlock(&h->lock);
	if (!d) {
		virResetLastError();
		return -1;
	}
	map = cpumap_of(cpuset, h->cpus, &maplen);
	if (map && virDomainIsActive(d) == 1) {
		rc = 0;
		for (int i = 0; i < vcpus && rc == 0; i++)
			rc = virDomainPinVcpuFlags(d, (unsigned)i, map, maplen,
						   VIR_DOMAIN_AFFECT_LIVE);
		if (rc == 0)
			rc = virDomainPinEmulator(d, map, maplen, VIR_DOMAIN_AFFECT_LIVE);
		if (rc < 0) {
			char *e = guest_last_error();

			log_warn("host '%s': guest '%s' not moved to cores '%s': %s", h->conf->name,
				 domain, *cpuset ? cpuset : "all", e ? e : "?");
			free(e);
			virResetLastError();
		}
	}
	free(map);
	virDomainFree(d);
	return rc;
}

/* --- single-threaded TCG ------------------------------------------------- */

/* Multi-threaded TCG runs one host thread per vCPU; with many more vCPUs
 * than host CPUs they mostly wait for each other (an arm64 guest of 96
 * vCPUs on 2 cores never finishes booting, with soft lockups), and one
 * thread for all is faster. libvirt 9 has no XML for TCG's thread mode,
 * so the domain names a wrapper as its emulator. */
static const char tcg1_script[] =
	"#!/bin/sh\n"
	"# kfleet: QEMU with single-threaded TCG (written by kfleetd)\n"
	"q=/usr/bin/$(basename \"$0\")\n"
	"n=$#\n"
	"while [ $n -gt 0 ]; do\n"
	"\ta=$1; shift; n=$((n - 1))\n"
	"\tif [ \"$a\" = -accel ] && [ $n -gt 0 ] && [ \"$1\" = tcg ]; then\n"
	"\t\tshift; n=$((n - 1)); set -- \"$@\" -accel tcg,thread=single\n"
	"\telse\n"
	"\t\tset -- \"$@\" \"$a\"\n"
	"\tfi\n"
	"done\n"
	"exec \"$q\" \"$@\"\n";

int guest_write_tcg1(const char *dir)
{
	static const char *const names[] = { "qemu-system-x86_64", "qemu-system-aarch64" };

	if (mkdir_p(dir, 0755) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char *p = path_join(dir, names[i]);
		int rc = p ? write_file(p, tcg1_script, sizeof(tcg1_script) - 1, 0755) : -1;

		free(p);
		if (rc < 0)
			return -1;
	}
	return 0;
}

char *guest_tcg1_emulator(const struct orch *o, const struct host *h, const char *arch,
			  const char *accel, int vcpus)
{
	if (strcmp(accel, "tcg") || uri_has_host(h->conf->uri) || h->cpus <= 0 ||
	    vcpus <= h->cpus || !o->tcg1_dir)
		return NULL;
	return path_join(o->tcg1_dir, strcmp(arch, "arm64") ? "qemu-system-x86_64" :
			 "qemu-system-aarch64");
}
