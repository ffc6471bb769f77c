#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fetch a stock Debian kernel image for booting in QEMU: apt-get download of
# linux-image-<KVER>, extracted (never installed) into the cache. A kernel
# Debian 12 does not have (7.3 from trixie-backports) comes through lib.sh's
# private apt configuration, from its linux-binary-<KVER> package, which
# puts the image at /usr/lib/modules/<KVER>/vmlinuz.
#
# Usage: stock-kernel.sh KVER    e.g. 6.12.117+deb12-amd64, 7.3.4+deb13-amd64
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
		local deb
		if apt-cache show "linux-image-$kver" >/dev/null 2>&1; then
			(cd "$dir/deb" && apt-get download "linux-image-$kver") || return
			deb=$(ls "$dir"/deb/linux-image-*.deb)
		else
			deb=$(newer_deb "linux-binary-$kver") || return
		fi
		dpkg-deb -x "$deb" "$dir" || return
		if [ -f "$dir/usr/lib/modules/$kver/vmlinuz" ]; then
			mkdir -p "$dir/boot"
			mv "$dir/usr/lib/modules/$kver/vmlinuz" "$vmlinuz"
		fi
		rm -rf "$dir/deb" "$dir/lib/modules" "$dir/usr"
	}
	stage "stock: download and extract linux-image-$kver" \
		"$SNAPTRACE_OUT/logs/stock-$kver.log" fetch
	[ -f "$vmlinuz" ] || die "no $vmlinuz in linux-image-$kver"
else
	say "stock: linux-image-$kver cached"
fi
echo "$vmlinuz"
