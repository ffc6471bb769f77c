#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (and install) snaptrace.ko with DKMS, from dkms.conf, as a user's
# `dkms add && dkms install` would, but in a scratch DKMS tree, source tree
# and install tree: nothing is written to /var/lib/dkms, /usr/src or
# /lib/modules of the host (checked before exiting). The installed module is
# copied to OUTDIR, for booting with tests/qemu/qemu-run.sh --modules OUTDIR,
# with the snaptrace.symvers dkms.conf's hooks installed beside it (for
# modules built against snaptrace), checked against the build's own, and
# snaptrace_example.ko: examples/ built by DKMS against that, with the
# dkms.conf lines Documentation/install.rst gives.
#
# Usage: dkms-check.sh KVER OUTDIR    e.g. 6.12.117+deb12-amd64 out/build/dkms-6.12
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

kver=${1:?usage: dkms-check.sh KVER OUTDIR}
out=$(realpath -m "${2:?usage: dkms-check.sh KVER OUTDIR}")
kdir=/usr/src/linux-headers-$kver
[ -f "$kdir/Makefile" ] || die "no headers for $kver at $kdir"
logs=$SNAPTRACE_OUT/logs
log=$logs/dkms-$kver

# dkms.conf must package the version the module reports.
ver=$(sed -n 's/^#define SNAPTRACE_VERSION "\(.*\)"$/\1/p' \
	"$SNAPTRACE_TOP/include/snaptrace/snaptrace.h")
[ -n "$ver" ] || die "no SNAPTRACE_VERSION in include/snaptrace/snaptrace.h"
grep -qx "PACKAGE_VERSION=\"$ver\"" "$SNAPTRACE_TOP/dkms.conf" ||
	die "dkms.conf: PACKAGE_VERSION is not \"$ver\" (SNAPTRACE_VERSION)"

if ! dpkg-query -W -f='${Status}\n' dkms 2>/dev/null | grep -q '^install ok installed'; then
	export DEBIAN_FRONTEND=noninteractive
	stage "dkms: apt-get install dkms" "$logs/deps-dkms.log" \
		as_root apt-get install -y --no-install-recommends dkms
fi
dkms=$(PATH=$PATH:/usr/sbin:/sbin command -v dkms) || die "dkms not found"

# What the host has where DKMS writes by default, to prove we left it alone.
host_state() {
	{
		find /var/lib/dkms /usr/src -maxdepth 2 2>/dev/null || true
		find "/lib/modules/$kver" -maxdepth 2 -printf '%p %s %T@\n' 2>/dev/null || true
	} | sort
}
before=$(host_state)

scratch=$(mktemp -d "${TMPDIR:-/tmp}/snaptrace-dkms.XXXXXX")
# On every exit: remove the scratch trees, then compare the host with before.
finish() {
	local rc=$? after
	rm -rf "$scratch" 2>/dev/null || as_root rm -rf "$scratch"
	after=$(host_state)
	if [ "$before" != "$after" ]; then
		diff <(echo "$before") <(echo "$after") | sed 's/^/    | /' >&2 || true
		say "error: dkms touched the host's /var/lib/dkms, /usr/src or /lib/modules/$kver"
		rc=1
	elif [ "$rc" -eq 0 ]; then
		say "dkms: host /var/lib/dkms, /usr/src, /lib/modules/$kver untouched"
	fi
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

tree=(--dkmstree "$scratch/dkms" --sourcetree "$scratch/src"
	--installtree "$scratch/modules")
mkdir -p "$scratch/dkms" "$scratch/src/snaptrace-$ver" "$scratch/modules/$kver" \
	"$scratch/tmp"
(cd "$SNAPTRACE_TOP" && cp -r --parents Kbuild Kconfig src include compat-include \
	dkms.conf scripts/dkms-symvers.sh "$scratch/src/snaptrace-$ver/")

# dkms signs what it builds when the kernel has a sign-file, generating a key
# in /var/lib/dkms unless told otherwise: a throwaway key here. (The signature
# is not trusted by the guest; it loads as an unsigned module would.)
export TMPDIR=$scratch/tmp
export mok_signing_key=$scratch/mok.key mok_certificate=$scratch/mok.pub

stage "dkms: add snaptrace/$ver" "$log-add.log" \
	"$dkms" add -m snaptrace -v "$ver" "${tree[@]}"

build() {
	local rc=0
	"$dkms" build -m snaptrace -v "$ver" -k "$kver" "${tree[@]}" \
		--kernelsourcedir "$kdir" || rc=$?
	# dkms keeps make's output in its tree, which the trap removes.
	cat "$scratch/dkms/snaptrace/$ver/build/make.log" \
		"$scratch/dkms/snaptrace/$ver/$kver"/*/log/make.log 2>/dev/null || true
	return $rc
}
stage "dkms: build for $kver" "$log-build.log" build

# --no-depmod: depmod -a KVER would rewrite /lib/modules/KVER/modules.* of
# the host whatever --installtree says.
stage "dkms: install into the scratch tree" "$log-install.log" \
	as_root "$dkms" install -m snaptrace -v "$ver" -k "$kver" "${tree[@]}" \
	--kernelsourcedir "$kdir" --no-depmod --force

installed=$(find "$scratch/modules/$kver/updates/dkms" -name 'snaptrace.ko*' | head -n 1)
[ -n "$installed" ] || die "dkms install left no snaptrace.ko in updates/dkms"
rm -rf "$out"
mkdir -p "$out"
case "$installed" in
*.ko) cp "$installed" "$out/" ;;
*.ko.xz) xz -dc "$installed" >"$out/snaptrace.ko" ;;
*.ko.gz) gzip -dc "$installed" >"$out/snaptrace.ko" ;;
*.ko.zst) zstd -qdc "$installed" >"$out/snaptrace.ko" ;;
*) die "unexpected module file $installed" ;;
esac
say "dkms: $(basename "$installed") -> $out/snaptrace.ko"

# dkms.conf's POST_BUILD and POST_INSTALL hooks: Module.symvers beside the
# installed module, naming every symbol snaptrace.ko exports.
symvers=$scratch/modules/$kver/updates/dkms/snaptrace.symvers
[ -s "$symvers" ] || die "dkms install left no snaptrace.symvers in updates/dkms"
cmp -s "$symvers" "$scratch/dkms/snaptrace/$ver/$kver/$(uname -m)/module/Module.symvers" ||
	die "updates/dkms/snaptrace.symvers is not the build's Module.symvers"
grep -q '	snaptrace_write	' "$symvers" ||
	die "snaptrace.symvers does not name snaptrace_write"
cp "$symvers" "$out/"
say "dkms: snaptrace.symvers -> $out/snaptrace.symvers"

# A module built against it by DKMS, as Documentation/install.rst says:
# examples/ packaged with the dkms.conf lines shown there.
doc=$SNAPTRACE_TOP/Documentation/install.rst
lines=$(awk '/^    BUILD_DEPENDS\[0\]=/ {f = 1} f {print substr($0, 5)} f && /modules"$/ {exit}' "$doc")
grep -q '^MAKE\[0\]=' <<<"$lines" || die "no BUILD_DEPENDS and MAKE lines in $doc"
ex=$scratch/src/snaptrace-example-$ver
mkdir -p "$ex"
cp "$SNAPTRACE_TOP"/examples/{Kbuild,snaptrace_example.c} "$ex/"
{
	echo 'PACKAGE_NAME="snaptrace-example"'
	echo "PACKAGE_VERSION=\"$ver\""
	echo 'BUILT_MODULE_NAME[0]="snaptrace_example"'
	echo 'DEST_MODULE_LOCATION[0]="/updates/dkms"'
	echo "$lines"
} >"$ex/dkms.conf"
example() {
	local rc=0
	"$dkms" add -m snaptrace-example -v "$ver" "${tree[@]}" &&
		"$dkms" build -m snaptrace-example -v "$ver" -k "$kver" "${tree[@]}" \
			--kernelsourcedir "$kdir" &&
		as_root "$dkms" install -m snaptrace-example -v "$ver" -k "$kver" "${tree[@]}" \
			--kernelsourcedir "$kdir" --no-depmod --force || rc=$?
	cat "$scratch/dkms/snaptrace-example/$ver/build/make.log" \
		"$scratch/dkms/snaptrace-example/$ver/$kver"/*/log/make.log 2>/dev/null || true
	return $rc
}
stage "dkms: examples/ built against it, as install.rst says" "$log-example.log" example
ex_ko=$(find "$scratch/modules/$kver/updates/dkms" -name 'snaptrace_example.ko*' | head -n 1)
[ -n "$ex_ko" ] || die "dkms install left no snaptrace_example.ko in updates/dkms"
if grep -n 'warning:' "$log-example.log" >&2; then
	die "examples/ builds with warnings under DKMS ($log-example.log)"
fi
case "$ex_ko" in
*.ko) cp "$ex_ko" "$out/" ;;
*.ko.xz) xz -dc "$ex_ko" >"$out/snaptrace_example.ko" ;;
*.ko.gz) gzip -dc "$ex_ko" >"$out/snaptrace_example.ko" ;;
*.ko.zst) zstd -qdc "$ex_ko" >"$out/snaptrace_example.ko" ;;
*) die "unexpected module file $ex_ko" ;;
esac
say "dkms: $(basename "$ex_ko"), built against snaptrace.symvers -> $out/snaptrace_example.ko"
