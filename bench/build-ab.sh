#!/bin/sh
# bench/build-ab.sh OLD_BIN [ARCH]: bench/build.sh twice in one sitting,
# first with the binaries in OLD_BIN (another checkout's build/bin, e.g.
# the commit before a change to the build sandbox), then with this
# checkout's, and each row's time new/old. A ratio near 1 means the
# change did not make builds slower; the machine's noise shows in the
# "no change" row, which builds nothing either way.
set -e
old=${1:?usage: bench/build-ab.sh OLD_BIN [ARCH]}
here=$(cd "$(dirname "$0")" && pwd)
BENCH_BIN=$(cd "$old" && pwd) sh "$here/build.sh" "${2:-x86_64}" > /tmp/kfleet-ab-old.$$
sh "$here/build.sh" "${2:-x86_64}" > /tmp/kfleet-ab-new.$$
echo "old ($old):"; cat /tmp/kfleet-ab-old.$$
echo "new:"; cat /tmp/kfleet-ab-new.$$
printf '%-14s %8s\n' "" "new/old"
awk 'NR == FNR && NF >= 3 && $(NF - 1) ~ /^[0-9]+$/ { name = $0; sub(/ +[0-9]+ +[0-9.]+$/, "", name); o[name] = $(NF - 1); next }
     NF >= 3 && $(NF - 1) ~ /^[0-9]+$/ { name = $0; sub(/ +[0-9]+ +[0-9.]+$/, "", name);
	if (o[name] > 0) printf "%-14s %8.3f\n", name, $(NF - 1) / o[name] }' \
	/tmp/kfleet-ab-old.$$ /tmp/kfleet-ab-new.$$
rm -f /tmp/kfleet-ab-old.$$ /tmp/kfleet-ab-new.$$
