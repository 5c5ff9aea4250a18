// SPDX-License-Identifier: GPL-2.0-only
/* estimate_test.c: unit tests for kernels/estimate.c and estimate_mk.c:
 * the part of make a Kbuild file is read with (assignments, conditionals,
 * the functions kbuild lists use, what is skipped), and the kbuild lines
 * a build from nothing prints, counted on a small fake tree whose lines
 * are known: the directories a .config reaches, composites, modules, the
 * arch Makefile's directories, an old tree's root, and a hostile tree's
 * links and paths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <errno.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/util.h"
#include "kernels/estimateint.h"
#include "t/unit/testutil.h"

/* The variables of text read against config (NAME=VALUE lines) */
static void eval(struct kmk *mk, struct kmk_ctx *c, struct kmk_map *cfg, const char *config,
		 const char *text)
{
	char line[256];
	const char *s = config;

	memset(cfg, 0, sizeof(*cfg));
	while (s && *s) {
		size_t n = strcspn(s, "\n");
		char *eq;
		struct kmk_ent *v;

		snprintf(line, sizeof(line), "%.*s", (int)n, s);
		eq = strchr(line, '=');
		assert_non_null(eq);
		v = kmk_put(cfg, line, (size_t)(eq - line));
		assert_non_null(v);
		buf_puts(&v->val, eq + 1);
		s += n + (s[n] == '\n');
	}
	memset(c, 0, sizeof(*c));
	c->config = cfg;
	c->left = KMK_WORK_MAX;
	memset(mk, 0, sizeof(*mk));
	mk->c = c;
	kmk_eval(mk, text, strlen(text));
}

/* Variable name's words, one blank between them (a static buffer) */
static const char *var(const struct kmk *mk, const char *name)
{
	static char out[512];
	const char *v = kmk_value(&mk->vars, name);
	size_t n = 0;

	if (!v)
		return "(undefined)";
	for (; *v && n < sizeof(out) - 2; v++) {
		int sp = *v == ' ' || *v == '\t';

		if (!sp)
			out[n++] = *v;
		else if (n && out[n - 1] != ' ')
			out[n++] = ' ';
	}
	if (n && out[n - 1] == ' ')
		n--;
	out[n] = '\0';
	return out;
}

static void test_assignments(void **state)
{
	struct kmk mk;
	struct kmk_ctx c;
	struct kmk_map cfg;

	(void)state;
	eval(&mk, &c, &cfg, "CONFIG_A=y\nCONFIG_M=m\nCONFIG_HZ=250",
	     "# a comment: obj-y += no.o\n"
	     "obj-y := fork.o \\\n\texit.o   # trailing comment\n"
	     "obj-$(CONFIG_A) += a.o\n"
	     "obj-$(CONFIG_M) += m.o\n"
	     "obj-$(CONFIG_UNSET) += unset.o\n"
	     "obj-y += $(addprefix sub/, one.o two.o)\n"
	     "obj-y += $(if $(CONFIG_A),if-yes.o,if-no.o) $(if $(CONFIG_UNSET),x.o,else.o)\n"
	     "list = a.o b.c c.o\n"
	     "obj-y += $(filter %.o,$(list))\n"
	     "obj-$(subst m,y,$(CONFIG_M)) += subst.o\n"
	     "s := $(subst a,bb,banana)\n"
	     "p := $(patsubst %.o,%.stub.o,a.o b.c) $(patsubst x.o,y.o,x.o)\n"
	     "hz-$(CONFIG_HZ) := 1\n"
	     "once ?= first\n"
	     "once ?= second\n"
	     "sh != echo no\n"
	     "export exp := 1\n"
	     "sub/%.o: CFLAGS += -O3\n"
	     "$(obj)/gen.h: $(src)/gen.sh\n"
	     "\tobj-y += recipe.o\n"
	     "define body\n"
	     "obj-y += defined.o\n"
	     "endef\n"
	     "include $(srctree)/scripts/Makefile.x\n"
	     "cost := $$(price) $(call cc-option,-fno-x)\n");
	assert_string_equal(var(&mk, "obj-y"), "fork.o exit.o a.o sub/one.o sub/two.o if-yes.o "
			    "else.o a.o c.o subst.o");
	assert_string_equal(var(&mk, "s"), "bbbnbbnbb");
	assert_string_equal(var(&mk, "p"), "a.stub.o b.c y.o");
	assert_string_equal(var(&mk, "obj-m"), "m.o");
	assert_string_equal(var(&mk, "obj-"), "unset.o");
	assert_string_equal(var(&mk, "hz-250"), "1");
	assert_string_equal(var(&mk, "once"), "first");
	assert_string_equal(var(&mk, "sh"), "(undefined)");
	assert_string_equal(var(&mk, "exp"), "1");
	assert_string_equal(var(&mk, "cost"), "$(price)");
	kmk_release(&mk);
	kmk_map_release(&cfg);
}

static void test_conditionals(void **state)
{
	struct kmk mk;
	struct kmk_ctx c;
	struct kmk_map cfg;

	(void)state;
	eval(&mk, &c, &cfg, "CONFIG_A=y\nCONFIG_M=m",
	     "ifeq ($(CONFIG_A),y)\nr += eq\nendif\n"
	     "ifeq ($(CONFIG_A), n)\nr += wrong1\nelse\nr += else\nendif\n"
	     "ifneq ($(CONFIG_UNSET),)\nr += wrong2\nendif\n"
	     "ifdef CONFIG_M\nr += def\nendif\n"
	     "ifndef CONFIG_M\nr += wrong3\nendif\n"
	     "ifeq \"$(CONFIG_M)\" 'm'\nr += quoted\nendif\n"
	     "ifeq ($(CONFIG_UNSET),y)\n"
	     "  r += wrong4\n"
	     "else ifeq ($(CONFIG_A),y)\n"
	     "  r += elseif\n"
	     "  ifdef CONFIG_UNSET\n    r += wrong5\n  else\n    r += nested\n  endif\n"
	     "else\n"
	     "  r += wrong6\n"
	     "endif\n"
	     "ifeq ($(CONFIG_UNSET),y)\n"
	     "  ifeq (,)\n    r += wrong7\n  else\n    r += wrong8\n  endif\n"
	     "endif\n"
	     "ifneq ($(filter y,$(CONFIG_UNSET) $(CONFIG_A)),)\nr += filter\nendif\n"
	     "endif\n"           /* one too many: ignored */
	     "r += end\n");
	assert_string_equal(var(&mk, "r"), "eq else def quoted elseif nested filter end");
	kmk_release(&mk);
	kmk_map_release(&cfg);
}

/* A small tree as linux 6.1 lays it out, written under dir */
static void put(const char *dir, const char *rel, const char *text)
{
	char *p = path_join(dir, rel), *parent;
	const char *sl = strrchr(rel, '/');

	assert_non_null(p);
	parent = strndup(p, strlen(dir) + (sl ? (size_t)(sl - rel) + 1 : 0));
	assert_non_null(parent);
	assert_int_equal(mkdir_p(parent, 0755), 0);
	tu_write_str(p, text);
	free(parent);
	free(p);
}

static void fake_tree(const char *dir)
{
	put(dir, "Kbuild",
	    "obj-y += init/\nobj-y += arch/$(SRCARCH)/\nobj-y += $(ARCH_CORE)\nobj-y += kernel/\n"
	    "obj-$(CONFIG_NET) += net/\nobj-y += $(ARCH_LIB)\nobj-y += drivers/\n"
	    "obj-y += $(ARCH_DRIVERS)\n");
	put(dir, "Makefile", "obj-y += not-read.o\n");
	put(dir, "arch/x86/Makefile",
	    "libs-y += arch/x86/lib/\ndrivers-$(CONFIG_PCI) += arch/x86/pci/\n"
	    "archprepare:\n\t$(Q)$(MAKE) x\n");
	put(dir, "arch/x86/Kbuild", "obj-y += kernel/\n");
	put(dir, "arch/x86/kernel/Makefile", "obj-y := setup.o head_$(BITS).o\n");
	put(dir, "arch/x86/lib/Makefile", "lib-y := memcpy.o\nobj-y := usercopy.o\n");
	put(dir, "arch/x86/pci/Makefile", "obj-y := pci.o\n");
	put(dir, "init/Makefile", "obj-y := main.o version.o\n");
	put(dir, "kernel/Makefile",
	    "obj-y = fork.o exit.o\nobj-$(CONFIG_MODULES) += module.o\nobj-y += sched/\n");
	put(dir, "kernel/sched/Makefile", "obj-y += core.o fair.o\n");
	put(dir, "lib/Makefile", "lib-y := string.o\nobj-y += sort.o\n");
	put(dir, "net/Makefile", "obj-y := socket.o\nobj-$(CONFIG_INET) += ipv4/\n");
	put(dir, "net/ipv4/Makefile", "obj-y := tcp.o udp.o\n");
	/* a composite built in (its parts into built-in.a) and a module of
	 * three parts, a single-file module, a modules' directory */
	put(dir, "drivers/Makefile",
	    "obj-y += tty/\nobj-$(CONFIG_VIRTIO) += virtio/\nobj-$(CONFIG_SND) += sound/\n"
	    "obj-$(CONFIG_FW) += firmware/\n");
	/* a directory kbuild visits for its lib.a and extra-y alone (as the
	 * EFI stub's), and objects named by a string option */
	put(dir, "drivers/firmware/Makefile",
	    "obj-y += fw.o\nsubdir-$(CONFIG_EFI_STUB) += libstub\n"
	    "obj-y += $(addsuffix .gen.o, $(CONFIG_EXTRA_FIRMWARE))\n");
	put(dir, "drivers/firmware/libstub/Makefile",
	    "lib-y := a.o b.o\nextra-y := $(lib-y)\nlib-y := $(patsubst %.o,%.stub.o,$(lib-y))\n"
	    "obj-y += not-built.o\n");
	put(dir, "drivers/tty/Makefile",
	    "obj-y += tty.o\ntty-y := tty_io.o n_tty.o\ntty-$(CONFIG_A) += tty_a.o\n"
	    "obj-$(CONFIG_SERIAL) += serial.o\nserial-objs := core.o port.o\n"
	    "serial-$(CONFIG_SERIAL) += extra.o\n");
	put(dir, "drivers/virtio/Kbuild", "obj-$(CONFIG_VIRTIO) += virtio.o\n");
	put(dir, "drivers/virtio/Makefile", "obj-y += wrong.o\n");
	put(dir, "arch/arm64/Makefile", "libs-y := arch/arm64/lib/ $(libs-y)\n");
	put(dir, "arch/arm64/Kbuild", "obj-y += kernel/\n");
	put(dir, "arch/arm64/kernel/Makefile", "obj-y := setup.o\n");
	put(dir, "arch/arm64/lib/Makefile", "lib-y := memcpy.o\n");
	put(dir, "drivers/sound/Makefile",
	    "obj-$(CONFIG_SND) += snd.o\nobj-y += in-module-dir.o\n");
}

static void estimate_arch(const char *src, const char *config, const char *arch,
			  struct kbuild_estimate *e)
{
	assert_int_equal(kbuild_estimate(src, config, strlen(config), arch, e), 0);
	/* what every build prints besides, measured on a real one */
	assert_in_range(e->fixed, 100, 250);
}

static void estimate(const char *src, const char *config, struct kbuild_estimate *e)
{
	estimate_arch(src, config, "x86_64", e);
}

static void test_tree(void **state)
{
	char dir[128];
	struct kbuild_estimate e, net;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "estimate");
	fake_tree(dir);
	/* built in: init 2, arch/x86/kernel 2 (head_64.o), kernel 2, sched
	 * 2, lib and arch/x86/lib 2 each (an obj-y, a lib-y), drivers/tty 2
	 * (tty_a.o not set); built-in.a of init, arch/x86, arch/x86/kernel,
	 * kernel, kernel/sched, lib, arch/x86/lib, drivers, drivers/tty: 9,
	 * and 2 lib.a */
	estimate(dir, "CONFIG_A=n\n", &e);
	assert_int_equal(e.objects, 2 + 2 + 2 + 2 + 2 + 2 + 2);
	assert_int_equal(e.archives, 9 + 2);
	assert_int_equal(e.modules, 0);
	assert_int_equal(e.lines, e.fixed + e.objects + e.archives);
	assert_int_equal(e.dirs, 1 + 9);
	/* CONFIG_NET adds net/ (socket.o, its built-in.a), CONFIG_INET ipv4/
	 * (2, built-in.a); CONFIG_PCI arch/x86/pci (1, built-in.a);
	 * CONFIG_A tty_a.o */
	estimate(dir, "# comment\nCONFIG_A=y\nCONFIG_NET=y\nCONFIG_INET=y\nCONFIG_PCI=y\n"
		 "# CONFIG_SND is not set\n", &net);
	assert_int_equal(net.objects - e.objects, 1 + 2 + 1 + 1);
	assert_int_equal(net.archives - e.archives, 3);
	assert_int_equal(net.lines - e.lines, 5 + 3);
	/* modules: serial (3 parts, LD [M]), virtio (its Kbuild, not its
	 * Makefile), snd in a modules' directory (its obj-y not built):
	 * objects 3 + 1 + 1, and per module .mod.o, .ko, install, strip;
	 * CONFIG_MODULES: modules_install's DEPMOD */
	estimate(dir, "CONFIG_MODULES=y\nCONFIG_SERIAL=m\nCONFIG_VIRTIO=m\nCONFIG_SND=m\n", &net);
	assert_int_equal(net.modules, 3);
	assert_int_equal(net.per_module, 4);
	assert_int_equal(net.objects - e.objects, 1 /* module.o */ + 3 + 1 + 1);
	assert_int_equal(net.archives, e.archives);     /* modules' directories have none */
	assert_int_equal(net.fixed, e.fixed + 1);
	assert_int_equal(net.lines - e.lines, 1 + (3 + 1) + 1 + 1 + 3 * 4 + 1);
	/* signed modules: a line more each */
	estimate(dir, "CONFIG_SERIAL=m\nCONFIG_MODULE_SIG_ALL=y\n", &net);
	assert_int_equal(net.per_module, 5);
	assert_int_equal(net.lines - e.lines, 3 + 1 + 5);
	/* the stub's directory: a.o, b.o (extra-y), a.stub.o, b.stub.o
	 * (lib-y), its lib.a, not its obj-y; firmware/: fw.o, built-in.a
	 * (a string option "" names nothing); CONFIG_KALLSYMS: its 8 lines
	 * in the link */
	estimate(dir, "CONFIG_FW=y\nCONFIG_EFI_STUB=y\nCONFIG_EXTRA_FIRMWARE=\"\"\n"
		 "CONFIG_KALLSYMS=y\n", &net);
	assert_int_equal(net.objects - e.objects, 1 + 4);
	assert_int_equal(net.archives - e.archives, 2);
	assert_int_equal(net.fixed - e.fixed, 8);
	assert_int_equal(net.lines - e.lines, 5 + 2 + 8);
	estimate(dir, "CONFIG_FW=y\nCONFIG_EXTRA_FIRMWARE=\"a.bin b.bin\"\n", &net);
	assert_int_equal(net.objects - e.objects, 1 + 2);
	/* arm64: its arch directories (arch/arm64/lib/ by libs-y before the
	 * top Makefile's), and fewer lines besides (no bzImage, no objtool) */
	estimate_arch(dir, "CONFIG_A=n\n", "arm64", &net);
	assert_int_equal(net.objects, 2 + 1 + 2 + 2 + 2 + 1 + 2);
	assert_int_equal(net.archives, 9 + 2);
	assert_in_range(e.fixed - net.fixed, 30, 100);
	tu_rmrf(dir);
}

/* A tree whose root Kbuild lists no directories (before linux 5.19):
 * kbuild's usual ones, block/ and net/ when the .config has them */
static void test_old_tree(void **state)
{
	char dir[128];
	struct kbuild_estimate e;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "estimate-old");
	put(dir, "Kbuild", "targets := kernel/bounds.s\n");
	put(dir, "kernel/Makefile", "obj-y := fork.o\n");
	put(dir, "block/Makefile", "obj-y := bio.o\n");
	put(dir, "net/Makefile", "obj-y := socket.o\n");
	estimate(dir, "CONFIG_BLOCK=y\n", &e);
	assert_int_equal(e.objects, 2);
	assert_int_equal(e.dirs, 3);                  /* the root, kernel/, block/ */
	assert_int_equal(e.archives, 2);
	tu_rmrf(dir);
	/* nothing to read: no estimate */
	tu_tmpdir(dir, sizeof(dir), "estimate-none");
	assert_int_equal(kbuild_estimate(dir, "", 0, "x86_64", &e), -1);
	assert_int_equal(kbuild_estimate(dir, "", 0, "../x", &e), -1);
	tu_rmrf(dir);
}

/* A series may change the Kbuild files: paths out of the tree, links and
 * a directory naming itself are not followed, and nothing loops */
static void test_hostile(void **state)
{
	char dir[128], *out, *link;
	struct kbuild_estimate e;

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "estimate-hostile");
	put(dir, "Kbuild", "obj-y += ../ /etc/ ./ kernel/ kernel//sched/ link/ loop/ fifo/\n");
	put(dir, "kernel/Makefile", "obj-y := fork.o\nobj-y += ../kernel/ ./\n");
	put(dir, "kernel/sched/Makefile", "obj-y := core.o\n");
	put(dir, "outside/Makefile", "obj-y := a.o b.o c.o\n");
	out = tu_path(dir, "outside");
	link = tu_path(dir, "link");
	assert_int_equal(symlink(out, link), 0);
	put(dir, "loop/Makefile", "obj-y += self.o loop/\n");
	free(link);
	link = tu_path(dir, "loop/loop");
	assert_int_equal(symlink("..", link), 0);
	free(link);
	link = tu_path(dir, "fifo");
	assert_int_equal(mkdir(link, 0755), 0);
	free(link);
	link = tu_path(dir, "fifo/Makefile");
	assert_int_equal(mkfifo(link, 0644), 0);
	estimate(dir, "", &e);
	assert_int_equal(e.objects, 2);               /* fork.o, self.o: nothing through a link */
	assert_int_equal(e.dirs, 3);
	free(link);
	free(out);
	tu_rmrf(dir);
}

/* A Kbuild file made to stall kfleetd (a variable doubled until its cap,
 * then copied on every line): the walk stops at its work's bound, and
 * there is no estimate */
static void test_work_bound(void **state)
{
	char dir[128];
	struct buf k = BUF_INIT(0);
	struct kbuild_estimate e;
	int64_t t0 = mono_ms();

	(void)state;
	tu_tmpdir(dir, sizeof(dir), "estimate-bound");
	buf_puts(&k, "a := 0123456789abcdef\n");
	for (int i = 0; i < 20; i++)
		buf_puts(&k, "a := $(a) $(a)\n");
	for (int i = 0; i < 2000; i++)
		buf_puts(&k, "b := $(a)$(a)$(a)$(a)\nobj-y += $(filter %.o,$(a))\n");
	buf_puts(&k, "obj-y += kernel/\n");
	put(dir, "Kbuild", buf_str(&k));
	put(dir, "kernel/Makefile", "obj-y := fork.o\n");
	assert_int_equal(kbuild_estimate(dir, "", 0, "x86_64", &e), -1);
	assert_int_equal(errno, E2BIG);
	assert_true(mono_ms() - t0 < 20000);
	buf_release(&k);
	tu_rmrf(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assignments),
		cmocka_unit_test(test_conditionals),
		cmocka_unit_test(test_tree),
		cmocka_unit_test(test_old_tree),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_work_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
