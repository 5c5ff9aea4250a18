#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# kfleet repro end to end: a plain run of a command on the host's kernel in
# a real guest, its reproducer written (a directory, and a tarball), and
# the reproducer's run.sh run on this machine with virsh create and with
# bare QEMU: both print the command's output the run recorded.
. "$(dirname "$0")/lib.sh"

kf_config ""
check "kfleetd starts" kf_start

out=$(kf run --kernel "$KERNEL" --wait -- 'echo repro-says-$((6 * 7)); uname -r; nproc' 2>&1)
id=$(kf_field "$(sqlite3 "$T/var/kfleet.db" "select max(id) from runs")" id)
check "the run passed" kf_outcome "$id" passed
recorded=$(cat "$(kf_field "$id" run_dir)/output.txt")
check "...and recorded its output" contains "$recorded" "repro-says-42"

check "the run page says how to reproduce it" contains "$(curl -sf "$KF_URL/runs/$id")" "<code>kfleet repro $id</code>"
cd "$T"
out=$(kf repro "$id" -d "$T/repro" 2>&1)
check "kfleet repro writes a directory" contains "$out" "$T/repro: run $id's reproducer"
for f in vmlinuz initrd.img domain.xml run.sh command run.json README; do
	check "...with $f" test -s "$T/repro/$f"
done
check "...the initrd is the one the run booted" equals \
	"$(sha256sum < "$T/repro/initrd.img" | cut -d' ' -f1)" \
	"$(sed -n 's/^initrd \([0-9a-f]*\) .*/\1/p' "$(kf_field "$id" run_dir)/initrd.manifest")"
check "...the domain XML has no path of the run's" lacks "$(cat "$T/repro/domain.xml")" "$(kf_field "$id" run_dir)"
out=$(sh "$T/repro/run.sh" 2>"$T/repro.err")
check "run.sh (virsh create) prints the same output" equals "$out" "$recorded"
check "...and the exit" contains "$(cat "$T/repro.err")" "run.sh: exit: code=0"
check "...its guest is gone" equals "$(virsh -c qemu:///system list --name | grep -c "^kf-repro-$id-")" 0
out=$(sh "$T/repro/run.sh" qemu 2>"$T/repro.err")
check "run.sh qemu (bare QEMU) prints the same output" equals "$out" "$recorded"

out=$(kf repro "$id" -o "$T/r.tar.gz" 2>&1)
check "kfleet repro -o writes a tarball" contains "$out" "$T/r.tar.gz: run $id's reproducer"
mkdir "$T/x" && tar -xzf "$T/r.tar.gz" -C "$T/x"
check "...that unpacks to repro-ID/" test -x "$T/x/repro-$id/run.sh"
chmod -R a+rX "$T/x"
out=$(sh "$T/x/repro-$id/run.sh" 2>/dev/null)
check "...and boots there too" equals "$out" "$recorded"

out=$(kf repro 999 2>&1)
check "a run that is not there is a clear error" contains "$out" "kfleet: repro: 404"
out=$(kf repro "$id" -d "$T/a" -o "$T/b.tar.gz" 2>&1)
check "...and -d with -o is usage" contains "$out" "usage: kfleet repro RUN"
kf_done
