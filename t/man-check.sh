#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t/man-check.sh: the man pages make builds (build/man/) hold what the
# programs print and render without a warning: kfleet(1) a section for
# every command word, kfleetd(8) every option of `kfleetd -h`,
# kfleetd.conf(5) every [section] and key that `kfleetd -nv` prints and
# every key a [watch NAME] takes (the list kfleetd's own error gives).
# Run by make check-unit (B: the build directory).
B=${B:-build}
cd "$(dirname "$0")/.." || exit 1
M=$B/man
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "man-check: $*" >&2; fail=1; }

for p in kfleet.1 kfleetd.8 kfleetd.conf.5; do
	[ -s "$M/$p" ] || { bad "$M/$p: missing (make man)"; continue; }
	groff -man -ww -z "$M/$p" > "$tmp/groff" 2>&1 || bad "$p: groff failed"
	[ -s "$tmp/groff" ] && bad "$p: groff -ww warns: $(head -n 3 "$tmp/groff")"
	MANWIDTH=80 man --warnings -l "$M/$p" > "$tmp/$p.txt" 2> "$tmp/man" || bad "$p: man -l failed"
	[ -s "$tmp/man" ] && bad "$p: man --warnings -l warns: $(head -n 3 "$tmp/man")"
done

# kfleet(1): a section (.SS) for every command word kfleet takes
words="run runs show logs cancel repro jobs compare test import trend flaky export submit
	tree trees watch submission submissions builds build bisect bisections bisection
	reload shutdown series parse help"
sed -n 's/^\.SS "\(.*\)"$/\1/p' "$M/kfleet.1" | tr -d ',' | tr ' ' '\n' > "$tmp/sections"
for w in $words; do
	grep -qx "$w" "$tmp/sections" || bad "kfleet.1: no section for '$w'"
	"$B/bin/kfleet" help "$w" | head -n 1 | sed 's/^usage: //' > "$tmp/first"
	grep -qF "$(cat "$tmp/first")" "$tmp/kfleet.1.txt" ||
		bad "kfleet.1: lacks kfleet help $w's usage: $(cat "$tmp/first")"
done

# kfleetd(8): every option kfleetd -h names
"$B/bin/kfleetd" -h | sed -n 's/^  \(-[a-z]\).*/\1/p' > "$tmp/opts"
[ -s "$tmp/opts" ] || bad "kfleetd -h names no option"
for o in $(cat "$tmp/opts"); do
	grep -q "^ *$o " "$tmp/kfleetd.8.txt" || bad "kfleetd.8: no option $o"
done

# kfleetd.conf(5): every [section] and key of kfleetd -nv, in its section
"$B/bin/kfleetd" -nv > "$tmp/nv" || bad "kfleetd -nv failed"
awk '/^\[/ { sec = $0; next } /^[a-z_0-9]+ =/ { print sec "\t" $1 }' "$tmp/nv" > "$tmp/keys"
[ "$(wc -l < "$tmp/keys")" -ge 40 ] || bad "kfleetd -nv printed $(wc -l < "$tmp/keys") keys"
# the page's keys, each after the .SS of its section
awk '/^\.SS "/ { sec = $0; sub(/^\.SS "/, "", sec); sub(/"$/, "", sec); next }
     /^[a-z_0-9]+ =/ { print sec "\t" $1 }' "$M/kfleetd.conf.5" > "$tmp/pagekeys"
while IFS='	' read -r sec key; do
	grep -qxF "$sec	$key" "$tmp/pagekeys" || bad "kfleetd.conf.5: no '$key' in $sec"
done < "$tmp/keys"
printf '[watch x]\nnosuchkey = 1\n' > "$tmp/w.ini"
"$B/bin/kfleetd" -n -c "$tmp/w.ini" 2>&1 | sed -n 's/.*(known: \(.*\))$/\1/p' | tr -d ',' > "$tmp/wkeys"
[ "$(wc -w < "$tmp/wkeys")" -ge 20 ] || bad "kfleetd named $(wc -w < "$tmp/wkeys") watch keys"
for key in $(cat "$tmp/wkeys"); do
	grep -qxF "[watch NAME]	$key" "$tmp/pagekeys" || bad "kfleetd.conf.5: no '$key' in [watch NAME]"
done
[ $fail -eq 0 ] && echo "man-check: 3 pages render cleanly; every command, option and config key is in them"
exit $fail
