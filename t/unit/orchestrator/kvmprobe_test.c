// SPDX-License-Identifier: GPL-2.0-only
/* kvmprobe_test.c: the boot probe (kvmprobe.c) on this machine's libvirtd
 * (qemu:///system; skipped when it does not answer): a guest of the stock
 * kernel and the base initramfs powers itself off under TCG, the same guest
 * given too little time is reported as not booting, markup in a path is
 * refused, and a host's answer is kept and given again without a boot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>

#include <libvirt/virterror.h>

#include "common/util.h"
#include "images/images.h"
#include "orchestrator/orchint.h"
#include "t/unit/testutil.h"

struct fix {
	char dir[128];
	char *kernel;
	char *base;
	virConnectPtr conn;
};

static void quiet(void *u, virErrorPtr e) { (void)u; (void)e; }

/* The newest /boot/vmlinuz-*, caller frees */
static char *boot_kernel(void)
{
	DIR *d = opendir("/boot");
	struct dirent *e;
	char best[256] = "";

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "vmlinuz-", 8) && strverscmp(e->d_name, best) > 0)
			snprintf(best, sizeof(best), "%s", e->d_name);
	if (d)
		closedir(d);
	return *best ? path_join("/boot", best) : NULL;
}

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	const char *agent = getenv("KFLEET_AGENT");
	char *err = NULL;

	virSetErrorFunc(NULL, quiet);
	tu_tmpdir(f->dir, sizeof(f->dir), "kvmprobe");
	chmod(f->dir, 0755);     /* QEMU, as libvirt-qemu, reads the initramfs */
	f->kernel = boot_kernel();
	f->conn = virConnectOpen("qemu:///system");
	if (f->kernel && f->conn && agent && access(agent, R_OK) == 0)
		f->base = img_base_initramfs("/bin/busybox", agent, f->dir, &err);
	free(err);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	if (f->conn)
		virConnectClose(f->conn);
	tu_rmrf(f->dir);
	free(f->kernel);
	free(f->base);
	free(f);
	return 0;
}

static void test_boots_and_powers_off(void **state)
{
	struct fix *f = *state;
	char why[256] = "";

	if (!f->base)
		skip();
	assert_int_equal(kvmprobe_boot(f->conn, "qemu", f->kernel, f->base, 120000, NULL, why,
				       sizeof(why)), 1);
}

static void test_too_little_time_is_no_boot(void **state)
{
	struct fix *f = *state;
	char why[256] = "";

	if (!f->base)
		skip();
	/* under TCG the kernel alone takes seconds to reach init */
	assert_int_equal(kvmprobe_boot(f->conn, "qemu", f->kernel, f->base, 300, NULL, why,
				       sizeof(why)), 0);
	assert_non_null(strstr(why, "a qemu guest starts but does not boot"));
	assert_non_null(strstr(why, strrchr(f->kernel, '/') + 1));
}

static void test_markup_in_a_path_is_refused(void **state)
{
	struct fix *f = *state;
	char why[256] = "";

	if (!f->conn)
		skip();
	assert_int_equal(kvmprobe_boot(f->conn, "qemu", "/boot/a'b", "/tmp/i", 1000, NULL, why,
				       sizeof(why)), -1);
	assert_non_null(strstr(why, "XML markup"));
}

/* Whatever KVM does here: the first look starts the probe in a thread
 * (the host "probing", out of placement), whose answer settles the host's
 * accel; the second look gives that answer without booting again, and a
 * kept failure says it was kept */
static void test_answer_is_kept(void **state)
{
	struct fix *f = *state;
	struct config c = { 0 };
	struct config_host ch = { .name = "local", .uri = "qemu:///system", .accel = "auto",
				  .transfer = "files" };
	struct orch o = { 0 };
	struct host h = { 0 };
	char why1[256] = "", why2[256] = "", *cdir, *kept;
	int a, b, files = 0;
	struct dirent *e;
	DIR *d;

	if (!f->base)
		skip();
	c.busybox = "/bin/busybox";
	o.conf = &c;
	o.agent_x86_64 = getenv("KFLEET_AGENT");
	cdir = path_join(f->dir, "cache");
	assert_int_equal(mkdir(cdir, 0755), 0);
	o.cache_dir = cdir;
	o.db_path = path_join(f->dir, "kfleet.db");
	h.conf = &ch;
	h.conn = f->conn;
	assert_int_equal(kvmprobe_host(&o, &h, why1, sizeof(why1)), 2);
	assert_non_null(strstr(why1, "booting a kernel under KVM"));
	assert_int_equal(h.probe_started, 1);
	kvmprobe_join(&h);
	assert_int_equal(h.probing, 0);
	assert_true(!strcmp(h.accel, "kvm") || !strcmp(h.accel, "tcg"));
	a = !strcmp(h.accel, "kvm");
	snprintf(why1, sizeof(why1), "%s", h.why_accel);
	/* a KVM that fails at once (QEMU's MSR write) or one that starts
	 * guests but boots no kernel: both machines of this kind are seen */
	if (!a && !strstr(why1, "kvm guest starts but does not boot") &&
	    !strstr(why1, "kvm guest does not start"))
		fail_msg("tcg for a reason that is not the probe's: '%s'", why1);
	kept = path_join(cdir, "kvm-probe");
	assert_non_null(d = opendir(kept));
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);
	b = kvmprobe_host(&o, &h, why2, sizeof(why2));
	assert_int_equal(a, b);
	if (!a) {
		assert_non_null(strstr(why2, "kept from an earlier probe"));
		assert_non_null(strstr(why2, why1));
	}
	free(kept);
	free(cdir);
	free(o.db_path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_boots_and_powers_off),
		cmocka_unit_test(test_too_little_time_is_no_boot),
		cmocka_unit_test(test_markup_in_a_path_is_refused),
		cmocka_unit_test(test_answer_is_kept),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
