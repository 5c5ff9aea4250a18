#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A hostile series (DESIGN, Trust boundaries): a patch to the fake tree's
# Makefile runs a script of its own in every make of its build, which tries
# each escape a probe of kfleet's sandbox once found working: remounting the
# host's root read-write, reading kfleetd's token and /etc/shadow, reaching
# libvirt's socket, planting a gitdir and a hook for kfleet's own git,
# poisoning the slot's O= for the next series, leaving its artifact as a
# link to a host file, and a process behind. Two more series flood the log
# and fill the disk. Everything is checked on the host, from outside; then
# a benign series built after them must give the kernel a clean build
# gives, byte for byte.
# tier: quick (builds no real kernel, under a minute: make check-quick)
. "$(dirname "$0")/lib.sh"

tag=$(basename "$T")
marker=/var/tmp/kfleet-hostile-$tag
rm -f "$marker" "$marker-hook" "$marker-late"
trap 'rm -f "$marker" "$marker-hook" "$marker-late"; kf_cleanup' EXIT

sh "$TOP/t/fake-kbuild/mktree.sh" "$T/tree" >/dev/null
sh "$TOP/t/fake-kbuild/mkseries.sh" "$T/tree" "$T/series" >/dev/null
echo intact > "$T/victim"
clean=$(sha256sum < "$(sh "$T/tree/scripts/fake-kernel.sh" x86_64 "$T/tree")")
kf_config "
[build]
log_max = 2M
disk_max = 48M"
check "kfleetd starts" kf_start
kf tree add fake "$T/tree" >/dev/null 2>&1
for _ in $(seq 1 50); do [ "$(db "select state from trees where name = 'fake'")" = ready ] && break; sleep 0.2; done
base=$(git -C "$T/tree" rev-parse HEAD)

# mkevil NAME SCRIPT: a one-patch series whose Makefile runs SCRIPT (sh,
# given O=) at every make
mkevil() {
	rm -rf "$T/evil"
	git clone -q "$T/tree" "$T/evil"
	printf '%s\n' "$2" > "$T/evil/scripts/evil.sh"
	echo 'dummy-evil := $(shell sh $(srctree)/scripts/evil.sh "$(objtree)" >&2)' >> "$T/evil/Makefile"
	git -C "$T/evil" add -A
	git -C "$T/evil" -c user.name=Mallory -c user.email=m@evil.invalid commit -qm "kbuild: $1"
	git -C "$T/evil" format-patch -q --stdout --base="$base" -1 > "$T/$1.mbox"
}
# patched_build SUB: the patched build's state, detail and log
pbuild() { db "select $2 from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $1 and sb.side = 'patched'"; }

mkevil escape "
exec 1>&2
mount -o remount,bind,rw / && echo 'remounted /'
echo pwned > $marker && echo 'wrote the host'
echo \"token: \$(cat $T/var/token 2>/dev/null)\"
echo \"shadow: \$(head -n 1 /etc/shadow 2>/dev/null)\"
[ -e /run/libvirt/libvirt-sock ] && echo 'libvirt: socket there'
printf '<domain type=\"qemu\"><name>kf-hostile-$tag</name><memory>65536</memory><os><type>hvm</type></os></domain>' > /tmp/d.xml
virsh -c qemu:///system define /tmp/d.xml 2>/dev/null && echo 'libvirt: defined'
printf 'gitdir: /tmp/evilgit\n' > $T/var/slots/fake-src/.git && echo 'planted .git'
printf '#!/bin/sh\necho pwned > $marker-hook\n' > $T/var/trees/fake.git/hooks/post-checkout &&
	chmod +x $T/var/trees/fake.git/hooks/post-checkout && echo 'planted a hook'
ln -sf $T/victim $T/var/builds/x 2>/dev/null && echo 'reached builds/'
b=\$1/arch/x86/boot/bzImage
mkdir -p \$1/arch/x86/boot
if [ ! -e \$1/poisoned ]; then
	echo poisoned > \$b; touch -d 2099-01-01 \$b; : > \$1/poisoned
elif [ -f \$b ] && [ ! -L \$b ]; then
	ln -sf $T/victim \$b.new && mv -f \$b.new \$b && echo 'linked the image'
fi
setsid sh -c 'sleep 121; echo pwned > $marker-late' >/dev/null 2>&1 < /dev/null &
true"
out=$(kf submit --tree fake --mbox "$T/escape.mbox" --wait 2>&1)
s1=$(db "select max(id) from submissions")
log=$(cat "$(pbuild "$s1" dir)/build.log" 2>/dev/null)
check "the hostile series' build ran its script" contains "$log" "token: "
check "...could not remount the host's / read-write" lacks "$log" "remounted /"
check "...nor write the host" sh -c "[ ! -e '$marker' ]"
check "...did not read kfleetd's token" lacks "$log" "token: $(cat "$T/var/token")"
check "...nor /etc/shadow" lacks "$log" "shadow: root:"
check "...saw no libvirt socket" lacks "$log" "libvirt: socket there"
check "...and defined no domain" sh -c "! virsh -c qemu:///system dominfo kf-hostile-$tag >/dev/null 2>&1"
check "...could not replace the worktree's .git" equals "$(cat "$T/var/slots/fake-src/.git")" "gitdir: $T/var/trees/fake.git/worktrees/fake-src"
check "...nor plant a hook in the mirror" sh -c "[ ! -e '$T/var/trees/fake.git/hooks/post-checkout' ]"
check "...nor reach builds/" sh -c "[ ! -e '$T/var/builds/x' ] && [ ! -L '$T/var/builds/x' ]"
check "...its image, a link to a host file, was not taken" contains "$(pbuild "$s1" detail)" "a link, not taken"
check "...the host file is intact" equals "$(cat "$T/victim")" "intact"
# (the build's own sleep, whoever it runs as: other tests' builds run meanwhile)
check "...no process of the build is left" sh -c "! pgrep -f '^sleep 121\$' >/dev/null"
slot=$(ls -d "$T"/var/slots/fake-x86_64-*/ | head -n 1)
check "...the slot's image is still the base's" equals "$(sha256sum < "$slot/obj/arch/x86/boot/bzImage")" "$clean"
check "...and no overlay or stage of it is left" sh -c "[ -z \"\$(ls -A '$T/var/stage')\" ] && ! grep -q '$T/var/stage' /proc/mounts"

mkevil flood "yes 'flood flood flood flood' | head -c 20000000"
kf submit --tree fake --mbox "$T/flood.mbox" --wait >/dev/null 2>&1
s2=$(db "select max(id) from submissions")
check "a build that floods its log is stopped at log_max" contains "$(pbuild "$s2" detail)" "output went past 2097152 bytes"
check "...its log is capped, with the flood in it" sh -c "[ \$(stat -c %s '$(pbuild "$s2" dir)/build.log') -lt 2200000 ] && grep -q 'flood flood' '$(pbuild "$s2" dir)/build.log'"

mkevil fill "while :; do cat /usr/bin/* > \"\$1/fill.\$\$\" 2>/dev/null; sleep 0.2; done"
kf submit --tree fake --mbox "$T/fill.mbox" --wait >/dev/null 2>&1
s3=$(db "select max(id) from submissions")
check "a build that fills the disk is stopped at disk_max" contains "$(pbuild "$s3" detail)" "past [build] disk_max (48 MiB)"
check "...what it wrote is gone" sh -c "[ -z \"\$(ls -A '$T/var/stage')\" ] && [ -z \"\$(find '$T/var/slots' -name 'fill.*')\" ]"

# a benign series of another author, after all of them
out=$(kf submit --tree fake --mbox "$T/series/good.mbox" --arch x86_64 --wait 2>&1)
s4=$(db "select max(id) from submissions")
check "a benign series built after them builds" equals "$(pbuild "$s4" state)" "done"
check "...its kernel is the one a clean build gives, byte for byte" equals "$(sha256sum < "$(pbuild "$s4" dir)/vmlinuz")" "$clean"
check "...and no hook ran during its checkout" sh -c "[ ! -e '$marker-hook' ]"
kf_done
