# SPDX-License-Identifier: GPL-2.0-only
# kfleet: kfleetd (daemon), kfleet (CLI), kfleet-agent (static, in the guest).
#   make               build into build/ (binaries in build/bin/, man pages in build/man/)
#   make check         unit tests, the same under ASan+UBSan, fuzz, then end-to-end tests
#   make check-quick   unit tests and the end-to-end tests that build no kernel (~5 min)
#   make check-unit    unit tests only (SANITIZE=1 for the sanitizer build)
#   make check-e2e     end-to-end tests (need libvirtd, see README.md), E2E_JOBS at once
#   make fuzz          run the libFuzzer targets (clang) for FUZZ_SECONDS each
#   make demo          start kfleetd with the embedded defaults and run a command in a guest
#   make install       PREFIX=/usr/local (DESTDIR= to stage): bin/kfleet, sbin/kfleetd,
#                      lib/kfleet/ (agents, workloads), share/kfleet/ (jobs, configs), man
#   WERROR=1           add -Werror (CI does)
CC      ?= gcc
PKGS    := libvirt libmicrohttpd jansson libcurl inih libarchive sqlite3 libcrypto zlib libguestfs libxml-2.0
CFLAGS  ?= -O2 -g
override CFLAGS += -std=c17 -D_GNU_SOURCE -Wall -Wextra -Wshadow -Wno-unused-parameter -I. \
	$(shell pkg-config --cflags $(PKGS)) $(if $(WERROR),-Werror)
LDLIBS  := $(shell pkg-config --libs $(PKGS)) -lpthread -lm

ifeq ($(SANITIZE),1)
B := build-san
override CFLAGS += -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
B := build
endif

# where make install puts kfleet, and where an installed kfleet reads its
# config (sysconfdir/kfleet) and keeps its state (localstatedir/lib/kfleet):
# /etc and /var for PREFIX=/usr, PREFIX/etc and PREFIX/var for any other
PREFIX ?= /usr/local
sysconfdir ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
localstatedir ?= $(if $(filter /usr,$(PREFIX)),/var,$(PREFIX)/var)

ARCH_HOST := $(shell uname -m)
# guest/ (the agent, the workloads) is built for the guest, apart (below)
LIB_SRCS := $(wildcard analysis/*.c bisect/*.c common/*.c config/*.c db/*.c export/*.c kernels/*.c \
	images/*.c orchestrator/*.c jobs/*.c watch/*.c web/*.c)
LIB_OBJS := $(LIB_SRCS:%.c=$(B)/%.o)
# the CLI's files but its main(), for kfleet and the CLI's unit tests
CLI_SRCS := $(filter-out cli/kfleet.c, $(wildcard cli/*.c))
CLI_OBJS := $(CLI_SRCS:%.c=$(B)/%.o)
UNIT_SRCS := $(wildcard t/unit/*/*_test.c)
UNIT_BINS := $(UNIT_SRCS:t/unit/%.c=$(B)/t/unit/%)
BINS := $(B)/bin/kfleetd $(B)/bin/kfleet $(B)/bin/kfleet-agent-x86_64
# arm64 guests need the cross compiler (gcc-aarch64-linux-gnu); built when it is there
CROSS_ARM64 ?= aarch64-linux-gnu-gcc
ifneq ($(shell command -v $(CROSS_ARM64) 2>/dev/null),)
BINS += $(B)/bin/kfleet-agent-arm64
endif
# Workload programs (guest/workloads/), static, one set per guest arch: the
# programs the jobs in jobs/defs name, found by kfleetd under bin/wl/ARCH/
WL_NAMES  := sock-filter-churn bpf-trigger uprobe-fork prog-pack-load tcx-attach
WL_CFLAGS := -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Wshadow -Wno-unused-parameter \
	$(if $(WERROR),-Werror) -static
WL_DEPS   := guest/workloads/wl.c guest/workloads/wl.h
BINS      += $(WL_NAMES:%=$(B)/bin/wl/x86_64/%)
ifneq ($(shell command -v $(CROSS_ARM64) 2>/dev/null),)
BINS      += $(WL_NAMES:%=$(B)/bin/wl/arm64/%)
endif


# man pages, made from the text the programs print (man/mangen.c)
MAN_PAGES := $(B)/man/kfleet.1 $(B)/man/kfleetd.8 $(B)/man/kfleetd.conf.5

all: $(BINS) man

# -MMD -MP: each object (and unit test, and mangen) names the headers it
# includes in a .d file beside it, read back below, so a header change
# rebuilds what includes it and nothing else
DEPFLAGS := -MMD -MP
$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

# an installed kfleet finds its config and state from its prefix as make
# install puts them; sysconfdir= or localstatedir= given to make are built
# into config/install.o instead (rebuilt when they change)
ifeq ($(origin sysconfdir)$(origin localstatedir),filefile)
PATHS_STAMP := $(B)/config/paths.default
else
PATHS_STAMP := $(B)/config/paths.$(subst /,_,$(sysconfdir)).$(subst /,_,$(localstatedir))
$(B)/config/install.o: override CFLAGS += -DKFLEET_SYSCONFDIR='"$(sysconfdir)"' \
	-DKFLEET_LOCALSTATEDIR='"$(localstatedir)"'
endif
$(B)/config/install.o: $(PATHS_STAMP)
$(PATHS_STAMP):
	@mkdir -p $(dir $@)
	@rm -f $(B)/config/paths.*
	@touch $@

$(B)/libkfleet.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(B)/libkfleetcli.a: $(CLI_OBJS)
	rm -f $@
	ar rcs $@ $^

# the daemon's own files (main, reload) before the library
DAEMON_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard daemon/*.c))
$(B)/bin/kfleetd: $(DAEMON_OBJS) $(B)/libkfleet.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(B)/bin/kfleet: $(B)/cli/kfleet.o $(B)/libkfleetcli.a $(B)/libkfleet.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The agent runs as the guest's only program besides busybox: static, no sanitizers.
# It links only the libc-only files of common/ (util.c's helpers, not hash.c's
# libcrypto); sections it does not call are dropped.
AGENT_SRCS := guest/agent.c guest/boot.c guest/agent_tar.c common/frame.c common/util.c common/buf.c
AGENT_DEPS := $(AGENT_SRCS) guest/guest.h guest/agent_tar.h common/frame.h common/util.h common/buf.h common/hash.h common/host.h images/images.h
AGENT_CFLAGS := -std=c17 -D_GNU_SOURCE -O2 -Wall -Wextra -Wno-unused-parameter $(if $(WERROR),-Werror) \
	-I. -static -ffunction-sections -fdata-sections -Wl,--gc-sections
$(B)/bin/kfleet-agent-x86_64: $(AGENT_DEPS)
	@mkdir -p $(dir $@)
	gcc $(AGENT_CFLAGS) -o $@ $(AGENT_SRCS)

$(B)/bin/kfleet-agent-arm64: $(AGENT_DEPS)
	@mkdir -p $(dir $@)
	$(CROSS_ARM64) $(AGENT_CFLAGS) -o $@ $(AGENT_SRCS)

$(B)/bin/wl/x86_64/%: guest/workloads/%.c $(WL_DEPS)
	@mkdir -p $(dir $@)
	gcc $(WL_CFLAGS) -o $@ $< guest/workloads/wl.c -lm -lpthread

$(B)/bin/wl/arm64/%: guest/workloads/%.c $(WL_DEPS)
	@mkdir -p $(dir $@)
	$(CROSS_ARM64) $(WL_CFLAGS) -o $@ $< guest/workloads/wl.c -lm -lpthread

$(B)/t/unit/%: t/unit/%.c $(B)/libkfleetcli.a $(B)/libkfleet.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_GUEST) $(B)/libkfleetcli.a $(B)/libkfleet.a \
		$(LDLIBS) -lcmocka
# the agent's result stream, read back by the daemon's side in one test
$(B)/t/unit/orchestrator/resstream_test: UNIT_GUEST := $(B)/guest/agent_tar.o
$(B)/t/unit/orchestrator/resstream_test: $(B)/guest/agent_tar.o

$(B)/man/mangen: man/mangen.c $(B)/libkfleetcli.a $(B)/libkfleet.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) $(LDFLAGS) -o $@ $< $(B)/libkfleetcli.a $(B)/libkfleet.a $(LDLIBS)

$(B)/man/kfleet.1: $(B)/man/mangen
	$(B)/man/mangen kfleet > $@.tmp && mv $@.tmp $@

$(B)/man/kfleetd.8: $(B)/man/mangen $(B)/bin/kfleetd
	$(B)/bin/kfleetd -h > $@.usage && $(B)/man/mangen kfleetd $@.usage > $@.tmp && mv $@.tmp $@

$(B)/man/kfleetd.conf.5: $(B)/man/mangen docs/configuration.md
	$(B)/man/mangen conf docs/configuration.md > $@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)

unit-bins: $(UNIT_BINS) $(BINS) man

# scripts run with the unit tests: offline and quick
UNIT_SCRIPTS := t/cli-help.sh t/man-check.sh t/docs-links.sh t/spdx-check.sh

check-unit: unit-bins
	@t/run-unit.sh $(B) $(UNIT_BINS) $(UNIT_SCRIPTS)

check-san:
	$(MAKE) SANITIZE=1 check-unit

# two tests at once (E2E_JOBS=1: one at a time); t/run-e2e.sh says which run alone
E2E_JOBS ?= 2
check-e2e: $(BINS)
	@E2E_JOBS=$(E2E_JOBS) t/run-e2e.sh $(B)

# each part in turn, compiled with a job per core, each part timed, and at
# the end where the time went (t/run-check.sh); make check-quick: the unit
# tests and the end-to-end tests that build no kernel (t/run-e2e.sh --quick)
check:
	@t/run-check.sh
check-quick:
	@t/run-check.sh --quick

# Fuzz targets (libFuzzer, clang): make fuzz [FUZZ_SECONDS=10]
FUZZ_SECONDS ?= 10
FUZZ_CFLAGS := -g -O1 -std=c17 -D_GNU_SOURCE -I. -fsanitize=fuzzer,address,undefined \
	$(shell pkg-config --cflags $(PKGS))
build/fuzz/frame_fuzz: fuzz/frame_fuzz.c common/frame.c common/frame.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/frame_fuzz.c common/frame.c
CONSOLE_FUZZ_SRCS := orchestrator/console.c analysis/crash.c common/buf.c common/printk.c
build/fuzz/console_fuzz: fuzz/console_fuzz.c $(CONSOLE_FUZZ_SRCS) common/printk.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/console_fuzz.c $(CONSOLE_FUZZ_SRCS)
JOBS_FUZZ_LIBS := $(shell pkg-config --libs jansson) -lm
# KTAP's parser is two files and reads printk's fields with common/printk.c
KTAP_FUZZ_SRCS := jobs/ktap.c jobs/ktap_line.c jobs/result.c common/printk.c
build/fuzz/ktap_fuzz: fuzz/ktap_fuzz.c fuzz/jobs_fuzz.h $(KTAP_FUZZ_SRCS) jobs/jobs.h jobs/jobsint.h \
		jobs/ktapint.h common/printk.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/ktap_fuzz.c $(KTAP_FUZZ_SRCS) $(JOBS_FUZZ_LIBS)
build/fuzz/%_fuzz: fuzz/%_fuzz.c fuzz/jobs_fuzz.h jobs/%.c jobs/result.c jobs/jobs.h jobs/jobsint.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/$*_fuzz.c jobs/$*.c jobs/result.c $(JOBS_FUZZ_LIBS)
# common/cmd.h's subprocess helper, for the fuzz targets that link it
CMD_SRCS := common/cmd_build.c common/cmd_run.c common/cmd_wait.c common/cmd_msg.c
SERIES_FUZZ_SRCS := kernels/series.c kernels/followups.c kernels/mbox.c kernels/subject.c kernels/diffstat.c \
	kernels/trailers.c $(CMD_SRCS) common/buf.c common/util.c
build/fuzz/series_fuzz: fuzz/series_fuzz.c $(SERIES_FUZZ_SRCS) kernels/kernelsint.h kernels/kernels.h \
		common/cmd.h common/cmdint.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/series_fuzz.c $(SERIES_FUZZ_SRCS) $(shell pkg-config --libs jansson libcrypto)
KBUILD_FUZZ_SRCS := kernels/apply.c kernels/buildlog.c kernels/kconfig.c kernels/sandbox.c kernels/copyout.c \
	kernels/tree.c kernels/kimage.c $(CMD_SRCS) common/buf.c common/util.c common/hash.c \
	common/log.c
build/fuzz/kbuild_fuzz: fuzz/kbuild_fuzz.c $(KBUILD_FUZZ_SRCS) kernels/kernels.h kernels/kernelsint.h \
		common/cmd.h common/cmdint.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/kbuild_fuzz.c $(KBUILD_FUZZ_SRCS) $(shell pkg-config --libs libcrypto)
# the Kbuild files a first build's estimate reads (kernels/estimate_mk.c): a series may change them
KMK_FUZZ_SRCS := kernels/estimate_mk.c kernels/copyout.c $(CMD_SRCS) common/buf.c common/util.c \
	common/hash.c common/log.c
build/fuzz/kmk_fuzz: fuzz/kmk_fuzz.c $(KMK_FUZZ_SRCS) kernels/estimateint.h kernels/kernelsint.h \
		kernels/kernels.h common/cmd.h common/cmdint.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/kmk_fuzz.c $(KMK_FUZZ_SRCS) $(shell pkg-config --libs libcrypto)
COPYOUT_FUZZ_SRCS := images/extract.c images/quote.c images/watchdog.c common/util.c common/buf.c
build/fuzz/copyout_fuzz: fuzz/copyout_fuzz.c $(COPYOUT_FUZZ_SRCS) images/copyout.h images/copyoutint.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/copyout_fuzz.c $(COPYOUT_FUZZ_SRCS) \
		$(shell pkg-config --libs libguestfs libarchive libcrypto) -lpthread
# a Host header and the masking of secrets in text shown to a client
HOST_FUZZ_SRCS := web/hostcheck.c common/redact.c common/buf.c common/util.c
build/fuzz/host_fuzz: fuzz/host_fuzz.c $(HOST_FUZZ_SRCS) web/hostcheck.h common/redact.h common/util.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/host_fuzz.c $(HOST_FUZZ_SRCS)
# kfleetd's config file, with watch/'s checker for its [watch NAME] sections
CONFIG_FUZZ_SRCS := config/config.c config/install.c config/section.c config/print.c config/watches.c watch/config.c watch/spec.c \
	export/origin.c common/util.c common/buf.c common/log.c
build/fuzz/config_fuzz: fuzz/config_fuzz.c $(CONFIG_FUZZ_SRCS) config/config.h watch/watch.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/config_fuzz.c $(CONFIG_FUZZ_SRCS) -linih \
		$(shell pkg-config --libs jansson)
# patchwork's REST answers and a public-inbox Atom feed, as a watch reads them
PW_FUZZ_SRCS := watch/pw.c watch/http.c common/buf.c common/util.c common/redact.c
build/fuzz/pw_fuzz: fuzz/pw_fuzz.c $(PW_FUZZ_SRCS) watch/pw.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/pw_fuzz.c $(PW_FUZZ_SRCS) $(shell pkg-config --libs jansson libcurl)
LORE_FUZZ_SRCS := watch/lore.c common/buf.c common/util.c
build/fuzz/lore_fuzz: fuzz/lore_fuzz.c $(LORE_FUZZ_SRCS) watch/lore.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/lore_fuzz.c $(LORE_FUZZ_SRCS) $(shell pkg-config --libs libxml-2.0)
# the URLs kfleet reads and builds itself: Link: headers, patchwork's query strings, a watch's URLs
URL_FUZZ_SRCS := kernels/fetch.c watch/pw.c watch/http.c watch/spec.c common/buf.c common/util.c \
	common/redact.c common/log.c
build/fuzz/url_fuzz: fuzz/url_fuzz.c $(URL_FUZZ_SRCS) kernels/kernels.h watch/pw.h watch/watch.h
	@mkdir -p $(dir $@)
	clang $(FUZZ_CFLAGS) -o $@ fuzz/url_fuzz.c $(URL_FUZZ_SRCS) \
		$(shell pkg-config --libs jansson libcurl zlib)
FUZZ_BINS := build/fuzz/frame_fuzz build/fuzz/console_fuzz build/fuzz/ktap_fuzz \
		build/fuzz/test_progs_fuzz build/fuzz/bench_fuzz build/fuzz/metrics_fuzz \
		build/fuzz/series_fuzz build/fuzz/kbuild_fuzz build/fuzz/copyout_fuzz \
		build/fuzz/host_fuzz build/fuzz/config_fuzz build/fuzz/pw_fuzz build/fuzz/lore_fuzz \
		build/fuzz/url_fuzz build/fuzz/kmk_fuzz
fuzz-bins: $(FUZZ_BINS)
fuzz: $(FUZZ_BINS)
	@t/run-fuzz.sh $(FUZZ_SECONDS) $^

demo: $(BINS)
	@B=$(B) sh daemon/demo.sh

# make install: kfleetd finds lib/kfleet and share/kfleet from where it is
# (config/config.c), so the tree may be staged (DESTDIR) or moved; installed,
# it reads sysconfdir/kfleet/kfleetd.conf and keeps its state in
# localstatedir/lib/kfleet
INSTALL_ROOT := $(DESTDIR)$(PREFIX)
ETC_DIR := $(DESTDIR)$(sysconfdir)/kfleet
# the example config: kfleetd -nv of the installed kfleetd, every line
# commented out (the embedded defaults); the staging prefix taken out
EXAMPLE_CONF := $(ETC_DIR)/kfleetd.conf
install: $(BINS) $(MAN_PAGES)
	install -d $(INSTALL_ROOT)/bin $(INSTALL_ROOT)/sbin $(INSTALL_ROOT)/lib/kfleet \
		$(INSTALL_ROOT)/share/kfleet/jobs/defs $(INSTALL_ROOT)/share/kfleet/kernels/configs \
		$(INSTALL_ROOT)/share/man/man1 $(INSTALL_ROOT)/share/man/man5 $(INSTALL_ROOT)/share/man/man8
	install -m 755 $(B)/bin/kfleet $(INSTALL_ROOT)/bin/kfleet
	install -m 755 $(B)/bin/kfleetd $(INSTALL_ROOT)/sbin/kfleetd
	install -m 755 $(filter $(B)/bin/kfleet-agent-%,$(BINS)) $(INSTALL_ROOT)/lib/kfleet/
	for a in x86_64 arm64; do [ ! -d $(B)/bin/wl/$$a ] || { install -d $(INSTALL_ROOT)/lib/kfleet/wl/$$a && \
		install -m 755 $(B)/bin/wl/$$a/* $(INSTALL_ROOT)/lib/kfleet/wl/$$a/; } || exit 1; done
	install -m 644 jobs/defs/*.job $(INSTALL_ROOT)/share/kfleet/jobs/defs/
	install -m 644 kernels/configs/*.config $(INSTALL_ROOT)/share/kfleet/kernels/configs/
	install -m 644 $(B)/man/kfleet.1 $(INSTALL_ROOT)/share/man/man1/
	install -m 644 $(B)/man/kfleetd.conf.5 $(INSTALL_ROOT)/share/man/man5/
	install -m 644 $(B)/man/kfleetd.8 $(INSTALL_ROOT)/share/man/man8/
	install -d -m 755 $(DESTDIR)$(localstatedir)/lib/kfleet $(ETC_DIR)
	[ -e $(EXAMPLE_CONF) ] || { { echo "# kfleetd's configuration: kfleetd.conf(5). Every key below is at its default"; \
		echo "# (kfleetd -nv prints them); uncomment a line to change it. kfleetd reads this"; \
		echo "# file when started with no -c; SIGHUP or kfleet reload re-reads it."; \
		$(INSTALL_ROOT)/sbin/kfleetd -n -v -c /dev/null | sed -e 1d \
			-e 's|$(abspath $(DESTDIR))/|/|g' -e 's|^\([a-z_[]\)|# \1|' \
			-e 's|^# jobs = [0-9]*$$|# jobs = (one per CPU online)|' \
			-e 's|^# state_dir = .*|# state_dir = $(localstatedir)/lib/kfleet|'; } \
		> $(EXAMPLE_CONF).tmp && mv $(EXAMPLE_CONF).tmp $(EXAMPLE_CONF); }

uninstall:
	rm -f $(INSTALL_ROOT)/bin/kfleet $(INSTALL_ROOT)/sbin/kfleetd \
		$(INSTALL_ROOT)/share/man/man1/kfleet.1 $(INSTALL_ROOT)/share/man/man5/kfleetd.conf.5 \
		$(INSTALL_ROOT)/share/man/man8/kfleetd.8
	rm -rf $(INSTALL_ROOT)/lib/kfleet $(INSTALL_ROOT)/share/kfleet
	@echo "make uninstall: $(ETC_DIR) and $(DESTDIR)$(localstatedir)/lib/kfleet are kept (config, state)"

clean:
	rm -rf build build-san

-include $(LIB_OBJS:.o=.d) $(CLI_OBJS:.o=.d) $(DAEMON_OBJS:.o=.d) $(B)/cli/kfleet.d \
	$(UNIT_BINS:=.d) $(B)/man/mangen.d

.PHONY: all man check check-quick check-unit check-san check-e2e demo fuzz fuzz-bins unit-bins clean \
	install uninstall
.SECONDARY:
