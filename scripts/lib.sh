# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the snaptrace scripts: stage timing, logs, cache paths.
# Sourced, not executed.

SNAPTRACE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SNAPTRACE_CACHE=${SNAPTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/snaptrace}
SNAPTRACE_OUT=${SNAPTRACE_OUT:-$SNAPTRACE_TOP/out}
mkdir -p "$SNAPTRACE_CACHE" "$SNAPTRACE_OUT/logs"

_t0=${_t0:-$(date +%s)}
export _t0

# say MSG: one progress line on stderr, prefixed with the elapsed time of
# the whole run (stdout is kept for results).
say() {
	local now
	now=$(date +%s)
	printf '[%4ds] %s\n' $((now - _t0)) "$*" >&2
}

# stage NAME LOG CMD...: run CMD with its output in LOG, one line for the
# start and one for the end with the stage's duration; on failure print the
# log's tail and return the command's status.
stage() {
	local name=$1 log=$2 s rc
	shift 2
	s=$(date +%s)
	say "$name ..."
	if "$@" >"$log" 2>&1; then
		say "$name: ok ($(($(date +%s) - s))s, log $log)"
		return 0
	else
		rc=$?
		say "$name: FAILED rc=$rc ($(($(date +%s) - s))s, log $log); last lines:"
		tail -n 40 "$log" | sed 's/^/    | /' >&2
		return $rc
	fi
}

die() {
	say "error: $*"
	exit 1
}

# as_root CMD...: run CMD as root, via sudo when we are not root.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# hash_of FILE...|-: short content hash of the given files and strings, used
# to key cache entries by their inputs.
hash_of() {
	cat "$@" | sha256sum | cut -c1-16
}

# kernel_source: Debian's linux-source-6.12, unpacked once into the cache
# (the tree the test kernels build from, and home of checkpatch.pl,
# kernel-doc and kunit.py); prints its path.
kernel_source() {
	local srcver tarball=/usr/src/linux-source-6.12.tar.xz src
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
		die "linux-source-6.12 is not installed: run 'make deps'"
	src=$SNAPTRACE_CACHE/src/linux-source-$srcver
	if [ ! -f "$src/.snaptrace-unpacked" ]; then
		[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
		rm -rf "$src"
		mkdir -p "$src"
		stage "unpack linux-source $srcver" "$SNAPTRACE_OUT/logs/unpack.log" \
			tar -xJf "$tarball" -C "$src" --strip-components=1 >&2 || return
		touch "$src/.snaptrace-unpacked"
	fi
	echo "$src"
}

# newer_apt apt-get|apt-cache ARGS...: Debian's archive beyond Debian 12,
# where Linux 7.x lives (sid, trixie-backports), through a private apt
# configuration under the cache: its own sources list naming the archive
# of the system's debian.sources, its own lists and package cache. The
# system's sources are never touched and nothing is installed from there:
# packages are fetched with `apt-get download` and unpacked by hand.
NEWER_SUITES="sid trixie-backports"
newer_apt() {
	local tool=$1 d=$SNAPTRACE_CACHE/apt-newer uri s
	shift
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/etc/parts"
	if [ ! -f "$d/etc/sources.list" ]; then
		uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
		uri=${uri:-http://deb.debian.org/debian}
		for s in $NEWER_SUITES; do
			echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $uri $s main"
		done >"$d/etc/sources.list"
	fi
	"$tool" -o Dir::Etc::SourceList="$d/etc/sources.list" \
		-o Dir::Etc::SourceParts="$d/etc/parts" \
		-o Dir::Etc::PreferencesParts="$d/etc/parts" \
		-o Dir::State::Lists="$d/lists" -o Dir::Cache="$d/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}

# newer_update: fetch the private lists once (make check stays offline
# after that; remove $SNAPTRACE_CACHE/apt-newer to refresh them).
newer_update() {
	[ -f "$SNAPTRACE_CACHE/apt-newer/.updated" ] && return 0
	stage "apt: lists of $NEWER_SUITES (private configuration)" \
		"$SNAPTRACE_OUT/logs/apt-newer.log" newer_apt apt-get update || return
	touch "$SNAPTRACE_CACHE/apt-newer/.updated"
}

# newer_version PKG: the version of PKG the private lists offer.
newer_version() {
	newer_update >&2 || return
	newer_apt apt-cache policy "$1" 2>/dev/null | sed -n 's/^  Candidate: //p' |
		grep -v '(none)'
}

# newer_deb PKG: download PKG (candidate version) into the cache once;
# prints the .deb's path.
newer_deb() {
	local ver d=$SNAPTRACE_CACHE/debs f
	ver=$(newer_version "$1") || return
	[ -n "$ver" ] || { say "error: $1 is not in $NEWER_SUITES"; return 1; }
	f=$d/${1}_${ver//:/%3a}_$(newer_apt apt-cache show "$1=$ver" 2>/dev/null |
		sed -n 's/^Architecture: //p' | head -n 1).deb
	if [ ! -f "$f" ]; then
		mkdir -p "$d"
		(cd "$d" && newer_apt apt-get download "$1=$ver") \
			>>"$SNAPTRACE_OUT/logs/apt-newer.log" 2>&1 ||
			{ say "error: apt-get download $1=$ver failed"; return 1; }
	fi
	[ -f "$f" ] || { say "error: no $f after download"; return 1; }
	echo "$f"
}

# kernel_source_series SERIES: Debian's linux-source-SERIES unpacked once
# into the cache; prints its path. 6.12 comes from Debian 12 (installed by
# deps.sh), newer ones from the private configuration above.
kernel_source_series() {
	local series=$1 srcver deb src
	if [ "$series" = 6.12 ]; then
		kernel_source
		return
	fi
	deb=$(newer_deb "linux-source-$series") || return
	srcver=$(dpkg-deb -f "$deb" Version)
	src=$SNAPTRACE_CACHE/src/linux-source-$srcver
	if [ ! -f "$src/.snaptrace-unpacked" ]; then
		rm -rf "$src"
		mkdir -p "$src"
		unpack() {
			dpkg-deb --fsys-tarfile "$deb" |
				tar -xO "./usr/src/linux-source-$series.tar.xz" |
				tar -xJ -C "$src" --strip-components=1
		}
		stage "unpack linux-source $srcver" "$SNAPTRACE_OUT/logs/unpack-$series.log" \
			unpack >&2 || return
		touch "$src/.snaptrace-unpacked"
	fi
	echo "$src"
}

# guest_busybox ARCH: a busybox-static for an ARM guest (arm64, armhf),
# Debian 12's own, downloaded once through a private apt configuration
# (its own sources list, lists and cache under $SNAPTRACE_CACHE/apt-arm,
# APT::Architectures set on the command line: the system's apt and dpkg
# are never told of a foreign architecture) and unpacked, never
# installed; prints the binary's path. x86 guests use the host's.
guest_busybox() {
	local arch=$1 d=$SNAPTRACE_CACHE/apt-arm uri bb deb
	bb=$SNAPTRACE_CACHE/busybox-$arch/bin/busybox
	if [ ! -x "$bb" ]; then
		# Lists of their own per architecture: an update for one
		# replaces the lists, and the other's flag would then name lists
		# that are gone ("no candidate").
		mkdir -p "$d/lists-$arch/partial" "$d/cache/archives/partial" "$d/etc/parts" "$d/debs"
		uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
		echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${uri:-http://deb.debian.org/debian} bookworm main" \
			>"$d/etc/sources.list"
		arm_apt() {
			apt-get -o Dir::Etc::SourceList="$d/etc/sources.list" \
				-o Dir::Etc::SourceParts="$d/etc/parts" \
				-o Dir::Etc::PreferencesParts="$d/etc/parts" \
				-o Dir::State::Lists="$d/lists-$arch" -o Dir::Cache="$d/cache" \
				-o Debug::NoLocking=1 -o APT::Sandbox::User=root \
				-o APT::Architecture="$arch" -o APT::Architectures::="$arch" "$@"
		}
		[ -f "$d/lists-$arch/.updated" ] || { arm_apt update >&2 && touch "$d/lists-$arch/.updated"; } ||
			return
		(cd "$d/debs" && arm_apt download "busybox-static:$arch" >&2) || return
		deb=$(ls -t "$d/debs"/busybox-static_*_"$arch".deb | head -n 1)
		rm -rf "$SNAPTRACE_CACHE/busybox-$arch"
		dpkg-deb -x "$deb" "$SNAPTRACE_CACHE/busybox-$arch" || return
	fi
	echo "$bb"
}

# The Debian kernels we build against and boot. The meta packages name the
# current ABI of each flavour; resolve it rather than hard-code it.
STOCK_METAS="linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64"

# Debian's stock kernel from beyond Debian 12 that make check boots: the
# headers meta package of trixie-backports (through newer_apt).
NEWER_STOCK_META="linux-headers-amd64/trixie-backports"

# newer_stock_kver: the kernel release NEWER_STOCK_META points at.
newer_stock_kver() {
	newer_update >&2 || return
	newer_apt apt-cache depends "$NEWER_STOCK_META" 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(.*-amd64\)$/\1/p' | head -n 1
}

# stock_kver META: the kernel release (uname -r) a headers meta package points at.
stock_kver() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(.*\)$/\1/p' | head -n 1
}

# kunit_parser: kunit.py, which qemu-run.sh parses the guest's KTAP with,
# where it looks for it ($SNAPTRACE_CACHE/src/linux-source-*/tools/testing/
# kunit/). make check has it from kernel_source's whole tree; without that,
# only tools/testing/kunit/ (300 KiB) is taken out of linux-source-6.12's
# tarball: from /usr/src when the package is installed, else from the
# package fetched with apt-get download (never installed, removed after).
# The directory gets no stamp of a whole unpack, so kernel_source still
# unpacks the tree there when make check needs it.
kunit_parser() {
	local tarball=/usr/src/linux-source-6.12.tar.xz d=$SNAPTRACE_CACHE/debs srcver src deb
	local member=linux-source-6.12/tools/testing/kunit
	if ls "$SNAPTRACE_CACHE"/src/linux-source-*/tools/testing/kunit/kunit.py >/dev/null 2>&1; then
		return 0
	fi
	if srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) &&
		[ -f "$tarball" ]; then
		src=$SNAPTRACE_CACHE/src/linux-source-$srcver
		mkdir -p "$src"
		stage "kunit.py: tools/testing/kunit of $tarball" "$SNAPTRACE_OUT/logs/kunit-py.log" \
			tar -xJf "$tarball" -C "$src" --strip-components=1 "$member" >&2
		return
	fi
	srcver=$(apt-cache policy linux-source-6.12 2>/dev/null | sed -n 's/^  Candidate: //p')
	if [ -z "$srcver" ] || [ "$srcver" = "(none)" ]; then
		die "no linux-source-6.12 in apt's lists (apt-get update?)"
	fi
	src=$SNAPTRACE_CACHE/src/linux-source-$srcver
	mkdir -p "$src" "$d"
	fetch_kunit() {
		(cd "$d" && apt-get download "linux-source-6.12=$srcver") || return
		deb=$(ls "$d"/linux-source-6.12_*.deb | head -n 1)
		dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/src/linux-source-6.12.tar.xz |
			tar -xJ -C "$src" --strip-components=1 "$member"
		local rc=$?
		rm -f "$deb"
		return $rc
	}
	stage "kunit.py: tools/testing/kunit of linux-source-6.12 $srcver (apt-get download)" \
		"$SNAPTRACE_OUT/logs/kunit-py.log" fetch_kunit >&2
}

# DEMO_PKGS: what make demo installs, not make deps' list (no test kernels,
# cross compiler, static checkers or fuzzer): the module built against the
# stock 6.12 headers, the x86 example firmware, the initramfs, QEMU, and
# python3 for kunit.py.
DEMO_PKGS="build-essential kmod cpio xz-utils busybox-static qemu-system-x86
 python3 linux-headers-6.12-amd64"

# demo_stock_kernel [PKG...]: what make demo and make demo-remote boot.
# Installs DEMO_PKGS and PKGs, finds kunit.py, builds the module for
# Debian's stock 6.12 kernel and fetches that kernel; sets DEMO_KVER,
# DEMO_MODS (the modules) and DEMO_VMLINUZ.
demo_stock_kernel() {
	# shellcheck disable=SC2086 # lists of package names
	"$SNAPTRACE_TOP/scripts/deps.sh" $DEMO_PKGS "$@"
	kunit_parser
	demo_stock_module
}

# demo_stock_module: demo_stock_kernel without installing anything or
# unpacking the kernel source (make shell, which installs less and judges
# no KTAP): builds the module for Debian's stock 6.12 kernel, fetches that
# kernel, sets DEMO_KVER, DEMO_MODS and DEMO_VMLINUZ.
demo_stock_module() {
	DEMO_KVER=$(stock_kver linux-headers-6.12-amd64)
	[ -n "$DEMO_KVER" ] || die "cannot resolve linux-headers-6.12-amd64"
	DEMO_MODS=$SNAPTRACE_OUT/build/$DEMO_KVER
	"$SNAPTRACE_TOP/scripts/build-module.sh" "/usr/src/linux-headers-$DEMO_KVER" "$DEMO_MODS"
	DEMO_VMLINUZ=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$DEMO_KVER" | tail -n 1)
}
