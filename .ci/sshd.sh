#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Starts sshd on 127.0.0.1:2222 with a key of its own for root, so tests can
# reach this machine's libvirtd as a remote host would be reached:
#   qemu+ssh://root@127.0.0.1:2222/system?keyfile=/root/.ssh/kfleet-ci&no_verify=1
# (libvirt runs virt-ssh-helper on the far side). Idempotent.
set -e
mkdir -p /run/sshd /root/.ssh
chmod 700 /root/.ssh
ssh-keygen -A >/dev/null
[ -f /root/.ssh/kfleet-ci ] || ssh-keygen -q -t ed25519 -N '' -f /root/.ssh/kfleet-ci
grep -qf /root/.ssh/kfleet-ci.pub /root/.ssh/authorized_keys 2>/dev/null ||
	cat /root/.ssh/kfleet-ci.pub >> /root/.ssh/authorized_keys
chmod 600 /root/.ssh/authorized_keys
if ! ssh -p 2222 -i /root/.ssh/kfleet-ci -o BatchMode=yes -o StrictHostKeyChecking=no \
	-o UserKnownHostsFile=/dev/null root@127.0.0.1 true 2>/dev/null; then
	/usr/sbin/sshd -p 2222 -o ListenAddress=127.0.0.1 -o PermitRootLogin=prohibit-password \
		-o PasswordAuthentication=no
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		ssh -p 2222 -i /root/.ssh/kfleet-ci -o BatchMode=yes -o StrictHostKeyChecking=no \
			-o UserKnownHostsFile=/dev/null root@127.0.0.1 true 2>/dev/null && exit 0
		sleep 0.5
	done
	echo "sshd did not answer on 127.0.0.1:2222" >&2
	exit 1
fi
