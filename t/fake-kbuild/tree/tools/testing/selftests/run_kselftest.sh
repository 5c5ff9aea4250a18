#!/bin/sh
# Fake kselftest runner (t/fake-kbuild): runs every test kselftest-list.txt
# names, TARGET:TEST, from the install directory and prints TAP 13 the way
# kselftest's runner.sh does; exit 4 is a skip.
cd "$(dirname "$0")" || exit 1
n=$(wc -l < kselftest-list.txt)
echo "TAP version 13"
echo "1..$n"
i=0
while IFS=: read -r t f; do
	i=$((i + 1))
	echo "# selftests: $t: $f"
	out=$(cd "$t" && ./"$f" 2>&1)
	rc=$?
	[ -z "$out" ] || printf '%s\n' "$out" | sed 's/^/# /'
	if [ $rc -eq 0 ]; then
		echo "ok $i selftests: $t: $f"
	elif [ $rc -eq 4 ]; then
		echo "ok $i selftests: $t: $f # SKIP"
	else
		echo "not ok $i selftests: $t: $f # exit=$rc"
	fi
done < kselftest-list.txt
