#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build snaptrace.ko for a stock Debian kernel newer than Debian 12 can
# build for (7.3 from trixie-backports: its headers were made by gcc-14 and
# want trixie's linux-kbuild), in a trixie chroot: debootstrap'ed once with
# gcc-14, make and dkms, the kernel's headers installed from the .debs that
# lib.sh's private apt configuration fetched; cached under
# $SNAPTRACE_CACHE/chroot, keyed by the headers' version and this script.
# Nothing is installed on the host but debootstrap (make deps).
#
# Usage: newer-stock.sh build KVER OUTDIR   the module, W=1, no warnings
#        newer-stock.sh dkms KVER OUTDIR    tests/drivers/dkms-check.sh, in the chroot
# e.g. newer-stock.sh build 7.3.4+deb13-amd64 out/build/7.3.4+deb13-amd64
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# debootstrap, mount and chroot: root's work (sudo, as apt-get's).
[ "$(id -u)" -eq 0 ] ||
	exec sudo SNAPTRACE_CACHE="$SNAPTRACE_CACHE" SNAPTRACE_OUT="$SNAPTRACE_OUT" \
		_t0="$_t0" "$0" "$@"

what=${1:?usage: newer-stock.sh build|dkms KVER OUTDIR}
kver=${2:?usage: newer-stock.sh build|dkms KVER OUTDIR}
out=$(realpath -m "${3:?usage: newer-stock.sh build|dkms KVER OUTDIR}")
suite=trixie
abi=${kver%%-*}

# The headers and what they need from the same source package.
pkgs=("linux-headers-$kver" "linux-headers-$abi-common" "linux-kbuild-$abi"
	"linux-base-$kver")
debs=()
for p in "${pkgs[@]}"; do
	d=$(newer_deb "$p") || die "cannot fetch $p"
	debs+=("$d")
done
hver=$(dpkg-deb -f "${debs[0]}" Version)
# What the chroot holds besides minbase; with the suite and the headers'
# version, its cache key.
include=gcc-14,make,libc6-dev,dkms,kmod,xz-utils,bc,openssl
key=$(echo "$suite $kver $hver $include" | hash_of -)
root=$SNAPTRACE_CACHE/chroot/$suite-$kver-$key
logs=$SNAPTRACE_OUT/logs

# unmount_all: what in_chroot mounted, even if something inside still
# holds it (lazily): never leave the host's /dev under a tree rm -rf may
# remove.
unmount_all() {
	local m
	for m in "$root/dev" "$root/proc"; do
		! mountpoint -q "$m" || umount -l "$m"
	done
}
# in_chroot CMD...: run CMD inside, with /proc (7.3's objtool reads it) and
# /dev mounted for the command's time only.
in_chroot() {
	local rc=0
	mount -t proc proc "$root/proc"
	mount --bind /dev "$root/dev"
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 "$@" || rc=$?
	unmount_all
	return $rc
}
trap unmount_all EXIT

if [ ! -f "$root/.snaptrace-ready" ]; then
	command -v debootstrap >/dev/null || PATH=$PATH:/usr/sbin
	command -v debootstrap >/dev/null || die "debootstrap missing: run 'make deps'"
	unmount_all
	rm -rf --one-file-system "$root"
	mkdir -p "$root"
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	stage "chroot: debootstrap $suite (gcc-14, make, dkms)" "$logs/chroot-$suite.log" \
		debootstrap --variant=minbase \
		--include="$include" \
		"$suite" "$root" "${uri:-http://deb.debian.org/debian}"
	mkdir -p "$root/tmp/debs"
	cp "${debs[@]}" "$root/tmp/debs/"
	install_headers() {
		in_chroot sh -c 'DEBIAN_FRONTEND=noninteractive apt-get install -y \
			--no-install-recommends /tmp/debs/*.deb && rm -rf /tmp/debs &&
			apt-get clean'
	}
	stage "chroot: install linux-headers-$kver" "$logs/chroot-$suite-headers.log" \
		install_headers
	touch "$root/.snaptrace-ready"
else
	say "chroot: $suite with linux-headers-$kver cached"
fi

# The project's sources and scripts, copied in: the build runs the same
# scripts as on the host, inside.
rm -rf "$root/build"
mkdir -p "$root/build/src"
(cd "$SNAPTRACE_TOP" && cp -r Kbuild Kconfig dkms.conf src include compat-include \
	tests scripts examples Documentation "$root/build/src/")
case $what in
build)
	in_chroot env SNAPTRACE_CACHE=/build/cache SNAPTRACE_OUT=/build/out _t0="$_t0" \
		/build/src/scripts/build-module.sh "/usr/src/linux-headers-$kver" /build/mods
	src=$root/build/mods ;;
dkms)
	in_chroot env SNAPTRACE_CACHE=/build/cache SNAPTRACE_OUT=/build/out _t0="$_t0" \
		/build/src/tests/drivers/dkms-check.sh "$kver" /build/mods
	src=$root/build/mods ;;
*) die "usage: newer-stock.sh build|dkms KVER OUTDIR" ;;
esac
rm -rf "$out"
mkdir -p "$out"
cp "$src"/*.ko "$out/"
[ ! -f "$src/build.log" ] || cp "$src/build.log" "$out/"
cp -r "$root/build/out/logs/." "$logs/" 2>/dev/null || true
rm -rf "$root/build"
say "chroot: $(cd "$out" && echo *.ko) -> $out"
