#!/bin/sh
# Runs the cmocka unit tests given as arguments (builddir first), prints
# one closing line: "N passed, N failed", and then the slowest five with
# their seconds (where the unit part's time goes).
b=$1; shift
pass=0; fail=0; failed=""
times=$(mktemp /tmp/kfleet-unit.XXXXXX)
trap 'rm -f "$times"' EXIT
export KFLEET_AGENT="${KFLEET_AGENT:-$b/bin/kfleet-agent-x86_64}"
for t in "$@"; do
	t0=$(date +%s%N)
	if "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
	echo "$(( ($(date +%s%N) - t0) / 1000000 )) $t" >> "$times"
done
[ -z "$failed" ] || echo "failed:$failed"
echo "unit ($b): $pass passed, $fail failed"
echo "slowest unit tests ($b):"
sort -rn "$times" | head -n 5 | awk '{ printf "  %-50s %7.1f s\n", $2, $1 / 1000 }'
[ "$fail" -eq 0 ]
