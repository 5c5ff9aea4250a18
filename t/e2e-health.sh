#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Health beyond a live connection: when the state directory has less room
# than min_free_disk, hosts leave placement with the reason shown (a full
# disk would fail every run as infra), queued runs wait, and they run once
# there is room again. 300 slow clients (a header line every 3 s) do not
# stop the server answering others.
. "$(dirname "$0")/lib.sh"

kf_config ""
sed -i "s|^log_level = info$|log_level = info\nmin_free_disk = 1000000G|" "$T/kfleetd.ini"
check "kfleetd starts" kf_start
id=$(kf run --kernel "$KERNEL" -- 'echo room' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "a run is queued" test -n "$id"
for _ in $(seq 1 50); do
	[ "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" = 0 ] && break
	sleep 0.2
done
check "the host is out of placement, and says why" contains \
	"$(sqlite3 "$T/var/kfleet.db" "select healthy || ' ' || health_detail from hosts where name = 'local'")" \
	"0 disk: "
check "...on the hosts page" contains "$(curl -sf "$KF_URL/hosts")" "less than min_free_disk"
sleep 3
check "the run waits" equals "$(kf_field "$id" state)" queued
kf_stop
sed -i "s|^min_free_disk = 1000000G$|min_free_disk = 1M|" "$T/kfleetd.ini"
check "kfleetd restarts with room" kf_start
check "the run runs" kf_wait_state "$id" done 120
check "...and passes" kf_outcome "$id" passed
check "the host is back in placement" equals "$(sqlite3 "$T/var/kfleet.db" "select healthy from hosts where name = 'local'")" 1

# 300 slow clients on loopback, each sending a header line every 3 s for
# 40 s: another address's requests answer at once, this address's too once
# the header deadline (10 s) has closed the slow ones; none of them got a
# page
python3 - "$port" 300 40 > "$T/slow.out" 2>&1 <<'EOP' &
import socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
conns, refused, served = [], 0, 0
for i in range(n):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=2)
        s.sendall(b"GET /api/health HTTP/1.1\r\nHost: x\r\n")
        conns.append(s)
    except OSError:
        refused += 1
t0 = time.time()
while time.time() - t0 < secs and conns:
    time.sleep(3)
    for s in list(conns):
        try:
            s.sendall(b"X-Slow: 1\r\n")
            s.settimeout(0.01)
            try:
                d = s.recv(100)
                if d.startswith(b"HTTP/1.1 200"):
                    served += 1
                conns.remove(s)
            except socket.timeout:
                pass
        except OSError:
            conns.remove(s)
print("opened %d, refused %d, served %d, still open after %d s: %d" % (n - refused, refused, served, secs, len(conns)))
EOP
slow=$!
sleep 4
t0=$(date +%s%3N)
check "slow clients: another address is answered at once" sh -c "curl -sf --max-time 3 --interface 127.0.0.2 'http://127.0.0.1:$port/api/health' >/dev/null"
echo "  /api/health from 127.0.0.2 beside 300 slow clients: $(( $(date +%s%3N) - t0 )) ms"
sleep 10
check "slow clients: their own address too, once the deadline closed them" sh -c "curl -sf --max-time 5 'http://127.0.0.1:$port/api/health' >/dev/null"
wait $slow
echo "  $(cat "$T/slow.out")"
check "slow clients: none was served, none is left open" contains "$(cat "$T/slow.out")" "served 0, still open after 40 s: 0"
kf_done
