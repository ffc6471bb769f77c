#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (and install) snaptrace.ko with DKMS, from dkms.conf, as a user's
# `dkms add && dkms install` would, but in a scratch DKMS tree, source tree
# and install tree: nothing is written to /var/lib/dkms, /usr/src or
# /lib/modules of the host (checked before exiting). The installed module is
# copied to OUTDIR, for booting with scripts/qemu-run.sh --modules OUTDIR,
# with the snaptrace.symvers dkms.conf's hooks installed beside it (for
# modules built against snaptrace), checked against the build's own.
#
# Usage: dkms-check.sh KVER OUTDIR    e.g. 6.12.117+deb12-amd64 out/build/dkms-6.12
set -euo pipefail
. "$(dirname "$0")/lib.sh"

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

