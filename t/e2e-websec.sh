#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# What an HTTP client can read or reach, no guest booted: a watch whose
# patchwork, lore and SMTP URLs carry passwords, and a host URI with a
# keyfile=, fail against a closed port; no page and no API answer, with or
# without the token, shows a password, the token or the keyfile, and the
# errors are stored masked. A request whose Host is not the daemon's (a
# page that DNS rebinding pointed at it) is refused, pages and API, GET
# and POST; allowed_hosts adds names. A listen address off loopback is
# warned about, by kfleetd -n and at start.
# tier: quick (builds no real kernel, under a minute: make check-quick)
. "$(dirname "$0")/lib.sh"

# none_of TEXT: TEXT holds none of the secrets
SECRETS="PwSecret1x SmtpSecret2x TokSecret3x KeySecret4x LoreSecret5x"
none_of() { for s in $SECRETS; do lacks "$1" "$s" || return 1; done; }

# port 1 on loopback: nothing listens, every connection is refused at once
kf_config "
[watch sec]
patchwork = http://kf:PwSecret1x@127.0.0.1:1
project = fake
tree = fake
interval = 1
timeout = 2
token = TokSecret3x
report_dir = $T/mail
send = yes
smtp = smtps://kf:SmtpSecret2x@127.0.0.1:1
from = kfleet <kfleet@kfleet.invalid>"
sed -i "s|^uri = qemu:///system$|uri = qemu:///system?keyfile=/root/.ssh/KeySecret4x|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
out=$(kf watch add cli lore=http://kf:LoreSecret5x@127.0.0.1:1/list tree=fake interval=1 timeout=2 2>&1)
check "a lore watch with a password is added" contains "$out" "watch 'cli': added"

# a reply mail due: sending it fails against the closed port
mkdir -p "$T/mail"
printf 'From: kfleet <kfleet@kfleet.invalid>\nTo: dev@kfleet.invalid\nSubject: Re: x\n\nbody\n' > "$T/mail/due.eml"
db "insert into watch_series (watch, remote_id, msgid, version, name, submitter, mbox_url, patches,
	seen_at, state, verdict, verdict_detail, mail_path) values ('sec', 900, 'due@x', 1, 'due',
	'Dev <dev@kfleet.invalid>', 'http://127.0.0.1:1/mbox', '[1]', 1, 'reported', 'success', 'ok',
	'$T/mail/due.eml')"
# what a daemon before the masking stored: shown masked all the same
db "insert into watch_series (watch, remote_id, msgid, version, name, mbox_url, patches, seen_at,
	state, detail, kcidb_error) values ('sec', 901, 'old@x', 1, 'old', 'http://127.0.0.1:1/mbox',
	'[2]', 1, 'skipped', 'try 1 failed: ''http://kf:PwSecret1x@127.0.0.1:1/mbox'': refused',
	'''http://kf:PwSecret1x@127.0.0.1:1/kcidb'': refused')"
db "insert into watch_checks (series_id, patch_id, state, posted_at, error) select id, 2, 'pending',
	1, '''http://kf:PwSecret1x@127.0.0.1:1/api/1.2/patches/2/checks/'': refused' from watch_series
	where msgid = 'old@x'"
db "insert into watch_log (watch, at, level, text) values ('sec', 1, 'error',
	'old: ''smtps://kf:SmtpSecret2x@127.0.0.1:1'': refused')"

check "the patchwork poll fails, saying where" wait_for 30 "select last_error like '%127.0.0.1:1%' from watches where name = 'sec'" 1
check "the lore poll fails too" wait_for 30 "select last_error like '%127.0.0.1:1%' from watches where name = 'cli'" 1
check "the reply mail is not sent, saying where" wait_for 30 "select mail_error like '%127.0.0.1:1%' from watch_series where msgid = 'due@x'" 1
check "...the errors are stored with the password masked" equals "$(db "select last_error like '%kf:***@127.0.0.1:1%' from watches order by name") $(db "select mail_error like '%smtps://kf:***@127.0.0.1:1%' from watch_series where msgid = 'due@x'")" "1
1 1"
check "...and no password in the database's errors and log but the old line" equals "$(db "select count(*) from watch_log where text like '%Secret%'") $(db "select count(*) from watches where last_error like '%Secret%'") $(db "select count(*) from watch_series where mail_error like '%Secret%'")" "1 0 0"

auth="Authorization: Bearer $(cat "$T/var/token")"
for path in /api/watches /watches /hosts /api/hosts; do
	anon=$(curl -sf "$KF_URL$path")
	authed=$(curl -sf -H "$auth" "$KF_URL$path")
	check "$path answers" test -n "$anon" -a -n "$authed"
	check "...without the token: no password, token or keyfile" none_of "$anon"
	check "...with the token neither" none_of "$authed"
done
api=$(curl -sf "$KF_URL/api/watches")
check "/api/watches shows the URLs, their passwords masked" has "$api" '"patchwork":"http://kf:***@127.0.0.1:1"' '"smtp":"smtps://kf:***@127.0.0.1:1"' '"lore":"http://kf:***@127.0.0.1:1/list"'
check "...the token as set, not shown" contains "$api" '"token":"(set, not shown)"'
check "...the errors of the poll, the mail, the check and the log, masked" has "$api" "'http://kf:***@127.0.0.1:1/api/1.2/series/" "not sent" "'smtps://kf:***@127.0.0.1:1'" "'http://kf:***@127.0.0.1:1/api/1.2/patches/2/checks/'" "'http://kf:***@127.0.0.1:1/kcidb'" "try 1 failed: 'http://kf:***@127.0.0.1:1/mbox'"
check "/watches shows them masked" has "$(curl -sf "$KF_URL/watches")" "http://kf:***@127.0.0.1:1" "not sent: &#39;smtps://kf:***@127.0.0.1:1&#39;" "not posted: &#39;http://kf:***@127.0.0.1:1/api"
check "/api/hosts shows the URI, its keyfile masked" contains "$(curl -sf "$KF_URL/api/hosts")" '"uri":"qemu:///system?keyfile=***"'
check "/hosts too" contains "$(curl -sf "$KF_URL/hosts")" "qemu:///system?keyfile=***"

# the Host header
port=${KF_URL##*:}
# code HOST PATH [CURL ARGS]: the status of a GET (or what the args make it) with that Host
code() { h=$1; p=$2; shift 2; curl -s -o "$T/body" -w '%{http_code}' -H "Host: $h" "$@" "$KF_URL$p"; }
check "a page asked with another site's Host is refused (421)" equals "$(code evil.example /)" 421
check "...saying why" contains "$(cat "$T/body")" "Host &#39;evil.example&#39; is not a name of this kfleetd, which answers to localhost, 127.0.0.1, [::1] with the daemon&#39;s port or none: refused, so that a page of another site cannot reach it by DNS rebinding"
check "...so is the API, in JSON" equals "$(code "evil.example:$port" /api/health)" 421
check "...saying why" contains "$(cat "$T/body")" '{"error":"Host '"'evil.example:$port'"' is not a name of this kfleetd'
check "...the watches' page and API too" equals "$(code evil.example /watches) $(code evil.example /api/watches)" "421 421"
check "...and a POST with the token, before its body is read" equals "$(code evil.example /api/runs -X POST -H "$auth" -H 'Content-Type: application/json' -d "{\"kernel\": \"$KERNEL\", \"command\": \"true\"}")" 421
check "...no run was queued by it" equals "$(db "select count(*) from runs")" 0
check "...nor a Host on another port of loopback" equals "$(code "127.0.0.1:$((port + 1))" /api/health)" 421
check "the daemon's own names are served, with its port or none" equals "$(code "127.0.0.1:$port" /api/health) $(code "localhost:$port" /) $(code "[::1]:$port" /api/health) $(code localhost /api/health) $(code LOCALHOST:$port /api/health)" "200 200 200 200 200"
check "...and curl's own Host" equals "$(curl -s -o /dev/null -w '%{http_code}' "$KF_URL/api/health")" 200
check "HTTP/1.0 without a Host is served" equals "$(curl -s -o /dev/null -w '%{http_code}' --http1.0 -H 'Host:' "$KF_URL/api/health")" 200
check "...HTTP/1.1 without one is a bad request" equals "$(curl -s -o /dev/null -w '%{http_code}' --http1.1 -H 'Host:' "$KF_URL/api/health")" 400
check "the CLI is served" contains "$(kf watch list 2>&1)" "sec "

kf_stop
sed -i "s|^log_level = info$|log_level = info\nallowed_hosts = kfleet.example, proxy.example:8443|" "$T/kfleetd.ini"
check "kfleetd -nv prints allowed_hosts" contains "$("$BIN/kfleetd" -nv -c "$T/kfleetd.ini" 2>&1)" "allowed_hosts = kfleet.example proxy.example:8443"
check "kfleetd starts with allowed_hosts" kf_start
port=${KF_URL##*:}
check "allowed_hosts adds a name, with any port" equals "$(code kfleet.example /) $(code kfleet.example:443 /api/health)" "200 200"
check "...or with the port it gives" equals "$(code proxy.example:8443 /api/health) $(code proxy.example /api/health)" "200 421"
check "...the refusal names them" contains "$(cat "$T/body")" "and the names of [daemon] allowed_hosts"
check "...others are still refused" equals "$(code evil.example /)" 421
cp "$T/kfleetd.ini" "$T/bad.ini"
sed -i "s|^allowed_hosts = .*|allowed_hosts = kfleet.example evil/x|" "$T/bad.ini"
check "a bad allowed_hosts entry is a config error on its line" contains "$("$BIN/kfleetd" -n -c "$T/bad.ini" 2>&1)" "bad.ini:$(grep -n '^allowed_hosts' "$T/bad.ini" | cut -d: -f1): allowed_hosts: 'evil/x' is not NAME[:PORT]"

# a listen address off loopback
out=$("$BIN/kfleetd" -n -c "$T/kfleetd.ini" 2>&1)
check "kfleetd -n: loopback gives no warning" lacks "$out" "warning"
kf_stop
sed -i "s|^listen = 127.0.0.1:0$|listen = 0.0.0.0:0|" "$T/kfleetd.ini"
out=$("$BIN/kfleetd" -n -c "$T/kfleetd.ini" 2>&1)
check "kfleetd -n warns of listen = 0.0.0.0" contains "$out" "kfleetd: warning: listen = 0.0.0.0:0 is not a loopback address: the pages and the API are reachable from the network, and the token is the only guard"
check "...and says what a Host must then be" contains "$out" "a request is served only when its Host is localhost, 127.0.0.1, [::1] or a name of [daemon] allowed_hosts"
check "...the config is still fine" contains "$out" "configuration $T/kfleetd.ini: ok"
# started on it (accepting only, for the moment it takes): it says so in its log
"$BIN/kfleetd" -c "$T/kfleetd.ini" > "$T/wild.log" 2>&1 &
KF_PID=$!
for _ in $(seq 1 300); do grep -q 'kfleetd ready' "$T/wild.log" && break; sleep 0.1; done
kf_stop
check "kfleetd warns at start of listen = 0.0.0.0" contains "$(cat "$T/wild.log")" "warn: listen = 0.0.0.0:0 is not a loopback address: the pages and the API are reachable from the network"
kf_done
