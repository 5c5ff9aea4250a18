#!/bin/sh
# Runs every end-to-end test (t/e2e-*.sh) against the binaries in the given
# build directory, says how long each took, and prints one closing line:
# "N passed, N failed". Further arguments name the tests to run instead.
B=${1:-build}; export B
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0; all=$(date +%s)
[ $# -gt 0 ] || set -- t/e2e-*.sh
for t in "$@"; do
	t0=$(date +%s)
	out=$(sh "$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1   # a test script that died counts
	echo "# $t: $p passed, $f failed in $(($(date +%s) - t0)) s"
	pass=$((pass + p)); fail=$((fail + f))
done
echo "e2e: $pass passed, $fail failed in $(($(date +%s) - all)) s"
[ "$fail" -eq 0 ]
