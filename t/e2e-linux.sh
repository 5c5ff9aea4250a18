#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A real kernel, end to end: Debian's linux-source-6.1 as a tree, the
# bundled 3-patch series (t/data/linux-series: 1/3 adds a 20 us delay to
# getpgid(), 2/3 prints a line at boot) submitted with `kfleet test`, base
# and patched built for x86_64 and arm64 (tinyconfig plus kfleet's guest
# fragment, in the sandbox), both booted, the getpgid-rate job run 4 times
# on each side interleaved, and the comparison says "worse" where the patch
# made it worse; kselftest's size target is built with both kernels and
# passes in their guests. A second identical submission builds nothing, and
# the sigaltstack target is built with the base kernel and passes. Then a
# bisection of the series' commits finds the slower getpgid() by its
# metric and verifies it by revert (its builds are incremental, its ends
# the submission's kernels), and a bisection of three commits made on top
# finds the one that breaks the getpgid-rate job and verifies it by revert.
# Takes about 17 minutes on 2 cores (4 kernel builds, 2 of them cold, and
# 7 incremental ones for the two bisections); 43 minutes beside the other
# tests in make check, where its cold builds take 16 and 13 of them.
. "$(dirname "$0")/lib.sh"
# the default guest setup (t/lib.sh, kf_boot)
BOOT=default

MBOX=$TOP/t/data/linux-series/kfleet-test.mbox

tree=$(sh "$TOP/kernels/linux-source.sh")
check "linux-source-6.1 is a git tree" test -d "$tree/.git"
kf_config ""
check "kfleetd starts" kf_start
check "the tree is added" contains "$(kf tree add linux "$tree" 2>&1)" "added"

out=$(kf test --tree linux --mbox "$MBOX" --job getpgid-rate,kselftest-size --arch x86_64,arm64 --repeat 4 2>&1)
s=$(db "select max(id) from submissions")
check "the series was built and tested" contains "$out" "submission $s: testing"
echo "$out" | sed 's/^/  | /'
base=$(db "select base_commit from submissions where id = $s")
patched=$(db "select patched_commit from submissions where id = $s")
check "the base is the tree's v6.1-debian (the series' base-commit)" equals "$base" "$(git -C "$tree" rev-parse 'v6.1-debian^{commit}')"
check "four builds done" equals "$(db "select count(*) from submission_builds sb join builds b on b.id = sb.build_id where sb.submission_id = $s and b.state = 'done'")" 4
check "no requested option was lost" equals "$(db "select count(*) from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s and b.dropped is not null")" 0
for arch in x86_64 arm64; do
	rel=$(db "select group_concat(distinct guest_release) from runs r join kernels k on k.id = r.kernel_id where r.arch = '$arch' and k.commit_id = '$patched'")
	check "$arch: the patched guests run the patched kernel ($rel)" contains "$rel" "-g$(printf %.12s "$patched")"
	pr=$(db "select r.run_dir from runs r join kernels k on k.id = r.kernel_id where r.arch = '$arch' and k.commit_id = '$patched' limit 1")
	br=$(db "select r.run_dir from runs r join kernels k on k.id = r.kernel_id where r.arch = '$arch' and k.commit_id = '$base' limit 1")
	check "$arch: the patched kernel says the series is applied" grep -q "kfleet-test-series: applied" "$pr/console.log"
	check "$arch: the base kernel does not" sh -c "! grep -q 'kfleet-test-series' '$br/console.log'"
	check "$arch: every run passed" equals "$(db "select group_concat(distinct outcome) from runs where arch = '$arch' and request_id in (select id from requests where submission_id = $s)")" passed
	cmp=$(curl -sf "$KF_URL/api/compare?a=$(db "select kernel_id from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s and sb.side = 'base' and b.arch = '$arch'")&b=$(db "select kernel_id from builds b join submission_builds sb on sb.build_id = b.id where sb.submission_id = $s and sb.side = 'patched' and b.arch = '$arch'")&job=getpgid-rate")
	check "$arch: the slower getpgid() is a worse syscall-count" contains "$cmp" '"verdict":"worse"'
	check "$arch: kselftest size, built with both kernels, passes on both" equals "$(db "select count(*) || ' ' || group_concat(distinct r.status) from results r join runs u on u.id = r.run_id where u.arch = '$arch' and u.job = 'kselftest-size' and u.request_id in (select id from requests where submission_id = $s)")" "8 pass"
done
req=$(db "select id from requests where submission_id = $s and job = 'getpgid-rate' order by id limit 1")
check "kfleet compare --request gives the same verdict" contains "$(kf compare --request "$req" 2>&1)" "worse"
n=$(db "select count(*) from builds")
kf submit --tree linux --mbox "$MBOX" --arch x86_64,arm64 --wait >/dev/null 2>&1
s2=$(db "select max(id) from submissions")
check "a second identical submission builds nothing" equals "$(db "select count(*) from builds") $(db "select sum(reused) from submission_builds where submission_id = $s2")" "$n 4"
# kselftest's sigaltstack target with the base kernel: built with it
# (statically), run by the tree's own runner; the kernel is reused
kf submit --tree linux --base v6.1-debian --arch x86_64 --job kselftest-sigaltstack --wait >/dev/null 2>&1
s3=$(db "select max(id) from submissions")
sas=$(db "select id from runs where submission_id = $s3")
check "kselftest-sigaltstack: no kernel built again, its run queued" sh -c "[ '$(db "select count(*) from builds")' = '$n' ] && [ -n '$sas' ]"
kf_wait_state "$sas" done 300
check "kselftest-sigaltstack passes" kf_outcome "$sas" passed
check "...with its tests as results, all passed" equals "$(db "select count(*) > 0, group_concat(distinct status) from results where run_id = $sas and path like 'sigaltstack/%'")" "1|pass"
# a bisection on the real tree over the series' three commits: the slower
# getpgid() found by its metric, verified by reverting it on top of the
# series; the ends' kernels are the submission's, built already
n=$(db "select count(*) from builds")
t0=$(date +%s)
kf bisect --tree linux --good "$base" --bad "$patched" --job getpgid-rate --metric syscall-count \
	--arch x86_64 --repeat 6 --wait > "$T/bisect.out" 2>&1
rc=$?
bid=$(db "select max(id) from bisections")
first=$(git --git-dir="$T/var/trees/linux.git" rev-list --reverse "$base..$patched" | head -n 1)
echo "  bisection on linux-source-6.1: $(( $(date +%s) - t0 )) s, $(( $(db "select count(*) from builds") - n )) builds"
sed 's/^/  | /' "$T/bisect.out" | head -n 30
check "bisect (linux): exits 0, a culprit found and verified" equals "$rc" 0
check "bisect (linux): the culprit is 1/3, the slower getpgid()" equals "$(db "select culprit from bisections where id = $bid")" "$first"
check "bisect (linux): its revert on top of the series is verified" equals "$(db "select verdict from bisections where id = $bid")" verified
check "bisect (linux): the ends were not built again (at most 3 new builds)" test "$(( $(db "select count(*) from builds") - n ))" -le 3

# a bisection of a job that breaks, on the real tree: three commits made
# here on top of the series, as objects in kfleetd's mirror of the tree
# (nothing else is touched): a note, getpgid(0) failing with EINVAL (so
# getpgid-rate's workload fails), another note
G="git --git-dir=$T/var/trees/linux.git"
commit_on() {   # commit_on PARENT PATH SED-EXPR SUBJECT: prints the new commit
	blob=$($G show "$1:$2" | sed "$3" | $G hash-object -w --stdin) &&
	GIT_INDEX_FILE=$T/idx $G read-tree "$1" &&
	GIT_INDEX_FILE=$T/idx $G update-index --cacheinfo "100644,$blob,$2" &&
	echo "$4" | GIT_AUTHOR_NAME="Kfleet Test" GIT_AUTHOR_EMAIL=test@kfleet.invalid \
		GIT_COMMITTER_NAME="Kfleet Test" GIT_COMMITTER_EMAIL=test@kfleet.invalid \
		GIT_AUTHOR_DATE="1700000000 +0000" GIT_COMMITTER_DATE="1700000000 +0000" \
		$G commit-tree "$(GIT_INDEX_FILE=$T/idx $G write-tree)" -p "$1"
}
doc=Documentation/dev-tools/testing-overview.rst
c1=$(commit_on "$patched" "$doc" '$a\
A first note on bisections.' "Documentation: a note on bisections")
brk=$(commit_on "$c1" kernel/sys.c 's/^\treturn do_getpgid(pid);$/\treturn pid ? do_getpgid(pid) : -EINVAL;/' "sys: getpgid(0) fails with EINVAL")
c3=$(commit_on "$brk" "$doc" '$a\
A second note on bisections.' "Documentation: a second note on bisections")
check "three commits are made on top of the series" sh -c "$G show '$brk' | grep -q -- '-EINVAL;'"
n=$(db "select count(*) from builds")
t0=$(date +%s)
kf bisect --tree linux --good "$patched" --bad "$c3" --job getpgid-rate --arch x86_64 --repeat 2 \
	--wait > "$T/bisect2.out" 2>&1
rc=$?
bid=$(db "select max(id) from bisections")
echo "  bisection of a failing job on linux-source-6.1: $(( $(date +%s) - t0 )) s, $(( $(db "select count(*) from builds") - n )) builds"
sed 's/^/  | /' "$T/bisect2.out" | head -n 30
check "bisect (linux, failing job): exits 0, found and verified" equals "$rc" 0
check "bisect (linux, failing job): the culprit is the commit that breaks getpgid(0)" equals "$(db "select culprit from bisections where id = $bid")" "$brk"
check "bisect (linux, failing job): verified by its revert" equals "$(db "select verdict from bisections where id = $bid")" verified
check "bisect (linux, failing job): the bad end's runs failed in the workload" contains "$(db "select group_concat(distinct outcome) from runs where kernel_id in (select kernel_id from builds where commit_id = '$c3')")" failed
kf_done
