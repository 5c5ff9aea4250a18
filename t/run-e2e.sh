#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Runs every end-to-end test (t/e2e-*.sh) against the binaries in the given
# build directory, says how long each took, and prints one closing line:
# "N passed, N failed". Further arguments name the tests to run instead.
# E2E_JOBS=N runs N tests at once (each has its own daemon, state, port
# and guests); a test that takes libvirtd away (e2e-libvirtd) runs alone,
# after the others. The longest tests start first. E2E_TIER=quick runs only
# the tests whose header says "# tier: quick" (make check-quick). At the
# end, the slowest tests and where their time went (each test's "# times"
# line, t/lib.sh), also written to the file E2E_TIMES names.
B=${1:-build}; export B
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 1
jobs=${E2E_JOBS:-1}
alone="t/e2e-libvirtd.sh"
first="t/e2e-linux.sh t/e2e-bisect.sh t/e2e-deb.sh t/e2e-watch.sh t/e2e-bpf.sh t/e2e-kernels.sh"
[ $# -gt 0 ] || set -- t/e2e-*.sh
if [ "${E2E_TIER:-}" = quick ]; then
	q=(); for a in "$@"; do grep -q '^# tier: quick' "$a" && q+=("$a"); done
	set -- "${q[@]}"
fi
out=$(mktemp -d /tmp/kfleet-e2e.XXXXXX)
trap 'rm -rf "$out"' EXIT
# the order: the long ones first, the ones that run alone last
order=()
for t in $first; do
	for a in "$@"; do [ "$a" = "$t" ] && order+=("$t"); done
done
for a in "$@"; do
	case " $first $alone " in *" $a "*) ;; *) order+=("$a");; esac
done
for t in $alone; do
	for a in "$@"; do [ "$a" = "$t" ] && order+=("$t"); done
done

pass=0; fail=0; all=$(date +%s)
# report T: prints a finished test's output and adds up its counts
report() {
	local t=$1 f n p x rc
	f=$out/$(basename "$t")
	cat "$f.log"
	p=$(grep -c '^ok ' "$f.log"); x=$(grep -c '^not ok ' "$f.log"); rc=$(cat "$f.rc")
	[ "$rc" -ne 0 ] && [ "$x" -eq 0 ] && x=1   # a test script that died counts
	echo "# $t: $p passed, $x failed in $(cat "$f.s") s"
	pass=$((pass + p)); fail=$((fail + x))
}
run1() {
	local t=$1 f t0
	f=$out/$(basename "$t"); t0=$(date +%s)
	sh "$t" > "$f.log" 2>&1; echo $? > "$f.rc"
	echo $(($(date +%s) - t0)) > "$f.s"
}
declare -A pid_of=()
for t in "${order[@]}"; do
	case " $alone " in *" $t "*)
		for p in "${!pid_of[@]}"; do wait "$p"; report "${pid_of[$p]}"; unset "pid_of[$p]"; done;;
	esac
	while [ "${#pid_of[@]}" -ge "$jobs" ]; do
		wait -n
		for p in "${!pid_of[@]}"; do
			kill -0 "$p" 2>/dev/null && continue
			wait "$p"; report "${pid_of[$p]}"; unset "pid_of[$p]"
		done
	done
	run1 "$t" &
	pid_of[$!]=$t
	case " $alone " in *" $t "*)
		wait "$!"; report "$t"; unset "pid_of[$!]";;
	esac
done
for p in "${!pid_of[@]}"; do wait "$p"; report "${pid_of[$p]}"; done
echo "e2e: $pass passed, $fail failed in $(($(date +%s) - all)) s"
# the slowest tests: wall time, and what their daemons' databases say of
# kernel builds (count, seconds) and guests (count, seconds booting,
# seconds booted); the times overlap when E2E_JOBS > 1
{
	echo "slowest end-to-end tests (E2E_JOBS=$jobs):"
	printf '  %-16s %6s %14s %24s\n' test wall "kernel builds" "guests: boot + in guest"
	cat "$out"/*.log 2>/dev/null | grep -h '^# times ' | sort -k4,4nr |
		awk '{ printf "  %-16s %4d s %5d in %4d s %6d: %4d s + %5d s\n", $3, $4, $5, $6, $7, $8, $9;
		       w += $4; nb += $5; b += $6; nr += $7; bo += $8; g += $9 }
		     END { printf "  %-16s %4d s %5d in %4d s %6d: %4d s + %5d s\n", "(sum)", w, nb, b, nr, bo, g }'
} | tee "${E2E_TIMES:-/dev/null}"
[ "$fail" -eq 0 ]
