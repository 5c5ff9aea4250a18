# SPDX-License-Identifier: GPL-2.0-only
# bench/lib.sh: what the benchmarks share: a kfleetd of their own on a
# scratch state directory and a free port, the CLI and the database
# against it, and a median. Source it; it sets T, kf(), db(), med().
B=${B:-build}
TOP=$(cd "$(dirname "$0")/.." && pwd)
# the binaries: this checkout's, or BENCH_BIN (another checkout's, to compare)
BENCH_BIN=${BENCH_BIN:-$TOP/$B/bin}
T=$(mktemp -d /tmp/kfleet-bench.XXXXXX)
chmod 755 "$T"
trap 'kill $PID 2>/dev/null; rm -rf "$T"' EXIT

# bench_daemon [EXTRA-HOST-CONFIG] [EXTRA-DAEMON-CONFIG]: one slot (or
# $BENCH_SLOTS), so runs never overlap
bench_daemon() {
	cat > "$T/kfleetd.ini" <<EOC
[daemon]
state_dir = $T/var
listen = 127.0.0.1:0
$2
[host local]
uri = qemu:///system
slots = ${BENCH_SLOTS:-1}
$1
EOC
	"$BENCH_BIN/kfleetd" -c "$T/kfleetd.ini" >"$T/log" 2>&1 &
	PID=$!
	for _ in $(seq 1 300); do
		port=$(sed -n 's|.*kfleetd ready: http://127.0.0.1:\([0-9]*\)/.*|\1|p' "$T/log")
		[ -n "$port" ] && return 0
		sleep 0.1
	done
	cat "$T/log"
	exit 1
}

kf() { "$BENCH_BIN/kfleet" --url "http://127.0.0.1:$port" --token-file "$T/var/token" "$@"; }
db() { sqlite3 "$T/var/kfleet.db" "$1"; }
# the median of the numbers on stdin, one a line
med() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
