#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Installs every Debian package kfleet builds, tests and runs with.
# docs/packages.md says what each is for.
set -e
PKGS="gcc make pkg-config libc6-dev
libvirt-daemon-system libvirt-clients libvirt-dev
qemu-system-x86 qemu-system-arm qemu-utils tini iproute2
busybox-static linux-image-amd64
gcc-aarch64-linux-gnu libc6-dev-arm64-cross
libsqlite3-dev sqlite3 libmicrohttpd-dev libjansson-dev libcurl4-openssl-dev
libinih-dev libarchive-dev libssl-dev zlib1g-dev libcmocka-dev python3-aiosmtpd libxml2-dev
curl python3 python3-jsonschema clang git
chromium linux-source-6.1 flex bison bc libelf-dev kmod cpio ccache bubblewrap xz-utils
wrk mmdebstrap libguestfs-dev openssh-server openssh-client fdisk
llvm rsync linux-headers-amd64 dwarves xxd man-db groff-base debhelper
python3-django python3-djangorestframework python3-django-filters public-inbox python3-rfc3987"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/tmp/kfleet-apt.log 2>&1 ||
		{ tail -n 30 /tmp/kfleet-apt.log; exit 1; }
fi
# builds run as this unprivileged user ([build] user, kernels/sandbox.c)
id kfleet-build >/dev/null 2>&1 ||
	useradd --system --user-group --no-create-home --home-dir /nonexistent \
		--shell /usr/sbin/nologin kfleet-build
# arm64 guest pieces (kernel, modules, busybox) from Debian's arm64 packages
sh "$(dirname "$0")/../images/fetch-arm64.sh"
