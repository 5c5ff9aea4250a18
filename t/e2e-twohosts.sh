#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# A second host that is another machine, and losing it mid-run. The second
# host shares nothing with this machine's libvirtd: its own network
# namespace reached over a veth at a test address (an `unreachable` route
# for the test subnet is checked first, so no packet for it can leave the
# machine), its own mount namespace (private /etc/libvirt, /run/libvirt,
# /var/lib/libvirt with the storage pool, /var/log/libvirt), its own UTS
# namespace with the SAME hostname as this machine (machines cloned from
# one image), its own libvirtd, virtlogd and sshd; kfleetd reaches it only
# as qemu+ssh://root@ADDRESS/system, files as storage volumes. Two runs,
# one a host: the second host's libvirtd and sshd are killed while its run
# is in flight (its QEMU lives on), which makes the run infra and queues it
# again, on this machine; /hosts shows the loss within the keepalive's
# bound. The host comes back while the retry runs here: its leftover guest
# (the same domain name) is destroyed there, and that does not end the
# retry: both runs pass exactly once, no domain is left on either host, and
# the two machines are told apart by libvirt's host UUID. Then its packets
# are dropped (a blackhole route inside its namespace): it is shown down
# within the keepalive's bound, and healthy again once they flow.
. "$(dirname "$0")/lib.sh"

KEY=/root/.ssh/kfleet-ci
NS=kf2-$$
N=$(( $$ % 200 + 20 ))
SUBNET=10.213.$N.0
ADDR=10.213.$N.2
VA=kfa$$
VB=kfb$$
D=$T/host2
HOLDER=
GUARD=

host2_cleanup() {
	if [ -n "$HOLDER" ]; then
		nsenter -t "$HOLDER" -m -u -n virsh -c qemu:///system list --name 2>/dev/null |
			while read -r d; do
				[ -n "$d" ] && nsenter -t "$HOLDER" -m -u -n virsh -c qemu:///system destroy "$d" >/dev/null 2>&1
			done
	fi
	for p in $(ip netns pids "$NS" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
	ip netns del "$NS" 2>/dev/null
	ip link del "$VA" 2>/dev/null
	[ -n "$GUARD" ] && ip route del unreachable "$SUBNET/24" metric 4000 2>/dev/null
	kf_cleanup
}
trap host2_cleanup EXIT

check "sshd answers (for its key)" sh "$TOP/.ci/sshd.sh"
# the network: a veth into the namespace; a /24 that cannot leave
ip netns add "$NS" && ip link add "$VA" type veth peer name "$VB" && ip link set "$VB" netns "$NS" &&
	ip addr add "10.213.$N.1/30" dev "$VA" && ip link set "$VA" up &&
	ip netns exec "$NS" ip addr add "$ADDR/30" dev "$VB" &&
	ip netns exec "$NS" ip link set "$VB" up && ip netns exec "$NS" ip link set lo up
ip route add unreachable "$SUBNET/24" metric 4000 && GUARD=1
check "the test subnet cannot leave the machine (unreachable route)" \
	has "$(ip route show "$SUBNET/24"; ip route get "10.213.$N.77" 2>&1)" "unreachable $SUBNET/24" "No route to host"
check "...and the second host's address is on the veth" contains "$(ip route get "$ADDR")" "dev $VA"

# the second host's own mounts, hostname and daemons, in namespaces held
# by a process of their own (its daemons are killed and started again)
mkdir -p "$D/etc" "$D/lib" "$D/log" "$D/cache"
cp -a /etc/libvirt/. "$D/etc/"
rm -f "$D"/etc/qemu/networks/autostart/*
# no cgroups: two libvirtds on one kernel would make the same ones
printf '\ncgroup_controllers = [ ]\n' >> "$D/etc/qemu.conf"
cat > "$D/daemons.sh" <<EOS
setsid tini -s -- libvirtd -p $D/libvirtd.pid >> $D/libvirtd.log 2>&1 < /dev/null &
/usr/sbin/sshd -o ListenAddress=$ADDR -o PermitRootLogin=prohibit-password \
	-o PasswordAuthentication=no -o PidFile=$D/sshd.pid
EOS
cat > "$D/up.sh" <<EOS
set -e
mount --make-rprivate /
mount --bind $D/etc /etc/libvirt
mount -t tmpfs tmpfs /run/libvirt
mount --bind $D/lib /var/lib/libvirt
mount --bind $D/log /var/log/libvirt
mount --bind $D/cache /var/cache/libvirt
hostname "$(hostname)"
virtlogd -d -p $D/virtlogd.pid
. $D/daemons.sh
echo up
exec sleep 100000
EOS
ip netns exec "$NS" unshare --mount --uts sh "$D/up.sh" > "$D/up.log" 2>&1 &
HOLDER=$!
URI="qemu+ssh://root@$ADDR/system?keyfile=$KEY&no_verify=1&no_tty=1"
up() { virsh -c "$URI" hostname >/dev/null 2>&1; }
for _ in $(seq 1 100); do up && break; sleep 0.2; done
check "the second host's libvirtd answers over ssh" up
check "...with this machine's hostname" equals "$(virsh -c "$URI" hostname 2>&1)" "$(hostname)"
check "...but its own libvirtd (no domain of this one's)" equals "$(virsh -c "$URI" list --all --name 2>&1 | grep -c .)" 0

# host2_kill: its libvirtd and sshd (and the ssh sessions) die; QEMU lives
host2_kill() {
	for p in $(ip netns pids "$NS"); do
		case $(cat "/proc/$p/comm" 2>/dev/null) in
		libvirtd|tini|sshd|virt-ssh-helpe*|nc) kill -9 "$p" 2>/dev/null;;
		esac
	done
}
host2_revive() { nsenter -t "$HOLDER" -m -u -n sh "$D/daemons.sh"; }

SLOTS=1 kf_config ""
cat >> "$T/kfleetd.ini" <<EOC

[host two]
uri = $URI
slots = 1
accel = tcg
connect_timeout = 10
pool_path = /var/lib/libvirt/kfleet-pool
EOC
check "kfleetd starts with both hosts" kf_start
check "...both healthy" wait_for 60 "select group_concat(name || ' ' || healthy, ', ') from (select name, healthy from hosts order by name)" "local 1, two 1"
machines=$(kf hosts --json | python3 -c 'import json, sys
h = {x["name"]: x["live"]["machine"] for x in json.load(sys.stdin)["hosts"]}
print(h["local"].split()[0] == h["two"].split()[0], h["local"] != h["two"])')
check "the two machines share a hostname, and are told apart (libvirt's host UUID)" equals "$machines" "True True"

a=$(kf run --kernel "$KERNEL" --timeout 300 -- 'sleep 25; echo run-a-done' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
b=$(kf run --kernel "$KERNEL" --timeout 300 -- 'sleep 25; echo run-b-done' 2>&1 | sed -n 's/^run \([0-9]*\) queued$/\1/p')
check "two runs queued" test -n "$a" -a -n "$b"
check "...one on each host, both booted" wait_for 120 "select count(distinct host_id) || ' ' || count(booted_at) from runs where id in ($a, $b) and state = 'running'" "2 2"
far=$(db "select r.id from runs r join hosts h on h.id = r.host_id where r.id in ($a, $b) and h.name = 'two'")
near=$(db "select r.id from runs r join hosts h on h.id = r.host_id where r.id in ($a, $b) and h.name = 'local'")
far_dom=$(db "select domain from runs where id = $far")
check "...the second host's guest runs there, as a storage-volume host" \
	equals "$(virsh -c "$URI" list --name 2>&1 | grep -c "^$far_dom\$") $(virsh -c "$URI" vol-list kfleet 2>/dev/null | grep -c "$far_dom-initrd")" "1 1"

# the second host's daemons die mid-run
t0=$(date +%s)
host2_kill
check "its host is shown down within the keepalive's bound (45 s)" wait_for 45 "select healthy from hosts where name = 'two'" 0
echo "  host two shown down after $(( $(date +%s) - t0 )) s: $(db "select health_detail from hosts where name = 'two'")"
check "...its run is queued again (infra, attempt 1)" wait_for 60 "select count(*) from attempts where run_id = $far and n = 1 and outcome = 'infra'" 1
check "...and runs again on this machine once its slot is free" wait_for 120 "select h.name || ' ' || r.attempt || ' ' || r.state from runs r join hosts h on h.id = r.host_id where r.id = $far" "local 2 running"

# the host comes back while the retry runs here: its leftover guest, of
# the same name, is destroyed there
host2_revive
check "the second host comes back" wait_for 60 "select healthy from hosts where name = 'two'" 1
check "...the leftover guest was still there (QEMU outlived its libvirtd)" contains "$(grep -h "destroying '$far_dom'" "$T/kfleetd.log")" "host 'two': destroying '$far_dom', left when the connection died"
for _ in $(seq 1 150); do [ "$(virsh -c "$URI" list --name 2>/dev/null | grep -c .)" = 0 ] && break; sleep 0.2; done
check "...and is destroyed there" equals "$(virsh -c "$URI" list --all --name 2>&1 | grep -c .)" 0
check "...and the retry here is still running" equals "$(db "select state || ' ' || attempt from runs where id = $far")" "running 2"

check "both runs end" wait_for 180 "select count(*) from runs where id in ($a, $b) and state = 'done'" 2
check "...both passed" equals "$(db "select group_concat(outcome) from runs where id in ($a, $b)")" "passed,passed"
check "...the retried one once: its output once, its second attempt's" equals \
	"$(kf logs --output "$far" 2>&1 | grep -c 'run-.-done') $(db "select count(*) from attempts where run_id = $far")" "1 2"
# a run is done once its outcome is in, while libvirt may still end its QEMU
left() { virsh -c qemu:///system list --all --name | grep -c "^kf-$(cat "$T/instance")-"; }
for _ in $(seq 1 100); do [ "$(left)" = 0 ] && break; sleep 0.2; done
check "no kfleet domain is left on this machine" equals "$(left)" 0
check "...nor on the second host" equals "$(virsh -c "$URI" list --all --name 2>&1 | grep -c .)" 0
check "kfleet hosts: both healthy again" equals "$(kf hosts | awk '$1 == "local" || $1 == "two" { print $1, $2 }' | tr '\n' ' ')" "local healthy two healthy "

# a host that stops answering, its daemons alive: its packets to this
# machine dropped inside its namespace (a blackhole route, the veth up)
ip netns exec "$NS" ip route add blackhole "10.213.$N.1/32"
t0=$(date +%s)
check "a host whose packets are dropped is shown down within the keepalive's bound (45 s)" \
	wait_for 45 "select healthy from hosts where name = 'two'" 0
echo "  host two shown down after $(( $(date +%s) - t0 )) s: $(db "select health_detail from hosts where name = 'two'")"
ip netns exec "$NS" ip route del blackhole "10.213.$N.1/32"
check "...and healthy again once they flow" wait_for 90 "select healthy from hosts where name = 'two'" 1
kf_done
