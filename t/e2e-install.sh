#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make install, as a packager runs it (DESTDIR staged, PREFIX=/usr): the
# binaries, agents, workload programs, jobs, config fragments and man pages
# land where make install says; the installed kfleetd finds its agents, jobs
# and fragments from where it is (no source tree), serves, and runs a
# command in a guest with the installed agent; kfleet jobs lists the
# installed jobs; make uninstall leaves nothing behind.
# tier: quick (builds no real kernel, under a minute: make check-quick)
. "$(dirname "$0")/lib.sh"

R=$T/root
check "make install DESTDIR=... PREFIX=/usr" make -s -C "$TOP" install DESTDIR="$R" PREFIX=/usr
files=$(cd "$R" && find . -type f | sort | tr '\n' ' ')
check "the programs, agents, jobs, fragments and man pages are installed" has "$files" \
	"./usr/bin/kfleet " "./usr/sbin/kfleetd " "./usr/lib/kfleet/kfleet-agent-x86_64 " \
	"./usr/lib/kfleet/wl/x86_64/sock-filter-churn " "./usr/share/kfleet/jobs/defs/getpgid-rate.job " \
	"./usr/share/kfleet/kernels/configs/kfleet-guest.config " "./usr/share/man/man1/kfleet.1 " \
	"./usr/share/man/man5/kfleetd.conf.5 " "./usr/share/man/man8/kfleetd.8 "
check "...as many jobs as the source tree has" equals "$(ls "$R/usr/share/kfleet/jobs/defs" | wc -l)" "$(ls "$TOP/jobs/defs" | wc -l)"
out=$("$R/usr/sbin/kfleetd" -nv)
check "the installed kfleetd takes its jobs and fragments from share/kfleet" has "$out" \
	"job_dirs = $R/usr/share/kfleet/jobs/defs" "configs_dir = $R/usr/share/kfleet/kernels/configs"
check "...nothing from the source tree" lacks "$out" "$TOP"
check "...and its state under the prefix's var/lib/kfleet, not ./var" contains "$out" "state_dir = $R/usr/var/lib/kfleet"
conf=$R/etc/kfleet/kfleetd.conf
check "an example config in sysconfdir (/etc for PREFIX=/usr)" test -f "$conf"
check "...every key of kfleetd -nv, commented out, with the installed paths" has "$(cat "$conf")" \
	"# [daemon]" "# state_dir = /var/lib/kfleet" "# job_dirs = /usr/share/kfleet/jobs/defs" \
	"# [run]" "# timeout = 300" "# agent_dir = /usr/lib/kfleet"
check "...nothing of the staging directory in it" lacks "$(cat "$conf")" "$R"
check "...and it is a valid config as it is" "$R/usr/sbin/kfleetd" -n -c "$conf"
sed 's/^# \(\[run\]\|timeout = 300\)$/\1/; s/^\(timeout = \)300$/\1301/' "$conf" > "$T/uncommented.conf"
check "...and with a line uncommented and changed, it says so" contains "$("$R/usr/sbin/kfleetd" -n -v -c "$T/uncommented.conf")" "timeout = 301"
check "make install keeps a config that is there" sh -c "echo '# mine' >> '$conf' && make -s -C '$TOP' install DESTDIR='$R' PREFIX=/usr && tail -n 1 '$conf' | grep -qx '# mine'"

# the installed daemon and CLI, with this test's state and port
kf_config ""
sed -i '/^job_dirs/d' "$T/kfleetd.ini"
BIN=$R/usr/sbin
check "the installed kfleetd starts" kf_start
kf() { "$R/usr/bin/kfleet" --url "$KF_URL" --token-file "$T/var/token" "$@"; }
check "kfleet jobs lists the installed jobs" has "$(kf jobs 2>&1)" getpgid-rate sock-filter-churn kselftest-size
out=$(kf run --kernel "$KERNEL" --wait -- 'echo from-the-installed-agent' 2>&1)
id=$(db "select max(id) from runs")
check "a run with the installed agent passes" kf_outcome "$id" passed
check "...and says what it ran" contains "$(kf logs --output "$id" 2>&1)" "from-the-installed-agent"
check "man finds the installed pages" contains "$(MANPATH="$R/usr/share/man" man -P cat kfleetd.conf 2>/dev/null)" "public_url"
kf_stop

check "make uninstall" make -s -C "$TOP" uninstall DESTDIR="$R" PREFIX=/usr
check "...leaves no file behind but the config" equals "$(cd "$R" && find . -type f)" "./etc/kfleet/kfleetd.conf"
kf_done
