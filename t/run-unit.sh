#!/bin/sh
# Runs the cmocka unit tests given as arguments (builddir first) and prints
# one closing line: "N passed, N failed". A test may be a script too (the
# help, the man pages, the documentation's links); it gets B, the build
# directory.
b=$1; shift
export B="$b"
pass=0; fail=0; failed=""
export KFLEET_AGENT="${KFLEET_AGENT:-$b/bin/kfleet-agent-x86_64}"
for t in "$@"; do
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
done
[ -z "$failed" ] || echo "failed:$failed"
echo "unit ($b): $pass passed, $fail failed"
[ "$fail" -eq 0 ]
