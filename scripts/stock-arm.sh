#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Debian 12's stock kernel of an ARM architecture, as users run it on
# their boards: its image, for QEMU's virt machine, and its headers, to
# cross-compile the module against; both fetched with apt-get download
# and extracted (never installed) under $SNAPTRACE_CACHE/stock/<KVER>/.
#
# A private apt configuration ($SNAPTRACE_CACHE/apt-stock-ARCH: its own
# sources list of bookworm, bookworm-updates and bookworm-security on the
# system's mirrors, its own lists and package cache, APT::Architectures
# set on the command line) finds the foreign packages; the system's apt
# sources and dpkg architectures are never touched. The lists are fetched
# once (remove that directory to refresh them); the headers meta package
# names the kernel release (KVER), and the image, headers and kbuild tools
# are taken at the image's exact version.
#
# The headers tree is usable as it comes, with the host's cross compiler
# (make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-, or ARCH=arm
# CROSS_COMPILE=arm-linux-gnueabihf-, which scripts/build-module.sh picks
# from its .config; the Makefile's CC is $(CROSS_COMPILE)gcc-12): Debian's
# linux-headers-KVER points scripts/ and tools/ at linux-kbuild-SERIES,
# which is Multi-Arch: foreign for this use, with a modpost for every ELF
# class and byte order. So the kbuild tools are the host's architecture's
# package of the same version, extracted beside the headers, and no
# user-mode emulation is needed; only the headers' Makefile, which includes
# the -common tree by its absolute /usr/src path, is pointed at the copy in
# the cache. The image is taken out of linux-image-KVER alone (no modules:
# the virt machine's console, RTC and the remoteproc core are built in);
# an arm64 vmlinuz that is gzip-compressed is decompressed, as QEMU's
# -kernel and qemu-run.sh want an Image; armhf's is a zImage.
#
# Usage: stock-arm.sh [ARCH]   ARCH: arm64 (the default; flavour arm64) or
#        armhf (flavour armmp-lpae: ARMv7-A with LPAE, from the Cortex-A7
#        of the STM32MP1 on; QEMU's virt machine runs it)
# Prints the image's path and then the headers tree (KDIR) as its last
# two lines; the release is the tree's name without "linux-headers-".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arch=${1:-arm64}
case $arch in
arm64) flavour=arm64 image=Image ;;
armhf) flavour=armmp-lpae image=zImage ;;
*) die "stock-arm: ARCH arm64 or armhf, not '$arch'" ;;
esac
host=$(dpkg --print-architecture)
apt_dir=$SNAPTRACE_CACHE/apt-stock-$arch
log=$SNAPTRACE_OUT/logs/stock-$arch

# uri_of SUITE: the first URI the system's deb822 sources give SUITE.
uri_of() {
	awk -v s="$1" 'BEGIN { RS = "" }
		{
			u = ""; ok = 0; n = split($0, l, "\n")
			for (i = 1; i <= n; i++) {
				m = split(l[i], w, " ")
				if (w[1] == "URIs:") u = w[2]
				if (w[1] == "Suites:")
					for (j = 2; j <= m; j++) if (w[j] == s) ok = 1
			}
			if (ok && u != "") { print u; exit }
		}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true
}

# stock_apt apt-get|apt-cache ARGS...: apt with the private configuration,
# the host's architecture and ARCH.
stock_apt() {
	local tool=$1 d=$apt_dir main sec key=/usr/share/keyrings/debian-archive-keyring.gpg
	shift
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/parts"
	if [ ! -f "$d/etc/sources.list" ]; then
		main=$(uri_of bookworm)
		sec=$(uri_of bookworm-security)
		printf 'deb [signed-by=%s] %s %s main\n' \
			"$key" "${main:-http://deb.debian.org/debian}" bookworm \
			"$key" "${main:-http://deb.debian.org/debian}" bookworm-updates \
			"$key" "${sec:-http://deb.debian.org/debian-security}" bookworm-security \
			>"$d/etc/sources.list"
	fi
	"$tool" -o Dir::Etc::SourceList="$d/etc/sources.list" \
		-o Dir::Etc::SourceParts="$d/etc/parts" \
		-o Dir::Etc::PreferencesParts="$d/etc/parts" \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
		-o APT::Architecture="$host" -o APT::Architectures::="$host" \
		-o APT::Architectures::="$arch" "$@"
}

# resolve: the release the meta package names, and the image's version,
# as "KVER VERSION"; once per fetch of the lists (apt-cache takes seconds).
resolve() {
	local kver ver
	kver=$(stock_apt apt-cache depends "linux-headers-$flavour:$arch" 2>/dev/null |
		sed -n "s/.*Depends: linux-headers-\(.*-$flavour\)\(:$arch\)\{0,1\}\$/\1/p" |
		head -n 1)
	[ -n "$kver" ] || { say "stock-arm: linux-headers-$flavour:$arch not in the lists ($apt_dir)"; return 1; }
	ver=$(stock_apt apt-cache policy "linux-image-$kver:$arch" 2>/dev/null |
		sed -n 's/^  Candidate: //p' | grep -v '(none)' || true)
	[ -n "$ver" ] || { say "stock-arm: no linux-image-$kver:$arch in the lists ($apt_dir)"; return 1; }
	echo "$kver $ver"
}
if [ ! -f "$apt_dir/.updated" ]; then
	rm -f "$apt_dir/release"
	stage "stock-arm: apt lists of bookworm for $host and $arch (private configuration)" \
		"$log-apt.log" stock_apt apt-get update || exit
	touch "$apt_dir/.updated"
fi
if [ ! -s "$apt_dir/release" ]; then
	resolve >"$apt_dir/release.new" || exit
	mv "$apt_dir/release.new" "$apt_dir/release"
fi
read -r kver ver <"$apt_dir/release"
abi=${kver%-"$flavour"}
series=$(echo "$abi" | cut -d. -f1-2)

dir=$SNAPTRACE_CACHE/stock/$kver
kdir=$dir/usr/src/linux-headers-$kver
img=$dir/boot/$image-$kver
key="$arch $host $kver $ver"
if [ "$(cat "$dir/.snaptrace-ready" 2>/dev/null)" = "$key" ]; then
	say "stock-arm: linux-image-$kver and its headers cached ($ver)"
	echo "$img"
	echo "$kdir"
	exit 0
fi

rm -rf "$dir"
mkdir -p "$dir/deb"
fetch() {
	(cd "$dir/deb" && stock_apt apt-get download "linux-image-$kver:$arch=$ver" \
		"linux-headers-$kver:$arch=$ver" "linux-headers-$abi-common=$ver" \
		"linux-kbuild-$series:$host=$ver")
}
stage "stock-arm: download linux-image-$kver, its headers and linux-kbuild-$series:$host ($ver)" \
	"$log-download.log" fetch || exit

unpack() {
	local deb f
	for f in "linux-headers-${kver}_" "linux-headers-$abi-common_" "linux-kbuild-${series}_"; do
		deb=$(ls "$dir/deb/$f"*.deb) || return
		dpkg-deb -x "$deb" "$dir" || return
	done
	# The tree finds the -common one by its absolute path.
	sed -i "s|^include /usr/src/linux-headers-$abi-common/|include $dir/usr/src/linux-headers-$abi-common/|" \
		"$kdir/Makefile" || return
	grep -q "^include $dir/" "$kdir/Makefile" || return
	deb=$(ls "$dir/deb/linux-image-${kver}_"*.deb) || return
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$dir" "./boot/vmlinuz-$kver" "./boot/config-$kver" || return
	if [ "$image" = Image ] &&
		[ "$(od -An -tx1 -N2 "$dir/boot/vmlinuz-$kver" | tr -d ' ')" = 1f8b ]; then
		gzip -dc "$dir/boot/vmlinuz-$kver" >"$img" || return
		rm -f "$dir/boot/vmlinuz-$kver"
	else
		mv "$dir/boot/vmlinuz-$kver" "$img" || return
	fi
	rm -rf "${dir:?}/deb" "${dir:?}/lib" "${dir:?}/usr/share"
}
stage "stock-arm: extract the headers tree and the image" "$log-extract.log" unpack || exit
# The magic numbers qemu-run.sh tells the guest's architecture by: arm64's
# "ARM\x64" at 0x38 (Documentation/arch/arm64/booting.rst), the zImage's
# 0x016f2818 at 0x24 (arch/arm/boot/compressed/head.S).
case $image in
Image) [ "$(od -An -tx1 -j56 -N4 "$img" | tr -d ' ')" = 41524d64 ] ;;
zImage) [ "$(od -An -tx1 -j36 -N4 "$img" | tr -d ' ')" = 18286f01 ] ;;
esac || die "stock-arm: $img is not an $arch $image"
if [ ! -f "$kdir/.config" ] || [ ! -x "$kdir/scripts/mod/modpost" ]; then
	die "stock-arm: $kdir is not a usable headers tree"
fi
echo "$key" >"$dir/.snaptrace-ready"
echo "$img"
echo "$kdir"
