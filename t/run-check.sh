#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# make check: every part of the suite in turn, each compiled with a job per
# core and timed, stopping at the first part that fails; at the end, where
# the time went: each part, then the slowest end-to-end scripts and what
# their daemons spent on kernel builds and guests (t/run-e2e.sh).
#   t/run-check.sh          unit, the same under ASan+UBSan, fuzz, end to end
#   t/run-check.sh --quick  unit, and the end-to-end tests marked "# tier: quick"
#                           (they build no real kernel): make check-quick
# The table is also kept in build/check-times.txt.
cd "$(dirname "$0")/.." || exit 1
quick=
[ "${1:-}" = --quick ] && quick=1
j=$(nproc)
times=$(mktemp /tmp/kfleet-check.XXXXXX)
e2e_times=$(mktemp /tmp/kfleet-check-e2e.XXXXXX)
trap 'rm -f "$times" "$e2e_times"' EXIT
all=$(date +%s)
rc=0
mkdir -p build

# part NAME COMMAND...: runs one part, timed
part() {
	local name=$1 t0 r
	shift
	t0=$(date +%s)
	"$@"; r=$?
	printf '%-28s %6d s%s\n' "$name" $(($(date +%s) - t0)) "$([ $r -ne 0 ] && echo '  FAILED')" >> "$times"
	return $r
}

run() {
	part "build" make -s -j"$j" unit-bins || return 1
	part "unit" make -s check-unit || return 1
	if [ -z "$quick" ]; then
		part "build (ASan+UBSan)" make -s -j"$j" SANITIZE=1 unit-bins || return 1
		part "unit (ASan+UBSan)" make -s SANITIZE=1 check-unit || return 1
		part "build (fuzz)" make -s -j"$j" fuzz-bins || return 1
		part "fuzz" make -s fuzz || return 1
		part "end to end" env E2E_TIMES="$e2e_times" make -s check-e2e || return 1
	else
		part "end to end (quick)" env E2E_TIMES="$e2e_times" E2E_TIER=quick make -s check-e2e || return 1
	fi
}
run || rc=1

{
	echo "where the time went ($([ -n "$quick" ] && echo "make check-quick" || echo "make check"), $j cores):"
	cat "$times"
	printf '%-28s %6d s\n' "in all" $(($(date +%s) - all))
	[ -s "$e2e_times" ] && cat "$e2e_times"
} | tee build/check-times.txt
exit $rc
