#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Bad input from outside: a broken config, missing and fake kernels, vCPU
# counts and arches that cannot run, requests without the token, malformed
# JSON, a guest that never boots. Each gets a clear error or outcome, and
# the daemon keeps running with nothing stored lost.
. "$(dirname "$0")/lib.sh"

# A broken config names file:line for every problem and stops kfleetd -n.
cat > "$T/bad.ini" <<'EOC'
[daemon]
listen = localhost
[host a]
accel = fast
slots = many
[nosuch]
this line has no equals sign
EOC
out=$("$BIN/kfleetd" -n -c "$T/bad.ini" 2>&1); rc=$?
check "config: kfleetd -n fails on a broken config" equals "$rc" 1
check "config: bad listen at line 2" contains "$out" "$T/bad.ini:2: listen: 'localhost'"
check "config: bad accel at line 4" contains "$out" "$T/bad.ini:4: accel: 'fast'"
check "config: bad slots at line 5" contains "$out" "$T/bad.ini:5: slots: 'many'"
check "config: syntax error at line 7" contains "$out" "$T/bad.ini:7: syntax error"
out=$("$BIN/kfleetd" -n -c "$T/nonexistent.ini" 2>&1)
check "config: a missing file is named" contains "$out" "$T/nonexistent.ini: No such file or directory"
out=$("$BIN/kfleetd" -nv 2>&1)
check "config: -nv prints the embedded defaults" contains "$out" "uri = qemu:///system"

BOOT_TIMEOUT=2 kf_config
check "kfleetd starts" kf_start
good=$(kf run --kernel "$KERNEL" -- 'echo survived' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')

out=$(kf run --kernel "$T/missing-vmlinuz" -- true 2>&1); rc=$?
check "kernel: a missing file is refused (exit 2)" equals "$rc" 2
check "kernel: ...with the path and the reason" contains "$out" "kernel '$T/missing-vmlinuz': No such file or directory"
head -c 1000000 /dev/urandom > "$T/garbage"
out=$(kf run --kernel "$T/garbage" -- true 2>&1)
check "kernel: random bytes are not a bzImage" contains "$out" "not an x86_64 bzImage"
out=$(kf run --kernel "$T" -- true 2>&1)
check "kernel: a directory is refused" contains "$out" "not a regular file"
out=$(kf run --kernel "$KERNEL" --vcpus 1000 -- true 2>&1)
check "vcpus: above the host's limit is refused" contains "$out" "vcpus 1000: must be from 1 to"
out=$(kf run --kernel "$KERNEL" --vcpus 0 -- true 2>&1); rc=$?
check "vcpus: 0 is refused" sh -c "[ $rc -eq 2 ] && echo '$out' | grep -q vcpus"
out=$(kf run --kernel "$KERNEL" --arch sparc -- true 2>&1)
check "arch: unknown arch named" contains "$out" "arch 'sparc': unknown"

tok=$(cat "$T/var/token")
code=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -d '{"kernel":"/x","command":"true"}' "$KF_URL/api/runs")
check "api: no token -> 401" equals "$code" 401
code=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer wrong$tok" -d '{"kernel":"/x","command":"true"}' "$KF_URL/api/runs")
check "api: wrong token -> 401" equals "$code" 401
code=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" -d '{"kernel": "/x", "command": tru' "$KF_URL/api/runs")
check "api: malformed JSON -> 400" equals "$code" 400
check "api: ...saying where" contains "$(cat "$T/body")" "request body: line 1, column"
code=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" -d "{\"kernel\":\"$KERNEL\",\"command\":\"true\",\"vcpus\":0}" "$KF_URL/api/runs")
check "api: vcpus 0 -> 400" equals "$code" 400
code=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" -d "{\"kernel\":\"$KERNEL\",\"command\":\"true\",\"vcpus\":\"two\"}" "$KF_URL/api/runs")
check "api: vcpus of the wrong type -> 400 naming it" sh -c "[ $code = 400 ] && grep -q vcpus '$T/body'"
head -c 200000 /dev/zero | tr '\0' 'a' > "$T/big"
code=$(curl -s -o "$T/body" -w '%{http_code}' -X POST -H "Authorization: Bearer $tok" --data-binary @"$T/big" "$KF_URL/api/runs")
check "api: a huge body -> 413" equals "$code" 413
code=$(curl -s -o /dev/null -w '%{http_code}' "$KF_URL/runs/99999")
check "page: unknown run -> 404" equals "$code" 404
code=$(curl -s -o /dev/null -w '%{http_code}' "$KF_URL/api/runs?limit=abc")
check "api: bad limit -> 400" equals "$code" 400

# A guest that never says hello within the boot timeout (2 s here; the
# kernel needs more under TCG) ends as no-boot, with its console kept.
nb=$(kf run --kernel "$KERNEL" -- true 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
# A kernel whose image is cut short: its header is fine, the rest is not.
head -c 3000000 "$KERNEL" > "$T/truncated-vmlinuz"
tr_id=$(kf run --kernel "$T/truncated-vmlinuz" -- true 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
kf_wait_state "$nb" done 120
kf_wait_state "$tr_id" done 120
kf_wait_state "$good" done 120
check "no-boot: outcome" equals "$(kf_field "$nb" outcome)" no-boot
check "no-boot: detail names the boot timeout" contains "$(kf_field "$nb" detail)" "no agent hello within 2 s"
check "no-boot: console file kept" test -f "$(kf_field "$nb" run_dir)/console.log"
check "truncated kernel: no-boot" equals "$(kf_field "$tr_id" outcome)" no-boot
check "the daemon is still up" sh -c "curl -sf '$KF_URL/api/health' >/dev/null"
check "nothing stored was lost: every run is there" equals "$(sqlite3 "$T/var/kfleet.db" "select count(*) from runs")" 3
check "database integrity" equals "$(sqlite3 "$T/var/kfleet.db" "pragma integrity_check")" ok
kf_done
