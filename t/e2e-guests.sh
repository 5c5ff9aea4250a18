#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# End to end on real guests of both arches: arm64 (virt, GICv3, cortex-a57
# under TCG) with the agent on a virtio-serial port, x86_64 with the agent
# on virtio-serial (modules from /lib/modules) or, without modules, on its
# second serial port; 16 vCPUs on each arch; a panic on arm64, an OOM
# kill and a hang (no output for the silence timeout).
. "$(dirname "$0")/lib.sh"
# the default guest setup (t/lib.sh, kf_boot)
BOOT=default

ARM_KERNEL=${KFLEET_TEST_ARM64_KERNEL:-/opt/kfleet/arm64/vmlinuz}
check "arm64 kernel present (images/fetch-arm64.sh)" test -r "$ARM_KERNEL"
check "arm64 agent built" test -x "$BIN/kfleet-agent-arm64"

kf_config "silence_timeout = 10"
check "kfleetd starts" kf_start
q() { kf run "$@" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }
a1=$(q --arch arm64 --kernel "$ARM_KERNEL" -- 'uname -m; uname -r; nproc')
a16=$(q --arch arm64 --kernel "$ARM_KERNEL" --vcpus 16 --memory 1024 -- 'nproc')
x16=$(q --kernel "$KERNEL" --vcpus 16 --memory 1024 -- 'nproc; ls /dev/vport*')
apanic=$(q --arch arm64 --kernel "$ARM_KERNEL" -- 'echo c > /proc/sysrq-trigger')
oom=$(q --kernel "$KERNEL" --memory 256 -- 'awk "BEGIN { s = \"x\"; while (1) s = s s }"')
hang=$(q --arch arm64 --kernel "$ARM_KERNEL" -- 'echo going quiet; sleep 120')
xnuma=$(q --kernel "$KERNEL" --vcpus 4 --memory 1024 --topology 2:2:1 --numa 2 -- \
	'ls /sys/devices/system/node | grep -c "^node"; cat /sys/devices/system/cpu/cpu3/topology/physical_package_id')
anuma=$(q --arch arm64 --kernel "$ARM_KERNEL" --vcpus 4 --memory 1024 --numa 2 -- \
	'ls /sys/devices/system/node | grep -c "^node"')
check "six runs queued" test -n "$a1" -a -n "$a16" -a -n "$x16" -a -n "$apanic" -a -n "$oom" -a -n "$hang"
for id in $a1 $a16 $x16 $apanic $oom $hang $xnuma $anuma; do kf_wait_state "$id" done 300 || break; done

out=$(cat "$(kf_field "$a1" run_dir)/output.txt")
check "arm64: passed" kf_outcome "$a1" passed
check "arm64: the guest is aarch64" equals "$(echo "$out" | sed -n 1p)" aarch64
check "arm64: it runs the arm64 kernel" equals "$(echo "$out" | sed -n 2p)" "$(kf_field "$a1" guest_release)"
check "arm64: machine virt recorded" sh -c "kf_m='$(kf_field "$a1" machine)'; case \$kf_m in virt*) exit 0;; esac; exit 1"
xml=$(cat "$(kf_field "$a1" run_dir)/domain.xml")
check "arm64: GICv3 and cortex-a57" sh -c "echo \"\$0\" | grep -q \"gic version='3'\" && echo \"\$0\" | grep -q cortex-a57" "$xml"
check "arm64: agent on the virtio port" contains "$xml" "name='org.kfleet.agent.0'"
check "arm64 16 vCPUs: nproc is 16" equals "$(cat "$(kf_field "$a16" run_dir)/output.txt")" 16
check "arm64 16 vCPUs: passed" kf_outcome "$a16" passed
check "x86_64 16 vCPUs: nproc is 16" equals "$(sed -n 1p "$(kf_field "$x16" run_dir)/output.txt")" 16
check "x86_64 with modules: agent on /dev/vport*" contains "$(cat "$(kf_field "$x16" run_dir)/output.txt")" /dev/vport
check "arm64 panic: crash" equals "$(kf_field "$apanic" outcome)" crash
check "arm64 panic: the panic line" contains "$(kf_field "$apanic" detail)" "sysrq triggered crash"
check "OOM: crash" equals "$(kf_field "$oom" outcome)" crash
check "OOM: the detail names the OOM kill of awk" sh -c "echo '$(kf_field "$oom" detail)' | grep -q 'OOM kill: .*Out of memory: Killed process .*(awk)'"
check "hang: timeout after the silence timeout" equals "$(kf_field "$hang" outcome)" timeout
check "hang: the detail says so" contains "$(kf_field "$hang" detail)" "hang: no console or agent output for 10 s"
check "hang: output before it kept" equals "$(cat "$(kf_field "$hang" run_dir)/output.txt")" "going quiet"
check "x86_64 NUMA: the guest sees 2 nodes and CPU 3 on socket 1" equals "$(tr '\n' ' ' < "$(kf_field "$xnuma" run_dir)/output.txt")" "2 1 "
check "arm64 NUMA: the guest sees 2 nodes" equals "$(cat "$(kf_field "$anuma" run_dir)/output.txt")" 2
out=$(kf run --kernel "$KERNEL" --vcpus 4 --topology 2:2:2 -- true 2>&1)
check "a topology that does not multiply to the vCPUs is refused" contains "$out" "topology '2:2:2': must be SOCKETS:CORES:THREADS, each from 1 to 4096, whose product is the 4 vCPUs"
out=$(kf run --kernel "$ARM_KERNEL" -- true 2>&1)
check "an arm64 Image is not an x86_64 kernel" contains "$out" "not an x86_64 bzImage"
out=$(kf run --arch arm64 --kernel "$KERNEL" -- true 2>&1)
check "a bzImage is not an arm64 kernel" contains "$out" "not an arm64 Image"
kf_stop

# Without the kernel's modules an x86_64 guest still talks on ttyS1.
mkdir -p "$T/nomodules"
kf_config "" 
sed -i "s|^\[run\]|[image]\nmodules_path = $T/nomodules\n\n[run]|" "$T/kfleetd.ini"
kf_start
x=$(q --kernel "$KERNEL" -- 'echo over-the-serial-port')
kf_wait_state "$x" done 120
check "x86_64 without modules: passed" kf_outcome "$x" passed
check "x86_64 without modules: output" equals "$(cat "$(kf_field "$x" run_dir)/output.txt")" over-the-serial-port
check "x86_64 without modules: agent on serial port 1" grep -q "<target port='1'/>" "$(kf_field "$x" run_dir)/domain.xml"
kf_stop

# firmware = qboot: x86_64 guests start from QEMU's qboot.rom, not SeaBIOS;
# arm64 ones are as they were
kf_config ""
sed -i "s|^\[host local\]$|[host local]\nfirmware = qboot|" "$T/kfleetd.ini"
kf_start
x=$(q --kernel "$KERNEL" -- 'echo booted-by-qboot')
a=$(q --arch arm64 --kernel "$ARM_KERNEL" -- 'echo arm64-as-before')
for id in $x $a; do kf_wait_state "$id" done 120 || break; done
check "qboot: passed" equals "$(kf_field "$x" outcome) $(cat "$(kf_field "$x" run_dir)/output.txt")" "passed booted-by-qboot"
check "qboot: its domain XML loads qboot.rom" grep -q "<loader readonly='yes' type='rom'>/usr/share/qemu/qboot.rom</loader>" "$(kf_field "$x" run_dir)/domain.xml"
check "qboot: the run's machine says so" sh -c "case '$(kf_field "$x" machine)' in pc-q35-*' qboot') exit 0;; esac; exit 1"
check "qboot: an arm64 run on that host passed, without a loader" sh -c "[ '$(kf_field "$a" outcome)' = passed ] && ! grep -q '<loader' '$(kf_field "$a" run_dir)/domain.xml'"
kf_stop

# boot = fast: qboot, the x86_64 kernel entered at its PVH entry (the
# bzImage's ELF kernel unpacked into the cache once), and GUEST_FAST_ARGS,
# recorded with the run; warnings and worse only on the console; the
# agent's virtio port on the root bus, with no pcie-root-port from libvirt
kf_config ""
sed -i "s|^\[host local\]$|[host local]\nboot = fast|" "$T/kfleetd.ini"
kf_start
x=$(q --kernel "$KERNEL" -- 'echo fast-x86')
a=$(q --arch arm64 --kernel "$ARM_KERNEL" -- 'echo fast-arm64')
for id in $x $a; do kf_wait_state "$id" done 120 || break; done
check "fast: both passed" equals "$(kf_field "$x" outcome) $(cat "$(kf_field "$x" run_dir)/output.txt") $(kf_field "$a" outcome) $(cat "$(kf_field "$a" run_dir)/output.txt")" "passed fast-x86 passed fast-arm64"
check "fast: the runs record their setup" equals "$(kf_field "$x" boot)/$(kf_field "$a" boot)" "fast: qboot pvh loglevel=5 nokaslr tsc=reliable/fast: loglevel=5 nokaslr"
pvh=$(sed -n 's|.*<kernel>\(.*\)</kernel>.*|\1|p' "$(kf_field "$x" run_dir)/domain.xml")
check "fast: the x86_64 guest booted the ELF kernel from the cache" sh -c "case '$pvh' in '$T/var/cache/pvh-'*.vmlinux) ;; *) exit 1;; esac && [ \"\$(head -c 4 '$pvh' | od -An -c | tr -d ' ')\" = 177ELF ]"
check "fast: that kernel is unpacked once" equals "$(ls "$T/var/cache" | grep -c '^pvh-')" 1
check "fast: the x86_64 guest had qboot and the arguments" sh -c "grep -q '<loader readonly=.yes. type=.rom.>' '$(kf_field "$x" run_dir)/domain.xml' && grep -q 'no_timer_check loglevel=5 nokaslr tsc=reliable</cmdline>' '$(kf_field "$x" run_dir)/domain.xml'"
check "fast: no info lines on the console" sh -c "! grep -q 'Run /init as init process' '$(kf_field "$a" run_dir)/console.log'"
check "virtio port on the root bus, no pcie-root-port" sh -c "grep -q '\"driver\":\"virtio-serial-pci\",\"id\":\"virtio-serial0\",\"bus\":\"pcie.0\"' '$(kf_field "$a" run_dir)/qemu.log' && ! grep -q pcie-root-port '$(kf_field "$a" run_dir)/qemu.log'"
check "no domain of this test is left" kf_no_domains
kf_done
