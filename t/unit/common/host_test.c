// SPDX-License-Identifier: GPL-2.0-only
/* host_test.c: unit tests for common/host.c: kvm_usable_here() agrees
 * with what /dev/kvm and /proc/cpuinfo say on this machine, says why when
 * it answers no, and takes a NULL why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <fcntl.h>
#include <unistd.h>

#include "common/host.h"

/* The CPU shows vmx or svm in /proc/cpuinfo's first flags line */
static int cpu_flag(void)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int yes = 0;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			yes = strstr(line, " vmx") || strstr(line, " svm");
			break;
		}
	if (f)
		fclose(f);
	return yes;
}

static void test_kvm_usable(void **state)
{
	char why[128] = "unset";
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC), r;

	(void)state;
	if (fd >= 0)
		close(fd);
	r = kvm_usable_here(why, sizeof(why));
	assert_int_equal(kvm_usable_here(NULL, 0), r);
	if (fd < 0) {
		assert_int_equal(r, 0);
		assert_string_equal(why, "/dev/kvm cannot be opened");
	} else if (!cpu_flag()) {
		assert_int_equal(r, 0);
		assert_string_equal(why, "/dev/kvm exists but the CPU shows no vmx/svm flag");
	} else {
		assert_int_equal(r, 1);
		assert_string_equal(why, "unset");   /* untouched when the answer is yes */
	}
	/* a short why is cut, never overrun */
	if (!r) {
		char small[8];

		memset(small, 'x', sizeof(small));
		assert_int_equal(kvm_usable_here(small, 4), 0);
		assert_int_equal(strlen(small), 3);
		assert_int_equal(small[5], 'x');
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kvm_usable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
