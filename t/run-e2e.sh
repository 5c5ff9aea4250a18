#!/bin/sh
# Runs every end-to-end test (t/e2e-*.sh) against the binaries in the given
# build directory and prints one closing line: "N passed, N failed".
B=${1:-build}; export B
cd "$(dirname "$0")/.." || exit 1
pass=0; fail=0
for t in t/e2e-*.sh; do
	out=$(sh "$t" 2>&1); rc=$?
	printf '%s\n' "$out"
	p=$(printf '%s\n' "$out" | grep -c '^ok ')
	f=$(printf '%s\n' "$out" | grep -c '^not ok ')
	[ $rc -ne 0 ] && [ "$f" -eq 0 ] && f=1   # a test script that died counts
	pass=$((pass + p)); fail=$((fail + f))
done
echo "e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
