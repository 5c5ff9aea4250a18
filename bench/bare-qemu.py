#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""bench/bare-qemu.py: boots a kernel and initrd with bare QEMU the way
kfleet's domain XML does (same machine, CPU, memory, console and agent
virtio-serial port), reads the agent channel from its socket (and
acknowledges the agent's exit frame, as kfleet does), and prints
"hello_ms total_ms": QEMU start to the agent's HELLO frame, and to QEMU's
exit. Used by bench/boot.sh as the baseline kfleet is measured against.
With $BARE_CGROUP (a cgroup directory) QEMU starts in that cgroup: beside
libvirt's guests (/sys/fs/cgroup/cpu/machine/NAME on cgroup v1), it gets
the CPU share they get on a loaded host. $BARE_EXTRA adds QEMU options.
$BARE_SMP replaces the -smp value (say "16,sockets=16,cores=1,threads=1",
libvirt's topology)."""
import os, socket, subprocess, sys, tempfile, time

arch, kernel, initrd, vcpus, mem = sys.argv[1:6]
tmp = tempfile.mkdtemp(prefix="kfleet-bare.")
sock = os.path.join(tmp, "agent.sock")
# the same thread mode kfleet picks: one TCG thread when vCPUs outnumber CPUs
accel = ["-accel", "tcg,thread=single" if int(vcpus) > os.cpu_count() else "tcg"]
if arch == "x86_64":
    cmd = ["qemu-system-x86_64"] + accel + ["-machine", "q35", "-cpu", "qemu64",
           "-append", "console=ttyS0,115200 panic=-1 rdinit=/init no_timer_check"]
else:
    cmd = ["qemu-system-aarch64"] + accel + ["-machine", "virt,gic-version=3",
           "-cpu", "cortex-a57", "-append", "console=ttyAMA0 panic=-1 rdinit=/init"]
cmd += ["-m", mem, "-smp", os.environ.get("BARE_SMP", vcpus),
        "-nographic", "-no-reboot", "-nodefaults",
        "-kernel", kernel, "-initrd", initrd,
        "-chardev", "file,id=con,path=" + os.path.join(tmp, "console.log"),
        "-serial", "chardev:con",
        "-device", "virtio-serial-pci",
        "-chardev", "socket,id=agent,path=%s,server=on,wait=off" % sock,
        "-device", "virtserialport,chardev=agent,name=org.kfleet.agent.0"]
# $BARE_EXTRA: more QEMU options, split at spaces, to find what a
# difference from libvirt's command line costs (say "-sandbox on")
cmd += os.environ.get("BARE_EXTRA", "").split()
cgroup = os.environ.get("BARE_CGROUP")


def enter_cgroup():
    with open(os.path.join(cgroup, "cgroup.procs"), "w") as f:
        f.write(str(os.getpid()))


t0 = time.monotonic()
q = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL,
                     preexec_fn=enter_cgroup if cgroup else None)
s = None
while s is None and q.poll() is None:
    try:
        s = socket.socket(socket.AF_UNIX)
        s.connect(sock)
    except OSError:
        s = None
        time.sleep(0.01)
hello, data, acked = None, b"", False
while s is not None:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
    if hello is None and b" hello " in data:
        hello = time.monotonic()
    # as kfleet does (run.c, ack_exit): the agent waits for this, up to
    # 10 s, before it powers the guest off
    if not acked and b" exit " in data:
        s.sendall(b"ack\n")
        acked = True
q.wait()
t1 = time.monotonic()
subprocess.run(["rm", "-rf", tmp])
if hello is None or b" exit " not in data:
    sys.exit("bare qemu: no hello/exit from the agent")
print("%d %d" % ((hello - t0) * 1000, (t1 - t0) * 1000))
