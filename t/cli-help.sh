#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# t/cli-help.sh: every kfleet command word answers `kfleet CMD --help`,
# `-h` and `kfleet help CMD` with its own usage on stdout and exit 0, with
# no daemon and no config: KFLEET_URL names a closed port, so any API call
# would fail, and -c names a missing file, which only a command would
# read. A word kfleet does not know still says it is not a command.
# Run by make check-unit (B: the build directory).
B=${B:-build}
cd "$(dirname "$0")/.." || exit 1
K=$B/bin/kfleet
export KFLEET_URL=http://127.0.0.1:1 KFLEET_TOKEN_FILE=/nonexistent
out=$(mktemp) err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail=0
bad() { echo "cli-help: $*" >&2; fail=1; }

words="run runs show logs cancel repro jobs compare test import trend flaky export submit
	tree trees watch submission submissions builds build bisect bisections bisection
	reload shutdown series parse help"
"$K" help > "$out" 2> "$err" || bad "kfleet help: exit $?"
[ -s "$err" ] && bad "kfleet help wrote to stderr: $(cat "$err")"
usage=$(cat "$out")
for w in $words; do
	case "$usage" in *"  $w "*|*"| $w "*|*"| $w
"*) ;; *) bad "kfleet help does not list '$w'";; esac
	"$K" help "$w" > "$out.want" 2> "$err" || bad "kfleet help $w: exit $?"
	[ -s "$err" ] && bad "kfleet help $w wrote to stderr: $(cat "$err")"
	head -n 1 "$out.want" | grep -q '^usage: kfleet ' || bad "kfleet help $w: no usage line"
	for a in --help -h; do
		"$K" -c /nonexistent/kfleet.ini "$w" $a > "$out" 2> "$err"
		rc=$?
		[ $rc -eq 0 ] || bad "kfleet $w $a: exit $rc: $(head -c 200 "$err")"
		[ -s "$err" ] && bad "kfleet $w $a wrote to stderr: $(head -c 200 "$err")"
		cmp -s "$out" "$out.want" || bad "kfleet $w $a is not kfleet help $w"
	done
	# the word is one kfleet dispatches: without arguments it is no unknown command
	"$K" "$w" > /dev/null 2> "$err" < /dev/null
	grep -q "is not a command" "$err" && bad "kfleet $w: not a command, yet it has help"
done
rm -f "$out.want"
for cmd in "nosuch" "help nosuch"; do
	"$K" $cmd > "$out" 2> "$err"
	rc=$?
	[ $rc -eq 2 ] || bad "kfleet $cmd: exit $rc, not 2"
	grep -q "^kfleet: 'nosuch' is not a command$" "$err" || bad "kfleet $cmd: $(head -n 1 "$err")"
	[ -s "$out" ] && bad "kfleet $cmd wrote to stdout"
done
[ $fail -eq 0 ] && echo "cli-help: every command word answers --help, -h and help offline"
exit $fail
