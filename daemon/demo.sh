#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# make demo: kfleet's main job end to end with the embedded defaults. Starts
# libvirtd if nothing serves qemu:///system, starts kfleetd (state ./var,
# web on 127.0.0.1:8080) unless it already runs, makes a git tree of
# Debian's linux-source-6.1 (once), registers it, and tests the bundled
# 3-patch series (t/data/linux-series: patch 1 slows getpgid() down) on it:
# base and patched kernels built (tinyconfig + kfleet's guest fragment),
# booted in x86_64 guests, the getpgid-rate job run 5 times on each,
# interleaved, ending with the before/after table and the page's address.
# A second run builds nothing. The first takes about 5 minutes here.
set -e
B=${B:-build}
URL=http://127.0.0.1:8080
JOB=${JOB:-getpgid-rate}
REPEAT=${REPEAT:-5}
ARCH=${ARCH:-x86_64}
sh .ci/libvirtd.sh
tree=$(sh kernels/linux-source.sh)
if ! curl -sf "$URL/api/health" >/dev/null 2>&1; then
	mkdir -p var
	"$B/bin/kfleetd" -l var/kfleetd.log </dev/null >/dev/null 2>&1 &
	for _ in $(seq 1 100); do
		curl -sf "$URL/api/health" >/dev/null 2>&1 && break
		sleep 0.2
	done
	if ! curl -sf "$URL/api/health" >/dev/null 2>&1; then
		# it refused to start (a state directory QEMU cannot reach, a
		# database gone or damaged, ...): its own words
		echo "demo: kfleetd did not start:" >&2
		tail -n 5 var/kfleetd.log >&2
		exit 1
	fi
	echo "demo: kfleetd started (pid $!, log var/kfleetd.log)"
fi
"$B/bin/kfleet" trees | grep -q '^linux ' || "$B/bin/kfleet" tree add linux "$tree"
echo "demo: testing t/data/linux-series/kfleet-test.mbox on tree 'linux' ($tree), job $JOB, $ARCH"
rc=0
"$B/bin/kfleet" test --tree linux --mbox t/data/linux-series/kfleet-test.mbox --job "$JOB" \
	--arch "$ARCH" --repeat "$REPEAT" || rc=$?
echo
echo "demo: kfleetd keeps running (stop it with: $B/bin/kfleet shutdown); the pages are at $URL/"
# 1: a run did not pass (the table says which); anything else is an error
[ "$rc" -le 1 ]
