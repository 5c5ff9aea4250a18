#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t/data/linux-series/make.sh TREE [OUT]: writes kfleet's 3-patch test series
# against a real Linux tree (kernels/linux-source.sh makes one) to OUT
# (default: kfleet-test.mbox next to this script), with git format-patch
# --cover-letter --thread --base: the base is TREE's tag v6.1-debian, or its
# HEAD if it has no such tag. Fixed author, dates and Message-Ids: the same
# TREE gives the same bytes. TREE is not changed: commits are made with git
# plumbing in a scratch clone that shares TREE's objects (no checkout).
#   1/3 kernel/sys.c: getpgid(2) waits udelay(20), a known slowdown that a
#       workload calling getpgid in a loop measures (patched vs base)
#   2/3 init/main.c: kernel_init() prints "kfleet-test-series: applied" on
#       the console, so a boot shows the series is in the kernel
#   3/3 Documentation/dev-tools/testing-overview.rst: documentation only
set -e
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 TREE [OUT]" >&2
	exit 2
fi
tree=$(cd "$1" && pwd)
out=${2:-$(cd "$(dirname "$0")" && pwd)/kfleet-test.mbox}
scratch=$(mktemp -d /tmp/kfleet-linux-series.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

export GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
export GIT_AUTHOR_NAME="kfleet test" GIT_AUTHOR_EMAIL="kfleet-test@kfleet.invalid"
export GIT_COMMITTER_NAME="kfleet test" GIT_COMMITTER_EMAIL="kfleet-test@kfleet.invalid"
sob="Signed-off-by: kfleet test <kfleet-test@kfleet.invalid>"

git clone -q --shared --no-checkout "$tree" "$scratch/lx"
cd "$scratch/lx"
base=$(git -C "$tree" rev-parse -q --verify 'refs/tags/v6.1-debian^{commit}' || git -C "$tree" rev-parse HEAD)
git update-ref refs/heads/kfleet-test "$base"
git symbolic-ref HEAD refs/heads/kfleet-test
git read-tree "$base"

# edit PATH PROGRAM EXPECT: runs the awk PROGRAM on PATH's blob in the index,
# fails unless the result contains EXPECT, and stages it
edit() {
	git show ":$1" | awk "$2" > "$scratch/file"
	grep -qF -- "$3" "$scratch/file" || { echo "make.sh: $1: edit did not apply ('$3' missing)" >&2; exit 1; }
	mode=$(git ls-files -s -- "$1" | cut -d' ' -f1)
	git update-index --cacheinfo "$mode,$(git hash-object -w "$scratch/file"),$1"
}
t=1700000000
commit() {
	t=$((t + 60))
	c=$(GIT_AUTHOR_DATE="$t +0000" GIT_COMMITTER_DATE="$t +0000" git commit-tree "$(git write-tree)" -p HEAD "$@")
	git update-ref HEAD "$c"
}

edit kernel/sys.c '
	{ print }
	$0 == "#include <linux/cred.h>" { print "#include <linux/delay.h>" }
	$0 == "SYSCALL_DEFINE1(getpgid, pid_t, pid)" { sys = 1 }
	sys && $0 == "{" { print "\t/* kfleet test series: a known 20 us slowdown of getpgid(2) */"; print "\tudelay(20);"; sys = 0 }
' '	udelay(20);'
commit -m "sys: make getpgid(2) 20 us slower" -m "kfleet's test series: a workload that calls getpgid in a loop must
measure this kernel as slower than its base, by about 20 us a call.
Not for merging." -m "$sob"

edit init/main.c '
	{ print }
	$0 == "\tdo_sysctl_args();" && !done { print ""; print "\tpr_info(\"kfleet-test-series: applied\\n\");"; done = 1 }
' 'pr_info("kfleet-test-series: applied\n");'
commit -m "init: say on the console that kfleet's test series is applied" -m "A boot of the patched kernel prints \"kfleet-test-series: applied\",
so a test can tell from the console which kernel it booted." -m "$sob"

edit Documentation/dev-tools/testing-overview.rst '
	{ print }
	/^overview of their differences, and how they fit together\.$/ {
		print ""
		print "Test fleets such as kfleet boot a built kernel in many virtual machines"
		print "and run these tests there, comparing a patched kernel with its base."
	}
' 'Test fleets such as kfleet'
commit -m "Documentation: dev-tools: mention test fleets" -m "A documentation-only patch: kfleet's test series carries one." -m "$sob"

git config branch.kfleet-test.description "kfleet test series: a known slowdown and a boot message

Three patches for kfleet's end-to-end tests, not for merging:
1/3 makes getpgid(2) 20 us slower (the known difference a comparison
must find), 2/3 prints \"kfleet-test-series: applied\" at boot and 3/3
only touches documentation."
GIT_COMMITTER_DATE="$((t + 600)) +0000" git -c core.abbrev=12 format-patch --cover-letter --thread --stdout \
	--signature=2.39.5 --cover-from-description=subject --subject-prefix="PATCH kfleet-test" \
	--base="$base" "$base..kfleet-test" |
	sed 's/\.[0-9][0-9]*\.git\.kfleet-test@/.1700000000.git.kfleet-test@/g' > "$out"
echo "$out"
