#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t/run-fuzz.sh SECONDS TARGET...: runs each libFuzzer target for SECONDS
# with its dictionary (fuzz/NAME.dict) and a copy of its seed corpus
# (fuzz/NAME.corpus), a target per core at once (FUZZ_JOBS, default
# nproc); prints each one's last lines in order, and fails when one found
# a crash (its output says which input). make fuzz.
cd "$(dirname "$0")/.." || exit 1
secs=$1; shift
out=$(mktemp -d /tmp/kfleet-fuzz.XXXXXX)
trap 'rm -rf "$out"' EXIT
one() {
	f=$1; n=$(basename "$f" _fuzz); o=
	[ -f "fuzz/$n.dict" ] && o=-dict=fuzz/$n.dict
	c=
	if [ -d "fuzz/$n.corpus" ]; then c=$f.corpus; mkdir -p "$c"; cp "fuzz/$n.corpus"/* "$c"/; fi
	"$f" -max_total_time="$secs" -print_final_stats=0 $o $c > "$out/$n.log" 2>&1
	echo $? > "$out/$n.rc"
}
i=0
for f in "$@"; do
	one "$f" &
	i=$((i + 1))
	[ $((i % ${FUZZ_JOBS:-$(nproc)})) -eq 0 ] && wait
done
wait
rc=0
for f in "$@"; do
	n=$(basename "$f" _fuzz)
	echo "fuzz: $f for $secs s"
	tail -n 2 "$out/$n.log"
	[ "$(cat "$out/$n.rc")" = 0 ] || { rc=1; echo "fuzz: $f FAILED:"; tail -n 40 "$out/$n.log"; }
done
exit $rc
