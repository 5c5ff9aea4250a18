#!/bin/sh
# Runs show where they are: on one slot, a finished run of metrics-demo
# gives the job its usual time; then three more are queued: the first
# runs, the others wait. `kfleet runs`, /api/queue and the /queue page (in
# headless Chromium) must give the queued ones their place and an
# expected start, and the running one its time so far against the usual.
. "$(dirname "$0")/lib.sh"

CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser)}
dom() {
	timeout 60 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--user-data-dir="$T/chromium" --dump-dom "$KF_URL$1" 2>>"$T/chromium.log"
}
matches() {
	printf '%s\n' "$1" | grep -q -E -- "$2" && return 0
	echo "  expected a line matching '$2' in: $(printf '%s' "$1" | head -c 1500)" >&2
	return 1
}

SLOTS=1 kf_config ""
sed -i "s|^log_level = info$|log_level = info\njob_dirs = $TOP/t/data/jobs-e2e|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
out=$(kf run --job metrics-demo --kernel "$KERNEL" --wait 2>&1)
check "a first run gives the job its usual time" equals "$(kf_field 1 outcome)" passed

for i in 1 2 3; do kf run --job metrics-demo --kernel "$KERNEL" >/dev/null 2>&1; done
kf_wait_state 2 running 120
out=$(kf runs 2>&1)
check "kfleet runs: where the runs not done are" contains "$out" "where the runs not done are:"
check "...the running one against its usual time" matches "$out" "^  run 2 +running +metrics-demo +[0-9.]+ (ms|s) of its usual [0-9.]+ s \\([0-9]+%\\)\$"
check "...the next one first in the queue, with a start" matches "$out" "^  run 3 +queued +metrics-demo +#1 in the queue, starts (in about [0-9.]+ (ms|s)|as soon as a slot frees)\$"
check "...and the last one second" matches "$out" "^  run 4 +queued +metrics-demo +#2 in the queue, starts in about [0-9.]+ (ms|s)\$"
j=$(curl -sf "$KF_URL/api/queue")
check "/api/queue: positions" matches "$j" "\"id\":4,.*\"position\":2"
check "...and expected starts" matches "$j" "\"id\":4,.*\"expected_start_in_ms\":[0-9]+"
check "...none for the running run" matches "$j" "\"id\":2,\"state\":\"running\",.*\"position\":null,\"expected_start_in_ms\":null\\},\\{\"id\":3,"
page=$(dom /queue)
check "/queue: a where column" contains "$page" "<th>where</th>"
check "...the running run against its usual time" matches "$page" "<td class=\"where\">[0-9.]+ (ms|s) of its usual [0-9.]+ s \\([0-9]+%\\)"
check "...the queued ones by place" matches "$page" "<td class=\"where\">#2 in the queue, starts in about [0-9.]+ (ms|s)</td>"
kf_done
