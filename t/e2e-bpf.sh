#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# BPF test_progs end to end on a kernel built elsewhere: the stock Debian
# 6.1 kernel, tested by a submission with --kernel, whose tree (Debian's
# linux-source-6.1 at v6.1-debian) gives the BPF selftests, built for that
# kernel against its BTF (out of the bzImage) with bpf_testmod.ko from its
# headers. The shipped bpf-test-progs job passes with its allow and deny
# lists; a job with tests that fail on 6.1 stores its failing subtests;
# a second submission reuses the build; bad submissions are refused.
. "$(dirname "$0")/lib.sh"

tree=$(sh "$TOP/kernels/linux-source.sh")
check "linux-source-6.1 is a git tree" test -d "$tree/.git"
kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/jobs/defs:$TOP/t/data/jobs-bpf|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
check "the tree is added" contains "$(kf tree add linux "$tree" 2>&1)" "added"
show=$(kf jobs show bpf-test-progs 2>&1)
check "jobs show: the kselftest target" contains "$show" "selftests:  bpf (built from the tree for each kernel"
check "the job's page names it" contains "$(curl -sf "$KF_URL/jobs/bpf-test-progs")" "<th>kselftest target</th><td>bpf</td>"

out=$(kf run --job bpf-test-progs --kernel "$KERNEL" 2>&1)
check "a run before test_progs is built for the kernel says how to build it" contains "$out" "--kernel PATH for a kernel built elsewhere"
sub() { kf submit --tree linux --base v6.1-debian --kernel "$KERNEL" "$@" 2>&1; }
check "a kernel built elsewhere needs jobs" contains "$(sub)" "name the jobs to run"
check "its arch is checked" contains "$(sub --job bpf-test-progs --arch arm64)" "not an arm64 Image"
check "it takes no series" contains "$(sub --job bpf-test-progs --mbox "$TOP/t/data/linux-series/kfleet-test.mbox")" "give no series"
check "nor fragments" contains "$(sub --job bpf-test-progs --fragment bpf)" "not built here"
check "refused submissions store nothing" equals "$(db "select count(*) from submissions")" 0
# the kernel with another release in its header: no headers for it here
python3 - "$KERNEL" "$T/vmlinuz-other" <<'PY'
import re, sys
d = open(sys.argv[1], 'rb').read()
m = re.search(rb'(\d+\.\d+\.\d+)-(\d+)-amd64 \(', d)
open(sys.argv[2], 'wb').write(d[:m.start(2)] + b'9' * len(m.group(2)) + d[m.end(2):])
PY
out=$(kf submit --tree linux --base v6.1-debian --kernel "$T/vmlinuz-other" --job bpf-test-progs --wait 2>&1)
check "a kernel whose headers are missing: the submission fails, saying which" contains "$out" "install linux-headers-"
check "other kselftest targets are not built for a kernel built elsewhere" contains "$(sub --job kselftest-size --wait)" "only 'bpf' (test_progs) is built"

out=$(sub --job bpf-test-progs,bpf-probe --wait)
s=$(db "select max(id) from submissions")
check "the submission built test_progs and queued its runs" contains "$out" "submission $s: testing"
check "it names the kernel" contains "$out" "kernel:   $KERNEL"
echo "$out" | sed 's/^/  | /'
check "its arch is the kernel's" equals "$(db "select arches from submissions where id = $s")" x86_64
check "no kernel was built" equals "$(db "select count(*) from builds")" 0
check "nor test_progs for the other kernel" test ! -e "$T/var/selftests/$(sha256sum "$T/vmlinuz-other" | cut -c1-16)/kselftest-bpf.cpio.gz"
sha=$(sha256sum "$KERNEL" | cut -c1-16)
arch=$T/var/selftests/$sha/kselftest-bpf.cpio.gz
check "the archive is kept by the kernel's content" test -s "$arch"
check "with the tree and commit it came from" equals "$(cat "$arch.source")" "linux $(git -C "$tree" rev-parse 'v6.1-debian^{commit}')"
check "the build log is kept" grep -q "BINARY.*test_progs" "$T/var/selftests/$sha/kselftest-bpf.log"
list=$(gzip -dc "$arch" | cpio -t 2>/dev/null)
check "test_progs is in it" contains "$list" "kselftest/bpf/test_progs"
check "with its BPF objects" contains "$list" "kselftest/bpf/atomics.bpf.o"
check "and bpf_testmod.ko" contains "$list" "kselftest/bpf/bpf_testmod.ko"
check "and the kernel's config for libbpf's Kconfig externs" contains "$list" "kselftest/config-"

# tp_run: a plain run of bpf-test-progs on the kernel queued; its id
tp_run() { kf run --job bpf-test-progs --kernel "$KERNEL" 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p'; }

# once_more ID: ID; or, when the stock kernel crashed or hung in it, a
# second run of bpf-test-progs on the kernel, after printing the first
# one's report. Once in CI (stop 25) 6.1 crashed under test_progs on a
# machine that ran two tests' guests on its 2 cores, and once here (stop
# 26) test_progs hung after 'timer' until the job's timeout; 25 pairs of
# runs under that load did neither. Either is the kernel's, not kfleet's,
# and a second one in a row still fails the test.
once_more() {
	case $(kf_field "$1" outcome) in crash|timeout) ;; *) echo "$1"; return;; esac
	kf_outcome "$1" passed
	_n=$(tp_run)
	echo "  run $1 did not pass: run ${_n:-?} is the second try" >&2
	[ -n "$_n" ] && kf_wait_state "$_n" done 900 && echo "$_n" || echo "$1"
}

tp=$(db "select id from runs where submission_id = $s and job = 'bpf-test-progs'")
pr=$(db "select id from runs where submission_id = $s and job = 'bpf-probe'")
check "two runs queued" test -n "$tp" -a -n "$pr"
for id in $tp $pr; do kf_wait_state "$id" done 900 || break; done
tp=$(once_more "$tp")
check "bpf-test-progs passed" kf_outcome "$tp" passed
check "on the stock kernel" contains "$(kf_field "$tp" guest_release)" "amd64"
res() { db "select status from results where run_id = $1 and path = '$2'"; }
check "each subtest is a row: atomics/add passed" equals "$(res "$tp" atomics/add)" pass
check "a test: tailcalls passed" equals "$(res "$tp" tailcalls)" pass
check "map_init's per-CPU maps ran on the job's 2 vCPUs" equals "$(kf_field "$tp" guest_nproc) $(res "$tp" map_init)" "2 pass"
check "bpf_testmod is loaded for kfunc_call" equals "$(res "$tp" kfunc_call)" pass
check "libbpf finds the kernel config for linked_vars's Kconfig externs" equals "$(res "$tp" linked_vars)" pass
check "trace_printk reads the trace buffer" equals "$(res "$tp" trace_printk)" pass
check "a denied subtest did not run" equals "$(db "select count(*) from results where run_id = $tp and path = 'bpf_iter/tcp4'")" 0
check "over 100 results, none failed" equals "$(db "select count(*) > 100, sum(status = 'fail') from results where run_id = $tp")" "1|0"

check "bpf-probe failed" equals "$(kf_field "$pr" outcome)" failed
check "kprobe_multi_test/skel_api is a failed row" equals "$(res "$pr" kprobe_multi_test/skel_api)" fail
check "ksyms_module failed" equals "$(res "$pr" ksyms_module)" fail
check "atomics passed next to them" equals "$(res "$pr" atomics)" pass
show=$(kf show "$pr" 2>&1)
check "kfleet show lists the failing subtests" contains "$show" "kprobe_multi_test/skel_api"
page=$(curl -sf "$KF_URL/runs/$pr")
check "the run page lists them" contains "$page" "kprobe_multi_test/skel_api"
spage=$(curl -sf "$KF_URL/submissions/$s")
check "the submission page names the kernel" contains "$spage" "$KERNEL"

n=$(grep -c "building test_progs" "$T/kfleetd.log")
out=$(sub --job bpf-test-progs --wait)
s2=$(db "select max(id) from submissions")
check "a second submission for the kernel" contains "$out" "submission $s2: testing"
check "builds nothing" equals "$(grep -c "building test_progs" "$T/kfleetd.log")" "$n"
r2=$(db "select id from runs where submission_id = $s2")
check "and queues its run" test -n "$r2"
id=$(tp_run)
check "a plain run of the job on the kernel is taken now" test -n "$id"
for i in $r2 $id; do kf_wait_state "$i" done 900 || break; done
r2=$(once_more "$r2"); id=$(once_more "$id")
check "both passed" equals "$(kf_field "$r2" outcome) $(kf_field "$id" outcome)" "passed passed"
kf_done
