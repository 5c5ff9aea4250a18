#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# The Debian package, as a user meets it: dpkg-buildpackage -b builds
# kfleet_*.deb from a copy of the source tree; dpkg -i installs it on this
# machine and starts the kfleetd service (its init script: there is no
# systemd here), which reads /etc/kfleet/kfleetd.conf and keeps its state in
# /var/lib/kfleet; kfleet, run from / with no option, finds it and runs a
# real guest with the installed agent; the service reloads its config,
# restarts keeping its runs, and stops with kfleet shutdown; dpkg --purge
# stops it and leaves nothing of it behind.
. "$(dirname "$0")/lib.sh"

SBIN=/usr/sbin/kfleetd
# the package's own kfleet, from /, with nothing of this test's environment
pkf() { (cd / && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root /usr/bin/kfleet "$@"); }
svc_pid() { pgrep -x -f "$SBIN -l /var/log/kfleet/kfleetd.log" | head -n 1; }
# gone PID: no such process, or a zombie (a daemon started in the
# background is the child of pid 1, which may not reap it here)
gone() { st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1); [ -z "$st" ] || [ "$st" = Z ]; }
# until SECONDS SHELL: until SHELL succeeds, at most SECONDS
until_ok() { for _ in $(seq 1 $(($1 * 5))); do sh -c "$2" && return 0; sleep 0.2; done; return 1; }
purge() {
	dpkg-query -W -f='${Status}' kfleet 2>/dev/null | grep -q installed || return 0
	dpkg --purge kfleet >>"$T/dpkg.log" 2>&1
}
# Docker's policy-rc.d (exit 101) keeps dpkg from starting or stopping any
# service: for this test, kfleetd's are let through, so that dpkg -i starts
# it and dpkg --purge stops it, as on a machine without one; the rest still
# ask the machine's own, put back when the test ends
POLICY=/usr/sbin/policy-rc.d
SAVED=/usr/sbin/policy-rc.d.e2e-deb-saved
unpolicy() { [ -e "$SAVED" ] && mv -f "$SAVED" "$POLICY"; }
if [ -e "$POLICY" ] && [ ! -e "$SAVED" ]; then
	cp -p "$POLICY" "$SAVED"
	printf '#!/bin/sh\n# t/e2e-deb.sh: kfleetd allowed; the rest as %s says\n%s\n%s\n' "$SAVED" \
		'for a in "$@"; do [ "$a" = kfleetd ] && exit 0; done' "exec $SAVED \"\$@\"" > "$POLICY.tmp"
	chmod 755 "$POLICY.tmp" && mv -f "$POLICY.tmp" "$POLICY"
fi
# a test that fails midway still takes its package away
trap 'purge; unpolicy; kf_cleanup' EXIT

if dpkg-query -W -f='${Status}' kfleet 2>/dev/null | grep -q "install ok"; then
	echo "e2e-deb: a kfleet package is installed on this machine already; this test" >&2
	echo "e2e-deb: installs and purges its own: dpkg --purge kfleet first" >&2
	trap 'unpolicy; kf_cleanup' EXIT
	check "no kfleet package installed before the test" false
	kf_done; exit 1
fi
check "port 8080, the package's default listen, is free" sh -c "! ss -Hltn 'sport = :8080' | grep -q ."

# a copy of the tree (dpkg-buildpackage cleans the tree it builds in)
mkdir -p "$T/src/kfleet"
(cd "$TOP" && git ls-files -co --exclude-standard | while read -r f; do [ -e "$f" ] && echo "$f"; done |
	tar -cf - -T -) | tar -xf - -C "$T/src/kfleet"
check "dpkg-buildpackage -b -uc -us builds kfleet_*.deb" sh -c \
	"cd '$T/src/kfleet' && dpkg-buildpackage -b -uc -us > '$T/deb-build.log' 2>&1 || { tail -n 30 '$T/deb-build.log' >&2; false; }"
deb=$(ls "$T"/src/kfleet_*_amd64.deb 2>/dev/null | head -n 1)
check "...one package" test -f "$deb"
list=$(dpkg-deb -c "$deb" | awk '{print $6}')
check "...with the programs, the agents, the jobs, the service and the man pages" has "$list" \
	./usr/bin/kfleet ./usr/sbin/kfleetd ./usr/lib/kfleet/kfleet-agent-x86_64 \
	./usr/lib/kfleet/wl/x86_64/sock-filter-churn ./usr/share/kfleet/jobs/defs/getpgid-rate.job \
	./etc/kfleet/kfleetd.conf ./lib/systemd/system/kfleetd.service ./etc/init.d/kfleetd \
	./usr/share/man/man1/kfleet.1.gz ./usr/share/man/man8/kfleetd.8.gz
check "...the config a conffile" contains "$(dpkg-deb -I "$deb" conffiles)" /etc/kfleet/kfleetd.conf

check "dpkg -i installs it" sh -c "cd / && dpkg -i '$deb' > '$T/dpkg.log' 2>&1 || { cat '$T/dpkg.log' >&2; false; }"
check "...and the build user" sh -c "id kfleet-build >/dev/null"
# dpkg started it (its postinst, through invoke-rc.d and the init script)
until_ok 30 'curl -sf http://127.0.0.1:8080/api/health >/dev/null'
pid=$(svc_pid)
check "dpkg started the kfleetd service: the installed kfleetd" test -n "$pid"
check "...its pid in its pid file" equals "$(cat /var/lib/kfleet/kfleetd.pid 2>/dev/null)" "$pid"
check "...its state in /var/lib/kfleet, reachable by QEMU" sh -c \
	"test -f /var/lib/kfleet/kfleet.db && su -s /bin/sh libvirt-qemu -c 'test -x /var/lib/kfleet'"
check "...its working directory not the source tree" lacks "$(readlink /proc/"$pid"/cwd)" "$TOP"
check "/etc/init.d/kfleetd status: running" sh -c "/etc/init.d/kfleetd status >/dev/null"

out=$(pkf jobs 2>&1)
check "kfleet from /, no option: the installed jobs, from the service" has "$out" getpgid-rate sock-filter-churn
out=$(pkf run --kernel "$KERNEL" --wait -- 'echo from-the-package; cat /proc/cmdline' 2>&1)
id=$(printf '%s\n' "$out" | sed -n 's/^run \([0-9]*\) queued$/\1/p' | head -n 1)
check "a guest run with the installed binaries passes" contains "$out" "passed"
check "...and its output is the guest's" contains "$(pkf logs --output "$id" 2>&1)" from-the-package
check "man kfleet: the installed page, every command" has "$(man -P cat kfleet 2>/dev/null)" \
	"kfleet run" "kfleet test" "kfleet bisect" "kfleet watch" "kfleet shutdown"
check "man kfleetd.conf: the keys" has "$(man -P cat kfleetd.conf 2>/dev/null)" state_dir public_url

# the admin changes the config and reloads; the service says what changed
echo "[daemon]" >> /etc/kfleet/kfleetd.conf
echo "log_level = debug" >> /etc/kfleet/kfleetd.conf
check "/etc/init.d/kfleetd reload" sh -c "/etc/init.d/kfleetd reload >/dev/null"
until_ok 10 'grep -q "log_level" /var/log/kfleet/kfleetd.log'
check "...the log says the level changed" grep -q "log_level.*info.*debug" /var/log/kfleet/kfleetd.log
check "...the same kfleetd still serves" sh -c "[ '$(svc_pid)' = '$pid' ] && curl -sf http://127.0.0.1:8080/api/health >/dev/null"

check "/etc/init.d/kfleetd restart" sh -c "/etc/init.d/kfleetd restart >/dev/null"
until_ok 30 'curl -sf http://127.0.0.1:8080/api/health >/dev/null'
npid=$(svc_pid)
check "...a new kfleetd" sh -c "[ -n '$npid' ] && [ '$npid' != '$pid' ]"
check "...that kept the run" contains "$(pkf runs 2>&1)" "$id"
check "kfleet shutdown stops the service" sh -c "cd / && /usr/bin/kfleet shutdown >/dev/null 2>&1"
check "...the process gone" gone "$npid"
check "...its pid file too" test ! -e /var/lib/kfleet/kfleetd.pid
/etc/init.d/kfleetd start >>"$T/dpkg.log" 2>&1
until_ok 30 'curl -sf http://127.0.0.1:8080/api/health >/dev/null'
ppid=$(svc_pid)
inst=$(sqlite3 /var/lib/kfleet/kfleet.db "select value from meta where key = 'instance'" 2>/dev/null)

check "dpkg --purge kfleet" sh -c "dpkg --purge kfleet >> '$T/dpkg.log' 2>&1 || { tail -n 20 '$T/dpkg.log' >&2; false; }"
check "...stops the service" eval "[ -n '$ppid' ] && gone '$ppid'"
check "...leaves no program, config, state or log" sh -c \
	"! ls -d /usr/sbin/kfleetd /usr/bin/kfleet /usr/lib/kfleet /usr/share/kfleet /etc/kfleet /etc/init.d/kfleetd /var/lib/kfleet /var/log/kfleet 2>/dev/null | grep -q ."
check "...and no guest of its" sh -c "! virsh -c qemu:///system list --all --name | grep -q '^kf-${inst:-none}-'"
unpolicy
trap kf_cleanup EXIT
kf_done
