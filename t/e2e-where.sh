#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Runs show where they are: on one slot, a finished run of a job that
# sleeps 10 s gives the job its usual time; then three more are queued: the
# first runs, the others wait. `kfleet runs`, /api/queue and the /queue
# page (in headless Chromium) must give the queued ones their place and an
# expected start, the running one its phase (booting, then running its
# command) and, while its command runs, its time so far against the usual.
. "$(dirname "$0")/lib.sh"

matches() {
	printf '%s\n' "$1" | grep -q -E -- "$2" && return 0
	echo "  expected a line matching '$2' in: $(printf '%s' "$1" | head -c 1500)" >&2
	return 1
}

mkdir -p "$T/jobs"
cat > "$T/jobs/wait-demo.job" <<'EOJ'
[job]
name = wait-demo
description = a command that takes 10 s
command = echo started; sleep 10; echo done
parser = none
timeout = 60
EOJ
SLOTS=1 kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $T/jobs|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
out=$(kf run --job wait-demo --kernel "$KERNEL" --wait 2>&1)
check "a first run gives the job its usual time" equals "$(kf_field 1 outcome)" passed

for i in 1 2 3; do kf run --job wait-demo --kernel "$KERNEL" >/dev/null 2>&1; done
# run 2's phases as /api/queue gives them, until its command runs; and
# `kfleet runs` once while it boots
phases=""; booting_line=""; late_line=""
for _ in $(seq 1 600); do
	p=$(curl -sf "$KF_URL/api/queue" | python3 -c 'import json,sys
for r in json.load(sys.stdin)["runs"]:
    if r["id"] == 2: print(r["phase"] or "none")')
	case " $phases " in *" $p "*) ;; *) phases="$phases $p" ;; esac
	# (the guest may finish booting while kfleet runs starts on a loaded
	# machine: asked again while the queue still says booting)
	if [ "$p" = booting ] && [ -z "$booting_line" ]; then
		l=$(kf runs 2>&1 | grep '^  run 2 ')
		case "$l" in *" booting for "*) booting_line=$l ;; *) late_line=$l ;; esac
	fi
	[ "$p" = running ] && break
	sleep 0.2
done
check "/api/queue: run 2 boots, then runs its command" matches "$phases" " booting running\$"
check "kfleet runs: a booting run says so" matches "${booting_line:-$late_line}" "^  run 2 +running +wait-demo +booting for [0-9.]+ (ms|s)\$"
out=$(kf runs 2>&1)
check "kfleet runs: where the runs not done are" contains "$out" "where the runs not done are:"
check "...the running one against its usual time" matches "$out" "^  run 2 +running +wait-demo +[0-9.]+ (ms|s) of its usual [0-9.]+ s \\([0-9]+%\\)\$"
check "...the next one first in the queue, with a start" matches "$out" "^  run 3 +queued +wait-demo +#1 in the queue, starts (in about [0-9.]+ (ms|s)|as soon as a slot frees)\$"
check "...and the last one second" matches "$out" "^  run 4 +queued +wait-demo +#2 in the queue, starts in about [0-9.]+ (ms|s)\$"
j=$(curl -sf "$KF_URL/api/queue")
check "/api/queue: the running run's phase and its time in it" matches "$j" "\"id\":2,\"state\":\"running\",.*\"phase\":\"running\",\"phase_ms\":[0-9]+\\},\\{\"id\":3,"
check "/api/queue: positions" matches "$j" "\"id\":4,.*\"position\":2"
check "...and expected starts" matches "$j" "\"id\":4,.*\"expected_start_in_ms\":[0-9]+"
check "...none for the running run" matches "$j" "\"id\":2,\"state\":\"running\",.*\"position\":null,\"expected_start_in_ms\":null,\"phase\":\"running\","
page=$(kf_dom /queue)
check "/queue: a where column" contains "$page" "<th>where</th>"
check "...the running run against its usual time" matches "$page" "<td class=\"where\">[0-9.]+ (ms|s) of its usual [0-9.]+ s \\([0-9]+%\\)"
check "...the queued ones by place" matches "$page" "<td class=\"where\">#2 in the queue, starts in about [0-9.]+ (ms|s)</td>"
kf_done
