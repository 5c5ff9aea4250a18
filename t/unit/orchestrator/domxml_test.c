// SPDX-License-Identifier: GPL-2.0-only
/* domxml_test.c: golden tests for guest_domain_xml() (orchestrator/guest.c),
 * the libvirt domain XML of a run: TCG and KVM guests and paths that need
 * XML escaping, compared with t/data/domain-*.xml (REGENERATE=1 rewrites
 * them). Each golden is also defined on libvirt's test:///default driver
 * (type changed to 'test') to prove libvirt parses what we generate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include "common/buf.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

static const struct guest_spec tcg_2cpu = {
	.name = "kf-0a1b2c3d-42",
	.run_id = 42,
	.attempt = 1,
	.arch = "x86_64",
	.accel = "tcg",
	.vcpus = 2,
	.memory_mb = 512,
	.kernel = "/var/lib/kfleet/kernels/vmlinuz-6.1.0-21-amd64",
	.initrd = "/var/lib/kfleet/runs/42/initrd.cpio",
	.cmdline = NULL,
	.console = "/var/lib/kfleet/runs/42/console.log",
	.channel = "/var/lib/kfleet/runs/42/channel.log",
};

static const struct guest_spec kvm_16cpu = {
	.name = "kf-0a1b2c3d-1234567",
	.run_id = 1234567,
	.attempt = 2,
	.arch = "x86_64",
	.accel = "kvm",
	.vcpus = 16,
	.memory_mb = 16384,
	.kernel = "/srv/kernels/linux-next/arch/x86/boot/bzImage",
	.initrd = "/srv/kfleet/runs/1234567/initrd.cpio",
	.cmdline = "nokaslr loglevel=8",
	.console = "/srv/kfleet/runs/1234567/console.log",
	.channel = "/srv/kfleet/runs/1234567/channel.log",
};

static const struct guest_spec escaped = {
	.name = "kf-0a1b2c3d-7",
	.run_id = 7,
	.attempt = 1,
	.arch = "x86_64",
	.accel = "tcg",
	.vcpus = 1,
	.memory_mb = 256,
	.kernel = "/home/tom & jerry's/kernels/<bz>Image",
	.initrd = "/home/tom & jerry's/state/runs/7/initrd.cpio",
	.cmdline = "dyndbg=\"file drivers/* +p\" x<y&z",
	.console = "/home/tom & jerry's/state/runs/7/console.log",
	.channel = "/home/tom & jerry's/state/runs/7/channel.log",
};

/* arm64 under TCG, with the agent on a virtio-serial port */
static const struct guest_spec arm64_16cpu = {
	.name = "kf-0a1b2c3d-9",
	.run_id = 9,
	.attempt = 1,
	.arch = "arm64",
	.accel = "tcg",
	.vcpus = 16,
	.memory_mb = 1024,
	.kernel = "/opt/kfleet/arm64/vmlinuz",
	.initrd = "/var/lib/kfleet/runs/9/a1/initrd.img",
	.console = "/var/lib/kfleet/runs/9/a1/console.log",
	.channel = "/var/lib/kfleet/runs/9/a1/agent.log",
	.virtio = 1,
	.socket = "/var/lib/kfleet/runs/9/a1/agent.sock",
};

/* x86_64 with the agent on a virtio-serial port instead of ttyS1 */
static const struct guest_spec x86_virtio = {
	.name = "kf-0a1b2c3d-10",
	.run_id = 10,
	.attempt = 1,
	.arch = "x86_64",
	.accel = "tcg",
	.vcpus = 2,
	.memory_mb = 512,
	.kernel = "/boot/vmlinuz-6.1.0-57-amd64",
	.initrd = "/var/lib/kfleet/runs/10/a1/initrd.img",
	.console = "/var/lib/kfleet/runs/10/a1/console.log",
	.channel = "/var/lib/kfleet/runs/10/a1/agent.log",
	.virtio = 1,
	.socket = "/var/lib/kfleet/runs/10/a1/agent.sock",
};

/* a topology and two NUMA nodes, on both arches */
static const struct guest_spec x86_numa = {
	.name = "kf-0a1b2c3d-11", .run_id = 11, .attempt = 1, .arch = "x86_64", .accel = "tcg",
	.vcpus = 8, .memory_mb = 2048, .kernel = "/boot/vmlinuz", .initrd = "/r/11/initrd.img",
	.console = "/r/11/console.log", .channel = "/r/11/agent.log",
	.sockets = 2, .cores = 2, .threads = 2, .numa_nodes = 2, .pvpanic = 1,
};

static const struct guest_spec arm64_numa = {
	.name = "kf-0a1b2c3d-12", .run_id = 12, .attempt = 1, .arch = "arm64", .accel = "tcg",
	.vcpus = 4, .memory_mb = 1024, .kernel = "/opt/kfleet/arm64/vmlinuz",
	.initrd = "/r/12/initrd.img", .console = "/r/12/console.log", .channel = "/r/12/agent.log",
	.virtio = 1, .socket = "/r/12/agent.sock", .numa_nodes = 4,
};

/* Defines xml on libvirt's test driver with the domain type set to 'test';
 * fails the test with libvirt's message if libvirt refuses it. */
static void define_on_test_driver(const char *xml)
{
	const char *gt = strchr(xml, '>');
	virConnectPtr conn;
	virDomainPtr dom;
	char *test_xml = NULL;

	assert_non_null(gt);
	assert_true(!strncmp(xml, "<domain type='", 14));
	assert_true(asprintf(&test_xml, "<domain type='test'%s", gt) > 0);
	conn = virConnectOpen("test:///default");
	if (!conn)
		fail_msg("test:///default: %s", virGetLastErrorMessage());
	dom = virDomainDefineXML(conn, test_xml);
	if (!dom)
		fail_msg("libvirt refused the XML: %s\n%s", virGetLastErrorMessage(), test_xml);
	assert_int_equal(virDomainUndefine(dom), 0);
	virDomainFree(dom);
	virConnectClose(conn);
	free(test_xml);
}

static void check_golden(const struct guest_spec *s, const char *golden)
{
	struct buf b = BUF_INIT(0);

	assert_int_equal(guest_domain_xml(s, &b), 0);
	assert_true(b.len > 0);
	tu_golden(golden, buf_str(&b), b.len);
	define_on_test_driver(buf_str(&b));
	buf_release(&b);
}

static void test_tcg_2cpu(void **state)
{
	struct buf b = BUF_INIT(0);

	(void)state;
	check_golden(&tcg_2cpu, "domain-x86_64-tcg-2cpu.xml");
	/* a TCG guest is a qemu domain and does not ask for the host CPU */
	assert_int_equal(guest_domain_xml(&tcg_2cpu, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<domain type='qemu'>"));
	assert_null(strstr(buf_str(&b), "host-passthrough"));
	buf_release(&b);
}

static void test_kvm_16cpu(void **state)
{
	struct buf b = BUF_INIT(0);

	(void)state;
	check_golden(&kvm_16cpu, "domain-x86_64-kvm-16cpu.xml");
	assert_int_equal(guest_domain_xml(&kvm_16cpu, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<domain type='kvm'>"));
	assert_non_null(strstr(buf_str(&b), "<cpu mode='host-passthrough'/>"));
	assert_non_null(strstr(buf_str(&b), "<vcpu>16</vcpu>"));
	assert_non_null(strstr(buf_str(&b), "panic=-1 rdinit=/init nokaslr loglevel=8</cmdline>"));
	buf_release(&b);
}

/* firmware = qboot: QEMU's -bios in place of SeaBIOS, which libvirt
 * takes; arm64 has no BIOS to change */
static void test_qboot(void **state)
{
	struct guest_spec s = tcg_2cpu, a = arm64_numa;
	struct buf b = BUF_INIT(0);

	(void)state;
	s.bios = "/usr/share/qemu/qboot.rom";
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<type arch='x86_64' machine='q35'>hvm</type>\n"
			       "    <loader readonly='yes' type='rom'>/usr/share/qemu/qboot.rom"
			       "</loader>\n    <kernel>"));
	define_on_test_driver(buf_str(&b));
	buf_release(&b);
	a.bios = s.bios;
	assert_int_equal(guest_domain_xml(&a, &b), 0);
	assert_null(strstr(buf_str(&b), "<loader"));
	buf_release(&b);
	assert_int_equal(guest_domain_xml(&tcg_2cpu, &b), 0);
	assert_null(strstr(buf_str(&b), "<loader"));
	buf_release(&b);
}

/* boot = fast: GUEST_FAST_ARGS (and on x86_64 tsc=reliable) after kfleet's own arguments and before
 * the run's (which may undo them), on both arches, and the run's record
 * of it; a default guest has neither */
static void test_fast_boot(void **state)
{
	struct guest_spec s = kvm_16cpu, a = arm64_16cpu;
	struct buf b = BUF_INIT(0);
	char setup[128];

	(void)state;
	s.fast = 1;
	s.bios = "/usr/share/qemu/qboot.rom";
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<cmdline>console=ttyS0,115200 panic=-1 rdinit=/init"
			       " loglevel=5 nokaslr tsc=reliable nokaslr loglevel=8</cmdline>"));
	define_on_test_driver(buf_str(&b));
	guest_boot_setup(&s, setup, sizeof(setup));
	/* the host's kernel_args are part of the setup a run records */
	assert_string_equal(setup, "fast: qboot loglevel=5 nokaslr tsc=reliable; args: nokaslr loglevel=8");
	s.cmdline = NULL;
	guest_boot_setup(&s, setup, sizeof(setup));
	assert_string_equal(setup, "fast: qboot loglevel=5 nokaslr tsc=reliable");
	s.fast = 0;
	s.cmdline = "loglevel=7";
	guest_boot_setup(&s, setup, sizeof(setup));
	assert_string_equal(setup, "default; args: loglevel=7");
	s = kvm_16cpu;
	s.fast = 1;
	buf_reset(&b);
	a.fast = 1;
	assert_int_equal(guest_domain_xml(&a, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<cmdline>console=ttyAMA0 panic=-1 rdinit=/init"
			       " loglevel=5 nokaslr</cmdline>"));
	guest_boot_setup(&a, setup, sizeof(setup));
	assert_string_equal(setup, "fast: loglevel=5 nokaslr");
	buf_reset(&b);
	assert_int_equal(guest_domain_xml(&tcg_2cpu, &b), 0);
	assert_null(strstr(buf_str(&b), "loglevel=5"));
	guest_boot_setup(&tcg_2cpu, setup, sizeof(setup));
	assert_string_equal(setup, "default");
	buf_release(&b);
}

static void test_escaping(void **state)
{
	struct buf b = BUF_INIT(0);
	const char *x;

	(void)state;
	check_golden(&escaped, "domain-x86_64-escaped.xml");
	assert_int_equal(guest_domain_xml(&escaped, &b), 0);
	x = buf_str(&b);
	assert_non_null(strstr(x, "<kernel>/home/tom &amp; jerry&apos;s/kernels/&lt;bz&gt;Image</kernel>"));
	assert_non_null(strstr(x, "<source path='/home/tom &amp; jerry&apos;s/state/runs/7/console.log'/>"));
	assert_non_null(strstr(x, "dyndbg=&quot;file drivers/* +p&quot; x&lt;y&amp;z</cmdline>"));
	/* no raw special character survives in the values */
	assert_null(strstr(x, "tom & "));
	assert_null(strstr(x, "jerry's"));
	buf_release(&b);
}

/* libvirt reads back exactly the paths and cmdline we meant */
static void test_libvirt_reads_escaped_values(void **state)
{
	struct buf b = BUF_INIT(0);
	virConnectPtr conn;
	virDomainPtr dom;
	char *xml, *test_xml = NULL;

	(void)state;
	assert_int_equal(guest_domain_xml(&escaped, &b), 0);
	assert_true(asprintf(&test_xml, "<domain type='test'%s", strchr(buf_str(&b), '>')) > 0);
	conn = virConnectOpen("test:///default");
	assert_non_null(conn);
	dom = virDomainDefineXML(conn, test_xml);
	if (!dom)
		fail_msg("%s", virGetLastErrorMessage());
	xml = virDomainGetXMLDesc(dom, 0);
	assert_non_null(xml);
	/* libvirt escapes the values it decoded; the same text means the same value */
	assert_non_null(strstr(xml, "<kernel>/home/tom &amp; jerry&apos;s/kernels/&lt;bz&gt;Image</kernel>"));
	assert_non_null(strstr(xml, "<source path='/home/tom &amp; jerry&apos;s/state/runs/7/channel.log'/>"));
	assert_non_null(strstr(xml, "rdinit=/init no_timer_check dyndbg=&quot;file drivers/* +p&quot; x&lt;y&amp;z</cmdline>"));
	assert_non_null(strstr(xml, "<name>kf-0a1b2c3d-7</name>"));
	assert_non_null(strstr(xml, "<memory unit='KiB'>262144</memory>"));
	free(xml);
	virDomainUndefine(dom);
	virDomainFree(dom);
	virConnectClose(conn);
	free(test_xml);
	buf_release(&b);
}

static void test_arm64_16cpu(void **state)
{
	struct buf b = BUF_INIT(0);

	(void)state;
	check_golden(&arm64_16cpu, "domain-arm64-tcg-16cpu.xml");
	assert_int_equal(guest_domain_xml(&arm64_16cpu, &b), 0);
	/* GICv3 (v2 stops at 8 vCPUs), cortex-a57 under TCG, the PL011 console,
	 * the agent on a virtio port, no ACPI and no serial port 1 */
	assert_non_null(strstr(buf_str(&b), "<type arch='aarch64' machine='virt'>hvm</type>"));
	assert_non_null(strstr(buf_str(&b), "<gic version='3'/>"));
	assert_non_null(strstr(buf_str(&b), ">cortex-a57</model>"));
	assert_non_null(strstr(buf_str(&b), "console=ttyAMA0"));
	assert_non_null(strstr(buf_str(&b), "<target type='virtio' name='org.kfleet.agent.0'/>"));
	assert_null(strstr(buf_str(&b), "<acpi/>"));
	assert_null(strstr(buf_str(&b), "<target port='1'/>"));
	buf_release(&b);
}

static void test_x86_virtio(void **state)
{
	struct buf b = BUF_INIT(0);

	(void)state;
	check_golden(&x86_virtio, "domain-x86_64-tcg-virtio.xml");
	assert_int_equal(guest_domain_xml(&x86_virtio, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<source mode='bind' path='/var/lib/kfleet/runs/10/a1/agent.sock'/>"));
	assert_null(strstr(buf_str(&b), "<target port='1'/>"));
	buf_release(&b);
}

/* The virtio-serial controller sits on the root bus, as bare QEMU's
 * -device virtio-serial-pci does, so libvirt adds no pcie-root-port
 * (and no spare one) for it; a guest without a virtio port has none */
static void test_virtio_on_root_bus(void **state)
{
	static const char ctl[] = "<controller type='virtio-serial' index='0'>\n"
		"      <address type='pci' domain='0x0000' bus='0x00' slot='0x02' function='0x0'/>\n"
		"    </controller>";
	struct guest_spec s = x86_virtio;
	struct buf b = BUF_INIT(0);

	(void)state;
	assert_int_equal(guest_domain_xml(&arm64_16cpu, &b), 0);
	assert_non_null(strstr(buf_str(&b), ctl));
	buf_reset(&b);
	s.streams = 1;
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	assert_non_null(strstr(buf_str(&b), ctl));
	define_on_test_driver(buf_str(&b));
	buf_reset(&b);
	assert_int_equal(guest_domain_xml(&tcg_2cpu, &b), 0);
	assert_null(strstr(buf_str(&b), "<controller type='virtio-serial'"));
	assert_null(strstr(buf_str(&b), "<address"));
	buf_release(&b);
}

static void test_topology_numa(void **state)
{
	struct buf b = BUF_INIT(0);

	(void)state;
	check_golden(&x86_numa, "domain-x86_64-topology-numa.xml");
	check_golden(&arm64_numa, "domain-arm64-numa.xml");
	assert_int_equal(guest_domain_xml(&x86_numa, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<topology sockets='2' dies='1' cores='2' threads='2'/>"));
	assert_non_null(strstr(buf_str(&b), "<cell id='1' cpus='4-7' memory='1024' unit='MiB'/>"));
	assert_non_null(strstr(buf_str(&b), "<panic model='isa'/>"));
	buf_reset(&b);
	assert_int_equal(guest_domain_xml(&arm64_numa, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<cell id='3' cpus='3-3' memory='256' unit='MiB'/>"));
	assert_non_null(strstr(buf_str(&b), ">cortex-a57</model>"));
	assert_null(strstr(buf_str(&b), "<topology"));
	buf_release(&b);
}

/* A job's root disk: the run's qcow2 overlay as a virtio disk, vda */
static void test_root_disk(void **state)
{
	struct guest_spec s = x86_virtio;
	struct buf b = BUF_INIT(0);

	(void)state;
	s.disk = "/r/10/root.qcow2";
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<driver name='qemu' type='qcow2'/>\n"
			       "      <source file='/r/10/root.qcow2'/>\n"
			       "      <target dev='vda' bus='virtio'/>\n"
			       "      <address type='pci' domain='0x0000' bus='0x00' slot='0x03'"
			       " function='0x0'/>\n    </disk>"));
	define_on_test_driver(buf_str(&b));
	buf_reset(&b);
	s = arm64_numa;
	s.disk = "/r/12/root.qcow2";
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<source file='/r/12/root.qcow2'/>"));
	define_on_test_driver(buf_str(&b));
	buf_reset(&b);
	assert_int_equal(guest_domain_xml(&x86_virtio, &b), 0);
	assert_null(strstr(buf_str(&b), "<disk"));
	buf_release(&b);
}

static void test_other_arch_refused(void **state)
{
	struct guest_spec s = tcg_2cpu;
	struct buf b = BUF_INIT(0);

	(void)state;
	s.arch = "aarch64";
	assert_int_equal(guest_domain_xml(&s, &b), -1);
	s.arch = "riscv64";
	assert_int_equal(guest_domain_xml(&s, &b), -1);
	s.arch = "";
	assert_int_equal(guest_domain_xml(&s, &b), -1);
	assert_int_equal(b.len, 0);    /* nothing written */
	buf_release(&b);
}

/* A capped buffer too small for the XML is an error, not a cut document. */
static void test_capped_buffer(void **state)
{
	struct buf b;

	(void)state;
	buf_init(&b, 256);
	assert_int_equal(guest_domain_xml(&tcg_2cpu, &b), -1);
	buf_release(&b);
}

static void quiet(void *ud, virErrorPtr e)
{
	(void)ud;
	(void)e;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tcg_2cpu),
		cmocka_unit_test(test_kvm_16cpu),
		cmocka_unit_test(test_qboot),
		cmocka_unit_test(test_fast_boot),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_libvirt_reads_escaped_values),
		cmocka_unit_test(test_arm64_16cpu),
		cmocka_unit_test(test_x86_virtio),
		cmocka_unit_test(test_virtio_on_root_bus),
		cmocka_unit_test(test_topology_numa),
		cmocka_unit_test(test_root_disk),
		cmocka_unit_test(test_other_arch_refused),
		cmocka_unit_test(test_capped_buffer),
	};

	virSetErrorFunc(NULL, quiet);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
