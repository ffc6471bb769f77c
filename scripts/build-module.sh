#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build snaptrace.ko (and snaptrace_kunit.ko, when the kernel has KUnit;
# and the crash test module snaptrace_crash.ko, always: Kbuild) against one
# kernel tree, with W=1, in a copy of the sources under OUTDIR so builds for
# several kernels do not trample each other or the clone.
# Any compiler or modpost warning fails the build.
#
# Usage: build-module.sh KDIR OUTDIR [make args...]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

kdir=${1:?usage: build-module.sh KDIR OUTDIR}
out=$(realpath -m "${2:?usage: build-module.sh KDIR OUTDIR}")
shift 2
[ -f "$kdir/Makefile" ] || die "no kernel tree at $kdir"

rm -rf "$out"
mkdir -p "$out"
cp -r "$SNAPTRACE_TOP"/{Kbuild,Kconfig,src,include,compat-include,tests} "$out/"
log=$out/build.log
# A clang-built tree wants the module built by the same toolchain.
if grep -q '^CONFIG_CC_IS_CLANG=y' "$kdir/.config" 2>/dev/null; then
	set -- LLVM=1 "$@"
fi

# The check reads the log once make is done, outside stage's redirection:
# GNU grep refuses to read the file its own output goes to ("input file is
# also the output"), and would then find nothing.
stage "build: $(basename "$kdir")" "$log" make -C "$kdir" M="$out" W=1 \
	CONFIG_SNAPTRACE_CRASH_TEST=m "$@" modules
if grep -n 'warning:' "$log" >&2; then
	say "build-module: warnings are errors here ($log)"
	exit 1
fi
