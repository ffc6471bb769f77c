#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch a stock Debian kernel image for booting in QEMU: apt-get download of
# linux-image-<KVER>, extracted (never installed) into the cache.
#
# Usage: stock-kernel.sh KVER    e.g. 6.12.117+deb12-amd64
# Prints the path of its vmlinuz as the last line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kver=${1:?usage: stock-kernel.sh KVER}
dir=$SNAPTRACE_CACHE/stock/$kver
vmlinuz=$dir/boot/vmlinuz-$kver

if [ ! -f "$vmlinuz" ]; then
	rm -rf "$dir"
	mkdir -p "$dir/deb"
	fetch() {
		(cd "$dir/deb" && apt-get download "linux-image-$kver") &&
			dpkg-deb -x "$dir"/deb/linux-image-*.deb "$dir" &&
			rm -rf "$dir/deb" "$dir/lib/modules"
	}
	stage "stock: download and extract linux-image-$kver" \
		"$SNAPTRACE_OUT/logs/stock-$kver.log" fetch
	[ -f "$vmlinuz" ] || die "no $vmlinuz in linux-image-$kver"
else
	say "stock: linux-image-$kver cached"
fi
echo "$vmlinuz"
