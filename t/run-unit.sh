#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs the cmocka unit tests given as arguments (builddir first), UNIT_JOBS
# of them at once (default: a job per core; each binary's output is printed
# whole, in the order given), and prints one closing line: "N passed, N
# failed", then the slowest five with their seconds (where the unit part's
# time goes: the libguestfs and libvirt ones boot appliances and guests).
# A test may be a script too (the help, the man pages, the documentation's
# links); it gets B, the build directory.
b=$1; shift
export B="$b"
out=$(mktemp -d /tmp/kfleet-unit.XXXXXX)
trap 'rm -rf "$out"' EXIT
export KFLEET_AGENT="${KFLEET_AGENT:-$b/bin/kfleet-agent-x86_64}" out
i=0
for t in "$@"; do i=$((i + 1)); printf '%d %s\n' "$i" "$t"; done |
	xargs -P "${UNIT_JOBS:-$(nproc)}" -L 1 sh -c '
		t0=$(date +%s%N)
		"$1" > "$out/$0.log" 2>&1; echo $? > "$out/$0.rc"
		echo "$(( ($(date +%s%N) - t0) / 1000000 )) $1" > "$out/$0.ms"'
pass=0; fail=0; failed=""
i=0
for t in "$@"; do
	i=$((i + 1))
	cat "$out/$i.log" 2>/dev/null
	if [ "$(cat "$out/$i.rc" 2>/dev/null)" = 0 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); failed="$failed $t"; fi
done
[ -z "$failed" ] || echo "failed:$failed"
echo "unit ($b): $pass passed, $fail failed"
echo "slowest unit tests ($b):"
cat "$out"/*.ms 2>/dev/null | sort -rn | head -n 5 | awk '{ printf "  %-50s %7.1f s\n", $2, $1 / 1000 }'
[ "$fail" -eq 0 ]
