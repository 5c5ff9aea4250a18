#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Starts virtlogd and libvirtd where no init system does (no systemd here).
# libvirtd runs under `tini -s`, a child subreaper, so QEMU processes are
# reaped at once when guests stop. Does nothing when libvirtd already answers.
if virsh -c qemu:///system version >/dev/null 2>&1; then
	exit 0
fi
pgrep -x virtlogd >/dev/null || virtlogd -d
pgrep -x libvirtd >/dev/null || setsid tini -s -- libvirtd >/var/log/kfleet-libvirtd.log 2>&1 < /dev/null &
for _ in $(seq 1 100); do
	virsh -c qemu:///system version >/dev/null 2>&1 && exit 0
	sleep 0.2
done
echo "libvirtd did not start; its log:" >&2
tail -n 20 /var/log/kfleet-libvirtd.log >&2
exit 1
