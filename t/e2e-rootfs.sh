#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Jobs on a root disk, end to end: kfleetd makes an ext4 image from Debian
# packages of the guest's arch (mmdebstrap, cached), boots each run on a
# fresh qcow2 overlay of it; the agent sends the job's results directory
# as an archive before the guest stops, and when it could not (a crash)
# kfleetd copies it out of the disk with libguestfs (regular files only). Runs the
# shipped hackbench job and a probe job on the Debian x86_64 kernel, and the
# probe on arm64.
. "$(dirname "$0")/lib.sh"

kf_config ""
# a job on a disk image the user names: the probe's, on $T/distro.qcow2
mkdir -p "$T/jobs"
sed -e 's/^name = rootfs-probe/name = distro-probe/' -e "s|^rootfs = .*|image = $T/distro.qcow2|" \
	"$TOP/t/data/jobs-rootfs/rootfs-probe.job" > "$T/jobs/distro-probe.job"
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-rootfs:$T/jobs|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
show=$(kf jobs show hackbench 2>&1)
check "jobs show: the root disk's packages" contains "$show" "root disk:  Debian packages rt-tests coreutils"
check "jobs show: the results directory" contains "$show" "results:    /var/tmp/kfleet-results"

q() { kf run "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
p1=$(q --job rootfs-probe --kernel "$KERNEL")
hb=$(q --job hackbench --kernel "$KERNEL" --vcpus 2)
bad=$(q --job rootfs-badpkg --kernel "$KERNEL")
cr=$(q --job rootfs-crash --kernel "$KERNEL")
check "four runs queued" test -n "$p1" -a -n "$hb" -a -n "$bad" -a -n "$cr"
for id in $p1 $hb $bad $cr; do kf_wait_state "$id" done 600 || break; done

dir=$(kf_field "$p1" run_dir)
out=$(cat "$dir/output.txt" 2>/dev/null)
check "probe: passed" kf_outcome "$p1" passed
check "probe: its root is the ext4 disk" contains "$out" "root: /dev/vda ext4"
check "probe: the disk's userland (GNU coreutils, not busybox)" contains "$out" "userland: ls (GNU coreutils) 9.1"
check "probe: KFLEET_RESULTS names the job's directory" contains "$out" "KFLEET_RESULTS=/srv/out"
check "probe: a regular file copied out" equals "$(cat "$dir/results/a.txt" 2>&1)" hello
check "probe: a file in a subdirectory copied out whole" equals "$(stat -c %s "$dir/results/sub/zeros.bin" 2>&1)" 100000
check "probe: the symlink is not copied" test ! -e "$dir/results/shadow-link" -a ! -L "$dir/results/shadow-link"
check "probe: the fifo is not copied" test ! -e "$dir/results/fifo"
check "probe: the overlay is gone after the copy" test ! -e "$dir/root.qcow2"
check "probe: the results came from the agent, no disk copy" grep -q "run $p1: results '/srv/out': 2 files, 100006 bytes streamed by the agent" "$T/kfleetd.log"
check "probe: concluded once QEMU let go of its overlay, not at the poweroff" \
	sh -c "! grep -q 'run $p1: the guest powered off' '$T/kfleetd.log'"
check "probe: the archive's frames dropped from the channel file" equals "$(grep -c '^KF1 [0-9]* res ' "$dir/agent.log")" 0
check "probe: the channel file keeps the exit frame" grep -q '^KF1 [0-9]* exit ' "$dir/agent.log"
check "probe: no archive left in the run's directory" test ! -e "$dir/results.tar"
img=$(ls "$T"/var/cache/rootfs-*.ext4 2>/dev/null)
check "two images cached (probe's and hackbench's)" equals "$(echo "$img" | wc -l)" 2
check "each image has its manifest" sh -c "for i in $(echo $img); do test -s \"\${i%.ext4}.manifest\" || exit 1; done"
check "the manifest names the packages' versions" sh -c "grep -q '^rt-tests ' $T/var/cache/rootfs-*.manifest"
sums=$(sha256sum $img)
page=$(curl -sf "$KF_URL/runs/$p1")
check "run page: the result files listed" contains "$page" "sub/zeros.bin"
check "result file served" equals "$(curl -sf "$KF_URL/runs/$p1/results/a.txt")" hello
check "result path escaping the directory refused" equals "$(curl -s -o /dev/null -w '%{http_code}' --path-as-is "$KF_URL/runs/$p1/results/../console.log")" 400
check "API: result files with sizes" contains "$(curl -sf "$KF_URL/api/runs/$p1")" '"path":"sub/zeros.bin","bytes":100000'

# the probe's reproducer: its root image beside the kernel and initrd, and
# run.sh boots a fresh overlay on it each time (the probe fails on a disk
# an earlier boot wrote its marker to)
out=$(kf repro "$p1" -d "$T/repro" 2>&1)
check "repro: a root-disk run's reproducer" contains "$out" "$T/repro: run $p1's reproducer"
check "repro: ...with the image the run's overlay was on" cmp -s "$T/repro/root-base.img" "$(cut -d' ' -f4- "$dir/disk.base")"
check "repro: ...kept sparse" test "$(du -k "$T/repro/root-base.img" | cut -f1)" -lt "$(( $(stat -c %s "$T/repro/root-base.img") / 2048 ))"
check "repro: ...the domain boots the reproducer's overlay" contains "$(cat "$T/repro/domain.xml")" "<source file='@DIR@/root.qcow2'/>"
recorded=$(cat "$dir/output.txt")
check "repro: run.sh (virsh create) prints the run's output" equals "$(sh "$T/repro/run.sh" 2>"$T/repro.err")" "$recorded"
check "repro: ...and again on bare QEMU, on a fresh overlay" equals "$(sh "$T/repro/run.sh" qemu 2>>"$T/repro.err")" "$recorded"
base=$(cut -d' ' -f4- "$dir/disk.base")
touch -r "$base" "$T/mtime.ref"; touch "$base"
out=$(kf repro "$p1" -d "$T/repro2" 2>&1)
check "repro: an image changed since the run is refused, naming it" contains "$out" "the run's root image '$base' changed since the run"
touch -r "$T/mtime.ref" "$base"

hdir=$(kf_field "$hb" run_dir)
check "hackbench: passed" kf_outcome "$hb" passed
check "hackbench: three time samples" equals "$(db "select count(*) from samples where run_id = $hb and metric = 'hackbench-time' and unit = 's' and value > 0")" 3
check "hackbench: its output kept as a result file" grep -q "^Time:" "$hdir/results/hackbench.txt"

# a kernel that panics after the command wrote its results: nothing was
# streamed, so they are copied out of the overlay
crdir=$(kf_field "$cr" run_dir)
check "crash: the run is a crash" equals "$(kf_field "$cr" outcome)" crash
check "crash: results copied out of the disk" equals "$(cat "$crdir/results/a.txt" 2>&1)" fromdisk
check "crash: the disk copy is logged" grep -q "run $cr: results '/srv/out': 1 files, 9 bytes copied out" "$T/kfleetd.log"
check "a package Debian lacks: infra, named" contains "$(kf_field "$bad" "outcome || ': ' || detail")" "kfleet-no-such-package"
# that run ended before its channel was open: kfleetd's stdin is still
# its own (it once closed fd 0 there; SQLite, given fd 0 for kfleet.db
# next, closed it, kfleetd's locks went, and a sqlite3 reader deleted the
# live WAL: the runs queued after it were not in the file)
check "a run that ends before its channel opens closes no fd of others" \
	equals "$(readlink "/proc/$KF_PID/fd/0")" /dev/null
check "...and kfleetd's database keeps its WAL" test -e "$T/var/kfleet.db-wal"

# a second run on the same image: nothing rebuilt, and the first run's
# write to / is not there (the probe fails if it finds its marker)
p2=$(q --job rootfs-probe --kernel "$KERNEL")
a2=$(q --job rootfs-probe --arch arm64 --kernel /opt/kfleet/arm64/vmlinuz)
for id in $p2 $a2; do kf_wait_state "$id" done 600 || break; done
check "second probe: passed on a fresh overlay" kf_outcome "$p2" passed
check "second probe: the cached images unchanged" equals "$(sha256sum $img)" "$sums"
adir=$(kf_field "$a2" run_dir)
check "arm64 probe: passed" kf_outcome "$a2" passed
check "arm64 probe: an arm64 userland ran" grep -q aarch64 "$adir/output.txt"
check "CPU models recorded: qemu64 on x86_64 TCG, cortex-a57 on arm64" equals \
	"$(kf_field "$p2" cpu_model) $(kf_field "$a2" cpu_model)" "qemu64 cortex-a57"
check "arm64 probe: results copied out" equals "$(cat "$adir/results/a.txt" 2>&1)" hello
# A distro-like image: a partition table, the root in partition 1 (here
# the probe's own root image, copied in), as qcow2. kfleet finds its root
# by libguestfs inspection and boots overlays of it.
src=$(grep -l '^grep .* amd64$' "$T"/var/cache/rootfs-*.manifest | sed 's/\.manifest$/.ext4/')
truncate -s 1G "$T/distro.raw"
printf 'start=2048, type=83\n' | sfdisk -q "$T/distro.raw"
dd if="$src" of="$T/distro.raw" bs=1M seek=1 conv=notrunc,sparse status=none
qemu-img convert -O qcow2 "$T/distro.raw" "$T/distro.qcow2" && rm -f "$T/distro.raw"
chmod 644 "$T/distro.qcow2"
dsum=$(sha256sum < "$T/distro.qcow2")
d1=$(q --job distro-probe --kernel "$KERNEL")
kf_wait_state "$d1" done 600
ddir=$(kf_field "$d1" run_dir)
check "distro image: passed" kf_outcome "$d1" passed
check "distro image: its root found by inspection" grep -q "image '$T/distro.qcow2': root /dev/vda1 (ext4), found by inspection" "$T/kfleetd.log"
check "distro image: the guest's root is partition 1" contains "$(cat "$ddir/output.txt")" "root: /dev/vda1 ext4"
check "distro image: results copied out" equals "$(cat "$ddir/results/a.txt" 2>&1)" hello
check "distro image: the user's image unchanged" equals "$(sha256sum < "$T/distro.qcow2")" "$dsum"
kf_done
