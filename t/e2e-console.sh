#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A guest's console as virtlogd writes it (rotated at 2 MiB, three old
# files kept), on real guests: a flood of 12 MB ends the run as a console
# flood at console_max (4 MiB here), with the boot log and the tail kept in
# one console.log; a WARNING followed by 3 MB of output is still a crash.
# And `kfleet logs -f` follows a run's console and output while it runs;
# what a guest writes is shown inert (its escapes visible, not sent to the
# terminal) by `kfleet logs` and `kfleet show`, and on the run page.
. "$(dirname "$0")/lib.sh"

kf_config "console_max = 4M"
check "kfleetd starts" kf_start
flood=$(kf run --kernel "$KERNEL" --timeout 300 -- 'head -c 12000000 /dev/zero | tr "\0" x > /dev/console; sleep 5' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
late=$(kf run --kernel "$KERNEL" --timeout 300 -- 'echo "<4>WARNING: CPU: 0 PID: 1 at lib/late.c:1 late_fn+0x1/0x2" > /dev/kmsg; head -c 3000000 /dev/zero | tr "\0" y > /dev/console; sleep 1' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "two runs queued" test -n "$flood" -a -n "$late"
kf_wait_state "$flood" done 400
kf_wait_state "$late" done 400
dir=$(kf_field "$flood" run_dir)
check "flood: a console flood, not a timeout" equals "$(kf_field "$flood" outcome)" console-flood
check "flood: ...saying the limit" contains "$(kf_field "$flood" detail)" "more than 4194304 bytes"
check "flood: the boot log is kept" grep -q "Linux version" "$dir/console.log"
check "flood: ...and a line says what was left out" grep -q "kfleet: the guest wrote [0-9]* bytes to its console" "$dir/console.log"
check "flood: one file of at most about 4.5 MiB, no rotated ones left" sh -c "[ \$(stat -c %s '$dir/console.log') -lt 4800000 ] && ! ls '$dir'/console.log.* 2>/dev/null | grep -q ."
check "late WARNING: a crash, seen past the rotation" equals "$(kf_field "$late" outcome)" crash
check "late WARNING: ...the WARNING named" contains "$(kf_field "$late" detail)" "WARNING"

# kfleet logs -f follows a run live: its output's first line shows while the
# guest still runs, the console comes too, and it ends with the outcome
# (the guest sleeps past kf_dom's 60 s bound: a Chromium slow to start on a
# loaded machine still finds the run running)
live=$(kf run --kernel "$KERNEL" --timeout 180 -- 'echo live-first; echo "<2>kfleet-live: a console line" > /dev/kmsg; sleep 62; echo live-second' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
# beside it, a hostile guest: a title set by OSC, colours, a bare CR, a C1
# CSI (U+009B), on its output and its console
esc=$(kf run --kernel "$KERNEL" --timeout 120 -- 'printf "\033]0;pwned\007\033[31mred\033[0m\rcr\n\302\233c1\n"; printf "\033]0;console-pwned\007\n" > /dev/console' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
kf logs -f "$live" > "$T/live.out" 2>&1 &
lpid=$!
seen=
for _ in $(seq 1 1500); do
	if grep -q '^| live-first' "$T/live.out"; then seen=$(kf_field "$live" state); break; fi
	sleep 0.2
done
check "logs -f: the output's first line seen while the run is still running" equals "$seen" running
check "logs -f: ...and its last line not yet" sh -c "! grep -q live-second '$T/live.out'"
# the run page, as a browser shows it while the guest runs and after
page=$(kf_dom "/runs/$live")
check "run page (Chromium) while it runs: it reloads itself" contains "$page" '<meta http-equiv="refresh" content="5">'
check "...and shows the console's tail so far" contains "$page" "kfleet-live: a console line"
wait $lpid
lrc=$?
check "logs -f: exits 0 for a passed run" equals "$lrc" 0
check "logs -f: the console followed too" grep -q "kfleet-live: a console line" "$T/live.out"
check "logs -f: the line after the sleep" grep -q '^| live-second' "$T/live.out"
check "logs -f: ends with the outcome" equals "$(tail -n 1 "$T/live.out")" "run $live: passed: command exited with code 0"
page=$(kf_dom "/runs/$live")
check "run page (Chromium) once done: no more reloads" lacks "$page" 'http-equiv="refresh"'
check "...the outcome and the output's last line" has "$page" '<span class="passed">passed</span>' live-second
check "logs --output: only the output, unmarked" equals "$(kf logs --output "$live")" "$(printf 'live-first\nlive-second')"
check "logs --console: the boot log, no output lines" sh -c "'$BIN/kfleet' --url '$KF_URL' --token-file '$T/var/token' logs --console '$live' | grep -q 'Linux version' && ! '$BIN/kfleet' --url '$KF_URL' --token-file '$T/var/token' logs --console '$live' | grep -q live-first"
# has_esc TEXT: TEXT holds an ESC byte
has_esc() { [ "$(printf '%s' "$1" | tr -dc '\033' | wc -c)" -gt 0 ]; }
no_esc() { ! has_esc "$1" || { echo "  an ESC byte in: $(printf '%s' "$1" | grep -a pwned | od -c | head -n 5)" >&2; return 1; }; }
kf_wait_state "$esc" done 200
check "escapes: the run passed" kf_outcome "$esc" passed
out=$(kf logs "$esc")
check "escapes: kfleet logs prints no ESC byte" no_esc "$out"
check "...but shows the title, the colours, the CR and the C1 CSI" has "$out" '| ^[]0;pwned^G^[[31mred^[[0m^Mcr' '| \u009bc1' '^[]0;console-pwned^G'
check "escapes: kfleet logs --raw prints them as the guest wrote them" contains "$(kf logs --raw --output "$esc")" "$(printf '\033]0;pwned\007\033[31mred\033[0m\rcr')"
out=$(kf show "$esc")
check "escapes: kfleet show prints no ESC byte" no_esc "$out"
check "...but shows them" contains "$out" '^[]0;pwned^G^[[31mred^[[0m^Mcr'
check "escapes: kfleet show --raw as written" contains "$(kf show --raw "$esc")" "$(printf '\033]0;pwned\007')"
page=$(curl -sf "$KF_URL/runs/$esc")
check "escapes: the run page holds no ESC byte" no_esc "$page"
check "...and shows it as a picture (U+241B)" contains "$page" "$(printf '\342\220\233]0;pwned')"
check "logs of a run that does not exist: an error naming it" contains "$(kf logs 999999 2>&1)" "run 999999: no such run"
check "tail API: a bad offset refused" equals "$(curl -s -o /dev/null -w '%{http_code}' "$KF_URL/api/runs/$live/tail?console=-1")" 400
kf_stop
kf_done
