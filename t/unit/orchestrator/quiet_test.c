// SPDX-License-Identifier: GPL-2.0-only
/* quiet_test.c: quiet measurements (orchestrator/quiet.c): which runs get
 * host cores of their own, the core allocator (two pinned guests never
 * share a core, the reserved cores are never handed out), the cpuset
 * strings, and the <cputune> a pinned guest's domain XML gets (golden
 * t/data/domain-x86_64-pinned.xml, also defined on libvirt's test driver). */
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
#include "orchestrator/quiet.h"
#include "t/unit/testutil.h"

static void test_decide(void **state)
{
	char why[160];

	(void)state;
	/* a 1-vCPU benchmark on 2 cores, 1 kept: pinned */
	assert_int_equal(quiet_decide(1, NULL, 1, 1, 2, 1, 1, why, sizeof(why)), QUIET_PINNED);
	assert_string_equal(why, "");
	/* its core taken: waits, or runs unpinned with busy = share */
	assert_int_equal(quiet_decide(1, NULL, 1, 1, 2, 1, 0, why, sizeof(why)), QUIET_WAIT);
	assert_int_equal(quiet_decide(1, NULL, 0, 1, 2, 1, 0, why, sizeof(why)), QUIET_UNPINNED);
	assert_non_null(strstr(why, "0 of the host's 1 cores to pin are free, 1 wanted"));
	/* 2 vCPUs where the host keeps one of its 2 cores: unpinned, saying so */
	assert_int_equal(quiet_decide(1, NULL, 1, 2, 2, 1, 1, why, sizeof(why)), QUIET_UNPINNED);
	assert_string_equal(why, "2 vCPUs: the host has 2 cores and keeps 1 for itself");
	/* 16 and 96 on 2: overcommitted, whether or not a run to pin */
	assert_int_equal(quiet_decide(1, NULL, 1, 16, 2, 1, 1, why, sizeof(why)),
			 QUIET_OVERCOMMITTED);
	assert_string_equal(why, "16 vCPUs on 2 host cores: no cores of its own");
	assert_int_equal(quiet_decide(0, "pin = no", 1, 96, 2, 1, 1, why, sizeof(why)),
			 QUIET_OVERCOMMITTED);
	/* not a benchmark: unpinned, why given */
	assert_int_equal(quiet_decide(0, "not a benchmark (no metrics)", 1, 1, 8, 1, 7, why,
				      sizeof(why)), QUIET_UNPINNED);
	assert_string_equal(why, "not a benchmark (no metrics)");
	/* the host's cores not known (0): unpinned */
	assert_int_equal(quiet_decide(1, NULL, 1, 1, 0, 1, 0, why, sizeof(why)), QUIET_UNPINNED);
	assert_string_equal(quiet_pin_name(QUIET_OVERCOMMITTED), "overcommitted");
	assert_string_equal(quiet_pin_name(QUIET_PINNED), "pinned");
}

static void test_allocator(void **state)
{
	unsigned char used[QUIET_CPUS_MAX] = { 0 };
	int a[4], b[4], c[8];

	(void)state;
	/* 8 cores, 1 kept: 7 to hand out, from the top */
	assert_int_equal(quiet_cores_free(used, 8, 1), 7);
	assert_int_equal(quiet_cores_pick(used, 8, 1, 2, a), 0);
	assert_int_equal(a[0], 6);
	assert_int_equal(a[1], 7);
	used[a[0]] = used[a[1]] = 1;
	assert_int_equal(quiet_cores_pick(used, 8, 1, 4, b), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(b[i], 2 + i);
		assert_int_equal(used[b[i]], 0);   /* never a core another run has */
		used[b[i]] = 1;
	}
	/* one left (core 1); core 0 is never handed out */
	assert_int_equal(quiet_cores_free(used, 8, 1), 1);
	assert_int_equal(quiet_cores_pick(used, 8, 1, 2, c), -1);
	assert_int_equal(quiet_cores_pick(used, 8, 1, 1, c), 0);
	assert_int_equal(c[0], 1);
	used[1] = 1;
	assert_int_equal(quiet_cores_pick(used, 8, 1, 1, c), -1);
	/* freeing the middle run's cores makes exactly them free again */
	for (int i = 0; i < 4; i++)
		used[b[i]] = 0;
	assert_int_equal(quiet_cores_pick(used, 8, 1, 4, c), 0);
	assert_memory_equal(c, b, sizeof(b));
	/* on 2 cores: one to pin */
	memset(used, 0, sizeof(used));
	assert_int_equal(quiet_cores_free(used, 2, 1), 1);
	assert_int_equal(quiet_cores_pick(used, 2, 1, 1, c), 0);
	assert_int_equal(c[0], 1);
	/* no reserve: all of them */
	assert_int_equal(quiet_cores_free(used, 2, 0), 2);
	assert_int_equal(quiet_cores_pick(used, 2, 1, 0, c), -1);
}

static void test_cpuset(void **state)
{
	static const int one[] = { 1 }, run[] = { 2, 3, 4, 6, 8, 9 };
	char s[64];

	(void)state;
	quiet_cpuset(one, 1, s, sizeof(s));
	assert_string_equal(s, "1");
	quiet_cpuset(run, 6, s, sizeof(s));
	assert_string_equal(s, "2-4,6,8-9");
	quiet_cpuset(run, 0, s, sizeof(s));
	assert_string_equal(s, "");
}

static const int pin2[] = { 6, 7 };
static const struct guest_spec pinned = {
	.name = "kf-0a1b2c3d-50", .run_id = 50, .attempt = 1, .arch = "x86_64", .accel = "tcg",
	.vcpus = 2, .memory_mb = 512, .kernel = "/r/50/bzImage", .initrd = "/r/50/initrd.img",
	.console = "/r/50/console.log", .channel = "/r/50/agent.log", .pin = pin2, .npin = 2,
};

/* Defines xml on the test driver (type 'test'): libvirt takes it */
static void define_on_test_driver(const char *xml)
{
	virConnectPtr conn = virConnectOpen("test:///default");
	virDomainPtr dom;
	char *t = NULL;

	assert_non_null(conn);
	assert_true(asprintf(&t, "<domain type='test'%s", strchr(xml, '>')) > 0);
	dom = virDomainDefineXML(conn, t);
	if (!dom)
		fail_msg("libvirt refused the XML: %s\n%s", virGetLastErrorMessage(), t);
	virDomainUndefine(dom);
	virDomainFree(dom);
	virConnectClose(conn);
	free(t);
}

static void test_domain_xml(void **state)
{
	struct guest_spec s = pinned;
	struct buf b = BUF_INIT(0);
	const char *x;

	(void)state;
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	tu_golden("domain-x86_64-pinned.xml", buf_str(&b), b.len);
	x = buf_str(&b);
	assert_non_null(strstr(x, "  <vcpu>2</vcpu>\n  <cputune>\n"
			       "    <vcpupin vcpu='0' cpuset='6'/>\n"
			       "    <vcpupin vcpu='1' cpuset='7'/>\n"
			       "    <emulatorpin cpuset='6-7'/>\n  </cputune>\n"));
	define_on_test_driver(x);
	/* an unpinned guest beside pinned ones: kept to the cores left */
	buf_reset(&b);
	s.pin = NULL;
	s.npin = 0;
	s.cpuset = "0-5";
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	x = buf_str(&b);
	assert_non_null(strstr(x, "<vcpu placement='static' cpuset='0-5'>2</vcpu>"));
	assert_null(strstr(x, "<cputune>"));
	define_on_test_driver(x);
	/* with nothing pinned: no restriction at all */
	buf_reset(&b);
	s.cpuset = NULL;
	assert_int_equal(guest_domain_xml(&s, &b), 0);
	assert_non_null(strstr(buf_str(&b), "<vcpu>2</vcpu>"));
	assert_null(strstr(buf_str(&b), "cpuset"));
	buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decide),
		cmocka_unit_test(test_allocator),
		cmocka_unit_test(test_cpuset),
		cmocka_unit_test(test_domain_xml),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
