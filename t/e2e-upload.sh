#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A remote host: kfleetd reaches this machine's libvirtd over SSH
# (qemu+ssh://, sshd on 127.0.0.1:2222 from .ci/sshd.sh), as it would reach
# another machine, so transfer = auto picks upload: kernel, initrd and root
# disk go into the host's storage pool as volumes, the guest starts paused,
# its console and agent channel come back as libvirt streams, and a job's
# overlay comes back by volume download for the results copy-out. Nothing
# in the domain XML names a file of the daemon's.
#
# The host's KVM is made to look like one that starts guests but boots no
# kernel (KFLEET_TEST_KVM=starts-no-boot), as on some machines of this kind:
# kfleetd serves at once while its KVM probe boots in the background, the
# host stays out of placement ("probing") until the probe gives up, and the
# runs then go under TCG. A restart takes the kept answer.
. "$(dirname "$0")/lib.sh"
# the default guest setup (t/lib.sh, kf_boot)
BOOT=default

POOL=kfleet-e2e-$$
virsh -c qemu:///system pool-destroy $POOL >/dev/null 2>&1
virsh -c qemu:///system pool-undefine $POOL >/dev/null 2>&1
URI='qemu+ssh://root@127.0.0.1:2222/system?keyfile=/root/.ssh/kfleet-ci&no_verify=1'
check "sshd answers for the remote host" sh "$TOP/.ci/sshd.sh"
kf_config ""
{ sed -n '1,/^\[host local\]$/p' "$T/kfleetd.ini"
  printf 'uri = %s\nslots = 2\npool = %s\npool_path = %s\n\n' "$URI" "$POOL" "$T/pool"
  sed -n '/^\[run\]$/,$p' "$T/kfleetd.ini"; } > "$T/k.ini" && mv "$T/k.ini" "$T/kfleetd.ini"
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-rootfs|" "$T/kfleetd.ini"
export KFLEET_TEST_KVM=starts-no-boot
check "kfleetd starts and makes the host's pool" kf_start
check "it serves before its KVM probe has answered" lacks "$(cat "$T/kfleetd.log")" "KVM probe:"
check "...the host is probing, out of placement" contains "$(curl -s "$KF_URL/api/hosts")" '"accel":"probing"'
t0=$(date +%s)
kf_stop
check "stopped while probing, it does not wait for the probe" test $(( $(date +%s) - t0 )) -lt 10
check "...which gave up, keeping no answer" grep -q "x86_64 tcg (the daemon stopped before the kvm guest booted)" "$T/kfleetd.log"
check "started again, it probes again" kf_start
check "the host is reached over ssh, by upload" grep -q "host 'local' (qemu+ssh://root@127.0.0.1:2222/system" "$T/kfleetd.log"
check "the pool is libvirt's, at pool_path" sh -c "virsh -c qemu:///system pool-dumpxml $POOL | grep -q '<path>$T/pool</path>'"

q() { kf run "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
r1=$(q --kernel "$KERNEL" --vcpus 2 -- 'uname -r; nproc; echo upload-says-hi')
p1=$(q --job rootfs-probe --kernel "$KERNEL")
check "two runs queued" test -n "$r1" -a -n "$p1"
for id in $r1 $p1; do kf_wait_state "$id" done 600 || break; done
d1=$(kf_field "$r1" run_dir)
check "the probe's guest started but did not boot" grep -q "KVM probe: a kvm guest starts but does not boot" "$T/kfleetd.log"
check "...so the runs went under TCG" equals "$(kf_field "$r1" accel) $(kf_field "$p1" accel)" "tcg tcg"
check "...and the host is in placement under TCG" contains "$(curl -s "$KF_URL/api/hosts")" '"accel":"tcg"'
check "plain run: passed" kf_outcome "$r1" passed
check "plain run: the output came over the channel stream" contains "$(cat "$d1/output.txt")" "upload-says-hi"
check "plain run: the console came over the console stream" grep -q "Linux version" "$d1/console.log"
check "domain XML: the kernel from the pool" grep -q "<kernel>$T/pool/kernel-" "$d1/domain.xml"
check "domain XML: the initrd from the pool" grep -q "<initrd>$T/pool/kf-.*-initrd</initrd>" "$d1/domain.xml"
check "domain XML: a pty console, no file of ours" sh -c "grep -q \"<serial type='pty'>\" '$d1/domain.xml' && ! grep -q \"$T/var\" '$d1/domain.xml'"
pd=$(kf_field "$p1" run_dir)
check "root disk job: passed" kf_outcome "$p1" passed
check "root disk job: its root was the uploaded image's overlay" contains "$(cat "$pd/output.txt")" "root: /dev/vda ext4"
check "root disk job: results copied out of the downloaded overlay" equals "$(cat "$pd/results/a.txt" 2>&1)" hello
vols=$(virsh -c qemu:///system vol-list $POOL | awk 'NR>2 && $1 {print $1}')
check "the pool keeps the kernel and the root image" sh -c "echo '$vols' | grep -q '^kernel-' && echo '$vols' | grep -q '^rootfs-.*\.ext4$'"
check "...and no run's own volumes" lacks "$vols" "kf-"
# kfleet hosts and /hosts: what the pool holds, as kfleetd last listed it
# (a pass after each run): the kernel and the root image, no run's files
for _ in $(seq 1 150); do
	kf hosts | grep -q "pool $POOL: 1 kernel, 1 image, 0 of runs" && break
	sleep 0.2
done
check "kfleet hosts: the pool holds 1 kernel and 1 image, none of runs" \
	contains "$(kf hosts)" "pool $POOL: 1 kernel, 1 image, 0 of runs"
check "...and /hosts says so" contains "$(curl -s "$KF_URL/hosts")" "$POOL: 1 kernel, 1 image, 0 of runs"
check "...and /api/hosts counts the bytes on the host's disk" \
	equals "$(curl -s "$KF_URL/api/hosts" | python3 -c 'import json,sys; p=json.load(sys.stdin)["hosts"][0]["live"]["pool"]; print(p["kernels"], p["images"], p["bytes"] > 1000000)')" "1 1 True"
kvol=$(echo "$vols" | grep '^kernel-' | head -n 1)
before=$(stat -c %Y "$T/pool/$kvol")
sleep 1
r2=$(q --kernel "$KERNEL" -- 'echo again')
kf_wait_state "$r2" done 300
check "second run: passed" kf_outcome "$r2" passed
check "second run: the kernel was not sent again" equals "$(stat -c %Y "$T/pool/$kvol")" "$before"
kf_stop
check "restarted, it takes the kept answer" kf_start
check "...in placement at once, under TCG" grep -q "x86_64 tcg (a kvm guest starts but does not boot.*(kept from an earlier probe)" "$T/kfleetd.log"
kf_stop
virsh -c qemu:///system pool-destroy $POOL >/dev/null 2>&1
virsh -c qemu:///system pool-undefine $POOL >/dev/null 2>&1
kf_done
