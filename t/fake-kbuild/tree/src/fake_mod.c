// SPDX-License-Identifier: GPL-2.0
/*
 * src/fake_mod.c: a module (CONFIG_KFLEET_FAKE_MOD=m), so that "make modules"
 * and "make modules_install" have something to build and install.
 */
#include <linux/kernel.h>

static int __init fake_mod_init(void)
{
	pr_info("fake_mod: loaded\n");
	return 0;
}

static void __exit fake_mod_exit(void)
{
	pr_info("fake_mod: unloaded\n");
}

module_init(fake_mod_init);
module_exit(fake_mod_exit);
MODULE_LICENSE("GPL");
