#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build snaptrace.ko (and snaptrace_kunit.ko, when the kernel has KUnit;
# and the crash test module snaptrace_crash.ko: Kbuild) against one
# kernel tree, with W=1, in a copy of the sources under OUTDIR so builds for
# several kernels do not trample each other or the clone.
# Any compiler or modpost warning fails the build. When OUTDIR already
# holds a build of the same sources against the same kernel tree with the
# same make args (its stamp, build_key), nothing is built again.
#
# Usage: build-module.sh KDIR OUTDIR [make args...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# build_key KDIR ARGS...: what a build depends on: the sources copied
# that Kbuild reads (tests/*.[ch], not the scenarios; and this script), the
# kernel tree's path and the mtimes of its .config and Module.symvers, the
# make args. Kept in OUTDIR/.build-stamp by a build that succeeded.
build_key() {
	local kdir=$1
	shift
	{
		(cd "$SNAPTRACE_TOP" && {
			find Kbuild Kconfig src include compat-include -type f -print0
			find tests -maxdepth 1 -name '*.[ch]' -print0
		} | LC_ALL=C sort -z | xargs -0 sha256sum)
		sha256sum <"$0"
		realpath "$kdir"
		stat -c %Y "$kdir/.config" "$kdir/Module.symvers" 2>/dev/null || true
		printf 'arg %s\n' "$@"
	} | sha256sum | cut -c1-16
}

kdir=${1:?usage: build-module.sh KDIR OUTDIR}
out=$(realpath -m "${2:?usage: build-module.sh KDIR OUTDIR}")
shift 2
[ -f "$kdir/Makefile" ] || die "no kernel tree at $kdir"
key=$(build_key "$kdir" "$@")
if [ -f "$out/snaptrace.ko" ] && [ "$(cat "$out/.build-stamp" 2>/dev/null)" = "$key" ]; then
	say "build: up to date ($(basename "$kdir"), $out, key $key)"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
cp -r "$SNAPTRACE_TOP"/{Kbuild,Kconfig,src,include,compat-include,tests} "$out/"
log=$out/build.log
# A clang-built tree wants the module built by the same toolchain.
if grep -q '^CONFIG_CC_IS_CLANG=y' "$kdir/.config" 2>/dev/null; then
	set -- LLVM=1 "$@"
fi
# An ARM tree (tests/qemu/kernel-kunit.sh's arm64 and armv7 kernels) is
# cross-compiled with Debian's cross gcc, as it was built; the caller's
# ARCH= and CROSS_COMPILE= come after, and win.
if grep -q '^CONFIG_ARM64=y' "$kdir/.config" 2>/dev/null; then
	set -- ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- "$@"
elif grep -q '^CONFIG_ARM=y' "$kdir/.config" 2>/dev/null; then
	set -- ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf- "$@"
fi
# The crash test module, for every kernel (its NMI part only where there
# is an x86 local APIC: tests/crash_testdrv.c).
crash=CONFIG_SNAPTRACE_CRASH_TEST=m

# The check reads the log once make is done, outside stage's redirection:
# GNU grep refuses to read the file its own output goes to ("input file is
# also the output"), and would then find nothing.
stage "build: $(basename "$kdir")" "$log" make -C "$kdir" M="$out" W=1 \
	$crash "$@" modules
if grep -n 'warning:' "$log" >&2; then
	say "build-module: warnings are errors here ($log)"
	exit 1
fi
echo "$key" >"$out/.build-stamp"
